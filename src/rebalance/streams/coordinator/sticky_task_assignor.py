"""``org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor`` (Kafka 4.3.1,
``StickyTaskAssignor.java``): the streams group's default broker-side task assignor (KIP-1071,
``group.streams.assignors``; ``name()`` is ``"sticky"``).

One ``assign`` call (lines 53-70) computes the group's target assignment from scratch, reading each member's
current active and standby tasks only to be sticky:

1. ``initialize`` (lines 85-136): ``num.standby.replicas`` (0 when the configs are empty, else
   ``Integer.parseInt`` of the value); the total of active tasks and of all tasks (active + standby replicas
   of the stateful subtopologies); per-member quotas ``ceil(total / members)`` (``computeTasksPerMember``, lines
   381-390); one :class:`~rebalance.streams.coordinator.process_state.ProcessState` per process id (a ``HashMap`` sized for
   the member count), its members added in the member map's order; the previous owner of each active task (a
   later member claiming the same task wins) and the previous owners of each standby task (in member order).
2. ``assignActive`` (lines 180-236), the tasks sorted by partition then subtopology:
   (1) each task stays with its previous active owner if that member is below the active quota;
   (2) else goes to the least-loaded previous standby owner (``findPrevMemberWithLeastLoad``, lines 282-309)
   if below quota; then, sorted by subtopology then partition, (3) every other task goes to the least-loaded
   member of the least-loaded process (a ``PriorityQueue`` by ``load()``).  Whenever a member reaches the
   quota exactly, the quota is recomputed over the remaining tasks and members
   (``maybeUpdateActiveTasksPerMember`` / ``maybeUpdateTotalTasksPerMember``, lines 238-252).
3. ``assignStandby`` (lines 319-374), only when ``num.standby.replicas > 0``, for the stateful tasks sorted by
   partition then subtopology *descending*: each replica goes to the previous active owner if its process
   does not hold the task yet and it is below the total quota, else to the least-loaded previous standby owner
   (same conditions); the first replica that cannot be placed so sends the task's remaining replicas to a
   list, which, sorted by subtopology then partition descending, is placed on the least-loaded processes that
   do not hold the task (``assignStandbyToMemberWithLeastLoad``, lines 254-271).  A replica no process can
   take is dropped (Kafka logs a warning, lines 366-370).
4. ``buildGroupAssignment`` (lines 138-169): one :class:`~rebalance.streams.coordinator.assignment.MemberAssignment` per
   member of the spec, warm-up tasks always empty.

A standby is never placed on a process that holds the task (``ProcessState.hasTask``), so a task's active and
its standbys run on different processes; with fewer processes than replicas + 1, replicas are dropped.

The port keeps Java's exact tie-breaking: the member map's iteration order (:class:`~rebalance.streams.coordinator.
spec.GroupSpec`), ``HashMap`` iteration of processes and members (:mod:`rebalance.jcollections`), the binary heaps of
``java.util.PriorityQueue`` (:mod:`rebalance.streams.priority_queue`), ``List.sort``'s stable order and
``int`` division rounding toward zero.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from ...errors import TaskAssignorException
from ...java import java_string_key, to_int32
from ...jcollections import HashJMap
from .assignment import GroupAssignment, MemberAssignment
from ..priority_queue import JavaPriorityQueue
from .process_state import ProcessState
from .spec import NUM_STANDBY_REPLICAS_CONFIG, GroupSpec, TopologyDescriber
from .task_id import TaskId

__all__ = ["StickyTaskAssignor", "java_parse_int"]

STICKY_ASSIGNOR_NAME = "sticky"


def _java_div(a: int, b: int) -> int:
    """Java ``int`` division: rounds toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _java_rem(a: int, b: int) -> int:
    """Java ``%``: the sign of the dividend."""
    return a - _java_div(a, b) * b


def compute_tasks_per_member(number_of_tasks: int, number_of_members: int) -> int:
    """``computeTasksPerMember`` (lines 381-390): ``ceil(tasks / members)`` in Java ``int`` arithmetic, 0 for no
    members."""
    if number_of_members == 0:
        return 0
    per_member = _java_div(number_of_tasks, number_of_members)
    if _java_rem(number_of_tasks, number_of_members) > 0:
        per_member += 1
    return per_member


