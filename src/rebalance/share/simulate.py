"""``simulate`` for ``"kind": "share"``: a KIP-932 share group's life from a JSON scenario, on a virtual clock.

A scenario names the group's topics, its members (share consumers), the records produced and what happens::

    {"kind": "share", "id": "crash", "topics": {"t": 2}, "records": {"t": 20},
     "members": [{"id": "m1"}, {"id": "m2"}],
     "config": {"group.share.record.lock.duration.ms": 4000, "group.share.heartbeat.interval.ms": 500,
                "group.share.session.timeout.ms": 10000, "max.poll.records": 5, "record.processing.ms": 100},
     "events": [{"at_ms": 3000, "op": "crash", "member": "m2"},
                {"at_ms": 4000, "op": "produce", "topic": "t", "count": 10}],
     "until_ms": 30000}

The coordinator is modelled on ``GroupMetadataManager.shareGroupHeartbeat`` (group coordinator, Kafka 4.3.1): a
member's first heartbeat (``join``, a ``restart``'s new process), a leave heartbeat (``leave``) and a session
timeout (``crash``: ``group.share.session.timeout.ms`` after its last heartbeat) bump the group epoch and compute
a target assignment with :class:`~rebalance.share.SimpleAssignor` (:func:`~rebalance.share.assign_share_group`,
member id = the scenario's member id, the last target carried) -- since Kafka 4.3 only once
``group.share.assignment.interval.ms`` (1 s by default) has passed since the last target, at the first heartbeat
after it (``maybeUpdateTargetAssignment`` and ``canComputeNextTargetAssignment``, 4.3.1 lines 3943-3962 and
3824-3845; until then a heartbeat is answered from the last target, and a member joining gets that target's
share: nothing); a share partition is assignable only once its
share-group state is initialized (``topicPartitionAllowedMap``): every heartbeat, a join's included and whether
or not it computed a target, starts initializing the group's subscribed topics that are not yet
(``maybeCreateInitializeShareGroupStateRequest``), and the next heartbeat after it bumps the epoch again
(``initializedAssignmentPending``).  A share
group has no revocation: a member takes its target at its next heartbeat (every
``group.share.heartbeat.interval.ms`` from its join).  An assignment change is *completed* when the target is
the group epoch's and every member's epoch is that epoch.

Each member polls: it acquires up to ``max.poll.records`` records from its partitions
(:class:`~rebalance.share.SharePartitionModel`, one per partition: ``SharePartition``), taking them from the
partitions in the order the broker does (:mod:`~rebalance.share.share_fetch`: the share session's round-robin
rotation by session epoch, partitions read again for a new fetch offset last), processes each for
``record.processing.ms`` (not a Kafka setting: the application's time per record, default 0), then acknowledges
the batch (``ACCEPT``, ``commitSync``) and polls again; with nothing to fetch it polls again after 100 ms (a
``poll(100 ms)``).  A ``leave`` finishes the batch in hand first; a ``crash`` leaves its batch ``ACQUIRED`` until
the acquisition locks expire (``group.share.record.lock.duration.ms`` after the fetch), and another member then
acquires those records again, their delivery count one higher (``ARCHIVED`` at
``group.share.delivery.count.limit``).

Output: one line per completed assignment change, ``{"epoch", "at_ms", "assignment", "moved"}`` (``moved``:
partitions a member that stays in the group lost), then one summary line: ``changes``, ``epoch``, the
``records`` counters (``produced``, ``acquired``, ``acknowledged``, ``redelivered``, ``lock_expired``), ``crashes`` (each crash's in-flight records, when their locks expire, and how many were
redelivered), ``final``: every record's final state and delivery count, run-length encoded per partition as
``[first offset, last offset, state, delivery count]``, and ``delivery_counts`` (how many records ended with each
count).  Bad input is an :class:`~rebalance.errors.InputError` naming the field.
"""
from __future__ import annotations

