"""The coordinator side of Kafka's classic group protocol: one group's state machine.

Modelled on the classic-group half of ``org.apache.kafka.coordinator.group.GroupMetadataManager`` together with
``classic.ClassicGroup``, ``classic.ClassicGroupMember`` and ``classic.ClassicGroupState`` in Kafka's source
at commit 1eb7644 (trunk before 4.0).  A 3.8 or 3.9 broker runs that coordinator only with the new group
coordinator enabled (``KafkaConfig.isNewGroupCoordinatorEnabled``: ``group.coordinator.rebalance.protocols``
includes ``consumer``); with default settings (and in ZooKeeper mode) it runs the same classic rules in the
Scala ``kafka.coordinator.group.GroupCoordinator`` / ``GroupMetadata.replaceStaticMember`` in core
(``BrokerServer.createGroupCoordinator``, 3.8.0 and 3.9.0).  From 4.0 the new coordinator is the default;
the Scala one is gone from 4.1:

* states ``Empty``, ``PreparingRebalance``, ``CompletingRebalance``, ``Stable``, ``Dead``;
* JoinGroup: a session timeout outside ``group.{min,max}.session.timeout.ms`` is refused with
  ``INVALID_SESSION_TIMEOUT``; a new dynamic member first gets ``MEMBER_ID_REQUIRED`` and a member id (KIP-394), a static
  member (``group.instance.id``, KIP-345) is added at once or *replaces* the member that held its instance
  id (the old member id is fenced with ``FENCED_INSTANCE_ID``);
* the join phase completes when every member has rejoined, or when the rebalance timeout (the largest
  ``max.poll.interval.ms`` of the members) expires -- dynamic members that did not rejoin are removed,
  static ones stay until their session expires; the first rebalance of an ``Empty`` group waits
  ``group.initial.rebalance.delay.ms`` and extends that delay while new members keep arriving;
* the leader is the first member added; if it does not rejoin in time another joined member is elected;
* SyncGroup: followers wait until the leader's SyncGroup carries the assignment; members that do not send
  SyncGroup within the rebalance timeout are removed (``expirePendingSync``);
* Heartbeat answers ``REBALANCE_IN_PROGRESS`` while the group prepares a rebalance, ``ILLEGAL_GENERATION``
  for a stale generation, ``UNKNOWN_MEMBER_ID`` for a member that is gone; a member whose session expires
  is removed and the group rebalances;
* LeaveGroup removes the member and rebalances.

Responses are delivered through callbacks; time comes from the shared :class:`~.clock.VirtualClock`.
``java.util.HashMap`` iteration over member ids (which decides the member order the leader receives and
the next leader when the leader is removed) is emulated with :class:`rebalance.java.JavaHashOrder`.
"""
from __future__ import annotations

import bisect
from operator import attrgetter
from dataclasses import dataclass, field
from enum import auto
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

from ..common import JsonRecord, KafkaName, TopicPartition
from ..errors import IllegalStateError
from ..java import JavaHashOrder, spread, string_hash
from .clock import SESSION_TIMER, ScheduledEvent, VirtualClock


class ClassicGroupState(KafkaName):
    """Kafka's ``org.apache.kafka.coordinator.group.classic.ClassicGroupState`` (4.3.1): each state is the name
    Kafka prints for it (``toString``), as in ``kafka-consumer-groups.sh --describe --state``.

    Defined in chapter 1, *Groups, coordinators and generations*."""
    EMPTY = "Empty"
    PREPARING_REBALANCE = "PreparingRebalance"
    COMPLETING_REBALANCE = "CompletingRebalance"
    STABLE = "Stable"
    DEAD = "Dead"


EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD = ClassicGroupState

#: ``ClassicGroupState`` valid previous states (``PreparingRebalance`` may follow these three).
_VALID_PREVIOUS: Dict[str, Set[str]] = {
    PREPARING_REBALANCE: {STABLE, COMPLETING_REBALANCE, EMPTY},
    COMPLETING_REBALANCE: {PREPARING_REBALANCE},
    STABLE: {COMPLETING_REBALANCE},
    EMPTY: {PREPARING_REBALANCE},
    DEAD: {STABLE, PREPARING_REBALANCE, COMPLETING_REBALANCE, EMPTY, DEAD},
}


def state_transitions() -> List[Tuple[str, str]]:
    """Every allowed ``(previous, next)`` state pair of the table above (``ClassicGroupState``'s valid
    previous states), in a fixed order: by next state as listed there, then previous state by name."""
    return [(prev, new) for new, prevs in _VALID_PREVIOUS.items() for prev in sorted(prevs)]


class Errors(KafkaName):
    """The error codes of Kafka's ``org.apache.kafka.common.protocol.Errors`` (4.3.1) that the classic group
    protocol answers with, by their Java names (the simulator's responses and traces carry these names)."""
    NONE = auto()
    MEMBER_ID_REQUIRED = auto()
    UNKNOWN_MEMBER_ID = auto()
    ILLEGAL_GENERATION = auto()
    REBALANCE_IN_PROGRESS = auto()
    FENCED_INSTANCE_ID = auto()
    NOT_COORDINATOR = auto()
    COORDINATOR_NOT_AVAILABLE = auto()
    INCONSISTENT_GROUP_PROTOCOL = auto()
    INVALID_SESSION_TIMEOUT = auto()