def java_parse_int(text: str) -> Optional[int]:
    """``Integer.parseInt`` for ASCII input: an optional sign and decimal digits within the ``int`` range, else
    ``None`` (where Java throws ``NumberFormatException``; non-ASCII digits, which Java also accepts, give
    ``None`` here)."""
    body = text[1:] if text[:1] in ("+", "-") else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    value = int(text)
    return value if -(1 << 31) <= value < (1 << 31) else None


@dataclass(frozen=True)
class _Member:
    """``StickyTaskAssignor.Member``: a (process id, member id) pair."""

    process_id: str
    member_id: str


def _by_load(a: ProcessState, b: ProcessState) -> int:
    """``Comparator.comparingDouble(ProcessState::load)``."""
    return (a.load > b.load) - (a.load < b.load)


class _Quota:
    """One of ``LocalState``'s two quotas, active tasks and all tasks: the tasks left to place (``totalActiveTasks``
    / ``totalTasks``), the members with capacity left (``totalMembersWithActiveTaskCapacity`` /
    ``totalMembersWithTaskCapacity``) and the tasks per member (``activeTasksPerMember`` / ``totalTasksPerMember``)."""

    def __init__(self) -> None:
        self.tasks = 0
        self.members_with_capacity = 0
        self.per_member = 0

    def start(self, members: int) -> None:
        """Every member has capacity (``initialize``, lines 110-113)."""
        self.members_with_capacity = members
        self.per_member = compute_tasks_per_member(self.tasks, members)

    def unfulfilled(self, process: ProcessState, member: "_Member") -> bool:
        """``hasUnfulfilledActiveTaskQuota`` / ``hasUnfulfilledTaskQuota``: the member has fewer tasks than the
        quota."""
        return process.member_to_task_counts[member.member_id] < self.per_member

    def maybe_update(self, tasks: int) -> None:
        """``maybeUpdateActiveTasksPerMember`` / ``maybeUpdateTotalTasksPerMember``: a member that has just reached
        the quota with its ``tasks`` leaves the count, and the quota is recomputed over the rest."""
        if tasks == self.per_member:
            self.members_with_capacity -= 1
            self.tasks = to_int32(self.tasks - tasks)
            self.per_member = compute_tasks_per_member(self.tasks, self.members_with_capacity)


class _LocalState:
    """``StickyTaskAssignor.LocalState``: the state of one ``assign`` call."""

    def __init__(self) -> None:
        self.active_task_to_prev_member: Dict[TaskId, _Member] = {}
        self.standby_task_to_prev_member: Dict[TaskId, List[_Member]] = {}
        self.process_id_to_state: HashJMap[str, ProcessState] = HashJMap()
        self.num_standby_replicas = 0
        self.active = _Quota()
        self.total = _Quota()


