"""Causes of rebalances injected into real consumer groups on one real broker, and what ``diagnose`` reads back.

Each :class:`InjectedCause` is a scenario of :func:`rebalance.kafka.run_scenario` (Kafka 4.3.1's broker and Java
consumers) with what must be seen.  :func:`run_injected` runs them all on ONE
:class:`~rebalance.kafka.cluster.KafkaCluster`, up to :data:`CONCURRENT` at a time, each with a group of its own,
and keeps the broker's ``server.log`` (``c.node(1).dir``) for :func:`rebalance.diagnose.diagnose`, each running
member's rebalance and poll metrics at its scenario's end (``KafkaConsumer.metrics()``) and, at the times a cause
asks for, what ``kafka-consumer-groups --describe`` printed about its group
(:func:`rebalance.kafka.group_command.describe_group`).

A scenario's members are named ``<id>-<x>`` and a static member's ``group.instance.id`` is its name, so a classic
member id (``<client.id or instance id>-<UUID>``) names its scenario and member; a consumer group's member ids
(UUIDs) are named through the records ``run_scenario`` appends to ``REBALANCE_KAFKA_RECORDS`` (each member's
``member_id`` records, written once its client has an id, and its callbacks).  The scenario's end is its
``clock`` record's ``t0`` + ``until_ms``: the records are those written by then, and then ``run_scenario`` kills
the members' JVMs.

Each cause says what must be seen: ``expect``, the triggers (kind, member) that must appear in this order among
the group's rebalances before the scenario's end (``*``: any member of the scenario; ``a|b``: either kind);
``allowed``, the other kinds a rebalance before the end may have (the members' first joins, cooperative
rejoins...).  Every rebalance before the end must name a kind diagnose knows and a member of the scenario.  After
the end the rebalances are mostly the end's own doing: the kill (a session, rebalance or sync timeout of a member)
or the join of a process started just before the end (on a loaded machine a JVM can take seconds to join) that is
killed soon after; they must be of those kinds (:data:`END_KINDS`) or the scenario's, and name a member of the
scenario unless their member id first shows after the end (its records were taken at the end: nothing names it).
:func:`check_injected` says what did not hold.  ``tests/diagnose/real_logs.py`` holds 34 such causes.

Defined in chapter 16, *Diagnosing rebalances*.
"""
from __future__ import annotations

import datetime
import json
import os
import re
import shutil
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from .groups import member_name
from .layout import split_record

__all__ = ["InjectedCause", "InjectedRun", "run_injected", "run_until_seen", "check_injected", "group_log_lines", "log_ms", "now_ms",
           "member_of", "group_of", "simulated_reasons", "simulator_reason_kind", "COORDINATOR_ACTION", "BROKER", "CONCURRENT", "SESSION_MS", "HEARTBEAT_MS", "END_KINDS"]

#: session timeout and heartbeat of every scenario (classic: the consumers'; consumer protocol: the broker's)
SESSION_MS, HEARTBEAT_MS = 4000, 500
BROKER = {"group.initial.rebalance.delay.ms": 0, "group.min.session.timeout.ms": 1000,
          "group.max.session.timeout.ms": 1800000, "offsets.topic.num.partitions": 1,
          "group.consumer.session.timeout.ms": SESSION_MS, "group.consumer.heartbeat.interval.ms": HEARTBEAT_MS,
          "group.consumer.min.session.timeout.ms": SESSION_MS, "group.consumer.min.heartbeat.interval.ms": HEARTBEAT_MS}
#: scenarios running at once on the cluster (each is 2-5 JVMs on a 2-core machine)
CONCURRENT = 5
CLASSIC = {"initial_rebalance_delay_ms": 0, "group_min_session_timeout_ms": 1000, "session_timeout_ms": SESSION_MS,
           "heartbeat_interval_ms": HEARTBEAT_MS}
CONSUMER = {"session_timeout_ms": SESSION_MS, "heartbeat_interval_ms": HEARTBEAT_MS}

#: what a rebalance after a scenario's end may be besides its own kinds: the kill's timeouts, a late process's join
END_KINDS = ("session timeout", "rebalance timeout", "sync timeout", "join")