(NONE, MEMBER_ID_REQUIRED, UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS, FENCED_INSTANCE_ID,
 NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, INCONSISTENT_GROUP_PROTOCOL, INVALID_SESSION_TIMEOUT) = Errors

#: ``group.min.session.timeout.ms`` / ``group.max.session.timeout.ms`` broker defaults
GROUP_MIN_SESSION_TIMEOUT_MS = 6_000
GROUP_MAX_SESSION_TIMEOUT_MS = 30 * 60 * 1000

Respond = Callable[[JsonRecord], None]

#: one member's fields in the group record (``GroupSnapshot.members``), read in C
_RECORD = attrgetter("member_id", "instance_id", "client_id", "session_timeout_ms", "rebalance_timeout_ms",
                     "protocols", "assignment")


@dataclass
class GroupMember:
    """``ClassicGroupMember``: what the coordinator keeps about one member."""

    member_id: str
    instance_id: Optional[str]
    client_id: str
    session_timeout_ms: int
    rebalance_timeout_ms: int
    protocols: List[Tuple[str, Any]]  # (assignor name, subscription metadata), in preference order
    join_cb: Optional[Respond] = None
    awaiting_sync: Optional[Respond] = None
    assignment: List[TopicPartition] = field(default_factory=list)
    is_new: bool = False
    #: the group's count of members awaiting a JoinGroup response (``numMembersAwaitingJoinResponse``)
    counter: Optional[List[int]] = field(default=None, repr=False, compare=False)

    @property
    def awaiting_join(self) -> Optional[Respond]:
        return self.join_cb

    @awaiting_join.setter
    def awaiting_join(self, cb: Optional[Respond]) -> None:
        if self.counter is not None:
            self.counter[0] += (cb is not None) - (self.join_cb is not None)
        self.join_cb = cb

    def metadata(self, protocol: Optional[str]) -> Optional[Any]:
        """The member's metadata for ``protocol`` (``ClassicGroupMember.metadata``), ``None`` if it has none."""
        for name, meta in self.protocols:
            if name == protocol:
                return meta
        return None

    def matches(self, protocols: List[Tuple[str, Any]]) -> bool:
        """``ClassicGroupMember.matches``: the same protocols with the same metadata, in order."""
        return [(n, _freeze(m)) for n, m in self.protocols] == [(n, _freeze(m)) for n, m in protocols]

    def has_satisfied_heartbeat(self) -> bool:
        """``ClassicGroupMember.hasSatisfiedHeartbeat``: new members can expire even while awaiting join;
        the others are kept alive while they wait for a JoinGroup or SyncGroup response."""
        if self.is_new:
            return False
        return self.awaiting_join is not None or self.awaiting_sync is not None


def _freeze(value: object) -> object:
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


@dataclass
class GroupSnapshot:
    """The last group metadata record written to ``__consumer_offsets`` (what a new coordinator loads)."""

    generation: int
    protocol_name: Optional[str]
    leader_id: Optional[str]
    #: ``(member_id, instance_id, client_id, session_timeout_ms, rebalance_timeout_ms, protocols,
    #: assignment)`` in ``HashMap`` order
    members: List[Tuple[str, Optional[str], str, int, int, List[Tuple[str, Any]], List[TopicPartition]]]


