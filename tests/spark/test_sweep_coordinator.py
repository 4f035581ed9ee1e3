"""The sweep and coordinator jobs in local Spark, checked against direct calls of the package."""
from collections import Counter

import pandas as pd
import pytest

from rebalance.consumer import assign
from rebalance.protocol.coordinator import partition_for, simple_leaders
from rebalance.spark import single_process as local
from rebalance.spark.generators import group_ids, sweep_scenario
from rebalance.spark.jobs import coordinator, sweep

pytestmark = pytest.mark.spark

SEED = 11


def _available(assignors):
    return sweep.check_assignors(assignors)


ASSIGNORS = _available(sweep.ASSIGNORS)


@pytest.fixture(scope="module")
def sweep_rows(spark):
    df = sweep.rows_df(spark, 40, SEED, assignors=ASSIGNORS, slices=3)
    return df.toPandas().sort_values(["scenario", "assignor"]).reset_index(drop=True)


def test_sweep_covers_every_scenario_and_assignor(sweep_rows):
    assert len(sweep_rows) == 40 * len(ASSIGNORS)
    assert set(sweep_rows.assignor) == set(ASSIGNORS)
    assert sweep_rows.complete.all()
    assert (sweep_rows.extra_moves >= 0).all()


@pytest.mark.parametrize("index", range(0, 40, 2))
def test_sweep_rows_match_direct_assign_calls(sweep_rows, index):
    """Recompute 20 scenarios with plain calls of rebalance.consumer.assign."""
    sc = sweep_scenario(SEED, index)
    racks = sc.partition_racks or None
    for assignor in ASSIGNORS:
        row = sweep_rows[(sweep_rows.scenario == index) & (sweep_rows.assignor == assignor)].iloc[0]
        first = assign(assignor, sc.partitions, sc.members, partition_racks=racks)
        loads = [len(v) for v in first.values()]
        assert row.members == len(sc.members) and row.partitions == sum(sc.partitions.values())
        assert (row.max_load, row.min_load, row.idle_members) == (max(loads), min(loads), loads.count(0))
        if racks:
            local_count = sum(1 for m, tps in first.items() for t, p in tps if sc.members[m]["rack"] in racks[t][p])
            assert row.rack_local == local_count
        # the leaver goes; the others rejoin once owning what they had
        survivors = {m: {**s, "owned": first[m], "generation": 1} for m, s in sc.members.items() if m != sc.leaver}
        second = assign(assignor, sc.partitions, survivors, partition_racks=racks)
        owner_before = {tp: m for m, tps in first.items() for tp in tps}
        owner_after = {tp: m for m, tps in second.items() for tp in tps}
        if assignor != "cooperative-sticky" or row.rounds == 1:
            assert row.rounds == 1
            moved = sum(1 for tp, m in owner_before.items() if tp in owner_after and owner_after[tp] != m)
            assert row.moved == moved
            assert row.orphaned == sum(1 for tp in first[sc.leaver] if tp in owner_after)


def test_spark_summaries_equal_the_plain_python_loop(spark, sweep_rows):
    spark_tables = sweep.summaries_from_spark(spark.createDataFrame(sweep_rows))
    local_tables = local.sweep(40, SEED, assignors=ASSIGNORS)
    for name in ("by_assignor", "by_subscriptions", "moves_histogram"):
        pd.testing.assert_frame_equal(spark_tables[name], local_tables[name], check_dtype=False)
    by = local_tables["by_assignor"].set_index("assignor")
    assert by.loc["range", "p_idle"] == (sweep_rows[sweep_rows.assignor == "range"].idle_members > 0).mean()
    if "sticky" in ASSIGNORS:
        from rebalance.consumer.abstract_sticky import balance_score

        st = sweep_rows[sweep_rows.assignor == "sticky"]
        assert by.loc["sticky", "mean_balance_score"] == pytest.approx(st.balance_score.mean())
        first = sweep_rows.iloc[0]
        sc = sweep_scenario(SEED, int(first.scenario))
        loads = [len(v) for v in assign(first.assignor, sc.partitions, sc.members,
                                         partition_racks=sc.partition_racks or None).values()]
        assert first.balance_score == balance_score(loads)


