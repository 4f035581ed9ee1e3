"""The client side of the classic group protocol: one consumer (or any group client).

Modelled on ``org.apache.kafka.clients.consumer.internals.AbstractCoordinator`` and ``ConsumerCoordinator``
in Kafka's source at commit 1eb7644 (trunk before 4.0; the line numbers below are that commit's):

* the member finds its coordinator (FindCoordinator), sends JoinGroup (a dynamic member learns its member
  id from ``MEMBER_ID_REQUIRED`` and joins again), then SyncGroup; the leader runs the assignor;
* a heartbeat thread sends Heartbeat every ``heartbeat.interval.ms`` while the member is in a generation
  and stops while a JoinGroup is in flight; ``REBALANCE_IN_PROGRESS`` makes the member rejoin at its next
  ``poll()``;
* **eager** members revoke every owned partition before JoinGroup (``onJoinPrepare``); **cooperative**
  members (KIP-429) keep them, report them as owned partitions, give up only what the new assignment does
  not contain and then rejoin for a second round;
* ``ILLEGAL_GENERATION`` / ``UNKNOWN_MEMBER_ID`` reset the generation (and member id) and the owned
  partitions are *lost* (``onPartitionsLost``); ``FENCED_INSTANCE_ID`` is fatal (the consumer stops);
* a static member (``group.instance.id``, KIP-345) sends no LeaveGroup when it closes;
* each process keeps one object per configured built-in assignor for its whole life
  (:class:`~.assignors.ClientAssignor`): ``onAssignment`` feeds it, ``subscriptionUserData`` goes into every
  JoinGroup, and the leader assigns with its own object -- so an eager ``StickyAssignor`` member, which
  revokes everything before it joins, still tells the leader what it had (``StickyAssignor``, Kafka 4.3.1).

The application thread's poll loop (:class:`~.config.ProtocolConfig`: ``max_poll_records`` records per
``poll()``, ``batch_ms`` to process them) decides *when* the member acts on the group: the group work of
``ConsumerCoordinator.poll`` (line 470 at commit 1eb7644) runs on the application thread, inside ``poll()``, so

* a member that hears of a rebalance from its heartbeat thread rejoins at its next ``poll()``, when its
  current batch is done (``AbstractCoordinator.joinGroupIfNeeded``, line 457);
* a cooperative member keeps processing its owned partitions during the rebalance (KIP-429); its heartbeat
  thread is disabled while the JoinGroup is in flight (``MemberState.hasNotJoinedGroup``, line 128), so the
  JoinGroup response -- an error as much as a success (followed for errors since 2026-11-30) -- is handled (and
  the leader assigns, or the member retries) at its next ``poll()``, and ``onJoinComplete``
  (revoke, assign) runs at the ``poll()`` after the SyncGroup response -- or in the same ``poll()`` if the
  responses arrive while it lasts (``ProtocolConfig.poll_timeout_ms``: ``ClassicKafkaConsumer.poll`` loops
  until its timeout when no records are waiting, Kafka 4.3.1 lines 647-681);
* a SyncGroup error (``REBALANCE_IN_PROGRESS``, ``UNKNOWN_MEMBER_ID``, ``ILLEGAL_GENERATION``) only fails the
  join future (``SyncGroupResponseHandler``); the next JoinGroup comes from ``joinGroupIfNeeded`` on the
  application thread, within the ``poll()`` it is in or at its next one (followed since 2026-11-30, after a
  real broker removed chapter 7's slow cooperative member from a second round that the simulator's member had
  rejoined at once);
* an eager member has given up every partition before it joins, so its ``poll()`` returns no records and it
  acts on each response at once.

A batch longer than ``max.poll.interval.ms`` (KIP-62) trips the heartbeat thread's poll timer
(``AbstractCoordinator.HeartbeatThread``, line 1519: ``heartbeat.pollTimeoutExpired``): it calls
``handlePollTimeoutExpiry`` (line 1147), which sends LeaveGroup for a dynamic member (``maybeLeaveGroup``, line
1164; a static member sends nothing and is removed when its session expires) and resets the generation.
The application thread keeps processing the batch in hand until it calls ``poll()`` again; only then does
``onJoinPrepare`` see the reset generation and call ``onPartitionsLost``, and the member joins again.  Meanwhile the coordinator may already have given its partitions to others: a
*zombie* overlap, which the simulation counts apart from true double assignment
(:class:`~.ledger.OwnershipLedger`).

``KafkaConsumer.close`` runs on the application thread, so no rebalance step (JoinGroup after the eager
revocation, the cooperative assignment after ``onPartitionsRevoked``, a late SyncGroup response) can
follow it: a closing member never takes up partitions.

Simplifications: offsets and fetching are not modelled (a member "owns" a partition from the moment its
assignment arrives until its revocation starts); partitions lost after ``ILLEGAL_GENERATION`` /
``UNKNOWN_MEMBER_ID`` from a heartbeat stop at once, where Kafka's application thread may finish its current
batch before ``onPartitionsLost`` runs at the next ``poll()``.
"""
from __future__ import annotations

