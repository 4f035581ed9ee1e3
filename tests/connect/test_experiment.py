"""The 90 x 10 experiment: exactly the numbers of the vectors README (measured with Kafka's classes)."""
import pytest

from rebalance.connect.experiment import bounce_rounds, ninety_by_ten, start_stop, supplementary, worker_bounces


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


def test_chapter_exercise_claims():
    # a worker away longer than the delay: no candidate, its work is "new" and it is the least loaded
    rounds, cluster = bounce_rounds("incremental", away_ms=400_000)
    assert [r.delay for r in rounds] == [300_000, 0]
    assert len(rounds[1].workers["worker-01"].assigned_tasks) == 90
    # connectors with 5 tasks on 10 workers never unbalance the cluster either
    five = start_stop("incremental", tasks_per_connector=5)
    assert five["start"].task_stops == 0 and five["stop"].task_stops == 450