import base64
import heapq
import random
import typing
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from ..common import JsonRecord
from ..errors import EventLimitError, InputError, KafkaError
from ..validation import check_member_lives, check_size, json_object, require, scenario_event, whole
from ..kip848.coordinator import can_compute_next_target_assignment
from ..member_ids import distinct_draws
from .share_fetch import ShareSession, acquire_order
from .share_partition import (DEFAULT_DELIVERY_COUNT_LIMIT, DEFAULT_RECORD_LOCK_DURATION_MS, AcknowledgeType,
                              RecordState, SharePartitionModel)

__all__ = ["SHARE_CONFIG", "SHARE_OPS", "ShareScenario", "ShareMember", "ShareEvent", "parse_share_scenario",
           "share_alternatives",
           "simulate_share", "share_lines", "MAX_SHARE_EVENTS"]

#: ``config`` names and defaults: the broker's (``GroupCoordinatorConfig``/``ShareGroupConfig``, 4.3.1), the share
#: consumer's ``max.poll.records``, and ``record.processing.ms`` (the application's time per record: no Kafka setting)
SHARE_CONFIG: Dict[str, int] = {
    "group.share.heartbeat.interval.ms": 5000,
    "group.share.session.timeout.ms": 45000,
    "group.share.record.lock.duration.ms": DEFAULT_RECORD_LOCK_DURATION_MS,
    "group.share.delivery.count.limit": DEFAULT_DELIVERY_COUNT_LIMIT,
    "group.share.assignment.interval.ms": 1000,
    "max.poll.records": 500,
    "record.processing.ms": 0,
}
#: the smallest value of each setting (``group.share.delivery.count.limit`` is ``between(2, 10)`` in
#: ``ShareGroupConfig``; a lock below 1 s, a heartbeat below 100 ms would not run on a real broker)
_MINIMUM = {"group.share.heartbeat.interval.ms": 100, "group.share.session.timeout.ms": 1000,
            "group.share.record.lock.duration.ms": 1000, "group.share.delivery.count.limit": 2,
            "group.share.assignment.interval.ms": 0, "max.poll.records": 1, "record.processing.ms": 0}
_MAXIMUM = {"group.share.delivery.count.limit": 10}
#: what an event does: to a member, or ``produce`` records
SHARE_OPS = ("join", "leave", "crash", "restart", "produce")
SCENARIO_KEYS = ("id", "kind", "topics", "members", "records", "config", "events", "until_ms")
MEMBER_KEYS = ("id", "topics")
EVENT_KEYS = ("at_ms", "op", "member", "down_ms", "topic", "partition", "count")
#: an idle member polls again after this long (``poll(Duration.ofMillis(100))``)
IDLE_POLL_MS = 100
#: the most virtual-clock events one scenario may take
MAX_SHARE_EVENTS = 2_000_000


@dataclass(frozen=True)
class ShareMember:
    """A share consumer: its ``client.id`` and subscription."""

    id: str
    topics: Tuple[str, ...]


@dataclass(frozen=True)
class ShareEvent:
    """``op`` at ``at_ms``: to ``member`` (``down_ms`` for a ``restart``), or ``produce`` ``count`` records to each
    partition of ``topic`` (only ``partition`` when given)."""

    at_ms: int
    op: str
    member: Optional[str] = None
    down_ms: int = 0
    topic: Optional[str] = None
    partition: Optional[int] = None
    count: int = 0


@dataclass(frozen=True)
class ShareScenario:
    """A validated ``kind: share`` scenario (see the module docstring)."""

    id: object
    topics: Dict[str, int]
    members: Tuple[ShareMember, ...]
    records: Dict[str, int]
    config: Dict[str, int]
    events: Tuple[ShareEvent, ...]
    until_ms: int






