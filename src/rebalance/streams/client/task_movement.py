"""``org.apache.kafka.streams.processor.internals.assignment.TaskMovement`` (Kafka 4.3.1): KIP-441's movements of
tasks that landed on a client that is not caught up while a more caught-up client exists.

* a movement is scheduled for a task on a client when the client is not caught up on it and the most caught-up
  client's lag is smaller (``taskIsNotCaughtUpOnClientAndOtherMoreCaughtUpClientsExist``, lines 56-68); movements
  are polled from a ``PriorityQueue`` by (number of caught-up clients, task) (lines 90-92);
* an active movement (``assignActiveTaskMovements``, lines 77-124) tries, in order: swap with the least loaded
  caught-up client holding a standby of the task; move it to the least loaded caught-up client; move it to the
  most caught-up client (``tasksToClientByLag`` order, up to the destination).  The planned destination keeps a
  *warm-up* replica (a standby) while ``max.warmup.replicas`` allows (``moveActiveAndTryToWarmUp``, lines 260-276);
* a standby movement (``assignStandbyTaskMovements``, lines 126-190; warm-ups are not moved) goes to the least
  loaded caught-up client without a copy, else the most caught-up one; the destination keeps its copy as a warm-up
  while the budget lasts (``moveStandbyAndTryToWarmUp``, lines 278-291);
* the budget is one counter for both (``AtomicInteger remainingWarmupReplicas``), decremented at every attempt,
  also below 0 (``getAndDecrement() > 0``).

Each function returns how many movements were needed: more than 0 means a probing rebalance will follow.
Kafka does not report which standbys are warm-ups; ``warmup_log`` (optional) collects them for the book.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import AbstractSet, Callable, Dict, List, Mapping, MutableMapping, Optional, Set, Tuple

from ...errors import KafkaError
from .client_state import ILLEGAL_STATE, ClientState
from .constrained_priority_set import ConstrainedPrioritySet
from ..priority_queue import JavaPriorityQueue
from .process_id import ProcessId
from .task_id import TaskId

__all__ = ["TaskMovement", "WarmupBudget", "assign_active_task_movements", "assign_standby_task_movements"]


class WarmupBudget:
    """``AtomicInteger remainingWarmupReplicas`` (starts at ``max.warmup.replicas``)."""

    __slots__ = ("value",)

    def __init__(self, value: int):
        self.value = value

    def get_and_decrement(self) -> int:
        """``getAndDecrement()``."""
        value = self.value
        self.value -= 1
        return value


@dataclass(frozen=True, eq=False)
class TaskMovement:
    """One scheduled movement: ``task`` away from ``destination`` (the client it was assigned to), with the clients
    caught up on it."""

    task: TaskId
    destination: ProcessId
    caught_up_clients: AbstractSet[ProcessId]

    def num_caught_up_clients(self) -> int:
        """``numCaughtUpClients()``."""
        return len(self.caught_up_clients)


def _compare_movements(a: TaskMovement, b: TaskMovement) -> int:
    """``Comparator.comparing(TaskMovement::numCaughtUpClients).thenComparing(TaskMovement::task)``."""
    ka = (a.num_caught_up_clients(), a.task)
    kb = (b.num_caught_up_clients(), b.task)
    return (ka > kb) - (ka < kb)


def _caught_up(task: TaskId, client: ProcessId, tasks_to_caught_up_clients: Mapping[TaskId, AbstractSet[ProcessId]]
               ) -> bool:
    return client in tasks_to_caught_up_clients[task]


def _not_caught_up_and_more_caught_up_exists(task: TaskId, client: ProcessId,
                                             client_states: Mapping[ProcessId, ClientState],
                                             tasks_to_caught_up_clients: Mapping[TaskId, AbstractSet[ProcessId]],
                                             tasks_to_client_by_lag: Mapping[TaskId, List[ProcessId]]) -> bool:
    task_clients = tasks_to_client_by_lag[task]
    if _caught_up(task, client, tasks_to_caught_up_clients):
        return False
    most_caught_up_lag = client_states[task_clients[0]].lag_for(task)
    client_lag = client_states[client].lag_for(task)
    return most_caught_up_lag < client_lag


def _most_caught_up_eligible_client(tasks_to_client_by_lag: Mapping[TaskId, List[ProcessId]], task: TaskId,
                                    destination: ProcessId,
                                    constraint: Callable[[ProcessId], bool] = lambda client: True
                                    ) -> Optional[ProcessId]:
    """``mostCaughtUpEligibleClient`` (lines 302-320): by lag, stopping at the destination."""
    for client in tasks_to_client_by_lag[task]:
        if client == destination:
            break
        if constraint(client):
            return client
    return None


def _swap_standby_and_active(task: TaskId, source: ClientState, destination: ClientState) -> None:
    source.unassign_standby(task)
    source.assign_active(task)
    destination.unassign_active(task)
    destination.assign_standby(task)


def _empty_queues(tasks_to_caught_up_clients: Mapping[TaskId, AbstractSet[ProcessId]],
                  client_states: Mapping[ProcessId, ClientState]
                  ) -> Tuple[ConstrainedPrioritySet, JavaPriorityQueue[TaskMovement]]:
    """What both ``assign*TaskMovements`` start with (Kafka writes it in each, lines 85-92 and 134-141): the
    ``ConstrainedPrioritySet`` of caught-up clients by assigned task load and the empty ``PriorityQueue`` of
    movements."""
    caught_up_clients_by_task_load = ConstrainedPrioritySet(
        lambda client, task: _caught_up(task, client, tasks_to_caught_up_clients),
        lambda client: client_states[client].assigned_task_load())
    task_movements: JavaPriorityQueue[TaskMovement] = JavaPriorityQueue(_compare_movements)
    return caught_up_clients_by_task_load, task_movements


def assign_active_task_movements(tasks_to_caught_up_clients: Mapping[TaskId, AbstractSet[ProcessId]],
                                 tasks_to_client_by_lag: Mapping[TaskId, List[ProcessId]],
                                 client_states: Mapping[ProcessId, ClientState],
                                 warmups: MutableMapping[ProcessId, Set[TaskId]],
                                 remaining_warmup_replicas: WarmupBudget) -> int:
    """``TaskMovement.assignActiveTaskMovements``; ``warmups`` receives the warm-ups it leaves (client -> tasks)."""
    caught_up_clients_by_task_load, task_movements = _empty_queues(tasks_to_caught_up_clients, client_states)
    for client, state in client_states.items():
        for task in state.active_tasks():
            if _not_caught_up_and_more_caught_up_exists(task, client, client_states, tasks_to_caught_up_clients,
                                                        tasks_to_client_by_lag):
                task_movements.offer(TaskMovement(task, client, tasks_to_caught_up_clients[task]))
        caught_up_clients_by_task_load.offer(client)

    movements_needed = len(task_movements)

    def move_active_and_try_to_warm_up(task: TaskId, source: ClientState, destination: ClientState,
                                       destination_warmups: Set[TaskId]) -> None:
        source.assign_active(task)
        destination.unassign_active(task)
        if remaining_warmup_replicas.get_and_decrement() > 0:
            destination.assign_standby(task)
            destination_warmups.add(task)

    while task_movements:
        movement = task_movements.poll()
        assert movement is not None
        task, destination = movement.task, movement.destination
        # 1. a caught-up client with a standby of the task: swap
        source = caught_up_clients_by_task_load.poll(task, lambda c: client_states[c].has_standby_task(task))
        if source is not None:
            _swap_standby_and_active(task, client_states[source], client_states[destination])
            caught_up_clients_by_task_load.offer_all([source, destination])
            continue
        # 2. any caught-up client, leaving a warm-up on the destination
        source = caught_up_clients_by_task_load.poll(task)
        if source is not None:
            move_active_and_try_to_warm_up(task, client_states[source], client_states[destination],
                                           warmups.setdefault(destination, set()))
            caught_up_clients_by_task_load.offer_all([source, destination])
            continue
        # 3. the most caught-up client
        source = _most_caught_up_eligible_client(tasks_to_client_by_lag, task, destination)
        if source is not None:
            if client_states[source].has_standby_task(task):
                _swap_standby_and_active(task, client_states[source], client_states[destination])
            else:
                move_active_and_try_to_warm_up(task, client_states[source], client_states[destination],
                                               warmups.setdefault(destination, set()))
            caught_up_clients_by_task_load.offer_all([source, destination])
            continue
        raise KafkaError(ILLEGAL_STATE, "Tried to move task to more caught-up client as scheduled before but none exist")

    return movements_needed


def assign_standby_task_movements(tasks_to_caught_up_clients: Mapping[TaskId, AbstractSet[ProcessId]],
                                  tasks_to_client_by_lag: Mapping[TaskId, List[ProcessId]],
                                  client_states: Mapping[ProcessId, ClientState],
                                  remaining_warmup_replicas: WarmupBudget,
                                  warmups: Mapping[ProcessId, Set[TaskId]],
                                  warmup_log: Optional[Dict[ProcessId, Set[TaskId]]] = None) -> int:
    """``TaskMovement.assignStandbyTaskMovements``; ``warmup_log`` receives the standbys it leaves as warm-ups."""
    caught_up_clients_by_task_load, task_movements = _empty_queues(tasks_to_caught_up_clients, client_states)
    for destination, state in client_states.items():
        for task in state.standby_tasks():
            if task in warmups.get(destination, ()):
                continue  # a warm-up: not moved
            if _not_caught_up_and_more_caught_up_exists(task, destination, client_states, tasks_to_caught_up_clients,
                                                        tasks_to_client_by_lag):
                task_movements.offer(TaskMovement(task, destination, tasks_to_caught_up_clients[task]))
        caught_up_clients_by_task_load.offer(destination)

    movements_needed = 0
    while task_movements:
        movement = task_movements.poll()
        assert movement is not None
        task = movement.task

        def eligible(client_id: ProcessId) -> bool:
            return not client_states[client_id].has_assigned_task(task)

        source = caught_up_clients_by_task_load.poll(task, eligible)
        if source is None:
            source = _most_caught_up_eligible_client(tasks_to_client_by_lag, task, movement.destination, eligible)
        if source is None:
            continue  # no caught-up client without a copy: nowhere to move it
        # moveStandbyAndTryToWarmUp
        client_states[source].assign_standby(task)
        if remaining_warmup_replicas.get_and_decrement() > 0:
            if warmup_log is not None:
                warmup_log.setdefault(movement.destination, set()).add(task)
        else:
            client_states[movement.destination].unassign_standby(task)
        caught_up_clients_by_task_load.offer_all([source, movement.destination])
        movements_needed += 1
    return movements_needed
