"""``python -m rebalance simulate FILE --on kafka``: a scenario's members as real consumers on a real broker.

Each scenario gets its own one-broker :class:`~rebalance.kafka.cluster.KafkaCluster` (its broker settings come
from the scenario's ``config``), its topics, and one JVM per member process running
``org.rebalance.consumers.ScenarioMembers`` (the book's Java module): a real ``KafkaConsumer`` of the pinned
release, subscribed with a rebalance listener that records every callback.  The events are played on the wall
clock, 1:1: ``join`` sends the member's JVM its start command, ``leave`` makes it call ``close()``, ``crash``
kills its JVM with SIGKILL (no LeaveGroup, no more heartbeats: the coordinator finds out at the session
timeout, as when a process dies), ``restart`` closes it (as ``leave``) and, once ``close()`` has returned (and the event's ``down_ms`` later), starts
a new consumer with the same ``client.id`` and ``group.instance.id`` in a fresh JVM.  Every JVM is started and
warm before the scenario's clock starts, so a join is not delayed by the JVM's start.

The output lines are ``simulate``'s, plus ``"replayed"`` on each rebalance line:

* classic (``eager``, ``cooperative``): the assignment strategy is ``RecordingAssignor`` -- Kafka's built-in
  assignor of the scenario's name, wrapped to record what the leader gave it and returned.  A rebalance is
  completed when the leader's ``onPartitionsAssigned`` runs (its SyncGroup answered: the group is ``Stable``),
  at that time, with that generation and the leader's assignment.  ``replayed``: :func:`rebalance.consumer.assign`
  returns the same assignment for exactly the recorded subscriptions (member ids, topics, owned partitions,
  generations, instance ids, user data, in the leader's map order);
* ``consumer`` (KIP-848): an ``Admin`` polls ``describeConsumerGroups`` every :data:`OBSERVE_INTERVAL_MS`; a
  rebalance is completed at the first description where every member's epoch is the group epoch, the target
  assignment is of that epoch and every member owns its target.  ``replayed``:
  :func:`rebalance.kip848.assign_group` returns the broker's target assignment from the members of that epoch
  (real member ids and topic ids) and the last target assignment observed before it (the broker computes a
  target only when a member heartbeats after an epoch bump, so one target often follows another two epochs
  older).  When that does not reproduce it (the polls missed a target: members joining within milliseconds of
  each other), each order of the joins in between is replayed, one target per join, and one that reproduces
  the broker's target counts.

The scenario's ``config`` fields become Kafka settings where Kafka has one (:data:`CLASSIC_SETTINGS`,
:data:`CONSUMER_SETTINGS`); a field the cluster cannot run (``network_ms``...) set in a scenario is an error line
naming it, as is a topic name Kafka refuses or a run longer than :data:`MAX_WALL_MS`.
"""
from __future__ import annotations

import base64
import itertools
import json
import os
import queue
import re
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union, cast

from ..errors import LiveClientError, WaitTimeoutError, require
from ..protocol.driver import CompletedRebalance, format_assignment
from ..protocol.ledger import OwnershipLedger
from ..simulate import SimulationInput, moved_partitions, parse_scenario
from ..vectors import Line, compute_lines
from .oracle import classpath, find_java

__all__ = ["MAIN_CLASS", "run_scenario", "simulate_lines_on_kafka", "check_runnable", "CLASSIC_SETTINGS",
           "CONSUMER_SETTINGS", "MAX_WALL_MS", "OBSERVE_INTERVAL_MS"]

MAIN_CLASS = "org.rebalance.consumers.ScenarioMembers"
#: the longest scenario (``until_ms``) a run on the wall clock accepts
MAX_WALL_MS = 600_000
#: how often the KIP-848 observer describes the group
OBSERVE_INTERVAL_MS = 50
#: the JVM flags of each member's JVM (small and quick to start, as the broker's)
MEMBER_JVM_OPTIONS = ("-Xms16m", "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData")

