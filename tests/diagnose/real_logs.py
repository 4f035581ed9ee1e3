"""Real broker logs under each injected cause: the scenarios, running them on one cluster, and checking ``diagnose``.

Every scenario runs through ``rebalance.kafka.run_scenario(value, cluster=c)`` on ONE ``KafkaCluster``, up to
:data:`CONCURRENT` at a time, each with a group of its own; the broker's ``server.log`` (``c.node(1).dir``) is then
read by ``diagnose``.  A scenario's members are named ``<id>-<x>`` and a static member's ``group.instance.id`` is
its name, so a classic member id (``<client.id or instance id>-<UUID>``) names its scenario and member; a consumer
group's member ids (UUIDs) are named through the records ``run_scenario`` appends to ``REBALANCE_KAFKA_RECORDS``
(each member's ``member_id`` records, written once its client has an id, and its callbacks).  The scenario's end is
its ``clock`` record's ``t0`` + ``until_ms``: the records are those written by then, and then ``run_scenario`` kills
the members' JVMs.

Each :class:`Case` says what must be seen: ``expect``, the triggers (kind, member) that must appear in this order
among the group's rebalances before the scenario's end (``*``: any member of the scenario; ``a|b``: either kind);
``allowed``, the other kinds a rebalance before the end may have (the members' first joins, cooperative
rejoins...).  Every rebalance before the end must name a kind diagnose knows and a member of the scenario.  After
the end the rebalances are mostly the end's own doing: the kill (a session, rebalance or sync timeout of a member)
or the join of a process started just before the end (on a loaded machine a JVM can take seconds to join) that is
killed soon after; they must be of those kinds (:data:`END_KINDS`) or the scenario's, and name a member of the
scenario unless their member id first shows after the end (its records were taken at the end: nothing names it).

``python tests/diagnose/real_logs.py`` runs them all and prints the table (scenario, expected, what diagnose said).
"""
from __future__ import annotations

import datetime
import json
import os
import shutil
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set, Tuple

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
PROTOCOL_TAG = {"eager": "e", "cooperative": "c", "consumer": "k"}
#: what a rebalance after a scenario's end may be besides its own kinds: the kill's timeouts, a late process's join
END_KINDS = ("session timeout", "rebalance timeout", "sync timeout", "join")


@dataclass
class Case:
    """One scenario and what diagnose must say about it."""

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

    def name(self, m: str) -> str:
        return f"{self.id}-{m}"

    def scenario(self) -> dict:
        config = dict(CONSUMER if self.protocol == "consumer" else CLASSIC, **self.config)
        members = [{"id": self.name(m), **({"instance_id": self.name(m)} if m in self.static else {})}
                   for m in self.members]
        events = []
        for at, op, m, down in self.events:
            e = {"at_ms": at, "op": op, "member": self.name(m)}
            if down:
                e["down_ms"] = down
            events.append(e)
        return {"id": self.id, "protocol": self.protocol, "topics": {f"t-{self.id}": self.partitions},
                "members": members, "config": config, "events": events, "until_ms": self.until_ms}


