"""``simulate`` for ``"kind": "connect"``: a Kafka Connect cluster's life from a JSON scenario.

A scenario names the workers (``members``), what happens to them and what the operator does (``events``) and
the workers' settings by Kafka's names (``config``)::

    {"kind": "connect", "id": "bounce", "members": [{"id": "w1"}, {"id": "w2"}, {"id": "w3"}],
     "config": {"connect.protocol": "sessioned", "scheduled.rebalance.max.delay.ms": 20000},
     "events": [{"at_ms": 0, "op": "add_connector", "connector": "c1", "tasks.max": 6},
                {"at_ms": 15000, "op": "restart", "member": "w2", "down_ms": 5000}],
     "until_ms": 60000}

Who runs what after each round is the book's model of the leader, :class:`~rebalance.connect.cluster.ConnectCluster`
on serialized metadata (``mode="protocol"``: ``WorkerCoordinator``'s ``performAssignment`` with the
``EagerAssignor`` or the ``IncrementalCooperativeAssignor`` of Kafka 4.3.1; each worker keeps the assignor state
it had when it last led, :meth:`~rebalance.connect.cluster.ConnectCluster.replay_round`).  *When* rounds happen is
this module's own timing model of the group coordinator (``ClassicGroup``) and the herder
(``DistributedHerder``, 4.3.1), a simplification stated here in full:

* a worker that starts at 0 or at its ``join`` event joins at once; a group with no member waits ``group.initial.rebalance.delay.ms`` (the
  broker's ``InitialDelayedJoin``; each later join during it adds the delay again, up to
  ``rebalance.timeout.ms``); otherwise the members learn of the rebalance at their next heartbeat: each member
  heartbeats every ``heartbeat.interval.ms`` from its last SyncGroup (the heartbeat thread resets its timer
  there), so the members of one round heartbeat in step;
* a member that stops gracefully (``leave``, the first half of ``restart``: SIGTERM, the herder stops its work
  first) sends LeaveGroup :data:`WORKER_STOP_MS` after the event, and that is a rebalance; a restarted worker's
  new process starts ``down_ms`` after that and joins :data:`WORKER_START_MS` later (so even a restart with
  ``down_ms`` 0 is a round without the worker, then one with it, as on a real cluster); a member that
  ``crash``es is removed ``session.timeout.ms`` after its last heartbeat (the others, heartbeating in step, hear
  of it at once), and a join phase waits for it until then or until ``rebalance.timeout.ms`` has passed since
  the phase began;
* an operator's ``add_connector`` / ``remove_connector`` reaches every worker through the config topic
  :data:`CONFIG_MS` after the REST call, and each one asks to rejoin (``ConfigUpdateListener``:
  ``needsReconfigRebalance``), so all rejoin at once; once a round has given a new connector to a worker, the
  connector's ``tasks.max`` task configs are written and read :data:`TASK_CONFIG_MS` later and every worker
  rejoins again (``onTaskConfigUpdate``), so a connector's tasks arrive one round after it;
* after an incremental round that revokes anything, the workers it revoked from rejoin at once
  (``handleRebalanceCompleted`` -> ``requestRejoin``) and the others at their next heartbeat; a round that sends
  a delay (``scheduled.rebalance.max.delay.ms`` running: the lost assignments are held back) makes every worker
  rejoin when it expires (``DistributedHerder.scheduledRebalance``);
* an event during a join phase is folded into it; the coordinator keeps its leader while it stays, else the
  first member of its ``members`` ``HashMap`` (keyed by member id) leads (``ClassicGroup.remove`` and
  ``maybeElectNewJoinedLeader``, 4.3.1); no SyncGroup fails, no network time is spent.

The four constants were fitted (``benchmarks/bench_connect_peer.py --fit``) on the book's 2-core machine against
the real cluster of ``simulate --on kafka``; ``benchmarks/connect_peer_results.md`` compares every round.  Refit
them for other hardware.

A member's member id is ``connect-NN-K`` (``NN`` its place in :attr:`ConnectScenario.worker_order`: the members
that start at 0, then the others, each in ``members`` order; ``K`` its process's incarnation), so the eager
assignor's deal by member id follows that order (as on the real cluster of
``simulate --on kafka``, whose worker ids sort in that order); the incremental assignor's ``HashMap`` order of
member ids is this id's, which a real cluster's random member ids do not share.  With ``member_id_seed``
(:func:`simulate_connect`) ``K`` is instead a random UUID drawn from a generator seeded with it, as a real
member id ends (``connect-<host:port>-<uuid>``): :func:`connect_alternatives` runs a scenario over such draws to
show which outcomes the real cluster's ids can give.

Output: one line per completed round (``generation``, ``at_ms``, ``leader``, ``assignment``: worker ->
``{"connectors", "tasks"}``; ``moved``: ``revoked`` and ``assigned`` per worker; ``delayed``, ``delay_ms`` and
``expires_at_ms``: whether the round sent a scheduled delay and when it runs out), then a summary line
(:func:`connect_summary`).

Defined in chapter 11, *Kafka Connect: from stop-the-world to incremental*.
"""
from __future__ import annotations

