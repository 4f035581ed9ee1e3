"""Worked examples (the c1/c2/c3 example of the eager-vs-incremental article), the backoff, the wire orders, the revocation arithmetic and bad input."""
import pytest

from rebalance.connect.arithmetic import legacy_revocation_plan, revocation_plan
from rebalance.connect.cluster import ConnectCluster
from rebalance.connect.eager import eager_assignment
from rebalance.connect.examples import interleaved_round_robin, round_table, three_workers_example
from rebalance.connect.incremental import ExponentialBackoff, IncrementalCooperativeAssignor, MockTime
from rebalance.connect.model import ConnectorsAndTasks, WorkerLoad, hashmap_member_order, parse_task, task_hash
from rebalance.connect.protocol import assigned_on_the_wire, revoked_on_the_wire
from rebalance.connect.vectors import run
from rebalance.errors import InputError
from rebalance.java import string_hash, to_int32


# --- the article's example: c1 {ct1, t1, t2}, c2 {ct2, t3}, then c3 joins ------------------------------------

def _rows(assignor):
    return [(r["round"], r["worker"], r["stopped"], r["started"], r["running after"])
            for r in round_table(three_workers_example(assignor))]


def test_third_worker_joins_eager_stops_everything():
    assert _rows("eager") == [
        (1, "c1", "ct1, t1, t2", "ct1, t2", "ct1, t2"),  # everything stopped, then restarted
        (1, "c2", "ct2, t3", "ct2, t3", "ct2, t3"),
        (1, "c3", "-", "t1", "t1"),
    ]


def test_third_worker_joins_incremental_moves_one_task_in_two_rounds():
    rounds = three_workers_example("incremental")
    assert [r.follow_up for r in rounds] == [None, "revocation"]
    assert _rows("incremental") == [
        (1, "c1", "t1", "-", "ct1, t2"),
        (1, "c2", "-", "-", "ct2, t3"),
        (1, "c3", "-", "-", "-"),
        (2, "c1", "-", "-", "ct1, t2"),
        (2, "c2", "-", "-", "ct2, t3"),
        (2, "c3", "-", "t1", "t1"),
    ]


def test_third_worker_joins_protocol_mode_agrees():
    assert round_table(three_workers_example("incremental", mode="protocol")) == round_table(three_workers_example("incremental"))


def test_eager_round_robin_continues_over_tasks():
    a = eager_assignment({"ct1": 2, "ct2": 1}, ["c3", "c1", "c2"])
    assert a == {"c1": (["ct1"], [("ct1", 1)]), "c2": (["ct2"], [("ct2", 0)]), "c3": ([], [("ct1", 0)])}


def test_even_odd_argument():
    one_task = {f"conn{i}": 1 for i in range(6)}
    kafka = eager_assignment(one_task, ["w1", "w2"])
    assert [len(c) for c, _ in kafka.values()] == [3, 3] and [len(t) for _, t in kafka.values()] == [3, 3]
    naive = interleaved_round_robin(one_task, ["w1", "w2"])
    assert [len(c) for c, _ in naive.values()] == [6, 0] and [len(t) for _, t in naive.values()] == [0, 6]


# --- the state machine, driven directly -------------------------------------------------------

def test_direct_api_worker_joins():
    a = IncrementalCooperativeAssignor(max_delay=300_000, previous_generation_id=1000)
    r1 = a.perform_task_assignment({"connector1": 4, "connector2": 4}, 1000, 1001, {"worker1": ([], [])})
    assert r1.newly_assigned_connectors == {"worker1": ["connector1", "connector2"]}
    running = {"worker1": (["connector1", "connector2"], [(c, i) for c in ("connector1", "connector2") for i in range(4)]),
               "worker2": ([], [])}
    r2 = a.perform_task_assignment({"connector1": 4, "connector2": 4}, 1001, 1002, running)
    assert r2.newly_revoked_connectors["worker1"] == ["connector1"]
    assert r2.newly_revoked_tasks["worker1"] == [("connector1", i) for i in range(4)]
    assert a.revoked_in_previous and a.delay == 0