def test_sweep_run_writes_parquet(spark, tmp_path):
    result = sweep.run(spark, 12, seed=SEED, out=str(tmp_path), assignors=ASSIGNORS[:1])
    rows = pd.read_parquet(tmp_path / "sweep" / "rows")
    assert len(rows) == 12 and set(rows.assignor) == {ASSIGNORS[0]}
    assert list(result["incomplete"].columns[:2]) == ["scenario", "assignor"]
    written = pd.read_parquet(tmp_path / "sweep" / "by_assignor")
    assert written.scenarios.tolist() == result["by_assignor"].scenarios.tolist() == [12]


def test_coordinator_counts_match_partition_for(spark):
    n = 30_000
    params = {"partition_counts": (7, 50), "broker_counts": (3, 4), "chunk": 7_000}  # 5 chunks
    result = coordinator.run(spark, n, seed=SEED, params=params)
    loads = result["partition_load"]
    ids, commits = group_ids(SEED, 0, n)
    for p in (7, 50):
        expected = Counter(partition_for(g, p) for g in ids)
        got = loads[loads.num_partitions == p].set_index("partition").groups.to_dict()
        assert got == {q: expected.get(q, 0) for q in range(p)}
        assert loads[loads.num_partitions == p].commits_per_s.sum() == pytest.approx(commits.sum())
    brokers = result["broker_load"]
    leaders = simple_leaders(50, [0, 1, 2, 3])
    expected_b = Counter(leaders[partition_for(g, 50)] for g in ids)
    got_b = brokers[(brokers.num_partitions == 50) & (brokers.brokers == 4)].set_index("broker").groups.to_dict()
    assert got_b == dict(expected_b)
    summary = result["summary"].set_index(["num_partitions", "brokers"])
    assert summary.loc[(50, 4), "max_broker_groups_vs_even"] == pytest.approx(max(expected_b.values()) / (n / 4))
    # leaders from the replicas area's placement of the offsets topic (AdminUtils, KRaft striped placer)
    from rebalance.replicas.coordinators import coordinator_load, place_offsets_topic

    for placer in ("AdminUtils", "StripedReplicaPlacer"):
        placed = place_offsets_topic(range(4), placer, seed=7, num_partitions=50, replication_factor=3)
        expected_p = coordinator_load(list(ids), placed, brokers=range(4))
        table = coordinator.broker_load(loads, (4,), placer, 7)
        assert table[table.num_partitions == 50].set_index("broker").groups.to_dict() == expected_p
    # the plain loop gives the same table
    pd.testing.assert_frame_equal(loads, local.coordinator_partition_load(n, SEED, params), check_dtype=False)


def test_cli_runs_a_job_and_reports_bad_input(spark, tmp_path, capsys):
    from rebalance.spark.__main__ import main

    code = main(["coordinator", "--scale", "5000", "--out", str(tmp_path), "--no-progress",
                 "--params", '{"partition_counts": [50], "broker_counts": [3]}'])
    assert code == 0
    out = capsys.readouterr().out
    assert "== coordinator/summary" in out
    assert pd.read_parquet(tmp_path / "coordinator" / "summary").groups.tolist() == [5000]
    assert main(["coordinator", "--scale", "0", "--out", str(tmp_path), "--no-progress"]) == 2
    assert "scale" in capsys.readouterr().err
    assert main(["sweep", "--scale", "5", "--out", str(tmp_path), "--no-progress",
                 "--params", '{"max_member": 3}']) == 2
    assert "params.max_member" in capsys.readouterr().err


def test_exercise_is_deterministic(spark):
    from rebalance.spark import exercise

    a = exercise("coordinator", scale=20_000, partition_counts=(50,), broker_counts=(3, 6))
    b = exercise("coordinator", scale=20_000, partition_counts=(50,), broker_counts=(3, 6))
    pd.testing.assert_frame_equal(a, b)
    assert a.groups.tolist() == [20_000, 20_000]


def test_an_unknown_assignor_is_a_named_error():
    from rebalance.errors import InputError
    from rebalance.spark import single_process as local

    with pytest.raises(InputError, match="assignors"):
        local.sweep_rows(2, assignors=("range", "sticky-ish"))


def test_exercise_name_stays_the_function_after_the_submodule_is_imported():
    """Re-running a chapter's ``from rebalance.spark import exercise`` must still give the function."""
    import importlib

    importlib.import_module("rebalance.spark.exercises")
    from rebalance.spark import exercise

    assert callable(exercise)