_ASSIGNOR_CLASS = {"range": "Range", "roundrobin": "RoundRobin", "sticky": "Sticky",
                   "cooperative-sticky": "CooperativeSticky"}
#: classic ``config`` fields -> ("client" | "broker", Kafka setting); the rest of the poll loop is emulated:
#: ``revoke_ms`` is slept in onPartitionsRevoked, ``poll_processing_ms``/``max_poll_records`` *
#: ``record_processing_ms`` after each poll (the topics stay empty)
CLASSIC_SETTINGS = {
    "session_timeout_ms": ("client", "session.timeout.ms"),
    "heartbeat_interval_ms": ("client", "heartbeat.interval.ms"),
    "max_poll_interval_ms": ("client", "max.poll.interval.ms"),
    "max_poll_records": ("client", "max.poll.records"),
    "retry_backoff_ms": ("client", "retry.backoff.ms"),
    "initial_rebalance_delay_ms": ("broker", "group.initial.rebalance.delay.ms"),
    "group_min_session_timeout_ms": ("broker", "group.min.session.timeout.ms"),
    "group_max_session_timeout_ms": ("broker", "group.max.session.timeout.ms"),
}
#: ``consumer`` (KIP-848) ``config`` fields -> settings; the session timeout and heartbeat interval are the
#: broker's (``group.consumer.*``, their minimums lowered to match)
CONSUMER_SETTINGS = {
    "session_timeout_ms": ("broker", "group.consumer.session.timeout.ms"),
    "heartbeat_interval_ms": ("broker", "group.consumer.heartbeat.interval.ms"),
    "max_poll_interval_ms": ("client", "max.poll.interval.ms"),
    "max_poll_records": ("client", "max.poll.records"),
    "assignor": ("client", "group.remote.assignor"),
}
_EMULATED = {"revoke_ms", "poll_processing_ms", "record_processing_ms"}
_TOPIC = re.compile(r"^[a-zA-Z0-9._-]{1,249}$")


def check_runnable(value: Mapping[str, Any], s: SimulationInput) -> None:
    """Refuse, naming the field, what a real cluster cannot run: a config field with no Kafka setting, a topic
    name Kafka refuses or without partitions, a run longer than :data:`MAX_WALL_MS`."""
    known = CONSUMER_SETTINGS if s.protocol == "consumer" else CLASSIC_SETTINGS
    config = value.get("config") or {}
    for key in config:
        require(key in known or key in _EMULATED, f"config.{key}",
                f"has no Kafka setting a real cluster can run (--on kafka runs {', '.join(sorted(set(known) | _EMULATED))})")
    for name, count in s.topics.items():
        require(name not in (".", "..") and bool(_TOPIC.match(name)), f"topics.{name}",
                "is not a Kafka topic name (1-249 characters of a-z A-Z 0-9 . _ -)")
        require(count >= 1, f"topics.{name}", "a Kafka topic needs at least one partition")
    require(s.until_ms <= MAX_WALL_MS, "until_ms",
            f"--on kafka runs on the wall clock; at most {MAX_WALL_MS} ms, got {s.until_ms}")


def _settings(s: SimulationInput) -> Tuple[Dict[str, str], Dict[str, Union[str, int, float, bool]], int, int]:
    """(client settings, broker settings, revoke_ms, batch_ms) of a scenario."""
    c = s.config
    table = CONSUMER_SETTINGS if s.protocol == "consumer" else CLASSIC_SETTINGS
    client: Dict[str, str] = {}
    # one partition of __consumer_offsets: created at once (the members' group is made ready before the clock)
    broker: Dict[str, Union[str, int, float, bool]] = {"group.initial.rebalance.delay.ms": 0, "offsets.topic.num.partitions": 1}
    for name, (where, setting) in table.items():
        v = getattr(c, name)
        if where == "client":
            client[setting] = str(v)
        else:
            broker[setting] = v
    if s.protocol == "consumer":
        client["group.protocol"] = "consumer"
        broker["group.consumer.min.session.timeout.ms"] = min(45000, c.session_timeout_ms)
        broker["group.consumer.min.heartbeat.interval.ms"] = min(5000, c.heartbeat_interval_ms)
    else:
        client["group.protocol"] = "classic"
        client["partition.assignment.strategy"] = ",".join(
            f"org.rebalance.consumers.RecordingAssignor${_ASSIGNOR_CLASS[a]}" for a in s.assignors)
    client.update({"enable.auto.commit": "false", "auto.offset.reset": "earliest"})
    return client, broker, int(c.revoke_ms), int(c.batch_ms)