@dataclass
class InjectedCause:
    """One scenario of an injected cause and what ``diagnose`` must say about it (see the module docstring);
    ``describe_at_ms``: the scenario's times at which ``kafka-consumer-groups --describe`` looks at its group."""

    id: str
    protocol: str
    cause: str
    members: Sequence[str]
    events: Sequence[Tuple[int, str, str, int]]   # (at_ms, op, member, down_ms)
    expect: Sequence[Tuple[str, str]]
    until_ms: int = 11000
    static: Sequence[str] = ()
    config: Dict[str, int] = field(default_factory=dict)
    allowed: Sequence[str] = ("join",)
    partitions: int = 4
    #: checks of the group's summary: a pattern kind it must find, static restarts it must count
    pattern: Optional[str] = None
    static_restarts: int = 0
    #: whether ``expect`` must appear in its order (a join storm's joins may overtake one another)
    ordered: bool = True
    describe_at_ms: Sequence[int] = ()
    #: a second topic, ``t-<id>-new``, that no member subscribes to at first: a ``subscribe`` event makes its
    #: member subscribe to both topics (a subscription change)
    new_topic: bool = False

    def name(self, m: str) -> str:
        """The scenario's name of member ``m`` (``<id>-<m>``), its ``client.id``."""
        return f"{self.id}-{m}"

    def scenario(self) -> Dict[str, Any]:
        """The scenario of :func:`rebalance.kafka.run_scenario`."""
        config = dict(CONSUMER if self.protocol == "consumer" else CLASSIC, **self.config)
        members: List[Dict[str, Any]] = [{"id": self.name(m), **({"instance_id": self.name(m)} if m in self.static else {})}
                                         for m in self.members]
        topics = {f"t-{self.id}": self.partitions, **({f"t-{self.id}-new": self.partitions} if self.new_topic else {})}
        if self.new_topic:
            members = [dict(m, topics=[f"t-{self.id}"]) for m in members]
        events: List[Dict[str, Any]] = []
        for at, op, m, down in self.events:
            e: Dict[str, Any] = {"at_ms": at, "op": op, "member": self.name(m)}
            if down:
                e["down_ms"] = down
            if op == "subscribe":
                e["topics"] = sorted(topics)
            events.append(e)
        return {"id": self.id, "protocol": self.protocol, "topics": topics,
                "members": members, "config": config, "events": events, "until_ms": self.until_ms}


def now_ms() -> int:
    """The broker log's clock now (its local wall-clock time, read as the log's times are)."""
    return log_ms(time.time() * 1000)


def log_ms(epoch_ms: float) -> int:
    """The broker log's clock at ``epoch_ms`` (ms since the epoch, ``time.time()``'s clock)."""
    t = datetime.datetime.fromtimestamp(epoch_ms / 1000)
    record = split_record(f"[{t:%Y-%m-%d %H:%M:%S},{t.microsecond // 1000:03d}] INFO now")
    assert record is not None
    return record.at_ms


@dataclass
class InjectedRun:
    """What the cluster did: the copied broker log, each scenario's end (log clock: its ``t0`` + ``until_ms``, or
    when ``run_scenario`` returned if it wrote no clock) and error, member id -> name, the run's wall seconds; each
    scenario's ``groups`` id and ``t0`` (epoch ms); ``metrics``: scenario -> member -> {metric: value} at its end;
    ``described``: scenario -> [(at_ms, view, the command's output)]."""

    log: Path
    ended_ms: Dict[str, int]
    errors: Dict[str, str]
    names: Dict[str, str]
    seconds: float
    groups: Dict[str, str] = field(default_factory=dict)
    t0: Dict[str, int] = field(default_factory=dict)
    metrics: Dict[str, Dict[str, Dict[str, Any]]] = field(default_factory=dict)
    described: Dict[str, List[Tuple[int, str, str]]] = field(default_factory=dict)