import random
import re
import typing
import uuid
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple, TypedDict

from ..common import JsonRecord
from ..errors import EventLimitError, InputError
from ..java import INT_MAX
from ..member_ids import distinct_draws
from ..validation import check_size, json_object, require, scenario_event, whole
from .cluster import ConnectCluster, Running, RoundResult
from .incremental import DEFAULT_START_TIME_MS
from .model import connector_key, hashmap_member_order, task_key, task_str

__all__ = ["CONFIG_MS", "TASK_CONFIG_MS", "WORKER_START_MS", "WORKER_STOP_MS", "CONNECT_CONFIG", "CONNECT_OPS", "ConnectEvent", "ConnectScenario", "ConnectSummary", "connect_summary",
           "parse_connect_scenario", "simulate_connect", "connect_alternatives", "compute", "rebalance_row"]

#: the scenario's ``config``: Kafka's names and their defaults (Connect's ``DistributedConfig`` for the worker's
#: settings, the broker's ``group.initial.rebalance.delay.ms``)
CONNECT_CONFIG: Dict[str, object] = {
    "connect.protocol": "sessioned",
    "scheduled.rebalance.max.delay.ms": 300_000,
    "session.timeout.ms": 10_000,
    "heartbeat.interval.ms": 3_000,
    "rebalance.timeout.ms": 60_000,
    "group.initial.rebalance.delay.ms": 3_000,
}
#: ``connect.protocol`` values
CONNECT_PROTOCOLS = ("eager", "compatible", "sessioned")
# The timing constants below are this machine's (2 cores), measured against the real cluster of ``simulate --on
# kafka``: each is the value of ``benchmarks/bench_connect_peer.py --fit`` that makes the most of the
# even-numbered recorded real runs meet the round-by-round standard (then the smallest mean timing error); the
# report (``benchmarks/connect_peer_results.md``) gives the odd-numbered runs apart, and ``tests/test_peer_reports.py``
# checks that no setting one step away on the grid does better.  A loaded machine is slower: on the earlier run
# beside two other peer runs a restarted worker's round came 3.0 to 8.9 s after its ``down_ms`` had passed.
#: How long a restarted worker's new process takes from its start to its JoinGroup: the herder starts, reads the
#: config, offset and status topics to their ends and only then joins.
WORKER_START_MS = 1000
#: How long a graceful stop (SIGTERM: ``leave``, the first half of ``restart``) takes to send its LeaveGroup: the
#: shutdown hook stops the herder, which stops its connectors and tasks first.
WORKER_STOP_MS = 750
#: How long an operator's REST call (``POST /connectors``, ``DELETE /connectors/{name}``) takes to reach the
#: workers: the worker that takes it writes the config topic, every herder reads it and asks to rejoin.
CONFIG_MS = 100
#: How long a connector a round has started takes to have its task configs written and read (the connector's
#: ``taskConfigs``, the leader's write to the config topic, every herder's ``onTaskConfigUpdate``).
TASK_CONFIG_MS = 50
#: what an event does: to a worker, or (the last two) the operator's REST calls
CONNECT_OPS = ("join", "leave", "crash", "restart", "add_connector", "remove_connector")
SCENARIO_KEYS = ("kind", "id", "members", "config", "events", "until_ms")
EVENT_KEYS = ("at_ms", "op", "member", "down_ms", "connector", "tasks.max")
#: a connector name both sides accept (the real driver's REST calls take no ``-``: a task is ``name-N``)
CONNECTOR_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.]*$")
#: at most this many rounds per scenario (a model bug must not loop for ever)
MAX_ROUNDS = 10_000


