"""The "Spark-scale exercise" sections of chapters 09 and 12 interpret the tables that
``rebalance.spark.exercise`` returns.  These tests rerun the chapters' calls (same scale, seed and
parameters) and check the properties their prose relies on, so that a change in a job that would make a
chapter's reading wrong fails here rather than silently in the book.  (``nbval`` checks the printed
tables; this checks what the sentences say about them.)  The first two tests check the Monte Carlo job's bounces, a
Connect exercise of the first editions that no chapter runs with these parameters now: they stay as properties of
the job that chapters 7 and 8 read (eager stops far more than cooperative, static members never rebalance).
"""
import pytest

from rebalance.spark import exercise

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _row(frame, **keys):
    sel = frame
    for column, value in keys.items():
        sel = sel[sel[column] == value]
    assert len(sel) == 1, f"expected one row for {keys}, got {len(sel)}"
    return sel.iloc[0]


def test_montecarlo_bounces():
    """The Monte Carlo job: eager stops far more than cooperative; static never rebalances in a bounce within the
    session timeout and moves nothing, but leaves partitions unowned longest in a rolling restart; nothing
    is ever owned twice."""
    table = exercise("montecarlo", scale=60, seed=0, events=("rolling-restart", "crash-restart"),
                     max_down_ms=40_000, local=True)
    assert set(table["event"]) == {"rolling-restart", "crash-restart"}
    assert (table["double_ownership"] == 0).all()
    for event in ("rolling-restart", "crash-restart"):
        eager, coop, static = (_row(table, event=event, mode=m) for m in ("eager", "cooperative", "static"))
        assert eager["mean_partitions_stopped"] > 5 * coop["mean_partitions_stopped"]
        assert static["mean_rebalances"] == 0 and static["mean_partitions_moved"] == 0
    rolling = {m: _row(table, event="rolling-restart", mode=m)["unowned_mean_partition_s"]
               for m in ("eager", "cooperative", "static")}
    assert rolling["static"] > 3 * max(rolling["eager"], rolling["cooperative"])
    crash = {m: _row(table, event="crash-restart", mode=m)["unowned_mean_partition_s"]
             for m in ("eager", "cooperative", "static")}
    assert crash["static"] < crash["cooperative"] < crash["eager"]


def test_montecarlo_eager_stops_the_whole_group():
    """In a crash-restart, eager stops exactly the group's partitions whatever the
    group size; cooperative and static stop a share that shrinks as the group grows."""
    stopped = {}
    for size in (4, 16):
        rows = exercise("montecarlo", scale=40, seed=0, events=("crash-restart",), max_down_ms=40_000,
                        min_members=size, max_members=size, max_partitions=48, table="rows", local=True)
        eager = rows[rows["mode"] == "eager"]
        assert (eager["partitions_stopped"] == eager["partitions"]).all()
        stopped[size] = rows[rows["mode"] == "cooperative"]["partitions_stopped"].mean()
    assert stopped[16] < stopped[4] / 2


def test_chapter_12_leader_pile_up():
    """Chapter 12: over 50-topic creation sequences the striped placer piles leaders up on 9 brokers in 3
    racks but not on 6 or 12; it spreads replicas within a topic more evenly than AdminUtils."""
    rows = exercise("placement", scale=3_000, seed=0, table="rows", topics_per_cluster=50,
                    broker_choices=(6, 9, 12), rack_choices=(3,), replication_choices=(3,), max_partitions=50,
                    p_uneven=0.0, local=True)
    means = rows.groupby(["brokers", "placer"])[
        ["mean_topic_leader_skew", "mean_topic_replica_skew", "leader_max_vs_even"]].mean()
    assert set(means.index.get_level_values("brokers")) == {6, 9, 12}
    lead = means["mean_topic_leader_skew"]
    assert lead[(9, "StripedReplicaPlacer")] > 3 * lead[(9, "AdminUtils")]
    assert means["leader_max_vs_even"][(9, "StripedReplicaPlacer")] > means["leader_max_vs_even"][(9, "AdminUtils")] + 0.1
    for n in (6, 12):
        assert abs(lead[(n, "StripedReplicaPlacer")] - lead[(n, "AdminUtils")]) < 0.1
    for n in (6, 9, 12):
        replica = means["mean_topic_replica_skew"]
        assert replica[(n, "StripedReplicaPlacer")] < replica[(n, "AdminUtils")]


def test_chapter_09_classic_baseline():
    """Chapter 09: after a rolling restart cooperative settles later than eager (second rebalance) and moves
    under half as much, but leaves more partition-seconds unowned at the median (eager members revoke
    together, chapter 7); a crash costs every set-up the session timeout."""
    table = exercise("montecarlo", scale=60, seed=0, events=("rolling-restart", "crash"), local=True)
    eager, coop = (_row(table, event="rolling-restart", mode=m) for m in ("eager", "cooperative"))
    assert coop["after_last_fault_p50_s"] > eager["after_last_fault_p50_s"]
    assert coop["mean_partitions_moved"] < eager["mean_partitions_moved"] / 2
    assert coop["unowned_p50_partition_s"] > eager["unowned_p50_partition_s"]
    assert _row(table, event="rolling-restart", mode="static")["unowned_p50_partition_s"] > 3 * max(
        eager["unowned_p50_partition_s"], coop["unowned_p50_partition_s"])
    for mode in ("eager", "cooperative", "static"):
        assert 40 <= _row(table, event="crash", mode=mode)["time_to_stable_p50_s"] <= 45


def test_chapter_09_stickiness():
    """Chapter 09: when one member leaves, range takes partitions from members that stayed far more often
    than cooperative-sticky."""
    table = exercise("sweep", scale=200, seed=0, assignors=("range", "cooperative-sticky"), local=True)
    rng, coop = (_row(table, assignor=a) for a in ("range", "cooperative-sticky"))
    assert rng["mean_extra_moves"] > 5 * coop["mean_extra_moves"]
    assert coop["p_no_extra_moves"] > rng["p_no_extra_moves"] + 0.5
    assert rng["mean_orphaned"] > 0 and coop["mean_orphaned"] > 0