def run_injected(cases: Sequence[InjectedCause], folder: Path, concurrent: int = CONCURRENT,
                 views: Sequence[str] = ("state", "members")) -> InjectedRun:
    """Run ``cases`` on one cluster (:data:`BROKER`), ``concurrent`` at a time, and copy its ``server.log`` into
    ``folder``; at each ``describe_at_ms`` of a case, ``kafka-consumer-groups --describe`` of its group in each of
    ``views``."""
    from ..kafka import KafkaCluster, run_scenario
    from ..kafka.group_command import describe_group

    records = folder / "records.jsonl"
    os.environ["REBALANCE_KAFKA_RECORDS"] = str(records)
    ended: Dict[str, int] = {}
    errors: Dict[str, str] = {}
    groups: Dict[str, str] = {}
    t0s: Dict[str, int] = {}
    described: Dict[str, List[Tuple[int, str, str]]] = {}
    lock = threading.Lock()
    began = time.monotonic()
    timers: List[threading.Thread] = []
    try:
        with KafkaCluster(brokers=1, broker_config=BROKER) as cluster:
            def describe(case: InjectedCause, at_ms: int, t0: int, group: str, view: str) -> None:
                time.sleep(max(0.0, (t0 + at_ms) / 1000 - time.time()))
                try:
                    out = describe_group(cluster.bootstrap_servers, group, view, folder=folder / f"{case.id}-{at_ms}")
                except Exception as exc:  # reported with the run, the scenarios go on
                    with lock:
                        errors[f"{case.id}@{at_ms}:{view}"] = f"{type(exc).__name__}: {exc}"
                    return
                with lock:
                    described.setdefault(case.id, []).append((at_ms, view, out))

            def one(case: InjectedCause) -> None:
                def clock(t0: int, group: str) -> None:
                    with lock:
                        groups[case.id], t0s[case.id] = group, t0
                    for at in case.describe_at_ms:
                        for view in views:
                            t = threading.Thread(target=describe, args=(case, at, t0, group, view), daemon=True)
                            timers.append(t)
                            t.start()
                try:
                    run_scenario(case.scenario(), cluster=cluster, on_clock=clock)
                except Exception as exc:  # reported by the caller, the other scenarios still run
                    with lock:
                        errors[case.id] = f"{type(exc).__name__}: {exc}"
                with lock:
                    ended[case.id] = now_ms()

            with ThreadPoolExecutor(concurrent) as pool:
                list(pool.map(one, cases))
            for t in timers:
                t.join(120)
            time.sleep(SESSION_MS / 1000 + 2)   # the last scenarios' killed members time out
            log = folder / "server.log"
            shutil.copy(cluster.node(1).dir / "server.log", log)
    finally:
        os.environ.pop("REBALANCE_KAFKA_RECORDS", None)
    names: Dict[str, str] = {}
    metrics: Dict[str, Dict[str, Dict[str, Any]]] = {}
    if records.exists():
        for text in records.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                r = json.loads(text)
            except ValueError:   # two scenarios appending at once may cut a line: the others name the member
                continue
            if not isinstance(r, dict):
                continue
            if r.get("member_id") and r.get("member"):
                names[str(r["member_id"])] = str(r["member"])
            if r.get("event") == "clock" and r.get("scenario") in ended:
                ended[str(r["scenario"])] = log_ms(int(r["t0"]) + int(r["until_ms"]))
            if r.get("event") == "metrics" and r.get("member") and isinstance(r.get("values"), dict):
                metrics.setdefault(str(r.get("scenario")), {})[str(r["member"])] = dict(r["values"])
    return InjectedRun(log, ended, errors, names, time.monotonic() - began, groups, t0s, metrics, described)


def run_until_seen(cases: Sequence[InjectedCause], folder: Path, attempts: int = 3, concurrent: int = CONCURRENT,
                   views: Sequence[str] = ("state", "members")
                   ) -> Tuple[InjectedRun, List[Dict[str, Any]], int]:
    """:func:`run_injected`, and again (all of ``cases``, on a new cluster, in a sub-folder of its own) while
    ``diagnose`` misses the injected cause of one of them, at most ``attempts`` runs in all: on a loaded machine a
    member starved of CPU can lose its session before the injected event shows, a real session timeout that is
    not the cause injected.  Returns the last run, ``diagnose``'s lines of its log and how many runs it took."""
    from .report import diagnose

    if attempts < 1:
        raise ValueError("attempts must be at least 1")
    for attempt in range(1, attempts + 1):
        sub = folder / f"run-{attempt}"
        sub.mkdir(parents=True, exist_ok=True)
        run = run_injected(cases, sub, concurrent=concurrent, views=views)
        lines = [dict(line) for line in diagnose([str(run.log)]).lines()]
        if not run.errors and all(not check_injected(case, run, lines)[0] for case in cases):
            break
    return run, lines, attempt


def member_of(case: InjectedCause, run: InjectedRun, trigger: Dict[str, Any]) -> Optional[str]:
    """The scenario member (``a``, ``b``...) a trigger names, or ``None``."""
    name = trigger.get("name") or run.names.get(trigger.get("member") or "")
    prefix = f"{case.id}-"
    if name and name.startswith(prefix) and name[len(prefix):] in case.members:
        return str(name[len(prefix):])
    return None