@dataclass(frozen=True)
class ConnectEvent:
    """``op`` at ``at_ms``: to ``member`` (``join``/``leave``/``crash``/``restart``, ``down_ms`` for a restart), or
    the operator's ``add_connector`` (``connector`` with ``tasks_max`` tasks) / ``remove_connector``."""

    at_ms: int
    op: str
    member: Optional[str] = None
    down_ms: int = 0
    connector: Optional[str] = None
    tasks_max: int = 0


@dataclass(frozen=True)
class ConnectScenario:
    """A validated ``kind: connect`` scenario (see the module docstring)."""

    id: object
    members: Tuple[str, ...]
    config: Dict[str, Any]
    events: Tuple[ConnectEvent, ...]
    until_ms: int

    @property
    def connect_protocol(self) -> str:
        return typing.cast(str, self.config["connect.protocol"])

    @property
    def max_delay_ms(self) -> int:
        return typing.cast(int, self.config["scheduled.rebalance.max.delay.ms"])

    @property
    def worker_order(self) -> Tuple[str, ...]:
        """The members that start at 0, then those with a ``join`` event, each in ``members`` order: the order
        of their member ids (and, on a real cluster, of the workers ``w1``, ``w2``, ...)."""
        joins = {e.member for e in self.events if e.op == "join"}
        return tuple([m for m in self.members if m not in joins] + [m for m in self.members if m in joins])






def _config(value: object) -> Dict[str, Any]:
    if value is None:
        value = {}
    m = json_object(value, tuple(CONNECT_CONFIG), "config", "config")
    out = dict(CONNECT_CONFIG)
    for key, v in m.items():
        field = f"config.{key}"
        if key == "connect.protocol":
            require(v in CONNECT_PROTOCOLS, field, f"must be one of {', '.join(CONNECT_PROTOCOLS)}, got {v!r}")
        else:
            whole(v, field, 1 if key in ("session.timeout.ms", "heartbeat.interval.ms", "rebalance.timeout.ms") else 0, INT_MAX)
        out[key] = v
    require(typing.cast(int, out["heartbeat.interval.ms"]) < typing.cast(int, out["session.timeout.ms"]), "config.heartbeat.interval.ms",
            f"must be lower than session.timeout.ms ({out['session.timeout.ms']}), got {out['heartbeat.interval.ms']}")
    return out


def _members(value: object) -> Tuple[str, ...]:
    require(isinstance(value, list) and len(value) > 0, "members",
            f"must be a non-empty list of {{\"id\"}} objects (the workers), got {value!r}")
    out: List[str] = []
    for i, m in enumerate(typing.cast(List[object], value)):
        m = json_object(m, ("id",), f"members[{i}]", "a member")
        mid = m.get("id")
        require(isinstance(mid, str) and mid != "", f"members[{i}].id", f"must be a non-empty string, got {mid!r}")
        if mid in out:
            raise InputError(f"members[{i}].id", f"{mid!r} is also the id of members[{out.index(str(mid))}]")
        out.append(typing.cast(str, mid))
    return tuple(out)


