"""A real Kafka Streams application (rebalance.kafka.streams) against the book's HighAvailabilityTaskAssignor.

Three Kafka Streams instances of one stateful application (count by key, a changelog-backed store, 6 tasks) on a
one-broker KRaft cluster: i1 and i2 count 6000 records; i3 joins (scale-out) while they are the only caught-up
clients; i1 leaves (scale-in).  Every assignment the group leader computed is replayed through the book's port
with the clients the leader logged (process ids, capacities, previous tasks, lags): the same active and standby
tasks for every process, the same answer to "probing rebalance needed?".  The probing rebalance itself comes
``probing.rebalance.interval.ms`` (at least 60 s) later; chapter 15 waits for it, this test does not.  The same
scale-out and scale-in with ``group.protocol=streams`` (KIP-1071) is set next to the book's broker-side
StickyTaskAssignor.
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest


from .built import needs_class
from .processes import our_processes_mentioning  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.kafka,
    needs_class("streams/StreamsInstances"),
]


def _ours():
    """Command lines of the JVMs this test process started (brokers, Streams instances) still running; the
    chapters' kernels that run beside the tests start their own from the same checkout."""
    return our_processes_mentioning(str(REPO / "java"), "StreamsInstances", "kafka.Kafka")


@pytest.fixture(scope="module")
def scenario():
    from rebalance.kafka.streams import scale_out_and_in

    began = time.monotonic()
    result = scale_out_and_in(wait_for_probe=False, streams_group=True)
    print(f"scale-out and scale-in: {time.monotonic() - began:.1f} s")
    return result


def test_every_assignment_is_the_books(scenario):
    rows = scenario.table()
    assert [phase for phase, rebalances in scenario.phases if rebalances] == ["start", "i3 joins", "i1 leaves"]
    assert rows and all(r["equal"] for r in rows), [r for r in rows if not r["equal"]]
    assert all(r["followup_as_predicted"] for r in rows)
    assert any(r["probing_logged"] and r["probing_predicted"] for r in rows)


def test_scale_out_gives_warmups_not_actives(scenario):
    (phase, [joined]), = [p for p in scenario.phases if p[0] == "i3 joins"]
    by_instance = joined.by_instance()
    assert [len(by_instance[i][0]) for i in ("i1", "i2", "i3")] == [3, 3, 0]     # actives stay where caught up
    standbys = [t for _, s in by_instance.values() for t in s]
    assert len(standbys) == scenario.configs.max_warmup_replicas                 # every standby is a warm-up
    assert by_instance["i3"][1]                                                  # at least one on the newcomer
    assert joined.probing_scheduled
    view = scenario.views["i3 joins"]                                            # what the instances report
    assert {i: (a, s) for i, (a, s, _) in view.items()} == by_instance


def test_all_records_counted_once(scenario):
    assert scenario.records_counted == scenario.records_produced
    assert {r["records_counted"] for r in scenario.streams_group_rows} == {scenario.records_produced}


def test_streams_group_is_the_books_sticky_task_assignor(scenario):
    rows = scenario.streams_group_rows
    joined = [r for r in rows if r["phase"] == "i3 joins"]
    left = [r for r in rows if r["phase"] == "i1 leaves"]
    assert [r["instance"] for r in joined] == ["i1", "i2", "i3"] and [r["instance"] for r in left] == ["i2", "i3"]
    # the instance's own tasks, the coordinator's target and the book's answer for the same member and process ids
    assert all(r["equal"] for r in rows), rows
    assert sorted(len(r["real_active"].split()) for r in joined) == [2, 2, 2]
    before = {r["instance"]: len(r["real_active"].split()) for r in joined}
    assert all(r["kept"] == before[r["instance"]] for r in left)


def test_sticky_prediction_reads_the_member_order_and_process_ids():
    from rebalance.kafka.streams import sticky_prediction

    two = [("m1", "p1", ["0_0", "0_2", "0_4"]), ("m2", "p2", ["0_1", "0_3", "0_5"])]
    book = sticky_prediction(two + [("m3", "p3", [])], 6, members_map="linked")
    assert book == {"m1": ["0_0", "0_2"], "m2": ["0_1", "0_3"], "m3": ["0_4", "0_5"]}
    # a leave: the freed tasks go to the less loaded process, a tie between equal loads broken by the order
    left = sticky_prediction([("m2", "p2", ["0_1", "0_3"]), ("m3", "p3", ["0_4", "0_5"])], 6, members_map="linked")
    assert sorted(len(t) for t in left.values()) == [3, 3]
    assert set(left["m2"]) >= {"0_1", "0_3"} and set(left["m3"]) >= {"0_4", "0_5"}


def test_the_next_group_spec_keeps_the_described_order():
    from rebalance.kafka.streams import next_group_spec

    def member(mid, active):
        return {"member_id": mid, "process_id": "p" + mid, "target_assignment": {"active": active}}

    before = {"members": [member("b", ["0_1"]), member("a", ["0_0"])]}
    after = {"members": [member("c", []), member("a", ["0_0", "0_1"])]}
    assert next_group_spec(before, after) == [("a", "pa", ["0_0"]), ("c", "pc", [])]


