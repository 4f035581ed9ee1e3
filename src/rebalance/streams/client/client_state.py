"""``org.apache.kafka.streams.processor.internals.assignment.ClientState`` (Kafka 4.3.1): one Kafka Streams client as
the task assignor sees it -- its capacity (stream threads), its previous tasks, its lag on every stateful task, its
client tags, and the active and standby tasks being assigned to it.

Built as Kafka's ``ClientState(previousActiveTasks, previousStandbyTasks, taskLagTotals, clientTags, capacity,
processId)`` (lines 108-121) builds it.  The rules the assignors lean on:

* ``assignActive``/``assignStandby`` refuse a task the client already has, active or standby (``assertNotAssigned``,
  lines 562-566: ``IllegalArgumentException``); ``unassignActive``/``unassignStandby`` refuse one it lacks;
* ``activeTaskLoad`` = active tasks / capacity (line 167), ``assignedTaskLoad`` = (active + standby) / capacity
  (line 296), as Java doubles;
* ``lagFor`` (line 416) throws ``IllegalStateException("Tried to lookup lag for unknown task ...")`` for a task
  without a lag: every stateful task needs one;
* the assigned task sets are ``TreeSet``\\ s (lines 62-63): :meth:`active_tasks` and :meth:`standby_tasks` return them
  sorted.

The previous active and standby tasks are kept (Kafka keeps them) but the high-availability assignor never reads
them: its stickiness comes from the lags alone (a previous owner has lag 0, or ``Task.LATEST_OFFSET`` = -2 while
the task is running on it).
"""
from __future__ import annotations

from typing import Dict, Iterable, List, Mapping, Set

from ...errors import KafkaError
from .process_id import ProcessId
from .task_id import TaskId

__all__ = ["ClientState", "LATEST_OFFSET", "UNKNOWN_OFFSET_SUM"]

#: ``Task.LATEST_OFFSET``: the lag (and offset sum) of a task running as active on the client
LATEST_OFFSET = -2
#: ``SubscriptionInfo.UNKNOWN_OFFSET_SUM``
UNKNOWN_OFFSET_SUM = -3

ILLEGAL_ARGUMENT = "java.lang.IllegalArgumentException"


def _long(value: int) -> int:
    """Java ``long`` arithmetic wraps (an end offset sum minus a negative offset sum may overflow)."""
    value &= 0xFFFFFFFFFFFFFFFF
    return value - (1 << 64) if value & (1 << 63) else value
ILLEGAL_STATE = "java.lang.IllegalStateException"