class StickyTaskAssignor:
    """``StickyTaskAssignor`` (Kafka 4.3.1): see the module docstring.  Raises
    :class:`~rebalance.errors.TaskAssignorException` where Kafka's throws (an active task and no member).

    Defined in chapter 15, *Kafka Streams: who runs which task*."""

    #: the registry name, returned by ``name()``
    NAME = STICKY_ASSIGNOR_NAME

    def name(self) -> str:
        """``name()``: ``"sticky"``, the ``group.streams.assignors`` entry that selects this assignor."""
        return self.NAME

    def __str__(self) -> str:
        return self.name()

    def assign(self, group_spec: GroupSpec, topology_describer: TopologyDescriber) -> GroupAssignment:
        """``assign(groupSpec, topologyDescriber)`` (lines 53-58)."""
        state = self._initialize(group_spec, topology_describer)
        active_tasks = _task_ids(topology_describer, True)
        self._assign_active(state, active_tasks)
        if state.num_standby_replicas > 0:
            self._assign_standby(state, _task_ids(topology_describer, False))
        return _build_group_assignment(state, group_spec.members.keys())

    # -- initialize (lines 85-136) ------------------------------------------------------------------------------

    def _initialize(self, group_spec: GroupSpec, describer: TopologyDescriber) -> _LocalState:
        state = _LocalState()
        configs = group_spec.assignment_configs
        if not configs:
            state.num_standby_replicas = 0
        else:
            value = configs.get(NUM_STANDBY_REPLICAS_CONFIG)
            parsed = java_parse_int(value) if value is not None else None
            if parsed is None:  # the adapters refuse such input before it gets here
                raise ValueError(f"{NUM_STANDBY_REPLICAS_CONFIG} is not an int: {value!r}")
            state.num_standby_replicas = parsed
        for subtopology in describer.subtopologies():
            partitions = describer.max_num_input_partitions(subtopology)
            state.total.tasks = to_int32(state.total.tasks + partitions)
            state.active.tasks = to_int32(state.active.tasks + partitions)
            if describer.is_stateful(subtopology):
                state.total.tasks = to_int32(state.total.tasks + to_int32(partitions * state.num_standby_replicas))
        members = len(group_spec.members)
        state.active.start(members)
        state.total.start(members)
        state.process_id_to_state = HashJMap(capacity=members)
        for member_id, spec in group_spec.members.items():
            member = _Member(spec.process_id, member_id)
            process = state.process_id_to_state.get(spec.process_id)
            if process is None:
                process = ProcessState(spec.process_id)
                state.process_id_to_state.put(spec.process_id, process)
            process.add_member(member_id)
            for subtopology, owned in spec.active_tasks.items():
                for partition in owned:
                    state.active_task_to_prev_member[TaskId(subtopology, partition)] = member
            for subtopology, owned in spec.standby_tasks.items():
                for partition in owned:
                    state.standby_task_to_prev_member.setdefault(TaskId(subtopology, partition), []).append(member)
        return state

    # -- active tasks (lines 180-252) -----------------------------------------------------------------------------

    def _assign_active(self, state: _LocalState, active_tasks: List[TaskId]) -> None:
        active_tasks.sort(key=lambda t: (t.partition, java_string_key(t.subtopology_id)))
        # 1. previous active owners (lines 185-198)
        remaining = _assign_to_prev_members(state, active_tasks, state.active_task_to_prev_member.get)
        # 2. previous standby owners (lines 200-214)
        remaining = _assign_to_prev_members(
            state, remaining,
            lambda task: _find_prev_member_with_least_load(state, state.standby_task_to_prev_member.get(task), None))
        # 3. the least-loaded process, by subtopology then partition (lines 216-235)
        remaining.sort(key=TaskId.sort_key)
        by_load: JavaPriorityQueue[ProcessState] = JavaPriorityQueue(_by_load, state.process_id_to_state.values())
        for task in remaining:
            least_loaded = by_load.poll()
            if least_loaded is None:
                raise TaskAssignorException(f"No process available to assign active task {task}.")
            count = least_loaded.add_task_to_least_loaded_member(task, True)
            if count == -1:  # pragma: no cover - every process has a member
                raise TaskAssignorException(f"No member available to assign active task {task}.")
            _maybe_update_tasks_per_member(state, count)
            by_load.add(least_loaded)

    # -- standby tasks (lines 254-374) ----------------------------------------------------------------------------

    def _assign_standby(self, state: _LocalState, standby_tasks: List[TaskId]) -> None:
        # (partition, subtopology) reversed: descending (lines 322-323)
        standby_tasks.sort(key=lambda t: (t.partition, java_string_key(t.subtopology_id)), reverse=True)
        to_least_loaded: List[Tuple[TaskId, int]] = []
        for task in standby_tasks:
            for i in range(state.num_standby_replicas):
                prev_active = state.active_task_to_prev_member.get(task)
                if prev_active is not None:
                    process = state.process_id_to_state[prev_active.process_id]
                    if not process.has_task(task) and state.total.unfulfilled(process, prev_active):
                        state.total.maybe_update(process.add_task(prev_active.member_id, task, False))
                        continue
                prev_standbys = state.standby_task_to_prev_member.get(task)
                if prev_standbys:
                    prev = _find_prev_member_with_least_load(state, prev_standbys, task)
                    if prev is not None:
                        process = state.process_id_to_state[prev.process_id]
                        if state.total.unfulfilled(process, prev):
                            state.total.maybe_update(process.add_task(prev.member_id, task, False))
                            continue
                to_least_loaded.append((task, state.num_standby_replicas - i))
                break
        # (subtopology, partition) reversed: descending (lines 358-360)
        to_least_loaded.sort(key=lambda e: e[0].sort_key(), reverse=True)
        by_load: JavaPriorityQueue[ProcessState] = JavaPriorityQueue(_by_load, state.process_id_to_state.values())
        for task, replicas in to_least_loaded:
            for _ in range(replicas):
                if not _assign_standby_to_member_with_least_load(state, by_load, task):
                    break  # Kafka logs "Unable to assign ... standby tasks for task [...]" (lines 366-370)


