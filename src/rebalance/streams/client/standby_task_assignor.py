"""``org.apache.kafka.streams.processor.internals.assignment.StandbyTaskAssignor`` (Kafka 4.3.1): the interface of the
standby placement the high-availability assignor delegates to (``assign`` over the clients, the tasks and the
configs; ``isAllowedTaskMovement(source, destination)``, line 27, which ``balanceTasksOverThreads`` asks before
moving a standby; by default every movement is allowed).

The clients map passed is the assignor's ``TreeMap<ProcessId, ClientState>``: a ``dict`` in ``ProcessId`` order.
"""
from __future__ import annotations

from typing import AbstractSet, Mapping, Protocol

from .assignment_configs import AssignmentConfigs
from .client_state import ClientState
from .process_id import ProcessId
from .task_id import TaskId

__all__ = ["StandbyTaskAssignor"]


class StandbyTaskAssignor(Protocol):
    """``StandbyTaskAssignor``: ``assign(clients, allTaskIds, statefulTaskIds, configs)`` and
    ``isAllowedTaskMovement(source, destination)``."""

    def assign(self, clients: Mapping[ProcessId, ClientState], all_task_ids: AbstractSet[TaskId],
               stateful_task_ids: "list[TaskId]", configs: AssignmentConfigs) -> bool: ...

    def is_allowed_task_movement(self, source: ClientState, destination: ClientState) -> bool: ...
