"""KIP-848 group coordinator: the consumer-group half of ``GroupMetadataManager`` for one group.

First modelled on Kafka's source at commit 1eb7644 (trunk before 4.0), then checked against Kafka 4.3.1's (the
assignment interval below is 4.3's): ``GroupMetadataManager.consumerGroupHeartbeat``
(and ``consumerGroupLeave`` for epochs -1/-2, ``consumerGroupFenceMember``, the session timer),
``ConsumerGroup``'s partition epochs (``maybeUpdatePartitionEpoch`` / ``maybeRemovePartitionEpoch``) and
``TargetAssignmentBuilder``:

* **Group epoch.**  A member joining, leaving, being fenced or changing its subscription bumps the group
  epoch.  The next heartbeat from *any* member then recomputes the **target assignment** with the real
  server-side assignor (:mod:`rebalance.kip848.uniform` or :mod:`rebalance.kip848.range`) and stamps it with
  that epoch (the *assignment epoch*) -- but, since Kafka 4.3.0 (KIP-1263), only once
  ``group.consumer.assignment.interval.ms`` (1 s by default) has passed since the last target was computed
  (``GroupMetadataManager.canComputeNextTargetAssignment``, 4.3.1 lines 3824-3845, called from
  ``maybeUpdateTargetAssignment`` at 3871): a heartbeat before that is reconciled against the last target, and
  nothing schedules the computation, so it waits for the first heartbeat after the interval.  A member that
  joins within a second of the last computation therefore gets nothing until such a heartbeat, usually the
  next one of the group's members a heartbeat interval later.  (Not in 4.2.1's jar; in 4.3.0's and 4.3.1's.)
* **Member epoch and state.**  Each heartbeat advances the member with ``CurrentAssignmentBuilder``
  (:mod:`.reconciliation`).

What else changed in these paths between commit 1eb7644 and 4.3.1, read from the two sources: the rest of
``consumerGroupHeartbeat``, the leave and fence paths and the session timer that this model follows behave the
same; ``CurrentAssignmentBuilder`` keeps the member epoch when a member stays in ``UNREVOKED_PARTITIONS``
(KAFKA-19974, 4.3.1 lines 231-234: only the epoch numbers of that state differ, not who owns what or when) and
does not count a partition the member itself is revoking as unreleased (KAFKA-19449, lines 404-410: a target that
hands a partition straight back to its owner); the model follows 1eb7644 in both (see :mod:`.reconciliation`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Sequence, Set

from ..errors import IllegalStateError
from ..protocol.clock import ScheduledEvent, VirtualClock
from .assignor import assignor_for
from .config import KIP848Config
from .group import MemberInput, TopicCatalog, build_group_spec
from .spec import Assignment
from .reconciliation import (LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH, TopicPartition, ConsumerGroupMember,
                             copy_assignment, current_assignment_build, partition_names, topic_partitions)

__all__ = ["HeartbeatResponse", "GroupCoordinatorModel", "can_compute_next_target_assignment"]

#: ``log(actor, kind, fields)``: how the coordinator records a trace event
Log = Callable[[str, str, Dict[str, Any]], None]


@dataclass
class HeartbeatResponse:
    """``ConsumerGroupHeartbeatResponse``: the member's epoch, its assignment if it changed, or an error."""

    member_id: str
    member_epoch: int
    assignment: Optional[Dict[str, Set[int]]]  # None when unchanged
    error: Optional[str] = None


def can_compute_next_target_assignment(timestamp_ms: Optional[int], interval_ms: int, now_ms: int) -> bool:
    """``GroupMetadataManager.canComputeNextTargetAssignment`` (Kafka 4.3.1 lines 3824-3845, KIP-1263; consumer,
    share and streams groups alike): no target yet (``timestamp_ms`` ``None``), an interval of 0, or the interval
    passed since the last target."""
    return timestamp_ms is None or interval_ms == 0 or now_ms >= timestamp_ms + interval_ms


