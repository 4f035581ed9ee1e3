"""``simulate`` for ``"kind": "streams"``: a Kafka Streams application's rebalances from a JSON scenario, on a
virtual clock.

A scenario names the application's input topic (one: the topology of :mod:`rebalance.kafka.streams`,
``stream(input).groupByKey().count()``, has one subtopology, so one stateful task ``0_p`` per input partition),
the records produced once the first instances run, the instances (``members``) and what happens to them::

    {"kind": "streams", "id": "scale-out", "topics": {"words": 6}, "records": 6000, "keys": 600,
     "members": [{"id": "i1"}, {"id": "i2"}, {"id": "i3"}],
     "config": {"group.protocol": "classic", "acceptable.recovery.lag": 100, "max.warmup.replicas": 2,
                "probing.rebalance.interval.ms": 60000},
     "events": [{"at_ms": 5000, "op": "join", "member": "i3"}],
     "until_ms": 130000}

``config`` takes Kafka's names: ``group.protocol`` (``classic``, the default, or ``streams``),
``acceptable.recovery.lag``, ``max.warmup.replicas``, ``num.standby.replicas``, ``probing.rebalance.interval.ms``
and ``num.stream.threads`` (an instance's capacity) as ``StreamsConfig`` has them (Kafka 4.3.1 defaults);
``session.timeout.ms`` and ``heartbeat.interval.ms`` are the consumer's (classic) or the broker's
``group.streams.*`` ones (streams).  A member has an ``id`` (its ``client.id``) and may give its ``process_id``
(a UUID; by default one derived from the id, so runs repeat).  ``events``: ``join`` (a member's first event;
without one it starts at 0), ``leave`` (``close`` with ``LEAVE_GROUP``), ``crash`` (no leave: the group notices
``session.timeout.ms`` after its last heartbeat), ``restart`` (a leave, then ``down_ms`` later the same process id
and state directory again) and the operator's ``set_config`` (``"config": {"max.warmup.replicas": 1}``: the
assignment settings from the next rebalance on; classic only).

**Classic protocol** (``group.protocol=classic``): each rebalance the group leader's ``StreamsPartitionAssignor``
runs :class:`~rebalance.streams.HighAvailabilityTaskAssignor` over the clients, given their lags by the model of
:func:`rebalance.streams.assign_round` (chapter 15's :func:`~rebalance.streams.probing_rounds` runs the same): a
task a client ran as active is ``Task.LATEST_OFFSET``; a task whose state it holds (a standby, a warm-up, state a
closed or revoked task left on disk) has caught up (lag 0; no records are produced after the clock starts) in
a subscription sent after the rebalance that handed it out -- but not in one sent at that instant (still
restoring: lagging, a previous standby); any other task lags its changelog's end offset, the records of its
input partition (the default partitioner's ``murmur2`` of the keys ``k0``, ``k1``, ... in turn, as the real
driver produces them).  A join, a leave, a restart's leave and rejoin, and a crashed member's session timeout
each start a rebalance.  Its timing: an instance started after the clock (a ``join``, a ``restart``'s new
process) sends its JoinGroup :data:`INSTANCE_START_MS` after the event (``start()``, its stream thread's first
``poll()``, the coordinator lookup); ``close()`` sends the LeaveGroup :data:`CLOSE_MS` after the event; a crashed
member is removed ``session.timeout.ms`` after its last heartbeat.  Every other member hears of the rebalance at
its next heartbeat, which comes ``heartbeat.interval.ms`` apart from its last rebalance (the SyncGroup response
resets its timer), and rejoins then; the rebalance completes when the last has (a change while one is under way
joins it) -- and not before a crashed member still in the group has left it: the coordinator waits for it until
its session ends.  After a rebalance: a probing rebalance
``probing.rebalance.interval.ms`` later when the assignor asks for one (warm-ups handed out), or a follow-up
when active tasks change owner (a client still in the group revokes them first: the new owner gets them in the
follow-up, Streams' cooperative rebalancing).  The follow-up's timing is ``StreamsPartitionAssignor``'s (4.3.1):
the new owner of a withheld task is told to rebalance at once (``setNextRebalanceTime(0)``) and the old owner
rejoins after revoking, so these members subscribe at once, with their new replicas still restoring; every
other member rejoins at its next heartbeat (``heartbeat.interval.ms`` later), its replicas restored by then, and
the follow-up completes then.  When every member is a new or an old owner, it completes at once.  (On the real
cluster of the peer run, ``benchmarks/streams_peer_results.md``, such follow-ups came 19-384 ms after the
rebalance and the others 883-1036 ms.)

**Streams protocol** (``group.protocol=streams``, KIP-1071): each membership change bumps the group epoch and
the coordinator's :class:`~rebalance.streams.StickyTaskAssignor` computes the target assignment from the members'
current ones (``num.standby.replicas`` standbys; no warm-ups, no probing rebalances); the members reconcile
at their heartbeats: a member hears of a new target at its next heartbeat (``heartbeat.interval.ms`` apart
from its last); one that must revoke tasks revokes them and heartbeats at once; a task it revoked goes to its
new owner at that owner's next heartbeat after; the epoch completes when every member runs its target (the
real driver sees that in its next description of the group).  A joining instance's first heartbeat and a
leaver's LeaveGroup come :data:`INSTANCE_START_MS` and :data:`CLOSE_MS` after the event, as above.

Both constants are this machine's, from the peer run (``benchmarks/streams_peer_results.md``, 2-core machine):
there the real rebalance after a join came 0.9-4.0 s after it (the start-up plus up to a heartbeat), after a
leave 0.1-1.3 s, and :data:`INSTANCE_START_MS` is the value that puts the most of the real runs within the
standard's tolerance (a heartbeat plus a poll).  Another machine starts instances faster or slower.

Output: one line per completed rebalance, ``{"generation", "at_ms", "assignment": {member: {"active",
"standby"}}, "moved", "warmups", "probing", "followup"}`` (``generation`` is the group epoch with the streams
protocol; ``moved``: active tasks taken from a member still in the group; ``standby`` includes the warm-ups;
``probing``: this was a probing rebalance; ``followup``: ``"probing"``, ``"immediate"`` or ``null``), then one
summary line: ``rebalances``, ``generation``, ``probing_rebalances``, ``warmups``, ``moved``, ``settled`` (no
rebalance pending or scheduled at ``until_ms``) and ``probing_until_balanced`` (probing rebalances after the
last membership change until the assignor asked for none; ``null`` if it still asks).  Bad input is an
:class:`~rebalance.errors.InputError` naming the field.
"""
from __future__ import annotations

