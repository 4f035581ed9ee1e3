"""``simulate --on kafka`` for ``"kind": "streams"``: a Streams scenario with real ``KafkaStreams`` instances.

The scenario (:mod:`rebalance.streams.simulate`) is played on the wall clock (1:1) on a one-broker
:class:`~rebalance.kafka.cluster.KafkaCluster` of its own (or one given), by the driver of chapter 15
(:class:`~rebalance.kafka.streams.StreamsInstances`: ``stream(input).groupByKey().count()``, no record cache, a
commit every 500 ms): one JVM per member process, each started before the clock, with its own ``state.dir``,
where the member's process id (the scenario's) is written first (``StateDirectory``'s
``kafka-streams-process-metadata``: Kafka Streams reads its process id from there), so both sides break ties
between the same UUIDs.  The initial members start together (``group.initial.rebalance.delay.ms`` 3 s gathers
them into one rebalance), then ``records`` records are produced (keys ``k0``... in turn) and counted; then the
clock starts.  ``join`` starts the member's instance; ``leave`` closes it with ``LEAVE_GROUP``; ``crash`` kills
its JVM (SIGKILL: no leave, the group waits for its session); ``restart`` is a leave (or nothing, after a
crash) then, ``down_ms`` later, the instance again on the same state directory (after a crash, in a fresh JVM).
An operator's ``set_config`` is refused (an :class:`~rebalance.errors.InputError` naming ``events[i].op``): the
driver starts each instance with its settings and cannot change them on running instances; the simulator has it.

Classic protocol: each rebalance the group leader logged (:mod:`~rebalance.kafka.streams.assignor_log`, from
every JVM's log, in time order) is a line -- ``assignment`` what ``HighAvailabilityTaskAssignor`` answered
(standbys with warm-ups), ``warmups`` the book's for the logged inputs (Kafka does not log which standbys are
warm-ups), ``moved`` the active tasks a client still in the group ran before and another got, ``followup`` what
the leader logged, ``probing`` when the previous rebalance scheduled a probe and this one came at least
``probing.rebalance.interval.ms`` after it -- and ``replayed``: the book's ``HighAvailabilityTaskAssignor``, given
the logged clients, answers the logged assignment and asks for the follow-up the leader asked for
(:func:`~rebalance.kafka.streams.compare_rebalance`).  The rebalances before the clock starts (the initial
instances do not always join at once) are one line at ``at_ms`` 0, the last of them, with ``start_rebalances``
their number and ``replayed`` if each was.

Streams protocol (KIP-1071): the group is described over and over (``describeStreamsGroups``); an assignment
is completed at the first description where the target epoch is the group epoch and every member has the group
epoch and runs its target's active tasks (a member's epoch moves on while tasks it is to get are still revoked); ``replayed``: the book's broker-side ``StickyTaskAssignor`` (``num.standby.replicas`` from the
broker's ``group.streams.num.standby.replicas``) given the members of the description before the epoch changed,
with their target tasks, in the coordinator's member-map order, answers the described target assignment.  The
group is described from before the first instance starts, so that the start's epochs (one per instance joining;
with 4.3's ``group.streams.assignment.interval.ms`` the first member alone gets every task, and the later
targets are sticky to that) are replayed each from the one before; they are one line at ``at_ms`` 0, the last,
replayed if each was.
"""
from __future__ import annotations

import contextlib
import datetime
import json
import re
import shutil
import tempfile
import time
import typing
import uuid
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from ...common import JsonRecord
from ...streams import AssignmentMemberSpec, GroupSpec, StickyTaskAssignor, Subtopology, Topology
from ...streams.simulate import StreamsScenarioInput, parse_streams_scenario
from ...validation import require
from ..jsonlines import StreamsRecord
from .instances import StreamsInstances
from .replay import compare_rebalance, predict_rebalance, streams_configs

__all__ = ["run_streams_scenario", "streams_broker_config", "replay_streams_group", "MAX_STREAMS_WALL_MS"]

#: the longest streams scenario (``until_ms``) a run on the wall clock accepts
MAX_STREAMS_WALL_MS = 400_000
_TOPIC = re.compile(r"^[a-zA-Z0-9._-]{1,200}$")
_START_S = 90.0
_SETTLE_S = 120.0


