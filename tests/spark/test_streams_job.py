"""The ``streams`` job (scale-outs of Kafka Streams applications through HighAvailabilityTaskAssignor): Spark and
the local loop agree, a row is the experiment function's own answer, and a larger warm-up budget never needs more
probing rebalances on the same scale-out."""
import pandas as pd
import pytest

from rebalance.errors import InputError
from rebalance.spark import single_process as local
from rebalance.spark.jobs import streams
from rebalance.streams import AssignmentConfigs, probing_rounds, random_process_ids, tasks_of


def test_a_row_is_probing_rounds():
    sc = streams.streams_scenario(0, 5)
    row = streams.evaluate(0, sc, 2)
    pids = random_process_ids(sc.clients + sc.new_clients, 0 * 1_000_003 + 5)
    rounds = probing_rounds(pids[:sc.clients], pids, tasks_of(sc.subtopologies, sc.partitions),
                            AssignmentConfigs(10_000, 2, sc.standbys), dict(zip(pids, sc.threads)))
    assert row["probing_rebalances"] == len(rounds) - 1 and row["settled"]
    assert row["warmups"] == sum(r.warmup_count() for r in rounds) > 0
    assert rounds[0].moved_actives == 0   # nobody new is caught up: the first rebalance moves no active task


def test_larger_budget_never_needs_more_probes():
    rows = local.run("streams", 12, 1, warmups=(1, 4))["rows"].pivot(index="scenario", columns="max_warmup_replicas",
                                                                     values="probing_rebalances")
    assert (rows[4] <= rows[1]).all() and (rows[4] < rows[1]).any()


def test_bad_params_name_the_field():
    with pytest.raises(InputError, match="params.warmups"):
        local.run("streams", 2, warmups=(0,))
    with pytest.raises(InputError, match="params.max_clients"):
        local.run("streams", 2, max_clients=1)


@pytest.mark.spark
def test_spark_equals_local(spark):
    params = {"warmups": (1, 2)}
    result = streams.run(spark, 6, seed=3, params=params)
    expected = local.run("streams", 6, 3, **params)
    assert set(result.tables) == set(expected)
    for name in expected:
        pd.testing.assert_frame_equal(result.tables[name].reset_index(drop=True),
                                      expected[name].reset_index(drop=True), check_dtype=False, obj=name)