def _task_ids(describer: TopologyDescriber, is_active: bool) -> List[TaskId]:
    """``taskIds`` (lines 72-83): every task, or only the stateful subtopologies' ones."""
    out: List[TaskId] = []
    for subtopology in describer.subtopologies():
        if is_active or describer.is_stateful(subtopology):
            out.extend(TaskId(subtopology, i) for i in range(describer.max_num_input_partitions(subtopology)))
    return out


def _maybe_update_tasks_per_member(state: _LocalState, active_tasks: int) -> None:
    """What ``assignActive`` does after each active task it places: ``maybeUpdateActiveTasksPerMember`` then
    ``maybeUpdateTotalTasksPerMember`` with the member's new task count."""
    state.active.maybe_update(active_tasks)
    state.total.maybe_update(active_tasks)


def _assign_to_prev_members(state: _LocalState, tasks: List[TaskId],
                            prev_member: Callable[[TaskId], Optional[_Member]]) -> List[TaskId]:
    """One of ``assignActive``'s sticky passes (lines 185-198: the previous active owner; lines 200-214: the
    least-loaded previous standby owner): each task goes to ``prev_member(task)`` if there is one and it is below
    the active quota; the tasks left, in order (Kafka's ``it.remove()`` of the placed ones)."""
    remaining: List[TaskId] = []
    for task in tasks:
        prev = prev_member(task)
        if prev is not None:
            process = state.process_id_to_state[prev.process_id]
            if state.active.unfulfilled(process, prev):
                _maybe_update_tasks_per_member(state, process.add_task(prev.member_id, task, True))
                continue
        remaining.append(task)
    return remaining


def _find_prev_member_with_least_load(state: _LocalState, members: Optional[List[_Member]],
                                      task: Optional[TaskId]) -> Optional[_Member]:
    """``findPrevMemberWithLeastLoad`` (lines 282-309), as Kafka has it: a later member replaces the candidate
    only when both its process load and its own task count are lower; the final "does not hold the task" test
    looks at the *first* member's process, whichever member won."""
    if not members:
        return None
    candidate = members[0]
    candidate_process = state.process_id_to_state[candidate.process_id]
    candidate_process_load = candidate_process.load
    candidate_member_load = float(candidate_process.member_to_task_counts[candidate.member_id])
    for member in members[1:]:
        process = state.process_id_to_state[member.process_id]
        load = process.load
        if load < candidate_process_load and (task is None or not process.has_task(task)):
            member_load = float(process.member_to_task_counts[member.member_id])
            if member_load < candidate_member_load:
                candidate_process_load = load
                candidate_member_load = member_load
                candidate = member
    if task is None or not candidate_process.has_task(task):
        return candidate
    return None


def _assign_standby_to_member_with_least_load(state: _LocalState, queue: JavaPriorityQueue[ProcessState],
                                              task: TaskId) -> bool:
    """``assignStandbyToMemberWithLeastLoad`` (lines 254-271): the least-loaded process that does not hold
    ``task``; the processes passed over go back into the heap after it, innermost first."""
    process = queue.poll()
    if process is None:
        return False
    found = False
    if not process.has_task(task):
        count = process.add_task_to_least_loaded_member(task, False)
        if count != -1:
            found = True
            state.total.maybe_update(count)
    elif not queue.is_empty():
        found = _assign_standby_to_member_with_least_load(state, queue, task)
    queue.add(process)
    return found


def _compacted(tasks: Iterable[TaskId]) -> Dict[str, FrozenSet[int]]:
    """``toCompactedTaskIds`` (lines 171-178)."""
    out: Dict[str, Set[int]] = {}
    for task in tasks:
        out.setdefault(task.subtopology_id, set()).add(task.partition)
    return {s: frozenset(p) for s, p in out.items()}


def _build_group_assignment(state: _LocalState, member_ids: Iterable[str]) -> GroupAssignment:
    """``buildGroupAssignment`` (lines 138-169): every member of the spec, warm-up tasks empty."""
    active: Dict[str, Set[TaskId]] = {}
    standby: Dict[str, Set[TaskId]] = {}
    for process in state.process_id_to_state.values():
        for member_id, tasks in process.assigned_active_tasks.items():
            active.setdefault(member_id, set()).update(tasks)
        for member_id, tasks in process.assigned_standby_tasks.items():
            standby.setdefault(member_id, set()).update(tasks)
    members: Dict[str, MemberAssignment] = {}
    for member_id in member_ids:
        members[member_id] = MemberAssignment(_compacted(active.get(member_id, ())),
                                              _compacted(standby.get(member_id, ())), {})
    return GroupAssignment(members)