class _Jvm:
    """One JVM of the Java module that speaks JSON lines (``ScenarioMembers`` unless ``main_class`` says
    otherwise; also the share-group driver's ``ShareMembers``): commands on stdin, records on stdout, which go
    to the shared queue as (jvm, record)."""

    def __init__(self, index: int, out: "queue.Queue[Tuple[int, dict]]", main_class: str = MAIN_CLASS,
                 options: Sequence[str] = MEMBER_JVM_OPTIONS):
        self.index = index
        cmd = [find_java(), *options, "-cp", classpath(), main_class]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, encoding="utf-8", bufsize=1, start_new_session=True)
        self._reader = threading.Thread(target=self._read, args=(out,), daemon=True)
        self._reader.start()

    def _read(self, out: "queue.Queue[Tuple[int, dict]]") -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                out.put((self.index, json.loads(line)))
            except ValueError:
                out.put((self.index, {"event": "error", "message": f"not JSON: {line[:200]}"}))

    def send(self, obj: dict) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(obj) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, 9)
            except ProcessLookupError:
                pass
        self.proc.wait()


@dataclass
class _Run:
    """Every record of one scenario's run, by JVM, in each JVM's order."""

    records: Dict[int, List[dict]] = field(default_factory=dict)
    jvm_member: Dict[int, str] = field(default_factory=dict)