def _cases() -> List[Case]:
    cases: List[Case] = []
    calm = {"session_timeout_ms": 10000}   # a classic static member's restart, with room for a slow JVM start
    for p in ("eager", "cooperative", "consumer"):
        allowed = ("join", "cooperative rejoin") if p == "cooperative" else ("join",)
        tag = PROTOCOL_TAG[p]
        cases += [
            Case(f"join{tag}", p, "join", ["a", "b", "c"], [(5000, "join", "c", 0)], [("join", "c")], allowed=allowed),
            Case(f"leave{tag}", p, "leave", ["a", "b", "c"], [(5000, "leave", "b", 0)], [("leave", "b")],
                 allowed=allowed),
            Case(f"crash{tag}", p, "crash past the session timeout", ["a", "b", "c"], [(5000, "crash", "b", 0)],
                 [("session timeout", "b")], until_ms=12000, allowed=allowed),
            Case(f"poll{tag}", p, "poll timeout (a batch longer than max.poll.interval.ms)", ["a"], [],
                 [("join", "a"), ("poll timeout", "a"), ("join", "a"), ("poll timeout", "a")], until_ms=13000,
                 config={"max_poll_interval_ms": 2000, "poll_processing_ms": 3500}, allowed=allowed + ("poll timeout",),
                 pattern="repeated poll timeouts"),
            Case(f"roll{tag}", p, "rolling restart of dynamic members", ["a", "b", "c"],
                 [(4000, "restart", "a", 0), (7000, "restart", "b", 0), (10000, "restart", "c", 0)],
                 [("leave", "a"), ("join", "a"), ("leave", "b"), ("join", "b"), ("leave", "c"), ("join", "c")],
                 until_ms=15000, allowed=allowed + ("leave",),
                 pattern="rolling restart" if p != "consumer" else None),
            Case(f"static{tag}", p, "static member restart within the session timeout (a replacement)", ["a", "b"],
                 [(5000, "restart", "b", 500)], [], static=["b"], until_ms=9000, allowed=allowed, static_restarts=1,
                 config=calm if p != "consumer" else {}),
            Case(f"storm{tag}", p, "join storm (one member a second)", ["a", "b", "c", "d", "e"],
                 [(1000 * i + 1000, "join", m, 0) for i, m in enumerate("bcde", 1)],
                 [("join", m) for m in "bcde"], until_ms=9000, allowed=allowed, ordered=False,
                 pattern="join storm" if p != "consumer" else None),
        ]
    for p in ("eager", "consumer"):
        tag = PROTOCOL_TAG[p]
        cases += [
            Case(f"beyond{tag}", p, "static member restart beyond the session timeout", ["a", "b"],
                 [(5000, "restart", "b", 6000)], [("session timeout", "b"), ("join", "b")], static=["b"],
                 until_ms=16000, pattern="static member restart beyond session timeout"),
            Case(f"srolling{tag}", p, "rolling restart of static members (within the session timeout)",
                 ["a", "b", "c"], [(5000, "restart", "a", 300), (7000, "restart", "b", 300), (9000, "restart", "c", 300)],
                 [], static=["a", "b", "c"], until_ms=12000, static_restarts=3, config=calm if p != "consumer" else {}),
            Case(f"leavecrash{tag}", p, "a leave and a crash at once", ["a", "b", "c", "d"],
                 [(5000, "leave", "b", 0), (5000, "crash", "c", 0)], [("leave", "b"), ("session timeout", "c")],
                 until_ms=12000),
            Case(f"crashback{tag}", p, "crash, then the same client starts again", ["a", "b"],
                 [(5000, "crash", "b", 0), (11000, "restart", "b", 0)], [("session timeout", "b"), ("join", "b")],
                 until_ms=14000, pattern="restart" if p != "consumer" else None),
        ]
    cases.append(Case("coop2c", "cooperative", "two joins at once, cooperative", ["a", "b", "c", "d"],
                      [(5000, "join", "c", 0), (5000, "join", "d", 0)], [("join", "c|d"), ("join", "c|d")],
                      allowed=("join", "cooperative rejoin")))
    cases.append(Case("revokek", "consumer", "revocation longer than the rebalance timeout (consumer protocol)",
                      ["a", "b", "c"], [(5000, "join", "c", 0)], [("join", "c"), ("rebalance timeout|poll timeout", "*")],
                      until_ms=12000, config={"max_poll_interval_ms": 2000, "revoke_ms": 3500},
                      allowed=("join", "rebalance timeout", "poll timeout", "leave")))
    cases.append(Case("revokee", "eager", "onPartitionsRevoked longer than max.poll.interval.ms (eager)",
                      ["a", "b", "c"], [(5000, "join", "c", 0)], [("join", "c"), ("rebalance timeout|poll timeout", "*")],
                      until_ms=12000, config={"max_poll_interval_ms": 2000, "revoke_ms": 3500},
                      allowed=("join", "poll timeout", "leave", "rejoin", "sync timeout")))
    return cases


CASES = _cases()


def now_ms() -> int:
    """The broker log's clock now (its local wall-clock time, read as the log's times are)."""
    return log_ms(time.time() * 1000)


def log_ms(epoch_ms: float) -> int:
    """The broker log's clock at ``epoch_ms`` (ms since the epoch, ``time.time()``'s clock)."""
    from rebalance.diagnose import split_record

    t = datetime.datetime.fromtimestamp(epoch_ms / 1000)
    record = split_record(f"[{t:%Y-%m-%d %H:%M:%S},{t.microsecond // 1000:03d}] INFO now")
    assert record is not None
    return record.at_ms


@dataclass
class Run:
    """What the cluster did: the copied broker log, each scenario's end (log clock: its ``t0`` + ``until_ms``, or
    when ``run_scenario`` returned if it wrote no clock) and error, member id -> name."""

    log: Path
    ended_ms: Dict[str, int]
    errors: Dict[str, str]
    names: Dict[str, str]
    seconds: float


