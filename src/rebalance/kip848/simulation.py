"""KIP-848 reconciliation on the shared virtual clock: the consumers' heartbeat loop and the run.

The client side is modelled on ``AsyncKafkaConsumer``'s membership manager in Kafka's source at commit
1eb7644 (trunk before 4.0; line numbers below are that commit's): ``ConsumerMembershipManager`` and
``ConsumerHeartbeatRequestManager``, 4.0's names of 3.8's and 3.9's ``MembershipManagerImpl`` and
``HeartbeatRequestManager``.  A member heartbeats every ``heartbeat_interval_ms``
(``group.consumer.heartbeat.interval.ms``, 5 s by default), and at once after finishing a reconciliation
(the acknowledgement).  The rebalance callbacks run on the application thread
(``ConsumerMembershipManager`` enqueues a ``ConsumerRebalanceListenerCallbackNeededEvent``, line 434, which
``AsyncKafkaConsumer.poll`` processes), so a member that is processing a batch starts reconciling at its
next ``poll()`` (:class:`~rebalance.protocol.pollloop.PollLoopConfig`); revoking then takes ``revoke_ms``
(commit + ``onPartitionsRevoked``), starting new partitions ``assignment_ms``; messages take ``network_ms``
each way.  A batch longer than ``max.poll.interval.ms`` makes the background thread leave the group
(``AbstractHeartbeatRequestManager``, line 164: ``transitionToSendingLeaveGroup(true)``); the member
releases its partitions as lost (simplified: at once, where Kafka's ``onPartitionsLost`` runs at the next
``poll()``) and joins again with epoch 0 when the application calls ``poll()`` (``maybeRejoinStaleMember``,
``AbstractMembershipManager`` line 718).  A graceful shutdown revokes
everything, then sends epoch ``-1`` (``-2`` for a static member, whose assignment is then kept for it for
``session_timeout_ms``).  The coordinator is :class:`~.coordinator.GroupCoordinatorModel`.

Against Kafka 4.3.1's client, read side by side with 1eb7644's (the model does not follow these yet): the
membership manager starts a reconciliation only from the application's ``poll()`` when auto-commit is on or
something is revoked (``AbstractMembershipManager.maybeReconcile``, 4.3.1 line 863), and applies a new assignment,
with ``onPartitionsAssigned``, on the application thread inside ``poll()`` even without a listener
(``ConsumerMembershipManager.signalPartitionsAssigned``, lines 382-388); the callback events are
``PartitionsRemovedEvent`` and ``PartitionsAssignedEvent`` (lines 458 and 474).  A busy member may therefore need
more than the one ``poll()`` the model gives it between a new target and its acknowledgement; how many depends
on whether each ``poll()`` returns records at once, which no run here has measured yet.  The line numbers above
are 1eb7644's: in 4.3.1 the poll-timer check is line 171 of ``AbstractHeartbeatRequestManager`` and
``maybeRejoinStaleMember`` line 763 of ``AbstractMembershipManager``.

:class:`KIP848Simulation` is a :class:`~rebalance.protocol.driver.ConsumerGroupDriver`, as the classic
simulator is: ``join``, ``leave``, ``crash`` and ``restart`` a consumer by name at a virtual time, ``run`` to a
time, ``metrics``, and listeners for completed rebalances and trace events.  A consumer's processes are
``name``, then ``name~k`` after a restart (a new member id each time, :func:`process_of` gives the name back).

No member ever stops for a group-wide barrier: only the partitions that move are paused.  The run records
a trace of :class:`~rebalance.protocol.trace.TraceEvent` and who owned which partition when in the
:class:`~rebalance.protocol.ledger.OwnershipLedger` shared with the classic simulator, which also computes
:class:`~rebalance.protocol.ledger.RebalanceMetrics` for both.  The times are those of the model (its
latency and callback durations are assumptions, stated in :class:`~.config.KIP848Config`); the order of
events and the epochs are Kafka's.
"""
from __future__ import annotations