import random
from enum import auto
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from ..common import JsonRecord, KafkaName, TopicPartition
from ..consumer.assignor import COOPERATIVE, EAGER
from .assignors import validate_cooperative_assignment
from .clock import HEARTBEAT, NORMAL, ScheduledEvent
from .pollloop import next_poll_delay
from .group import (COORDINATOR_NOT_AVAILABLE, FENCED_INSTANCE_ID, ILLEGAL_GENERATION, INCONSISTENT_GROUP_PROTOCOL,
                    INVALID_SESSION_TIMEOUT, MEMBER_ID_REQUIRED, NONE, NOT_COORDINATOR, REBALANCE_IN_PROGRESS,
                    UNKNOWN_MEMBER_ID)

if TYPE_CHECKING:  # pragma: no cover
    from .simulation import GroupSimulation

class MemberState(KafkaName):
    """A client's state in the classic protocol: Kafka's ``AbstractCoordinator.MemberState`` (4.3.1: UNJOINED,
    PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE), by its Java names, and the book's ``STOPPED`` for a
    closed or crashed process.  Not the group's state (:class:`~rebalance.protocol.group.ClassicGroupState`,
    whose ``STABLE`` prints ``Stable``).

    Defined in chapter 1, *Groups, coordinators and generations*."""
    UNJOINED = auto()
    PREPARING_REBALANCE = auto()
    COMPLETING_REBALANCE = auto()
    STABLE = auto()
    STOPPED = auto()


UNJOINED, PREPARING, COMPLETING, STABLE, STOPPED = MemberState

_COORDINATOR_ERRORS = (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE)