def test_generation_mismatch_forgets_previous_assignment():
    a = IncrementalCooperativeAssignor(previous_generation_id=1000)
    a.perform_task_assignment({"c": 2}, 1000, 1001, {"w1": ([], [])})
    assert a.previous_assignment.size() == 3
    # w1 vanished and the leader missed a generation: nothing is "lost", the tasks are simply new
    r = a.perform_task_assignment({"c": 2}, 1000, 1003, {"w2": ([], [])})
    assert a.delay == 0 and r.newly_assigned_tasks["w2"] == [("c", 0), ("c", 1)]


def test_successive_revocations_back_off():
    a = IncrementalCooperativeAssignor(max_delay=300_000, time=MockTime(0), previous_generation_id=0)
    b = ExponentialBackoff(1, 40, 300_000, 0)
    assert [b.backoff(n) for n in (1, 2, 3, 4, 10)] == [40, 1600, 64000, 300000, 300000]
    assert [ExponentialBackoff(1, 40, 1, 0).backoff(n) for n in (1, 5)] == [1, 1]
    assert ExponentialBackoff(0, 40, 0, 0).backoff(3) == 0
    assert a.consecutive_revoking_rebalances_backoff.backoff(2) == 1600


@pytest.mark.parametrize("max_delay, expected", [
    (0, []),
    (1, [1] * 6),
    (10_000, [40, 1600, 10_000, 10_000, 10_000, 10_000]),
    (300_000, [40, 1600, 64_000, 300_000, 300_000, 300_000]),
])
def test_workers_joining_right_after_revocations_are_delayed(max_delay, expected):
    # a worker joins straight after every round (after sleeping out any delay): every second round
    # would revoke again and is held back by ExponentialBackoff(1, 40, maxDelay, 0)
    cluster = ConnectCluster(max_delay_ms=max_delay, connectors={f"c{i}": 8 for i in range(8)})
    workers = ["w01"]
    cluster.rebalance(cluster.carried_members(workers))
    delays = []
    for n in range(2, 14):
        if cluster.delay:
            cluster.time.sleep(cluster.delay)
        workers.append(f"w{n:02d}")
        r = cluster.rebalance(cluster.carried_members(workers))
        if cluster.delay:
            assert not r.revoked_anything()
            delays.append(cluster.delay)
    assert delays == expected


def test_lost_assignments_wait_then_go_to_returning_worker():
    a = IncrementalCooperativeAssignor(max_delay=300_000, time=MockTime(0))
    a.previous_members = ["w0", "w1"]
    lost = ConnectorsAndTasks(["c1"], [("c1", 0), ("c1", 1)])
    loads = [WorkerLoad("w0", ["c0"], [("c0", 0)])]
    a.handle_lost_assignments(lost, ConnectorsAndTasks(), loads)
    assert (a.delay, a.scheduled_rebalance) == (300_000, 300_000)
    a.time.sleep(100_000)
    loads = [WorkerLoad("w0", ["c0"], [("c0", 0)]), WorkerLoad("w1")]
    a.handle_lost_assignments(lost, ConnectorsAndTasks(), loads)
    assert a.delay == 200_000 and list(a.candidate_workers_for_reassignment) == ["w1"]
    a.time.sleep(200_000)
    to_reassign = ConnectorsAndTasks()
    a.handle_lost_assignments(lost, to_reassign, loads)
    assert to_reassign.is_empty() and a.delay == 0
    assert list(loads[1].connectors) == ["c1"] and list(loads[1].tasks) == [("c1", 0), ("c1", 1)]


def test_assign_connectors_fills_least_loaded_levels():
    loads = [WorkerLoad("w2", ["a", "b"]), WorkerLoad("w1"), WorkerLoad("w0", ["c"])]
    IncrementalCooperativeAssignor.assign_connectors(loads, ["x", "y", "z", "v"])
    # sorted (w1:0, w0:1, w2:2); the level widens only when the least-loaded worker catches up
    assert {wl.worker: list(wl.connectors) for wl in loads} == {"w1": ["x", "y", "v"], "w0": ["c", "z"], "w2": ["a", "b"]}