def _events(value: object, members: Sequence[str], until_ms: int) -> Tuple[ConnectEvent, ...]:
    """The events in time order (same instant: file order), checked against each worker's life (``join`` only as
    its first event, ``leave``/``crash`` only while it runs) and the connectors configured at the time."""
    if value is None:
        value = []
    require(isinstance(value, list), "events", f"must be a list of event objects, got {value!r}")
    raw: List[Tuple[int, int, ConnectEvent]] = []
    for i, e in enumerate(typing.cast(List[object], value)):
        f = f"events[{i}]"
        e, at, op = scenario_event(e, EVENT_KEYS, f, CONNECT_OPS, until_ms, INT_MAX)
        worker_op = op in CONNECT_OPS[:4]
        for key in ("member", "down_ms") if not worker_op else ("connector", "tasks.max"):
            require(key not in e, f"{f}.{key}", f"{op!r} has no {key}")
        if worker_op:
            name = e.get("member")
            require(isinstance(name, str) and name in members, f"{f}.member",
                    f"{name!r} is not the id of one of the scenario's members")
            down = 0
            if "down_ms" in e:
                require(op == "restart", f"{f}.down_ms", f"only a 'restart' has a down time, not {op!r}")
                down = whole(e.get("down_ms"), f"{f}.down_ms", 0, INT_MAX)
            raw.append((at, i, ConnectEvent(at, op, typing.cast(str, name), down)))
        else:
            conn = e.get("connector")
            require(isinstance(conn, str) and bool(CONNECTOR_NAME.match(conn)), f"{f}.connector",
                    f"must be a connector name of letters, digits, '_' and '.', got {conn!r}")
            tasks = 0
            if op == "add_connector":
                tasks = whole(e.get("tasks.max"), f"{f}.tasks.max", 1, 1000)
            else:
                require("tasks.max" not in e, f"{f}.tasks.max", "only 'add_connector' has tasks.max")
            raw.append((at, i, ConnectEvent(at, op, connector=typing.cast(str, conn),
                                            tasks_max=tasks)))
    raw.sort(key=lambda x: (x[0], x[1]))
    joins = {e.member for _, _, e in raw if e.op == "join"}
    running = {m: m not in joins for m in members}
    seen: Set[str] = set()
    configured: Set[str] = set()
    for _, i, e in raw:
        if e.member is not None:
            require(e.op != "join" or e.member not in seen, f"events[{i}].op",
                    f"'join' must be {e.member!r}'s first event (a member without one starts at 0); use 'restart'")
            require(e.op not in ("leave", "crash") or running[e.member], f"events[{i}].op",
                    f"{e.member!r} is not running at {e.at_ms} ms")
            seen.add(e.member)
            running[e.member] = e.op in ("join", "restart")
        elif e.op == "add_connector":
            require(e.connector not in configured, f"events[{i}].connector", f"{e.connector!r} already exists then")
            configured.add(typing.cast(str, e.connector))
        else:
            require(e.connector in configured, f"events[{i}].connector", f"{e.connector!r} does not exist then")
            configured.discard(typing.cast(str, e.connector))
    return tuple(e for _, _, e in raw)


def parse_connect_scenario(value: object) -> ConnectScenario:
    """Validate one ``kind: connect`` scenario; an :class:`InputError` names the first bad field."""
    s = json_object(value, SCENARIO_KEYS, "", "a connect scenario")
    require(s.get("kind") == "connect", "kind", f"must be 'connect' here, got {s.get('kind')!r}")
    members = _members(s.get("members"))
    config = _config(s.get("config"))
    until_ms = whole(s.get("until_ms"), "until_ms", 1, INT_MAX)
    raw = s.get("events")
    check_size("members", len(members) + (len(raw) if isinstance(raw, list) else 0),
               f"{len(members):,} members + events")
    return ConnectScenario(s.get("id"), members, config, _events(raw, members, until_ms), until_ms)


# ---------------------------------------------------------------------------------------------
# the output lines, shared with the real cluster's driver


def _items(connectors: Sequence[str], tasks: Sequence[str]) -> Dict[str, List[str]]:
    return {"connectors": sorted(connectors, key=connector_key),
            "tasks": sorted(tasks, key=lambda t: task_key((t.rpartition("-")[0], int(t.rpartition("-")[2]))))}


def rebalance_row(generation: int, at_ms: int, leader: Optional[str],
                  after: Mapping[str, Tuple[Sequence[str], Sequence[str]]],
                  revoked: Mapping[str, Sequence[str]], assigned: Mapping[str, Sequence[str]], delay_ms: int) -> JsonRecord:
    """One output line of a completed round: ``after`` is each member's (connectors, tasks) after it,
    ``revoked``/``assigned`` what the round stopped and started on each (only workers with any are listed)."""
    return {"generation": generation, "at_ms": at_ms, "leader": leader,
            "assignment": {w: _items(*after[w]) for w in sorted(after)},
            "moved": {"revoked": {w: sorted(v) for w, v in sorted(revoked.items()) if v},
                      "assigned": {w: sorted(v) for w, v in sorted(assigned.items()) if v}},
            "delayed": delay_ms > 0, "delay_ms": delay_ms, "expires_at_ms": at_ms + delay_ms if delay_ms > 0 else None}