def group_of(case: InjectedCause, run: InjectedRun, rebalances: Sequence[Dict[str, Any]]) -> Optional[str]:
    """The group whose triggers name this scenario's members."""
    if case.id in run.groups:
        return run.groups[case.id]
    for line in rebalances:
        if member_of(case, run, line["trigger"]) is not None:
            return str(line["group"])
    return None


def check_injected(case: InjectedCause, run: InjectedRun, lines: Sequence[Dict[str, Any]]
                   ) -> Tuple[List[str], List[Tuple[str, Optional[str]]]]:
    """(problems, what ``diagnose`` said: (kind, member) of each rebalance before the end) for ``lines``, the
    output lines of :func:`rebalance.diagnose.diagnose` on ``run.log``."""
    rebalances = [line for line in lines if "trigger" in line]
    group = group_of(case, run, rebalances)
    if group is None:
        return [f"no group of {case.id} found"], []
    mine = [line for line in rebalances if line["group"] == group]
    problems: List[str] = []
    said: List[Tuple[str, Optional[str]]] = []
    end = run.ended_ms.get(case.id)
    seen: List[Tuple[str, Optional[str]]] = []   # the triggers, and the joins a rebalance took in on its way
    before_end: Set[str] = set()   # the member ids seen in the group's rebalances before the end
    for line in mine:
        rec = split_record(f"[{line['at']}] INFO x")
        at = rec.at_ms if rec is not None else 0
        kind, who = line["trigger"]["kind"], member_of(case, run, line["trigger"])
        if kind in ("unknown", "other"):
            problems.append(f"{line['source']}: kind {kind}")
        # the last 300 ms count as after the end: a record written then may not have been read by the end
        if end is not None and at >= end - 300:
            if kind not in END_KINDS + tuple(case.allowed) and not any(kind in k.split("|") for k, _ in case.expect):
                problems.append(f"{line['source']}: after the end, {kind}: neither the kill's timeouts, a late "
                                "process's join nor a kind of the scenario")
            if who is None and line["trigger"]["member"] in before_end:
                problems.append(f"{line['source']}: {kind} names no member of the scenario "
                                f"({line['trigger']['member']})")
            continue
        before_end.update([line["trigger"]["member"], *line["members_before"], *(line["members_after"] or [])])
        if who is None:
            problems.append(f"{line['source']}: {kind} names no member of the scenario ({line['trigger']['member']})")
        said.append((kind, who))
        seen.append((kind, who))
        before = set(line["members_before"])
        for m in line["members_after"] or []:
            joined = member_of(case, run, {"member": m, "name": member_name(m)})
            if m not in before and m != line["trigger"]["member"] and joined is not None:
                said.append(("joined during", joined))
                seen.append(("join", joined))
        for removed in line["removed"]:   # members removed while the group was already rebalancing
            gone = member_of(case, run, {"member": removed["member"], "name": member_name(removed["member"])})
            said.append((f"removed ({removed['why']})", gone))
            seen.append((removed["why"], gone))
        # a session timeout the scenario did not inject: a member starved of CPU on a loaded machine (a real one)
        if kind not in (*case.allowed, "session timeout") and not any(kind in k.split("|") for k, _ in case.expect):
            problems.append(f"{line['source']}: unexpected {kind} of {who}")

    def fits(got: Tuple[str, Optional[str]], want: Tuple[str, str]) -> bool:
        return got[0] in want[0].split("|") and (want[1] == "*" or got[1] in want[1].split("|"))

    missing: List[Tuple[str, str]] = []
    if case.ordered:
        i = 0
        for got in seen:
            if i < len(case.expect) and fits(got, case.expect[i]):
                i += 1
        missing = list(case.expect[i:i + 1])
    else:
        pool = list(seen)
        for want in case.expect:
            hit = next((g for g in pool if fits(g, want)), None)
            if hit is None:
                missing.append(want)
            else:
                pool.remove(hit)
    if missing:
        problems.append(f"expected {missing[0]} ({'in order ' if case.ordered else ''}{list(case.expect)}), "
                        f"diagnose said {said}")
    summaries = [line["summary"] for line in lines if "summary" in line and line["summary"]["group"] == group]
    summary = summaries[0] if summaries else None
    if case.pattern is not None:
        found = [p["kind"] for p in summary["patterns"]] if summary else []
        if case.pattern not in found:
            problems.append(f"summary: no pattern {case.pattern!r} (found {found})")
    if case.static_restarts:
        # each restart either came back within the session timeout (no rebalance) or after it (a session timeout, then
        # a join of the same group.instance.id): on a loaded machine a new JVM can take longer than the session
        restarts = summary["static_restarts_without_rebalance"] if summary else 0
        expired = [p["count"] for p in (summary["patterns"] if summary else [])
                   if p["kind"] == "static member restart beyond session timeout"]
        if restarts + sum(expired) != case.static_restarts:
            problems.append(f"summary: {restarts} static restarts without rebalance and {sum(expired)} beyond the session "
                            f"timeout, expected {case.static_restarts} in all")
    return problems, said