import base64
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple, Union, cast

from ..errors import EventLimitError, IllegalStateError
from ..protocol.clock import ScheduledEvent, VirtualClock
from ..protocol.driver import CompletedRebalance, DriverHooks, format_assignment
from ..protocol.ledger import OwnershipLedger, RebalanceMetrics
from ..protocol.pollloop import next_poll_delay
from ..protocol.trace import TraceEvent
from ..validation import require
from .config import KIP848Config
from .coordinator import GroupCoordinatorModel, HeartbeatResponse
from .group import TopicCatalog
from .reconciliation import LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH, TopicPartition, topic_partitions

__all__ = ["ClientMember", "SimulationResult", "KIP848Simulation", "process_of", "HEARTBEAT_API"]

#: the API every KIP-848 message uses (``ConsumerGroupHeartbeat``, KIP-848)
HEARTBEAT_API = "ConsumerGroupHeartbeat"


def process_of(member_id: str) -> str:
    """The process a member id runs in: a restarted consumer is ``name~k``, the same process as ``name``; with
    drawn member ids (``member_id_seed``) an id is ``~<random>~name`` or ``~<random>~name~k``."""
    parts = member_id.split("~")
    return parts[2] if member_id.startswith("~") else parts[0]


@dataclass
class ClientMember:
    """A consumer using ``group.protocol=consumer``: its heartbeat loop and reconciliation."""

    member_id: str
    subscriptions: Tuple[str, ...]
    instance_id: Optional[str] = None
    epoch: int = 0
    owned: Set[TopicPartition] = field(default_factory=set)
    running: bool = False
    leaving: bool = False
    reconciling: bool = False
    pending_target: Optional[Set[TopicPartition]] = None
    timer: Optional[ScheduledEvent] = None
    heartbeats: int = 0
    #: the application thread's batches start at ``batch_anchor + k * batch_ms`` while it owns partitions
    batch_anchor: int = 0
    #: the owned partitions the last heartbeat reported (``HeartbeatState.sentFields.localAssignment``)
    sent_owned: Optional[FrozenSet[TopicPartition]] = None
    #: ``close()`` was called (:meth:`KIP848Simulation.stop_member`): revoking, then the leave heartbeat
    closing: bool = False
    #: a restart waits for this close: the new process starts when the leave heartbeat has gone out
    restart_after_close: bool = False
    #: the restarted process starts this long after the close (``restart``'s ``down_ms``)
    restart_down_ms: int = 0
    #: this consumer's time per ``poll()`` batch; ``None``: the configuration's ``batch_ms``
    poll_processing_ms: Optional[int] = None


@dataclass
class SimulationResult:
    """One scenario: its :class:`~rebalance.protocol.ledger.RebalanceMetrics` (the same type as the classic
    simulator's), measured from the scenario's first action until the group is stable again (all members
    ``STABLE`` at the group epoch, every subscribed partition owned by exactly its target member on the
    client side), and the records behind them."""

    scenario: str
    protocol: str
    metrics: RebalanceMetrics
    heartbeats: int                            # heartbeats the coordinator received after the start
    assignments_computed: int
    final_assignment: Dict[str, List[str]]
    trace: List[TraceEvent]
    ownership: OwnershipLedger
    epochs: List[Tuple[int, str, int, str]]    # (time, member, epoch, state) as the coordinator sets them
    group_epochs: List[Tuple[int, int]]

    def summary(self) -> Dict[str, Any]:
        """The headline figures as one flat dict (a table row)."""
        m = self.metrics
        return {"scenario": self.scenario, "protocol": self.protocol,
                "time_to_stable_ms": m.time_to_stable_ms,
                "unowned_partition_seconds": round(m.unowned_partition_seconds, 3),
                "partitions_moved": m.partitions_moved, "revocations": m.revocations,
                "partitions_stopped": m.partitions_stopped,
                "heartbeats": self.heartbeats, "group_epoch": m.group_epoch}