class ConsumerMember:
    """One incarnation of a consumer process named ``name`` (its ``client.id``)."""

    def __init__(self, sim: "GroupSimulation", name: str, *, topics: Sequence[str], assignors: Sequence[str],
                 protocol: str, instance_id: Optional[str], session_timeout_ms: int,
                 max_poll_interval_ms: int, heartbeat_interval_ms: int, revoke_ms: int, incarnation: int,
                 batch_ms: int = 0, poll_timeout_ms: int = 0):
        self.sim = sim
        self.name = name
        self.topics = sorted(topics)
        self.assignors = list(assignors)
        self.protocol = protocol
        self.instance_id = instance_id
        self.session_timeout_ms = session_timeout_ms
        self.max_poll_interval_ms = max_poll_interval_ms
        #: sent in JoinGroup: max.poll.interval.ms (GroupRebalanceConfig, line 55)
        self.rebalance_timeout_ms = max_poll_interval_ms
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.revoke_ms = revoke_ms
        #: time the application spends on one poll()'s records
        self.batch_ms = batch_ms
        #: how long its poll() lasts while it owns partitions (``ProtocolConfig.poll_timeout_ms``)
        self.poll_timeout_ms = poll_timeout_ms
        self.incarnation = incarnation
        self.state = UNJOINED
        self.member_id = ""
        self.generation = -1
        self.owned: List[Tuple[str, int]] = []
        self.rejoin_needed = True
        self.joining = False
        #: the SyncGroup response arrived (the member is STABLE), onJoinComplete waits for the next poll()
        self.synced = False
        #: the application was told to stop and calls close() when its batch in hand is done
        self.close_pending = False
        self.coordinator_known = False
        self.finding_coordinator = False
        self.busy_until = 0
        #: the application thread's polls start at ``_batch_anchor + k * cycle_ms`` while it owns partitions
        self._batch_anchor = 0
        #: until then the member cannot reach the coordinator (heartbeats are not delivered)
        self.partitioned_until = 0
        #: until then the whole process is stopped (a GC pause: ``GroupSimulation.pause``): no heartbeat
        self.paused_until = 0
        self.alive = True
        self.hb_enabled = False
        self.hb_in_flight = False
        self._hb_event: Optional[ScheduledEvent] = None
        #: the last Heartbeat sent: its arrival and response events, and the response once it is known
        self.hb_arrival: Optional[ScheduledEvent] = None
        self.hb_delivery: Optional[ScheduledEvent] = None
        self.hb_response: Optional[JsonRecord] = None
        self._poll_event: Optional[ScheduledEvent] = None
        self.is_leader = False
        #: bumped when the member resets: responses to requests sent before are ignored
        self.epoch = 0
        #: the generation was reset behind the application thread's back (poll timeout): the owned
        #: partitions are still processed until the next ``poll()`` calls ``onPartitionsLost``
        self.lost_pending: Optional[str] = None
        #: this process's assignor objects (``ConsumerCoordinator.assignors``), built-in ones only; an
        #: assignor given to the simulation as a plain callable is shared and keeps no per-member state
        self.client_assignors = sim.client_assignors(self.assignors)
        #: the protocol (assignor) the coordinator selected, from the last JoinGroup response
        self.protocol_name: Optional[str] = None

    # ------------------------------------------------------------------ utilities
    @property
    def now(self) -> int:
        return self.sim.clock.now_ms

    @property
    def closing(self) -> bool:
        """``KafkaConsumer.close()`` has been called and has not returned yet (the revocation callback and
        the LeaveGroup are still to come): the process is alive but takes no part in the group."""
        return self.alive and self.state == STOPPED

    def _later(self, delay_ms: int, action: Callable[[], object], label: str = "", priority: int = NORMAL,
               key: str = "") -> ScheduledEvent:
        inc = self.incarnation

        def guarded() -> None:
            if self.alive and self.incarnation == inc:
                action()
        return self.sim.clock.schedule(delay_ms, guarded, label, priority, key)

    def heartbeat_key(self, rank: int) -> str:
        """Tie-break key of this member's heartbeat-cycle events (``rank``: 0 response, 1 arrival, 2 tick)."""
        return f"{self.name}#{rank}"

    def _log(self, kind: str, **fields: Any) -> None:
        self.sim.log(kind, self.name, **fields)

    def _listener(self, callback: str, partitions: Iterable[TopicPartition]) -> None:
        """``ConsumerRebalanceListenerInvoker.invokePartitions{Revoked,Assigned,Lost}``: the application's
        callback is called now with ``partitions`` (a ``SortedSet``: sorted by topic, then partition)."""
        self._log("listener", callback=callback, partitions=sorted(partitions), generation=self.generation)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        self._log("member", what="start", instance=self.instance_id, protocol=self.protocol)
        self.request_poll()

    @property
    def cycle_ms(self) -> int:
        """One turn of the application's loop while it owns partitions: its ``poll()`` (``poll_timeout_ms``)
        and the batch after it (``batch_ms``)."""
        return self.batch_ms + (self.poll_timeout_ms if self.batch_ms > 0 else 0)

    def set_batch_phase(self) -> None:
        """Start the batches at a phase fixed per process (a long-running group's members are not in step)."""
        batch = self.cycle_ms
        if batch > 0:
            self._batch_anchor = self.now - random.Random(f"{self.name}/{self.incarnation}").randrange(batch)
            self._arm_poll_timer()

    def _batch_end_delay(self) -> int:
        """Time until the application thread is inside ``poll()`` again: 0 if it owns nothing (its ``poll()``
        returns no records, and it polls again at once), else 0 while its current ``poll()`` lasts (the first
        ``poll_timeout_ms`` of each cycle, ``ClassicKafkaConsumer.poll`` looping until its timeout) and
        otherwise the rest of the batch of ``batch_ms`` that follows it."""
        if not self.owned:
            return 0
        return next_poll_delay(self.now, self._batch_anchor, self.batch_ms, self.poll_timeout_ms)

    def _arm_poll_timer(self) -> None:
        """A batch longer than ``max.poll.interval.ms`` trips the heartbeat thread's poll timer that long
        after the ``poll()`` that returned it (KIP-62)."""
        batch = self.batch_ms
        if batch <= self.max_poll_interval_ms or not self.owned:
            return
        started = self.now - ((self.now - self._batch_anchor) % self.cycle_ms)
        anchor = self._batch_anchor

        def expired() -> None:
            if self._batch_anchor == anchor and self.owned and self.generation >= 0:
                self._poll_timeout_expired()
        self._later(started + self.max_poll_interval_ms - self.now, expired, "poll-timeout")

    def _poll_timeout_expired(self) -> None:
        """``AbstractCoordinator.handlePollTimeoutExpiry`` / ``maybeLeaveGroup``: LeaveGroup (dynamic members
        only), reset the generation; the partitions are lost at the next ``poll()``."""
        self._log("member", what="pollTimeout")
        if self.instance_id is None and self.member_id and self.coordinator_known:
            self.sim.request(self, "LeaveGroup", {"memberId": self.member_id, "groupInstanceId": None},
                             lambda resp: None, summary={"memberId": self.member_id})
        # the heartbeat thread resets the generation; the application thread is still in its batch and
        # processes the owned partitions until its next poll() (a zombie)
        self._reset("poll timeout", reset_member_id=True, lose_now=False)
        self.joining = False
        self.request_poll(wait_batch=True)

    def _next_poll_wait(self) -> int:
        """Time until the application thread calls ``poll()`` again: the rest of its batch, or of a stall."""
        return max(self._batch_end_delay(), self.busy_until - self.now)

    def _at_next_poll(self, action: Callable[[], object], label: str) -> None:
        """Run ``action`` at the application thread's next ``poll()`` (at once if it processes nothing),
        unless the member resets meanwhile."""
        wait = self._next_poll_wait()
        if wait <= 0:
            action()
            return
        epoch = self.epoch

        def later() -> None:
            if self.epoch == epoch and self.state != STOPPED:
                action()
        self._later(wait, later, label)

    def request_poll(self, delay_ms: int = 0, wait_batch: bool = False) -> None:
        """The application thread calls ``poll()`` (now, or when its current batch is done)."""
        if wait_batch:
            delay_ms = max(delay_ms, self._batch_end_delay())
        at = max(self.now + delay_ms, self.busy_until)
        if self._poll_event is not None and not self._poll_event.cancelled and self._poll_event.time_ms <= at:
            return
        if self._poll_event is not None:
            self._poll_event.cancel()
        self._poll_event = self._later(at - self.now, self._poll, "poll")

    def _poll(self) -> None:
        self._poll_event = None
        if self.state == STOPPED:
            return
        if self.now < self.busy_until:
            self.request_poll()
            return
        if self.lost_pending is not None:  # onJoinPrepare with a reset generation: onPartitionsLost
            reason, self.lost_pending = self.lost_pending, None
            self._lose_all(reason)
        if not self.coordinator_known:
            self._find_coordinator()
            return
        if self.rejoin_needed and not self.joining:
            self._join_prepare()

    def _find_coordinator(self) -> None:
        if self.finding_coordinator:
            return
        self.finding_coordinator = True
        self.sim.find_coordinator(self, self._on_find_coordinator)

    def _on_find_coordinator(self, resp: JsonRecord) -> None:
        self.finding_coordinator = False
        if resp["error"] != NONE:
            self._later(self.sim.config.retry_backoff_ms, self._find_coordinator, "find-coordinator-retry")
            return
        self.coordinator_known = True
        if self.hb_enabled:
            self._schedule_heartbeat(0)
        self.request_poll()

    def _mark_coordinator_unknown(self) -> None:
        if self.coordinator_known:
            self.coordinator_known = False
            self._log("member", what="coordinatorUnknown")
        self.request_poll()

    # ------------------------------------------------------------------ join
    def _join_prepare(self) -> None:
        """``ConsumerCoordinator.onJoinPrepare``: eager revokes everything first."""
        self.joining = True
        self.state = PREPARING
        self._disable_heartbeat()
        if self.protocol == EAGER and self.generation >= 0:  # onJoinPrepare calls it even with nothing owned
            self._listener("onPartitionsRevoked", self.owned)
        if self.protocol == EAGER and self.owned:
            revoked = list(self.owned)
            self._log("revoke", partitions=revoked, protocol=EAGER)
            self._revoke(revoked)
            self._later(self.revoke_ms, self._send_join, "revoke")
        else:
            self._send_join()

    def _revoke(self, revoked: Iterable[TopicPartition]) -> None:
        """``onPartitionsRevoked`` starts: processing of ``revoked`` stops now; the callback (commit,
        flush) then takes ``revoke_ms`` before the member goes on."""
        self.sim.ownership.release(self.name, revoked, self.now, "revoked")
        gone = set(revoked)
        self.owned = [tp for tp in self.owned if tp not in gone]

    def subscription(self, assignor: Optional[str] = None) -> JsonRecord:
        """The JoinGroup metadata for ``assignor`` (``ConsumerCoordinator.metadata``): topics, owned
        partitions, generation, and -- for a built-in assignor -- its ``subscriptionUserData`` bytes."""
        meta: JsonRecord = {"topics": list(self.topics), "owned": list(self.owned), "generation": self.generation,
                "instance_id": self.instance_id}
        own = None if assignor is None else self.client_assignors.get(assignor)
        if own is not None:
            meta["user_data"] = own.subscription_user_data(self.topics)
        return meta

    def protocols(self) -> List[Tuple[str, JsonRecord]]:
        """``[(assignor name, metadata), ...]`` in preference order, one metadata per assignor."""
        return [(a, self.subscription(a)) for a in self.assignors]

    def on_assignment(self, partitions: Sequence[Tuple[str, int]], generation: int) -> None:
        """``ConsumerCoordinator.invokeOnAssignment``: tell the selected assignor object what this member
        was given in ``generation``."""
        own = None if self.protocol_name is None else self.client_assignors.get(self.protocol_name)
        if own is not None:
            own.on_assignment(partitions, generation)

    def _send_join(self) -> None:
        if self.state == STOPPED:  # closed during the eager revocation: KafkaConsumer.close never rejoins
            return
        self.joining = True
        self.state = PREPARING
        req = {"memberId": self.member_id, "groupInstanceId": self.instance_id, "clientId": self.name,
               "sessionTimeoutMs": self.session_timeout_ms, "rebalanceTimeoutMs": self.rebalance_timeout_ms,
               "protocols": self.protocols()}
        self.sim.request(self, "JoinGroup", req, self._on_join_response,
                         summary={"memberId": self.member_id, "generation": self.generation,
                                  "owned": len(self.owned)})

    def _on_join_response(self, resp: JsonRecord) -> None:
        # the heartbeat thread is disabled while JoinGroup is in flight: the response, whatever its error, is read
        # at the application thread's next poll(), whose joinGroupIfNeeded loop then sends the next JoinGroup
        self._at_next_poll(lambda: self._handle_join_response(resp), "join-response")

    def _handle_join_response(self, resp: JsonRecord) -> None:
        """``JoinGroupResponseHandler.handle``, then ``joinGroupIfNeeded``'s next turn."""
        error = resp["error"]
        if error == MEMBER_ID_REQUIRED:
            self.member_id = resp["memberId"]
            self._send_join()
        elif error == NONE:
            self._on_join_success(resp)
        elif error == UNKNOWN_MEMBER_ID:
            self._reset("join: " + error, reset_member_id=True)
            self.joining = False
            self.request_poll()
        elif error == ILLEGAL_GENERATION:
            self._reset("join: " + error, reset_member_id=False)
            self.joining = False
            self.request_poll()
        elif error in (FENCED_INSTANCE_ID, INVALID_SESSION_TIMEOUT, INCONSISTENT_GROUP_PROTOCOL):
            self._fatal(error)  # the consumer throws to the application
        elif error in _COORDINATOR_ERRORS:
            self.joining = False
            self._mark_coordinator_unknown()
        else:  # REBALANCE_IN_PROGRESS or anything retriable
            self.joining = False
            self.request_poll()

    def _on_join_success(self, resp: JsonRecord) -> None:
        """The JoinGroup response handler (``JoinGroupResponseHandler``): the member is in the new generation;
        the leader runs the assignor (``onLeaderElected``), everyone sends SyncGroup."""
        self.member_id = resp["memberId"]
        self.generation = resp["generation"]
        self.protocol_name = resp.get("protocolName")
        self.state = COMPLETING
        self.is_leader = resp["leader"] == self.member_id
        self._enable_heartbeat()
        if self.sim.should_lose_leader(self, resp):
            return
        assignments = {}
        if self.is_leader and not resp.get("skipAssignment"):
            assignments = self._perform_assignment(resp["protocolName"], resp["members"])
        if self.now < self.partitioned_until:
            self._later(self.partitioned_until - self.now, lambda: self._send_sync(assignments), "sync-after-partition")
        else:
            self._send_sync(assignments)

    def _perform_assignment(self, protocol_name: str, members: List[JsonRecord]) -> Dict[str, List[TopicPartition]]:
        """``ConsumerCoordinator.onLeaderElected``: run the selected assignor over the subscriptions."""
        subs = {m["memberId"]: dict(m["metadata"], instance_id=m["groupInstanceId"]) for m in members}
        own = self.client_assignors.get(protocol_name)
        if own is not None:  # ConsumerCoordinator.onLeaderElected: this consumer's own assignor object
            out = own(dict(self.sim.topics), subs)
            assignment = {mid: [(t, p) for t, p in out.get(mid, [])] for mid in subs}
        else:
            assignment = self.sim.run_assignor(protocol_name, {k: {f: v for f, v in meta.items() if f != "user_data"}
                                                               for k, meta in subs.items()})
        if self.protocol == COOPERATIVE:
            validate_cooperative_assignment({k: v["owned"] for k, v in subs.items()}, assignment)
        self._log("assign", generation=self.generation, assignor=protocol_name,
                  assignment={k: list(v) for k, v in assignment.items()})
        return assignment

    def _send_sync(self, assignments: Dict[str, List[TopicPartition]]) -> None:
        req = {"memberId": self.member_id, "groupInstanceId": self.instance_id, "generation": self.generation,
               "assignments": assignments}
        self.sim.request(self, "SyncGroup", req, self._on_sync_response,
                         summary={"memberId": self.member_id, "generation": self.generation,
                                  "leader": bool(assignments)})

    def _on_sync_response(self, resp: JsonRecord) -> None:
        error = resp["error"]
        if error == NONE:  # onJoinComplete runs on the application thread, at its next poll()
            # the response handler (AbstractCoordinator.SyncGroupResponseHandler, 4.3.1 lines 836-856) makes the
            # member STABLE and clears rejoinNeeded as the response arrives: a REBALANCE_IN_PROGRESS heard by the
            # heartbeat thread before the application's next poll() asks for a rejoin after onJoinComplete
            self.rejoin_needed = False
            self.synced = True
            assigned = [tuple(tp) for tp in resp["assignment"]]
            self._at_next_poll(lambda: self._on_join_complete(assigned), "join-complete")
        # an error fails the join future (SyncGroupResponseHandler); the application thread sends the next
        # JoinGroup from joinGroupIfNeeded, within the poll() it is in or at its next one
        elif error == REBALANCE_IN_PROGRESS:
            self.joining = False
            self.rejoin_needed = True
            self.request_poll(wait_batch=True)
        elif error in (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION):
            self.joining = False
            self._reset("sync: " + error, reset_member_id=error == UNKNOWN_MEMBER_ID)
            self.request_poll(wait_batch=True)
        elif error == FENCED_INSTANCE_ID:
            self._fatal(error)
        elif error in _COORDINATOR_ERRORS:
            self.joining = False
            self.rejoin_needed = True
            self._mark_coordinator_unknown()
        else:
            self.joining = False
            self.rejoin_needed = True
            self.request_poll(wait_batch=True)

    def _on_join_complete(self, assigned: List[Tuple[str, int]]) -> None:
        """``ConsumerCoordinator.onJoinComplete`` (then a rejoin the heartbeat asked for since the SyncGroup
        response, in the same ``poll()``)."""
        self.joining = False
        self.synced = False
        self.state = STABLE
        if self.rejoin_needed:
            self.request_poll()
        self.on_assignment(assigned, self.generation)
        if self.protocol == EAGER:
            self.owned = []
            self._listener("onPartitionsAssigned", assigned)
            self._acquire(assigned)
            return
        assigned_set = set(assigned)
        owned_set = set(self.owned)
        revoked = [tp for tp in self.owned if tp not in assigned_set]
        added = [tp for tp in assigned if tp not in owned_set]
        if revoked:
            self._log("revoke", partitions=revoked, protocol=COOPERATIVE)
            self._listener("onPartitionsRevoked", revoked)
            self._revoke(revoked)

            def after() -> None:
                if self.state == STOPPED:  # closed meanwhile: nothing more is taken up
                    return
                self._listener("onPartitionsAssigned", added)
                self._acquire(added)
                self.rejoin_needed = True  # second round: give the revoked partitions away
                self.request_poll()
            self._later(self.revoke_ms, after, "revoke")
        else:
            self._listener("onPartitionsAssigned", added)
            self._acquire(added)

    def _acquire(self, tps: Iterable[TopicPartition]) -> None:
        if self.state == STOPPED:  # a closing or stopped consumer processes nothing new
            return
        owned = set(self.owned)
        tps = [tp for tp in tps if tp not in owned]
        if not tps:
            return
        first_batch = not self.owned
        self.sim.ownership.acquire(self.name, tps, self.now)
        self.owned.extend(tps)
        self._log("assigned", partitions=list(tps), generation=self.generation)
        if first_batch:  # the poll() that ran onJoinComplete returns the first records: a batch starts
            self._batch_anchor = self.now
            self._arm_poll_timer()

    # ------------------------------------------------------------------ resets
    def _lose_all(self, reason: str) -> None:
        if self.owned:
            self._log("lost", partitions=list(self.owned), reason=reason)
            self._listener("onPartitionsLost", self.owned)
            self.sim.ownership.release(self.name, list(self.owned), self.now, "lost")
            self.owned = []

    def _reset(self, reason: str, reset_member_id: bool, lose_now: bool = True) -> None:
        """``AbstractCoordinator.resetStateAndGeneration`` + ``onPartitionsLost`` (``lose_now=False``: the
        application thread only notices at its next ``poll()``)."""
        if lose_now:
            self._lose_all(reason)
        elif self.owned:
            self.lost_pending = reason
            self._log("member", what="zombie", partitions=list(self.owned), until_ms=self.busy_until)
        self.generation = -1
        if reset_member_id:
            self.member_id = ""
        self.state = UNJOINED
        self.rejoin_needed = True
        self.synced = False
        self.epoch += 1
        self._disable_heartbeat()

    def _fatal(self, error: str) -> None:
        self._log("member", what="fatal", error=error)
        self._lose_all(error)
        self._stop()

    def _stop(self) -> None:
        if self.owned:  # nothing is processed by a stopped process
            self.sim.ownership.release(self.name, list(self.owned), self.now, "stopped")
            self.owned = []
        self.state = STOPPED
        self.alive = False
        self._disable_heartbeat()
        self.sim.member_stopped(self)

    # ------------------------------------------------------------------ heartbeats
    def _enable_heartbeat(self) -> None:
        self.hb_enabled = True
        self._schedule_heartbeat(self.heartbeat_interval_ms)

    def _disable_heartbeat(self) -> None:
        self.sim.materialize(self)  # the heartbeat fast path: bring the skipped heartbeats up to date first
        self.hb_enabled = False
        self.hb_in_flight = False
        if self._hb_event is not None:
            self._hb_event.cancel()
            self._hb_event = None

    def _schedule_heartbeat(self, delay_ms: int) -> None:
        if self._hb_event is not None:
            self._hb_event.cancel()
        self._hb_event = self._later(delay_ms, self._heartbeat_tick, "heartbeat", HEARTBEAT, self.heartbeat_key(2))

    def heartbeat_request(self) -> JsonRecord:
        """The Heartbeat request this member sends now."""
        return {"memberId": self.member_id, "groupInstanceId": self.instance_id, "generation": self.generation}

    def _heartbeat_tick(self) -> None:
        self._hb_event = None
        if not self.hb_enabled:
            return
        paused = self.paused_until - self.now
        if (self.coordinator_known and not self.hb_in_flight and self.now >= self.partitioned_until
                and paused <= 0):
            self.hb_in_flight = True
            self.sim.request(self, "Heartbeat", self.heartbeat_request(), self._on_heartbeat_response,
                             summary={"memberId": self.member_id, "generation": self.generation})
        if self.coordinator_known:  # a paused process's heartbeat thread sends as soon as it runs again
            self._schedule_heartbeat(paused if paused > 0 else self.heartbeat_interval_ms)

    def _on_heartbeat_response(self, resp: JsonRecord) -> None:
        self.hb_in_flight = False
        error = resp["error"]
        if error == NONE:
            return
        if error == REBALANCE_IN_PROGRESS:
            if not self.joining or self.synced:  # STABLE once the SyncGroup response arrived
                self.rejoin_needed = True
                self.request_poll(wait_batch=True)
        elif error in (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID):
            if not self.joining:
                wait = self._batch_end_delay()
                self._reset("heartbeat: " + error, reset_member_id=error == UNKNOWN_MEMBER_ID)
                self.request_poll(delay_ms=wait)
        elif error == FENCED_INSTANCE_ID:
            self._fatal(error)
        elif error in _COORDINATOR_ERRORS:
            self._mark_coordinator_unknown()

    # ------------------------------------------------------------------ faults and shutdown
    def crash(self, reason: str = "crash") -> None:
        """The process dies: nothing more is sent, its partitions are no longer processed."""
        self._log("member", what="crash", reason=reason)
        if self.owned:
            self.sim.ownership.release(self.name, list(self.owned), self.now, "crash")
            self.owned = []
        self._stop()

    def close_after_batch(self) -> None:
        """A graceful stop: the application's poll loop ends (``KafkaConsumer.wakeup()`` from a shutdown hook
        interrupts a ``poll()`` that is waiting, not the processing of a batch) and it calls :meth:`close` -- at
        once if it is inside ``poll()`` or owns nothing, else when the batch in hand is done (followed since
        2026-11-30, after the peer run's real members, which close between two polls, left up to a batch later)."""
        if self.close_pending or self.state == STOPPED:
            return
        wait = self._next_poll_wait()
        if wait <= 0:
            self.close()
            return
        self.close_pending = True
        self._log("member", what="stopPolling", close_at_ms=self.now + wait)

        def close() -> None:
            self.close_pending = False
            if self.state != STOPPED:
                self.close()
        self._later(wait, close, "close-after-batch")

    def close(self) -> None:
        """``KafkaConsumer.close``: revoke owned partitions, then LeaveGroup unless the member is static."""
        self._log("member", what="close")
        # close() abandons any rebalance in progress: later responses are ignored, no more heartbeats
        self.epoch += 1
        self.joining = False
        self._disable_heartbeat()
        if self._poll_event is not None:
            self._poll_event.cancel()
        self.state = STOPPED
        revoked = list(self.owned)
        if revoked:
            self._revoke(revoked)

        def leave() -> None:
            if self.instance_id is None and self.member_id and self.coordinator_known:
                self.sim.request(self, "LeaveGroup", {"memberId": self.member_id, "groupInstanceId": None},
                                 lambda resp: None, summary={"memberId": self.member_id})
            self._stop()
        if revoked:
            self._log("revoke", partitions=revoked, protocol=self.protocol)
            self._listener("onPartitionsRevoked", revoked)
            self._later(self.revoke_ms, leave, "close")
        else:
            leave()

    def go_slow(self, duration_ms: int) -> None:
        """The application thread does not call ``poll()`` for ``duration_ms`` (a long batch).  If that
        exceeds ``max.poll.interval.ms`` the heartbeat thread leaves the group (dynamic members send
        LeaveGroup) and the partitions are lost at the next ``poll()``."""
        self._log("member", what="slow", duration_ms=duration_ms)
        start = self.now
        self.busy_until = max(self.busy_until, start + duration_ms)
        if duration_ms > self.max_poll_interval_ms:
            def poll_timeout() -> None:
                if self.now - start >= self.max_poll_interval_ms:
                    self._poll_timeout_expired()
            self._later(self.max_poll_interval_ms, poll_timeout, "poll-timeout")
        self.request_poll()