_CLASSIC_ID = re.compile(r"\b(?P<name>[A-Za-z0-9._-]+?)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
_NUMBERED = re.compile(r"\b(generation|epoch|epoch to|hash) -?\d+")
_TOOK = re.compile(r"\bin \d+ms\b")


def group_log_lines(run: InjectedRun, case: InjectedCause, contains: Sequence[str] = (), since_ms: int = 0,
                    limit: Optional[int] = None) -> List[str]:
    """The broker's log lines about ``case``'s group (those naming its group id), written from the scenario's
    ``since_ms`` on and holding (once made printable) every text of ``contains``, the first ``limit`` of them,
    made printable the same on every run: ``LEVEL message (Logger)`` without the time, the group id as ``<group>``, a classic member id's
    UUID as ``<uuid>`` (the client id before it stays: ``crashe-b-<uuid>``), a consumer-protocol member id as
    ``<id of NAME>`` (named by the members' records), generations, epochs, metadata hashes and durations as ``N``."""
    group = run.groups.get(case.id)
    if group is None or not run.log.exists():
        return []
    start = log_ms(run.t0[case.id] + since_ms) if case.id in run.t0 else 0
    ids = {mid: name for mid, name in run.names.items() if name.startswith(f"{case.id}-") and member_name(mid) is None}
    out: List[str] = []
    for text in run.log.read_text(encoding="utf-8", errors="replace").splitlines():
        if group not in text:
            continue
        rec = split_record(text)
        if rec is None or rec.at_ms < start:
            continue
        message = rec.message.replace(group, "<group>")
        message = _CLASSIC_ID.sub(lambda m: f"{m.group('name')}-<uuid>", message)
        for mid, name in ids.items():
            message = message.replace(mid, f"<id of {name}>")
        message = _TOOK.sub("in N ms", _NUMBERED.sub(lambda m: f"{m.group(1)} N", message))
        if not all(c in message for c in contains):
            continue
        logger = (rec.logger or "").rsplit(".", 1)[-1]
        out.append(f"{rec.level} {message}" + (f" ({logger})" if logger else ""))
        if limit is not None and len(out) >= limit:
            break
    return out


#: what a trigger kind is to a classic coordinator: a poll timeout reaches it as the member's LeaveGroup (its client
#: reason says why), so the simulator, which sends no reason text, names it ``leave``
COORDINATOR_ACTION = {"poll timeout": "leave"}


def simulator_reason_kind(reason: str) -> str:
    """The trigger kind of a reason the book's classic coordinator gives (``ClassicGroup`` as the simulator writes
    it): ``adding member X`` a join, ``removing member X`` a session timeout, ``member X left`` a leave,
    ``static member X replaced``/``changed protocol`` a static replacement, ``removing ... on pending sync
    expiration`` a sync timeout, a known member's JoinGroup (``<its reason>: X``) a rejoin; else ``other``."""
    for pattern, kind in ((r"^adding member ", "join"), (r"^removing .* on pending sync expiration$", "sync timeout"),
                          (r"^removing member ", "session timeout"), (r"^member .* left$", "leave"),
                          (r"^static member .* (?:replaced|changed protocol)", "static replacement"),
                          (r"^[^:]+: \S+$", "rejoin")):
        if re.match(pattern, reason):
            return kind
    return "other"


def simulated_reasons(case: InjectedCause) -> List[Tuple[int, str, str]]:
    """The book's classic simulator on ``case``'s scenario: each rebalance its coordinator started, as (time in
    ms, its reason, :func:`simulator_reason_kind`); empty for a consumer-protocol case."""
    from ..protocol.simulation import GroupSimulation
    from ..simulate import play_scenario

    sim = play_scenario(case.scenario())
    if not isinstance(sim, GroupSimulation):
        return []
    return [(e.time_ms, str(e.fields["reason"]), simulator_reason_kind(str(e.fields["reason"])))
            for e in sim.events if e.actor == sim.coordinator_name and e.kind == "rebalance"]
