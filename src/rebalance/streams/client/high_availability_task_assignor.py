"""``org.apache.kafka.streams.processor.internals.assignment.HighAvailabilityTaskAssignor`` (Kafka 4.3.1; the same
file in 3.9.2): the client-side task assignor of KIP-441, which the group leader's ``StreamsPartitionAssignor`` runs
(``task.assignor.class`` unset) over the Kafka Streams clients of a classic-protocol group.

``assign(clients, allTaskIds, statefulTaskIds, rackAwareTaskAssignor, configs)`` (lines 52-115):

1. stateful active tasks round-robin over the clients in ``ProcessId`` order (lines 121-127), then balanced over
   the clients' capacity (``balanceTasksOverThreads``, lines 172-208: move a task from the more loaded client while
   that lowers the skew of ``assignedTaskLoad``, ``shouldMoveATask`` lines 210-230);
2. standby replicas (``num.standby.replicas`` > 0) by the standby assignor of ``StandbyTaskAssignorFactory``, then
   balanced the same way, each movement allowed by ``isAllowedTaskMovement`` (lines 144-170);
3. the clients caught up on each stateful task: lag ``Task.LATEST_OFFSET`` (running it), or ``acceptable.recovery.lag``
   = ``Long.MAX_VALUE``, or 0 <= lag <= ``acceptable.recovery.lag`` (lines 256-274); the clients by lag, then
   ``ProcessId`` (lines 276-286);
4. active task movements, then standby task movements, with one warm-up budget (``max.warmup.replicas``) --
   :mod:`rebalance.streams.client.task_movement`;
5. stateless tasks to the client with the least ``activeTaskLoad`` one by one (lines 232-254);
6. returns whether any movement was needed: then a probing rebalance follows after
   ``probing.rebalance.interval.ms`` (line 106).

Left out: KIP-925 rack-aware optimisation (``RackAwareTaskAssignor.optimizeActiveTasks`` / ``optimizeStandbyTasks``,
lines 137-141, 165-169, 250-253): it runs only when ``canEnableRackAwareAssignor()``, which is false for strategy
``none`` -- the only strategy this port accepts.  The assignor's ``log.info`` is left out.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import AbstractSet, Callable, Dict, FrozenSet, Iterable, List, Mapping, Set

from ...errors import KafkaError
from .assignment_configs import AssignmentConfigs
from .client_state import LATEST_OFFSET, ClientState
from .constrained_priority_set import ConstrainedPrioritySet
from .process_id import ProcessId
from .standby_task_assignor_factory import create_standby_task_assignor
from .task_id import TaskId
from .task_movement import WarmupBudget, assign_active_task_movements, assign_standby_task_movements

__all__ = ["HighAvailabilityTaskAssignor", "AssignmentResult", "LONG_MAX_VALUE"]

LONG_MAX_VALUE = 2**63 - 1
NO_SUCH_ELEMENT = "java.util.NoSuchElementException"
NULL_POINTER = "java.lang.NullPointerException"


@dataclass
class AssignmentResult:
    """What one ``assign`` call decided: the clients (their ``ClientState``\\ s now hold the assignment), the
    return value, and -- not reported by Kafka -- which standbys are warm-up replicas."""

    clients: Dict[ProcessId, ClientState]
    probing_rebalance_needed: bool
    warmups: Dict[ProcessId, Set[TaskId]] = field(default_factory=dict)

    def warmup_count(self) -> int:
        """Warm-up replicas handed out (at most ``max.warmup.replicas``)."""
        return sum(len(tasks) for tasks in self.warmups.values())


def _balance_tasks_over_threads(client_states: Mapping[ProcessId, ClientState],
                                current_assignment: Callable[[ClientState], List[TaskId]],
                                unassign: Callable[[ClientState, TaskId], None],
                                assign: Callable[[ClientState, TaskId], None],
                                movement_allowed: Callable[[ClientState, ClientState], bool]) -> None:
    """``balanceTasksOverThreads`` (lines 172-208)."""
    keep_balancing = True
    while keep_balancing:
        keep_balancing = False
        for source_client, source in client_states.items():
            for destination_client, destination in client_states.items():
                if source_client == destination_client:
                    continue
                source_tasks = iter(current_assignment(source))  # new TreeSet<>(...): a sorted snapshot
                while _should_move_a_task(source, destination):
                    task_to_move = next(source_tasks, None)
                    if task_to_move is None:
                        break
                    if not destination.has_assigned_task(task_to_move) and movement_allowed(source, destination):
                        unassign(source, task_to_move)
                        assign(destination, task_to_move)
                        keep_balancing = True


def _should_move_a_task(source: ClientState, destination: ClientState) -> bool:
    """``shouldMoveATask`` (lines 210-230), in Java doubles."""
    skew = source.assigned_task_load() - destination.assigned_task_load()
    if skew <= 0:
        return False
    at_destination = (destination.assigned_task_count() + 1.0) / destination.capacity
    at_source = (source.assigned_task_count() - 1.0) / source.capacity
    proposed_skew = at_source - at_destination
    if proposed_skew < 0:
        return False
    return proposed_skew < skew


def _unassign_active(client: ClientState, task: TaskId) -> None:
    client.unassign_active(task)


def _assign_active(client: ClientState, task: TaskId) -> None:
    client.assign_active(task)


def _unassign_standby(client: ClientState, task: TaskId) -> None:
    client.unassign_standby(task)


def _assign_standby(client: ClientState, task: TaskId) -> None:
    client.assign_standby(task)


def _always(source: ClientState, destination: ClientState) -> bool:
    return True


class HighAvailabilityTaskAssignor:
    """``HighAvailabilityTaskAssignor`` (a ``LegacyTaskAssignor``): :meth:`assign` mutates the clients.

    Defined in chapter 15, *Kafka Streams: who runs which task*."""

    NAME = "high_availability"

    def name(self) -> str:
        """The registry name of this assignor (:func:`rebalance.streams.client.legacy_task_assignor.assignor_for`)."""
        return self.NAME

    def assign(self, clients: Mapping[ProcessId, ClientState], all_task_ids: AbstractSet[TaskId],
               stateful_task_ids: AbstractSet[TaskId], configs: AssignmentConfigs) -> bool:
        """``assign(clients, allTaskIds, statefulTaskIds, rackAwareTaskAssignor, configs)`` with rack awareness
        disabled: assigns in place and returns whether a probing rebalance is needed."""
        return self.assign_detailed(clients, all_task_ids, stateful_task_ids, configs).probing_rebalance_needed

    def assign_detailed(self, clients: Mapping[ProcessId, ClientState], all_task_ids: AbstractSet[TaskId],
                        stateful_task_ids: AbstractSet[TaskId], configs: AssignmentConfigs) -> AssignmentResult:
        """:meth:`assign`, also returning which standbys are warm-ups."""
        stateful_tasks = sorted(stateful_task_ids)  # new TreeSet<>(statefulTaskIds)
        client_states = {pid: clients[pid] for pid in sorted(clients)}  # new TreeMap<>(clients)

        self._assign_active_stateful_tasks(client_states, stateful_tasks)
        self._assign_standby_replica_tasks(client_states, all_task_ids, stateful_tasks, configs)

        remaining_warmup_replicas = WarmupBudget(configs.max_warmup_replicas)
        tasks_to_caught_up_clients = _tasks_to_caught_up_clients(stateful_tasks, client_states,
                                                                 configs.acceptable_recovery_lag)
        tasks_to_client_by_lag = _tasks_to_client_by_lag(stateful_tasks, client_states)
        warmups: Dict[ProcessId, Set[TaskId]] = {}
        needed_active = assign_active_task_movements(tasks_to_caught_up_clients, tasks_to_client_by_lag,
                                                     client_states, warmups, remaining_warmup_replicas)
        warmup_log: Dict[ProcessId, Set[TaskId]] = {pid: set(tasks) for pid, tasks in warmups.items()}
        needed_standby = assign_standby_task_movements(tasks_to_caught_up_clients, tasks_to_client_by_lag,
                                                       client_states, remaining_warmup_replicas, warmups, warmup_log)
        stateless = sorted(set(all_task_ids) - set(stateful_tasks))  # diff(TreeSet::new, allTaskIds, statefulTasks)
        _assign_stateless_active_tasks(client_states, stateless)
        return AssignmentResult(client_states, needed_active + needed_standby > 0,
                                {pid: tasks for pid, tasks in warmup_log.items() if tasks})

    @staticmethod
    def _assign_active_stateful_tasks(client_states: Mapping[ProcessId, ClientState],
                                      stateful_tasks: List[TaskId]) -> None:
        """``assignActiveStatefulTasks`` (lines 117-142): round robin, then balance."""
        states = list(client_states.values())
        for i, task in enumerate(stateful_tasks):
            if not states:
                raise KafkaError(NO_SUCH_ELEMENT, "")  # clientStates.values().iterator().next()
            states[i % len(states)].assign_active(task)
        _balance_tasks_over_threads(client_states, ClientState.active_tasks, _unassign_active, _assign_active,
                                    _always)

    @staticmethod
    def _assign_standby_replica_tasks(client_states: Mapping[ProcessId, ClientState], all_task_ids: AbstractSet[TaskId],
                                      stateful_tasks: List[TaskId], configs: AssignmentConfigs) -> None:
        """``assignStandbyReplicaTasks`` (lines 144-170)."""
        if configs.num_standby_replicas == 0:
            return
        standby_task_assignor = create_standby_task_assignor(configs)
        standby_task_assignor.assign(client_states, all_task_ids, stateful_tasks, configs)
        _balance_tasks_over_threads(client_states, ClientState.standby_tasks, _unassign_standby, _assign_standby,
                                    standby_task_assignor.is_allowed_task_movement)


def _assign_stateless_active_tasks(client_states: Mapping[ProcessId, ClientState], stateless_tasks: Iterable[TaskId]
                                   ) -> None:
    """``assignStatelessActiveTasks`` (lines 232-254): each task to the least ``activeTaskLoad`` client."""
    by_active_load = ConstrainedPrioritySet(lambda client, task: True,
                                            lambda client: client_states[client].active_task_load())
    by_active_load.offer_all(client_states)
    for task in stateless_tasks:
        client = by_active_load.poll(task)
        if client is None:
            raise KafkaError(NULL_POINTER, "")  # clientStates.get(null) on a TreeMap
        client_states[client].assign_active(task)
        by_active_load.offer(client)


def _tasks_to_caught_up_clients(stateful_tasks: List[TaskId], client_states: Mapping[ProcessId, ClientState],
                                acceptable_recovery_lag: int) -> Dict[TaskId, FrozenSet[ProcessId]]:
    """``tasksToCaughtUpClients`` (lines 256-274)."""
    result: Dict[TaskId, FrozenSet[ProcessId]] = {}
    for task in stateful_tasks:
        caught_up = set()
        for client, state in client_states.items():
            lag = state.lag_for(task)
            if (lag == LATEST_OFFSET or acceptable_recovery_lag == LONG_MAX_VALUE
                    or 0 <= lag <= acceptable_recovery_lag):
                caught_up.add(client)
        result[task] = frozenset(caught_up)
    return result


def _tasks_to_client_by_lag(stateful_tasks: List[TaskId], client_states: Mapping[ProcessId, ClientState]
                            ) -> Dict[TaskId, List[ProcessId]]:
    """``tasksToClientByLag`` (lines 276-286): clients by (lag, ``ProcessId``)."""
    return {task: sorted(client_states, key=lambda c: (client_states[c].lag_for(task), c)) for task in stateful_tasks}
