"""Kafka Connect's eager (stop-the-world) assignor.

Mirrors ``org.apache.kafka.connect.runtime.distributed.EagerAssignor`` (Kafka 4.3.1, unchanged since
the herder's first distributed mode): the leader ignores what the workers are running, sorts the
connectors and the workers, and deals the connectors round-robin over the sorted workers; it then deals
every connector's tasks (connector by connector, task numbers ascending), *continuing the same circular
iterator* over the workers.

Dealing connectors and tasks in two passes matters: if each connector were followed by its tasks, then
with one-task connectors on an even number of workers the connectors would always land on the even
workers and the (heavier) tasks on the odd ones.

Under the eager protocol every worker stops everything it runs before joining
(``WorkerCoordinator.onJoinPrepare``), so each rebalance restarts the whole cluster.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Mapping, Optional, Sequence, Tuple

from ..validation import require
from .model import ClusterAssignment, ConnectorTaskId, as_connectors_and_tasks, connector_key

if TYPE_CHECKING:
    from .incremental import MemberAssignments
    from .leader import CoordinatorState

CompleteAssignment = Dict[str, Tuple[List[str], List[ConnectorTaskId]]]


class EagerAssignor:
    """``EagerAssignor`` (Kafka 4.3.1): a stateless round-robin over sorted workers, the
    :class:`~rebalance.connect.assignor.ConnectAssignor` of ``connect.protocol=eager``.

    The constructor takes the same arguments as :class:`~rebalance.connect.incremental.IncrementalCooperativeAssignor`
    (``WorkerCoordinator`` builds both) and ignores them: the eager assignor keeps no state and sends no delay.

    Defined in chapter 11, *Kafka Connect: from stop-the-world to incremental*."""

    #: the assignor family name the vectors use (``"assignor": "eager"``)
    NAME = "eager"
    #: ``connect.protocol`` values this assignor serves (``ConnectProtocolCompatibility.EAGER``)
    PROTOCOLS: Tuple[str, ...] = ("eager",)
    #: ``ExtendedAssignment.delay``: always 0 under the eager protocol
    delay = 0

    def name(self) -> str:
        """The registry name, :attr:`NAME` (the package's one convention: a ``NAME`` constant on the class and a
        ``name()`` method, as Kafka's assignors have ``String name()``)."""
        return self.NAME

    def __init__(self, max_delay: int = 0, time: object = None, previous_generation_id: int = -1):
        pass

    def complete_assignment(self, connectors: Mapping[str, int], members: Sequence[str]) -> CompleteAssignment:
        """The complete assignment: worker -> (connectors, tasks), lists in the order they were dealt
        (``EagerAssignor.performTaskAssignment``).

        ``connectors`` maps each configured connector to its task count; ``members`` are the group's
        worker ids (any order: Kafka sorts them).  Workers that get nothing map to empty lists.
        """
        require(len(members) > 0, "members", "a rebalance needs at least one member")
        workers = sorted(dict.fromkeys(members), key=connector_key)
        out: CompleteAssignment = {w: ([], []) for w in workers}
        n = len(workers)
        position = 0
        ordered = sorted(connectors, key=connector_key)
        for name in ordered:
            out[workers[position % n]][0].append(name)
            position += 1
        for name in ordered:
            for task in range(connectors[name]):
                out[workers[position % n]][1].append((name, task))
                position += 1
        return out

    def perform_task_assignment(self, connectors: Mapping[str, int], last_completed_generation_id: int,
                                current_generation_id: int, member_assignments: "MemberAssignments",
                                member_order: Optional[Sequence[str]] = None) -> ClusterAssignment:
        """The complete assignment as a :class:`~rebalance.connect.model.ClusterAssignment`: every worker
        stops all it ran (``WorkerCoordinator.onJoinPrepare`` under the eager protocol) and starts its share.
        ``member_assignments`` maps each member to ``(connectors, tasks)`` it ran; the generations are
        unused (the eager assignor keeps no state)."""
        require(len(member_assignments) > 0, "members", "a rebalance needs at least one member")
        complete = self.complete_assignment(connectors, list(member_order or member_assignments))
        running = {w: as_connectors_and_tasks(member_assignments[w]) for w in member_assignments}
        return ClusterAssignment(
            {w: list(c) for w, (c, _) in complete.items()}, {w: list(t) for w, (_, t) in complete.items()},
            {w: list(r.connectors) for w, r in running.items()}, {w: list(r.tasks) for w, r in running.items()},
            {w: list(c) for w, (c, _) in complete.items()}, {w: list(t) for w, (_, t) in complete.items()})

    def perform_assignment(self, leader_id: str, protocol: str, all_member_metadata: Sequence[Tuple[str, bytes]],
                           coordinator: "CoordinatorState") -> Dict[str, bytes]:
        """``ConnectAssignor.performAssignment`` on serialized metadata (see
        :func:`rebalance.connect.leader.leader_assignment`)."""
        from .leader import leader_assignment

        return leader_assignment(self, leader_id, protocol, all_member_metadata, coordinator)


def eager_assignment(connectors: Mapping[str, int], members: Sequence[str]) -> CompleteAssignment:
    """Shortcut for ``EagerAssignor().complete_assignment(connectors, members)``."""
    return EagerAssignor().complete_assignment(connectors, members)


__all__ = ["CompleteAssignment", "EagerAssignor", "eager_assignment"]
