"""The Monte Carlo and placement-audit jobs in local Spark, checked against direct package calls."""
from collections import Counter

import pandas as pd
import pytest

from rebalance.protocol.config import ProtocolConfig
from rebalance.protocol.scenarios import rolling_restart
from rebalance.protocol.simulation import GroupSimulation
from rebalance.replicas.adminutils import assign_replicas_to_brokers
from rebalance.replicas.java_random import JavaRandom
from rebalance.replicas.striped import PlacementSpec, StripedReplicaPlacer
from rebalance.spark.generators import placement_cluster, restart_scenario
from rebalance.spark.jobs import montecarlo, placement

pytestmark = pytest.mark.spark

SEED = 5


@pytest.fixture(scope="module")
def mc(spark):
    return montecarlo.run(spark, 9, seed=SEED)


def test_montecarlo_rows_match_direct_simulations(mc):
    rows = mc["rows"]
    assert len(rows) == 9 * 3 and set(rows["mode"]) == {"eager", "cooperative", "static"}
    assert rows["settled"].all() and (rows["double_ownership"] == 0).all()
    for index in (0, 3, 7):
        sc = restart_scenario(SEED, index)
        for mode in montecarlo.DEFAULT_MODES:
            assignor, protocol, static = montecarlo.MODES[mode]
            cfg = ProtocolConfig(revoke_ms=sc.revoke_ms, network_ms=sc.network_ms)
            start = montecarlo.START_MS
            if sc.event == "rolling-restart":
                sim = rolling_restart(sc.members, sc.topics, protocol=protocol, static=static, assignor=assignor,
                                      down_ms=sc.down_ms, gap_ms=sc.gap_ms, start_ms=start,
                                      settle_ms=montecarlo.SETTLE_MS, config=cfg)
            else:
                sim = GroupSimulation(sc.topics, cfg, record_heartbeats=False)
                for i in range(sc.members):
                    sim.add_member(f"c{i + 1}", 0, assignors=(assignor,), protocol=protocol,
                                   instance_id=f"instance-c{i + 1}" if static else None)
                sim.crash(sc.order[0], start)
                end = start + cfg.session_timeout_ms + montecarlo.SETTLE_MS
                if sc.event == "crash-restart":
                    sim.restart(sc.order[0], start + sc.down_ms)
                    end += sc.down_ms
                sim.run(end)
            m = sim.metrics(measure_from=start)
            row = rows[(rows.simulation == index) & (rows["mode"] == mode)].iloc[0]
            assert row.time_to_stable_ms == m.time_to_stable_ms
            assert row.unowned_partition_seconds == m.unowned_partition_seconds
            assert (row.rebalances, row.partitions_moved) == (m.rebalances, m.partitions_moved)
            assert (row.double_ownership, row.zombie_overlap) == (m.double_ownership, m.zombie_overlap)


def test_montecarlo_summary_is_consistent_with_rows(mc):
    rows, summary = mc["rows"], mc["summary"]
    assert summary["simulations"].sum() == len(rows)
    for r in summary.itertuples():
        g = rows[(rows.event == r.event) & (rows["mode"] == r.mode)]
        assert r.mean_rebalances == pytest.approx(g.rebalances.mean())
        assert r.time_to_stable_max_s == g.time_to_stable_ms.max() / 1000
        assert r.time_to_stable_p50_s * 1000 in set(g.time_to_stable_ms)


def test_static_members_back_within_the_session_timeout_do_not_rebalance(mc):
    rows = mc["rows"]
    quick = rows[(rows["mode"] == "static") & (rows.event == "crash-restart") & (rows.down_ms < 40_000)]
    assert (quick.rebalances == 0).all()


def test_placement_rows_match_direct_placer_calls(spark, tmp_path):
    params = {"topics_per_cluster": 30}
    result = placement.run(spark, 95, seed=SEED, out=str(tmp_path), params=params)  # 4 clusters: 30+30+30+5
    rows = result["rows"]
    assert len(rows) == 4 * 2 and rows.topics.tolist() == [30, 30, 30, 30, 30, 30, 5, 5]
    for index, topics in ((0, 30), (3, 5)):
        c = placement_cluster(SEED, index, topics)
        rnd = JavaRandom(c.seed)
        admin = [assign_replicas_to_brokers(c.brokers, p, rf, -1, -1, random=rnd) for p, rf in c.topics]
        placer = StripedReplicaPlacer(JavaRandom(c.seed))
        striped = [placer.place(PlacementSpec(0, p, rf), [{**b, "fenced": False} for b in c.brokers]).replica_lists()
                   for p, rf in c.topics]
        for name, placed in (("AdminUtils", [list(a.values()) for a in admin]), ("StripedReplicaPlacer", striped)):
            replicas = Counter(b for topic in placed for reps in topic for b in reps)
            leaders = Counter(reps[0] for topic in placed for reps in topic)
            row = rows[(rows.cluster == index) & (rows.placer == name)].iloc[0]
            assert list(row.broker_replicas) == [replicas.get(b["id"], 0) for b in c.brokers]
            assert list(row.broker_leaders) == [leaders.get(b["id"], 0) for b in c.brokers]
            assert row.replica_skew == max(row.broker_replicas) - min(row.broker_replicas)
    written = pd.read_parquet(tmp_path / "placement" / "summary")
    pd.testing.assert_frame_equal(written, result["summary"], check_dtype=False)
    assert result["summary"].clusters.sum() == 8
