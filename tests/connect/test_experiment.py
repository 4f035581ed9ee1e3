"""The 90 x 10 experiment: exactly the numbers of the vectors README (measured with Kafka's classes)."""
import pytest

from rebalance.connect.experiment import (bounce_rounds, ninety_by_ten, start_stop, steady_cluster, supplementary,
                                          worker_bounces)
from rebalance.errors import InputError


@pytest.fixture(scope="module")
def rows():
    return {(r["assignor"], r["rebalances_per_addition"], r["phase"]): r for r in ninety_by_ten()}


def test_eager_one_rebalance_per_addition(rows):
    start = rows[("eager", 1, "start")]
    assert (start["rebalances"], start["task_stops"], start["connector_stops"]) == (90, 40_050, 4_005)
    assert start["max_task_stops_in_round"] == 890
    assert start["task_starts"] == 40_950
    stop = rows[("eager", 1, "stop")]
    assert (stop["rebalances"], stop["task_stops"], stop["connector_stops"]) == (90, 40_950, 4_095)


def test_eager_two_rebalances_per_addition(rows):
    start = rows[("eager", 2, "start")]
    assert (start["rebalances"], start["task_stops"], start["connector_stops"]) == (180, 80_100, 8_100)
    assert start["task_starts"] == 81_000


def test_incremental_start_stops_nothing(rows):
    for rpa in (1, 2):
        start = rows[("incremental", rpa, "start")]
        assert (start["rebalances"], start["follow_ups"], start["task_stops"], start["connector_stops"]) == (90 * rpa, 0, 0, 0)
        assert start["task_starts"] == 900


def test_incremental_stop_phase(rows):
    stop = rows[("incremental", 1, "stop")]
    assert (stop["rebalances"], stop["follow_ups"], stop["task_stops"], stop["connector_stops"]) == (180, 90, 900, 90)


def test_no_scheduled_delay_in_start_stop():
    with_delay = start_stop("incremental", settle_delay=True)
    without = start_stop("incremental", settle_delay=False)
    for phase in ("start", "stop"):
        assert with_delay[phase].summary() == without[phase].summary()
        assert set(with_delay[phase].delays) == {0}


def test_supplementary_events():
    rows = {(r["event"].split()[2], r["assignor"]): r for r in supplementary()}
    assert rows[("leaves", "eager")]["task_stops"] == 810
    leaves = rows[("leaves", "incremental")]
    assert leaves["task_stops"] == 0 and leaves["delays"] == [300_000, 0]
    assert rows[("bounces", "eager")]["task_stops"] == 1_710
    assert rows[("worker", "eager")]["task_stops"] == 900           # an 11th worker joins
    joins = rows[("worker", "incremental")]
    assert (joins["task_stops"], joins["connector_stops"], joins["follow_ups"]) == (81, 8, 1)


def test_bounce_returns_work_to_the_worker():
    eager = worker_bounces("eager")
    assert eager.task_stops == 1_710  # 810 when it leaves + 900 when it comes back
    inc = worker_bounces("incremental")
    assert inc.task_stops == 0
    assert inc.delays == [300_000, 240_000, 0]
    assert inc.task_starts == 90


def test_bounce_timeline_and_returning_worker_gets_its_work_back():
    rounds, cluster = bounce_rounds("incremental")
    before = rounds[0].members_in  # the nine survivors
    leave, rejoin, expiry = rounds
    assert (leave.delay, rejoin.delay, expiry.delay) == (300_000, 240_000, 0)
    assert rejoin.time_ms - leave.time_ms == 60_000
    assert expiry.time_ms - leave.time_ms == 300_000 and expiry.follow_up == "scheduled_delay"
    # nothing moves until the delay expires; then worker-01 gets 9 connectors and 90 tasks back
    assert rejoin.totals() == {"assigned_connectors": 0, "assigned_tasks": 0, "revoked_connectors": 0, "revoked_tasks": 0}
    assert expiry.totals()["assigned_tasks"] == 90
    assert len(expiry.workers["worker-01"].assigned_tasks) == 90
    assert len(cluster.running["worker-01"][1]) == 90