def streams_broker_config(s: StreamsScenarioInput) -> Dict[str, Union[str, int, float, bool]]:
    """The broker settings a scenario needs: the initial members gathered into one rebalance, the classic
    group's minimum session timeout lowered to the scenario's; for the streams protocol its session timeout,
    heartbeat interval and standbys as the broker's ``group.streams.*`` settings (minimums lowered to let them)."""
    session, hb = int(str(s.config["session.timeout.ms"])), int(str(s.config["heartbeat.interval.ms"]))
    out: Dict[str, Union[str, int, float, bool]] = {"group.initial.rebalance.delay.ms": 3000, "group.streams.initial.rebalance.delay.ms": 3000,
                              "offsets.topic.num.partitions": 1}
    if s.protocol == "classic":
        out["group.min.session.timeout.ms"] = min(session, 6000)
    else:
        standbys = int(str(s.config["num.standby.replicas"]))
        out.update({"group.streams.session.timeout.ms": session, "group.streams.min.session.timeout.ms": min(session, 45000),
                    "group.streams.heartbeat.interval.ms": hb, "group.streams.min.heartbeat.interval.ms": min(hb, 5000),
                    "group.streams.num.standby.replicas": standbys, "group.streams.max.standby.replicas": max(standbys, 2)})
    return out


def _settings(s: StreamsScenarioInput, topic: str, state_dir: Path) -> Dict[str, object]:
    c = s.config
    out: Dict[str, object] = {"num.stream.threads": c["num.stream.threads"], "statestore.cache.max.bytes": 0,
                              "commit.interval.ms": 500, "state.dir": str(state_dir), "rebalance.input.topic": topic}
    if s.protocol == "classic":
        for key in ("acceptable.recovery.lag", "max.warmup.replicas", "num.standby.replicas",
                    "probing.rebalance.interval.ms", "session.timeout.ms", "heartbeat.interval.ms"):
            out[key] = c[key]
    else:
        out["group.protocol"] = "streams"
    return out