class ConnectSummary(TypedDict):
    """The summary line of a ``kind: connect`` scenario."""

    rebalances: int
    moved: int
    revoked: int
    delayed_rebalances: int
    generation: int
    settled: bool


def connect_summary(rows: Sequence[JsonRecord], eager: bool = False) -> ConnectSummary:
    """The summary of the rebalance lines: ``rebalances``; ``moved``, the times a round gave a connector or task
    to another worker than the one a round last gave it to (its first owner is no move); ``revoked``, the items
    rounds stopped (under eager everything a worker ran); ``delayed_rebalances``; the last ``generation``; and
    ``settled``: the last round sent no delay and (unless ``eager``, which stops everything each round) revoked
    nothing."""
    last: Dict[str, str] = {}
    moved = revoked = 0
    for r in rows:
        assignment = typing.cast(Dict[str, Dict[str, List[str]]], r["assignment"])
        for w in sorted(assignment):
            for item in assignment[w]["connectors"] + assignment[w]["tasks"]:
                if last.get(item, w) != w:
                    moved += 1
                last[item] = w
        revoked += sum(len(v) for v in typing.cast(Dict[str, Dict[str, List[str]]], r["moved"])["revoked"].values())
    final = rows[-1] if rows else None
    return {"rebalances": len(rows), "moved": moved, "revoked": revoked,
            "delayed_rebalances": sum(1 for r in rows if r["delayed"]),
            "generation": typing.cast(int, final["generation"]) if final else -1,
            "settled": final is not None and not final["delayed"]
            and (eager or not typing.cast(Dict[str, Dict[str, List[str]]], final["moved"])["revoked"])}


# ---------------------------------------------------------------------------------------------
# the timing model


