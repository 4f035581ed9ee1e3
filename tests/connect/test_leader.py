"""The group-protocol entry points on bytes: what a group simulator would call."""
import pytest

from rebalance.connect.eager import EagerAssignor
from rebalance.connect.incremental import IncrementalCooperativeAssignor
from rebalance.connect.leader import (ConfigSnapshot, member_metadata, on_join_complete, on_join_prepare,
                                      perform_assignment, worker_url)
from rebalance.connect.protocol import ExtendedAssignment


def _round(assignor, protocol, running, snapshot, gen, last, fresh=None):
    metadata = [(w, member_metadata(protocol, worker_url(w), snapshot.offset, c, t)) for w, (c, t) in running.items()]
    return perform_assignment(assignor, min(running), protocol, metadata, snapshot, gen, last, fresh)


def test_members_exchanging_bytes_converge_to_the_third_worker_example():
    snapshot = ConfigSnapshot(3, {"ct1": 2, "ct2": 1})
    running = {"c1": (["ct1"], [("ct1", 0), ("ct1", 1)]), "c2": (["ct2"], [("ct2", 0)]), "c3": ([], [])}
    assignor = IncrementalCooperativeAssignor(previous_generation_id=1)
    gen = 1
    for _ in range(3):
        gen += 1
        blobs = _round(assignor, "sessioned", running, snapshot, gen, gen - 1)
        for w in running:
            got, c, t = on_join_complete("sessioned", *running[w], blobs[w])
            assert got.version == 2 and got.error == ExtendedAssignment.NO_ERROR and got.leader == "c1"
            running[w] = (c, t)
    assert running == {"c1": (["ct1"], [("ct1", 1)]), "c2": (["ct2"], [("ct2", 0)]), "c3": ([], [("ct1", 0)])}


def test_cooperative_worker_puts_new_work_first():
    blob = ExtendedAssignment(2, 0, "w", "u", 1, ["new"], [("new", 0)], [], [("old", 1)], 0).serialize()
    _, c, t = on_join_complete("sessioned", ["old"], [("old", 0), ("old", 1)], blob)
    assert c == ["new", "old"] and t == [("new", 0), ("old", 0)]


def test_eager_worker_stops_everything_before_joining():
    assert on_join_prepare("default", ["a"], [("a", 0)]) == (["a"], [("a", 0)])
    assert on_join_prepare("compatible", ["a"], [("a", 0)]) == ([], [])


@pytest.mark.parametrize("assignor, protocol, version", [
    (EagerAssignor(), "default", 0),
    (IncrementalCooperativeAssignor(previous_generation_id=1), "sessioned", 2),
])
def test_leader_behind_the_config_answers_config_mismatch(assignor, protocol, version):
    running = {"w1": ([], []), "w2": ([], [])}
    metadata = [("w1", member_metadata(protocol, worker_url("w1"), 5)),
                ("w2", member_metadata(protocol, worker_url("w2"), 9))]  # w2 has read further
    stale = ConfigSnapshot(5, {"a": 2})
    blobs = perform_assignment(assignor, "w1", protocol, metadata, stale, 2, 1)
    for blob in blobs.values():
        got = ExtendedAssignment.deserialize(blob)
        assert (got.version, got.error, got.config_offset) == (version, ExtendedAssignment.CONFIG_MISMATCH, 9)
        assert got.connectors == [] and got.tasks == []
    if isinstance(assignor, IncrementalCooperativeAssignor):
        assert assignor.previous_generation_id == 1  # the assignor never ran
    # a leader that can refresh its snapshot to offset 9 assigns normally, at that offset
    blobs = perform_assignment(assignor, "w1", protocol, metadata, stale, 2, 1, fresh_snapshot=ConfigSnapshot(9, {"a": 2}))
    got = [ExtendedAssignment.deserialize(b) for b in blobs.values()]
    assert all(g.error == ExtendedAssignment.NO_ERROR and g.config_offset == 9 for g in got)
    assert sorted(t for g in got for t in g.tasks) == [("a", 0), ("a", 1)]


def test_incremental_assignor_under_the_default_protocol_still_writes_v1_assignments():
    # serializeAssignment(assignment, sessioned=false) uses the V1 header even for protocol version 0,
    # and V0 metadata carries no running work, so the leader sees every worker empty
    snapshot = ConfigSnapshot(1, {"a": 2})
    running = {"w1": (["a"], [("a", 0), ("a", 1)]), "w2": ([], [])}
    blobs = _round(IncrementalCooperativeAssignor(previous_generation_id=1), "default", running, snapshot, 2, 1)
    got = {w: ExtendedAssignment.deserialize(b) for w, b in blobs.items()}
    assert {g.version for g in got.values()} == {1}
    assert sorted(t for g in got.values() for t in g.tasks) == [("a", 0), ("a", 1)]


def test_failed_expectation_is_reported_not_raised():
    from rebalance.connect.vectors import run
    out = run({"kind": "connect", "connectors": {"a": 2},
               "steps": [{"members": ["w1"], "expect": {"delay": 5, "task_allocations": [2]}}]})
    assert out["ok"] is False
    assert out["steps"][0]["expect_failures"] == ["delay 0 != 5"]
