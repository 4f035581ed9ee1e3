"""Seeded generators: pure functions of (seed, index), independent of batching, well-formed scenarios."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rebalance.errors import InputError
from rebalance.spark import single_process
from rebalance.spark.generators import (PlacementParams, SweepParams, check_params, group_ids, placement_cluster,
                                        restart_scenario, sweep_scenario)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2 ** 40), st.integers(0, 10 ** 9))
def test_sweep_scenario_is_deterministic_and_well_formed(seed, index):
    a, b = sweep_scenario(seed, index), sweep_scenario(seed, index)
    assert a == b
    p = SweepParams()
    assert p.min_members <= len(a.members) <= p.max_members
    assert 1 <= len(a.partitions) <= p.max_topics
    assert all(1 <= c <= p.max_partitions for c in a.partitions.values())
    assert a.leaver in a.members
    for spec in a.members.values():
        assert spec["topics"] and set(spec["topics"]) <= set(a.partitions)
        assert (spec["rack"] is None) == (a.racks == 0)
    if a.identical_subscriptions:
        assert all(spec["topics"] == list(a.partitions) for spec in a.members.values())
    for topic, racks in a.partition_racks.items():
        assert len(racks) == a.partitions[topic]
        assert all(1 <= len(r) <= min(p.replication_factor, a.racks) for r in racks)


def test_different_indexes_and_seeds_differ():
    assert sweep_scenario(0, 1) != sweep_scenario(0, 2)
    assert sweep_scenario(0, 1) != sweep_scenario(1, 1)


def test_group_ids_do_not_depend_on_batch_boundaries():
    ids, commits = group_ids(7, 0, 1000)
    ids2, commits2 = group_ids(7, 400, 1000)
    assert list(ids[400:]) == list(ids2)
    assert commits[400:].tolist() == commits2.tolist()
    assert len(set(ids)) == len(ids)  # about 10^10 possible names: no collision in 1000
    assert all(isinstance(g, str) and g.isascii() for g in ids)
    assert (commits >= 1.0).all() and (commits <= 1e4).all()
    prefixes = {g.split("-")[0] for g in ids}
    assert "connect" in prefixes


def test_placement_cluster_and_restart_scenario():
    c = placement_cluster(5, 3, topics=40)
    assert c == placement_cluster(5, 3, topics=40)
    assert len(c.topics) == 40
    assert [b["id"] for b in c.brokers] == list(range(len(c.brokers)))
    for partitions, rf in c.topics:
        assert 1 <= partitions <= PlacementParams().max_partitions
        assert 1 <= rf <= len(c.brokers)
    r = restart_scenario(5, 3)
    assert r == restart_scenario(5, 3)
    if r.event == "rolling-restart":
        assert sorted(r.order) == sorted(f"c{i + 1}" for i in range(r.members))
    else:
        assert len(r.order) == 1 and r.order[0] in {f"c{i + 1}" for i in range(r.members)}
    assert 5_000 <= r.down_ms <= 60_000 and 1 <= len(r.topics) <= 2


def test_bad_parameters_name_the_field():
    with pytest.raises(InputError) as err:
        sweep_scenario(-1, 0)
    assert err.value.field == "seed"
    with pytest.raises(InputError) as err:
        check_params({"max_member": 3}, SweepParams)
    assert err.value.field == "params.max_member"
    with pytest.raises(InputError) as err:
        SweepParams(min_members=1).check()
    assert err.value.field == "params.min_members"
    with pytest.raises(InputError) as err:
        group_ids(0, 10, 5)
    assert err.value.field == "stop"


def test_churn_replay_matches_the_sweep_row():
    """sweep.churn_table / churn_steps replay the same rebalances the sweep counts."""
    from rebalance.consumer import assign
    from rebalance.spark.jobs import sweep

    for index in range(6):
        sc = sweep_scenario(4, index)
        for assignor in ("range", "cooperative-sticky"):
            row = sweep.evaluate_scenario(sc, (assignor,))[0]
            first = assign(assignor, sc.partitions, sc.members, partition_racks=sc.partition_racks or None)
            steps = sweep.churn_steps(sc, assignor, first)
            assert len(steps) == row["rounds"]
            assert sum(s["expected"] - s["assigned"] for s in steps[:-1]) == row["unowned_between"]
            table = sweep.churn_table(4, index, assignor)
            assert table["rebalance"].tolist() == list(range(1, row["rounds"] + 1))
            if assignor == "range":  # eager: one rebalance hands out everything
                assert row["rounds"] == 1 and steps[0]["assigned"] == steps[0]["expected"]
            if len(steps) == 1:  # one rebalance: the partitions survivors gained are exactly the moved ones
                assert sum(len(v) for v in steps[0]["gained"].values()) == row["moved"]


def test_ship_package_zips_the_package_for_a_cluster(tmp_path):
    import zipfile

    from rebalance.spark.jobs.common import ship_package

    shipped = []

    class Context:
        master = "spark://cluster:7077"

        def addPyFile(self, path):
            shipped.append(path)

    class Session:
        sparkContext = Context()

    ship_package(Session())
    ship_package(Session())  # once per context
    assert len(shipped) == 1
    names = zipfile.ZipFile(shipped[0]).namelist()
    assert "rebalance/spark/jobs/sweep.py" in names and "rebalance/consumer/api.py" in names
    assert "rebalance/spark/log4j2.properties" in names
    assert not any("__pycache__" in n for n in names)

    class Local:
        class sparkContext:
            master = "local[2]"

            @staticmethod
            def addPyFile(path):
                raise AssertionError("local mode needs no shipping")

    ship_package(Local())


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2 ** 32), st.integers(0, 10 ** 6))
def test_sweep_row_invariants(seed, index):
    """Every assignor's sweep row: loads cover the subscribed partitions, eager assignors need exactly one
    rebalance after a departure, moves never go below the leaver's own partitions."""
    from rebalance.spark.jobs import sweep

    sc = sweep_scenario(seed, index)
    wanted = {t for spec in sc.members.values() for t in spec["topics"]}
    for row in sweep.evaluate_scenario(sc):
        assert row["max_load"] >= row["min_load"] >= 0 and row["spread"] == row["max_load"] - row["min_load"]
        assert row["balance_score"] >= row["spread"]  # the pair (max, min) alone contributes the spread
        assert 0 <= row["extra_moves"] and row["orphaned"] <= row["moved"]
        assert 0 <= row["rack_local"] <= sum(sc.partitions[t] for t in wanted)
        if row["assignor"] != "cooperative-sticky":
            assert row["rounds"] == 1 and row["unowned_between"] == 0 and row["complete"]
        if sc.identical_subscriptions and row["assignor"] != "range":
            assert row["spread"] <= 1  # RoundRobin and the sticky assignors balance identical groups