class ClientState:
    """A client's capacity, lags and tags, and the tasks assigned to it so far."""

    __slots__ = ("process_id", "capacity", "client_tags", "previous_active_tasks", "previous_standby_tasks",
                 "task_lag_totals", "_active", "_standby")

    def __init__(self, previous_active_tasks: Iterable[TaskId], previous_standby_tasks: Iterable[TaskId],
                 task_lag_totals: Mapping[TaskId, int], client_tags: Mapping[str, str], capacity: int,
                 process_id: ProcessId):
        self.previous_active_tasks: List[TaskId] = sorted(set(previous_active_tasks))
        self.previous_standby_tasks: List[TaskId] = sorted(set(previous_standby_tasks))
        self.task_lag_totals: Dict[TaskId, int] = dict(task_lag_totals)
        self.client_tags: Dict[str, str] = dict(client_tags)
        self.capacity = capacity
        self.process_id = process_id
        self._active: Set[TaskId] = set()
        self._standby: Set[TaskId] = set()

    @classmethod
    def from_offset_sums(cls, process_id: ProcessId, capacity: int, client_tags: Mapping[str, str],
                         task_offset_sums: Mapping[TaskId, int], all_task_end_offset_sums: Mapping[TaskId, int]
                         ) -> "ClientState":
        """A client as ``StreamsPartitionAssignor`` builds it from a member's subscription: ``ClientState(processId,
        clientTags)`` with ``capacity`` threads, ``addPreviousTasksAndOffsetSums`` (lines 351-354),
        ``initializePrevTasks`` without owned partitions (``initializeRemainingPrevTasksFromTaskOffsetSums``, lines
        543-560: offset sum ``Task.LATEST_OFFSET`` = previously active, any other = previously standby) and
        ``computeTaskLags`` (lines 382-407): for each task of the end offset sums, lag = end - offset sum (offset
        sum 0 when the client has none), ``LATEST_OFFSET`` and ``UNKNOWN_OFFSET_SUM`` kept as they are, and the end
        offset sum itself when the client's offset sum is past it (a corrupted task: restore from scratch)."""
        active = [t for t, offset in task_offset_sums.items() if offset == LATEST_OFFSET]
        standby = [t for t, offset in task_offset_sums.items() if offset != LATEST_OFFSET]
        lags: Dict[TaskId, int] = {}
        for task, end_offset_sum in sorted(all_task_end_offset_sums.items()):
            offset_sum = task_offset_sums.get(task, 0)
            if offset_sum == LATEST_OFFSET:
                lags[task] = LATEST_OFFSET
            elif offset_sum == UNKNOWN_OFFSET_SUM:
                lags[task] = UNKNOWN_OFFSET_SUM
            elif end_offset_sum < offset_sum:
                lags[task] = end_offset_sum
            else:
                lags[task] = _long(end_offset_sum - offset_sum)
        return cls(active, standby, lags, client_tags, capacity, process_id)

    # -- the assignment ---------------------------------------------------------------------------

    def active_tasks(self) -> List[TaskId]:
        """``activeTasks()``: the assigned active tasks in ``TreeSet`` order."""
        return sorted(self._active)

    def standby_tasks(self) -> List[TaskId]:
        """``standbyTasks()``: the assigned standby tasks (warm-ups included) in ``TreeSet`` order."""
        return sorted(self._standby)

    def active_task_count(self) -> int:
        """``activeTaskCount()``."""
        return len(self._active)

    def standby_task_count(self) -> int:
        """``standbyTaskCount()``."""
        return len(self._standby)

    def assigned_task_count(self) -> int:
        """``assignedTaskCount()``: active + standby."""
        return len(self._active) + len(self._standby)

    def active_task_load(self) -> float:
        """``activeTaskLoad()``: ``(double) activeTaskCount() / capacity``."""
        return len(self._active) / self.capacity

    def assigned_task_load(self) -> float:
        """``assignedTaskLoad()``: ``(double) assignedTaskCount() / capacity``."""
        return (len(self._active) + len(self._standby)) / self.capacity

    def has_active_task(self, task: TaskId) -> bool:
        """``hasActiveTask(task)``."""
        return task in self._active

    def has_standby_task(self, task: TaskId) -> bool:
        """``hasStandbyTask(task)``."""
        return task in self._standby

    def has_assigned_task(self, task: TaskId) -> bool:
        """``hasAssignedTask(task)``: active or standby."""
        return task in self._active or task in self._standby

    def _assert_not_assigned(self, task: TaskId) -> None:
        if task in self._standby or task in self._active:
            raise KafkaError(ILLEGAL_ARGUMENT, f"Tried to assign task {task}, but it is already assigned: {self}")

    def _unassign(self, tasks: Set[TaskId], task: TaskId, kind: str) -> None:
        """The body of ``unassignActive`` / ``unassignStandby`` (Kafka writes it in each, lines 236-242 and
        265-271): remove ``task`` from ``tasks``, or throw ``IllegalArgumentException`` if it is not there."""
        if task not in tasks:
            raise KafkaError(ILLEGAL_ARGUMENT, f"Tried to unassign {kind} task {task}, but it is not currently "
                                               f"assigned: {self}")
        tasks.remove(task)

    def assign_active(self, task: TaskId) -> None:
        """``assignActive(task)``."""
        self._assert_not_assigned(task)
        self._active.add(task)

    def unassign_active(self, task: TaskId) -> None:
        """``unassignActive(task)``."""
        self._unassign(self._active, task, "active")

    def assign_standby(self, task: TaskId) -> None:
        """``assignStandby(task)``."""
        self._assert_not_assigned(task)
        self._standby.add(task)

    def unassign_standby(self, task: TaskId) -> None:
        """``unassignStandby(task)``."""
        self._unassign(self._standby, task, "standby")

    # -- what the client reported -----------------------------------------------------------------

    def lag_for(self, task: TaskId) -> int:
        """``lagFor(task)``: the client's lag on a stateful task."""
        lag = self.task_lag_totals.get(task)
        if lag is None:
            raise KafkaError(ILLEGAL_STATE, f"Tried to lookup lag for unknown task {task}")
        return lag

    def __repr__(self) -> str:
        def show(tasks: Iterable[TaskId]) -> str:
            return "[" + ", ".join(map(str, tasks)) + "]"

        return (f"[activeTasks: ({show(self.active_tasks())}) standbyTasks: ({show(self.standby_tasks())}) "
                f"capacity: {self.capacity} assigned: {self.assigned_task_count()}]")
