"""The Spark-scale exercises of chapters 01, 07 and 08 at the chapters' own scales and seeds.

The chapters interpret the tables ``rebalance.spark.exercise`` returns. These tests run the same calls
and check the statements the prose makes about them, so that a change in the jobs or the generators that
would make a chapter's text wrong fails here rather than silently in the book.
"""
import pytest

from rebalance.spark import exercise

pytestmark = pytest.mark.spark


def _row(frame, **where):
    for key, value in where.items():
        frame = frame[frame[key] == value]
    assert len(frame) == 1, where
    return frame.iloc[0]


@pytest.fixture(scope="module")
def hot_spots():
    # chapter 01: Kafka's 50 offsets partitions against 60, on 3, 6 and 12 brokers
    return exercise("coordinator", scale=200_000, seed=1, partition_counts=(50, 60), broker_counts=(3, 6, 12),
                    local=True)


def test_ch01_broker_skew_is_the_partition_arithmetic(hot_spots):
    assert list(hot_spots["groups"]) == [200_000] * 6
    for brokers, busiest in ((3, 17), (6, 9), (12, 5)):
        # the busiest broker leads ceil(50 / brokers) partitions; hashing noise adds a little on top
        floor = busiest / (50 / brokers)
        ratio = _row(hot_spots, num_partitions=50, brokers=brokers)["max_broker_groups_vs_even"]
        assert floor - 0.01 <= ratio <= floor + 0.02
        # 60 partitions divide evenly over 3, 6 and 12 brokers: "no broker more than 2% above the average"
        assert _row(hot_spots, num_partitions=60, brokers=brokers)["max_broker_groups_vs_even"] <= 1.02
    # "the busiest partition holds only about 5% more groups than the average"
    assert (hot_spots["max_partition_groups_vs_even"] <= 1.06).all()
    # heavy-tailed commit rates: partitions are more uneven in commits than in groups
    assert (hot_spots["max_partition_commits_vs_even"] > hot_spots["max_partition_groups_vs_even"]).all()


@pytest.fixture(scope="module")
def protocols():
    # chapter 07: eager (range) against cooperative (cooperative-sticky)
    return exercise("montecarlo", scale=60, seed=0, modes=("eager", "cooperative"), local=True)


def test_ch07_cooperative_stops_fewer_partitions_in_more_rebalances(protocols):
    assert (protocols["double_ownership"] == 0).all() and (protocols["settled"] == 1.0).all()
    eager = _row(protocols, event="rolling-restart", mode="eager")
    coop = _row(protocols, event="rolling-restart", mode="cooperative")
    # "about an eighth as many partitions stopped, about a third as many moved, more rebalances"
    assert 0.09 <= coop.mean_partitions_stopped / eager.mean_partitions_stopped <= 0.16
    assert 0.25 <= coop.mean_partitions_moved / eager.mean_partitions_moved <= 0.42
    assert coop.mean_rebalances > eager.mean_rebalances
    assert coop.after_last_fault_p50_s > eager.after_last_fault_p50_s
    # "higher than eager's, on average and more so at the median" (eager members revoke together)
    assert 1.1 < coop.unowned_mean_partition_s / eager.unowned_mean_partition_s < 1.35
    assert (coop.unowned_p50_partition_s / eager.unowned_p50_partition_s
            > coop.unowned_mean_partition_s / eager.unowned_mean_partition_s)
    assert coop.unowned_p50_partition_s > eager.unowned_p50_partition_s
    # crash and restart: "about a third of eager's partition-seconds"
    e, c = (_row(protocols, event="crash-restart", mode=m) for m in ("eager", "cooperative"))
    assert 0.25 <= c.unowned_mean_partition_s / e.unowned_mean_partition_s <= 0.42
    # crash for good: "about the same" (waiting for the session to expire dominates)
    e, c = (_row(protocols, event="crash", mode=m) for m in ("eager", "cooperative"))
    assert abs(c.unowned_mean_partition_s / e.unowned_mean_partition_s - 1) < 0.1


@pytest.fixture(scope="module")
def static_runs():
    # chapter 08: dynamic against static members, restarts inside (5-30 s) and beyond (50-90 s) the session
    return {away: exercise("montecarlo", scale=60, seed=0, modes=("eager", "static"),
                           events=("rolling-restart", "crash-restart"), min_down_ms=low, max_down_ms=high,
                           local=True)
            for away, (low, high) in {"short": (5_000, 30_000), "long": (50_000, 90_000)}.items()}


def test_ch08_static_membership_pays_only_inside_the_session(static_runs):
    short, long_ = static_runs["short"], static_runs["long"]
    for event in ("rolling-restart", "crash-restart"):
        s = _row(short, event=event, mode="static")
        assert s.mean_rebalances == 0 and s.mean_partitions_moved == 0 and s.after_last_fault_p50_s < 0.1
    e, s = (_row(short, event="rolling-restart", mode=m) for m in ("eager", "static"))
    assert 14 <= e.mean_rebalances <= 16                                        # "about 15 rebalances"
    assert 3 <= s.unowned_mean_partition_s / e.unowned_mean_partition_s <= 4  # "more than three times"
    e, s = (_row(short, event="crash-restart", mode=m) for m in ("eager", "static"))
    assert round(s.unowned_mean_partition_s) == 33 and round(e.unowned_mean_partition_s) == 462
    # beyond the session: a crash and restart costs the same two rebalances as a dynamic member
    e, s = (_row(long_, event="crash-restart", mode=m) for m in ("eager", "static"))
    assert e.mean_rebalances == s.mean_rebalances == 2
    assert e.mean_partitions_moved == s.mean_partitions_moved
    assert abs(e.unowned_mean_partition_s - s.unowned_mean_partition_s) < 0.1
    # a static rolling restart: fewer rebalances, but about 25 times the unprocessed partition-seconds
    e, s = (_row(long_, event="rolling-restart", mode=m) for m in ("eager", "static"))
    assert s.mean_rebalances < e.mean_rebalances
    assert 20 * e.unowned_mean_partition_s < s.unowned_mean_partition_s < 30 * e.unowned_mean_partition_s


def test_ch08_solution_the_boundary_is_one_heartbeat_before_the_session_timeout():
    rebalances = {}
    for down_s in (40, 42, 43, 44, 46):
        t = exercise("montecarlo", scale=60, seed=0, modes=("static",), events=("crash-restart",),
                     min_down_ms=down_s * 1000, max_down_ms=down_s * 1000, local=True)
        rebalances[down_s] = t.iloc[0]["mean_rebalances"]
    # "up to 42 s no run rebalances; at 43 s most runs pay two rebalances; from 44 s all of them do"
    assert rebalances[40] == rebalances[42] == 0
    assert 1 < rebalances[43] < 2
    assert rebalances[44] == rebalances[46] == 2