def test_leaving_worker_work_goes_to_the_others_after_the_delay():
    rounds, cluster = bounce_rounds("incremental", leave_for_good=True)
    assert [r.delay for r in rounds] == [300_000, 0]
    assert rounds[1].time_ms - rounds[0].time_ms == 300_000
    assert sorted(len(t) for _, t in cluster.running.values()) == [100] * 9


def test_worker_away_longer_than_the_delay_loses_its_work_at_expiry_then_revocations_bring_some_back():
    # DistributedHerder (commit 1eb7644) lines 1818-1825: the survivors rejoin when scheduledRebalance expires, with
    # or without worker-01; handleLostAssignments finds no candidate and treats the lost work as new (505)
    rounds, cluster = bounce_rounds("incremental", away_ms=400_000)
    leave, expiry, rejoin, follow = rounds
    assert [r.follow_up for r in rounds] == [None, "scheduled_delay", None, "revocation"]
    assert [(r.time_ms - leave.time_ms) // 1000 for r in rounds] == [0, 300, 400, 400]
    assert [r.delay for r in rounds] == [300_000, 0, 0, 0]
    # at expiry (300 s) the nine survivors take the 9 connectors and 90 tasks, one and ten each
    assert "worker-01" not in expiry.workers
    assert expiry.totals() == {"assigned_connectors": 9, "assigned_tasks": 90, "revoked_connectors": 0, "revoked_tasks": 0}
    assert sorted((len(w.assigned_connectors), len(w.assigned_tasks)) for w in expiry.workers.values()) == [(1, 10)] * 9
    assert sorted(len(w.all_tasks) for w in expiry.workers.values()) == [100] * 9
    # worker-01 is back at 400 s, empty: load-balancing revocations (1 connector, 10 tasks from each survivor)
    assert rejoin.totals() == {"assigned_connectors": 0, "assigned_tasks": 0, "revoked_connectors": 9, "revoked_tasks": 90}
    assert len(rejoin.workers["worker-01"].all_tasks) == 0
    # ... and the rejoin those revocations trigger hands them to worker-01
    assert follow.totals() == {"assigned_connectors": 9, "assigned_tasks": 90, "revoked_connectors": 0, "revoked_tasks": 0}
    assert (len(follow.workers["worker-01"].assigned_connectors), len(follow.workers["worker-01"].assigned_tasks)) == (9, 90)
    assert sorted(len(t) for _, t in cluster.running.values()) == [90] * 10


def test_scheduled_rebalance_fires_at_expiry_for_any_max_delay():
    # the expiry round comes exactly scheduled.rebalance.max.delay.ms after the departure
    for max_delay, away, returns_in_time in ((100_000, 60_000, True), (100_000, 150_000, False),
                                            (300_000, 299_999, True), (300_000, 300_001, False)):
        rounds, _ = bounce_rounds("incremental", away_ms=away, max_delay_ms=max_delay)
        expiry = next(r for r in rounds if r.follow_up == "scheduled_delay")
        assert expiry.time_ms - rounds[0].time_ms == max_delay
        assert ("worker-01" in expiry.workers) is returns_in_time
        stops = sum(r.totals()["revoked_tasks"] for r in rounds)
        assert stops == (0 if returns_in_time else 90)


def test_advance_runs_the_rounds_the_herders_run_meanwhile():
    cluster = steady_cluster("incremental")
    survivors = list(cluster.running)[1:]
    leave = cluster.rebalance(cluster.carried_members(survivors))
    assert cluster.scheduled_rebalance == leave.time_ms + 300_000
    assert cluster.advance(299_999, after=leave) == []            # nothing due yet: a plain sleep
    assert cluster.time.milliseconds() - leave.time_ms == 299_999
    (expiry,) = cluster.advance(1)
    assert expiry.follow_up == "scheduled_delay" and expiry.time_ms - leave.time_ms == 300_000
    assert cluster.scheduled_rebalance is None and cluster.advance(10**9) == []
    with pytest.raises(InputError, match="ms"):
        cluster.advance(-1)


def test_chapter_exercise_claims():
    # connectors with 5 tasks on 10 workers never unbalance the cluster either
    five = start_stop("incremental", tasks_per_connector=5)
    assert five["start"].task_stops == 0 and five["stop"].task_stops == 450
