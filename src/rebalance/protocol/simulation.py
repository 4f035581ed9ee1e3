"""A deterministic discrete-event simulation of Kafka's classic group protocol: the group and its run.

One group, one coordinator (the leader of the group's ``__consumer_offsets`` partition, see
:mod:`.coordinator`; its state machine ``ClassicGroupCoordinator`` in :mod:`.group` is modelled on
``GroupMetadataManager`` / ``ClassicGroup`` of Kafka's source at commit 1eb7644, trunk before 4.0), any
number of members (:mod:`.member`, ``ConsumerCoordinator`` / ``AbstractCoordinator``), and a :class:`~.clock.VirtualClock`.
:class:`GroupSimulation` wires them together; the other responsibilities live in their own modules:

* :mod:`.config` -- :class:`~.config.ProtocolConfig` (client and broker settings, the model's time costs);
* :mod:`.network` -- requests and responses with a fixed one-way latency, message accounting;
* :mod:`.faults` -- crashes, restarts, shutdowns, slow members, a lost leader, coordinator failover;
* :mod:`.trace` -- the wire messages and events every run records, and their text form;
* :mod:`.ledger` -- who processed which partition when, and :class:`~.ledger.RebalanceMetrics`, the
  same ledger and metrics type as the KIP-848 model's (:mod:`rebalance.kip848.simulation`);
* :mod:`.scenarios` -- the p1/p2/p3 example, rolling restarts, random fault schedules;
* :mod:`.driver` -- :class:`~.driver.ConsumerGroupDriver`, the interface (``join``, ``leave``, ``crash``,
  ``restart``, ``run``, ``metrics`` and the event hooks) this simulator shares with the KIP-848 one.

Same inputs, same run: nothing depends on wall-clock time or unseeded randomness.

Read against Kafka 4.3.1's source, the paths modelled here behave as at 1eb7644 (the join and sync barrier, the
initial rebalance delay, leader election, static replacement, session and heartbeat expiry, leave, the eager and
cooperative callbacks, the heartbeat thread and the poll timeout, and every default); only the line numbers moved
(``ConsumerCoordinator.poll`` line 470 is 511 in 4.3.1, ``joinGroupIfNeeded`` 457 is 463).  What 4.3.1 adds and
the model leaves out: ``close(CloseOptions)`` (KIP-1092; a plain ``close()`` behaves as before) and the group
coordinator's adaptive append linger (responses that wait for a log write, at most about 10 ms).
"""
from __future__ import annotations

import random
import uuid
from collections import Counter
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from ..common import JsonRecord, TopicPartition
from ..consumer.assignor import COOPERATIVE, EAGER
from ..errors import IllegalStateError, InputError
from ..validation import require
from .assignors import BUILTIN_PROTOCOLS, Assignor, ClientAssignor, consumer_assignor, rebalance_protocol_for
from .clock import VirtualClock
from .config import MemberSpec, ProtocolConfig, assignor_list
from .coordinator import OFFSETS_TOPIC_PARTITIONS_DEFAULT, partition_for, simple_leaders
from .driver import CompletedRebalance, DriverHooks, format_assignment
from .fastpath import HeartbeatFastPathMixin
from .faults import FaultsMixin
from .group import (COMPLETING_REBALANCE, PREPARING_REBALANCE, STABLE, ClassicGroupCoordinator, GroupMember,
                    GroupSnapshot)
from .ledger import OwnershipLedger, RebalanceMetrics, TopicPartition
from .member import ConsumerMember, STABLE as MEMBER_STABLE
from .network import NetworkMixin
from .trace import EVENT_KINDS, Message, TraceEvent, format_events, format_messages

__all__ = ["GroupSimulation", "ProtocolConfig"]

#: the trace events that count as a change of the group (:meth:`GroupSimulation.last_change_ms`)
_CHANGE_KINDS = frozenset(("state", "assigned", "revoke", "lost", "decision"))


