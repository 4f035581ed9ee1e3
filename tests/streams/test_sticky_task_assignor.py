"""Properties of the port of Kafka 4.3.1's ``StickyTaskAssignor`` (:mod:`rebalance.streams.coordinator`) on random groups,
and of the ``java.util.PriorityQueue`` it breaks ties with.

What Kafka's code guarantees, each checked on any group: every task is active on exactly one member (when the
group has members); no process holds a task twice, so a standby never runs on the process of its active; each
stateful task gets ``min(num.standby.replicas, processes - 1)`` standbys (a replica is dropped only when every
process holds the task, ``assignStandbyToMemberWithLeastLoad``), a stateless one none; the answer depends only
on the input (not on an earlier call, nor on warm-up tasks, which the sticky assignor ignores); and a member
keeps every previous active task no other member claims when it had at most ``floor(tasks / members)`` of them
(``assignActive`` step 1: the active quota never falls below that floor).
"""
from __future__ import annotations

from typing import Dict, List, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rebalance.errors import TaskAssignorException
from rebalance.streams import JavaPriorityQueue
from rebalance.streams.coordinator import (AssignmentMemberSpec, GroupSpec, StickyTaskAssignor, Subtopology, TaskId,
                                           Topology, task_assignor_for)

SETTINGS = settings(max_examples=300, deadline=None, derandomize=True, database=None)


@st.composite
def groups(draw, min_members: int = 1):
    n_sub = draw(st.integers(1, 4))
    subtopologies = [Subtopology(f"s{i}", draw(st.integers(0, 7)), draw(st.booleans())) for i in range(n_sub)]
    tasks = [TaskId(s.id, p) for s in subtopologies for p in range(s.partitions)]
    n_proc = draw(st.integers(1 if min_members else 0, 5))
    members: List[Tuple[str, AssignmentMemberSpec]] = []
    for p in range(n_proc):
        for t in range(draw(st.integers(1, 3))):
            def pick() -> Dict[str, frozenset]:
                chosen = draw(st.lists(st.sampled_from(tasks), max_size=6)) if tasks else []
                out: Dict[str, set] = {}
                for task in chosen:
                    out.setdefault(task.subtopology_id, set()).add(task.partition)
                return {k: frozenset(v) for k, v in out.items()}
            members.append((f"m{p}-{t}-{draw(st.integers(0, 99))}", AssignmentMemberSpec(f"p{p}", pick(), pick(), pick())))
    replicas = draw(st.integers(0, 3))
    members_map = draw(st.sampled_from(["hash", "linked"]))
    configs = {} if replicas == 0 and draw(st.booleans()) else {"num.standby.replicas": str(replicas)}
    return Topology(subtopologies), members, configs, members_map


def _assign(topology, members, configs, members_map):
    return StickyTaskAssignor().assign(GroupSpec.of(members, configs, members_map), topology)


def _held(tasks) -> List[TaskId]:
    return [TaskId(s, p) for s, parts in tasks.items() for p in parts]


@SETTINGS
@given(groups())
def test_every_task_is_active_once_and_no_process_holds_a_task_twice(group):
    topology, members, configs, members_map = group
    spec = GroupSpec.of(members, configs, members_map)
    result = StickyTaskAssignor().assign(spec, topology)
    assert set(result.members) == set(spec.members)
    actives = [t for a in result.members.values() for t in _held(a.active_tasks)]
    every = [TaskId(s.id, p) for s in topology for p in range(s.partitions)]
    assert sorted(actives, key=TaskId.sort_key) == sorted(every, key=TaskId.sort_key)
    by_process: Dict[str, List[TaskId]] = {}
    for member_id, a in result.members.items():
        held = by_process.setdefault(spec.members[member_id].process_id, [])
        held.extend(_held(a.active_tasks) + _held(a.standby_tasks))
        assert not a.warmup_tasks
    for process, held in by_process.items():
        assert len(held) == len(set(held)), f"{process} holds a task twice"
    replicas = int(configs.get("num.standby.replicas", "0"))
    processes = len(by_process)
    standbys: Dict[TaskId, int] = {}
    for a in result.members.values():
        for t in _held(a.standby_tasks):
            standbys[t] = standbys.get(t, 0) + 1
    for s in topology:
        for p in range(s.partitions):
            want = min(replicas, processes - 1) if s.stateful else 0
            assert standbys.get(TaskId(s.id, p), 0) == want


@SETTINGS
@given(groups())
def test_the_answer_depends_only_on_the_input(group):
    topology, members, configs, members_map = group
    assignor = task_assignor_for("sticky")
    first = assignor.assign(GroupSpec.of(members, configs, members_map), topology)
    again = StickyTaskAssignor().assign(GroupSpec.of(list(members), dict(configs), members_map), topology)
    assert first.to_json() == again.to_json()
    no_warmup = [(m, AssignmentMemberSpec(s.process_id, s.active_tasks, s.standby_tasks)) for m, s in members]
    assert _assign(topology, no_warmup, configs, members_map).to_json() == first.to_json()


@SETTINGS
@given(groups())
def test_a_member_within_the_floor_keeps_its_uncontested_active_tasks(group):
    topology, members, configs, members_map = group
    result = _assign(topology, members, configs, members_map)
    valid = {TaskId(s.id, p) for s in topology for p in range(s.partitions)}
    floor = len(valid) // len(members)
    claims: Dict[TaskId, int] = {}
    for _, spec in members:
        for t in _held(spec.active_tasks):
            claims[t] = claims.get(t, 0) + 1
    for member_id, spec in members:
        previous = set(_held(spec.active_tasks))
        if previous <= valid and all(claims[t] == 1 for t in previous) and len(previous) <= floor:
            assert previous <= set(_held(result.members[member_id].active_tasks)), member_id


def test_no_member_and_a_task_is_kafkas_exception():
    with pytest.raises(TaskAssignorException, match="No process available to assign active task s_0."):
        StickyTaskAssignor().assign(GroupSpec.of([]), Topology([Subtopology("s", 1)]))
    assert StickyTaskAssignor().assign(GroupSpec.of([]), Topology([Subtopology("s", 0)])).members == {}


def _cmp(a: Tuple[int, str], b: Tuple[int, str]) -> int:
    return (a[0] > b[0]) - (a[0] < b[0])


def test_the_priority_queue_breaks_ties_by_heap_layout_as_java_does():
    """Four equal keys added a, b, c, d come out a, d, c, b: ``poll`` moves the last element to the root and
    ``siftDown`` stops at the first child that is not smaller."""
    queue = JavaPriorityQueue(_cmp, [(0, "a"), (0, "b"), (0, "c"), (0, "d")])
    assert [queue.poll()[1] for _ in range(4)] == ["a", "d", "c", "b"]
    assert queue.poll() is None and queue.is_empty()


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 5))))
def test_the_priority_queue_polls_in_key_order(ops):
    queue: JavaPriorityQueue[Tuple[int, str]] = JavaPriorityQueue(_cmp)
    reference: List[int] = []
    for i, (add, key) in enumerate(ops):
        if add or not reference:
            queue.add((key, str(i)))
            reference.append(key)
        else:
            got = queue.poll()
            assert got is not None and got[0] == min(reference)
            reference.remove(got[0])
    assert len(queue) == len(reference)
    drained = [queue.poll() for _ in range(len(reference))]
    assert [k for k, _ in drained] == sorted(reference)