class ClassicGroupCoordinator:
    """One classic group on its coordinator broker.

    ``log(kind, **fields)`` receives state changes and decisions for the trace; ``persist(snapshot)``
    receives every group metadata record the coordinator writes.

    Defined in chapter 1, *Groups, coordinators and generations*."""

    def __init__(self, group_id: str, clock: VirtualClock, *, initial_rebalance_delay_ms: int = 3000,
                 new_member_join_timeout_ms: int = 5 * 60 * 1000, require_known_member_id: bool = True,
                 log: Optional[Callable[..., None]] = None, persist: Optional[Callable[[GroupSnapshot], None]] = None,
                 member_id_suffix: Optional[Callable[[str], str]] = None, broker: int = 0,
                 min_session_timeout_ms: int = GROUP_MIN_SESSION_TIMEOUT_MS,
                 max_session_timeout_ms: int = GROUP_MAX_SESSION_TIMEOUT_MS,
                 member_touched: Optional[Callable[[str], None]] = None,
                 state_changing: Optional[Callable[[], None]] = None):
        self.group_id = group_id
        self.clock = clock
        self.broker = broker
        self.initial_rebalance_delay_ms = initial_rebalance_delay_ms
        self.new_member_join_timeout_ms = new_member_join_timeout_ms
        self.require_known_member_id = require_known_member_id
        self.min_session_timeout_ms = min_session_timeout_ms
        self.max_session_timeout_ms = max_session_timeout_ms
        self._log = log or (lambda kind, **f: None)
        #: called before the coordinator changes a member's record or timer, and before the group's state
        #: changes (the simulation's heartbeat fast path brings skipped heartbeats up to date there)
        self.member_touched = member_touched or (lambda member_id: None)
        self.state_changing = state_changing or (lambda: None)
        self._persist = persist or (lambda s: None)
        self._suffix = member_id_suffix or self._default_suffix
        self._id_counter = 0
        self.state = EMPTY
        self.previous_state: Optional[str] = None
        self.generation = 0
        self.protocol_name: Optional[str] = None
        self.leader_id: Optional[str] = None
        self.members: Dict[str, GroupMember] = {}
        self._order = JavaHashOrder()  # member ids are strings: String.hashCode, memoised
        self._ids: Optional[List[str]] = None
        self._id_keys: List[Tuple[int, int]] = []
        self._awaiting = [0]
        self._supported: Dict[str, int] = {}
        self.static_members: Dict[str, str] = {}
        self.pending_join: Set[str] = set()
        self.pending_sync: Set[str] = set()
        self.new_member_added = False
        self._hb_timers: Dict[str, ScheduledEvent] = {}
        self._hb_deadline: Dict[str, int] = {}
        self._join_timer: Optional[ScheduledEvent] = None
        self._sync_timer: Optional[ScheduledEvent] = None
        self.active = True

    # ------------------------------------------------------------------ helpers
    def _default_suffix(self, client_id: str) -> str:
        self._id_counter += 1
        return str(self._id_counter)

    def member_ids(self) -> List[str]:
        """Member ids in ``HashMap`` iteration order."""
        if self._ids is None:
            self._ids = self._order.keys()
            self._id_keys = [self._id_key(mid) for mid in self._ids]
        return self._ids

    def _id_key(self, member_id: str) -> Tuple[int, int]:
        """Where ``member_id`` sorts in the ``HashMap``'s iteration: (bucket, insertion sequence)."""
        order = self._order
        return spread(order.hash_fn(member_id)) & (order.size - 1), order._order[member_id]

    def _put_id(self, member_id: str) -> None:
        """``members.put``: keep the iteration order up to date without sorting again (a new list, so that
        a loop over the previous one is not disturbed); a resize of the table re-sorts."""
        size = self._order.size
        self._order.put(member_id)
        if self._ids is None or self._order.size != size:
            self._ids = None
            return
        key = self._id_key(member_id)
        pos = bisect.bisect(self._id_keys, key)
        self._ids = self._ids[:pos] + [member_id] + self._ids[pos:]
        self._id_keys = self._id_keys[:pos] + [key] + self._id_keys[pos:]

    def _remove_id(self, member_id: str) -> None:
        """``members.remove``, keeping the iteration order as :meth:`_put_id` does."""
        if self._ids is not None and member_id in self._order:
            pos = bisect.bisect_left(self._id_keys, self._id_key(member_id))
            self._ids = self._ids[:pos] + self._ids[pos + 1:]
            self._id_keys = self._id_keys[:pos] + self._id_keys[pos + 1:]
        self._order.remove(member_id)

    def _count_protocols(self, protocols: List[Tuple[str, Any]], delta: int) -> None:
        """``ClassicGroup.{increment,decrement}SupportedProtocols``."""
        for name, _ in protocols:
            self._supported[name] = self._supported.get(name, 0) + delta

    def _set_protocols(self, member: "GroupMember", protocols: List[Tuple[str, Any]]) -> None:
        if member.member_id in self.members:
            self._count_protocols(member.protocols, -1)
            self._count_protocols(protocols, +1)
        member.protocols = list(protocols)

    def _transition(self, new_state: ClassicGroupState) -> None:
        if self.state not in _VALID_PREVIOUS[new_state]:
            raise IllegalStateError(f"illegal transition {self.state} -> {new_state} of group {self.group_id}")
        self.state_changing()
        self.previous_state = self.state
        self.state = new_state
        self._log("state", state=new_state, previous=self.previous_state, generation=self.generation)

    def rebalance_timeout_ms(self) -> int:
        """``ClassicGroup.rebalanceTimeoutMs``: the largest rebalance timeout of the members."""
        return max((m.rebalance_timeout_ms for m in self.members.values()), default=0)

    def num_awaiting_join(self) -> int:
        return self._awaiting[0]

    def has_all_members_joined(self) -> bool:
        return len(self.members) == self.num_awaiting_join() and not self.pending_join

    def can_rebalance(self) -> bool:
        return self.state in _VALID_PREVIOUS[PREPARING_REBALANCE]

    def _add(self, member: GroupMember, respond: Optional[Respond]) -> None:
        if member.instance_id is not None:
            self.static_members[member.instance_id] = member.member_id
        if self.leader_id is None:
            self.leader_id = member.member_id
        self.members[member.member_id] = member
        self._put_id(member.member_id)
        member.counter = self._awaiting
        self._count_protocols(member.protocols, +1)
        member.awaiting_join = respond
        self.pending_join.discard(member.member_id)

    def _remove(self, member_id: str) -> None:
        self.member_touched(member_id)
        removed = self.members.pop(member_id, None)
        if removed is not None:
            removed.awaiting_join = None
            removed.counter = None
            self._count_protocols(removed.protocols, -1)
            self._remove_id(member_id)
            if removed.instance_id is not None:
                self.static_members.pop(removed.instance_id, None)
        if self.leader_id == member_id:
            ids = self.member_ids()
            self.leader_id = ids[0] if ids else None
        self.pending_join.discard(member_id)
        self.pending_sync.discard(member_id)

    def select_protocol(self) -> Optional[str]:
        """``ClassicGroup.selectProtocol``: among the assignors every member supports, each member votes for
        its most preferred one; the most votes win (``None``, as Kafka's ``orElse(null)``, if no member votes)."""
        n = len(self.members)
        candidates = {name for name, count in self._supported.items() if count == n}
        if len(candidates) == 1:  # every member's vote goes to the one protocol all of them support
            return next(iter(candidates))
        votes: Dict[str, int] = {}
        order = JavaHashOrder(string_hash)
        for mid in self.member_ids():
            for name, _ in self.members[mid].protocols:
                if name in candidates:
                    votes[name] = votes.get(name, 0) + 1
                    order.put(name)
                    break
        best: Optional[str] = None
        for name in order.keys():
            if best is None or votes[name] > votes[best]:
                best = name
        return best

    def supports(self, protocols: List[Tuple[str, Any]]) -> bool:
        """``ClassicGroup.supportsProtocols``: some protocol of the request is supported by every member."""
        if not self.members:
            return bool(protocols)
        n = len(self.members)
        return any(self._supported.get(name, 0) == n for name, _ in protocols)

    # ------------------------------------------------------------------ timers
    def _schedule_heartbeat(self, member_id: str, timeout_ms: int) -> None:
        """Move the member's session deadline to ``now + timeout_ms``.  A pending timer that fires no
        later than the new deadline is kept and re-armed when it fires (same behaviour, far fewer events
        than cancelling and rescheduling on every heartbeat)."""
        self.member_touched(member_id)
        deadline = self.clock.now_ms + timeout_ms
        self._hb_deadline[member_id] = deadline
        old = self._hb_timers.get(member_id)
        if old is not None and not old.cancelled and old.time_ms <= deadline:
            return
        if old is not None:
            old.cancel()
        self._arm_heartbeat(member_id, deadline)

    def _arm_heartbeat(self, member_id: str, deadline: int) -> None:
        self._hb_timers[member_id] = self.clock.schedule_at(
            deadline, lambda: self._heartbeat_timer_fired(member_id), f"session-expiry:{member_id}",
            SESSION_TIMER, member_id)

    def _heartbeat_timer_fired(self, member_id: str) -> None:
        deadline = self._hb_deadline.get(member_id)
        if deadline is not None and deadline > self.clock.now_ms:
            self._arm_heartbeat(member_id, deadline)
            return
        self._hb_deadline.pop(member_id, None)
        self._expire_heartbeat(member_id)

    def _cancel_heartbeat(self, member_id: str) -> None:
        self.member_touched(member_id)
        self._hb_deadline.pop(member_id, None)
        old = self._hb_timers.pop(member_id, None)
        if old is not None:
            old.cancel()

    def _schedule_join(self, delay_ms: int, action: Callable[[], None]) -> None:
        if self._join_timer is not None:
            self._join_timer.cancel()
        self._join_timer = self.clock.schedule(delay_ms, action, "join-timer")

    def _cancel_sync_timer(self) -> None:
        if self._sync_timer is not None:
            self._sync_timer.cancel()
            self._sync_timer = None

    def reschedule_member_heartbeat(self, member_id: str) -> None:
        m = self.members.get(member_id)
        if m is not None:
            self._schedule_heartbeat(member_id, m.session_timeout_ms)

    # ------------------------------------------------------------------ JoinGroup
    def join_group(self, req: JsonRecord, respond: Respond) -> None:
        """``GroupMetadataManager.classicGroupJoin`` for a classic group.  ``req`` has ``memberId``,
        ``groupInstanceId``, ``clientId``, ``sessionTimeoutMs``, ``rebalanceTimeoutMs``, ``protocols``."""
        if not self.active:
            respond({"error": NOT_COORDINATOR, "memberId": req["memberId"]})
            return
        # GroupCoordinatorService.joinGroup checks the session timeout against the broker's bounds first
        if not self.min_session_timeout_ms <= req["sessionTimeoutMs"] <= self.max_session_timeout_ms:
            respond({"error": INVALID_SESSION_TIMEOUT, "memberId": req["memberId"]})
            return
        if req["memberId"] == "":
            self._join_new_member(req, respond)
        else:
            self._join_existing_member(req, respond)

    def _join_new_member(self, req: JsonRecord, respond: Respond) -> None:
        if self.state == DEAD:
            respond({"error": COORDINATOR_NOT_AVAILABLE, "memberId": ""})
            return
        if not self.supports(req["protocols"]):
            respond({"error": INCONSISTENT_GROUP_PROTOCOL, "memberId": ""})
            return
        new_id = f"{req['clientId']}-{self._suffix(req['clientId'])}"
        instance = req.get("groupInstanceId")
        if instance is not None:
            existing = self.static_members.get(instance)
            if existing is not None:
                self._log("decision", what="replaceStaticMember", instance=instance, old=existing, new=new_id)
                self._update_static_member(req, instance, existing, new_id, respond)
            else:
                self._add_member_then_rebalance(req, new_id, respond)
        elif self.require_known_member_id:
            self.pending_join.add(new_id)
            self._schedule_heartbeat(new_id, req["sessionTimeoutMs"])
            respond({"error": MEMBER_ID_REQUIRED, "memberId": new_id})
        else:
            self._add_member_then_rebalance(req, new_id, respond)

    def _validate_member(self, member_id: str, instance_id: Optional[str]) -> Optional[str]:
        """``ClassicGroup.validateMember``: ``UNKNOWN_MEMBER_ID`` / ``FENCED_INSTANCE_ID`` or ``None``."""
        if instance_id is not None:
            existing = self.static_members.get(instance_id)
            if existing is None:
                return UNKNOWN_MEMBER_ID
            if existing != member_id:
                return FENCED_INSTANCE_ID
            return None
        if member_id not in self.members:
            return UNKNOWN_MEMBER_ID
        return None

    def _join_existing_member(self, req: JsonRecord, respond: Respond) -> None:
        member_id = req["memberId"]
        if self.state == DEAD:
            respond({"error": COORDINATOR_NOT_AVAILABLE, "memberId": member_id})
            return
        if not self.supports(req["protocols"]):
            respond({"error": INCONSISTENT_GROUP_PROTOCOL, "memberId": member_id})
            return
        if member_id in self.pending_join:
            self._add_member_then_rebalance(req, member_id, respond)
            return
        error = self._validate_member(member_id, req.get("groupInstanceId"))
        if error is not None:
            respond({"error": error, "memberId": member_id})
            return
        member = self.members[member_id]
        if self.state == PREPARING_REBALANCE:
            self._update_member_then_rebalance(member, req, respond, "member joining during rebalance")
        elif self.state == COMPLETING_REBALANCE:
            if member.matches(req["protocols"]):
                respond(self._join_response(member_id, leader_view=member_id == self.leader_id))
            else:
                self._update_member_then_rebalance(member, req, respond, "member metadata changed")
        elif self.state == STABLE:
            if member_id == self.leader_id:
                self._update_member_then_rebalance(member, req, respond, "leader rejoining")
            elif not member.matches(req["protocols"]):
                self._update_member_then_rebalance(member, req, respond, "member metadata changed")
            else:
                respond(self._join_response(member_id, leader_view=False))
        else:  # Empty
            respond({"error": UNKNOWN_MEMBER_ID, "memberId": member_id})

    def _join_response(self, member_id: str, leader_view: bool, skip_assignment: bool = False) -> JsonRecord:
        members = []
        if leader_view:
            for mid in self.member_ids():
                m = self.members[mid]
                members.append({"memberId": mid, "groupInstanceId": m.instance_id,
                                "metadata": m.metadata(self.protocol_name)})
        return {"error": NONE, "memberId": member_id, "generation": self.generation,
                "protocolName": self.protocol_name, "leader": self.leader_id, "members": members,
                "skipAssignment": skip_assignment}

    def _add_member_then_rebalance(self, req: JsonRecord, member_id: str, respond: Respond) -> None:
        member = GroupMember(member_id, req.get("groupInstanceId"), req["clientId"], req["sessionTimeoutMs"],
                             req["rebalanceTimeoutMs"], list(req["protocols"]), is_new=True)
        if self.state == PREPARING_REBALANCE and self.previous_state == EMPTY:
            self.new_member_added = True
        self._add(member, respond)
        # new members cannot heartbeat yet: their JoinGroup is timed out instead (classicGroupNewMemberJoinTimeoutMs)
        self._schedule_heartbeat(member_id, self.new_member_join_timeout_ms)
        self._maybe_prepare_rebalance_or_complete_join(f"adding member {member_id}")

    def _update_member_then_rebalance(self, member: GroupMember, req: JsonRecord, respond: Respond, reason: str) -> None:
        self._set_protocols(member, req["protocols"])
        member.rebalance_timeout_ms = req["rebalanceTimeoutMs"]
        member.session_timeout_ms = req["sessionTimeoutMs"]
        member.awaiting_join = respond
        self._maybe_prepare_rebalance_or_complete_join(f"{reason}: {member.member_id}")

    @staticmethod
    def _answer_parked(member: GroupMember, error: str) -> None:
        """Answer the member's parked JoinGroup and SyncGroup, if any, with ``error``."""
        if member.awaiting_join is not None:
            cb, member.awaiting_join = member.awaiting_join, None
            cb({"error": error, "memberId": member.member_id})
        if member.awaiting_sync is not None:
            cb, member.awaiting_sync = member.awaiting_sync, None
            cb({"error": error})

    def _update_static_member(self, req: JsonRecord, instance: str, old_id: str, new_id: str, respond: Respond) -> None:
        """``updateStaticMemberThenRebalanceOrCompleteJoin`` with ``ClassicGroup.replaceStaticMember``
        (``instance``: the group.instance.id that ``static_members`` maps to ``old_id``)."""
        self.member_touched(old_id)
        old = self.members[old_id]
        self._cancel_heartbeat(old_id)
        self._answer_parked(old, FENCED_INSTANCE_ID)
        self.members.pop(old_id)
        old.counter = None
        self._remove_id(old_id)
        new = GroupMember(new_id, old.instance_id, old.client_id, old.session_timeout_ms,
                          old.rebalance_timeout_ms, old.protocols, assignment=old.assignment,
                          counter=self._awaiting)
        self.members[new_id] = new
        self._put_id(new_id)
        self.static_members[instance] = new_id
        if self.leader_id == old_id:
            self.leader_id = new_id
        if old_id in self.pending_sync:
            self.pending_sync.discard(old_id)
            self.pending_sync.add(new_id)
        self._schedule_heartbeat(new_id, new.session_timeout_ms)
        self._set_protocols(new, req["protocols"])
        new.rebalance_timeout_ms = req["rebalanceTimeoutMs"]
        new.session_timeout_ms = req["sessionTimeoutMs"]
        new.awaiting_join = respond
        if self.state == STABLE:
            if self.protocol_name == self.select_protocol():
                # no rebalance: persist the new member id and hand back the current generation
                self._store()
                is_leader = new_id == self.leader_id
                new.awaiting_join = None
                respond(self._join_response(new_id, leader_view=is_leader, skip_assignment=is_leader))
            else:
                self._maybe_prepare_rebalance_or_complete_join(f"static member {new_id} changed protocol")
        elif self.state == COMPLETING_REBALANCE:
            self._prepare_rebalance(f"static member {new_id} replaced during CompletingRebalance")
        else:  # PreparingRebalance: the new member id simply takes part in the rebalance
            self._maybe_complete_join_phase()

    # ------------------------------------------------------------------ rebalance
    def _maybe_prepare_rebalance_or_complete_join(self, reason: str) -> None:
        if self.can_rebalance():
            self._prepare_rebalance(reason)
        else:
            self._maybe_complete_join_phase()

    def _prepare_rebalance(self, reason: str) -> None:
        if self.state == COMPLETING_REBALANCE:
            self._reset_and_propagate_assignment_with_error(REBALANCE_IN_PROGRESS)
        self._cancel_sync_timer()
        initial = self.state == EMPTY
        if initial:
            delay = self.initial_rebalance_delay_ms
            remaining = max(self.rebalance_timeout_ms() - delay, 0)
            self._schedule_join(delay, lambda: self._try_complete_initial_rebalance(delay, remaining))
        self._log("rebalance", reason=reason, generation=self.generation)
        self._transition(PREPARING_REBALANCE)
        if not initial:
            if self.has_all_members_joined():
                self._complete_join()
            else:
                self._schedule_join(self.rebalance_timeout_ms(), self._complete_join)

    def _try_complete_initial_rebalance(self, delay_ms: int, remaining_ms: int) -> None:
        if self.new_member_added and remaining_ms != 0:
            self.new_member_added = False
            new_delay = min(self.initial_rebalance_delay_ms, remaining_ms)
            new_remaining = max(remaining_ms - delay_ms, 0)
            self._schedule_join(new_delay, lambda: self._try_complete_initial_rebalance(new_delay, new_remaining))
        else:
            self._complete_join()

    def _maybe_complete_join_phase(self) -> None:
        if self.state != PREPARING_REBALANCE:
            return
        if self.previous_state == EMPTY:  # the initial rebalance waits for its delay
            return
        if not self.has_all_members_joined():
            return
        self._complete_join()

    def _complete_join(self) -> None:
        """``completeClassicGroupJoin``."""
        if self._join_timer is not None:
            self._join_timer.cancel()
            self._join_timer = None
        if not self.active or self.state != PREPARING_REBALANCE:
            return
        failed = [mid for mid in self.member_ids()
                  if self.members[mid].awaiting_join is None and self.members[mid].instance_id is None]
        for mid in failed:
            self._remove(mid)
            self._cancel_heartbeat(mid)
        if failed:
            self._log("decision", what="removeNotRejoined", members=failed)
        if self.members and not self._maybe_elect_new_joined_leader():
            self._log("decision", what="noMemberRejoined")
            self._schedule_join(self.rebalance_timeout_ms(), self._complete_join)
            return
        self.generation += 1
        self.pending_sync.clear()
        if not self.members:
            self.protocol_name = None
            self._transition(EMPTY)
            self._store()
            return
        self.protocol_name = self.select_protocol()
        self._transition(COMPLETING_REBALANCE)
        for mid in self.member_ids():
            member = self.members[mid]
            cb, member.awaiting_join = member.awaiting_join, None
            if cb is not None:
                cb(self._join_response(mid, leader_view=mid == self.leader_id))
            self.reschedule_member_heartbeat(mid)
            member.is_new = False
            self.pending_sync.add(mid)
        generation = self.generation
        self._sync_timer = self.clock.schedule(self.rebalance_timeout_ms(),
                                               lambda: self._expire_pending_sync(generation), "sync-timer")

    def _maybe_elect_new_joined_leader(self) -> bool:
        if self.leader_id is None:
            return False
        leader = self.members.get(self.leader_id)
        if leader is not None and leader.awaiting_join is not None:
            return True
        for mid in self.member_ids():
            if self.members[mid].awaiting_join is not None:
                self._log("decision", what="newLeader", old=self.leader_id, new=mid)
                self.leader_id = mid
                return True
        return False

    def _expire_pending_sync(self, generation: int) -> None:
        self._sync_timer = None
        if generation != self.generation or self.state not in (COMPLETING_REBALANCE, STABLE):
            return
        if self.pending_sync:
            gone = sorted(self.pending_sync)
            for mid in gone:
                self._remove(mid)
                self._cancel_heartbeat(mid)
            self._log("decision", what="pendingSyncExpired", members=gone)
            self._prepare_rebalance(f"removing {gone} on pending sync expiration")

    def _reset_and_propagate_assignment_with_error(self, error: str) -> None:
        for m in self.members.values():
            m.assignment = []
        self._propagate_assignment(error)

    def _propagate_assignment(self, error: str) -> None:
        for mid in self.member_ids():
            m = self.members[mid]
            if m.awaiting_sync is not None:
                cb, m.awaiting_sync = m.awaiting_sync, None
                if error == NONE:
                    cb({"error": NONE, "assignment": list(m.assignment), "protocolName": self.protocol_name})
                else:
                    cb({"error": error, "assignment": []})
                self.reschedule_member_heartbeat(mid)

    # ------------------------------------------------------------------ SyncGroup
    def sync_group(self, req: JsonRecord, respond: Respond) -> None:
        """``classicGroupSyncToClassicGroup``.  ``req``: ``memberId``, ``groupInstanceId``, ``generation``,
        ``assignments`` (the leader's ``{memberId: [(topic, partition), ...]}``, else empty)."""
        if not self.active:
            respond({"error": NOT_COORDINATOR})
            return
        if not self.members:
            respond({"error": UNKNOWN_MEMBER_ID})
            return
        member_id = req["memberId"]
        error = self._validate_member_generation(req)
        if error is not None:
            respond({"error": error})
            return
        if self.state == PREPARING_REBALANCE:
            respond({"error": REBALANCE_IN_PROGRESS})
        elif self.state == COMPLETING_REBALANCE:
            self.members[member_id].awaiting_sync = respond
            self.pending_sync.discard(member_id)
            if member_id == self.leader_id:
                assignments = req.get("assignments") or {}
                for mid, m in self.members.items():
                    m.assignment = list(assignments.get(mid, []))
                self._store()
                self._propagate_assignment(NONE)
                self._transition(STABLE)
        elif self.state == STABLE:
            self.pending_sync.discard(member_id)
            respond({"error": NONE, "assignment": list(self.members[member_id].assignment),
                     "protocolName": self.protocol_name})
        else:
            respond({"error": UNKNOWN_MEMBER_ID})

    def _validate_member_generation(self, req: JsonRecord) -> Optional[str]:
        """The checks SyncGroup and Heartbeat share: the member is known (and its instance id matches),
        then its generation is the group's (else ``ILLEGAL_GENERATION``)."""
        error = self._validate_member(req["memberId"], req.get("groupInstanceId"))
        if error is None and req["generation"] != self.generation:
            error = ILLEGAL_GENERATION
        return error

    def _refuse_unavailable(self, respond: Respond) -> bool:
        """Heartbeat and LeaveGroup first check that this broker still coordinates the group
        (``NOT_COORDINATOR``) and that the group is not ``Dead`` (``COORDINATOR_NOT_AVAILABLE``)."""
        if not self.active:
            respond({"error": NOT_COORDINATOR})
        elif self.state == DEAD:
            respond({"error": COORDINATOR_NOT_AVAILABLE})
        else:
            return False
        return True

    # ------------------------------------------------------------------ Heartbeat
    def heartbeat(self, req: JsonRecord, respond: Respond) -> None:
        """``classicGroupHeartbeatToClassicGroup``."""
        if self._refuse_unavailable(respond):
            return
        member_id = req["memberId"]
        error = self._validate_member_generation(req)
        if error is not None:
            respond({"error": error})
        elif self.state == EMPTY:
            respond({"error": UNKNOWN_MEMBER_ID})
        elif self.state == PREPARING_REBALANCE:
            self.reschedule_member_heartbeat(member_id)
            respond({"error": REBALANCE_IN_PROGRESS})
        else:
            self.reschedule_member_heartbeat(member_id)
            respond({"error": NONE})

    def _expire_heartbeat(self, member_id: str) -> None:
        """``expireClassicGroupMemberHeartbeat``."""
        self._hb_timers.pop(member_id, None)
        if not self.active or self.state == DEAD:
            return
        if member_id in self.pending_join:
            self._log("decision", what="pendingMemberExpired", member=member_id)
            self._remove(member_id)
            if self.state == PREPARING_REBALANCE and self.has_all_members_joined():
                self._complete_join()
            return
        member = self.members.get(member_id)
        if member is None or member.has_satisfied_heartbeat():
            return
        self._log("decision", what="sessionExpired", member=member_id)
        self._remove_member_and_update(member)

    def _remove_member_and_update(self, member: GroupMember) -> None:
        """``removeMemberAndUpdateClassicGroup``."""
        if member.awaiting_join is not None:
            cb, member.awaiting_join = member.awaiting_join, None
            cb({"error": UNKNOWN_MEMBER_ID, "memberId": ""})
        self._remove(member.member_id)
        self._cancel_heartbeat(member.member_id)
        if self.state in (STABLE, COMPLETING_REBALANCE):
            self._maybe_prepare_rebalance_or_complete_join(f"removing member {member.member_id}")
        elif self.state == PREPARING_REBALANCE and self.has_all_members_joined():
            self._complete_join()

    # ------------------------------------------------------------------ LeaveGroup
    def leave_group(self, req: JsonRecord, respond: Respond) -> None:
        """``classicGroupLeaveToClassicGroup`` for one member (``memberId`` and/or ``groupInstanceId``)."""
        if self._refuse_unavailable(respond):
            return
        member_id, instance = req.get("memberId", ""), req.get("groupInstanceId")
        if member_id == "":
            if instance is None or instance not in self.static_members:
                respond({"error": UNKNOWN_MEMBER_ID})
                return
            member_id = self.static_members[instance]
        elif member_id in self.pending_join:
            self._remove(member_id)
            self._cancel_heartbeat(member_id)
            respond({"error": NONE})
            return
        else:
            error = self._validate_member(member_id, instance)
            if error is not None:
                respond({"error": error})
                return
        member = self.members[member_id]
        if member.awaiting_join is not None:
            cb, member.awaiting_join = member.awaiting_join, None
            cb({"error": UNKNOWN_MEMBER_ID, "memberId": ""})
        self._remove(member_id)
        self._cancel_heartbeat(member_id)
        respond({"error": NONE})
        if self.state in (STABLE, COMPLETING_REBALANCE):
            self._maybe_prepare_rebalance_or_complete_join(f"member {member_id} left")
        elif self.state == PREPARING_REBALANCE:
            self._maybe_complete_join_phase()

    # ------------------------------------------------------------------ persistence / failover
    def _store(self) -> None:
        # protocol and assignment lists are replaced, never mutated, so the record can share them
        members = list(map(_RECORD, map(self.members.__getitem__, self.member_ids())))
        self._persist(GroupSnapshot(self.generation, self.protocol_name, self.leader_id, members))

    def unload(self) -> None:
        """The broker loses leadership of the group's ``__consumer_offsets`` partition: parked requests
        are answered ``NOT_COORDINATOR`` and every timer stops."""
        self.state_changing()
        self.active = False
        for t in list(self._hb_timers.values()):
            t.cancel()
        self._hb_timers.clear()
        self._hb_deadline.clear()
        if self._join_timer is not None:
            self._join_timer.cancel()
        self._cancel_sync_timer()
        for mid in self.member_ids():
            self._answer_parked(self.members[mid], NOT_COORDINATOR)
        for mid in list(self.pending_join):
            self.pending_join.discard(mid)
        self.previous_state, self.state = self.state, DEAD
        self._log("state", state=DEAD, previous=self.previous_state, generation=self.generation)

    def load(self, snapshot: Optional[GroupSnapshot]) -> None:
        """A new coordinator loads the last group record: ``Stable`` with the stored members and
        assignment (``Empty`` without members); every member's session timer starts afresh."""
        if snapshot is not None:
            self.generation = snapshot.generation
            self.protocol_name = snapshot.protocol_name
            for mid, instance, client, session, rebalance, protocols, assignment in snapshot.members:
                self._add(GroupMember(mid, instance, client, session, rebalance, list(protocols),
                                      assignment=list(assignment)), None)
            self.leader_id = snapshot.leader_id if snapshot.members else None
        self.previous_state = None
        self.state = STABLE if self.members else EMPTY
        self._log("state", state=self.state, previous="(loaded)", generation=self.generation)
        for mid in self.member_ids():
            self.reschedule_member_heartbeat(mid)