class GroupCoordinatorModel:
    """The consumer-group half of ``GroupMetadataManager`` for one group."""

    def __init__(self, catalog: TopicCatalog, config: KIP848Config, clock: VirtualClock, log: Log):
        self.catalog = catalog
        self.config = config
        self.clock = clock
        self.log = log
        self.group_epoch = 0
        self.assignment_epoch = 0
        self.members: Dict[str, ConsumerGroupMember] = {}
        self.static_members: Dict[str, str] = {}
        self.target: Dict[str, Optional[Assignment]] = {}  # member id -> the last target assignment
        self.partition_epochs: Dict[TopicPartition, int] = {}
        self.session_timers: Dict[str, ScheduledEvent] = {}
        self.heartbeats = 0
        self.assignments_computed = 0
        #: when the last target assignment was computed (``ConsumerGroup.assignmentTimestamp``; ``None``: never)
        self.assignment_timestamp_ms: Optional[int] = None

    # -- partition epochs (ConsumerGroup.maybeUpdatePartitionEpoch) ---------------------------------
    def partition_epoch(self, topic: str, partition: int) -> int:
        """``ConsumerGroup.currentPartitionEpoch``: the epoch of the member holding it, ``-1`` for nobody."""
        return self.partition_epochs.get((topic, partition), -1)

    def _update_member(self, old: Optional[ConsumerGroupMember], new: Optional[ConsumerGroupMember]) -> None:
        if old is not None:
            for tp in topic_partitions(old.assigned) | topic_partitions(old.pending_revocation):
                if self.partition_epochs.get(tp) != old.member_epoch:
                    raise IllegalStateError(f"partition {tp} not held at epoch {old.member_epoch}")
                del self.partition_epochs[tp]
        if new is not None:
            for tp in topic_partitions(new.assigned) | topic_partitions(new.pending_revocation):
                if tp in self.partition_epochs:
                    raise IllegalStateError(f"partition {tp} still owned at epoch {self.partition_epochs[tp]}")
                self.partition_epochs[tp] = new.member_epoch
            self.members[new.member_id] = new
        elif old is not None:
            self.members.pop(old.member_id, None)

    def target_of(self, member: ConsumerGroupMember) -> Dict[str, Set[int]]:
        """The member's partitions in the current target assignment, ``topic -> set``."""
        jmap = self.target.get(member.member_id)
        if jmap is None:
            return {}
        return {self.catalog.name_of(t): set(p) for t, p in jmap.items()}

    # -- target assignment (TargetAssignmentBuilder) ------------------------------------------------
    def _update_target_assignment(self) -> None:
        inputs = [MemberInput(m.member_id, list(m.subscriptions), self.target.get(m.member_id), m.instance_id)
                  for m in self.members.values()]
        spec = build_group_spec(inputs, self.catalog)
        result = assignor_for(self.config.assignor, "config.assignor").assign(spec, self.catalog.describer())
        self.target = {m: result.members.get(m) for m in self.members}
        self.assignment_epoch = self.group_epoch
        self.assignments_computed += 1
        self.assignment_timestamp_ms = self.clock.now_ms
        self.log("coordinator", "target-assignment",
                 {"epoch": self.group_epoch, "builder": result.builder,
                  "target": {m: partition_names(self.target_of(self.members[m])) for m in self.members}})

    def can_compute_next_target_assignment(self) -> bool:
        """:func:`can_compute_next_target_assignment` for this group now.  Its timestamp is the model's clock when
        the last target was computed (``TargetAssignmentBuilder`` stamps the end of its build: the model's
        assignor takes no time)."""
        return can_compute_next_target_assignment(self.assignment_timestamp_ms, self.config.assignment_interval_ms,
                                                  self.clock.now_ms)

    def _bump(self, reason: str) -> None:
        self.group_epoch += 1
        self.log("coordinator", "group-epoch", {"epoch": self.group_epoch, "reason": reason})

    # -- heartbeat -----------------------------------------------------------------------------------
    def heartbeat(self, member_id: str, member_epoch: int, subscriptions: Sequence[str],
                  owned: Optional[Set[TopicPartition]], instance_id: Optional[str] = None) -> HeartbeatResponse:
        """``consumerGroupHeartbeat`` (and ``consumerGroupLeave`` for epochs -1/-2)."""
        self.heartbeats += 1
        if member_epoch in (LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH):
            return self._leave(member_id, member_epoch, instance_id)
        member = self.members.get(member_id)
        old = member
        if member_epoch == 0:
            if instance_id is not None and instance_id in self.static_members:
                previous = self.members[self.static_members[instance_id]]
                if previous.member_epoch != LEAVE_GROUP_STATIC_MEMBER_EPOCH:
                    return HeartbeatResponse(member_id, member_epoch, None, "UnreleasedInstanceIdException")
                replacement = ConsumerGroupMember(member_id, previous.subscriptions, instance_id, 0, 0,
                                                  previous.state, copy_assignment(previous.assigned), copy_assignment(previous.pending_revocation))
                self._update_member(previous, None)
                self._update_member(None, replacement)
                if previous.member_id in self.target:
                    self.target[member_id] = self.target.pop(previous.member_id)
                self._cancel_session(previous.member_id)
                self.log(member_id, "static-rejoin", {"replaces": previous.member_id})
                member = old = replacement
            elif member is None:
                member = ConsumerGroupMember(member_id, tuple(subscriptions), instance_id)
        elif member is None or member.member_epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH:
            return HeartbeatResponse(member_id, member_epoch, None, "UnknownMemberIdException")
        elif member_epoch != member.member_epoch and member_epoch != member.previous_member_epoch:
            return HeartbeatResponse(member_id, member_epoch, None, "FencedMemberEpochException")
        if instance_id is not None:
            self.static_members[instance_id] = member_id
        bump = old is None or tuple(subscriptions) != member.subscriptions
        if bump:
            member = ConsumerGroupMember(member.member_id, tuple(subscriptions), member.instance_id,
                                         member.member_epoch, member.previous_member_epoch, member.state,
                                         member.assigned, member.pending_revocation)
            self.members[member_id] = member
            self._bump("new member" if old is None else "subscription changed")
        if self.group_epoch > self.assignment_epoch and self.can_compute_next_target_assignment():
            self._update_target_assignment()
        before = self.members[member_id]
        if not before.is_reconciled_to(self.assignment_epoch):
            after = current_assignment_build(before, self.assignment_epoch, self.target_of(before),
                                             self.partition_epoch, owned)
            if after != before:
                self._update_member(before, after)
                self.log(member_id, "member-epoch",
                         {"epoch": after.member_epoch, "state": after.state,
                          "assigned": partition_names(after.assigned), "pending_revocation": partition_names(after.pending_revocation),
                          "target_epoch": self.assignment_epoch})
            member = after
        else:
            member = before
        self._schedule_session(member_id)
        changed = old is None or member_epoch == 0 or member.assigned != (old.assigned if old else None)
        return HeartbeatResponse(member_id, member.member_epoch, copy_assignment(member.assigned) if changed else None)

    def _leave(self, member_id: str, epoch: int, instance_id: Optional[str]) -> HeartbeatResponse:
        member = self.members.get(member_id)
        if member is None:
            return HeartbeatResponse(member_id, epoch, None, "UnknownMemberIdException")
        if epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH and instance_id is not None:
            left = ConsumerGroupMember(member.member_id, member.subscriptions, member.instance_id,
                                       LEAVE_GROUP_STATIC_MEMBER_EPOCH, member.member_epoch, member.state,
                                       copy_assignment(member.assigned), {})
            self._update_member(member, left)
            self.log(member_id, "static-leave", {"kept": partition_names(left.assigned)})
            # no new session timer: the one armed by the last heartbeat keeps running (45 s to come back)
            return HeartbeatResponse(member_id, epoch, None)
        self.fence(member_id, "left the group")
        return HeartbeatResponse(member_id, epoch, None)

    def fence(self, member_id: str, reason: str) -> None:
        """``consumerGroupFenceMember``: remove the member, free its partitions, bump the group epoch."""
        member = self.members.get(member_id)
        if member is None:
            return
        self._update_member(member, None)
        self.target.pop(member_id, None)
        if member.instance_id is not None and self.static_members.get(member.instance_id) == member_id:
            del self.static_members[member.instance_id]
        self._cancel_session(member_id)
        self.log(member_id, "removed", {"reason": reason})
        self._bump(f"member {member_id} removed")

    def _schedule_session(self, member_id: str) -> None:
        self._cancel_session(member_id)
        self.session_timers[member_id] = self.clock.schedule(
            self.config.session_timeout_ms, lambda: self.fence(member_id, "session expired"),
            f"session-timeout {member_id}")

    def _cancel_session(self, member_id: str) -> None:
        timer = self.session_timers.pop(member_id, None)
        if timer is not None:
            timer.cancel()