import heapq
import typing
import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Set, Tuple

from ..common import JsonRecord
from ..errors import EventLimitError, InputError, KafkaError
from ..validation import check_member_lives, check_size, json_object, require, scenario_event, whole
from .client import AssignmentConfigs, ProcessId, TaskId, assign_round
from .coordinator import AssignmentMemberSpec, GroupSpec, StickyTaskAssignor, Subtopology, Topology

__all__ = ["STREAMS_CONFIG", "STREAMS_OPS", "SET_CONFIG_KEYS", "StreamsMember", "StreamsEvent", "StreamsScenarioInput",
           "parse_streams_scenario", "simulate_streams", "streams_lines", "murmur2", "partition_of_key",
           "records_per_partition", "default_process_id", "MAX_STREAMS_REBALANCES"]

#: ``config`` names and their defaults (``StreamsConfig`` and the consumer's, Kafka 4.3.1)
STREAMS_CONFIG: Dict[str, object] = {
    "group.protocol": "classic",
    "acceptable.recovery.lag": 10_000,
    "max.warmup.replicas": 2,
    "num.standby.replicas": 0,
    "probing.rebalance.interval.ms": 600_000,
    "num.stream.threads": 1,
    "session.timeout.ms": 45_000,
    "heartbeat.interval.ms": 3_000,
}
_MINIMUM = {"acceptable.recovery.lag": 0, "max.warmup.replicas": 1, "num.standby.replicas": 0,
            "probing.rebalance.interval.ms": 60_000, "num.stream.threads": 1, "session.timeout.ms": 1,
            "heartbeat.interval.ms": 1}
#: what ``set_config`` may change: the assignor's settings
SET_CONFIG_KEYS = ("acceptable.recovery.lag", "max.warmup.replicas", "num.standby.replicas",
                   "probing.rebalance.interval.ms")
