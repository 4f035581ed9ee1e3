"""``org.apache.kafka.streams.processor.internals.assignment.DefaultStandbyTaskAssignor`` (Kafka 4.3.1): without client
tags, each stateful task's ``num.standby.replicas`` standbys go to the least loaded clients that do not already
hold the task (``assign``, lines 41-65: all clients offered in ``ProcessId`` order, then the tasks in ``TaskId``
order).  It never asks for a probing rebalance (returns false).
"""
from __future__ import annotations

from typing import AbstractSet, List, Mapping

from .assignment_configs import AssignmentConfigs
from .client_state import ClientState
from .process_id import ProcessId
from .standby_task_assignment_utils import (compute_tasks_to_remaining_standbys,
                                            create_least_loaded_priority_set_constrained_by_assigned_task,
                                            poll_client_and_maybe_assign_and_update_remaining_standby_tasks)
from .task_id import TaskId

__all__ = ["DefaultStandbyTaskAssignor"]


class DefaultStandbyTaskAssignor:
    """Standbys to the least loaded clients."""

    def assign(self, clients: Mapping[ProcessId, ClientState], all_task_ids: AbstractSet[TaskId],
               stateful_task_ids: List[TaskId], configs: AssignmentConfigs) -> bool:
        """``assign(clients, allTaskIds, statefulTaskIds, configs)``."""
        num_standby_replicas = configs.num_standby_replicas
        tasks_to_remaining_standbys = compute_tasks_to_remaining_standbys(num_standby_replicas, stateful_task_ids)
        standby_task_clients_by_task_load = create_least_loaded_priority_set_constrained_by_assigned_task(clients)
        standby_task_clients_by_task_load.offer_all(clients)
        for task in stateful_task_ids:
            poll_client_and_maybe_assign_and_update_remaining_standby_tasks(
                clients, tasks_to_remaining_standbys, standby_task_clients_by_task_load, task)
        return False

    def is_allowed_task_movement(self, source: ClientState, destination: ClientState) -> bool:
        """The interface's default: every movement is allowed."""
        return True
