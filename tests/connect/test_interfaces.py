"""Issue 13, item 1 for Connect: one interface (ConnectAssignor), one registry, one result type, one validation path."""
import inspect

import pytest

from rebalance.connect import (ASSIGNORS, ClusterAssignment, ConnectAssignor, ConnectCluster, EagerAssignor,
                               IncrementalCooperativeAssignor, ReplayOptions, assignor_for, connect_protocol)
from rebalance.connect import vectors as adapter
from rebalance.connect.leader import ConfigSnapshot, CoordinatorState, member_metadata, perform_assignment, worker_url
from rebalance.errors import InputError


def test_the_registry_is_keyed_by_connect_protocol():
    # WorkerCoordinator.onLeaderElected: EAGER -> EagerAssignor, COMPATIBLE/SESSIONED -> incremental
    assert list(ASSIGNORS) == ["eager", "compatible", "sessioned"]
    assert ASSIGNORS["eager"] is EagerAssignor
    assert ASSIGNORS["compatible"] is ASSIGNORS["sessioned"] is IncrementalCooperativeAssignor
    assert connect_protocol("default") == "eager"  # EAGER's wire name
    assert isinstance(assignor_for("default"), EagerAssignor)
    with pytest.raises(InputError) as info:
        assignor_for("cooperative")
    assert info.value.field == "protocol"


@pytest.mark.parametrize("protocol", ["eager", "compatible", "sessioned"])
def test_every_registered_assignor_satisfies_the_protocol(protocol):
    assignor = assignor_for(protocol)
    assert isinstance(assignor, ConnectAssignor)
    assert protocol in type(assignor).PROTOCOLS
    for method in ("perform_assignment", "perform_task_assignment"):
        want = list(inspect.signature(getattr(ConnectAssignor, method)).parameters)[1:]
        assert list(inspect.signature(getattr(assignor, method)).parameters) == want


@pytest.mark.parametrize("protocol", ["eager", "sessioned"])
def test_one_result_type_for_both_assignors(protocol):
    running = {"w1": (["a"], [("a", 0)]), "w2": ([], [])}
    result = assignor_for(protocol, previous_generation_id=1).perform_task_assignment({"a": 2}, 1, 2, running)
    assert isinstance(result, ClusterAssignment)
    placed = sorted(t for tasks in result.all_assigned_tasks.values() for t in tasks)
    assert placed == [("a", 0), ("a", 1)]


def test_the_eager_round_stops_everything_and_deals_everything():
    result = EagerAssignor().perform_task_assignment({"a": 2}, 1, 2, {"w2": (["a"], [("a", 0)]), "w1": ([], [])})
    assert result.newly_revoked_connectors == {"w2": ["a"], "w1": []}
    assert result.newly_revoked_tasks == {"w2": [("a", 0)], "w1": []}
    assert result.all_assigned_connectors == {"w1": ["a"], "w2": []}
    assert result.all_assigned_tasks == {"w1": [("a", 1)], "w2": [("a", 0)]}
    assert result.newly_assigned_tasks == result.all_assigned_tasks


@pytest.mark.parametrize("protocol, wire", [("eager", "default"), ("sessioned", "sessioned")])
def test_perform_assignment_is_the_interface_method(protocol, wire):
    metadata = [(w, member_metadata(wire, worker_url(w), 0)) for w in ("w1", "w2")]
    snapshot = ConfigSnapshot(0, {"a": 3})
    by_method = assignor_for(protocol, previous_generation_id=1).perform_assignment(
        "w1", wire, metadata, CoordinatorState(snapshot, 2, 1))
    by_function = perform_assignment(assignor_for(protocol, previous_generation_id=1), "w1", wire, metadata,
                                     snapshot, 2, 1)
    assert by_method == by_function and set(by_method) == {"w1", "w2"}


def test_the_replay_switches_are_only_an_options_object():
    assert "members_map" not in inspect.signature(ConnectCluster).parameters
    assert "initial_previous_generation_id" not in inspect.signature(ConnectCluster).parameters
    with pytest.raises(InputError) as info:
        ConnectCluster(replay=ReplayOptions(members_map="tree"))
    assert info.value.field == "members_map"


@pytest.mark.parametrize("bad", [
    {"connectors": {"a": -1}},
    {"connectors": {"": 2}},
    {"connectors": ["a"]},
    {"max_delay_ms": -5},
    {"max_delay_ms": "300000"},
    {"initial_generation_id": 1.5},
    {"initial_time_ms": True},
    {"assignor": "cooperative"},
    {"mode": "wire"},
    {"protocol": "cooperative"},
    {"protocol": "default"},
])
def test_dict_input_and_vectors_input_share_one_validation(bad):
    with pytest.raises(InputError) as direct:
        ConnectCluster(**bad)
    with pytest.raises(InputError) as replayed:
        adapter.run({"kind": "connect", **bad})
    assert (direct.value.field, direct.value.message) == (replayed.value.field, replayed.value.message)
    assert direct.value.field.split(".")[0] == next(iter(bad))


def test_only_the_vectors_adapter_passes_replay_options():
    import pathlib
    import re

    import rebalance

    root = pathlib.Path(rebalance.__file__).parent
    callers = {str(p.relative_to(root)) for p in root.rglob("*.py")
               if re.search(r"ReplayOptions\((?!\))", p.read_text())}
    # a vectors adapter in each area that has replay switches, nothing else (the areas' own defaults aside: the
    # KIP-848 coordinator's own options, COORDINATOR, are defined beside ReplayOptions)
    assert {"connect/vectors.py", "kip848/vectors.py"} <= callers
    assert all(c.endswith("vectors.py") for c in callers - {"kip848/assignor.py"}), callers
    assert "COORDINATOR = ReplayOptions(" in (root / "kip848" / "assignor.py").read_text()