class _Run:
    """The coordinator's and the herders' clocks around :class:`ConnectCluster` (see the module docstring)."""

    def __init__(self, s: ConnectScenario, member_id_seed: Optional[int] = None):
        self.s = s
        self.random = None if member_id_seed is None else random.Random(member_id_seed)
        self.suffix: Dict[Tuple[str, int], str] = {}
        c = s.config
        self.hb, self.session = int(c["heartbeat.interval.ms"]), int(c["session.timeout.ms"])
        self.rebalance_timeout, self.initial_delay = int(c["rebalance.timeout.ms"]), int(c["group.initial.rebalance.delay.ms"])
        self.model = ConnectCluster(assignor="eager" if s.connect_protocol == "eager" else "incremental",
                                    mode="protocol", protocol=s.connect_protocol, max_delay_ms=s.max_delay_ms,
                                    initial_generation_id=0)
        self.incarnation: Dict[str, int] = {m: 0 for m in s.members}
        self.member_of: Dict[str, str] = {}  # member id -> worker
        self.group: Dict[str, None] = {}  # member ids the coordinator counts, in join order
        self.crashed: Dict[str, int] = {}  # member id -> its session's expiry
        self.rejoin: Optional[Dict[str, int]] = None  # a join phase: member id -> when it rejoins
        self.phase_start = 0
        self.phase_end_initial: Optional[int] = None  # an empty group's InitialDelayedJoin
        self.leader: Optional[str] = None
        self.last_completed: Dict[str, int] = {}
        self.hb_base: Dict[str, int] = {}  # member id -> when its heartbeat timer was last reset (its last sync)
        self.generation = 0
        self.config: Dict[str, int] = {}  # connector -> task configs written
        self.pending_tasks: Dict[str, int] = {}  # connector -> tasks.max, not yet written
        self.scheduled: Optional[int] = None
        self.rows: List[JsonRecord] = []
        #: what is to come, by (time, order): the scenario's events (order: their index), a restart's return
        #: (its event's order + 0.5) and the run's internal ops (:meth:`_schedule`)
        self.queue: List[Tuple[int, float, ConnectEvent]] = [(e.at_ms, i, e) for i, e in enumerate(s.events)]
        self.internal = len(s.events)  # internal ops come after the scenario's events of their instant, in their order
        self.stopping: Dict[str, int] = {}  # worker -> when its LeaveGroup goes

    # members
    def _member_id(self, worker: str) -> str:
        k = self.incarnation[worker]
        if self.random is not None and (worker, k) not in self.suffix:
            self.suffix[(worker, k)] = str(uuid.UUID(int=self.random.getrandbits(128), version=4))
        return f"connect-{self.s.worker_order.index(worker) + 1:02d}-{self.suffix.get((worker, k), k)}"

    def start(self, worker: str, t: int) -> None:
        if self.current(worker) is not None:  # its running process closes first
            self.leave(worker, t)
        self.incarnation[worker] += 1
        mid = self._member_id(worker)
        self.member_of[mid] = worker
        self.hb_base[mid] = t
        was_empty = not self.group
        self.group[mid] = None
        if was_empty and self.rejoin is None:
            self.rejoin, self.phase_start = {mid: t}, t
            self.phase_end_initial = t + min(self.initial_delay, self.rebalance_timeout)
        elif self.rejoin is not None and self.phase_end_initial is not None:
            self.rejoin[mid] = t
            self.phase_end_initial = min(t + self.initial_delay, self.phase_start + self.rebalance_timeout)
        else:
            self.trigger(t, {mid})

    def current(self, worker: str) -> Optional[str]:
        mid = self._member_id(worker)
        return mid if mid in self.group and mid not in self.crashed else None

    def leave(self, worker: str, t: int) -> None:
        mid = self._member_id(worker)
        if mid in self.group:
            self._drop(mid)
            if self.rejoin is not None:
                self.rejoin.pop(mid, None)
            if self.group:
                self.trigger(t, set())
            else:
                self.rejoin, self.phase_end_initial = None, None

    def _drop(self, mid: str) -> None:
        """Member ``mid`` is out of the group; a group left empty has no leader (the next one's first member
        leads, ``ClassicGroup.add``)."""
        del self.group[mid]
        self.model.running.pop(mid, None)
        self.crashed.pop(mid, None)
        if not self.group:
            self.leader = None

    def next_heartbeat(self, mid: str, t: int) -> int:
        """Member ``mid``'s first heartbeat at or after ``t``: its heartbeats come every ``heartbeat.interval.ms``
        from its last SyncGroup (``AbstractCoordinator``'s heartbeat thread resets its timer there), so the
        members of one round heartbeat in step, and hear of a crashed one's expiry at once."""
        base = self.hb_base.get(mid, t)
        return base + max(1, -(-(t - base) // self.hb)) * self.hb

    def crash(self, worker: str, t: int) -> None:
        """The coordinator removes a crashed member ``session.timeout.ms`` after the last heartbeat it had from it
        (its last before ``t``)."""
        mid = self._member_id(worker)
        base = self.hb_base.get(mid, t)
        self.crashed[mid] = base + max(0, t - base) // self.hb * self.hb + self.session

    def trigger(self, t: int, at_once: Set[str]) -> None:
        """A rebalance: the members in ``at_once`` rejoin at ``t``, the others at their next heartbeat."""
        if all(mid in self.crashed for mid in self.group):
            return
        if self.rejoin is None:
            self.rejoin, self.phase_start, self.phase_end_initial = {}, t, None
        for mid in self.group:
            if mid in self.crashed:
                continue
            when = t if mid in at_once else self.next_heartbeat(mid, t)
            self.rejoin[mid] = min(self.rejoin.get(mid, when), when)

    def phase_end(self) -> Optional[int]:
        if self.rejoin is None:
            return None
        if self.phase_end_initial is not None:
            return self.phase_end_initial
        deadline = self.phase_start + self.rebalance_timeout
        ends = [min(self.rejoin[m], deadline) for m in self.group if m in self.rejoin and m not in self.crashed]
        ends += [min(self.crashed[m], deadline) for m in self.group if m in self.crashed]
        return max(ends) if ends else None

    # rounds
    def complete(self, t: int) -> None:
        """The join phase ends at ``t``: crashed members and members that did not rejoin are out; the leader's
        round."""
        assert self.rejoin is not None
        for mid in list(self.group):
            if mid in self.crashed or mid not in self.rejoin or self.rejoin[mid] > t:
                self._drop(mid)
        self.rejoin, self.phase_end_initial = None, None
        if not self.group:
            return
        members: Dict[str, Running] = {m: self.model.running.get(m, ([], [])) for m in self.group}
        if self.leader is None:  # ClassicGroup.add: a group's first member leads
            self.leader = next(iter(members))
        elif self.leader not in members:  # ClassicGroup.remove: the first of its members HashMap (by member id)
            self.leader = hashmap_member_order(list(members))[0]
        self.generation += 1
        self.model.time.set(DEFAULT_START_TIME_MS + t)
        self.model.connectors = dict(self.config)
        before = {m: (list(c), [task_str(x) for x in ts]) for m, (c, ts) in members.items()}
        result = self.model.replay_round(members, self.generation, self.last_completed.get(self.leader, -1),
                                         self.leader)
        for m in members:
            self.last_completed[m] = self.generation
            self.hb_base[m] = t
        self.rows.append(self._row(result, before, t))
        self.scheduled = (self.model.scheduled_rebalance - DEFAULT_START_TIME_MS
                          if self.model.scheduled_rebalance is not None else None)
        if self.model.kind == "incremental" and result.revoked_anything():
            self.trigger(t, {m for m, wr in result.workers.items() if wr.revoked_connectors or wr.revoked_tasks})
        started = {conn for conns, _ in self.model.running.values() for conn in conns}
        for c in [c for c in self.pending_tasks if c in started]:  # the connector runs and writes its task configs
            self._schedule(ConnectEvent(t + TASK_CONFIG_MS, "_tasks", connector=c, tasks_max=self.pending_tasks.pop(c)))

    def _row(self, result: RoundResult, before: Mapping[str, Tuple[List[str], List[str]]], t: int) -> JsonRecord:
        after: Dict[str, Tuple[List[str], List[str]]] = {}
        revoked: Dict[str, List[str]] = {}
        assigned: Dict[str, List[str]] = {}
        for mid, wr in result.workers.items():
            w = self.member_of[mid]
            c, ts = self.model.running[mid]
            now = (list(c), [task_str(x) for x in ts])
            after[w] = now
            gone = set(wr.revoked_connectors) | {task_str(x) for x in wr.revoked_tasks}
            kept = {x for x in before[mid][0] + before[mid][1] if x not in gone}
            revoked[w] = sorted(gone)
            assigned[w] = [x for x in now[0] + now[1] if x not in kept]
        leader = self.member_of[self.leader] if self.leader is not None else None
        return rebalance_row(self.generation, t, leader, after, revoked, assigned, result.delay)

    def config_change(self, t: int) -> None:
        if self.group:
            self.trigger(t, set(m for m in self.group if m not in self.crashed))

    def run(self) -> List[JsonRecord]:
        s = self.s
        joins = {e.member for e in s.events if e.op == "join"}
        for m in s.members:
            if m not in joins:
                self.start(m, 0)
        while True:
            self.queue.sort(key=lambda x: (x[0], x[1]))
            candidates: List[Tuple[int, int]] = []  # (time, priority): events first, then expiries, rounds
            if self.queue:
                candidates.append((self.queue[0][0], 0))
            for mid, exp in self.crashed.items():
                if mid in self.group and self.rejoin is None:
                    candidates.append((exp, 1))
            end = self.phase_end()
            if end is not None:
                candidates.append((end, 2))
            if self.scheduled is not None and self.rejoin is None:
                candidates.append((self.scheduled, 3))
            if not candidates:
                break
            t, kind = min(candidates)
            if t > s.until_ms:
                break
            if len(self.rows) > MAX_ROUNDS:
                raise EventLimitError(MAX_ROUNDS, s.until_ms)
            if kind == 0:
                _, order, e = self.queue.pop(0)
                self._event(e, t, order)
            elif kind == 1:
                mid = min((exp, m) for m, exp in self.crashed.items() if m in self.group)[1]
                self._drop(mid)
                if self.group:
                    self.trigger(t, set())
            elif kind == 2:
                self.complete(t)
            else:
                self.scheduled = None
                self.trigger(t, set(m for m in self.group if m not in self.crashed))
        return self.rows

    def _schedule(self, e: ConnectEvent) -> None:
        """An internal op at ``e.at_ms``: ``_leave`` (a stopping worker's LeaveGroup), ``_config`` (a REST call
        reaches the workers) or ``_tasks`` (task configs written)."""
        self.internal += 1
        self.queue.append((e.at_ms, self.internal, e))

    def _event(self, e: ConnectEvent, t: int, order: float) -> None:
        conn = typing.cast(str, e.connector)
        if e.op in ("add_connector", "remove_connector"):  # the config topic, read by the workers later
            self._schedule(ConnectEvent(t + CONFIG_MS, "_config", connector=conn,
                                        tasks_max=e.tasks_max if e.op == "add_connector" else -1))
        elif e.op == "_config":
            if e.tasks_max >= 0:
                self.pending_tasks[conn] = e.tasks_max
                self.config[conn] = 0
            else:
                self.config.pop(conn, None)
                self.pending_tasks.pop(conn, None)
            self.config_change(t)
        elif e.op == "_tasks":
            if conn in self.config:  # not removed meanwhile
                self.config[conn] = e.tasks_max
                self.config_change(t)
        elif e.op == "_leave":
            if e.member in self.stopping:
                del self.stopping[e.member]
                self.leave(e.member, t)
        else:
            w = typing.cast(str, e.member)
            if e.op in ("leave", "crash", "restart"):  # a restart still bringing the worker back is called off
                self.queue[:] = [q for q in self.queue if not (q[2].op == "join" and q[2].member == w and q[1] != int(q[1]))]
            if e.op == "join":
                self.start(w, t)
            elif e.op == "crash":
                self.stopping.pop(w, None)
                self.crash(w, t)
            else:  # leave, restart: a graceful stop sends its LeaveGroup WORKER_STOP_MS later
                stop = t
                if self.current(w) is not None and w not in self.stopping:
                    stop = t + WORKER_STOP_MS
                    self.stopping[w] = stop
                    self._schedule(ConnectEvent(stop, "_leave", w))
                elif w in self.stopping:
                    stop = self.stopping[w]
                if e.op == "restart":
                    # the new process starts down_ms after the old one has left and joins once it is up (before
                    # any later event of that instant)
                    back = stop + e.down_ms + WORKER_START_MS
                    self.queue.append((back, order + 0.5, ConnectEvent(back, "join", w)))


def simulate_connect(scenario: object, member_id_seed: Optional[int] = None) -> List[JsonRecord]:
    """Run a ``kind: connect`` scenario (its JSON object or a :class:`ConnectScenario`) to ``until_ms``: its
    rebalance lines (:func:`rebalance_row`), then ``{"summary": ...}`` (:func:`connect_summary`).
    ``member_id_seed``: member ids ending in random UUIDs drawn from it (see the module docstring); ``None``,
    numbered.

    Defined in chapter 11, *Kafka Connect: from stop-the-world to incremental*."""
    s = scenario if isinstance(scenario, ConnectScenario) else parse_connect_scenario(scenario)
    rows = _Run(s, member_id_seed).run()
    return rows + [{"summary": connect_summary(rows, s.connect_protocol == "eager")}]


def connect_alternatives(scenario: object, draws: int = 32) -> List[List[JsonRecord]]:
    """The distinct runs (:func:`simulate_connect`'s lines, without ``at_ms``) of a ``kind: connect`` scenario over
    ``draws`` draws of member ids (seeds 0 to ``draws - 1``), the numbered run first.  The incremental assignor
    walks its workers in the ``HashMap`` order of their member ids (which of equally loaded workers loses a task
    to a new one follows it), and a real cluster's ids end in random UUIDs: each run is one a real cluster can
    show; the set is a sample, not a proof that no other exists."""
    s = scenario if isinstance(scenario, ConnectScenario) else parse_connect_scenario(scenario)
    return distinct_draws(lambda seed: [{k: v for k, v in r.items() if k != "at_ms"} for r in simulate_connect(s, seed)],
                          draws)


def compute(value: object) -> List[JsonRecord]:
    """``simulate``'s ``compute`` for a ``kind: connect`` line (:func:`simulate_connect`)."""
    return simulate_connect(value)