class _Player:
    def __init__(self, s: SimulationInput, bootstrap: str):
        self.s = s
        self.bootstrap = bootstrap
        self.q: "queue.Queue[Tuple[int, dict]]" = queue.Queue()
        self.run = _Run()
        self.jvms: List[_Jvm] = []

    def _new_jvm(self) -> _Jvm:
        j = _Jvm(len(self.jvms), self.q)
        self.jvms.append(j)
        self.run.records[j.index] = []
        return j

    def _drain(self, timeout: float = 0.0) -> Optional[Tuple[int, dict]]:
        try:
            item = self.q.get(timeout=timeout) if timeout > 0 else self.q.get_nowait()
        except queue.Empty:
            return None
        self.run.records[item[0]].append(item[1])
        return item

    def _wait_for(self, pred: Callable[[int, dict], bool], timeout: float, what: str) -> Tuple[int, dict]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise WaitTimeoutError(f"--on kafka: no {what} within {timeout:.0f} s")
            item = self._drain(min(left, 0.2))
            if item and pred(*item):
                return item

    def play(self) -> _Run:
        s = self.s
        client, _, revoke_ms, batch_ms = _settings(s)
        group = f"rebalance-{uuid.uuid4().hex[:8]}"
        client.update({"bootstrap.servers": self.bootstrap, "group.id": group})
        # one JVM per member process: the first run of each member, and one more per restart
        incarnations: Dict[str, List[_Jvm]] = {m.id: [self._new_jvm()] for m in s.members}
        for e in s.events:
            if e.op == "restart":
                incarnations[e.member].append(self._new_jvm())
        admin = self._new_jvm()
        for j in self.jvms:
            j.send({"op": "ping", "bootstrap": self.bootstrap})
        pending = {j.index for j in self.jvms}
        while pending:
            idx, rec = self._wait_for(lambda i, r: r.get("event") == "pong", 60, "answer from a member JVM")
            pending.discard(idx)
        admin.send({"op": "create_topics", "bootstrap": self.bootstrap, "topics": s.topics, "group": group})
        _, rec = self._wait_for(lambda i, r: i == admin.index and r.get("event") in ("topics_created", "error"),
                                60, "topic creation")
        if rec.get("event") == "error":
            raise LiveClientError(f"--on kafka: topic creation failed: {rec.get('message')}")
        t0 = int(time.time() * 1000)
        if s.protocol == "consumer":
            admin.send({"op": "observe", "bootstrap": self.bootstrap, "group": group, "t0": t0,
                        "interval_ms": OBSERVE_INTERVAL_MS, "topics": sorted(s.topics)})
        by_id = {m.id: m for m in s.members}
        current: Dict[str, Optional[_Jvm]] = {m.id: None for m in s.members}
        used: Dict[str, int] = {m.id: 0 for m in s.members}

        def start(name: str) -> None:
            j = incarnations[name][used[name]]
            used[name] += 1
            m = by_id[name]
            props = dict(client)
            if m.instance_id is not None:
                props["group.instance.id"] = m.instance_id
            j.send({"op": "start", "member": name, "t0": t0, "topics": list(m.topics), "props": props,
                    "revoke_ms": revoke_ms, "batch_ms": batch_ms})
            self.run.jvm_member[j.index] = name
            current[name] = j

        def close(name: str, wait: bool) -> None:
            j = current[name]
            if j is None:
                return
            j.send({"op": "leave", "member": name})
            current[name] = None
            if wait:
                self._wait_for(lambda i, r: i == j.index and r.get("event") in ("closed", "error"),
                               max(60, s.config.max_poll_interval_ms / 1000 + 10), f"close() of {name}")

        def at(ms: int) -> None:
            while True:
                left = (t0 + ms) / 1000 - time.time()
                if left <= 0:
                    return
                self._drain(min(left, 0.1))

        joins = {e.member for e in s.events if e.op == "join"}
        for m in s.members:
            if m.id not in joins:
                start(m.id)
        for e in s.events:
            at(e.at_ms)
            if e.op == "join":
                start(e.member)
            elif e.op == "leave":
                close(e.member, wait=False)
            elif e.op == "crash":
                victim = current[e.member]
                if victim is not None:
                    victim.kill()
                    self.run.records[victim.index].append({"member": e.member, "event": "killed",
                                                      "t": int(time.time() * 1000) - t0})
                    current[e.member] = None
            else:
                close(e.member, wait=True)
                if e.down_ms:  # the new process starts down_ms after close() returned
                    at(int(time.time() * 1000) - t0 + e.down_ms)
                start(e.member)
        at(s.until_ms)
        return self.run

    def stop(self) -> None:
        for j in self.jvms:
            j.kill()
        while self._drain() is not None:
            pass


# ---------------------------------------------------------------------------------------------
# what the records say


def _tps(texts: Iterable[str]) -> List[Tuple[str, int]]:
    out = []
    for text in texts:
        topic, _, p = text.rpartition("-")
        out.append((topic, int(p)))
    return out


def _names(run: _Run, s: SimulationInput) -> Dict[str, str]:
    """Kafka member id -> scenario member id, from each member's own callbacks (``groupMetadata().memberId()``)."""
    names: Dict[str, str] = {}
    for idx, recs in run.records.items():
        for r in recs:
            if r.get("member_id") and r.get("member") in {m.id for m in s.members}:
                names[r["member_id"]] = r["member"]
    return names


def _name_of(member_id: str, names: Mapping[str, str], s: SimulationInput, instance_id: Optional[str] = None) -> str:
    if member_id in names:
        return names[member_id]
    for m in s.members:
        if instance_id is not None and m.instance_id == instance_id:
            return m.id
    prefix = member_id[:-37] if len(member_id) > 37 and member_id[-37] == "-" else member_id
    return next((m.id for m in s.members if m.id == prefix or m.instance_id == prefix), member_id)