def _config(value: object) -> Dict[str, int]:
    if value is None:
        value = {}
    require(isinstance(value, Mapping), "config", "must be an object {setting: value} of Kafka's names")
    out = dict(SHARE_CONFIG)
    for key, v in typing.cast(Mapping[str, object], value).items():
        require(key in SHARE_CONFIG, f"config.{key}", f"unknown setting; a share scenario has {', '.join(SHARE_CONFIG)}")
        out[key] = whole(v, f"config.{key}", _MINIMUM[key])
        if key in _MAXIMUM:
            require(out[key] <= _MAXIMUM[key], f"config.{key}", f"must be at most {_MAXIMUM[key]}, got {v!r}")
    return out


def parse_share_scenario(value: object) -> ShareScenario:
    """Validate one ``kind: share`` scenario; an :class:`InputError` names the first bad field."""
    s = json_object(value, SCENARIO_KEYS, "", "a share scenario")
    require(s.get("kind", "share") == "share", "kind", f"must be 'share' here, got {s.get('kind')!r}")
    raw_topics = s.get("topics")
    require(isinstance(raw_topics, Mapping) and len(raw_topics) > 0, "topics",
            "must be a non-empty object {topic: partition count}")
    topics: Dict[str, int] = {}
    for name, count in typing.cast(Mapping[str, object], raw_topics).items():
        require(isinstance(name, str) and name != "", f"topics.{name}", "a topic name must be a non-empty string")
        topics[name] = whole(count, f"topics.{name}", 1)
    raw_members = s.get("members")
    require(isinstance(raw_members, list) and len(raw_members) > 0, "members", "must be a non-empty list of {id, topics}")
    members: List[ShareMember] = []
    for i, m in enumerate(typing.cast(List[object], raw_members)):
        f = f"members[{i}]"
        obj = json_object(m, MEMBER_KEYS, f, "a member")
        mid = obj.get("id")
        require(isinstance(mid, str) and mid != "", f"{f}.id", f"must be a non-empty string, got {mid!r}")
        require(all(x.id != mid for x in members), f"{f}.id", f"duplicate member id {mid!r}")
        subs = obj.get("topics", sorted(topics))
        require(isinstance(subs, list) and len(subs) > 0 and len(set(subs)) == len(subs), f"{f}.topics",
                "must be a non-empty list of distinct topic names")
        for j, t in enumerate(subs):
            require(t in topics, f"{f}.topics[{j}]", f"{t!r} is not one of the scenario's topics")
        members.append(ShareMember(typing.cast(str, mid), tuple(subs)))
    raw_records = s.get("records", {})
    require(isinstance(raw_records, Mapping), "records", "must be an object {topic: records per partition}")
    records: Dict[str, int] = {}
    for name, count in typing.cast(Mapping[str, object], raw_records).items():
        require(name in topics, f"records.{name}", f"{name!r} is not one of the scenario's topics")
        records[name] = whole(count, f"records.{name}")
    config = _config(s.get("config"))
    until_ms = whole(s.get("until_ms"), "until_ms", 1)
    raw_events = s.get("events", [])
    require(isinstance(raw_events, list), "events", "must be a list of {at_ms, op, ...} objects")
    check_size("events", sum(topics.values()) * (1 + len(members)) + len(raw_events) + sum(records.values()),
               "partitions x members + events + records")
    events: List[Tuple[int, int, ShareEvent]] = []
    for i, e in enumerate(typing.cast(List[object], raw_events)):
        f = f"events[{i}]"
        obj, at, op = scenario_event(e, EVENT_KEYS, f, SHARE_OPS, until_ms)
        if op == "produce":
            for key in ("member", "down_ms"):
                require(key not in obj, f"{f}.{key}", "a 'produce' names a topic and a count, not a member")
            raw_topic = obj.get("topic")
            require(isinstance(raw_topic, str) and raw_topic in topics, f"{f}.topic",
                    f"{raw_topic!r} is not one of the scenario's topics")
            topic = typing.cast(str, raw_topic)
            count = whole(obj.get("count"), f"{f}.count", 1)
            part = obj.get("partition")
            if part is not None:
                part = whole(part, f"{f}.partition")
                require(part < topics[topic], f"{f}.partition", f"{topic!r} has {topics[topic]} partitions")
            events.append((at, i, ShareEvent(at, "produce", topic=topic, partition=part, count=count)))
            continue
        for key in ("topic", "partition", "count"):
            require(key not in obj, f"{f}.{key}", f"only a 'produce' has a {key}, not {op!r}")
        raw_name = obj.get("member")
        require(any(m.id == raw_name for m in members), f"{f}.member",
                f"{raw_name!r} is not the id of one of the members")
        name = typing.cast(str, raw_name)
        down = 0
        if "down_ms" in obj:
            require(op == "restart", f"{f}.down_ms", f"only a 'restart' has a down time, not {op!r}")
            down = whole(obj.get("down_ms"), f"{f}.down_ms")
        events.append((at, i, ShareEvent(at, op, name, down)))
    events.sort(key=lambda x: (x[0], x[1]))
    check_member_lives([(i, ev) for _, i, ev in events], (m.id for m in members))
    return ShareScenario(s.get("id"), topics, tuple(members), records, config, tuple(e for _, _, e in events), until_ms)


