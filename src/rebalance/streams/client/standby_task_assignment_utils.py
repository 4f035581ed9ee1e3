"""``org.apache.kafka.streams.processor.internals.assignment.StandbyTaskAssignmentUtils`` (Kafka 4.3.1): what the two
standby assignors share.

* ``createLeastLoadedPrioritySetConstrainedByAssignedTask`` (line 33): clients by ``assignedTaskLoad``, a client
  valid for a task it does not already have (active or standby);
* ``pollClientAndMaybeAssignAndUpdateRemainingStandbyTasks`` (lines 38-63): poll the least loaded valid client,
  give it a standby, offer it back, until the task's remaining standbys are 0 or no client is valid (Kafka then
  logs a warning: not enough capacity);
* ``computeTasksToRemainingStandbys`` (line 65): every stateful task -> ``num.standby.replicas``.
"""
from __future__ import annotations

from typing import Dict, Iterable, Mapping, MutableMapping

from .client_state import ClientState
from .constrained_priority_set import ConstrainedPrioritySet
from .process_id import ProcessId
from .task_id import TaskId

__all__ = ["compute_tasks_to_remaining_standbys", "create_least_loaded_priority_set_constrained_by_assigned_task",
           "poll_client_and_maybe_assign_and_update_remaining_standby_tasks"]


def create_least_loaded_priority_set_constrained_by_assigned_task(clients: Mapping[ProcessId, ClientState]
                                                                  ) -> ConstrainedPrioritySet:
    """``createLeastLoadedPrioritySetConstrainedByAssignedTask(clients)``."""
    return ConstrainedPrioritySet(lambda client, task: not clients[client].has_assigned_task(task),
                                  lambda client: clients[client].assigned_task_load())


def poll_client_and_maybe_assign_and_update_remaining_standby_tasks(
        clients: Mapping[ProcessId, ClientState], tasks_to_remaining_standbys: MutableMapping[TaskId, int],
        standby_task_clients_by_task_load: ConstrainedPrioritySet, active_task_id: TaskId) -> None:
    """``pollClientAndMaybeAssignAndUpdateRemainingStandbyTasks`` (the warning it logs is left out)."""
    num_remaining_standbys = tasks_to_remaining_standbys[active_task_id]
    while num_remaining_standbys > 0:
        client = standby_task_clients_by_task_load.poll(active_task_id)
        if client is None:
            break
        clients[client].assign_standby(active_task_id)
        num_remaining_standbys -= 1
        standby_task_clients_by_task_load.offer(client)
        tasks_to_remaining_standbys[active_task_id] = num_remaining_standbys


def compute_tasks_to_remaining_standbys(num_standby_replicas: int, stateful_task_ids: Iterable[TaskId]
                                        ) -> Dict[TaskId, int]:
    """``computeTasksToRemainingStandbys``: task -> standbys still to place."""
    return {task: num_standby_replicas for task in stateful_task_ids}