GROUP_PROTOCOLS = ("classic", "streams")
STREAMS_OPS = ("join", "leave", "crash", "restart", "set_config")
SCENARIO_KEYS = ("id", "kind", "topics", "records", "keys", "members", "config", "events", "until_ms")
MEMBER_KEYS = ("id", "process_id")
EVENT_KEYS = ("at_ms", "op", "member", "down_ms", "config")
#: the most rebalances one scenario may complete (a runaway guard)
MAX_STREAMS_REBALANCES = 10_000
#: a ``KafkaStreams`` instance that starts after the clock (a ``join``, a ``restart``'s new process) reaches the
#: group this much later: ``start()``, its stream thread's first ``poll()``, the coordinator lookup and the first
#: JoinGroup or heartbeat (this machine's: see the module docstring)
INSTANCE_START_MS = 1100
#: ``close()``: from the call to its LeaveGroup (the stream thread stops, commits and closes its tasks first)
CLOSE_MS = 300
#: the largest input topic (the real driver's limit)
MAX_PARTITIONS = 64
_LONG = 2**63


# ---------------------------------------------------------------------------------------------
# the default partitioner


def murmur2(data: bytes) -> int:
    """``org.apache.kafka.common.utils.Utils.murmur2``: the 32-bit murmur2 hash of ``data`` (a signed int)."""
    m, r = 0x5BD1E995, 24
    length = len(data)
    h = (0x9747B28C ^ length) & 0xFFFFFFFF
    for i in range(length // 4):
        k = int.from_bytes(data[4 * i:4 * i + 4], "little")
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> r
        k = (k * m) & 0xFFFFFFFF
        h = (h * m) & 0xFFFFFFFF
        h ^= k
    rest = length % 4
    tail = length - rest
    if rest == 3:
        h ^= data[tail + 2] << 16
    if rest >= 2:
        h ^= data[tail + 1] << 8
    if rest >= 1:
        h ^= data[tail]
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return h - (1 << 32) if h >= 1 << 31 else h


def partition_of_key(key: str, partitions: int) -> int:
    """The default partitioner's partition of a record with a (UTF-8) key: ``toPositive(murmur2(key)) % n``."""
    return (murmur2(key.encode("utf-8")) & 0x7FFFFFFF) % partitions


def records_per_partition(records: int, keys: int, partitions: int) -> List[int]:
    """How many of ``records`` records with the keys ``k0``..``k{keys-1}`` in turn land on each partition."""
    per_key = [records // keys + (1 if k < records % keys else 0) for k in range(keys)]
    out = [0] * partitions
    for k, n in enumerate(per_key):
        out[partition_of_key(f"k{k}", partitions)] += n
    return out


def default_process_id(member: str) -> ProcessId:
    """A member's process id when the scenario gives none: a name-based UUID of its id (the same every run)."""
    return ProcessId(uuid.uuid5(uuid.NAMESPACE_URL, f"rebalance:streams:{member}"))


# ---------------------------------------------------------------------------------------------
# the scenario


@dataclass(frozen=True)
class StreamsMember:
    """A Kafka Streams instance: its ``client.id`` and process id."""

    id: str
    process_id: ProcessId


@dataclass(frozen=True)
class StreamsEvent:
    """``op`` at ``at_ms``: to ``member`` (``down_ms`` for a ``restart``), or ``set_config`` ``config``."""

    at_ms: int
    op: str
    member: Optional[str] = None
    down_ms: int = 0
    config: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class StreamsScenarioInput:
    """A validated ``kind: streams`` scenario (see the module docstring)."""

    id: object
    topic: str
    partitions: int
    records: int
    keys: int
    members: Tuple[StreamsMember, ...]
    config: Dict[str, object]
    events: Tuple[StreamsEvent, ...]
    until_ms: int

    @property
    def protocol(self) -> str:
        return str(self.config["group.protocol"])

    def tasks(self) -> List[TaskId]:
        return [TaskId(0, p) for p in range(self.partitions)]


def _assignment_configs(config: Mapping[str, object], field_prefix: str) -> AssignmentConfigs:
    try:
        return AssignmentConfigs(int(str(config["acceptable.recovery.lag"])), int(str(config["max.warmup.replicas"])),
                                 int(str(config["num.standby.replicas"])),
                                 int(str(config["probing.rebalance.interval.ms"])))
    except KafkaError as exc:  # ConfigException: name it by the setting
        name = next((k for k in SET_CONFIG_KEYS if k in exc.message), "")
        raise InputError(f"{field_prefix}.{name}" if name else field_prefix, exc.message) from None


def _setting(key: str, value: object, f: str) -> object:
    if key == "group.protocol":
        require(value in GROUP_PROTOCOLS, f, f"must be one of {', '.join(GROUP_PROTOCOLS)}, got {value!r}")
        return value
    return whole(value, f, _MINIMUM[key], 2**31 - 1 if key != "acceptable.recovery.lag" else _LONG - 1)


def _config(value: object) -> Dict[str, object]:
    if value is None:
        value = {}
    require(isinstance(value, Mapping), "config", "must be an object {setting: value} of Kafka's names")
    out = dict(STREAMS_CONFIG)
    for key, v in typing.cast(Mapping[str, object], value).items():
        require(key in STREAMS_CONFIG, f"config.{key}",
                f"unknown setting; a streams scenario has {', '.join(STREAMS_CONFIG)}")
        out[key] = _setting(key, v, f"config.{key}")
    if out["group.protocol"] == "streams" and "heartbeat.interval.ms" not in typing.cast(Mapping[str, object], value):
        out["heartbeat.interval.ms"] = 5_000  # group.streams.heartbeat.interval.ms
    _assignment_configs(out, "config")
    return out


def parse_streams_scenario(value: object) -> StreamsScenarioInput:
    """Validate one ``kind: streams`` scenario; an :class:`InputError` names the first bad field."""
    s = json_object(value, SCENARIO_KEYS, "", "a streams scenario")
    require(s.get("kind", "streams") == "streams", "kind", f"must be 'streams' here, got {s.get('kind')!r}")
    raw_topics = s.get("topics")
    require(isinstance(raw_topics, Mapping) and len(raw_topics) == 1, "topics",
            "must be an object {input topic: partition count} of one topic (the application's topology reads one)")
    (topic, count), = typing.cast(Mapping[str, object], raw_topics).items()
    require(isinstance(topic, str) and topic != "", f"topics.{topic}", "a topic name must be a non-empty string")
    partitions = whole(count, f"topics.{topic}", 1, MAX_PARTITIONS)
    records = whole(s.get("records", 0), "records", 0, 10_000_000)
    keys = whole(s.get("keys", 600), "keys", 1, 1_000_000)
    config = _config(s.get("config"))
    until_ms = whole(s.get("until_ms"), "until_ms", 1)
    raw_members = s.get("members")
    require(isinstance(raw_members, list) and len(raw_members) > 0, "members",
            "must be a non-empty list of {id, process_id}")
    raw_events = s.get("events", [])
    require(isinstance(raw_events, list), "events", "must be a list of {at_ms, op, ...} objects")
    check_size("members", partitions * (1 + len(typing.cast(List[object], raw_members))) + len(raw_events) + keys,
               "partitions x members + events + keys")
    members: List[StreamsMember] = []
    for i, m in enumerate(typing.cast(List[object], raw_members)):
        f = f"members[{i}]"
        obj = json_object(m, MEMBER_KEYS, f, "a member")
        mid = obj.get("id")
        require(isinstance(mid, str) and mid != "", f"{f}.id", f"must be a non-empty string, got {mid!r}")
        require(all(x.id != mid for x in members), f"{f}.id", f"duplicate member id {mid!r}")
        pid = (ProcessId.parse(obj["process_id"], f"{f}.process_id") if "process_id" in obj
               else default_process_id(typing.cast(str, mid)))
        require(all(x.process_id != pid for x in members), f"{f}.process_id", f"{pid} is another member's process id")
        members.append(StreamsMember(typing.cast(str, mid), pid))
    events: List[Tuple[int, int, StreamsEvent]] = []
    for i, e in enumerate(typing.cast(List[object], raw_events)):
        f = f"events[{i}]"
        obj, at, op = scenario_event(e, EVENT_KEYS, f, STREAMS_OPS, until_ms)
        if op == "set_config":
            require(config["group.protocol"] == "classic", f"{f}.op",
                    "set_config changes the classic assignor's settings; a streams group's assignor is the broker's")
            require("member" not in obj and "down_ms" not in obj, f"{f}.member", "a 'set_config' names no member")
            raw = obj.get("config")
            require(isinstance(raw, Mapping) and len(raw) > 0, f"{f}.config",
                    f"must be a non-empty object of {', '.join(SET_CONFIG_KEYS)}")
            changes: Dict[str, int] = {}
            for key, v in typing.cast(Mapping[str, object], raw).items():
                require(key in SET_CONFIG_KEYS, f"{f}.config.{key}", f"set_config changes only {', '.join(SET_CONFIG_KEYS)}")
                changes[key] = typing.cast(int, _setting(key, v, f"{f}.config.{key}"))
            _assignment_configs({**config, **changes}, f"{f}.config")
            events.append((at, i, StreamsEvent(at, "set_config", config=changes)))
            continue
        require("config" not in obj, f"{f}.config", f"only a 'set_config' has a config, not {op!r}")
        name = obj.get("member")
        require(isinstance(name, str) and any(m.id == name for m in members), f"{f}.member",
                f"{name!r} is not the id of one of the members")
        down = 0
        if "down_ms" in obj:
            require(op == "restart", f"{f}.down_ms", f"only a 'restart' has a down time, not {op!r}")
            down = whole(obj.get("down_ms"), f"{f}.down_ms")
        events.append((at, i, StreamsEvent(at, op, typing.cast(str, name), down)))
    events.sort(key=lambda x: (x[0], x[1]))
    check_member_lives([(i, ev) for _, i, ev in events], (m.id for m in members))
    return StreamsScenarioInput(s.get("id"), topic, partitions, records, keys, tuple(members), config,
                                tuple(ev for _, _, ev in events), until_ms)


# ---------------------------------------------------------------------------------------------
# the run


@dataclass
class _Instance:
    """A member process as the group sees it: in the group (``running``, or ``crashed`` until its session ends)."""

    id: str
    pid: ProcessId
    incarnation: int = 0
    running: bool = False
    active: Set[TaskId] = field(default_factory=set)
    standby: Set[TaskId] = field(default_factory=set)
    #: the tasks whose state it has on disk (kept up to date: no new records), each since when
    held: Dict[TaskId, int] = field(default_factory=dict)
    #: when its heartbeat timer was last reset (it heartbeats ``heartbeat.interval.ms`` apart from then)
    hb_base: int = 0

    def hold(self, tasks: Set[TaskId], t: int) -> None:
        for task in tasks:
            self.held.setdefault(task, t)


class _StreamsRun:
    """One scenario on the virtual clock (see the module docstring)."""

    def __init__(self, s: StreamsScenarioInput):
        self.s = s
        self.config: Dict[str, object] = dict(s.config)
        self.tasks = s.tasks()
        self.instances = {m.id: _Instance(m.id, m.process_id) for m in s.members}
        self.queue: List[Tuple[int, int, str, Tuple[Any, ...]]] = []
        self.seq = 0
        self.generation = 0
        self.pending: Optional[str] = None  # a rebalance to run: its reason
        self.probe_at: Optional[int] = None
        self.rows: List[JsonRecord] = []
        #: crashed processes still in the group until their session ends: (member, incarnation) -> (active, standby)
        self.ghosts: Dict[Tuple[str, int], Tuple[Set[TaskId], Set[TaskId]]] = {}
        self.produced = False
        counts = records_per_partition(s.records, s.keys, s.partitions) if s.records else [0] * s.partitions
        self.end_offsets = {TaskId(0, p): counts[p] for p in range(s.partitions)}
        self.last_change_ms = 0
        self.last_seen_ms = 0  # when the coordinator learnt of the last change (a leave: its LeaveGroup)
        self.probes_since_change = 0
        self.balanced_after: Optional[int] = None
        self.needs_probe = False
        self.immediate = False
        self.rejoin_at: Dict[str, int] = {}
        self.hb = int(str(self.config["heartbeat.interval.ms"]))
        #: when the rebalance under way completes (every member it waits for has (re)joined or reconciled)
        self.complete_at: Optional[int] = None

    def at(self, t: int, kind: str, *args: Any) -> None:
        self.seq += 1
        heapq.heappush(self.queue, (t, self.seq, kind, args))

    def run(self) -> None:
        s = self.s
        joins = {e.member for e in s.events if e.op == "join"}
        for m in s.members:
            if m.id not in joins:
                self.at(0, "join", m.id)
        for e in s.events:
            self.at(e.at_ms + (INSTANCE_START_MS if e.op == "join" else 0), e.op, e.member, e.down_ms, e.config)
        while self.queue and self.queue[0][0] <= s.until_ms:
            t, _, kind, args = heapq.heappop(self.queue)
            getattr(self, f"_on_{kind}")(t, *args)
            if not self.queue or self.queue[0][0] > t:  # every event of this instant has happened
                self._maybe_rebalance(t)

    # --- membership ------------------------------------------------------------------------------------------

    def _next_hb(self, m: _Instance, x: int) -> int:
        """``m``'s first heartbeat at or after ``x``."""
        return m.hb_base + -(-(x - m.hb_base) // self.hb) * self.hb if x > m.hb_base else m.hb_base

    def _change(self, t: int, reason: str, x: Optional[int] = None, joined: Optional[str] = None) -> None:
        """A membership change at ``t`` that the coordinator learns of at ``x`` (``t`` unless later);
        ``joined``: the member whose JoinGroup (or first heartbeat) it is."""
        x = t if x is None else x
        self.pending = reason
        self.last_change_ms = t
        self.last_seen_ms = x
        self.probes_since_change = 0
        self.balanced_after = None
        # a round already under way: every member is rejoining already, and this change joins that round
        self._complete_by(x if self.complete_at is not None else max(x, self._completion(x, joined)))

    def _complete_by(self, t: int) -> None:
        self.complete_at = t if self.complete_at is None else max(self.complete_at, t)
        self.at(self.complete_at, "complete")

    def _completion(self, x: int, joined: Optional[str]) -> int:
        """When a rebalance the coordinator starts at ``x`` completes.  Classic: every other member rejoins when
        its next heartbeat answers ``REBALANCE_IN_PROGRESS``.  Streams protocol: see :meth:`_reconciled`."""
        others = [m for m in self._members() if m.id != joined]
        if self.s.protocol == "classic":
            return max([x] + [self._next_hb(m, x) for m in others])
        return self._reconciled(x)

    def _reconciled(self, x: int) -> int:
        """Streams protocol: when every member runs the target the coordinator computes at ``x``.  A member gets
        its target at its next heartbeat; one that must revoke tasks does so and heartbeats at once; a task it
        revoked goes to its new owner at that owner's next heartbeat after the revocation."""
        members = self._members()
        if not members:
            return x
        answer, _ = self._sticky_target(members)
        owner = {task: m.id for m in members for task in m.active}
        told = {m.id: self._next_hb(m, x) for m in members}
        done = dict(told)
        for m in members:
            waits = [told[owner[task]] for task in answer[m.id][0] if owner.get(task, m.id) != m.id]
            if waits:
                done[m.id] = self._next_hb(m, max(waits) + 1)
        return max(done.values())

    def _on_complete(self, t: int, *_: Any) -> None:
        pass  # the instant a rebalance completes: ``run`` then calls ``_maybe_rebalance``

    def _on_join(self, t: int, name: str, *_: Any) -> None:
        m = self.instances[name]
        m.running, m.hb_base = True, t
        m.incarnation += 1
        self._change(t, "join", joined=name)

    def _leave(self, t: int, m: _Instance) -> None:
        m.running = False  # close() checkpoints its stores; the state directory stays
        m.active, m.standby = set(), set()
        self._change(t, "leave", t + CLOSE_MS)

    def _on_leave(self, t: int, name: str, *_: Any) -> None:
        self._leave(t, self.instances[name])

    def _on_crash(self, t: int, name: str, *_: Any) -> None:
        m = self.instances[name]
        self.ghosts[(name, m.incarnation)] = (set(m.active), set(m.standby))
        m.running = False  # the state directory stays (the model assumes its checkpoints current)
        m.active, m.standby = set(), set()
        last = m.hb_base + max(0, t - m.hb_base) // self.hb * self.hb
        self.at(last + int(str(self.config["session.timeout.ms"])), "session_timeout", name, m.incarnation)

    def _on_session_timeout(self, t: int, name: str, incarnation: int) -> None:
        if self.ghosts.pop((name, incarnation), None) is not None:
            self._change(t, "session timeout")

    def _on_restart(self, t: int, name: str, down_ms: int, *_: Any) -> None:
        m = self.instances[name]
        if m.running:
            self._leave(t, m)
        # its new process starts ``down_ms`` later; a crashed process stays in the group until its session ends,
        # and its new process joins meanwhile
        self.at(t + down_ms + INSTANCE_START_MS, "join", name)

    def _on_set_config(self, t: int, _member: Any, _down: int, changes: Mapping[str, int]) -> None:
        self.config.update(changes)

    def _on_followup(self, t: int, generation: int) -> None:
        if generation == self.generation and self.pending is None:
            self.pending = "immediate"
            self._complete_by(t)

    def _on_probe(self, t: int, generation: int) -> None:
        if generation == self.generation and self.pending is None:
            self.pending = "probing"  # the leader rejoins; the others at their next heartbeat
            self._complete_by(self._completion(t, None))

    # --- rebalances ------------------------------------------------------------------------------------------

    def _maybe_rebalance(self, t: int) -> None:
        for _ in range(MAX_STREAMS_REBALANCES):
            if self.pending is None:
                return
            if self.s.protocol == "classic" and self.ghosts:
                return  # the coordinator waits for every known member until its session ends
            if self.complete_at is not None and t < self.complete_at:
                return  # members still to rejoin or reconcile
            self.complete_at = None
            if len(self.rows) >= MAX_STREAMS_REBALANCES:
                raise EventLimitError(MAX_STREAMS_REBALANCES, self.s.until_ms)
            reason, self.pending = self.pending, None
            if self.s.protocol == "classic":
                self._classic(t, reason)
            else:
                self._streams_group(t)
        raise EventLimitError(MAX_STREAMS_REBALANCES, self.s.until_ms)

    def _members(self) -> List[_Instance]:
        return sorted((m for m in self.instances.values() if m.running), key=lambda m: m.id)

    def _row(self, t: int, members: List[_Instance], answer: Mapping[str, Tuple[List[TaskId], List[TaskId]]],
             moved: int, warmups: Mapping[str, List[TaskId]], probing: bool, followup: Optional[str]) -> None:
        self.rows.append({"generation": self.generation, "at_ms": t,
                          "assignment": {m.id: {"active": [str(x) for x in answer[m.id][0]],
                                                "standby": [str(x) for x in answer[m.id][1]]} for m in members},
                          "moved": moved, "warmups": {k: [str(x) for x in v] for k, v in sorted(warmups.items()) if v},
                          "probing": probing, "followup": followup})

    def _next_generation(self) -> List[_Instance]:
        """A rebalance begins: the next generation, and its running members (none: nothing to assign and
        nothing to follow up)."""
        members = self._members()
        self.generation += 1
        if not members:
            self.needs_probe = self.immediate = False
            if self.balanced_after is None:
                self.balanced_after = self.probes_since_change
        return members

    def _classic(self, t: int, reason: str) -> None:
        members = self._next_generation()
        if not members:
            return
        configs = _assignment_configs(self.config, "config")
        capacity = int(str(self.config["num.stream.threads"]))
        by_pid = {m.pid: m for m in members}
        behind = self.end_offsets if self.produced else {t_: 0 for t_ in self.tasks}
        # a replica handed out before a member sent its subscription has caught up in it (no records are produced
        # after the start), one handed out at that instant has not (still restoring)
        sent = {m.pid: min(t, self.rejoin_at.get(m.id, t)) if reason == "immediate" else t for m in members}
        caught = {m.pid: {task for task, since in m.held.items() if since < sent[m.pid]} for m in members}
        self.rejoin_at = {}
        result = assign_round([m.pid for m in members], {m.pid: capacity for m in members}, self.tasks,
                              {m.pid: sorted(m.active) for m in members},
                              {m.pid: sorted(m.standby & caught[m.pid]) for m in members}, configs, behind,
                              {m.pid: caught[m.pid] - m.active - m.standby for m in members},
                              {m.pid: (m.standby | set(m.held)) - caught[m.pid] for m in members})
        answer = {by_pid[p].id: (c.active_tasks(), c.standby_tasks()) for p, c in result.clients.items()}
        owner = {task: m.id for m in members for task in m.active}
        moved = 0
        new_active: Dict[str, Set[TaskId]] = {m.id: set() for m in members}
        involved: Set[str] = set()
        for mid, (active, _) in answer.items():
            for task in active:
                if owner.get(task, mid) != mid:
                    moved += 1  # withheld: its owner revokes it first; the follow-up hands it over
                    involved |= {mid, owner[task]}
                else:
                    new_active[mid].add(task)
        for m in members:
            m.active = new_active[m.id]
            m.standby = set(answer[m.id][1])
            m.hold(m.active | m.standby, t)
            m.hb_base = t  # the SyncGroup response resets its heartbeat timer
        probing = reason == "probing"
        if probing:
            self.probes_since_change += 1
        self.needs_probe = result.probing_rebalance_needed
        self.immediate = moved > 0
        followup = "immediate" if moved else "probing" if result.probing_rebalance_needed else None
        if followup is None and self.balanced_after is None:
            self.balanced_after = self.probes_since_change
        warmups = {by_pid[p].id: sorted(ts) for p, ts in result.warmups.items()}
        self._row(t, members, answer, moved, warmups, probing, followup)
        if not self.produced:
            self.produced = True  # the records arrive once the first instances run
        if moved:
            # the follow-up: the members a withheld task goes to or comes from rejoin at once (the new owner's
            # StreamsPartitionAssignor asks for an immediate rebalance, the old owner's ConsumerCoordinator rejoins
            # after revoking), with what their state stores hold at once; the others at their next heartbeat, by
            # when what they were handed has been restored
            self.rejoin_at = {m.id: t if m.id in involved else t + self.hb for m in members}
            if involved >= {m.id for m in members}:
                self.pending = "immediate"
            else:
                self.at(t + self.hb, "followup", self.generation)
        elif result.probing_rebalance_needed:
            self.at(t + configs.probing_rebalance_interval_ms, "probe", self.generation)

    def _sticky_target(self, members: List[_Instance]) -> Tuple[Dict[str, Tuple[List[TaskId], List[TaskId]]], int]:
        """The coordinator's target for the running ``members`` (a crashed one with its tasks, until its session
        ends, in the order they joined): each member's active and standby tasks, and how many active tasks move
        from a member still in the group."""
        def spec_of(m: _Instance, active: Set[TaskId], standby: Set[TaskId]) -> AssignmentMemberSpec:
            return AssignmentMemberSpec(process_id=str(m.pid),
                                        active_tasks={"0": frozenset(x.partition for x in active)} if active else {},
                                        standby_tasks={"0": frozenset(x.partition for x in standby)} if standby else {})

        specs = [(f"{m.id}#{m.incarnation}", spec_of(m, m.active, m.standby)) for m in members]
        specs += [(f"{name}#{k}", spec_of(self.instances[name], a, sb)) for (name, k), (a, sb) in self.ghosts.items()]
        spec = GroupSpec.of(specs, {"num.standby.replicas": str(self.config["num.standby.replicas"])})
        result = StickyTaskAssignor().assign(spec, Topology([Subtopology("0", self.s.partitions, stateful=True)]))
        owner = {task: m.id for m in members for task in m.active}
        answer: Dict[str, Tuple[List[TaskId], List[TaskId]]] = {}
        for m, (key, _) in zip(members, specs):
            a = result.members[key]
            answer[m.id] = (sorted(TaskId(0, p) for p in a.active_tasks.get("0", ())),
                            sorted(TaskId(0, p) for p in a.standby_tasks.get("0", ())))
        moved = sum(1 for mid, (active, _) in answer.items() for task in active if owner.get(task, mid) != mid)
        return answer, moved

    def _streams_group(self, t: int) -> None:
        members = self._next_generation()
        if not members:
            return
        answer, moved = self._sticky_target(members)
        revoking = {m.id for m in members if m.active - set(answer[m.id][0])}
        for m in members:
            m.active, m.standby = set(answer[m.id][0]), set(answer[m.id][1])
            m.hold(m.active | m.standby, t)
            if m.id in revoking:  # its heartbeat after revoking reset its timer
                m.hb_base = self._next_hb(m, self.last_seen_ms)  # as _reconciled tells it
        self.needs_probe = self.immediate = False
        if self.balanced_after is None:
            self.balanced_after = 0
        self._row(t, members, answer, moved, {}, False, None)

    def summary(self) -> JsonRecord:
        waiting = self.pending is not None or bool(self.ghosts)
        return {"rebalances": len(self.rows), "generation": self.generation,
                "probing_rebalances": sum(1 for r in self.rows if r["probing"]),
                "warmups": sum(len(v) for r in self.rows for v in typing.cast(Dict[str, List[str]], r["warmups"]).values()),
                "moved": sum(typing.cast(int, r["moved"]) for r in self.rows),
                "settled": not waiting and not self.needs_probe and not self.immediate,
                "probing_until_balanced": self.balanced_after}


def simulate_streams(value: object) -> List[JsonRecord]:
    """Run one ``kind: streams`` scenario (a :class:`StreamsScenarioInput` or its JSON object): its completed
    rebalances, then ``{"summary": ...}`` (see the module docstring).

    Defined in chapter 15, *Kafka Streams: who runs which task*."""
    s = value if isinstance(value, StreamsScenarioInput) else parse_streams_scenario(value)
    run = _StreamsRun(s)
    run.run()
    return list(run.rows) + [{"summary": run.summary()}]


def streams_lines(value: object) -> List[JsonRecord]:
    """``simulate``'s rows for one ``kind: streams`` scenario (the dispatch of :mod:`rebalance.simulate` calls it)."""
    return simulate_streams(value)