# ---------------------------------------------------------------------------------------------
# the run


@dataclass
class _Member:
    """A running member process: ``incarnation`` tells its heartbeats and polls from a restarted one's."""

    id: str
    topics: Tuple[str, ...]
    incarnation: int
    joined_ms: int
    epoch: int = 0
    assignment: Dict[str, List[int]] = field(default_factory=dict)
    last_heartbeat_ms: int = 0
    batch: List[Tuple[str, int, int]] = field(default_factory=list)  # (topic, partition, offset) in hand
    leaving: bool = False
    crashed: bool = False
    #: a ``restart`` waits for this member's close: its new process starts this long after it
    restart_down_ms: Optional[int] = None
    left: bool = False
    #: its share session with the broker: the order its fetches take partitions in (:mod:`.share_fetch`)
    session: ShareSession = field(default_factory=ShareSession)

    @property
    def key(self) -> str:
        """The member id the coordinator knows it by: its id, ``id#k`` for its ``k``-th process (a new member)."""
        return _key(self.id, self.incarnation)


def _key(name: str, k: int) -> str:
    return name if k <= 1 else f"{name}#{k}"


class _ShareGroupRun:
    """One scenario on the virtual clock (see the module docstring)."""

    def __init__(self, s: ShareScenario, member_id_seed: Optional[int] = None):
        self.s = s
        #: the member id the assignor sees for each member key: the key itself, or (``member_id_seed``) a random
        #: 22-character id as a real share consumer's ``Uuid`` is, which ``SimpleAssignor`` orders members by
        self._id_random = None if member_id_seed is None else random.Random(member_id_seed)
        self._ids: Dict[str, str] = {}
        c = s.config
        self.hb = c["group.share.heartbeat.interval.ms"]
        self.session = c["group.share.session.timeout.ms"]
        self.lock_ms = c["group.share.record.lock.duration.ms"]
        self.limit = c["group.share.delivery.count.limit"]
        self.max_records = c["max.poll.records"]
        self.processing = c["record.processing.ms"]
        self.partitions: Dict[Tuple[str, int], SharePartitionModel] = {
            (t, p): SharePartitionModel(delivery_count_limit=self.limit, record_lock_duration_ms=self.lock_ms)
            for t, n in s.topics.items() for p in range(n)}
        self.queue: List[Tuple[int, int, str, Tuple[Any, ...]]] = []
        self.seq = 0
        self.members: Dict[str, _Member] = {}
        self.incarnations: Dict[str, int] = {}
        self.group_epoch = 0
        self.assignment_epoch = 0  # the group epoch of the last target computed
        self.interval = c["group.share.assignment.interval.ms"]
        self.assignment_ms: Optional[int] = None  # when the last target was computed (None: never)
        self.target: Dict[str, Dict[str, List[int]]] = {}
        self.previous: Optional[Any] = None  # the last GroupResult: the assignor's current assignment
        self.initialized: Set[str] = set()  # topics whose share-group state is initialized
        self.initializing: Set[str] = set()
        self.reported_epoch = -1
        self.last_reported: Dict[str, List[str]] = {}
        self.changes: List[JsonRecord] = []
        self.counters = {"produced": 0, "acquired": 0, "acknowledged": 0, "redelivered": 0, "lock_expired": 0}
        self.crashes: List[Dict[str, Any]] = []
        self.events_run = 0
        #: each share partition's offset its log was last read at (``SharePartition.fetchOffsetMetadata``)
        self.read_offset: Dict[Tuple[str, int], Optional[int]] = {}
        #: (topic, partition, offset) -> (state, delivery count), kept past the partition's cache
        self.state: Dict[Tuple[str, int, int], Tuple[str, int]] = {}

    # --- the clock ---------------------------------------------------------------------------------------------

    def at(self, t: int, kind: str, *args: Any) -> None:
        self.seq += 1
        heapq.heappush(self.queue, (t, self.seq, kind, args))

    def run(self) -> None:
        s = self.s
        joins = {e.member for e in s.events if e.op == "join"}
        for name, count in s.records.items():
            self.at(0, "produce", name, None, count)
        for m in s.members:
            if m.id not in joins:
                self.at(0, "join", m.id)
        for e in s.events:
            if e.op == "produce":
                self.at(e.at_ms, "produce", e.topic, e.partition, e.count)
            else:
                self.at(e.at_ms, e.op, e.member, e.down_ms)
        while self.queue and self.queue[0][0] <= s.until_ms:
            t, _, kind, args = heapq.heappop(self.queue)
            self.events_run += 1
            if self.events_run > MAX_SHARE_EVENTS:
                raise EventLimitError(MAX_SHARE_EVENTS, s.until_ms)
            getattr(self, f"_on_{kind}")(t, *args)
            if not self.queue or self.queue[0][0] > t:  # every event of this instant has happened
                self._maybe_completed(t)

    # --- the coordinator ---------------------------------------------------------------------------------------

    def _subscribed(self) -> List[str]:
        return sorted({t for m in self.members.values() for t in m.topics})

    def _bump(self, t: int) -> None:
        """A new group epoch, and its target assignment when the assignment interval allows it."""
        self.group_epoch += 1
        self._maybe_update_target(t)

    def _maybe_update_target(self, t: int) -> None:
        """``maybeUpdateTargetAssignment``: a target for the group epoch (``SimpleAssignor``, initialized partitions
        only) unless it has one, or the last was computed less than ``group.share.assignment.interval.ms`` ago."""
        from .group import assign_share_group

        if self.assignment_epoch >= self.group_epoch:
            return
        if not can_compute_next_target_assignment(self.assignment_ms, self.interval, t):
            return
        self.assignment_epoch, self.assignment_ms = self.group_epoch, t
        topics = dict(self.s.topics)
        members = [{"id": self._member_id(m.key), "subscriptions": list(m.topics)} for m in self.members.values()]
        assignable: Dict[str, object] = {name: list(range(topics[name])) for name in sorted(self.initialized)}
        result = assign_share_group(topics, members, assignable=assignable, previous=self.previous)
        self.previous = result
        keys = {self._member_id(m.key): m.key for m in self.members.values()}
        by_name = {keys[i]: a for i, a in result.by_name().items()}
        self.target = {m: {tp: ps for tp, ps in sorted(a.items()) if ps} for m, a in by_name.items()}

    def _maybe_initialize(self, t: int) -> None:
        """``maybeCreateInitializeShareGroupStateRequest``: every heartbeat, whether or not it computed a target,
        starts the initialization of the group's subscribed topics that are neither initialized nor initializing."""
        for topic in self._subscribed():
            if topic not in self.initialized and topic not in self.initializing:
                self.initializing.add(topic)
                self.at(t, "initialized", topic)  # InitializeShareGroupState answered (the persister, at once)

    def _member_id(self, key: str) -> str:
        if self._id_random is None:
            return key
        if key not in self._ids:
            raw = self._id_random.getrandbits(128).to_bytes(16, "big")
            self._ids[key] = base64.urlsafe_b64encode(raw).decode().rstrip("=")
        return self._ids[key]

    def _pending_assignment(self) -> bool:
        """``initializedAssignmentPending``: a subscribed initialized topic whose partitions the target does not
        cover exactly."""
        if not self.members:
            return False
        assigned: Dict[str, Set[int]] = {}
        for a in self.target.values():
            for topic, ps in a.items():
                assigned.setdefault(topic, set()).update(ps)
        return any(assigned.get(topic) != set(range(self.s.topics[topic]))
                   for topic in self._subscribed() if topic in self.initialized)

    def _reconcile(self, m: _Member) -> None:
        m.epoch = self.assignment_epoch
        m.assignment = self.target.get(m.key, {})

    def _on_initialized(self, t: int, topic: str) -> None:
        self.initializing.discard(topic)
        self.initialized.add(topic)

    def _member(self, name: str, k: Optional[int] = None) -> Optional[_Member]:
        """The member process ``k`` of ``name`` (``None``: its newest) while it is in the group."""
        k = self.incarnations.get(name, 0) if k is None else k
        return self.members.get(_key(name, k))

    def _on_join(self, t: int, name: str, down_ms: int = 0) -> None:
        spec = next(m for m in self.s.members if m.id == name)
        k = self.incarnations.get(name, 0) + 1
        self.incarnations[name] = k
        m = _Member(name, spec.topics, k, t, last_heartbeat_ms=t)
        self.members[m.key] = m
        self._bump(t)
        self._reconcile(m)
        self._maybe_initialize(t)
        self.at(t + self.hb, "heartbeat", name, k)
        self.at(t, "poll", name, k)

    def _on_heartbeat(self, t: int, name: str, k: int) -> None:
        m = self._member(name, k)
        if m is None or m.crashed or m.left:
            return
        m.last_heartbeat_ms = t
        if self._pending_assignment() and self.assignment_epoch >= self.group_epoch:
            self._bump(t)
        self._maybe_update_target(t)
        if m.epoch != self.assignment_epoch:
            self._reconcile(m)
        self._maybe_initialize(t)
        self.at(t + self.hb, "heartbeat", name, k)

    def _remove(self, t: int, m: _Member) -> None:
        m.left = True
        del self.members[m.key]
        self._bump(t)

    def _on_leave(self, t: int, name: str, down_ms: int = 0) -> None:
        m = self._member(name)
        if m is None:
            return
        if m.batch:  # the batch in hand is processed and acknowledged first, then close()
            m.leaving = True
            return
        self._remove(t, m)

    def _on_crash(self, t: int, name: str, down_ms: int = 0) -> None:
        m = self._member(name)
        if m is None:
            return
        m.crashed = True
        in_flight: Dict[str, List[int]] = {}
        deadline = None
        for topic, p, offset in m.batch:
            in_flight.setdefault(f"{topic}-{p}", []).append(offset)
            lock = self.partitions[(topic, p)].locks.get(offset)
            deadline = lock if deadline is None or (lock is not None and lock < deadline) else deadline
        self.crashes.append({"member": name, "at_ms": t, "in_flight": sum(len(v) for v in in_flight.values()),
                             "in_flight_records": {k: sorted(v) for k, v in sorted(in_flight.items())},
                             "locks_expire_ms": deadline,
                             "_counts": {(tp, p, o): self.state[(tp, p, o)][1] for tp, p, o in m.batch}})
        m.batch = []
        self.at(m.last_heartbeat_ms + self.session, "session_timeout", name, m.incarnation)

    def _on_session_timeout(self, t: int, name: str, k: int) -> None:
        m = self._member(name, k)
        if m is not None and m.crashed:
            self._remove(t, m)

    def _on_restart(self, t: int, name: str, down_ms: int = 0) -> None:
        m = self._member(name)
        if m is not None and not m.crashed:
            if m.batch:  # close() after the batch in hand; the new process starts down_ms after that
                m.leaving = True
                m.restart_down_ms = down_ms
                return
            self._remove(t, m)
        # a crashed process stays in the group, with its old epoch, until its session times out
        self.at(t + down_ms, "join", name)

    # --- the records -------------------------------------------------------------------------------------------

    def _note(self, sp: SharePartitionModel, topic: str, p: int, offsets: Sequence[int], gone: str) -> None:
        """Keep the state and delivery count of ``offsets`` (a record the start offset has passed is terminal:
        ``gone``)."""
        for o in offsets:
            r = sp.records.get(o)
            count = self.state.get((topic, p, o), ("", 0))[1]
            self.state[(topic, p, o)] = (r.state.name, r.delivery_count) if r is not None else (gone, count)

    def _expire(self, topic: str, p: int, t: int) -> None:
        """The acquisition locks of the partition due by ``t``: back to ``AVAILABLE``, or ``ARCHIVED`` at the
        delivery limit."""
        sp = self.partitions[(topic, p)]
        due = sp.expire_locks(t)
        self.counters["lock_expired"] += len(due)
        self._note(sp, topic, p, due, "ARCHIVED")

    def _on_produce(self, t: int, topic: str, partition: Optional[int], count: int) -> None:
        parts = range(self.s.topics[topic]) if partition is None else [partition]
        for p in parts:
            sp = self.partitions[(topic, p)]
            for o in range(sp.log_end_offset, sp.log_end_offset + count):
                self.state[(topic, p, o)] = ("AVAILABLE", 0)
            sp.append(count)
            self.counters["produced"] += count

    def _on_poll(self, t: int, name: str, k: int) -> None:
        m = self._member(name, k)
        if m is None or m.crashed:
            return
        if m.leaving:
            self._remove(t, m)
            if m.restart_down_ms is not None:
                self.at(t + m.restart_down_ms, "join", name)
            return
        got: List[Tuple[str, int, int]] = []
        m.session.update([(topic, p) for topic in sorted(m.assignment) for p in sorted(m.assignment[topic])])
        rotated = m.session.fetch_order()
        for topic, p in rotated:
            self._expire(topic, p, t)
        order = acquire_order(rotated, {tp: self.partitions[tp].next_fetch_offset for tp in rotated},
                              self.read_offset)
        with_records: List[Tuple[str, int]] = []
        for topic, p in order:
            room = self.max_records - len(got)
            if room <= 0:
                break
            sp = self.partitions[(topic, p)]
            offsets = sp.acquire(m.key, room, t)
            self._note(sp, topic, p, offsets, "ACQUIRED")
            if offsets:
                with_records.append((topic, p))
            for offset in offsets:
                got.append((topic, p, offset))
                self.counters["acquired"] += 1
                if sp.records[offset].delivery_count > 1:
                    self.counters["redelivered"] += 1
        if rotated:
            m.session.fetched(with_records)  # the ShareFetch answered
        if not got:
            self.at(t + IDLE_POLL_MS, "poll", name, k)
            return
        m.batch = got
        self.at(t + self.processing * len(got), "acknowledge", name, k)

    def _on_acknowledge(self, t: int, name: str, k: int) -> None:
        m = self._member(name, k)
        if m is None or m.crashed:
            return
        holder = m.key
        for topic, p, offset in m.batch:
            sp = self.partitions[(topic, p)]
            self._expire(topic, p, t)
            try:
                sp.acknowledge(holder, [offset], AcknowledgeType.ACCEPT, t)
            except KafkaError:  # the lock expired before the acknowledgement: InvalidRecordStateException
                continue
            self._note(sp, topic, p, [offset], "ACKNOWLEDGED")
            self.counters["acknowledged"] += 1
        m.batch = []
        m.session.acknowledged()  # commitSync(): the ShareAcknowledge
        self.at(t, "poll", name, k)

    # --- what completed ----------------------------------------------------------------------------------------

    def _maybe_completed(self, t: int) -> None:
        if self.group_epoch <= self.reported_epoch or not self.members or self.assignment_epoch != self.group_epoch:
            return
        if any(m.epoch != self.group_epoch for m in self.members.values()):
            return
        assignment = {m.id: sorted(f"{tp}-{p}" for tp, ps in m.assignment.items() for p in ps)
                      for m in sorted(self.members.values(), key=lambda m: m.id)}
        moved = sum(1 for mid, tps in self.last_reported.items() if mid in assignment
                    for tp in tps if tp not in assignment[mid])
        self.changes.append({"epoch": self.group_epoch, "at_ms": t, "assignment": assignment, "moved": moved})
        self.reported_epoch = self.group_epoch
        self.last_reported = {k: list(v) for k, v in assignment.items()}

    def summary(self) -> JsonRecord:
        for (topic, p) in sorted(self.partitions):
            self._expire(topic, p, self.s.until_ms)
        final: Dict[str, List[List[object]]] = {}
        counts: Dict[str, int] = {}
        for (topic, p, offset), (state, count) in sorted(self.state.items()):
            runs = final.setdefault(f"{topic}-{p}", [])
            counts[str(count)] = counts.get(str(count), 0) + 1
            if runs and runs[-1][2] == state and runs[-1][3] == count and runs[-1][1] == offset - 1:
                runs[-1][1] = offset
            else:
                runs.append([offset, offset, state, count])
        crashes = []
        for c in self.crashes:
            before = c.pop("_counts")
            c["redelivered"] = sum(1 for key, n in before.items() if self.state[key][1] > n)
            crashes.append(c)
        return {"changes": len(self.changes), "epoch": self.group_epoch, "records": dict(self.counters),
                "crashes": crashes, "delivery_counts": dict(sorted(counts.items(), key=lambda kv: int(kv[0]))),
                "final": final}