# --- Java orders --------------------------------------------------------------------------------

def test_task_hash_matches_connector_task_id_hashcode():
    assert task_hash(("conn", 3)) == to_int32(31 * string_hash("conn") + 3)


def test_member_map_order_is_hashmap_order():
    # "worker10" hashes into an earlier bucket than "worker2" in a 16-bucket table
    order = hashmap_member_order(["worker1", "worker2", "worker10"])
    assert sorted(order) == ["worker1", "worker10", "worker2"]
    assert order == sorted(order, key=lambda w: (string_hash(w) ^ ((string_hash(w) & 0xFFFFFFFF) >> 16)) & 15)


def test_wire_order_groups_tasks_under_their_connector():
    conns, tasks = assigned_on_the_wire(["b"], [("a", 1), ("b", 0), ("a", 0)])
    assert conns == ["b"]
    assert tasks == [("b", 0), ("a", 1), ("a", 0)]  # b's group exists first (it holds the connector)
    rc, rt = revoked_on_the_wire(["z", "a"], [("a", 2), ("q", 1)])
    assert rc == ["z", "a"] and rt == [("a", 2), ("q", 1)]


# --- the revocation arithmetic --------------------------------------------------------------------

def test_revocation_plan_floor_and_extra_slots():
    rows = revocation_plan([("w1", 12), ("w2", 0), ("w3", 0)], total=12)
    assert [(r["keeps"], r["revoke"]) for r in rows] == [(4, 8), (0, 0), (0, 0)]
    rows = revocation_plan([("w1", 90)] * 0 + [(f"w{i}", 90) for i in range(10)] + [("new", 0)])
    assert sum(r["revoke"] for r in rows) == 81
    assert sorted(r["keeps"] for r in rows) == [0] + [81] + [82] * 9
    assert all(r["revoke"] == 0 for r in revocation_plan({"a": 2, "b": 1, "c": 1}))


def test_legacy_plan_only_when_a_worker_is_new():
    assert all(r["revoke"] == 0 for r in legacy_revocation_plan({"a": 5, "b": 1}))
    rows = legacy_revocation_plan({"a": 3, "b": 2, "c": 0})  # 5 over 3: floor 1, ceil 2
    assert [(r["floor"], r["ceil"], r["revoke"]) for r in rows] == [(1, 2, 1), (1, 2, 0), (1, 2, 0)]


# --- bad input ------------------------------------------------------------------------------------

@pytest.mark.parametrize("scenario, field", [
    ({"assignor": "sticky"}, "assignor"),
    ({"mode": "fast"}, "mode"),
    ({"connectors": {"a": -1}}, "connectors.a"),
    ({"steps": [{"op": "jump"}]}, "steps[0].op"),
    ({"steps": [{"members": {"w1": {"tasks": ["nodash"]}}}]}, "steps[0].members.w1.tasks[0]"),
    ({"steps": [{"members": ["w1"], "sleep_ms": {"of": "later"}}]}, "steps[0].sleep_ms.of"),
    ({"mode": "protocol", "protocol": "v9", "steps": []}, "protocol"),
    ({"steps": [{"members": []}]}, "steps[0].members"),
    ({"max_delay_ms": -5}, "max_delay_ms"),
])
def test_bad_input_names_the_field(scenario, field):
    with pytest.raises(InputError) as info:
        run({"kind": "connect", **scenario})
    assert info.value.field == field


def test_parse_task_splits_at_last_dash():
    assert parse_task("my-conn-12", "t") == ("my-conn", 12)
    with pytest.raises(InputError):
        parse_task("conn-x", "t")


# --- the wire format ------------------------------------------------------------------------------