class GroupSimulation(NetworkMixin, FaultsMixin, HeartbeatFastPathMixin, DriverHooks):
    """One consumer group under the classic protocol, driven by a virtual clock; a
    :class:`~.driver.ConsumerGroupDriver`.

    ``topics`` is ``{topic: partition count}``; ``assignors`` maps assignor names to callables (see
    :mod:`.assignors`); names not given there resolve to :func:`rebalance.consumer.assign`.
    ``default_assignors`` and ``default_protocol`` configure the members :meth:`join` starts
    (``partition.assignment.strategy``; the rebalance protocol, by default derived from the assignors).

    ``fast_heartbeats`` (default on) skips the heartbeats of a quiet group (:mod:`.fastpath`), with the
    same run as the step-by-step simulation that ``fast_heartbeats=False`` gives; recording heartbeats in
    the message trace (``record_heartbeats=True``) always runs step by step.

    ``member_id_seed`` (default ``None``: member ids ``client-1``, ``client-2``, ... in the order members join, so
    runs repeat) draws each member id's suffix as Kafka does, a random version-4 UUID
    (``ClassicGroup.generateMemberId``: ``clientId + "-" + UUID.randomUUID()``), from a generator seeded with it:
    the leader's subscription ``HashMap`` then iterates members in the order those ids hash to, so runs with
    different seeds show the ties a real group breaks by its random member ids.

    ``summary_from`` (default ``None``: keep everything) runs the group for its summary only, for runs too
    long to keep whole: no message trace (``messages`` stays empty; ``message_counts`` still counts), only
    the ``state`` events in ``events``, and an ownership ledger without history
    (:class:`~.ledger.OwnershipLedger` with ``summary_from``).  :meth:`metrics` then answers for
    ``measure_from=summary_from`` only; the figures are the same as the full run's.

    Defined in chapter 1, *Groups, coordinators and generations*."""

    def __init__(self, topics: Mapping[str, int], config: ProtocolConfig = ProtocolConfig(), *,
                 group_id: str = "my-group", assignors: Optional[Mapping[str, Assignor]] = None,
                 brokers: Sequence[int] = (0, 1, 2), offsets_partitions: int = OFFSETS_TOPIC_PARTITIONS_DEFAULT,
                 record_heartbeats: bool = True, fast_heartbeats: bool = True,
                 summary_from: Optional[int] = None, default_assignors: Sequence[str] = ("range",),
                 default_protocol: Optional[str] = None, member_id_seed: Optional[int] = None):
        require(isinstance(topics, Mapping) and len(topics) > 0, "topics", "must map topic -> partition count")
        for t, n in topics.items():
            require(isinstance(t, str) and t != "", f"topics[{t!r}]", "topic names are non-empty strings")
            require(isinstance(n, int) and not isinstance(n, bool) and n >= 0, f"topics[{t!r}]",
                    f"partition count must be a whole number >= 0, got {n!r}")
        require(summary_from is None or (isinstance(summary_from, int) and not isinstance(summary_from, bool)
                                         and summary_from >= 0),
                "summary_from", f"must be None or a virtual time in ms >= 0, got {summary_from!r}")
        self.config = config.validate()
        self.topics = dict(topics)
        self.partitions = [(t, p) for t in sorted(self.topics) for p in range(self.topics[t])]
        self.group_id = group_id
        self.default_assignors = assignor_list(default_assignors)
        self.default_protocol = default_protocol
        self.clock = VirtualClock()
        self.assignors: Dict[str, Assignor] = dict(assignors or {})
        self.record_heartbeats = record_heartbeats
        self.fast_heartbeats = fast_heartbeats
        self._members_version = 0
        self.messages: List[Message] = []
        self.events: List[TraceEvent] = []
        self.summary_from = summary_from
        #: where a scenario's measurement starts, for ``metrics(sim.measure_from)``: ``summary_from`` or 0
        #: unless the scenario sets it (:func:`~.scenarios.rolling_restart` sets its first restart's time)
        self.measure_from: int = 0 if summary_from is None else summary_from
        #: virtual time of the last state change, decision, revocation or assignment logged
        self._last_logged_change = 0
        self.ownership = OwnershipLedger(self.partitions, is_member=self.in_group, summary_from=summary_from)
        self.members: Dict[str, ConsumerMember] = {}
        self.specs: Dict[str, MemberSpec] = {}
        self._incarnations: Counter[str] = Counter()
        #: members whose new process starts when the current one has finished closing (``restart``)
        self._start_after_close: Dict[str, int] = {}  # name -> down_ms
        #: of those, the ones a rolling-restart step (``bounce``) closed: their new process is logged as a restart
        self._bounced: Set[str] = set()
        self._msg_ids = 0
        self._member_id_counter = 0
        self._member_id_random = None if member_id_seed is None else random.Random(member_id_seed)
        self._lose_leader_at: List[Tuple[Optional[int], Optional[int]]] = []
        self._fault_times: List[int] = []
        self.message_counts: Counter[str] = Counter()
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
    #: the coordinator's actor name in the trace and the message log
    coordinator_name: str = "coordinator"

    def _new_coordinator(self) -> ClassicGroupCoordinator:
        broker = self.leaders[self.offsets_partition]
        return ClassicGroupCoordinator(
            self.group_id, self.clock, initial_rebalance_delay_ms=self.config.initial_rebalance_delay_ms,
            new_member_join_timeout_ms=self.config.new_member_join_timeout_ms,
            require_known_member_id=self.config.require_known_member_id,
            log=lambda kind, **f: self.log(kind, self.coordinator_name, **f),
            persist=self._persist, member_id_suffix=self._next_member_suffix, broker=broker,
            min_session_timeout_ms=self.config.group_min_session_timeout_ms,
            max_session_timeout_ms=self.config.group_max_session_timeout_ms,
            member_touched=self.member_touched, state_changing=self.wake_all)

    def _next_member_suffix(self, client_id: str) -> str:
        self._member_id_counter += 1
        if self._member_id_random is not None:
            return str(uuid.UUID(int=self._member_id_random.getrandbits(128), version=4))
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

    def log(self, kind: str, actor: str, **fields: Any) -> None:
        """Record a :class:`~.trace.TraceEvent` at the current virtual time (only ``state`` events when
        running for the summary only) and pass it to the :meth:`on_event` listeners; the coordinator's
        ``CompletingRebalance -> Stable`` goes to the :meth:`on_rebalance_completed` listeners as a
        :class:`~.driver.CompletedRebalance` (the assignment the leader's SyncGroup handed out)."""
        if kind in _CHANGE_KINDS:
            self._last_logged_change = self.clock.now_ms
        keep = self.summary_from is None or kind == "state"
        if keep or self._event_listeners:
            event = TraceEvent(self.clock.now_ms, actor, kind, fields)
            if keep:
                self.events.append(event)
            self._emit_event(event)
        if (self._rebalance_listeners and kind == "state" and actor == self.coordinator_name
                and fields.get("state") == STABLE and fields.get("previous") == COMPLETING_REBALANCE):
            owned: Dict[str, List[TopicPartition]] = {}
            for m in self.coordinator.members.values():  # ClassicGroupMember.assignment, by client.id
                owned.setdefault(m.client_id, []).extend((t, p) for t, p in m.assignment)
            self._emit_rebalance(CompletedRebalance(fields["generation"], self.clock.now_ms,
                                                    format_assignment(owned)))

    def client_assignors(self, names: Sequence[str]) -> Dict[str, ClientAssignor]:
        """Fresh per-process objects for the built-in assignors among ``names`` (an assignor given to the
        simulation as a callable overrides the built-in one of that name and is shared by all members)."""
        return {a: ClientAssignor(a) for a in names if a in BUILTIN_PROTOCOLS and a not in self.assignors}

    def run_assignor(self, name: str, members: Dict[str, JsonRecord]) -> Dict[str, List[TopicPartition]]:
        """Run a shared assignor (one given to the simulation, or a stateless built-in wrapper)."""
        assignor = self.assignors.get(name)
        if assignor is None:
            assignor = consumer_assignor(name)
        out = assignor(dict(self.topics), members)
        return {mid: [(t, p) for t, p in out.get(mid, [])] for mid in members}

    def _assignor_callable(self, name: str) -> Assignor:
        if name in self.assignors:
            return self.assignors[name]
        if name in BUILTIN_PROTOCOLS:
            return consumer_assignor(name)
        raise InputError("assignors", f"unknown assignor {name!r}: pass it in GroupSimulation(assignors=...)")

    def member_stopped(self, member: ConsumerMember) -> None:
        """Process ``member`` has stopped (closed, crashed or fatal); a :meth:`restart` waiting for it
        starts the new process now."""
        self._members_version += 1
        name = member.name
        if name in self._start_after_close and self.members.get(name) is member:
            down_ms = self._start_after_close.pop(name)
            bounced = name in self._bounced
            self._bounced.discard(name)

            def start() -> None:
                if bounced:  # a rolling-restart step's new process (``bounce``)
                    self.log("fault", name, what="restart")
                    self._fault_times.append(self.clock.now_ms)
                self._start(name)
            if down_ms:
                self.clock.schedule_at(self.clock.now_ms + down_ms, start, f"start:{name}")
            else:
                start()

    # ------------------------------------------------------------------ scenario API
    def add_member(self, name: str, at: int = 0, *, assignors: Sequence[str] = ("range",),
                   protocol: Optional[str] = None, instance_id: Optional[str] = None,
                   topics: Optional[Sequence[str]] = None, session_timeout_ms: Optional[int] = None,
                   max_poll_interval_ms: Optional[int] = None, revoke_ms: Optional[int] = None,
                   poll_processing_ms: Optional[int] = None) -> None:
        """Start consumer ``name`` at virtual time ``at``.  ``protocol`` defaults to what Kafka derives
        from ``assignors`` (cooperative only if all of them support it).  The timing arguments override the
        configuration's for this member (``poll_processing_ms``: its time per ``poll()`` batch)."""
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
        for field, value in (("session_timeout_ms", session_timeout_ms), ("max_poll_interval_ms", max_poll_interval_ms),
                             ("revoke_ms", revoke_ms), ("poll_processing_ms", poll_processing_ms)):
            require(value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0), field,
                    f"must be a whole number of milliseconds >= 0, got {value!r}")
        topics = tuple(topics) if topics is not None else tuple(sorted(self.topics))
        for t in topics:
            require(t in self.topics, "topics", f"unknown topic {t!r}")
        c = self.config
        spec = MemberSpec(name, topics, tuple(assignors), protocol, instance_id,
                          session_timeout_ms if session_timeout_ms is not None else c.session_timeout_ms,
                          max_poll_interval_ms if max_poll_interval_ms is not None else c.max_poll_interval_ms,
                          c.heartbeat_interval_ms, revoke_ms if revoke_ms is not None else c.revoke_ms,
                          poll_processing_ms if poll_processing_ms is not None else c.batch_ms,
                          c.poll_timeout_ms)
        self.specs[name] = spec
        self.clock.schedule_at(at, lambda: self._start(name), f"start:{name}")

    def _new_process(self, name: str) -> ConsumerMember:
        """A new consumer process for member ``name``'s spec (a new incarnation: fresh assignor objects)."""
        spec = self.specs[name]
        self._incarnations[name] += 1
        return ConsumerMember(self, name, topics=spec.topics, assignors=spec.assignors, protocol=spec.protocol,
                              instance_id=spec.instance_id, session_timeout_ms=spec.session_timeout_ms,
                              max_poll_interval_ms=spec.max_poll_interval_ms,
                              heartbeat_interval_ms=spec.heartbeat_interval_ms, revoke_ms=spec.revoke_ms,
                              batch_ms=spec.batch_ms, poll_timeout_ms=spec.poll_timeout_ms,
                              incarnation=self._incarnations[name])

    def start_stable(self, assignment: Mapping[str, Sequence[TopicPartition]], *, generation: int = 1,
                     assignors: Sequence[str] = ("range",), protocol: Optional[str] = None,
                     instance_ids: Optional[Mapping[str, str]] = None) -> None:
        """Begin from a group that is already ``Stable`` in ``generation`` with ``assignment``
        (``{member name: [(topic, partition), ...]}``, the first member is the leader): the state a
        walkthrough starts from.  Each member's id is ``name-k``; heartbeats start at once."""
        require(self.clock.now_ms == 0 and not self.specs, "assignment", "start_stable must come first")
        require(isinstance(assignment, Mapping) and bool(assignment), "assignment", "must map member name -> partitions")
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
            m = self._new_process(name)
            m.member_id = f"{name}-{self._next_member_suffix(name)}"
            m.generation = generation
            m.state = MEMBER_STABLE
            m.rejoin_needed = False
            m.coordinator_known = True
            m.owned = [(tp[0], tp[1]) for tp in tps]  # (each checked above to be one of the partitions)
            self.ownership.acquire(name, m.owned, 0)
            self.members[name] = m
            self._members_version += 1
            gm = GroupMember(m.member_id, spec.instance_id, name, spec.session_timeout_ms,
                             spec.rebalance_timeout_ms, m.protocols(), assignment=list(m.owned))
            c._add(gm, None)
        c.generation = generation
        c.protocol_name = c.select_protocol()
        for m in self.members.values():  # as if each had received its assignment in ``generation``
            m.protocol_name = c.protocol_name
            m.on_assignment(m.owned, generation)
            m.set_batch_phase()
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
        """A new process for member ``name``; if the current one is still closing, once it has stopped."""
        old = self.members.get(name)
        if old is not None and old.alive:
            if old.closing:  # KafkaConsumer.close has not returned yet: the new process comes after it
                self._start_after_close.setdefault(name, 0)
                return
            raise IllegalStateError(f"member {name!r} already runs a process (incarnation {old.incarnation}); "
                                    "close or crash it first, or use start_duplicate for a second one")
        m = self._new_process(name)
        self.members[name] = m
        self._members_version += 1
        m.start()

    def join(self, name: str, at_ms: int, /, *, topics: Optional[Sequence[str]] = None,
             instance_id: Optional[str] = None, poll_processing_ms: Optional[int] = None) -> None:
        """:class:`~.driver.ConsumerGroupDriver`: consumer ``name`` starts at ``at_ms`` with the
        simulation's ``default_assignors`` and ``default_protocol`` (:meth:`add_member`; ``poll_processing_ms``:
        its own time per ``poll()`` batch)."""
        self.add_member(name, at_ms, assignors=self.default_assignors, protocol=self.default_protocol,
                        instance_id=instance_id, topics=topics, poll_processing_ms=poll_processing_ms)

    def leave(self, name: str, at_ms: int, /) -> None:
        """:class:`~.driver.ConsumerGroupDriver`: ``KafkaConsumer.close()`` at ``at_ms``
        (:meth:`~.faults.FaultsMixin.shutdown`)."""
        self.shutdown(name, at_ms)

    # ------------------------------------------------------------------ running and results
    def run(self, until_ms: int) -> "GroupSimulation":
        """Run every event up to virtual time ``until_ms`` (:class:`~rebalance.errors.EventLimitError` after
        ``max_events`` events, by default :data:`~.clock.MAX_EVENTS`)."""
        require(isinstance(until_ms, int) and until_ms >= self.clock.now_ms, "until_ms",
                f"must be a time >= now ({self.clock.now_ms}), got {until_ms!r}")
        self.run_clock(until_ms, self.max_events)
        return self

    def live_members(self) -> List[ConsumerMember]:
        return [m for m in self.members.values() if m.alive]

    def stranded_partitions(self) -> Set[TopicPartition]:
        """Subscribed partitions no member's assignment of the current generation holds, left so by a static
        member replaced without a rebalance.

        A cooperative leader withholds a partition that moves for a second round, which its old owner starts
        by rejoining once it has revoked it.  If that owner's process is restarted (a static member, closed
        without LeaveGroup) and its new process joins while the group is Stable, the coordinator hands it the
        stored assignment without a rebalance (``GroupMetadataManager.updateStaticMemberThenRebalanceOrCompleteJoin``,
        4.3.1); the new process revoked nothing, so it does not rejoin either, and nobody starts the second
        round: the partition stays unowned until something else rebalances the group.  Empty unless such a
        replacement happened in the current generation."""
        c = self.coordinator
        if c.state != STABLE:
            return set()
        stable_since = max((e.time_ms for e in self.events if e.kind == "state" and e.fields.get("state") == STABLE
                            and e.fields.get("generation") == c.generation), default=None)
        if stable_since is None or not any(
                e.kind == "decision" and e.fields.get("what") == "replaceStaticMember" and e.time_ms >= stable_since
                for e in self.events):
            return set()
        subscribed = {t for m in self.live_members() for t in m.topics}
        held = {tp for m in c.members.values() for tp in m.assignment}
        return {tp for tp in self.partitions if tp[0] in subscribed and tp not in held}

    def is_settled(self, *, except_stranded: bool = False) -> bool:
        """Group Stable, every live member in it and STABLE with nothing pending, every subscribed
        partition owned by exactly one live member (``except_stranded``: or by none, if it is one of the
        :meth:`stranded_partitions`)."""
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
        stranded = self.stranded_partitions() if except_stranded else set()
        return all(len(owners.get(tp, ())) == (0 if tp in stranded else 1)
                   for tp in self.partitions if tp[0] in subscribed)

    def last_change_ms(self) -> int:
        """Virtual time of the last state change, decision, revocation, assignment or ownership change."""
        return max(self._last_logged_change, self.ownership.last_change_ms)

    def metrics(self, measure_from: int = 0, until: Optional[int] = None) -> RebalanceMetrics:
        """Summary figures of the run between ``measure_from`` and ``until`` (default: now), computed by the
        shared ledger (:meth:`RebalanceMetrics.from_ledger <.ledger.RebalanceMetrics.from_ledger>`):
        ``rebalances`` counts the times the group entered PreparingRebalance, ``group_epoch`` is the
        coordinator's generation id at the end, ``stable_ms`` the last state change if the group ended
        settled (:meth:`is_settled`); overlaps are told apart as in :class:`~.ledger.OwnershipLedger`."""
        until = self.clock.now_ms if until is None else until
        rebalances = completed = 0
        for e in self.events:
            if e.kind == "state" and e.time_ms >= measure_from:
                state = e.fields.get("state")
                if state == PREPARING_REBALANCE:
                    rebalances += 1
                elif state == COMPLETING_REBALANCE:
                    completed += 1
        settled = self.is_settled()
        return RebalanceMetrics.from_ledger(
            self.ownership, measure_from, until, settled=settled, stable_ms=self.last_change_ms() if settled else None,
            rebalances=rebalances, completed_rebalances=completed, group_epoch=self.coordinator.generation,
            messages=self.message_counts)

    def assignment(self) -> Dict[str, List[TopicPartition]]:
        """Current owned partitions of every live member, by member name."""
        return {m.name: sorted(m.owned) for m in sorted(self.live_members(), key=lambda m: m.name)}

    def format_messages(self, apis: Optional[Sequence[str]] = None, since: int = 0) -> List[str]:
        """The message trace as text lines ``time src -> dst: Label`` (:func:`.trace.format_messages`)."""
        return format_messages(self.messages, apis, since)

    def format_events(self, kinds: Sequence[str] = EVENT_KINDS, since: int = 0) -> List[str]:
        """The events as text lines (:func:`.trace.format_events`)."""
        return format_events(self.events, kinds, since)