def classic_rebalances(run: _Run, s: SimulationInput) -> List[Tuple[CompletedRebalance, bool]]:
    """The completed rebalances of a classic group: each leader's ``onPartitionsAssigned`` that follows its
    assignor's record, with whether :func:`rebalance.consumer.assign` replays the recorded assignment."""
    from ..consumer import assign
    from ..consumer.model import Subscription

    names = _names(run, s)
    found: Dict[int, Tuple[CompletedRebalance, bool]] = {}
    for idx, recs in run.records.items():
        last = None
        for r in recs:
            if r.get("event") == "assignor":
                last = r
            elif r.get("event") == "assigned" and last is not None:
                gen = int(r.get("generation", -1))
                subs = {}
                for sub in last["subscriptions"]:
                    ud = sub.get("user_data")
                    subs[sub["member_id"]] = Subscription(
                        list(sub["topics"]), _tps(sub["owned"]), sub.get("generation"), sub.get("instance_id"),
                        sub.get("rack"), base64.b64decode(ud) if ud is not None else None)
                recorded = {m: sorted(_tps(p)) for m, p in last["assignment"].items()}
                try:
                    replay = assign(last["name"], last["partitions"], subs)
                    replayed = {m: sorted(p) for m, p in replay.items()} == recorded
                except Exception:  # the book's assignor refusing Kafka's inputs is a failed replay, not a crash
                    replayed = False
                instances = {sub["member_id"]: sub.get("instance_id") for sub in last["subscriptions"]}
                assignment = format_assignment({_name_of(m, names, s, instances.get(m)): tps
                                                for m, tps in recorded.items()})
                if gen not in found:
                    found[gen] = (CompletedRebalance(gen, int(r["t"]), assignment), replayed)
                last = None
    return [found[g] for g in sorted(found, key=lambda g: found[g][0].at_ms)]


def _target_by_name(members: List[dict]) -> Dict[str, Dict[str, List[int]]]:
    out: Dict[str, Dict[str, List[int]]] = {}
    for m in members:
        by_topic: Dict[str, List[int]] = {}
        for t, p in _tps(m.get("target", [])):
            by_topic.setdefault(t, []).append(p)
        out[m["member_id"]] = {t: sorted(p) for t, p in by_topic.items()}
    return out


def _replay_848(s: SimulationInput, topics: list, members: List[dict], prev: Dict[str, Dict[str, List[int]]],
                subs: Mapping[str, List[str]]) -> Dict[str, Dict[str, List[int]]]:
    from ..kip848 import assign_group

    specs = [{"id": m["member_id"], "subscriptions": list(subs[m["member_id"]]), "assignment": prev.get(m["member_id"], {}),
              "instance_id": m.get("instance_id")} for m in members]
    result = assign_group(s.assignors[0], topics, specs, members_map="hash").by_name()
    return {m: {t: p for t, p in a.items() if p} for m, a in result.items()}


def kip848_rebalances(run: _Run, s: SimulationInput) -> List[Tuple[CompletedRebalance, bool]]:
    """The completed rebalances of a KIP-848 group, from the observer's descriptions (see the module docstring)."""
    recs = [r for idx, rs in run.records.items() for r in rs if r.get("event") in ("group", "topic_ids")]
    ids: Dict[str, str] = next((r["ids"] for r in recs if r["event"] == "topic_ids"), {})
    topics = [{"name": t, "id": ids[t], "partitions": n} for t, n in sorted(s.topics.items()) if t in ids]
    by_member = {m.id: m for m in s.members}
    snaps = [r for r in recs if r["event"] == "group"]
    targets: Dict[int, List[dict]] = {}
    for r in snaps:
        if r["target_epoch"] > 0 and r["target_epoch"] not in targets:
            targets[r["target_epoch"]] = r["members"]
    out: List[Tuple[CompletedRebalance, bool]] = []
    done = set()
    for r in snaps:
        e = r["group_epoch"]
        ms = r["members"]
        if e <= 0 or e in done or r["target_epoch"] != e or not ms:
            continue
        if not all(m["member_epoch"] == e and m.get("target") is not None and m["assignment"] == m["target"] for m in ms):
            continue
        done.add(e)
        assignment = format_assignment({_name_of(m["member_id"], {}, s, m.get("instance_id")) if m["client_id"] not in by_member
                                        else m["client_id"]: _tps(m["assignment"]) for m in ms})
        out.append((CompletedRebalance(e, int(r["t"]), assignment), _replayed_848(s, topics, targets, e)))
    return out