def simulate_share(value: object, member_id_seed: Optional[int] = None) -> List[JsonRecord]:
    """Run one ``kind: share`` scenario (a :class:`ShareScenario` or its JSON object): its completed assignment
    changes, then ``{"summary": ...}`` (see the module docstring).  ``member_id_seed``: the assignor sees member
    ids drawn at random from it, as a real group's are (``None``: the members' names).

    Defined in chapter 14, *Share groups: queues for Kafka*."""
    s = value if isinstance(value, ShareScenario) else parse_share_scenario(value)
    run = _ShareGroupRun(s, member_id_seed)
    run.run()
    return list(run.changes) + [{"summary": run.summary()}]


def share_alternatives(value: object, draws: int = 32) -> List[List[JsonRecord]]:
    """The distinct runs of a ``kind: share`` scenario (:func:`simulate_share`'s lines) over ``draws`` draws of
    member ids (seeds 0 to ``draws - 1``), the run with the members' names first.  ``SimpleAssignor`` walks the
    members in the ``HashMap`` order of their ids, which are random UUIDs on a real broker, so which member gets
    which partitions (and, with more members than partitions, which share them) follows them: each run is one a
    real group can show; the set is a sample, not a proof that no other exists."""
    s = value if isinstance(value, ShareScenario) else parse_share_scenario(value)
    return distinct_draws(lambda seed: simulate_share(s, seed), draws)


def share_lines(value: object) -> List[JsonRecord]:
    """``simulate``'s rows for one ``kind: share`` scenario (the dispatch of :mod:`rebalance.simulate` calls it)."""
    return simulate_share(value)