def _wall_ms(stamp: str) -> int:
    """A log4j timestamp (local time) as ms since the epoch."""
    return int(datetime.datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").timestamp() * 1000)


class _StreamsPlayer:
    """The JVMs of one scenario: per member its JVMs (a fresh one after each crash) and one for the group's admin."""

    def __init__(self, s: StreamsScenarioInput, bootstrap: str):
        self.s = s
        self.bootstrap = bootstrap
        tag = uuid.uuid4().hex[:8]
        self.app_id = f"sim-{tag}"
        self.topic = f"{s.topic}-{tag}"
        self.folder = Path(tempfile.mkdtemp(prefix="rebalance-streams-scenario-"))
        self.jvms: Dict[str, List[StreamsInstances]] = {}
        self.current: Dict[str, int] = {}
        self.admin: Optional[StreamsInstances] = None
        self.descriptions: List[Tuple[int, StreamsRecord]] = []
        self.changes: List[int] = []  # wall ms of every membership event
        self.t0 = 0
        self.counted = 0

    def _app(self, member: str, create: bool = False) -> StreamsInstances:
        state = self.folder / member
        app = StreamsInstances(self.bootstrap, topic=self.topic, partitions=self.s.partitions,
                               application_id=self.app_id, settings=_settings(self.s, self.topic, state),
                               create_topic=create)
        app.start()
        return app

    def _now(self) -> int:
        return int(time.time() * 1000) - self.t0

    def _all_tasks(self) -> Dict[str, Tuple[List[str], List[str], str]]:
        out: Dict[str, Tuple[List[str], List[str], str]] = {}
        for apps in self.jvms.values():
            for app in apps:
                if app.jvm is not None and not app.jvm.stopped:
                    out.update(app.tasks())
        return out

    def _running(self) -> List[str]:
        return [m for m, apps in self.jvms.items() for a in apps if a.jvm is not None and not a.jvm.stopped
                for _ in a.running]

    def _wait_settled(self, timeout: float, quiet_s: float = 3.0) -> None:
        deadline = time.monotonic() + timeout
        last, since = None, time.monotonic()
        want = sorted(f"0_{p}" for p in range(self.s.partitions))
        while time.monotonic() < deadline:
            self._describe()
            now = self._all_tasks()
            if now != last:
                last, since = now, time.monotonic()
            actives = sorted(t for a, _, _ in now.values() for t in a)
            ok = len(now) == len(self._running()) and all(st == "RUNNING" for _, _, st in now.values()) and actives == want
            if ok and time.monotonic() - since >= quiet_s:
                return
            time.sleep(0.2)
        raise TimeoutError(f"the Streams instances did not settle within {timeout:g} s: {last}")

    def _count(self) -> int:
        return sum(a.count() for apps in self.jvms.values() for a in apps if a.jvm is not None and not a.jvm.stopped
                   and a.running)

    def _describe(self) -> None:
        """With the streams protocol: one description of the group, kept with the scenario's time."""
        if self.s.protocol == "streams" and self.admin is not None:
            try:
                g = self.admin.describe_group()
                self.descriptions.append((self._now(), g))
            except Exception:  # the group may not exist yet
                pass

    def _wait_until(self, at_ms: int) -> None:
        """Until the scenario's clock reads ``at_ms``: describing the streams group over and over (streams
        protocol), or checking the JVMs are alive."""
        while self._now() < at_ms:
            if self.s.protocol == "streams" and self.admin is not None:
                self._describe()
                time.sleep(0.05)
            else:
                time.sleep(min(0.2, max(0.0, (at_ms - self._now()) / 1000)))

    def play(self) -> None:
        s = self.s
        first = True
        crashes = {m.id: 0 for m in s.members}
        for e in s.events:
            if e.op == "crash" and e.member is not None:
                crashes[e.member] += 1
        for m in s.members:  # the process id first: Kafka Streams reads it from its state directory
            meta = self.folder / m.id / self.app_id / "kafka-streams-process-metadata"
            meta.parent.mkdir(parents=True)
            meta.write_text(json.dumps({"processId": str(m.process_id)}), encoding="utf-8")
            self.jvms[m.id] = [self._app(m.id, create=first)]
            first = False
            for _ in range(crashes[m.id]):
                self.jvms[m.id].append(self._app(m.id))
            self.current[m.id] = 0
        self.admin = self._app("admin")
        # the start is described too (the group's epochs as the instances join, before the scenario's clock),
        # so that its target assignment is replayed from the one before it; its times are moved to the clock below
        self.t0 = int(time.time() * 1000)
        self._describe()  # the admin client's first call is slow (the group does not exist yet): made before the start
        joins = {e.member for e in s.events if e.op == "join"}
        for m in s.members:
            if m.id not in joins:
                self.jvms[m.id][0].start_instance(m.id)
                self._describe()
        self._wait_settled(_SETTLE_S)
        if s.records:
            self.admin.produce(s.records, s.keys)
            deadline = time.monotonic() + _SETTLE_S
            while self._count() != s.records:
                require(time.monotonic() < deadline, "records", f"the instances did not count {s.records} records")
                time.sleep(0.5)
        start = int(time.time() * 1000)
        self.descriptions = [(t - (start - self.t0), g) for t, g in self.descriptions]
        self.t0 = start
        for e in s.events:
            self._wait_until(e.at_ms)
            self.changes.append(self._now())
            name = e.member or ""
            app = self.jvms[name][self.current[name]]
            if e.op == "join":
                app.start_instance(name)
            elif e.op == "leave":
                app.stop_instance(name)
            elif e.op == "crash":
                assert app.jvm is not None
                app.jvm.kill()
                self.current[name] += 1
            else:  # restart
                if name in app.running and app.jvm is not None and not app.jvm.stopped:
                    app.stop_instance(name)
                self._wait_until(self._now() + e.down_ms)
                self.jvms[name][self.current[name]].start_instance(name)
        self._wait_until(s.until_ms)
        with contextlib.suppress(Exception):
            self.counted = self._count()

    def logs(self) -> List[str]:
        return [a.log_file.read_text(errors="replace") for apps in self.jvms.values() for a in apps
                if a.jvm is not None and a.log_file.exists()]

    def stop(self) -> None:
        for apps in self.jvms.values():
            for a in apps:
                a.stop()
        if self.admin is not None:
            self.admin.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


def _classic_rows(s: StreamsScenarioInput, player: _StreamsPlayer, logs: List[str]) -> List[JsonRecord]:
    from .assignor_log import parse_rebalances

    configs = streams_configs(s.config)
    rebalances = sorted((r for log in logs for r in parse_rebalances(log)), key=lambda r: r.logged_at)
    rows: List[JsonRecord] = []
    prev_at: Optional[int] = None
    prev_probe = False
    for k, r in enumerate(rebalances, 1):
        at = max(0, _wall_ms(r.logged_at) - player.t0) if r.logged_at else 0
        result = predict_rebalance(r, configs)
        name = {p: r.instances.get(p, "?") for p in r.assignment}
        new_owner = {t: p for p, (a, _) in r.assignment.items() for t in a}
        moved = sum(1 for p, c in r.clients.items() for t in c["prev_active"] if new_owner.get(t, p) != p)
        followup = "immediate" if r.immediate_followup else "probing" if r.probing_scheduled else None
        probing = bool(prev_probe and prev_at is not None and at - prev_at >= configs.probing_rebalance_interval_ms - 1000
                       and not any(prev_at < c <= at for c in player.changes))
        replayed = all(row["equal"] for row in compare_rebalance(r, configs)) and \
            r.followup_as_predicted(result.probing_rebalance_needed)
        rows.append({"generation": k, "at_ms": at,
                     "assignment": {name[p]: {"active": [str(t) for t in a], "standby": [str(t) for t in sb]}
                                    for p, (a, sb) in sorted(r.assignment.items(), key=lambda kv: name[kv[0]])},
                     "moved": moved,
                     "warmups": {name[p]: [str(t) for t in sorted(ts)] for p, ts in sorted(
                         result.warmups.items(), key=lambda kv: name.get(kv[0], "?")) if ts and p in name},
                     "probing": probing, "followup": followup, "replayed": replayed})
        prev_at, prev_probe = at, r.probing_scheduled
    # the rebalances of the start (before the clock) as one line: the last, replayed if every one was
    start = [r for r in rows if r["at_ms"] == 0 and typing_int(r["generation"]) <= _before_clock(rebalances, player.t0)]
    if len(start) > 1:
        start[-1]["replayed"] = all(r["replayed"] for r in start)
        start[-1]["start_rebalances"] = len(start)
        rows = [start[-1]] + rows[len(start):]
    return rows


def _before_clock(rebalances: List[Any], t0: int) -> int:
    """How many of the rebalances (in time order) completed before the clock started."""
    return sum(1 for r in rebalances if not r.logged_at or _wall_ms(r.logged_at) <= t0)


def replay_streams_group(before: StreamsRecord, after: StreamsRecord, partitions: int, standbys: int) -> bool:
    """Whether the book's ``StickyTaskAssignor`` answers ``after``'s target assignment, given the members of
    ``before`` still in the group with their target tasks, then the newcomers, in a ``HashMap`` as the
    coordinator fills it (``TargetAssignmentBuilder``), and ``num.standby.replicas`` ``standbys``."""
    now = {m["member_id"] for m in after["members"]}
    seen = {m["member_id"] for m in before["members"]}

    def spec(m: Mapping[str, Any], target: bool) -> AssignmentMemberSpec:
        t = m["target_assignment"] if target else {"active": [], "standby": []}
        return AssignmentMemberSpec(
            process_id=m["process_id"],
            active_tasks={"0": frozenset(int(x.split("_")[1]) for x in t["active"])} if t["active"] else {},
            standby_tasks={"0": frozenset(int(x.split("_")[1]) for x in t["standby"])} if t["standby"] else {})

    members = [(m["member_id"], spec(m, True)) for m in before["members"] if m["member_id"] in now]
    members += [(m["member_id"], spec(m, False)) for m in after["members"] if m["member_id"] not in seen]
    result = StickyTaskAssignor().assign(GroupSpec.of(members, {"num.standby.replicas": str(standbys)}),
                                         Topology([Subtopology("0", partitions, stateful=True)]))
    for m in after["members"]:
        got = result.members.get(m["member_id"])
        if got is None:
            return False
        if ([f"0_{p}" for p in sorted(got.active_tasks.get("0", ()))] != sorted(m["target_assignment"]["active"], key=_task)
                or [f"0_{p}" for p in sorted(got.standby_tasks.get("0", ()))]
                != sorted(m["target_assignment"]["standby"], key=_task)):
            return False
    return True


def _task(text: str) -> Tuple[int, int]:
    a, b = text.split("_")
    return int(a), int(b)


def _streams_rows(s: StreamsScenarioInput, player: _StreamsPlayer) -> List[JsonRecord]:
    rows: List[JsonRecord] = []
    standbys = int(str(s.config["num.standby.replicas"]))
    last_epoch = -1
    latest: Optional[StreamsRecord] = None
    before: Dict[int, Optional[StreamsRecord]] = {}
    last_completed: Optional[StreamsRecord] = None
    last_owner: Dict[str, str] = {}
    start: List[JsonRecord] = []
    for t, g in player.descriptions:
        epoch = g["group_epoch"]
        before.setdefault(epoch, latest)
        latest = g
        members = g["members"]
        if epoch <= last_epoch or not members or g["target_epoch"] != epoch \
                or any(m["member_epoch"] != epoch or sorted(m["assignment"]["active"]) != sorted(
                    m["target_assignment"]["active"]) for m in members):
            continue  # a member whose tasks another still revokes has its epoch before it has its target
        named = {m["instance"]: {"active": sorted(m["assignment"]["active"], key=_task),
                                 "standby": sorted(m["assignment"]["standby"], key=_task)}
                 for m in sorted(members, key=lambda m: m["instance"])}
        empty = typing.cast(StreamsRecord, {"members": []})  # a group formed from nothing had no members before
        replayed = any(replay_streams_group(b if b is not None else empty, g, s.partitions, standbys)
                       for b in (before[epoch], last_completed))
        moved = sum(1 for inst, a in named.items() for task in a["active"]
                    if last_owner.get(task, inst) != inst and last_owner.get(task) in named)
        rows.append({"generation": epoch, "at_ms": max(0, t), "assignment": named, "moved": moved, "warmups": {},
                     "probing": False, "followup": None, "replayed": replayed})
        if t <= 0:
            start.append(rows.pop())
        last_epoch, last_completed = epoch, g
        last_owner = {task: inst for inst, a in named.items() for task in a["active"]}
    # the rebalances of the start (before the clock) as one line: the last, replayed if every one was
    if start:
        rows.insert(0, dict(start[-1], moved=0, replayed=all(r["replayed"] for r in start)))
    return rows


def _summary(s: StreamsScenarioInput, player: _StreamsPlayer, rows: List[JsonRecord]) -> JsonRecord:
    last_change = max(player.changes, default=0)
    after = [r for r in rows if typing_int(r["at_ms"]) >= last_change]
    balanced: Optional[int] = None
    for k, r in enumerate(after):
        if r["followup"] is None:
            balanced = sum(1 for x in after[:k + 1] if x["probing"])
            break
    return {"rebalances": len(rows), "generation": max((typing_int(r["generation"]) for r in rows), default=0),
            "probing_rebalances": sum(1 for r in rows if r["probing"]),
            "warmups": sum(len(v) for r in rows for v in typing_dict(r["warmups"]).values()),
            "moved": sum(typing_int(r["moved"]) for r in rows),
            "settled": bool(rows) and rows[-1]["followup"] is None, "probing_until_balanced": balanced,
            "replayed": all(r["replayed"] for r in rows), "records_counted": player.counted}


def typing_int(value: object) -> int:
    return int(str(value))


def typing_dict(value: object) -> Dict[str, List[str]]:
    return value if isinstance(value, dict) else {}


def run_streams_scenario(value: object, cluster: Optional[Any] = None) -> List[JsonRecord]:
    """One ``kind: streams`` scenario on a real broker (see the module docstring): its completed rebalances (with
    ``replayed``) and its summary line.  ``cluster``: a running :class:`~rebalance.kafka.cluster.KafkaCluster`
    with the scenario's broker settings (:func:`streams_broker_config`), else one is started and stopped."""
    from ..cluster import KafkaCluster

    s = parse_streams_scenario(value)
    require(s.until_ms <= MAX_STREAMS_WALL_MS, "until_ms",
            f"--on kafka runs on the wall clock; at most {MAX_STREAMS_WALL_MS} ms, got {s.until_ms}")
    require(bool(_TOPIC.match(s.topic)), f"topics.{s.topic}", "is not a Kafka topic name (a-z A-Z 0-9 . _ -)")
    raw_events = value.get("events", []) if isinstance(value, Mapping) else []
    for i, e in enumerate(raw_events if isinstance(raw_events, list) else []):
        require(not (isinstance(e, Mapping) and e.get("op") == "set_config"), f"events[{i}].op",
                "the real driver starts each instance with its settings and cannot change a running application's "
                "(set_config runs only in the simulator)")
    broker = streams_broker_config(s)
    if cluster is not None:
        for key, v in broker.items():
            if key.startswith("group.streams.") and not key.endswith("initial.rebalance.delay.ms"):
                require(cluster.broker_config.get(key) == str(v), "cluster", f"needs {key}={v}")
    with (KafkaCluster(brokers=1, broker_config=broker) if cluster is None else contextlib.nullcontext(cluster)) as c:
        player = _StreamsPlayer(s, c.bootstrap_servers)
        try:
            player.play()
            logs = player.logs()
        finally:
            player.stop()
    rows = _classic_rows(s, player, logs) if s.protocol == "classic" else _streams_rows(s, player)
    return rows + [{"summary": _summary(s, player, rows)}]