def test_parse_rebalances_reads_a_leader_log():
    from rebalance.kafka.streams import parse_rebalances

    pid1, pid2 = "00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002"
    log = (f"[2026-01-01 00:00:00,000] INFO stream-thread [i1-StreamThread-1-consumer] 2 client nodes and 2 "
           f"consumers participating in this rebalance: \n{pid1}: [i1-StreamThread-1-consumer]\n"
           f"{pid2}: [i2-StreamThread-1-consumer]. (org.apache.kafka.streams.processor.internals.StreamsPartitionAssignor)\n"
           "[2026-01-01 00:00:00,001] INFO stream-thread [i1-StreamThread-1-consumer] Assigning stateful tasks: "
           "[0_0, 0_1]\nand stateless tasks: [] (org.apache.kafka.streams.processor.internals.StreamsPartitionAssignor)\n"
           "[2026-01-01 00:00:00,002] DEBUG stream-thread [i1-StreamThread-1-consumer] Assigning tasks and 0 standby "
           f"replicas to client nodes {{{pid1}=[activeTasks: ([]) standbyTasks: ([]) prevActiveTasks: ([0_0, 0_1]) "
           "prevStandbyTasks: ([]) changelogOffsetTotalsByTask: ([0_0=-2, 0_1=-2]) taskLagTotals: ([0_0=-2, 0_1=-2]) "
           f"clientTags: ([]) capacity: 1 assigned: 0], {pid2}=[activeTasks: ([]) standbyTasks: ([]) prevActiveTasks: "
           "([]) prevStandbyTasks: ([]) changelogOffsetTotalsByTask: ([]) taskLagTotals: ([0_0=500, 0_1=500]) "
           "clientTags: ([]) capacity: 1 assigned: 0]} (org.apache.kafka.streams.processor.internals.StreamsPartitionAssignor)\n"
           "[2026-01-01 00:00:00,003] INFO stream-thread [i1-StreamThread-1-consumer] Assignment of tasks to nodes: "
           f"{pid1}=[activeTasks: ([0_0, 0_1]) standbyTasks: ([])]\n{pid2}=[activeTasks: ([]) standbyTasks: ([0_1])] "
           "(org.apache.kafka.streams.processor.internals.StreamsPartitionAssignor)\n"
           "[2026-01-01 00:00:00,004] INFO stream-thread [i1-StreamThread-1-consumer] Requesting followup rebalance be "
           "scheduled by i1-StreamThread-1-consumer for 2026-01-01 00:01:00,004 to probe for caught-up replica tasks. "
           "(org.apache.kafka.streams.processor.internals.StreamsPartitionAssignor)\n"
           "[2026-01-01 00:00:00,005] INFO stream-thread [i1-StreamThread-1-consumer] Finished unstable assignment of "
           "tasks, a followup rebalance will be scheduled. (org.apache.kafka.streams.processor.internals.StreamsPartitionAssignor)\n")
    from rebalance.kafka.streams import compare_rebalance as compare
    from rebalance.streams import AssignmentConfigs

    [r] = parse_rebalances(log)
    assert r.leader == "i1" and r.probing_scheduled and not r.immediate_followup
    assert r.by_instance() == {"i1": (["0_0", "0_1"], []), "i2": ([], ["0_1"])}
    rows = compare(r, AssignmentConfigs(acceptable_recovery_lag=100, max_warmup_replicas=1))
    assert [row["equal"] for row in rows] == [True, True]
    assert rows[1]["book_warmups"] == "0_1"
    # a client far behind with a larger acceptable.recovery.lag is caught up: then i2 takes its task at once
    rows = compare(r, AssignmentConfigs(acceptable_recovery_lag=1000))
    assert [row["equal"] for row in rows] == [False, False]


def test_nothing_left_running(scenario):
    deadline = time.monotonic() + 10
    while _ours() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _ours() == []


def test_probing_lines_print_the_same_on_every_run():
    """Chapter 16 prints the leader's probing-rebalance lines: the entry's time, the leader's client id (which
    instance leads varies) and the time the probe is due are replaced; other lines are left out."""
    from rebalance.kafka import probing_lines

    def log(leader, now, due):
        return (f"[2026-01-01 00:00:{now},607] INFO stream-thread [{leader}-StreamThread-1-consumer] Requesting followup "
                f"rebalance be scheduled by {leader}-StreamThread-1-consumer-74bebde9-cb1a-446f-8f2f-9f3b20c9935d for "
                f"2026-01-01 00:01:{due},606 Z to probe for caught-up replica tasks. "
                "(org.apache.kafka.streams.processor.internals.StreamsPartitionAssignor)\n"
                f"[2026-01-01 00:00:{now},617] INFO stream-thread [{leader}-StreamThread-1-consumer] Decided on "
                "assignment: {} (org.apache.kafka.streams.processor.internals.StreamsPartitionAssignor)\n")

    lines = probing_lines(log("i1", 10, 10))
    assert lines == ["INFO stream-thread [<leader>-StreamThread-1-consumer] Requesting followup rebalance be "
                     "scheduled by <leader>-StreamThread-1-consumer for <time> to probe for caught-up replica tasks. "
                     "(StreamsPartitionAssignor)"]
    assert probing_lines(log("i2", 33, 34)) == lines
