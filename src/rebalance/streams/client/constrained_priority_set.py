"""``org.apache.kafka.streams.processor.internals.assignment.ConstrainedPrioritySet`` (Kafka 4.3.1): the clients in a
``PriorityQueue`` by a weight (a task load) then ``ProcessId``, polled for the least loaded one that satisfies a
constraint.

* the queue's comparator is ``Comparator.comparing(weight).thenComparing(clientId -> clientId)`` (line 42),
  evaluated when the JDK compares: the weights are the clients' *current* loads, which change while they are in
  the queue, so the queue is emulated array for array (:class:`~rebalance.streams.priority_queue.JavaPriorityQueue`);
* ``poll(task, extraConstraint)`` (lines 48-64) removes clients until one satisfies ``constraint(client, task) &&
  extraConstraint(client)``; the ones it skipped are kept in a ``new HashSet<>()`` and offered back in that
  set's iteration order (bucket of ``UUID.hashCode``, then insertion) -- that order decides ties later on;
* ``offer(client)`` (lines 79-86) first removes the client if it is already queued, so that it is re-sorted by its
  new load.
"""
from __future__ import annotations

from typing import Callable, Iterable, Optional, Set

from ...jcollections import HashJSet
from ..priority_queue import JavaPriorityQueue
from .process_id import ProcessId
from .task_id import TaskId

__all__ = ["ConstrainedPrioritySet"]


def _process_id_hash(client: ProcessId) -> int:
    return client.java_hash_code()


class ConstrainedPrioritySet:
    """The least loaded valid client first; ties by ``ProcessId`` (signed UUID order)."""

    __slots__ = ("_constraint", "_clients_by_task_load", "_unique_clients")

    def __init__(self, constraint: Callable[[ProcessId, TaskId], bool], weight: Callable[[ProcessId], float]):
        def compare(a: ProcessId, b: ProcessId) -> int:
            wa, wb = weight(a), weight(b)  # Double.compareTo on finite loads (capacity >= 1)
            if wa != wb:
                return -1 if wa < wb else 1
            return a.compare_to(b)

        self._constraint = constraint
        self._clients_by_task_load: JavaPriorityQueue[ProcessId] = JavaPriorityQueue(compare)
        self._unique_clients: Set[ProcessId] = set()

    def poll(self, task: TaskId, extra_constraint: Callable[[ProcessId], bool] = lambda client: True
             ) -> Optional[ProcessId]:
        """``poll(task, extraConstraint)`` / ``poll(task)``: the least loaded client satisfying both constraints,
        or None."""
        invalid_polled_clients: HashJSet[ProcessId] = HashJSet(_process_id_hash)
        while self._clients_by_task_load:
            candidate = self._poll_next_client()
            if self._constraint(candidate, task) and extra_constraint(candidate):
                self.offer_all(invalid_polled_clients)
                return candidate
            invalid_polled_clients.add(candidate)
        self.offer_all(invalid_polled_clients)
        return None

    def offer_all(self, clients: Iterable[ProcessId]) -> None:
        """``offerAll(clients)``, in the collection's iteration order."""
        for client in list(clients):
            self.offer(client)

    def offer(self, client: ProcessId) -> None:
        """``offer(client)``: (re-)queue the client by its current weight."""
        if client in self._unique_clients:
            self._clients_by_task_load.remove(client)
        else:
            self._unique_clients.add(client)
        self._clients_by_task_load.offer(client)

    def _poll_next_client(self) -> ProcessId:
        client = self._clients_by_task_load.poll()
        assert client is not None  # the caller checked the queue is not empty (Kafka: remove())
        self._unique_clients.discard(client)
        return client