def run_all(cases: Sequence[Case], folder: Path) -> Run:
    """Run ``cases`` on one cluster and copy its ``server.log`` into ``folder``."""
    from rebalance.kafka import KafkaCluster, run_scenario

    records = folder / "records.jsonl"
    os.environ["REBALANCE_KAFKA_RECORDS"] = str(records)
    ended: Dict[str, int] = {}
    errors: Dict[str, str] = {}
    lock = threading.Lock()
    began = time.monotonic()
    try:
        with KafkaCluster(brokers=1, broker_config=BROKER) as cluster:
            def one(case: Case) -> None:
                try:
                    run_scenario(case.scenario(), cluster=cluster)
                except Exception as exc:  # reported by the test, the other scenarios still run
                    with lock:
                        errors[case.id] = f"{type(exc).__name__}: {exc}"
                with lock:
                    ended[case.id] = now_ms()

            with ThreadPoolExecutor(CONCURRENT) as pool:
                list(pool.map(one, cases))
            time.sleep(SESSION_MS / 1000 + 2)   # the last scenarios' killed members time out
            log = folder / "server.log"
            shutil.copy(cluster.node(1).dir / "server.log", log)
    finally:
        os.environ.pop("REBALANCE_KAFKA_RECORDS", None)
    names: Dict[str, str] = {}
    if records.exists():
        for text in records.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                r = json.loads(text)
            except ValueError:   # two scenarios appending at once may cut a line: the others name the member
                continue
            if isinstance(r, dict) and r.get("member_id") and r.get("member"):
                names[str(r["member_id"])] = str(r["member"])
            if isinstance(r, dict) and r.get("event") == "clock" and r.get("scenario") in ended:
                ended[str(r["scenario"])] = log_ms(int(r["t0"]) + int(r["until_ms"]))
    return Run(log, ended, errors, names, time.monotonic() - began)


def member_of(case: Case, run: Run, trigger: dict) -> Optional[str]:
    """The scenario member (``a``, ``b``...) a trigger names, or ``None``."""
    name = trigger.get("name") or run.names.get(trigger.get("member") or "")
    prefix = f"{case.id}-"
    if name and name.startswith(prefix) and name[len(prefix):] in case.members:
        return name[len(prefix):]
    return None


def group_of(case: Case, run: Run, rebalances: Sequence[dict]) -> Optional[str]:
    """The group whose triggers name this scenario's members."""
    for line in rebalances:
        if member_of(case, run, line["trigger"]) is not None:
            return str(line["group"])
    return None


def check(case: Case, run: Run, lines: Sequence[dict]) -> Tuple[List[str], List[Tuple[str, Optional[str]]]]:
    """(problems, what diagnose said: (kind, member) of each rebalance before the end)."""
    rebalances = [line for line in lines if "trigger" in line]
    group = group_of(case, run, rebalances)
    if group is None:
        return [f"no group of {case.id} found"], []
    mine = [line for line in rebalances if line["group"] == group]
    problems: List[str] = []
    said: List[Tuple[str, Optional[str]]] = []
    end = run.ended_ms.get(case.id)
    from rebalance.diagnose import split_record
    from rebalance.diagnose.groups import member_name

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
        if kind not in case.allowed + ("session timeout",) and not any(kind in k.split("|") for k, _ in case.expect):
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
        got = summary["static_restarts_without_rebalance"] if summary else 0
        expired = [p["count"] for p in (summary["patterns"] if summary else [])
                   if p["kind"] == "static member restart beyond session timeout"]
        if got + sum(expired) != case.static_restarts:
            problems.append(f"summary: {got} static restarts without rebalance and {sum(expired)} beyond the session "
                            f"timeout, expected {case.static_restarts} in all")
    return problems, said


def table(run: Run, lines: Sequence[dict]) -> str:
    """The Markdown table: scenario, cause injected, expected triggers, what diagnose said, verdict."""
    out = ["| scenario | protocol | cause injected | expected (kind, member) | diagnose said (before the end) | ok |",
           "|---|---|---|---|---|---|"]
    for case in CASES:
        problems, said = check(case, run, lines)
        expected = ", ".join(f"{k} {m}" for k, m in case.expect) or "no rebalance but the first joins"
        if case.static_restarts:
            expected += f"; {case.static_restarts} static restart(s) without rebalance"
        if case.pattern:
            expected += f"; pattern: {case.pattern}"
        got = ", ".join(f"{k} {m}" for k, m in said)
        out.append(f"| {case.id} | {case.protocol} | {case.cause} | {expected} | {got} | "
                   f"{'yes' if not problems else 'NO: ' + '; '.join(problems)} |")
    return "\n".join(out)


if __name__ == "__main__":
    from rebalance.diagnose import diagnose

    folder = Path(tempfile.mkdtemp(prefix="diagnose-real-"))
    run = run_all(CASES, folder)
    result = diagnose([str(run.log)])
    lines = list(result.lines())
    print(f"{len(CASES)} scenarios in {run.seconds:.0f} s; errors: {run.errors}; log kept in {folder}")
    print(table(run, lines))
