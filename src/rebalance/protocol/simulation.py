"""A deterministic discrete-event simulation of Kafka's classic group protocol.

One group, one coordinator (the leader of the group's ``__consumer_offsets`` partition, see
:mod:`.coordinator`), any number of members (:mod:`.member`), a network with a fixed one-way latency, and a
:class:`~.clock.VirtualClock`.  Faults: member crash and restart, graceful shutdown, a slow member (no
``poll()`` for a while), the leader lost between JoinGroup and SyncGroup, coordinator failover.

Time costs on the client side are explicit settings of :class:`ProtocolConfig`: ``revoke_ms`` (the
``onPartitionsRevoked`` callback) and ``poll_batch_ms`` (a rejoin waits until the application finishes its
current batch of records and calls ``poll()``).  Both default to 0, which makes walkthrough traces short
and exact; use realistic values when comparing protocols.

Every run records

* ``messages`` -- every request and response with its send and receive time (for sequence diagrams);
* ``events`` -- state changes, decisions, revocations, assignments, faults, with virtual time;
* an ownership ledger -- who processed which partition when (for timelines and invariants);

and :meth:`GroupSimulation.metrics` summarises rebalances, generations, time to stable, partition-seconds
with no owner, partitions stopped and restarted, and overlaps: ``double_ownership`` (two group members own
a partition at once -- never in Kafka) apart from ``zombie_overlap`` (a process the coordinator already
dropped still processes its last batch while the partition's new owner starts -- Kafka's zombie window).  Same inputs, same run: nothing depends on wall-clock
time or unseeded randomness.
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ..errors import InputError, require
from .assignors import (BUILTIN_PROTOCOLS, COOPERATIVE, EAGER, ClientAssignor, consumer_assignor,
                        rebalance_protocol_for)
from .clock import VirtualClock
from .coordinator import OFFSETS_TOPIC_PARTITIONS_DEFAULT, partition_for, simple_leaders
from .group import (COMPLETING_REBALANCE, COORDINATOR_NOT_AVAILABLE, NONE, NOT_COORDINATOR,
                    PREPARING_REBALANCE, STABLE, ClassicGroupCoordinator, GroupMember, GroupSnapshot)
from .member import ConsumerMember, STABLE as MEMBER_STABLE

TopicPartition = Tuple[str, int]


@dataclass(frozen=True)
class ProtocolConfig:
    """Client and broker settings (Kafka 3.x defaults)."""

    session_timeout_ms: int = 45_000          # session.timeout.ms
    rebalance_timeout_ms: int = 300_000       # max.poll.interval.ms (sent as the rebalance timeout)
    heartbeat_interval_ms: int = 3_000        # heartbeat.interval.ms
    initial_rebalance_delay_ms: int = 3_000   # group.initial.rebalance.delay.ms (broker)
    new_member_join_timeout_ms: int = 300_000  # classic group new member join timeout (broker)
    network_ms: int = 1                       # one-way latency of every request and response
    revoke_ms: int = 0                        # time spent in onPartitionsRevoked (commit, stop)
    poll_batch_ms: int = 0                    # time to process one batch of records between two poll()s
    retry_backoff_ms: int = 100               # retry.backoff.ms (FindCoordinator retries)
    require_known_member_id: bool = True      # JoinGroup v4+ (KIP-394)
    group_min_session_timeout_ms: int = 6_000       # group.min.session.timeout.ms (broker)
    group_max_session_timeout_ms: int = 1_800_000   # group.max.session.timeout.ms (broker)

    def validate(self) -> "ProtocolConfig":
        for name in ("session_timeout_ms", "rebalance_timeout_ms", "heartbeat_interval_ms", "network_ms",
                     "initial_rebalance_delay_ms", "revoke_ms", "retry_backoff_ms", "new_member_join_timeout_ms",
                     "poll_batch_ms"):
            v = getattr(self, name)
            require(isinstance(v, int) and not isinstance(v, bool) and v >= 0, name,
                    f"must be a whole number of milliseconds >= 0, got {v!r}")
        require(self.heartbeat_interval_ms > 0, "heartbeat_interval_ms", "must be positive")
        require(self.heartbeat_interval_ms < self.session_timeout_ms, "heartbeat_interval_ms",
                "must be lower than session_timeout_ms (the consumer refuses this config)")
        return self


@dataclass
class Message:
    """One request or response on the wire."""

    id: int
    api: str            # JoinGroup, SyncGroup, Heartbeat, LeaveGroup, FindCoordinator
    kind: str           # "request" or "response"
    src: str
    dst: str
    sent_ms: int
    recv_ms: int
    fields: Dict[str, Any] = field(default_factory=dict)

    def label(self) -> str:
        f = self.fields
        if self.kind == "response":
            err = f.get("error", NONE)
            extra = ""
            if self.api == "JoinGroup" and err == NONE:
                extra = f" gen={f.get('generation')} leader={f.get('leader')}"
            elif self.api == "SyncGroup" and err == NONE:
                extra = f" {len(f.get('assignment', []))} partitions"
            elif self.api == "FindCoordinator" and err == NONE:
                extra = f" node={f.get('nodeId')}"
            elif self.api == "JoinGroup" and err == "MEMBER_ID_REQUIRED":
                extra = f" memberId={f.get('memberId')}"
            return f"{self.api}Response({err}{extra})"
        parts = [f"{k}={v}" for k, v in f.items() if v not in (None, "", False)]
        return f"{self.api}({', '.join(parts)})"


@dataclass
class Event:
    time_ms: int
    kind: str
    actor: str
    fields: Dict[str, Any] = field(default_factory=dict)


@dataclass
class OwnershipInterval:
    partition: TopicPartition
    member: str
    start_ms: int
    end_ms: Optional[int] = None
    end_reason: Optional[str] = None


class OwnershipLedger:
    """Who processes which partition, over virtual time.

    Each time a partition gets a second concurrent owner the overlap is recorded in ``violations`` and
    classified (``is_member(name)`` says whether the coordinator still counts that process as a member of
    the group):

    * ``zombie_overlaps`` -- every earlier holder is a *zombie*: a process the coordinator no longer counts
      as a member (fenced by a newer process with its ``group.instance.id``, removed after
      ``max.poll.interval.ms`` / the rebalance timeout or the session timeout) and which has not yet noticed.
      Kafka allows this: the zombie keeps processing the records it already fetched until its next
      ``poll()`` (``ConsumerCoordinator.onJoinPrepare`` then calls ``onPartitionsLost``) or heartbeat
      (``FENCED_INSTANCE_ID``), and its offset commits are rejected.
    * ``double_assignments`` -- some earlier holder is still a member of the group: two members of the
      group own the partition at once, which Kafka's protocol never allows (a simulator bug if it happens).
    """

    def __init__(self, partitions: Sequence[TopicPartition], is_member: Optional[Callable[[str], bool]] = None):
        self.partitions = list(partitions)
        self.owners: Dict[TopicPartition, Dict[str, OwnershipInterval]] = {tp: {} for tp in self.partitions}
        self.intervals: List[OwnershipInterval] = []
        self.is_member = is_member
        #: (time, partition, owners) each time a partition got a second concurrent owner (both kinds)
        self.violations: List[Tuple[int, TopicPartition, Tuple[str, ...]]] = []
        #: the overlaps in which some earlier holder is still a group member (must never happen)
        self.double_assignments: List[Tuple[int, TopicPartition, Tuple[str, ...]]] = []
        #: the overlaps in which every earlier holder is a zombie (a real Kafka behaviour)
        self.zombie_overlaps: List[Tuple[int, TopicPartition, Tuple[str, ...]]] = []

    def acquire(self, member: str, tps: Iterable[TopicPartition], t: int) -> None:
        for tp in tps:
            current = self.owners.setdefault(tp, {})
            if member in current:
                continue
            if current:
                record = (t, tp, tuple(sorted(current)) + (member,))
                self.violations.append(record)
                if self.is_member is not None and not any(self.is_member(h) for h in current):
                    self.zombie_overlaps.append(record)
                else:
                    self.double_assignments.append(record)
            iv = OwnershipInterval(tp, member, t)
            current[member] = iv
            self.intervals.append(iv)

    def release(self, member: str, tps: Iterable[TopicPartition], t: int, reason: str) -> None:
        for tp in tps:
            iv = self.owners.get(tp, {}).pop(member, None)
            if iv is not None:
                iv.end_ms = t
                iv.end_reason = reason

    def current(self) -> Dict[TopicPartition, Tuple[str, ...]]:
        return {tp: tuple(sorted(o)) for tp, o in self.owners.items()}

    def unowned_ms(self, t0: int, t1: int) -> int:
        """Sum over partitions of the time in ``[t0, t1)`` during which nobody owned the partition."""
        if t1 <= t0:
            return 0
        by_tp: Dict[TopicPartition, List[Tuple[int, int]]] = {tp: [] for tp in self.partitions}
        for iv in self.intervals:
            s, e = max(iv.start_ms, t0), min(iv.end_ms if iv.end_ms is not None else t1, t1)
            if e > s and iv.partition in by_tp:
                by_tp[iv.partition].append((s, e))
        total = 0
        for tp, spans in by_tp.items():
            covered, cur_s, cur_e = 0, None, None
            for s, e in sorted(spans):
                if cur_e is None or s > cur_e:
                    if cur_e is not None:
                        covered += cur_e - cur_s
                    cur_s, cur_e = s, e
                else:
                    cur_e = max(cur_e, e)
            if cur_e is not None:
                covered += cur_e - cur_s
            total += (t1 - t0) - covered
        return total


@dataclass
class MemberSpec:
    name: str
    topics: Tuple[str, ...]
    assignors: Tuple[str, ...]
    protocol: str
    instance_id: Optional[str]
    session_timeout_ms: int
    rebalance_timeout_ms: int
    heartbeat_interval_ms: int
    revoke_ms: int


class GroupSimulation:
    """One consumer group under the classic protocol, driven by a virtual clock.

    ``topics`` is ``{topic: partition count}``; ``assignors`` maps assignor names to callables (see
    :mod:`.assignors`); names not given there resolve to :func:`rebalance.consumer.assign`."""

    def __init__(self, topics: Mapping[str, int], config: ProtocolConfig = ProtocolConfig(), *,
                 group_id: str = "my-group", assignors: Optional[Mapping[str, Callable]] = None,
                 brokers: Sequence[int] = (0, 1, 2), offsets_partitions: int = OFFSETS_TOPIC_PARTITIONS_DEFAULT,
                 record_heartbeats: bool = True):
        require(isinstance(topics, Mapping) and len(topics) > 0, "topics", "must map topic -> partition count")
        for t, n in topics.items():
            require(isinstance(t, str) and t != "", f"topics[{t!r}]", "topic names are non-empty strings")
            require(isinstance(n, int) and not isinstance(n, bool) and n >= 0, f"topics[{t!r}]",
                    f"partition count must be a whole number >= 0, got {n!r}")
        self.config = config.validate()
        self.topics = dict(topics)
        self.partitions = [(t, p) for t in sorted(self.topics) for p in range(self.topics[t])]
        self.group_id = group_id
        self.clock = VirtualClock()
        self.assignors: Dict[str, Callable] = dict(assignors or {})
        self.record_heartbeats = record_heartbeats
        self.messages: List[Message] = []
        self.events: List[Event] = []
        self.ownership = OwnershipLedger(self.partitions, is_member=self.in_group)
        self.members: Dict[str, ConsumerMember] = {}
        self.specs: Dict[str, MemberSpec] = {}
        self._incarnations: Counter = Counter()
        self._msg_ids = 0
        self._member_id_counter = 0
        self._lose_leader_at: List[Optional[int]] = []
        self._fault_times: List[int] = []
        self.message_counts: Counter = Counter()
        # where the group lives
        self.offsets_partitions = offsets_partitions
        self.offsets_partition = partition_for(group_id, offsets_partitions)
        self.leaders = simple_leaders(offsets_partitions, list(brokers))
        self.brokers = list(brokers)
        self.coordinator_available = True
        self.snapshot: Optional[GroupSnapshot] = None
        self.coordinator = self._new_coordinator()
        self.log("coordinator", self.coordinator_name, what="lookup", groupId=group_id,
                 partition=self.offsets_partition, broker=self.coordinator.broker)

    # ------------------------------------------------------------------ plumbing
    @property
    def coordinator_name(self) -> str:
        return "coordinator"

    def _new_coordinator(self) -> ClassicGroupCoordinator:
        broker = self.leaders[self.offsets_partition]
        return ClassicGroupCoordinator(
            self.group_id, self.clock, initial_rebalance_delay_ms=self.config.initial_rebalance_delay_ms,
            new_member_join_timeout_ms=self.config.new_member_join_timeout_ms,
            require_known_member_id=self.config.require_known_member_id,
            log=lambda kind, **f: self.log(kind, self.coordinator_name, **f),
            persist=self._persist, member_id_suffix=self._next_member_suffix, broker=broker,
            min_session_timeout_ms=self.config.group_min_session_timeout_ms,
            max_session_timeout_ms=self.config.group_max_session_timeout_ms)

    def _next_member_suffix(self, client_id: str) -> str:
        self._member_id_counter += 1
        return str(self._member_id_counter)

    def in_group(self, name: str) -> bool:
        """Whether the coordinator counts process ``name`` as a member of the group now: it is alive and
        its member id is one of the group's (``false`` for a process fenced by a newer one with its
        ``group.instance.id``, removed by a timeout, or that left).  While the coordinator is unavailable
        nobody can be ruled out, so every live process with a member id counts."""
        m = self.members.get(name)
        if m is None or not m.alive or not m.member_id:
            return False
        c = self.coordinator
        if not self.coordinator_available or not c.active:
            return True
        return m.member_id in c.members

    def _persist(self, snapshot: GroupSnapshot) -> None:
        self.snapshot = snapshot
        self.log("persist", self.coordinator_name, generation=snapshot.generation,
                 members=len(snapshot.members))

    def log(self, kind: str, actor: str, **fields) -> None:
        self.events.append(Event(self.clock.now_ms, kind, actor, fields))

    def _record(self, api: str, kind: str, src: str, dst: str, fields: dict) -> Optional[Message]:
        self.message_counts[api] += 1
        if api == "Heartbeat" and not self.record_heartbeats:
            return None
        self._msg_ids += 1
        now = self.clock.now_ms
        m = Message(self._msg_ids, api, kind, src, dst, now, now + self.config.network_ms, fields)
        self.messages.append(m)
        return m

    def request(self, member: ConsumerMember, api: str, req: dict, on_response: Callable[[dict], None],
                summary: Optional[dict] = None) -> None:
        """Send ``req`` from ``member`` to the coordinator; deliver the response back after the latency."""
        recording = self.record_heartbeats or api != "Heartbeat"
        if recording:
            self._record(api, "request", member.name, self.coordinator_name, dict(summary or {}))
        else:
            self.message_counts[api] += 1
        clock = self.clock
        lat = self.config.network_ms
        epoch, incarnation = member.epoch, member.incarnation

        def respond(resp: dict) -> None:
            if recording:
                fields = {k: v for k, v in resp.items() if k != "members"}
                if api == "JoinGroup" and resp.get("members"):
                    fields["members"] = [m["memberId"] for m in resp["members"]]
                self._record(api, "response", self.coordinator_name, member.name, fields)
            else:
                self.message_counts[api] += 1

            def deliver():
                if member.alive and member.incarnation == incarnation and member.epoch == epoch:
                    on_response(resp)
            clock.schedule_at(clock.now_ms + lat, deliver, api)

        def arrive():
            coordinator = self.coordinator
            if not self.coordinator_available or not coordinator.active:
                respond({"error": NOT_COORDINATOR, "memberId": req.get("memberId", "")})
                return
            if api == "Heartbeat":
                coordinator.heartbeat(req, respond)
            elif api == "JoinGroup":
                coordinator.join_group(req, respond)
            elif api == "SyncGroup":
                coordinator.sync_group(req, respond)
            else:
                coordinator.leave_group(req, respond)
        clock.schedule_at(clock.now_ms + lat, arrive, api)

    def find_coordinator(self, member: ConsumerMember, on_response: Callable[[dict], None]) -> None:
        """FindCoordinator, answered by any broker from the ``__consumer_offsets`` leadership."""
        self._record("FindCoordinator", "request", member.name, "broker", {"key": self.group_id})
        lat = self.config.network_ms
        incarnation = member.incarnation

        def arrive():
            if self.coordinator_available:
                resp = {"error": NONE, "nodeId": self.coordinator.broker, "partition": self.offsets_partition}
            else:
                resp = {"error": COORDINATOR_NOT_AVAILABLE}
            self._record("FindCoordinator", "response", "broker", member.name, dict(resp))

            def deliver():
                if member.alive and member.incarnation == incarnation:
                    on_response(resp)
            self.clock.schedule(lat, deliver)
        self.clock.schedule(lat, arrive)

    def client_assignors(self, names: Sequence[str]) -> Dict[str, ClientAssignor]:
        """Fresh per-process objects for the built-in assignors among ``names`` (an assignor given to the
        simulation as a callable overrides the built-in one of that name and is shared by all members)."""
        return {a: ClientAssignor(a) for a in names if a in BUILTIN_PROTOCOLS and a not in self.assignors}

    def run_assignor(self, name: str, members: Dict[str, dict]) -> Dict[str, list]:
        """Run a shared assignor (one given to the simulation, or a stateless built-in wrapper)."""
        assignor = self.assignors.get(name)
        if assignor is None:
            assignor = consumer_assignor(name)
        out = assignor(members, dict(self.topics))
        return {mid: [tuple(tp) for tp in out.get(mid, [])] for mid in members}

    def _assignor_callable(self, name: str):
        if name in self.assignors:
            return self.assignors[name]
        if name in BUILTIN_PROTOCOLS:
            return consumer_assignor(name)
        raise InputError("assignors", f"unknown assignor {name!r}: pass it in GroupSimulation(assignors=...)")

    def should_lose_leader(self, member: ConsumerMember, resp: dict) -> bool:
        """Fault hook: the leader is lost after its JoinGroup response and before its SyncGroup -- it
        dies, or (with ``partition_ms``) it is cut off from the coordinator and sends its SyncGroup late."""
        if not member.is_leader:
            return False
        for i, (gen, partition_ms) in enumerate(self._lose_leader_at):
            if gen is None or gen == resp["generation"]:
                self._lose_leader_at.pop(i)
                if partition_ms is None:
                    self.log("fault", member.name, what="leaderLostBeforeSync", generation=resp["generation"])
                    member.crash("leader lost between JoinGroup and SyncGroup")
                    return True
                self.log("fault", member.name, what="leaderPartitionedBeforeSync", generation=resp["generation"],
                         duration_ms=partition_ms)
                member.partitioned_until = self.clock.now_ms + partition_ms
                return False
        return False

    def member_stopped(self, member: ConsumerMember) -> None:
        pass

    # ------------------------------------------------------------------ scenario API
    def add_member(self, name: str, at: int = 0, *, assignors: Sequence[str] = ("range",),
                   protocol: Optional[str] = None, instance_id: Optional[str] = None,
                   topics: Optional[Sequence[str]] = None, session_timeout_ms: Optional[int] = None,
                   rebalance_timeout_ms: Optional[int] = None, revoke_ms: Optional[int] = None) -> None:
        """Start consumer ``name`` at virtual time ``at``.  ``protocol`` defaults to what Kafka derives
        from ``assignors`` (cooperative only if all of them support it)."""
        require(isinstance(name, str) and name != "", "name", "a member needs a non-empty name (client.id)")
        require(name not in self.specs, "name", f"member {name!r} already exists")
        assignors = assignor_list(assignors)
        callables = [self._assignor_callable(a) for a in assignors]
        derived = rebalance_protocol_for(callables)
        if protocol is None:
            protocol = derived
        require(protocol in (EAGER, COOPERATIVE), "protocol", f"must be 'eager' or 'cooperative', got {protocol!r}")
        require(protocol == EAGER or derived == COOPERATIVE, "protocol",
                f"assignors {list(assignors)} do not all support the cooperative protocol")
        topics = tuple(topics) if topics is not None else tuple(sorted(self.topics))
        for t in topics:
            require(t in self.topics, "topics", f"unknown topic {t!r}")
        c = self.config
        spec = MemberSpec(name, topics, tuple(assignors), protocol, instance_id,
                          session_timeout_ms if session_timeout_ms is not None else c.session_timeout_ms,
                          rebalance_timeout_ms if rebalance_timeout_ms is not None else c.rebalance_timeout_ms,
                          c.heartbeat_interval_ms, revoke_ms if revoke_ms is not None else c.revoke_ms)
        self.specs[name] = spec
        self.clock.schedule_at(at, lambda: self._start(name), f"start:{name}")

    def start_stable(self, assignment: Mapping[str, Sequence[TopicPartition]], *, generation: int = 1,
                     assignors: Sequence[str] = ("range",), protocol: Optional[str] = None,
                     instance_ids: Optional[Mapping[str, str]] = None) -> None:
        """Begin from a group that is already ``Stable`` in ``generation`` with ``assignment``
        (``{member name: [(topic, partition), ...]}``, the first member is the leader): the state a
        walkthrough starts from.  Each member's id is ``name-k``; heartbeats start at once."""
        require(self.clock.now_ms == 0 and not self.specs, "assignment", "start_stable must come first")
        require(isinstance(assignment, Mapping) and assignment, "assignment", "must map member name -> partitions")
        instance_ids = dict(instance_ids or {})
        seen = set()
        for name, tps in assignment.items():
            for i, tp in enumerate(tps):
                require(tuple(tp) in set(self.partitions), f"assignment.{name}[{i}]", f"unknown partition {tp!r}")
                require(tuple(tp) not in seen, f"assignment.{name}[{i}]", f"{tp!r} is assigned twice")
                seen.add(tuple(tp))
        for name in assignment:
            self.add_member(name, 0, assignors=assignors, protocol=protocol, instance_id=instance_ids.get(name))
        # replace the scheduled starts by a ready-made generation
        self.clock.clear()
        c = self.coordinator
        for name, tps in assignment.items():
            spec = self.specs[name]
            self._incarnations[name] += 1
            m = ConsumerMember(self, name, topics=spec.topics, assignors=spec.assignors, protocol=spec.protocol,
                               instance_id=spec.instance_id, session_timeout_ms=spec.session_timeout_ms,
                               rebalance_timeout_ms=spec.rebalance_timeout_ms,
                               heartbeat_interval_ms=spec.heartbeat_interval_ms, revoke_ms=spec.revoke_ms,
                               incarnation=self._incarnations[name])
            m.member_id = f"{name}-{self._next_member_suffix(name)}"
            m.generation = generation
            m.state = MEMBER_STABLE
            m.rejoin_needed = False
            m.coordinator_known = True
            m.owned = [tuple(tp) for tp in tps]
            self.ownership.acquire(name, m.owned, 0)
            self.members[name] = m
            gm = GroupMember(m.member_id, spec.instance_id, name, spec.session_timeout_ms,
                             spec.rebalance_timeout_ms, m.protocols(), assignment=list(m.owned))
            c._add(gm, None)
        c.generation = generation
        c.protocol_name = c.select_protocol()
        for m in self.members.values():  # as if each had received its assignment in ``generation``
            m.protocol_name = c.protocol_name
            m.on_assignment(m.owned, generation)
        c.state, c.previous_state = STABLE, COMPLETING_REBALANCE
        c._store()
        self.log("state", self.coordinator_name, state=STABLE, previous="(given)", generation=generation)
        n = len(self.members)
        for k, m in enumerate(self.members.values()):
            # heartbeat threads of a long-running group are not in step: spread their phases evenly
            m.hb_enabled = True
            m._schedule_heartbeat(m.heartbeat_interval_ms * (k + 1) // (n + 1))
            c.reschedule_member_heartbeat(m.member_id)

    def _start(self, name: str) -> None:
        spec = self.specs[name]
        old = self.members.get(name)
        if old is not None and old.alive:
            return
        self._incarnations[name] += 1
        m = ConsumerMember(self, name, topics=spec.topics, assignors=spec.assignors, protocol=spec.protocol,
                           instance_id=spec.instance_id, session_timeout_ms=spec.session_timeout_ms,
                           rebalance_timeout_ms=spec.rebalance_timeout_ms,
                           heartbeat_interval_ms=spec.heartbeat_interval_ms, revoke_ms=spec.revoke_ms,
                           incarnation=self._incarnations[name])
        self.members[name] = m
        m.start()

    def _at(self, at: int, action: Callable[[], None], label: str) -> None:
        self._fault_times.append(at)
        self.clock.schedule_at(at, action, label)

    def _live(self, name: str) -> Optional[ConsumerMember]:
        require(name in self.specs, "name", f"unknown member {name!r}")
        m = self.members.get(name)
        return m if m is not None and m.alive else None

    def crash(self, name: str, at: int) -> None:
        """Member ``name`` dies at ``at`` (no LeaveGroup; the coordinator finds out by session timeout)."""
        def act():
            m = self._live(name)
            if m is not None:
                self.log("fault", name, what="crash")
                m.crash()
        self._at(at, act, f"crash:{name}")

    def restart(self, name: str, at: int) -> None:
        """Start a new process for ``name`` (same ``group.instance.id`` if it is static)."""
        def act():
            self.log("fault", name, what="restart")
            self._start(name)
        self._at(at, act, f"restart:{name}")

    def shutdown(self, name: str, at: int) -> None:
        """Graceful close at ``at``: revoke, then LeaveGroup for a dynamic member."""
        def act():
            m = self._live(name)
            if m is not None:
                self.log("fault", name, what="shutdown")
                m.close()
        self._at(at, act, f"shutdown:{name}")

    def bounce(self, name: str, at: int, down_ms: int) -> None:
        """Rolling-restart step: graceful shutdown at ``at``, new process ``down_ms`` later."""
        self.shutdown(name, at)
        self.restart(name, at + down_ms)

    def start_duplicate(self, name: str, at: int, copy_name: Optional[str] = None) -> str:
        """At ``at`` start a *second* process with ``name``'s configuration (the same
        ``group.instance.id`` if static) while the first keeps running -- e.g. a new pod started before
        the old one is gone.  Returns the copy's name (default ``name + "'"``)."""
        require(name in self.specs, "name", f"unknown member {name!r}")
        copy_name = copy_name or f"{name}'"
        require(copy_name not in self.specs, "copy_name", f"member {copy_name!r} already exists")
        spec = self.specs[name]
        self.specs[copy_name] = MemberSpec(copy_name, spec.topics, spec.assignors, spec.protocol, spec.instance_id,
                                           spec.session_timeout_ms, spec.rebalance_timeout_ms,
                                           spec.heartbeat_interval_ms, spec.revoke_ms)

        def act():
            self.log("fault", copy_name, what="duplicateStart", of=name, instance=spec.instance_id)
            self._start(copy_name)
        self._at(at, act, f"duplicate:{name}")
        return copy_name

    def slow(self, name: str, at: int, duration_ms: int) -> None:
        """Member ``name`` does not call ``poll()`` during ``[at, at + duration_ms)``."""
        def act():
            m = self._live(name)
            if m is not None:
                self.log("fault", name, what="slow", duration_ms=duration_ms)
                m.go_slow(duration_ms)
        self._at(at, act, f"slow:{name}")

    def lose_leader_before_sync(self, generation: Optional[int] = None, partition_ms: Optional[int] = None) -> None:
        """The leader of ``generation`` (the next one, if ``None``) is lost after receiving its JoinGroup
        response and before sending SyncGroup: it dies, or with ``partition_ms`` it cannot reach the
        coordinator for that long and then sends its (stale) SyncGroup."""
        self._lose_leader_at.append((generation, partition_ms))

    def coordinator_failover(self, at: int, downtime_ms: int, new_broker: Optional[int] = None) -> None:
        """At ``at`` the coordinator broker loses the group's ``__consumer_offsets`` partition; ``downtime_ms``
        later a new leader (``new_broker``, default the next broker) has loaded the last group record."""
        def down():
            self.log("fault", self.coordinator_name, what="coordinatorFailover", broker=self.coordinator.broker)
            self.coordinator_available = False
            self.coordinator.unload()

        def up():
            old = self.leaders[self.offsets_partition]
            nb = new_broker if new_broker is not None else self.brokers[(self.brokers.index(old) + 1) % len(self.brokers)]
            self.leaders[self.offsets_partition] = nb
            self.coordinator = self._new_coordinator()
            self.coordinator_available = True
            self.log("coordinator", self.coordinator_name, what="loaded", broker=nb,
                     generation=self.snapshot.generation if self.snapshot else 0)
            self.coordinator.load(self.snapshot)
        self._at(at, down, "coordinator-down")
        self._at(at + downtime_ms, up, "coordinator-up")

    # ------------------------------------------------------------------ running and results
    def run(self, until_ms: int) -> "GroupSimulation":
        """Run every event up to virtual time ``until_ms``."""
        require(isinstance(until_ms, int) and until_ms >= self.clock.now_ms, "until_ms",
                f"must be a time >= now ({self.clock.now_ms}), got {until_ms!r}")
        self.clock.run_until(until_ms)
        return self

    def live_members(self) -> List[ConsumerMember]:
        return [m for m in self.members.values() if m.alive]

    def is_settled(self) -> bool:
        """Group Stable, every live member in it and STABLE with nothing pending, every subscribed
        partition owned by exactly one live member."""
        c = self.coordinator
        if not self.coordinator_available or c.state != STABLE or c.pending_sync:
            return False
        live = self.live_members()
        if {m.member_id for m in live} != set(c.members):
            return False
        if any(m.state != MEMBER_STABLE or m.rejoin_needed or m.joining or m.generation != c.generation
               for m in live):
            return False
        subscribed = {t for m in live for t in m.topics}
        owners = self.ownership.current()
        return all(len(owners.get(tp, ())) == 1 for tp in self.partitions if tp[0] in subscribed)

    def last_change_ms(self) -> int:
        """Virtual time of the last state change, decision, revocation, assignment or ownership change."""
        times = [e.time_ms for e in self.events if e.kind in ("state", "assigned", "revoke", "lost", "decision")]
        for iv in self.ownership.intervals:
            times.append(iv.start_ms)
            if iv.end_ms is not None:
                times.append(iv.end_ms)
        return max(times, default=0)

    def metrics(self, measure_from: int = 0, until: Optional[int] = None) -> Dict[str, Any]:
        """Summary figures of the run between ``measure_from`` and ``until`` (default: now).

        * ``rebalances`` -- how many times the group entered PreparingRebalance;
        * ``generations`` -- the coordinator's generation id at the end;
        * ``settled`` / ``stable_at_ms`` / ``time_to_stable_ms`` -- whether the group ended settled, when
          it last changed, and that time minus ``measure_from``;
        * ``unowned_partition_seconds`` -- partition-seconds in ``[measure_from, until)`` with no owner;
        * ``partitions_stopped`` -- partition releases (revoked, lost, crash) after ``measure_from``;
          ``partitions_restarted`` -- partitions taken up again after a stop, ``partitions_moved`` -- of
          those, taken up by another member than the one that stopped it;
        * ``double_ownership`` -- instants at which a partition got a second owner while an earlier owner
          was still a member of the group: a true double assignment, which Kafka's protocol excludes (always
          0 unless the simulator is wrong);
        * ``zombie_overlap`` -- instants at which a partition got a new owner while the earlier one was a
          *zombie*, a process the coordinator had already dropped from the group (fenced static member,
          member removed after ``max.poll.interval.ms``) that still processes the batch it fetched until
          its next ``poll()`` or heartbeat.  Kafka allows this window (the zombie's commits fail); it is
          counted apart so it is never mistaken for a double assignment.  See :class:`OwnershipLedger`.
        """
        until = self.clock.now_ms if until is None else until
        rebalances = sum(1 for e in self.events if e.kind == "state" and e.fields.get("state") == PREPARING_REBALANCE
                         and e.time_ms >= measure_from)
        completed = sum(1 for e in self.events if e.kind == "state" and e.fields.get("state") == COMPLETING_REBALANCE
                        and e.time_ms >= measure_from)
        stopped = restarted = moved = 0
        last_stop: Dict[TopicPartition, str] = {}
        timeline = []
        for iv in self.ownership.intervals:
            timeline.append((iv.start_ms, 1, iv))
            if iv.end_ms is not None:
                timeline.append((iv.end_ms, 0, iv))
        timeline.sort(key=lambda x: (x[0], x[1]))
        for t, is_start, iv in timeline:
            if t < measure_from:
                continue
            if not is_start:
                stopped += 1
                last_stop[iv.partition] = iv.member
            elif iv.partition in last_stop:
                restarted += 1
                if last_stop.pop(iv.partition) != iv.member:
                    moved += 1
        stable_at = self.last_change_ms()
        settled = self.is_settled()
        return {
            "rebalances": rebalances,
            "completed_rebalances": completed,
            "generations": self.coordinator.generation,
            "settled": settled,
            "stable_at_ms": stable_at if settled else None,
            "time_to_stable_ms": (stable_at - measure_from) if settled else None,
            "unowned_partition_seconds": self.ownership.unowned_ms(measure_from, until) / 1000.0,
            "partitions_stopped": stopped,
            "partitions_restarted": restarted,
            "partitions_moved": moved,
            "double_ownership": len(self.ownership.double_assignments),
            "zombie_overlap": len(self.ownership.zombie_overlaps),
            "messages": dict(sorted(self.message_counts.items())),
        }

    def assignment(self) -> Dict[str, List[TopicPartition]]:
        """Current owned partitions of every live member, by member name."""
        return {m.name: sorted(m.owned) for m in sorted(self.live_members(), key=lambda m: m.name)}

    def format_messages(self, apis: Optional[Sequence[str]] = None, since: int = 0) -> List[str]:
        """The message trace as text lines ``time src -> dst Label``."""
        out = []
        for m in self.messages:
            if m.sent_ms < since or (apis is not None and m.api not in apis):
                continue
            out.append(f"{m.sent_ms:>7} {m.src} -> {m.dst}: {m.label()}")
        return out

    def format_events(self, kinds: Sequence[str] = ("state", "revoke", "assigned", "lost", "fault", "decision",
                                                      "assign"), since: int = 0) -> List[str]:
        out = []
        for e in self.events:
            if e.time_ms < since or e.kind not in kinds:
                continue
            f = dict(e.fields)
            for key in ("partitions",):
                if key in f:
                    f[key] = " ".join(f"{t}-{p}" for t, p in f[key])
            if "assignment" in f:
                f["assignment"] = {k: " ".join(f"{t}-{p}" for t, p in v) for k, v in f["assignment"].items()}
            body = " ".join(f"{k}={v}" for k, v in f.items())
            out.append(f"{e.time_ms:>7} {e.actor} {e.kind} {body}")
        return out


# ---------------------------------------------------------------------------------------------
# ready-made scenarios


def assignor_list(value) -> Tuple[str, ...]:
    """``partition.assignment.strategy`` as a tuple of names.  A string is read as Kafka's ``ConfigDef``
    ``LIST`` type reads it, comma-separated (``"range"``, ``"cooperative-sticky,range"``), never character
    by character; any other value must be a non-empty sequence of names."""
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    require(isinstance(value, (list, tuple)), "assignors",
            f"must be an assignor name, a comma-separated string or a list of names, got {value!r}")
    for i, name in enumerate(value):
        require(isinstance(name, str) and name != "", f"assignors[{i}]", f"must be an assignor name, got {name!r}")
    require(len(value) > 0, "assignors", "at least one assignor is needed")
    return tuple(value)


def cooperative_example(protocol: str = COOPERATIVE, assignors: Optional[Mapping[str, Callable]] = None,
                        config: ProtocolConfig = ProtocolConfig(initial_rebalance_delay_ms=0)) -> GroupSimulation:
    """The textbook example: one topic with three partitions p1, p2, p3 (``t-0``, ``t-1``, ``t-2``); c1
    and c2 form the group first, c3 joins at 10 s.  Uses ``cooperative-sticky`` (``protocol="eager"``
    runs the same assignor under the eager protocol, as a consumer configured with
    ``[cooperative-sticky, range]`` would)."""
    names = ("cooperative-sticky", "range") if protocol == EAGER else ("cooperative-sticky",)
    sim = GroupSimulation({"t": 3}, config, assignors=assignors)
    sim.add_member("c1", 0, assignors=names, protocol=protocol)
    sim.add_member("c2", 0, assignors=names, protocol=protocol)
    sim.add_member("c3", 10_000, assignors=names, protocol=protocol)
    return sim


def rolling_restart(n_members: int, topics: Mapping[str, int], *, protocol: str = EAGER, static: bool = False,
                    assignor: str = "range", down_ms: int = 5_000, gap_ms: int = 30_000,
                    start_ms: int = 60_000, settle_ms: int = 120_000, config: ProtocolConfig = ProtocolConfig(),
                    assignors: Optional[Mapping[str, Callable]] = None, record_heartbeats: bool = False,
                    batch: int = 1, run: bool = True) -> GroupSimulation:
    """Restart every member once: members are taken down ``batch`` at a time (a Deployment's
    ``maxUnavailable``); wave *w* shuts down at ``start_ms + w*gap_ms`` and is back ``down_ms`` later.
    With ``static=True`` every member has ``group.instance.id`` (``down_ms`` shorter than the session
    timeout means no rebalance at all)."""
    require(isinstance(n_members, int) and n_members > 0, "n_members", "must be a positive whole number")
    require(isinstance(batch, int) and batch > 0, "batch", "must be a positive whole number")
    sim = GroupSimulation(topics, config, assignors=assignors, record_heartbeats=record_heartbeats)
    names = [f"c{i + 1}" for i in range(n_members)]
    for name in names:
        sim.add_member(name, 0, assignors=(assignor,), protocol=protocol,
                       instance_id=f"instance-{name}" if static else None)
    for i, name in enumerate(names):
        sim.bounce(name, start_ms + (i // batch) * gap_ms, down_ms)
    end = start_ms + ((n_members - 1) // batch) * gap_ms + down_ms + settle_ms
    sim.measure_from = start_ms
    if run:
        sim.run(end)
    return sim


@dataclass
class RandomSchedule:
    """A seeded random group with faults; ``quiet_from`` is when the faults stop."""

    seed: int
    sim: GroupSimulation
    faults: List[Tuple[int, str, str]]
    quiet_from: int
    end_ms: int


def random_schedule(seed: int, *, protocol: Optional[str] = None, assignors: Optional[Mapping[str, Callable]] = None,
                    assignor_name: Optional[str] = None, max_members: int = 5, max_partitions: int = 8,
                    n_faults: Optional[int] = None, config: Optional[ProtocolConfig] = None) -> RandomSchedule:
    """A random group (2..``max_members`` members, some static) and a random fault schedule: crashes with
    or without restart, graceful bounces, slow members, the leader lost before SyncGroup, coordinator
    failover, late joiners.  Short timeouts keep runs small.  Deterministic in ``seed``."""
    rng = random.Random(seed)
    if protocol is None:
        protocol = rng.choice([EAGER, COOPERATIVE])
    if config is None:
        config = ProtocolConfig(session_timeout_ms=6_000, rebalance_timeout_ms=20_000, heartbeat_interval_ms=1_000,
                                initial_rebalance_delay_ms=rng.choice([0, 1_000]), network_ms=rng.choice([1, 5]),
                                revoke_ms=rng.choice([0, 50, 500]), retry_backoff_ms=200,
                                new_member_join_timeout_ms=20_000, poll_batch_ms=rng.choice([0, 0, 300, 2_000]))
    if assignor_name is None:
        assignor_name = "cooperative-sticky" if protocol == COOPERATIVE else rng.choice(["range", "roundrobin"])
    n_topics = rng.randint(1, 2)
    topics = {f"t{i}": rng.randint(1, max_partitions) for i in range(n_topics)}
    sim = GroupSimulation(topics, config, assignors=assignors, group_id=f"group-{seed}", record_heartbeats=False)
    n = rng.randint(2, max_members)
    names = [f"c{i + 1}" for i in range(n)]
    for name in names:
        static = rng.random() < 0.3
        sim.add_member(name, rng.choice([0, 0, rng.randint(0, 5_000)]), assignors=(assignor_name,),
                       protocol=protocol, instance_id=f"i-{name}" if static else None)
    faults: List[Tuple[int, str, str]] = []
    t = 8_000
    k = rng.randint(1, 5) if n_faults is None else n_faults
    for _ in range(k):
        t += rng.randint(200, 15_000)
        kind = rng.choice(["crash", "crash_restart", "bounce", "slow", "leader_lost", "failover", "join"])
        name = rng.choice(names)
        if kind == "crash":
            sim.crash(name, t)
            sim.restart(name, t + rng.randint(30_000, 40_000))  # eventually back, so the end state is full
            t_end = t + 40_000
        elif kind == "crash_restart":
            sim.crash(name, t)
            sim.restart(name, t + rng.randint(100, 9_000))
            t_end = t + 9_000
        elif kind == "bounce":
            sim.bounce(name, t, rng.randint(100, 8_000))
            t_end = t + 8_000
        elif kind == "slow":
            sim.slow(name, t, rng.randint(500, config.rebalance_timeout_ms // 2))
            t_end = t + config.rebalance_timeout_ms // 2
        elif kind == "leader_lost":
            sim.lose_leader_before_sync()  # the leader of the rebalance this late joiner starts dies
            extra = f"late-{len(faults)}"
            sim.add_member(extra, t, assignors=(assignor_name,), protocol=protocol)
            names.append(extra)
            t_end = t + 1
        elif kind == "failover":
            sim.coordinator_failover(t, rng.randint(100, 4_000))
            t_end = t + 4_000
        else:
            extra = f"late-{len(faults)}"
            sim.add_member(extra, t, assignors=(assignor_name,), protocol=protocol,
                           instance_id=f"i-{extra}" if rng.random() < 0.3 else None)
            names.append(extra)
            t_end = t
        faults.append((t, kind, name))
        t = max(t, t_end)
    quiet = t
    # (a leader lost before SyncGroup never comes back; the group must settle without it)
    end = quiet + config.session_timeout_ms + 3 * config.rebalance_timeout_ms + 10_000
    return RandomSchedule(seed, sim, faults, quiet, end)