@pytest.mark.parametrize("job, params, field", [
    ("sweep", {"rack_choices": ()}, "params.rack_choices"),
    ("sweep", {"rack_choices": (-1,)}, "params.rack_choices"),
    ("connect", {"events": ("nope",)}, "params.events"),
    ("connect", {"max_away_ms": 1}, "params.max_away_ms"),
    ("montecarlo", {"modes": ("nope",)}, "params.modes"),
    ("montecarlo", {"events": ()}, "params.events"),
    ("placement", {"placers": ("nope",)}, "params.placers"),
    ("placement", {"broker_choices": (0,)}, "params.broker_choices"),
    ("placement", {"replication_choices": (True,)}, "params.replication_choices"),
    ("placement", {"topics_per_cluster": 0}, "params.topics_per_cluster"),
    ("coordinator", {"partition_counts": ()}, "params.partition_counts"),
    ("coordinator", {"chunk": 0}, "params.chunk"),
    ("share", {"max_members": 1001}, "params.max_members"),
    ("streams", {"warmups": (1.5,)}, "params.warmups"),
])
def test_every_job_names_its_bad_parameter(job, params, field):
    """The shared checks (require_whole, require_choices, require_subset) name the field in every job."""
    with pytest.raises(InputError) as err:
        single_process.run(job, 2, **params)
    assert err.value.field == field