def test_assignment_bytes_follow_kafka_schema():
    from rebalance.connect.protocol import ExtendedAssignment
    a = ExtendedAssignment(1, 0, "w1", "u", 7, ["c"], [("c", 0)], [], [], 40)
    data = a.serialize()
    # header version 1, error 0, leader "w1", url "u", offset 7
    assert data[:2] == b"\x00\x01" and data[2:4] == b"\x00\x00"
    assert data[4:8] == b"\x00\x02w1" and data[8:11] == b"\x00\x01u"
    assert data[11:19] == (7).to_bytes(8, "big")
    # one group: "c" with [-1, 0]; then an empty revoked array and the delay
    assert data[19:] == (b"\x00\x00\x00\x01" + b"\x00\x01c" + b"\x00\x00\x00\x02" + b"\xff\xff\xff\xff"
                         + b"\x00\x00\x00\x00" + b"\x00\x00\x00\x00" + (40).to_bytes(4, "big"))
    assert ExtendedAssignment.deserialize(data) == a


def test_v0_assignment_read_by_the_v1_reader_has_defaults():
    from rebalance.connect.protocol import ExtendedAssignment
    a = ExtendedAssignment(0, 0, "w1", "u", 7, ["c"], [("c", 0)], ["ignored"], [], 99)
    back = ExtendedAssignment.deserialize(a.serialize())
    assert (back.version, back.revoked_connectors, back.delay) == (0, [], 0)
    assert (back.connectors, back.tasks) == (["c"], [("c", 0)])


def test_metadata_carries_the_running_assignment_from_v1_on():
    from rebalance.connect.protocol import ExtendedWorkerState
    state = ExtendedWorkerState("http://w:8083", 5, ["b", "a"], [("a", 0), ("b", 1)])
    assert ExtendedWorkerState.deserialize(state.serialize(0))[1].tasks == []
    version, seen = ExtendedWorkerState.deserialize(state.serialize(2))
    assert version == 2 and set(seen.connectors) == {"a", "b"} and set(seen.tasks) == set(state.tasks)
    empty = ExtendedWorkerState("http://w:8083", 5)
    assert empty.serialize(1)[-4:] == b"\xff\xff\xff\xff"  # null allocation


def test_truncated_bytes_raise_kafka_schema_exception():
    from rebalance.connect.protocol import ExtendedAssignment
    from rebalance.errors import KafkaError
    with pytest.raises(KafkaError) as info:
        ExtendedAssignment.deserialize(b"\x00\x01\x00")
    assert info.value.type == "SchemaException"


def test_assignor_runs_on_the_simulators_virtual_clock():
    from rebalance.protocol.clock import VirtualClock
    clock = VirtualClock(1_000)
    a = IncrementalCooperativeAssignor(max_delay=300_000, time=clock, previous_generation_id=1)
    first = a.perform_task_assignment({"c": 2}, 1, 2, {"w1": ([], []), "w2": ([], [])})
    w1 = (first.all_assigned_connectors["w1"], first.all_assigned_tasks["w1"])
    a.perform_task_assignment({"c": 2}, 2, 3, {"w1": w1})  # w2 left: its work is lost, held back
    assert a.delay == 300_000 and a.scheduled_rebalance == clock.now_ms + 300_000


def test_perform_assignment_round_by_round():
    a = IncrementalCooperativeAssignor()
    r1 = a.next_round({"conn": 4}, {"w1": ([], []), "w2": ([], [])})
    assert a.previous_generation_id == 1
    assert sorted(r1.newly_assigned_tasks["w1"] + r1.newly_assigned_tasks["w2"]) == [("conn", i) for i in range(4)]
    running = {w: (r1.all_assigned_connectors[w], r1.all_assigned_tasks[w]) for w in ("w1", "w2")}
    running["w3"] = ([], [])
    r2 = a.next_round({"conn": 4}, running)
    assert a.previous_generation_id == 2
    assert sum(len(v) for v in r2.newly_revoked_tasks.values()) == 1  # 4 tasks over 3 workers: 2,1,1 -> one moves
