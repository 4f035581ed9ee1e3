"""KIP-848 reconciliation, coordinator side: ``CurrentAssignmentBuilder`` and ``ConsumerGroupMember``.

The group coordinator (modelled on Kafka's source at commit 1eb7644, trunk before 4.0) advances a member
that is not reconciled to the group's target assignment on each of its heartbeats
(``CurrentAssignmentBuilder.build``): partitions it keeps stay
*assigned*; partitions it must give up become *pending revocation* and the member waits in
``UNREVOKED_PARTITIONS`` (at its old epoch) until a heartbeat no longer reports them as owned; new
partitions are handed out only when their **partition epoch** is ``-1`` (nobody holds them); otherwise the
member moves to the new epoch in ``UNRELEASED_PARTITIONS`` and picks them up on a later heartbeat.

Two changes of Kafka 4.3.1's ``CurrentAssignmentBuilder`` are not followed (the model is 1eb7644's here): a member
that stays in ``UNREVOKED_PARTITIONS`` keeps its member epoch instead of stepping to ``memberEpoch + 1`` (4.3.1
lines 231-234; only the epoch numbers of that state differ, not who owns what when), and a partition the member
itself is revoking is not counted as unreleased when the target hands it straight back (lines 404-410: that member
keeps it a heartbeat sooner).

The rest of the model lives in its own modules: :mod:`.config` (timings), :mod:`.coordinator`
(``GroupMetadataManager.consumerGroupHeartbeat``, ``ConsumerGroup`` partition epochs, the target
assignment), :mod:`.simulation` (the client's heartbeat loop, ``AsyncKafkaConsumer``'s membership manager,
and the run) and :mod:`.scenarios` (join, leave, crash, rolling restart).  Ownership and metrics are the
classic simulator's (:mod:`rebalance.protocol.ledger`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import auto
from typing import Callable, Dict, List, Mapping, Optional, Set, Tuple

from ..common import KafkaName
from ..common import TopicPartition as TopicPartition  # re-exported: the one definition is rebalance.common
#: ``(topic, partition) -> epoch`` of the member holding it, ``-1`` for nobody (``ConsumerGroup.currentPartitionEpoch``)
PartitionEpoch = Callable[[str, int], int]

class ModernMemberState(KafkaName):
    """A member's reconciliation state on the coordinator: Kafka's
    ``org.apache.kafka.coordinator.group.modern.MemberState`` (4.3.1), by its Java names.

    Defined in chapter 9, *KIP-848: rebalancing without the barrier*."""
    STABLE = auto()
    UNREVOKED_PARTITIONS = auto()
    UNRELEASED_PARTITIONS = auto()


STABLE, UNREVOKED_PARTITIONS, UNRELEASED_PARTITIONS = ModernMemberState

LEAVE_GROUP_MEMBER_EPOCH = -1
LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2

__all__ = ["ModernMemberState", "STABLE", "UNREVOKED_PARTITIONS", "UNRELEASED_PARTITIONS", "LEAVE_GROUP_MEMBER_EPOCH",
           "LEAVE_GROUP_STATIC_MEMBER_EPOCH", "ConsumerGroupMember", "compute_next_assignment",
           "owns_revoked_partitions", "current_assignment_build", "copy_assignment", "topic_partitions",
           "partition_names"]


def copy_assignment(assignment: Mapping[str, Set[int]]) -> Dict[str, Set[int]]:
    """A copy of ``topic -> partitions`` without empty topics."""
    return {t: set(p) for t, p in assignment.items() if p}


def topic_partitions(assignment: Mapping[str, Set[int]]) -> Set[TopicPartition]:
    """``topic -> partitions`` as a set of ``(topic, partition)``."""
    return {(t, p) for t, parts in assignment.items() for p in parts}


def partition_names(assignment: Mapping[str, Set[int]]) -> List[str]:
    """``topic -> partitions`` as sorted ``topic-p`` names."""
    return [f"{t}-{p}" for t, p in sorted(topic_partitions(assignment))]


@dataclass
class ConsumerGroupMember:
    """``ConsumerGroupMember`` (coordinator side): epochs, state, assigned and pending-revocation
    partitions (``topic -> set``)."""

    member_id: str
    subscriptions: Tuple[str, ...]
    instance_id: Optional[str] = None
    member_epoch: int = 0
    previous_member_epoch: int = 0
    state: str = STABLE
    assigned: Dict[str, Set[int]] = field(default_factory=dict)
    pending_revocation: Dict[str, Set[int]] = field(default_factory=dict)

    def is_reconciled_to(self, epoch: int) -> bool:
        """``ConsumerGroupMember.isReconciledTo``."""
        return self.state == STABLE and self.member_epoch == epoch


def compute_next_assignment(member: ConsumerGroupMember, member_epoch: int, target_epoch: int,
                            target: Mapping[str, Set[int]], partition_epoch: PartitionEpoch, owned: Optional[Set[TopicPartition]]
                            ) -> ConsumerGroupMember:
    """``CurrentAssignmentBuilder.computeNextAssignment`` (returns a new member)."""
    has_unreleased = False
    new_assigned: Dict[str, Set[int]] = {}
    new_pending_revocation: Dict[str, Set[int]] = {}
    new_pending_assignment: Dict[str, Set[int]] = {}
    for topic in set(target) | set(member.assigned):
        tgt = set(target.get(topic, ()))
        current = set(member.assigned.get(topic, ()))
        keep = current & tgt
        revoke = current - keep
        pending = tgt - keep
        unreleased = {p for p in pending if partition_epoch(topic, p) != -1}
        if unreleased:
            has_unreleased = True
        pending -= unreleased
        if keep:
            new_assigned[topic] = keep
        if revoke:
            new_pending_revocation[topic] = revoke
        if pending:
            new_pending_assignment[topic] = pending

    def moved(state: str, epoch: int, assigned: Dict[str, Set[int]],
              revocation: Dict[str, Set[int]]) -> ConsumerGroupMember:
        # ConsumerGroupMember.Builder.updateMemberEpoch: previous = current, current = new
        return ConsumerGroupMember(member.member_id, member.subscriptions, member.instance_id, epoch,
                                   member.member_epoch, state, assigned, revocation)

    if new_pending_revocation and owns_revoked_partitions(new_pending_revocation, owned):
        return moved(UNREVOKED_PARTITIONS, member_epoch, new_assigned, new_pending_revocation)
    if new_pending_assignment:
        for topic, parts in new_pending_assignment.items():
            new_assigned.setdefault(topic, set()).update(parts)
        return moved(UNRELEASED_PARTITIONS if has_unreleased else STABLE, target_epoch, new_assigned, {})
    if has_unreleased:
        return moved(UNRELEASED_PARTITIONS, target_epoch, new_assigned, {})
    return moved(STABLE, target_epoch, new_assigned, {})


def owns_revoked_partitions(pending: Mapping[str, Set[int]], owned: Optional[Set[TopicPartition]]) -> bool:
    """``CurrentAssignmentBuilder.ownsRevokedPartitions`` (no owned list = still owns them)."""
    if owned is None:
        return True
    return any(p in pending.get(t, ()) for t, p in owned)


def current_assignment_build(member: ConsumerGroupMember, target_epoch: int, target: Mapping[str, Set[int]],
                             partition_epoch: PartitionEpoch, owned: Optional[Set[TopicPartition]]) -> ConsumerGroupMember:
    """``CurrentAssignmentBuilder.build``."""
    if member.state == STABLE:
        if member.member_epoch != target_epoch:
            return compute_next_assignment(member, member.member_epoch, target_epoch, target, partition_epoch, owned)
        return member
    if member.state == UNREVOKED_PARTITIONS:
        if owns_revoked_partitions(member.pending_revocation, owned):
            return member
        return compute_next_assignment(member, member.member_epoch + 1, target_epoch, target, partition_epoch, owned)
    if member.state == UNRELEASED_PARTITIONS:
        return compute_next_assignment(member, member.member_epoch, target_epoch, target, partition_epoch, owned)
    raise ValueError(f"unknown member state {member.state}")

