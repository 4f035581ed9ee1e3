"""The group-protocol entry points of Connect: the leader's ``performAssignment`` and the worker's
``onJoinPrepare``/``onJoinComplete``, on serialized bytes.

Mirrors ``ConnectAssignor.performAssignment`` as implemented by ``EagerAssignor`` and
``IncrementalCooperativeAssignor`` (including ``ensureLeaderConfig`` and the ``CONFIG_MISMATCH``
answer), and ``WorkerCoordinator.onJoinPrepare``/``onJoinComplete`` (the assignors as in Kafka 4.3.1,
``WorkerCoordinator`` as at Kafka's commit 1eb7644, trunk before 4.0).  A group-protocol
simulator can treat Connect workers as ordinary members: each member sends
:func:`member_metadata` in its JoinGroup request, the leader calls :func:`perform_assignment` with all
members' metadata and returns one assignment blob per member, and each member applies its blob with
:func:`on_join_complete`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from ..validation import require
from .eager import EagerAssignor
from .model import ConnectorTaskId, hashmap_member_order
from .protocol import ExtendedAssignment, ExtendedWorkerState, protocol_version

if TYPE_CHECKING:
    from .assignor import ConnectAssignor


@dataclass
class ConfigSnapshot:
    """The part of ``ClusterConfigState`` the assignors read: the config topic offset and, per
    connector, its number of task configurations."""

    offset: int
    connectors: Dict[str, int] = field(default_factory=dict)


@dataclass
class CoordinatorState:
    """What ``ConnectAssignor.performAssignment`` reads from its ``WorkerCoordinator`` argument (Kafka
    4.3.1): ``configSnapshot()``, ``configFreshSnapshot()`` (default: the same snapshot),
    ``generationId()`` and ``lastCompletedGenerationId()``."""

    snapshot: ConfigSnapshot
    generation_id: int
    last_completed_generation_id: int
    fresh_snapshot: Optional[ConfigSnapshot] = None


def worker_url(worker: str) -> str:
    """A REST url for a worker id (the protocol carries one; the assignors only echo the leader's)."""
    return f"http://{worker}:8083"


def member_metadata(protocol: str, url: str, config_offset: int, connectors: Sequence[str] = (),
                    tasks: Sequence[ConnectorTaskId] = ()) -> bytes:
    """``WorkerCoordinator.metadata()`` for one protocol: what a worker running ``connectors`` and
    ``tasks`` sends in its JoinGroup request."""
    return ExtendedWorkerState(url, config_offset, list(connectors), list(tasks)).serialize(protocol_version(protocol))


def perform_assignment(assignor: "ConnectAssignor", leader_id: str, protocol: str,
                       all_member_metadata: Sequence[Tuple[str, bytes]], snapshot: ConfigSnapshot,
                       generation_id: int, last_completed_generation_id: int,
                       fresh_snapshot: Optional[ConfigSnapshot] = None) -> Dict[str, bytes]:
    """``assignor.performAssignment(leaderId, protocol, allMemberMetadata, coordinator)`` with the
    coordinator's state given field by field (see :class:`CoordinatorState`)."""
    return assignor.perform_assignment(leader_id, protocol, all_member_metadata,
                                       CoordinatorState(snapshot, generation_id, last_completed_generation_id,
                                                        fresh_snapshot))


def leader_assignment(assignor: "ConnectAssignor", leader_id: str, protocol: str,
                      all_member_metadata: Sequence[Tuple[str, bytes]], coordinator: CoordinatorState
                      ) -> Dict[str, bytes]:
    """``ConnectAssignor.performAssignment(leaderId, protocol, allMemberMetadata, coordinator)`` as
    ``EagerAssignor`` and ``IncrementalCooperativeAssignor`` implement it (Kafka 4.3.1).

    ``coordinator.snapshot`` is the leader's config snapshot and ``coordinator.fresh_snapshot`` what it
    would read if it refreshed it (``coordinator.configFreshSnapshot()``).  If some member has seen
    a newer config offset than the leader can reach, every member gets an empty assignment with error
    ``CONFIG_MISMATCH`` and the incremental assignor's state is left untouched.  Returns member id ->
    serialized assignment.
    """
    snapshot, fresh_snapshot = coordinator.snapshot, coordinator.fresh_snapshot
    generation_id = coordinator.generation_id
    last_completed_generation_id = coordinator.last_completed_generation_id
    version = protocol_version(protocol)
    require(len(all_member_metadata) > 0, "members", "a rebalance needs at least one member")
    configs: Dict[str, ExtendedWorkerState] = {}
    join_order: List[str] = []
    for member_id, data in all_member_metadata:
        configs[member_id] = ExtendedWorkerState.deserialize(data)[1]
        join_order.append(member_id)
    require(leader_id in configs, "leader", f"{leader_id!r} is not a member of this round")
    order = hashmap_member_order(join_order)  # memberConfigs is a HashMap
    max_offset = max(c.offset for c in configs.values())
    leader_url = configs[leader_id].url

    used = snapshot
    if snapshot.offset < max_offset:  # ensureLeaderConfig
        fresh = fresh_snapshot or snapshot
        if fresh.offset < max_offset:
            version_out = 0 if isinstance(assignor, EagerAssignor) else (2 if version >= 2 else 1)
            return {m: ExtendedAssignment(version_out, ExtendedAssignment.CONFIG_MISMATCH, leader_id, leader_url,
                                          max_offset).serialize() for m in order}
        used = fresh
    offset = used.offset

    if isinstance(assignor, EagerAssignor):
        complete = assignor.complete_assignment(used.connectors, order)
        return {m: ExtendedAssignment(0, ExtendedAssignment.NO_ERROR, leader_id, leader_url, offset,
                                      *complete.get(m, ([], []))).serialize() for m in order}

    # IncrementalCooperativeConnectProtocol.serializeAssignment writes header V2 when sessioned, else V1
    version = 2 if version >= 2 else 1
    ca = assignor.perform_task_assignment(used.connectors, last_completed_generation_id, generation_id,
                                          {m: (configs[m].connectors, configs[m].tasks) for m in order},
                                          member_order=order)
    return {m: ExtendedAssignment(version, ExtendedAssignment.NO_ERROR, leader_id, leader_url, offset,
                                  list(ca.newly_assigned_connectors.get(m, [])), list(ca.newly_assigned_tasks.get(m, [])),
                                  list(ca.newly_revoked_connectors.get(m, [])), list(ca.newly_revoked_tasks.get(m, [])),
                                  assignor.delay).serialize() for m in order}


def on_join_prepare(protocol: str, connectors: Sequence[str], tasks: Sequence[ConnectorTaskId]
                    ) -> Tuple[List[str], List[ConnectorTaskId]]:
    """``WorkerCoordinator.onJoinPrepare``: what a worker stops *before* rejoining -- everything under
    the eager protocol, nothing under the cooperative ones."""
    if protocol_version(protocol) == 0:
        return list(connectors), list(tasks)
    return [], []


def on_join_complete(protocol: str, connectors: Sequence[str], tasks: Sequence[ConnectorTaskId],
                     assignment: bytes) -> Tuple[ExtendedAssignment, List[str], List[ConnectorTaskId]]:
    """``WorkerCoordinator.onJoinComplete``: read the leader's assignment and compute what the worker
    runs next.  Eager: exactly the assignment.  Cooperative: the revoked work is stopped and the newly
    assigned work is added *in front of* what the worker keeps (``newAssignment.connectors().addAll(
    snapshot)``).  Returns ``(assignment as read, connectors, tasks)``."""
    got = ExtendedAssignment.deserialize(assignment)
    if protocol_version(protocol) == 0:
        return got, list(got.connectors), list(got.tasks)
    rc, rt = set(got.revoked_connectors), set(got.revoked_tasks)
    keep_c = [c for c in connectors if c not in rc]
    keep_t = [t for t in tasks if t not in rt]
    return got, list(got.connectors) + keep_c, list(got.tasks) + keep_t


__all__ = ["ConfigSnapshot", "CoordinatorState", "leader_assignment", "member_metadata", "on_join_complete", "on_join_prepare", "perform_assignment",
           "worker_url"]
