"""Kafka Connect's eager (stop-the-world) assignor.

Mirrors ``org.apache.kafka.connect.runtime.distributed.EagerAssignor`` (Kafka 3.8/3.9, unchanged since
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

from typing import Dict, List, Mapping, Sequence, Tuple

from ..errors import require
from .model import ConnectorTaskId, connector_key


class EagerAssignor:
    """``EagerAssignor``: a stateless round-robin over sorted workers."""

    def perform_assignment(self, connectors: Mapping[str, int], members: Sequence[str]
                           ) -> Dict[str, Tuple[List[str], List[ConnectorTaskId]]]:
        """The complete assignment: worker -> (connectors, tasks), lists in the order they were dealt.

        ``connectors`` maps each configured connector to its task count; ``members`` are the group's
        worker ids (any order: Kafka sorts them).  Workers that get nothing map to empty lists.
        """
        require(len(members) > 0, "members", "a rebalance needs at least one member")
        workers = sorted(dict.fromkeys(members), key=connector_key)
        out: Dict[str, Tuple[List[str], List[ConnectorTaskId]]] = {w: ([], []) for w in workers}
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


def eager_assignment(connectors: Mapping[str, int], members: Sequence[str]):
    """Shortcut for ``EagerAssignor().perform_assignment(connectors, members)``."""
    return EagerAssignor().perform_assignment(connectors, members)


__all__ = ["EagerAssignor", "eager_assignment"]
