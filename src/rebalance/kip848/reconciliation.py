"""KIP-848 reconciliation on the shared virtual clock: epochs, target assignment, revocation before release.

The model follows the group coordinator of Kafka 3.8/3.9 (``GroupMetadataManager.consumerGroupHeartbeat``,
``CurrentAssignmentBuilder``, ``ConsumerGroup`` partition epochs, ``ConsumerGroupMember``) and the client's
heartbeat loop (``AsyncKafkaConsumer`` membership manager), stripped to what decides *when* a partition
moves:

* **Group epoch.**  A member joining, leaving, being fenced or changing its subscription bumps the group
  epoch.  The next heartbeat from *any* member then recomputes the **target assignment** with the real
  server-side assignor (:mod:`rebalance.kip848.uniform` or :mod:`rebalance.kip848.range`) and stamps it with
  that epoch (the *assignment epoch*).
* **Member epoch and state** (``MemberState``).  On each heartbeat a member that is not reconciled to the
  target is advanced by ``CurrentAssignmentBuilder``: partitions it keeps stay *assigned*; partitions it
  must give up become *pending revocation* and the member waits in ``UNREVOKED_PARTITIONS`` (at its old
  epoch) until a heartbeat no longer reports them as owned; new partitions are handed out only when their
  **partition epoch** is ``-1`` (nobody holds them); otherwise the member moves to the new epoch in
  ``UNRELEASED_PARTITIONS`` and picks them up on a later heartbeat.
* **Client.**  A member heartbeats every ``heartbeat_interval_ms`` (``group.consumer.heartbeat.interval.ms``,
  5 s by default), and at once after finishing a reconciliation (the acknowledgement).  Revoking takes
  ``revocation_ms`` (commit + ``onPartitionsRevoked``), starting new partitions ``assignment_ms``; messages
  take ``latency_ms`` each way.  A graceful shutdown revokes everything, then sends epoch ``-1`` (``-2`` for
  a static member, whose assignment is then kept for it for ``session_timeout_ms``).

No member ever stops for a group-wide barrier: only the partitions that move are paused.  The model records
a trace of events and, per scenario, the time to a stable group, the unowned partition-seconds, the
partitions moved and the heartbeats sent.  The times are those of the model (its latency and callback
durations are assumptions, stated in :class:`KIP848Config`); the order of events and the epochs are
Kafka's.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Set, Tuple

from ..errors import InputError, SimulationError
from ..protocol.clock import VirtualClock
from .group import MemberInput, TopicCatalog, build_group_spec, check_group_size
from .range import assign_range
from .uniform import assign_uniform

TP = Tuple[str, int]

STABLE = "STABLE"
UNREVOKED_PARTITIONS = "UNREVOKED_PARTITIONS"
UNRELEASED_PARTITIONS = "UNRELEASED_PARTITIONS"

LEAVE_GROUP_MEMBER_EPOCH = -1
LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2

_ASSIGNORS = {"uniform": assign_uniform, "range": assign_range}

__all__ = [
    "KIP848Config", "GroupCoordinatorModel", "ConsumerGroupMember", "ClientMember", "KIP848Simulation",
    "SimulationResult", "TraceEvent", "compute_next_assignment", "simulate", "SCENARIOS",
]


#: The brokers' bounds on the two KIP-848 timings (``GroupCoordinatorConfig``, Kafka 3.8/3.9, lines 95-115:
#: ``group.consumer.min/max.heartbeat.interval.ms`` and ``group.consumer.min/max.session.timeout.ms``);
#: a client cannot ask for a value outside them.
BROKER_BOUNDS_MS = {"group.consumer.heartbeat.interval.ms": (5_000, 15_000),
                    "group.consumer.session.timeout.ms": (45_000, 60_000)}


@dataclass(frozen=True)
class KIP848Config:
    """Timings of the model.  Kafka defaults: heartbeat 5 s (``group.consumer.heartbeat.interval.ms``),
    session 45 s (``group.consumer.session.timeout.ms``), rebalance timeout = ``max.poll.interval.ms``
    (300 s).  ``latency_ms``, ``revocation_ms``, ``assignment_ms`` and ``restart_ms`` are assumptions of
    the model (network, commit + callbacks, process restart)."""

    heartbeat_interval_ms: int = 5000
    session_timeout_ms: int = 45000
    rebalance_timeout_ms: int = 300000
    latency_ms: int = 2
    revocation_ms: int = 100
    assignment_ms: int = 10
    restart_ms: int = 10000
    assignor: str = "uniform"

    def validate(self) -> "KIP848Config":
        for name in ("heartbeat_interval_ms", "session_timeout_ms", "rebalance_timeout_ms"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) <= 0:
                raise InputError(f"config.{name}", f"must be a positive number of ms, got {getattr(self, name)!r}")
        for name in ("latency_ms", "revocation_ms", "assignment_ms", "restart_ms"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 0:
                raise InputError(f"config.{name}", f"must be >= 0 ms, got {getattr(self, name)!r}")
        if self.heartbeat_interval_ms >= self.session_timeout_ms:
            # GroupCoordinatorConfig (Kafka 3.8/3.9, line 341): require(consumerGroupHeartbeatIntervalMs <
            # consumerGroupSessionTimeoutMs); otherwise every member is fenced between two heartbeats
            raise InputError("config.heartbeat_interval_ms",
                             f"must be less than config.session_timeout_ms ({self.session_timeout_ms}), "
                             f"got {self.heartbeat_interval_ms}")
        if self.assignor not in _ASSIGNORS:
            raise InputError("config.assignor", f"must be one of {', '.join(_ASSIGNORS)}, got {self.assignor!r}")
        return self


# ---------------------------------------------------------------------------------------------
# coordinator side


def _copy(assignment: Mapping[str, Set[int]]) -> Dict[str, Set[int]]:
    return {t: set(p) for t, p in assignment.items() if p}


def _tps(assignment: Mapping[str, Set[int]]) -> Set[TP]:
    return {(t, p) for t, parts in assignment.items() for p in parts}


def _names(assignment: Mapping[str, Set[int]]) -> List[str]:
    return [f"{t}-{p}" for t, p in sorted(_tps(assignment))]


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
                            target: Mapping[str, Set[int]], partition_epoch, owned: Optional[Set[TP]]
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

    def moved(state, epoch, assigned, revocation):
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


def owns_revoked_partitions(pending: Mapping[str, Set[int]], owned: Optional[Set[TP]]) -> bool:
    """``CurrentAssignmentBuilder.ownsRevokedPartitions`` (no owned list = still owns them)."""
    if owned is None:
        return True
    return any(p in pending.get(t, ()) for t, p in owned)


def current_assignment_build(member: ConsumerGroupMember, target_epoch: int, target: Mapping[str, Set[int]],
                             partition_epoch, owned: Optional[Set[TP]]) -> ConsumerGroupMember:
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


@dataclass
class HeartbeatResponse:
    member_id: str
    member_epoch: int
    assignment: Optional[Dict[str, Set[int]]]  # None when unchanged
    error: Optional[str] = None


class GroupCoordinatorModel:
    """The consumer-group half of ``GroupMetadataManager`` for one group."""

    def __init__(self, catalog: TopicCatalog, config: KIP848Config, clock: VirtualClock, log):
        self.catalog = catalog
        self.config = config
        self.clock = clock
        self.log = log
        self.group_epoch = 0
        self.assignment_epoch = 0
        self.members: Dict[str, ConsumerGroupMember] = {}
        self.static_members: Dict[str, str] = {}
        self.target: Dict[str, object] = {}  # member id -> JMap of the last target assignment
        self.partition_epochs: Dict[TP, int] = {}
        self.session_timers: Dict[str, object] = {}
        self.heartbeats = 0
        self.assignments_computed = 0

    # -- partition epochs (ConsumerGroup.maybeUpdatePartitionEpoch) ---------------------------------
    def partition_epoch(self, topic: str, partition: int) -> int:
        return self.partition_epochs.get((topic, partition), -1)

    def _update_member(self, old: Optional[ConsumerGroupMember], new: Optional[ConsumerGroupMember]) -> None:
        if old is not None:
            for tp in _tps(old.assigned) | _tps(old.pending_revocation):
                if self.partition_epochs.get(tp) != old.member_epoch:
                    raise AssertionError(f"partition {tp} not held at epoch {old.member_epoch}")
                del self.partition_epochs[tp]
        if new is not None:
            for tp in _tps(new.assigned) | _tps(new.pending_revocation):
                if tp in self.partition_epochs:
                    raise AssertionError(f"partition {tp} still owned at epoch {self.partition_epochs[tp]}")
                self.partition_epochs[tp] = new.member_epoch
            self.members[new.member_id] = new
        elif old is not None:
            self.members.pop(old.member_id, None)

    def target_of(self, member: ConsumerGroupMember) -> Dict[str, Set[int]]:
        jmap = self.target.get(member.member_id)
        if jmap is None:
            return {}
        return {self.catalog.name_of(t): set(p) for t, p in jmap.items()}

    # -- target assignment (TargetAssignmentBuilder) ------------------------------------------------
    def _update_target_assignment(self) -> None:
        inputs = [MemberInput(m.member_id, list(m.subscriptions), self.target.get(m.member_id), m.instance_id)
                  for m in self.members.values()]
        spec = build_group_spec(inputs, self.catalog)
        result = _ASSIGNORS[self.config.assignor](spec, self.catalog.describer())
        self.target = {m: result.members.get(m) for m in self.members}
        self.assignment_epoch = self.group_epoch
        self.assignments_computed += 1
        self.log("coordinator", "target-assignment",
                 {"epoch": self.group_epoch, "builder": result.builder,
                  "target": {m: _names(self.target_of(self.members[m])) for m in self.members}})

    def _bump(self, reason: str) -> None:
        self.group_epoch += 1
        self.log("coordinator", "group-epoch", {"epoch": self.group_epoch, "reason": reason})

    # -- heartbeat -----------------------------------------------------------------------------------
    def heartbeat(self, member_id: str, member_epoch: int, subscriptions: Sequence[str],
                  owned: Optional[Set[TP]], instance_id: Optional[str] = None) -> HeartbeatResponse:
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
                                                  previous.state, _copy(previous.assigned), _copy(previous.pending_revocation))
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
        if self.group_epoch > self.assignment_epoch:
            self._update_target_assignment()
        before = self.members[member_id]
        if not before.is_reconciled_to(self.assignment_epoch):
            after = current_assignment_build(before, self.assignment_epoch, self.target_of(before),
                                             self.partition_epoch, owned)
            if after != before:
                self._update_member(before, after)
                self.log(member_id, "member-epoch",
                         {"epoch": after.member_epoch, "state": after.state,
                          "assigned": _names(after.assigned), "pending_revocation": _names(after.pending_revocation),
                          "target_epoch": self.assignment_epoch})
            member = after
        else:
            member = before
        self._schedule_session(member_id)
        changed = old is None or member_epoch == 0 or member.assigned != (old.assigned if old else None)
        return HeartbeatResponse(member_id, member.member_epoch, _copy(member.assigned) if changed else None)

    def _leave(self, member_id: str, epoch: int, instance_id: Optional[str]) -> HeartbeatResponse:
        member = self.members.get(member_id)
        if member is None:
            return HeartbeatResponse(member_id, epoch, None, "UnknownMemberIdException")
        if epoch == LEAVE_GROUP_STATIC_MEMBER_EPOCH and instance_id is not None:
            left = ConsumerGroupMember(member.member_id, member.subscriptions, member.instance_id,
                                       LEAVE_GROUP_STATIC_MEMBER_EPOCH, member.member_epoch, member.state,
                                       _copy(member.assigned), {})
            self._update_member(member, left)
            self.log(member_id, "static-leave", {"kept": _names(left.assigned)})
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


# ---------------------------------------------------------------------------------------------
# client side


@dataclass
class ClientMember:
    """A consumer using ``group.protocol=consumer``: its heartbeat loop and reconciliation."""

    member_id: str
    subscriptions: Tuple[str, ...]
    instance_id: Optional[str] = None
    epoch: int = 0
    owned: Set[TP] = field(default_factory=set)
    running: bool = False
    leaving: bool = False
    reconciling: bool = False
    pending_target: Optional[Set[TP]] = None
    timer: object = None
    heartbeats: int = 0


@dataclass
class TraceEvent:
    time_ms: int
    actor: str
    event: str
    detail: dict

    def to_json(self) -> dict:
        return {"time_ms": self.time_ms, "actor": self.actor, "event": self.event, "detail": self.detail}


@dataclass
class SimulationResult:
    """The metrics of one scenario, measured from the scenario's first action until the group is stable
    again (all members ``STABLE`` at the group epoch, every subscribed partition owned by exactly its target
    member on the client side)."""

    scenario: str
    protocol: str
    start_ms: int
    stable_ms: Optional[int]
    unowned_partition_seconds: float
    partitions_moved: int
    revocations: int
    partitions_stopped: int  # every release after the start: revocations plus partitions lost in a crash
    heartbeats: int
    group_epoch: int
    assignments_computed: int
    final_assignment: Dict[str, List[str]]
    trace: List[TraceEvent]
    ownership: List[Tuple[int, str, str, TP]]  # (time, member, "add"|"remove", partition)
    epochs: List[Tuple[int, str, int, str]]    # (time, member, epoch, state) as the coordinator sets them
    group_epochs: List[Tuple[int, int]]

    @property
    def time_to_stable_ms(self) -> Optional[int]:
        return None if self.stable_ms is None else self.stable_ms - self.start_ms

    def summary(self) -> dict:
        return {"scenario": self.scenario, "protocol": self.protocol,
                "time_to_stable_ms": self.time_to_stable_ms,
                "unowned_partition_seconds": round(self.unowned_partition_seconds, 3),
                "partitions_moved": self.partitions_moved, "revocations": self.revocations,
                "partitions_stopped": self.partitions_stopped,
                "heartbeats": self.heartbeats, "group_epoch": self.group_epoch}


class KIP848Simulation:
    """Members and one coordinator on a :class:`~rebalance.protocol.clock.VirtualClock`."""

    def __init__(self, topics, config: Optional[KIP848Config] = None, clock: Optional[VirtualClock] = None):
        self.config = (config or KIP848Config()).validate()
        self.clock = clock or VirtualClock()
        self.catalog = topics if isinstance(topics, TopicCatalog) else TopicCatalog.parse(topics)
        self.trace: List[TraceEvent] = []
        self.ownership: List[Tuple[int, str, str, TP]] = []
        self.epochs: List[Tuple[int, str, int, str]] = []
        self.group_epochs: List[Tuple[int, int]] = []
        self.coordinator = GroupCoordinatorModel(self.catalog, self.config, self.clock, self._log)
        self.clients: Dict[str, ClientMember] = {}
        self.last_owner: Dict[TP, str] = {}
        self.moves = 0
        self.revocations = 0
        self._restarts = 0

    # -- bookkeeping ---------------------------------------------------------------------------------
    def _log(self, actor: str, event: str, detail: dict) -> None:
        self.trace.append(TraceEvent(self.clock.now_ms, actor, event, detail))
        if event == "member-epoch":
            self.epochs.append((self.clock.now_ms, actor, detail["epoch"], detail["state"]))
        elif event == "group-epoch":
            self.group_epochs.append((self.clock.now_ms, detail["epoch"]))

    def all_partitions(self) -> Set[TP]:
        subscribed = {t for c in self.coordinator.members.values() for t in c.subscriptions}
        return {(t.name, p) for t in self.catalog.topics() if t.name in subscribed for p in range(t.partitions)}

    def owners(self) -> Dict[TP, List[str]]:
        result: Dict[TP, List[str]] = {}
        for c in self.clients.values():
            for tp in c.owned:
                result.setdefault(tp, []).append(c.member_id)
        return result

    def is_stable(self) -> bool:
        co = self.coordinator
        if co.group_epoch != co.assignment_epoch:
            return False
        for client in self.clients.values():
            if client.running and not client.leaving and client.member_id not in co.members:
                return False
        active = [m for m in co.members.values() if m.member_epoch >= 0]
        if any(not m.is_reconciled_to(co.assignment_epoch) for m in active):
            return False
        for m in active:
            client = self.clients.get(m.member_id)
            if client is None or not client.running or client.reconciling or client.owned != _tps(m.assigned):
                return False
            if _tps(m.assigned) != _tps(co.target_of(m)):
                return False
        owned = {tp for c in self.clients.values() if c.running for tp in c.owned}
        reserved = {tp for m in co.members.values() if m.member_epoch < 0 for tp in _tps(m.assigned)}
        return owned | reserved >= self.all_partitions()

    # -- client actions -------------------------------------------------------------------------------
    def start_member(self, member_id: str, subscriptions: Sequence[str], instance_id: Optional[str] = None) -> ClientMember:
        client = ClientMember(member_id, tuple(subscriptions), instance_id)
        self.clients[member_id] = client
        client.running = True
        self._log(member_id, "start", {"instance_id": instance_id})
        self._send_heartbeat(client)
        return client

    def _send_heartbeat(self, client: ClientMember, epoch: Optional[int] = None, then=None) -> None:
        if client.timer is not None:
            client.timer.cancel()
            client.timer = None
        epoch = client.epoch if epoch is None else epoch
        owned = set(client.owned)
        client.heartbeats += 1
        self._log(client.member_id, "heartbeat", {"epoch": epoch, "owned": len(owned)})

        def arrive():
            resp = self.coordinator.heartbeat(client.member_id, epoch, client.subscriptions, owned, client.instance_id)
            self.clock.schedule(self.config.latency_ms, lambda: self._on_response(client, resp, then),
                                f"response {client.member_id}")

        self.clock.schedule(self.config.latency_ms, arrive, f"heartbeat {client.member_id}")
        if epoch >= 0:
            client.timer = self.clock.schedule(self.config.heartbeat_interval_ms,
                                               lambda: self._send_heartbeat(client), f"interval {client.member_id}")

    def _on_response(self, client: ClientMember, resp: HeartbeatResponse, then) -> None:
        if then is not None:
            then(resp)
            return
        if not client.running or client.leaving:
            return
        if resp.error is not None:
            self._log(client.member_id, "error", {"error": resp.error})
            return
        client.epoch = resp.member_epoch
        if resp.assignment is not None:
            target = _tps(resp.assignment)
            if client.reconciling:
                client.pending_target = target
            elif target != client.owned:
                self._reconcile(client, target)

    def _reconcile(self, client: ClientMember, target: Set[TP]) -> None:
        client.reconciling = True
        revoked = client.owned - target
        added = target - client.owned
        self._log(client.member_id, "reconcile", {"revoke": [f"{t}-{p}" for t, p in sorted(revoked)],
                                                  "assign": [f"{t}-{p}" for t, p in sorted(added)]})

        def after_revoke():
            if not client.running:
                return
            for tp in sorted(revoked):
                client.owned.discard(tp)
                self.revocations += 1
                self.ownership.append((self.clock.now_ms, client.member_id, "remove", tp))
            self.clock.schedule(self.config.assignment_ms if added else 0, after_assign, f"assigned {client.member_id}")

        def after_assign():
            if not client.running:
                return
            for tp in sorted(added):
                owners = [c.member_id for c in self.clients.values() if tp in c.owned]
                if owners:
                    raise AssertionError(f"{tp} given to {client.member_id} while {owners} still own it")
                client.owned.add(tp)
                consumer = client.member_id.split("~")[0]  # the process, across restarts
                if self.last_owner.get(tp) not in (None, consumer):
                    self.moves += 1
                self.last_owner[tp] = consumer
                self.ownership.append((self.clock.now_ms, client.member_id, "add", tp))
            client.reconciling = False
            self._log(client.member_id, "reconciled", {"owned": [f"{t}-{p}" for t, p in sorted(client.owned)]})
            nxt, client.pending_target = client.pending_target, None
            if nxt is not None and nxt != client.owned:
                self._reconcile(client, nxt)
            else:
                self._send_heartbeat(client)  # the acknowledgement goes out at once

        self.clock.schedule(self.config.revocation_ms if revoked else 0, after_revoke, f"revoked {client.member_id}")

    def stop_member(self, member_id: str, restart_after_ms: Optional[int] = None) -> None:
        """Graceful shutdown: revoke everything, then leave (epoch -1, or -2 for a static member)."""
        client = self.clients[member_id]
        if client.timer is not None:
            client.timer.cancel()
            client.timer = None
        client.leaving = True
        self._log(member_id, "shutdown", {"owned": len(client.owned)})

        def revoked():
            for tp in sorted(client.owned):
                self.revocations += 1
                self.ownership.append((self.clock.now_ms, member_id, "remove", tp))
            client.owned = set()
            client.running = False
            epoch = LEAVE_GROUP_STATIC_MEMBER_EPOCH if client.instance_id is not None else LEAVE_GROUP_MEMBER_EPOCH
            self._send_heartbeat(client, epoch, then=lambda resp: None)
            if restart_after_ms is not None:
                self.clock.schedule(restart_after_ms, lambda: self._restart(client), f"restart {member_id}")

        self.clock.schedule(self.config.revocation_ms if client.owned else 0, revoked, f"leave {member_id}")

    def crash_member(self, member_id: str) -> None:
        """The process dies: no leave; the coordinator notices after the session timeout."""
        client = self.clients[member_id]
        if client.timer is not None:
            client.timer.cancel()
        for tp in sorted(client.owned):
            self.ownership.append((self.clock.now_ms, member_id, "remove", tp))
        client.owned = set()
        client.running = False
        self._log(member_id, "crash", {})

    def _restart(self, old: ClientMember) -> None:
        self._restarts += 1
        # a restarted consumer gets a new member id; a static one keeps its group.instance.id
        base = old.member_id.split("~")[0]
        new_id = f"{base}~{self._restarts}"
        del self.clients[old.member_id]
        self.start_member(new_id, old.subscriptions, old.instance_id)

    # -- running ----------------------------------------------------------------------------------
    def run_until_stable(self, max_ms: int = 3_600_000, min_time_ms: Optional[int] = None,
                         idle=None) -> Optional[int]:
        """Run events until the group is stable (and ``idle()`` is true, if given) at or after
        ``min_time_ms``; returns that time or ``None``."""
        limit = self.clock.now_ms + max_ms
        while True:
            t = self.clock.peek_time()
            ready = (min_time_ms is None or self.clock.now_ms >= min_time_ms) and (idle is None or idle())
            if ready and self.is_stable():
                return self.clock.now_ms
            if t is None or t > limit:
                return None
            self.clock.step()


def _unowned_partition_seconds(sim: KIP848Simulation, start: int, end: int) -> float:
    """Integral of the number of subscribed partitions no running client owns, from ``start`` to ``end``."""
    partitions = sim.all_partitions()
    owned: Dict[TP, int] = {}
    events = sorted(sim.ownership, key=lambda e: e[0])
    for time, _, kind, tp in events:
        if time > start:
            break
        owned[tp] = owned.get(tp, 0) + (1 if kind == "add" else -1)
    total = 0.0
    last = start
    unowned = sum(1 for tp in partitions if owned.get(tp, 0) <= 0)
    for time, _, kind, tp in events:
        if time <= start:
            continue
        if time > end:
            break
        total += unowned * (time - last)
        last = time
        owned[tp] = owned.get(tp, 0) + (1 if kind == "add" else -1)
        unowned = sum(1 for p in partitions if owned.get(p, 0) <= 0)
    total += unowned * (end - last)
    return total / 1000.0


SCENARIOS = ("join", "leave", "crash", "rolling_restart")


def simulate(scenario: str = "join", members: int = 3, topics=None, *, static: bool = False,
             config: Optional[KIP848Config] = None, start_ms: Optional[int] = None, gap_ms: Optional[int] = None,
             names: Optional[Sequence[str]] = None, max_ms: int = 3_600_000) -> SimulationResult:
    """Run one scenario on a fresh group of ``members`` consumers subscribed to every topic.

    * ``join``: one more member joins a stable group;
    * ``leave``: the last member shuts down gracefully;
    * ``crash``: the last member dies (the coordinator waits for the session timeout);
    * ``rolling_restart``: each member in turn shuts down, restarts ``config.restart_ms`` later and rejoins;
      the next one goes ``gap_ms`` after the previous shutdown or, without ``gap_ms``, once the group is
      stable again.  With ``static=True`` members have a ``group.instance.id`` and their partitions wait
      for them.

    The group is first formed through the protocol itself; the scenario starts at ``start_ms`` (default:
    half a heartbeat interval after the group first became stable) and the metrics count from there.
    ``names`` are member ids: the first ``members`` form the group, the next one (if given) joins.
    """
    if scenario not in SCENARIOS:
        raise InputError("scenario", f"must be one of {', '.join(SCENARIOS)}, got {scenario!r}")
    if not isinstance(members, int) or isinstance(members, bool) or members < 1:
        raise InputError("members", f"must be a member count >= 1, got {members!r}")
    if gap_ms is not None and (not isinstance(gap_ms, int) or gap_ms <= 0):
        raise InputError("gap_ms", f"must be a positive number of ms, got {gap_ms!r}")
    if not isinstance(max_ms, int) or isinstance(max_ms, bool) or max_ms <= 0:
        raise InputError("max_ms", f"must be a positive number of ms, got {max_ms!r}")
    topics = {"orders": 12} if topics is None else topics
    sim = KIP848Simulation(topics, config)
    check_group_size(sim.catalog, members + 1)
    cfg = sim.config
    topic_names = [t.name for t in sim.catalog.topics()]
    if names is not None and (len(names) < members or len(set(names)) != len(names)
                              or not all(isinstance(n, str) and n and "~" not in n for n in names)):
        raise InputError("names", f"must be at least {members} distinct member ids without '~'")
    ids = list(names[:members]) if names is not None else [f"consumer-{i + 1}" for i in range(members)]
    for i, mid in enumerate(ids):
        sim.clock.schedule(i, lambda mid=mid: sim.start_member(mid, topic_names, f"instance-{mid}" if static else None),
                           f"start {mid}")
    sim.clock.run_until(0)
    formed = sim.run_until_stable(max_ms)
    if formed is None:
        raise SimulationError("max_ms", f"the initial group of {members} member(s) was not stable within "
                                        f"max_ms={max_ms} ms of virtual time; raise max_ms")
    if start_ms is None:
        start_ms = formed + cfg.heartbeat_interval_ms // 2
    elif not isinstance(start_ms, int) or start_ms < formed:
        raise InputError("start_ms", f"must be a time after the group formed ({formed} ms), got {start_ms!r}")
    sim.clock.run_until(start_ms)
    start = start_ms
    hb_before = sim.coordinator.heartbeats
    moves_before, revocations_before = sim.moves, sim.revocations
    trace_from = len(sim.trace)
    stable: Optional[int] = None
    if scenario == "join":
        new_id = names[members] if names is not None and len(names) > members else f"consumer-{members + 1}"
        sim.start_member(new_id, topic_names, f"instance-{new_id}" if static else None)
        stable = sim.run_until_stable(max_ms)
    elif scenario == "leave":
        sim.stop_member(ids[-1])
        stable = sim.run_until_stable(max_ms, idle=lambda: ids[-1] not in sim.coordinator.members)
    elif scenario == "crash":
        sim.crash_member(ids[-1])
        stable = sim.run_until_stable(max_ms, idle=lambda: ids[-1] not in sim.coordinator.members)
    elif gap_ms is not None:
        def bounce(mid):
            current = [c for c in sim.clients if c.split("~")[0] == mid]
            sim.stop_member(current[-1], restart_after_ms=cfg.restart_ms)
        for i, mid in enumerate(ids):
            sim.clock.schedule_at(start + i * gap_ms, lambda mid=mid: bounce(mid), f"bounce {mid}")
        last_back = start + (members - 1) * gap_ms + cfg.restart_ms + cfg.revocation_ms

        def all_back():
            return sim.clock.now_ms > last_back and all(
                any(c.split("~")[0] == mid and sim.clients[c].running for c in sim.clients) for mid in ids)
        stable = sim.run_until_stable(max_ms, idle=all_back)
    else:
        for mid in ids:
            current = [c for c in sim.clients if c.split("~")[0] == mid]
            sim.stop_member(current[-1], restart_after_ms=cfg.restart_ms)
            started = sim.clock.now_ms

            def back(mid=mid, started=started):
                return sim.clock.now_ms > started + cfg.restart_ms and any(
                    c.split("~")[0] == mid and sim.clients[c].running for c in sim.clients)
            stable = sim.run_until_stable(max_ms, idle=back)
            if stable is None:
                break
    end = stable if stable is not None else sim.clock.now_ms
    final = {m.member_id: [f"{t}-{p}" for t, p in sorted(_tps(m.assigned))]
             for m in sim.coordinator.members.values()}
    return SimulationResult(
        scenario=scenario + ("-static" if static else ""),
        protocol=f"consumer ({cfg.assignor})", start_ms=start, stable_ms=stable,
        unowned_partition_seconds=_unowned_partition_seconds(sim, start, end),
        partitions_moved=sim.moves - moves_before, revocations=sim.revocations - revocations_before,
        partitions_stopped=sum(1 for t, _, kind, _ in sim.ownership if kind == "remove" and start <= t <= end),
        heartbeats=sim.coordinator.heartbeats - hb_before, group_epoch=sim.coordinator.group_epoch,
        assignments_computed=sim.coordinator.assignments_computed, final_assignment=final,
        trace=sim.trace[trace_from:], ownership=list(sim.ownership), epochs=list(sim.epochs),
        group_epochs=list(sim.group_epochs))