def _replayed_848(s: SimulationInput, topics: list, targets: Dict[int, List[dict]], epoch: int) -> bool:
    by_member = {m.id: m for m in s.members}
    now = targets.get(epoch)
    if now is None or not topics:
        return False
    subs = {m["member_id"]: list(by_member[m["client_id"]].topics) if m["client_id"] in by_member else sorted(s.topics)
            for es in targets.values() for m in es}
    want = _target_by_name(now)
    want = {m: {t: p for t, p in a.items() if p} for m, a in want.items()}
    seen = [k for k in targets if k < epoch]
    prev_epoch = max(seen) if seen else 0
    prev_members = targets.get(prev_epoch, [])
    prev = _target_by_name(prev_members)
    try:
        # the broker computes a target only when a member heartbeats after a group-epoch bump, so the target of
        # an epoch often comes straight from an older one: first from the last target observed before it
        if _replay_848(s, topics, now, prev, subs) == want:
            return True
        # else from targets the polls missed: every order of the members that joined in between, one each
        before = {m["member_id"] for m in prev_members}
        after = {m["member_id"]: m for m in now}
        added = [m for m in after if m not in before]
        if not before <= set(after) or len(added) < 2 or len(added) > 5:
            return False
        for order in itertools.permutations(added):
            members = [after[m] for m in after if m in before]
            target = prev
            for m in order:
                members = members + [after[m]]
                target = _replay_848(s, topics, members, target, subs)
            if target == want:
                return True
        return False
    except Exception:
        return False


def ownership(s: SimulationInput, run: _Run) -> OwnershipLedger:
    """Who processed which partition when, from the listener's callbacks: each member process (JVM) owns a
    partition from the ``onPartitionsAssigned`` that gave it to the ``onPartitionsRevoked``/``Lost`` that took
    it, or to the process's kill (``crash``).  The same ledger as the simulators' (eager callbacks carry the
    whole assignment, cooperative and KIP-848 ones the change: adding and removing covers both)."""
    partitions = [(t, p) for t in sorted({t for m in s.members for t in m.topics}) for p in range(s.topics[t])]
    ledger = OwnershipLedger(partitions)
    events = sorted(((r["t"], k, idx, r) for idx, recs in run.records.items() for k, r in enumerate(recs)
                     if r.get("event") in ("assigned", "revoked", "lost", "killed") and "t" in r),
                    key=lambda x: (x[0], x[2], x[1]))
    owned: Dict[int, set] = {}
    for t, _, idx, r in events:
        who = f"jvm{idx}"
        mine = owned.setdefault(idx, set())
        if r["event"] == "assigned":
            got = _tps(r.get("partitions", []))
            ledger.acquire(who, got, t)
            mine.update(got)
        else:
            gone = sorted(mine) if r["event"] == "killed" else _tps(r.get("partitions", []))
            ledger.release(who, gone, t, "crash" if r["event"] == "killed" else r["event"])
            mine.difference_update(gone)
    return ledger