#: ``metrics(stable_ms=...)`` not given: the time the group last became stable, if it is stable at the end
_STABLE_NOW: Any = object()


class KIP848Simulation(DriverHooks):
    """Members and one coordinator on a :class:`~rebalance.protocol.clock.VirtualClock`; a
    :class:`~rebalance.protocol.driver.ConsumerGroupDriver`.

    Defined in chapter 9, *KIP-848: rebalancing without the barrier*."""

    def __init__(self, topics: Union[TopicCatalog, Mapping[str, Any]], config: Optional[KIP848Config] = None,
                 clock: Optional[VirtualClock] = None, member_id_seed: Optional[int] = None):
        self.config = (config or KIP848Config()).validate()
        #: ``member_id_seed``: member ids start with a random part drawn from it (a real consumer's id is a random
        #: ``Uuid``, which the assignors order), ``~<22 characters>~name``; ``None``: the name, then ``name~k``
        self._id_random = None if member_id_seed is None else random.Random(member_id_seed)
        self.clock = clock or VirtualClock()
        self.catalog = topics if isinstance(topics, TopicCatalog) else TopicCatalog.parse(topics)
        self.trace: List[TraceEvent] = []
        # no partition list up front (a catalog may be refused as too large only later, by check_group_size):
        # unowned time is measured over the subscribed partitions, see metrics()
        self.ownership = OwnershipLedger((), process_of=process_of)
        self.message_counts: Counter[str] = Counter()
        self.epochs: List[Tuple[int, str, int, str]] = []
        self.group_epochs: List[Tuple[int, int]] = []
        self.coordinator = GroupCoordinatorModel(self.catalog, self.config, self.clock, self._log)
        self.clients: Dict[str, ClientMember] = {}
        self._restarts = 0
        #: the group epoch of the last completed rebalance :meth:`run` reported, and when it completed
        self._reported_epoch = 0
        self._stable_since: Optional[int] = None

    # -- bookkeeping ---------------------------------------------------------------------------------
    def _log(self, actor: str, kind: str, fields: Dict[str, Any]) -> None:
        event = TraceEvent(self.clock.now_ms, actor, kind, fields)
        self.trace.append(event)
        self._emit_event(event)
        if kind == "member-epoch":
            self.epochs.append((self.clock.now_ms, actor, fields["epoch"], fields["state"]))
        elif kind == "group-epoch":
            self.group_epochs.append((self.clock.now_ms, fields["epoch"]))

    def all_partitions(self) -> Set[TopicPartition]:
        """Every partition of a topic some member of the group subscribes to."""
        subscribed = {t for c in self.coordinator.members.values() for t in c.subscriptions}
        return {(t.name, p) for t in self.catalog.topics() if t.name in subscribed for p in range(t.partitions)}

    def owners(self) -> Dict[TopicPartition, List[str]]:
        """Who owns each owned partition on the client side."""
        result: Dict[TopicPartition, List[str]] = {}
        for c in self.clients.values():
            for tp in c.owned:
                result.setdefault(tp, []).append(c.member_id)
        return result

    def is_stable(self) -> bool:
        """Group epoch = assignment epoch, every active member reconciled and owning exactly its target,
        every subscribed partition owned or kept for a static member."""
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
            member_client = self.clients.get(m.member_id)
            if (member_client is None or not member_client.running or member_client.reconciling
                    or member_client.owned != topic_partitions(m.assigned)):
                return False
            if topic_partitions(m.assigned) != topic_partitions(co.target_of(m)):
                return False
        owned = {tp for c in self.clients.values() if c.running for tp in c.owned}
        reserved = {tp for m in co.members.values() if m.member_epoch < 0 for tp in topic_partitions(m.assigned)}
        return owned | reserved >= self.all_partitions()

    # -- client actions -------------------------------------------------------------------------------
    def start_member(self, member_id: str, subscriptions: Sequence[str], instance_id: Optional[str] = None,
                     poll_processing_ms: Optional[int] = None) -> ClientMember:
        """Start a consumer: it sends its first heartbeat (epoch 0) at once; ``poll_processing_ms`` is its
        own time per ``poll()`` batch (default: the configuration's)."""
        client = ClientMember(member_id, tuple(subscriptions), instance_id, poll_processing_ms=poll_processing_ms)
        self.clients[member_id] = client
        client.running = True
        self._log(member_id, "start", {"instance_id": instance_id})
        self._send_heartbeat(client)
        return client

    def _send_heartbeat(self, client: ClientMember, epoch: Optional[int] = None,
                        then: Optional[Callable[[HeartbeatResponse], None]] = None) -> None:
        if client.timer is not None:
            client.timer.cancel()
            client.timer = None
        epoch = client.epoch if epoch is None else epoch
        # ConsumerHeartbeatRequestManager (line 244): the owned partitions go out when joining or when they
        # changed since the last heartbeat, else the field is null and the coordinator keeps what it knew
        # (a member in the middle of a reconciliation is not taken to have released anything)
        now_owned = frozenset(client.owned)
        owned: Optional[Set[TopicPartition]] = None
        if epoch <= 0 or now_owned != client.sent_owned:
            owned, client.sent_owned = set(now_owned), now_owned
        client.heartbeats += 1
        self._log(client.member_id, "heartbeat", {"epoch": epoch, "owned": len(now_owned)})
        self.message_counts[HEARTBEAT_API] += 1

        def arrive() -> None:
            resp = self.coordinator.heartbeat(client.member_id, epoch, client.subscriptions, owned, client.instance_id)
            self.message_counts[HEARTBEAT_API] += 1
            self.clock.schedule(self.config.network_ms, lambda: self._on_response(client, resp, then),
                                f"response {client.member_id}")

        self.clock.schedule(self.config.network_ms, arrive, f"heartbeat {client.member_id}")
        if epoch >= 0:
            client.timer = self.clock.schedule(self.config.heartbeat_interval_ms,
                                               lambda: self._send_heartbeat(client), f"interval {client.member_id}")

    def _on_response(self, client: ClientMember, resp: HeartbeatResponse,
                     then: Optional[Callable[[HeartbeatResponse], None]]) -> None:
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
            target = topic_partitions(resp.assignment)
            if client.reconciling:
                client.pending_target = target
            elif target != client.owned:
                self._reconcile(client, target)

    def _reconcile(self, client: ClientMember, target: Set[TopicPartition]) -> None:
        client.reconciling = True
        revoked = client.owned - target
        added = target - client.owned
        self._log(client.member_id, "reconcile", {"revoke": [f"{t}-{p}" for t, p in sorted(revoked)],
                                                  "assign": [f"{t}-{p}" for t, p in sorted(added)]})

        def after_revoke() -> None:
            if not client.running:
                return
            for tp in sorted(revoked):
                client.owned.discard(tp)
            self.ownership.release(client.member_id, sorted(revoked), self.clock.now_ms, "revoked")
            self.clock.schedule(self.config.assignment_ms if added else 0, after_assign, f"assigned {client.member_id}")

        def after_assign() -> None:
            if not client.running:
                return
            first_batch = not client.owned and bool(added)
            for tp in sorted(added):
                owners = self.ownership.holders(tp)
                if owners:
                    raise IllegalStateError(f"{tp} given to {client.member_id} while {owners} still own it")
                client.owned.add(tp)
            self.ownership.acquire(client.member_id, sorted(added), self.clock.now_ms)
            if first_batch:  # the poll() that ran onPartitionsAssigned returns the first records
                self._start_batches(client)
            client.reconciling = False
            self._log(client.member_id, "reconciled", {"owned": [f"{t}-{p}" for t, p in sorted(client.owned)]})
            nxt, client.pending_target = client.pending_target, None
            if nxt is not None and nxt != client.owned:
                self._reconcile(client, nxt)
            else:
                self._send_heartbeat(client)  # the acknowledgement goes out at once

        # the callbacks run at the application thread's next poll(): at once if it processes nothing
        wait = next_poll_delay(self.clock.now_ms, client.batch_anchor, self.batch_ms(client)) if client.owned else 0
        self.clock.schedule(wait + (self.config.revoke_ms if revoked else 0), after_revoke,
                            f"revoked {client.member_id}")

    def batch_ms(self, client: ClientMember) -> int:
        """``client``'s time per ``poll()`` batch: its own ``poll_processing_ms``, else the configuration's."""
        return self.config.batch_ms if client.poll_processing_ms is None else client.poll_processing_ms

    def _start_batches(self, client: ClientMember) -> None:
        """The member's first batch starts now; a batch longer than ``max.poll.interval.ms`` trips the
        background thread's poll timer (KIP-62)."""
        client.batch_anchor = anchor = self.clock.now_ms
        batch, interval = self.batch_ms(client), self.config.max_poll_interval_ms
        if batch <= interval:
            return

        def expired() -> None:
            if client.running and not client.leaving and client.batch_anchor == anchor and client.owned:
                self._poll_timer_expired(client, anchor + batch)
        self.clock.schedule(interval, expired, f"poll-timeout {client.member_id}")

    def _poll_timer_expired(self, client: ClientMember, next_poll_ms: int) -> None:
        """``transitionToSendingLeaveGroup(true)``: leave (epoch -1, or -2 for a static member), release the
        partitions as lost, and join again (epoch 0, same member id) at the application's next poll()."""
        self._log(client.member_id, "poll-timeout", {"owned": len(client.owned)})
        if client.timer is not None:
            client.timer.cancel()
            client.timer = None
        self.ownership.release(client.member_id, sorted(client.owned), self.clock.now_ms, "lost")
        client.owned = set()
        client.reconciling = False
        client.pending_target = None
        epoch = LEAVE_GROUP_STATIC_MEMBER_EPOCH if client.instance_id is not None else LEAVE_GROUP_MEMBER_EPOCH
        client.leaving = True
        self._send_heartbeat(client, epoch, then=lambda resp: None)

        def rejoin() -> None:
            if client.running:
                client.leaving = False
                client.epoch = 0
                self._send_heartbeat(client)
        self.clock.schedule_at(max(next_poll_ms, self.clock.now_ms), rejoin, f"rejoin {client.member_id}")

    def stop_member(self, member_id: str, restart_after_ms: Optional[int] = None) -> None:
        """Graceful shutdown: revoke everything, then leave (epoch -1, or -2 for a static member); with
        ``restart_after_ms``, a new process that long after the leave heartbeat went out."""
        client = self.clients[member_id]
        if client.timer is not None:
            client.timer.cancel()
            client.timer = None
        client.leaving = True
        client.closing = True
        self._log(member_id, "shutdown", {"owned": len(client.owned)})

        def revoked() -> None:
            self.ownership.release(member_id, sorted(client.owned), self.clock.now_ms, "revoked")
            client.owned = set()
            client.running = False
            epoch = LEAVE_GROUP_STATIC_MEMBER_EPOCH if client.instance_id is not None else LEAVE_GROUP_MEMBER_EPOCH
            self._send_heartbeat(client, epoch, then=lambda resp: None)
            if restart_after_ms is not None:
                self.clock.schedule(restart_after_ms, lambda: self._restart(client), f"restart {member_id}")
            elif client.restart_after_close:
                if client.restart_down_ms:
                    self.clock.schedule(client.restart_down_ms, lambda: self._restart(client), f"restart {member_id}")
                else:
                    self._restart(client)

        self.clock.schedule(self.config.revoke_ms if client.owned else 0, revoked, f"leave {member_id}")

    def crash_member(self, member_id: str) -> None:
        """The process dies: no leave; the coordinator notices after the session timeout."""
        client = self.clients[member_id]
        if client.timer is not None:
            client.timer.cancel()
        self.ownership.release(member_id, sorted(client.owned), self.clock.now_ms, "crash")
        client.owned = set()
        client.running = False
        self._log(member_id, "crash", {})

    def _member_id(self, name: str) -> str:
        """The member id of a new process ``name`` (``c1`` or ``c1~k``): itself, or with a drawn random part in
        front, as ``Uuid.toString`` writes one (22 characters of URL-safe base64)."""
        if self._id_random is None:
            return name
        raw = self._id_random.getrandbits(128).to_bytes(16, "big")
        return f"~{base64.urlsafe_b64encode(raw).decode().rstrip('=')}~{name}"

    def _restart(self, old: ClientMember) -> None:
        old.restart_after_close = False
        self._restarts += 1
        # a restarted consumer gets a new member id; a static one keeps its group.instance.id
        base = process_of(old.member_id)
        new_id = self._member_id(f"{base}~{self._restarts}")
        del self.clients[old.member_id]
        self.start_member(new_id, old.subscriptions, old.instance_id, old.poll_processing_ms)

    # -- the driver interface (rebalance.protocol.driver.ConsumerGroupDriver) -----------------------
    def process(self, name: str) -> Optional[ClientMember]:
        """Consumer ``name``'s latest process (``name`` or ``name~k``), ``None`` if it never started."""
        for member_id in reversed(self.clients):
            if process_of(member_id) == name:
                return self.clients[member_id]
        return None

    def _current(self, name: str) -> ClientMember:
        client = self.process(name)
        require(client is not None, "name", f"consumer {name!r} has not started")
        return cast(ClientMember, client)

    def join(self, name: str, at_ms: int, /, *, topics: Optional[Sequence[str]] = None,
             instance_id: Optional[str] = None, poll_processing_ms: Optional[int] = None) -> None:
        """Consumer ``name`` starts at ``at_ms`` subscribed to ``topics`` (default: every topic of the
        catalog), with ``group.instance.id`` ``instance_id``: its first heartbeat, epoch 0.  ``poll_processing_ms``
        is its own time per ``poll()`` batch (default: the configuration's ``batch_ms``)."""
        require(isinstance(name, str) and name != "" and "~" not in name, "name",
                f"must be a non-empty string without '~', got {name!r}")
        require(poll_processing_ms is None or (isinstance(poll_processing_ms, int)
                                               and not isinstance(poll_processing_ms, bool) and poll_processing_ms >= 0),
                "poll_processing_ms", f"must be a whole number of milliseconds >= 0, got {poll_processing_ms!r}")
        subscriptions = tuple(topics) if topics is not None else tuple(t.name for t in self.catalog.topics())
        self.clock.schedule_at(at_ms, lambda: self.start_member(self._member_id(name), subscriptions, instance_id,
                                                                poll_processing_ms), f"start {name}")

    def leave(self, name: str, at_ms: int, /) -> None:
        """``close()`` of ``name`` at ``at_ms``: revoke, then epoch -1 (-2 for a static member); nothing if
        it is not running then."""
        def act() -> None:
            client = self._current(name)
            if client.running and not client.closing:
                self.stop_member(client.member_id)
        self.clock.schedule_at(at_ms, act, f"leave {name}")

    def crash(self, name: str, at_ms: int, /) -> None:
        """``name``'s process dies at ``at_ms`` (nothing if it is not running then)."""
        def act() -> None:
            client = self._current(name)
            if client.running:
                self.crash_member(client.member_id)
        self.clock.schedule_at(at_ms, act, f"crash {name}")

    def restart(self, name: str, at_ms: int, /, *, down_ms: int = 0) -> None:
        """At ``at_ms``: a running ``name`` is closed (:meth:`stop_member`) and its new process starts
        ``down_ms`` after the leave heartbeat has gone out; one still closing is let finish first; a stopped
        one starts again at once.  The new process has a new member id (``name~k``) and the same
        ``group.instance.id``: a static member that left with epoch -2 is replaced, its assignment kept.
        With ``down_ms`` past a heartbeat interval, a dynamic member's leave is a rebalance of its own (the
        others reconcile to the target without it) and its join another."""
        require(isinstance(down_ms, int) and down_ms >= 0, "down_ms", f"must be a whole number of ms >= 0, got {down_ms!r}")

        def act() -> None:
            client = self._current(name)
            if client.running and client.closing:
                client.restart_after_close = True
                client.restart_down_ms = down_ms
            elif client.running:
                self.stop_member(client.member_id, restart_after_ms=down_ms)
            else:
                self._restart(client)
        self.clock.schedule_at(at_ms, act, f"restart {name}")

    def _completed_rebalance(self) -> None:
        """After each event of :meth:`run`: a group epoch newer than the last reported one whose group is
        now stable is a completed rebalance."""
        co = self.coordinator
        if co.group_epoch > self._reported_epoch and self.is_stable():
            self._reported_epoch = co.group_epoch
            self._stable_since = self.clock.now_ms
            if self._rebalance_listeners:
                owned: Dict[str, List[TopicPartition]] = {}
                for mid, member in co.members.items():  # the coordinator's assignment, by process
                    owned.setdefault(process_of(mid), []).extend(topic_partitions(member.assigned))
                self._emit_rebalance(CompletedRebalance(co.group_epoch, self.clock.now_ms, format_assignment(owned)))

    def run(self, until_ms: int, /) -> "KIP848Simulation":
        """Run every event up to ``until_ms`` and set the clock there, reporting each completed rebalance
        (:meth:`on_rebalance_completed`); :class:`~rebalance.errors.EventLimitError` after ``max_events``
        events (by default :data:`~rebalance.protocol.clock.MAX_EVENTS`)."""
        require(isinstance(until_ms, int) and until_ms >= self.clock.now_ms, "until_ms",
                f"must be a time >= now ({self.clock.now_ms}), got {until_ms!r}")
        clock, steps, max_events = self.clock, 0, self.max_events
        while True:
            t = clock.peek_time()
            if t is None or t > until_ms:
                break
            clock.step()
            steps += 1
            if steps > max_events:
                raise EventLimitError(max_events, until_ms)
            self._completed_rebalance()
        clock.now_ms = max(clock.now_ms, until_ms)
        return self

    # -- running ----------------------------------------------------------------------------------
    def run_until_stable(self, max_ms: int = 3_600_000, min_time_ms: Optional[int] = None,
                         idle: Optional[Callable[[], bool]] = None) -> Optional[int]:
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

    def metrics(self, start_ms: int = 0, end_ms: Optional[int] = None,
                stable_ms: Optional[int] = _STABLE_NOW) -> RebalanceMetrics:
        """The run's :class:`~rebalance.protocol.ledger.RebalanceMetrics` over ``[start_ms, end_ms)``
        (``end_ms`` default: now): ``rebalances`` are the group-epoch bumps, ``completed_rebalances`` the
        target assignments computed from ``start_ms`` on; unowned time counts the partitions of subscribed
        topics only.  ``stable_ms`` (``None``: not settled) defaults to when :meth:`run` last saw the group
        become stable after a group-epoch bump, if it is stable now."""
        if end_ms is None:
            end_ms = self.clock.now_ms
        if stable_ms is _STABLE_NOW:
            stable_ms = self._stable_since if self._stable_since is not None and self.is_stable() else None
        bumps = sum(1 for t, _ in self.group_epochs if t >= start_ms)
        computed = sum(1 for e in self.trace if e.kind == "target-assignment" and e.time_ms >= start_ms)
        return RebalanceMetrics.from_ledger(
            self.ownership, start_ms, end_ms, settled=stable_ms is not None, stable_ms=stable_ms,
            rebalances=bumps, completed_rebalances=computed, group_epoch=self.coordinator.group_epoch,
            messages=self.message_counts, partitions=self.all_partitions())
