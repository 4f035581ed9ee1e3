"""One check per job that Spark and the plain local implementation (:mod:`rebalance.spark.single_process`) give
identical tables on a small input.  The chapters' prose tests (``test_chapter_exercises*.py``) then run on
the local implementation only, which this file vouches for."""
import pandas as pd
import pytest

from rebalance.errors import InputError
from rebalance.spark import single_process as local
from rebalance.spark.jobs import connect, coordinator, montecarlo, placement, sweep

pytestmark = pytest.mark.spark

SEED = 3


def assert_same_tables(spark_tables, local_tables):
    assert set(spark_tables) == set(local_tables)
    for name in spark_tables:
        pd.testing.assert_frame_equal(spark_tables[name].reset_index(drop=True),
                                      local_tables[name].reset_index(drop=True), check_dtype=False, obj=name)


def test_sweep(spark):
    params = {"max_members": 6}
    result = sweep.run(spark, 30, seed=SEED, params=params)
    assert_same_tables(result.tables, local.run("sweep", 30, SEED, **params))
    rounds = result["rounds_histogram"]
    assert rounds.groupby("assignor")["scenarios"].sum().tolist() == [30] * 4
    assert (rounds[rounds.assignor != "cooperative-sticky"]["rounds"] == 1).all()
    assert len(result["rows"]) == 30 * 4
    # above the row limit only the summaries come back
    assert "rows" not in sweep.run(spark, 4, seed=SEED, params=params, keep_rows=False).tables


def test_coordinator_with_racks(spark):
    params = {"partition_counts": (50,), "broker_counts": (6,), "placer": "AdminUtils", "rack_counts": (0, 3)}
    result = coordinator.run(spark, 5_000, seed=SEED, params=params)
    assert_same_tables(result.tables, local.run("coordinator", 5_000, SEED, **params))
    summary = result["summary"]
    assert summary["racks"].tolist() == [0, 3] and summary["groups"].tolist() == [5_000, 5_000]
    assert pd.isna(summary.loc[0, "max_rack_commits_vs_even"]) and summary.loc[1, "max_rack_commits_vs_even"] >= 1
    racked = result["broker_load"][result["broker_load"].racks == 3]
    assert racked["rack"].tolist() == ["r0", "r1", "r2"] * 2


def test_montecarlo_with_kip848_and_overrides(spark):
    params = {"modes": ("cooperative", "kip848"), "config": {"session_timeout_ms": 30_000}}
    result = montecarlo.run(spark, 4, seed=SEED, params=params)
    assert_same_tables(result.tables, local.run("montecarlo", 4, SEED, **params))
    rows = result["rows"]
    assert set(rows["mode"]) == {"cooperative", "kip848"} and (rows["double_ownership"] == 0).all()
    assert rows["settled"].all()


def test_placement(spark):
    params = {"topics_per_cluster": 20}
    result = placement.run(spark, 50, seed=SEED, params=params)
    assert_same_tables(result.tables, local.run("placement", 50, SEED, **params))


def test_connect(spark):
    params = {"config": {"max_delay_ms": 60_000}}
    result = connect.run(spark, 12, seed=SEED, params=params)
    assert_same_tables(result.tables, local.run("connect", 12, SEED, **params))
    assert result["rows"]["complete"].all() and (result["rows"]["max_delay_ms"] == 60_000).all()


def test_bad_overrides_name_the_field():
    with pytest.raises(InputError) as err:
        local.run("montecarlo", 2, config={"session_timeout": 1})
    assert err.value.field == "params.config.session_timeout"
    with pytest.raises(InputError) as err:
        local.run("montecarlo", 2, config={"kip848.heartbeat_interval_ms": 0})
    assert err.value.field == "params.config.heartbeat_interval_ms"
    with pytest.raises(InputError) as err:
        local.run("connect", 2, config={"max_delay_ms": -1})
    assert err.value.field == "params.config.max_delay_ms"
    with pytest.raises(InputError) as err:
        local.run("coordinator", 2, rack_counts=(3,))
    assert err.value.field == "params.rack_counts"