def summary(s: SimulationInput, rebalances: List[CompletedRebalance], run: _Run) -> Dict[str, Any]:
    """What the records measure over ``[measure_from_ms, until_ms)``: completed rebalances, moved partitions,
    ``unowned_partition_seconds`` (subscribed partitions no process owned, from :func:`ownership`),
    ``ownership_overlaps`` (instants at which a partition got a second owner while a live process still held
    it: the simulator's ``double_ownership`` plus ``zombie_overlap``, which clients cannot tell apart),
    revocations (callbacks that gave up partitions) and the partitions they stopped, lost callbacks, and the
    last generation (classic) or group epoch (KIP-848).  ``simulate``'s ``messages``, ``rebalances_started``
    and ``settled`` are the broker's and are not measured here."""
    since = s.measure_from_ms
    ledger = ownership(s, run)
    cb = [r for rs in run.records.values() for r in rs
          if r.get("event") in ("revoked", "lost") and since <= r.get("t", -1) < s.until_ms]
    revocations = [r for r in cb if r["event"] == "revoked" and r["partitions"]]
    return {"rebalances": sum(1 for r in rebalances if r.at_ms >= since),
            "moved_partitions": moved_partitions(rebalances, since),
            "unowned_partition_seconds": round(ledger.unowned_ms(since, s.until_ms) / 1000.0, 3),
            "ownership_overlaps": sum(1 for t, _, _ in ledger.violations if since <= t < s.until_ms),
            "revocations": len(revocations),
            "partitions_stopped": sum(len(r["partitions"]) for r in cb),
            "lost": sum(1 for r in cb if r["event"] == "lost" and r["partitions"]),
            "generation": rebalances[-1].generation if rebalances else 0,
            "errors": [r["message"] for rs in run.records.values() for r in rs if r.get("event") == "error"]}


def run_scenario(value: object, cluster: Optional[Any] = None) -> List[dict]:
    """One scenario on a cluster of its own: its rebalance lines (with ``replayed``) and its summary line.

    ``cluster``: a running :class:`~rebalance.kafka.cluster.KafkaCluster` to run it on instead (each scenario
    still gets a group of its own; its topics must not exist there yet).  Every broker setting the scenario needs
    must be the cluster's, with the same value, else an :class:`~rebalance.errors.InputError` names the field;
    ``group.initial.rebalance.delay.ms`` is not asked of a ``consumer`` scenario (only classic groups wait it,
    ``GroupMetadataManager.prepareRebalance``).

    Defined in chapter 13, *Watch real clients rebalance*."""
    import contextlib

    from .cluster import KafkaCluster
    from .settings import config_value

    s = parse_scenario(value)
    scenario = cast(Mapping[str, Any], value)  # parse_scenario accepted it: a JSON object
    check_runnable(scenario, s)
    _, broker, _, _ = _settings(s)
    if cluster is not None:
        fields = {setting: name for name, (where, setting) in
                  (CONSUMER_SETTINGS if s.protocol == "consumer" else CLASSIC_SETTINGS).items() if where == "broker"}
        for key, v in broker.items():
            if s.protocol == "consumer" and key == "group.initial.rebalance.delay.ms":
                continue
            have = cluster.broker_config.get(key)
            require(have == config_value(key, v), f"config.{fields[key]}" if key in fields else "cluster",
                    f"the cluster runs {key}={have if have is not None else '(Kafka default)'}, "
                    f"the scenario needs {config_value(key, v)}")
        require(cluster.running, "cluster", "is not running")
    with (KafkaCluster(brokers=1, broker_config=broker) if cluster is None else contextlib.nullcontext(cluster)) as c:
        player = _Player(s, c.bootstrap_servers)
        try:
            run = player.play()
        finally:
            player.stop()
    keep = os.environ.get("REBALANCE_KAFKA_RECORDS")
    if keep:  # every record of the run, for a reader who wants the callbacks themselves
        with open(keep, "a", encoding="utf-8") as f:
            for idx, recs in sorted(run.records.items()):
                for r in recs:
                    f.write(json.dumps({"scenario": scenario.get("id"), "jvm": idx, **r}) + "\n")
    found = kip848_rebalances(run, s) if s.protocol == "consumer" else classic_rebalances(run, s)
    rows: List[dict] = [{"generation": r.generation, "at_ms": r.at_ms, "assignment": r.assignment, "replayed": ok}
                        for r, ok in found]
    return rows + [{"summary": summary(s, [r for r, _ in found], run)}]


def simulate_lines_on_kafka(lines: Iterable[Line], write: Callable[[dict], None]) -> Tuple[int, int]:
    """``simulate --on kafka``: each scenario run on a real broker (see the module docstring); a bad scenario
    gets its error line naming the field and the others still run."""
    return compute_lines(lines, write, run_scenario)
