"""``org.apache.kafka.coordinator.group.streams.assignor.ProcessState`` (Kafka 4.3.1, ``ProcessState.java``): the
members of one Streams process (one ``process.id``, one application instance) and the tasks assigned to them
while ``StickyTaskAssignor`` runs.

* ``capacity`` is the number of members (stream threads) of the process; ``load`` is tasks / capacity
  (``computeLoad``, lines 166-172), ``Double.MAX_VALUE`` before the first member and ``-1`` for no capacity;
* ``addTask(member, task, isActive)`` (lines 98-107) gives a task to a named member and drops the member heap;
* ``addTaskToLeastLoadedMember(task, isActive)`` (lines 133-159) gives it to the member with the fewest tasks:
  the only member if there is one, else the head of a ``PriorityQueue`` of (member, task count) entries ordered
  by count (``Map.Entry.comparingByValue``), built from ``memberToTaskCounts`` (a ``HashMap``) in its iteration
  order the first time it is needed after an ``addTask`` and kept up to date between calls.

``memberToTaskCounts`` counts active and standby tasks together; ``hasTask`` answers for the whole process, so
no member of a process gets a standby of a task another member of it runs (or a second copy of one).
"""
from __future__ import annotations

import sys
from typing import Dict, List, Optional, Set

from ...errors import TaskAssignorException
from ...jcollections import HashJMap
from ..priority_queue import JavaPriorityQueue
from .task_id import TaskId

__all__ = ["ProcessState"]

#: ``Double.MAX_VALUE``, the load of a process without members yet
_DOUBLE_MAX = sys.float_info.max


def _by_count(a: List[object], b: List[object]) -> int:
    """``Map.Entry.comparingByValue()`` on ``[member id, task count]`` entries (``Integer.compareTo``)."""
    x, y = a[1], b[1]
    assert isinstance(x, int) and isinstance(y, int)
    return (x > y) - (x < y)


class ProcessState:
    """``ProcessState(processId)`` (Kafka 4.3.1)."""

    def __init__(self, process_id: str):
        self.process_id = process_id
        self.capacity = 0
        self.load: float = _DOUBLE_MAX
        self.task_count = 0
        #: ``HashMap<String, Integer>`` member id -> tasks (active and standby)
        self.member_to_task_counts: HashJMap[str, int] = HashJMap()
        self.assigned_active_tasks: Dict[str, Set[TaskId]] = {}
        self.assigned_standby_tasks: Dict[str, Set[TaskId]] = {}
        self.assigned_tasks: Set[TaskId] = set()
        #: ``PriorityQueue<Map.Entry<String, Integer>>``; entries are ``[member id, task count]``
        self.members_by_load: Optional[JavaPriorityQueue[List[object]]] = None

    def add_task(self, member_id: str, task: TaskId, is_active: bool) -> int:
        """``addTask``: ``member_id`` gets ``task``; returns its new task count; the member heap is dropped."""
        count = self._add_task_internal(member_id, task, is_active)
        self.members_by_load = None
        return count

    def _add_task_internal(self, member_id: str, task: TaskId, is_active: bool) -> int:
        self.task_count += 1
        self.assigned_tasks.add(task)
        target = self.assigned_active_tasks if is_active else self.assigned_standby_tasks
        target.setdefault(member_id, set()).add(task)
        count = self.member_to_task_counts[member_id] + 1
        self.member_to_task_counts.put(member_id, count)
        self.compute_load()
        return count

    def add_task_to_least_loaded_member(self, task: TaskId, is_active: bool) -> int:
        """``addTaskToLeastLoadedMember``: the member with the fewest tasks gets ``task``; returns its new task
        count, or -1 when the process has no member."""
        counts = self.member_to_task_counts
        if len(counts) == 0:
            return -1
        if len(counts) == 1:
            return self._add_task_internal(counts.keys()[0], task, is_active)
        if self.members_by_load is None:
            self.members_by_load = JavaPriorityQueue(_by_count, ([m, c] for m, c in counts.items()))
        entry = self.members_by_load.poll()
        if entry is None:  # pragma: no cover - the heap holds every member
            raise TaskAssignorException(f"No members available to assign task {task}")
        member_id = entry[0]
        assert isinstance(member_id, str)
        count = self._add_task_internal(member_id, task, is_active)
        entry[1] = count
        self.members_by_load.add(entry)
        return count

    def compute_load(self) -> None:
        """``computeLoad``: tasks per member, ``-1`` without capacity."""
        self.load = -1.0 if self.capacity <= 0 else self.task_count / self.capacity

    def add_member(self, member_id: str) -> None:
        """``addMember``: a member with no task yet; one more unit of capacity."""
        self.member_to_task_counts.put(member_id, 0)
        self.capacity += 1
        self.compute_load()

    def has_capacity(self) -> bool:
        """``hasCapacity``: load below 1."""
        return self.load < 1.0

    def has_task(self, task: TaskId) -> bool:
        """``hasTask``: whether any member of the process holds ``task`` (active or standby)."""
        return task in self.assigned_tasks
