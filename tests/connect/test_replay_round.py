"""``ConnectCluster.replay_round``: a real group's round replayed as ``WorkerCoordinator`` runs it on each worker
(each worker its own assignor; a member whose SyncGroup failed keeps what it ran)."""
import pytest

from rebalance.connect.cluster import ConnectCluster
from rebalance.errors import InputError


def _model() -> ConnectCluster:
    return ConnectCluster(mode="protocol", connectors={"c1": 4})


def test_each_leader_computes_with_its_own_assignor():
    m = _model()
    m.replay_round({"a": ([], []), "b": ([], [])}, 10, -1, "a")
    a_assignor = m.assignor
    assert m.incremental_assignor().previous_generation_id == 10
    m.replay_round(m.carried_members(["a", "b"]), 11, 10, "b")  # b leads for the first time: a new assignor
    assert m.assignor is not a_assignor
    b_assignor = m.assignor
    m.replay_round(m.carried_members(["a", "b"]), 12, 11, "a")  # a again: the assignor it led with, as it was
    assert m.assignor is a_assignor and m.incremental_assignor().previous_generation_id == 12
    m.replay_round(m.carried_members(["a", "b"]), 13, 12, "b")
    assert m.assignor is b_assignor


def test_a_new_leaders_assignor_starts_at_generation_minus_one():
    """IncrementalCooperativeAssignor's constructor: previousGenerationId = -1, so a first-time leader whose
    lastCompletedGenerationId differs sees lost assignments (no delay without a previous round of its own)."""
    m = _model()
    m.replay_round({"a": ([], []), "b": ([], [])}, 10, -1, "a")
    before = m.carried_members(["a", "b"])
    seen = []
    original = m._new_assignor

    def spy(previous_generation_id):
        seen.append(previous_generation_id)
        return original(previous_generation_id)

    m._new_assignor = spy
    m.replay_round(before, 11, 10, "b")
    assert seen == [-1]


def test_a_member_that_missed_the_assignment_runs_what_it_ran():
    m = _model()
    m.replay_round({"a": ([], []), "b": ([], [])}, 10, -1, "a")
    b_ran = m.running["b"]
    assert b_ran[1], "b runs tasks after the first round"
    m.replay_round({"a": m.running["a"], "b": b_ran, "c": ([], [])}, 11, 10, "a", received=["a", "c"])
    assert m.running["b"] == b_ran  # its SyncGroup failed: onJoinComplete never ran on it
    assert set(m.running) == {"a", "b", "c"}


def test_bad_leader_or_receivers_name_the_field():
    m = _model()
    with pytest.raises(InputError) as caught:
        m.replay_round({"a": ([], [])}, 10, -1, "z")
    assert caught.value.field == "leader"
    with pytest.raises(InputError) as caught:
        m.replay_round({"a": ([], [])}, 10, -1, "a", received=["a", "z"])
    assert caught.value.field == "received"
