"""``python -m rebalance simulate FILE --on kafka``: a scenario's members as real consumers on a real broker.

Each scenario gets its own one-broker :class:`~rebalance.kafka.cluster.KafkaCluster` (its broker settings come
from the scenario's ``config``), its topics, and JVMs running ``org.rebalance.consumers.ScenarioMembers`` (the
book's Java module): one per process of a member that crashes or restarts, and one for all the other members (and
the admin and observer), each member a real ``KafkaConsumer`` of the pinned release on a thread of its own,
subscribed with a rebalance listener that records every callback.  The events are played on the wall
clock, 1:1: ``join`` sends the member's JVM its start command, ``leave`` makes it call ``close()``, ``crash``
kills its JVM with SIGKILL (no LeaveGroup, no more heartbeats: the coordinator finds out at the session
timeout, as when a process dies), ``subscribe`` makes it call ``subscribe(topics)`` again with the event's
topics (a subscription change), ``restart`` closes it (as ``leave``) and, once ``close()`` has returned (and the event's ``down_ms`` later), starts
a new consumer with the same ``client.id`` and ``group.instance.id`` in a fresh JVM.  Every JVM is started and
warm, and every member process's ``KafkaConsumer`` made (``prepare``), before the scenario's clock starts: a
member's start at its time only subscribes and polls, so members that start at the same time start together and
a join is not delayed by the JVM's start or the client's construction.

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

The members speak :mod:`rebalance.kafka.jsonlines` (each JVM a :class:`~rebalance.kafka.jsonlines_jvm.JsonLinesJvm`):
a member JVM that dies unasked is a :class:`~rebalance.errors.LiveClientError` with the tail of its stderr within
a fraction of a second, a wait that runs out a :class:`~rebalance.errors.WaitTimeoutError`.  What the records
say (the rebalances, their replays, ownership, the summary) is :mod:`rebalance.kafka.consumer_records`; an
exception inside the book's assignor while replaying propagates (``replayed`` is ``false`` only when it returns
another assignment).

The scenario's ``config`` fields become Kafka settings where Kafka has one (:data:`CLASSIC_SETTINGS`,
:data:`CONSUMER_SETTINGS`); a field the cluster cannot run (``network_ms``...) set in a scenario is an error line
naming it, as is a topic name Kafka refuses or a run longer than :data:`MAX_WALL_MS`.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Tuple, Union, cast

from ..kip848.config import KIP848Config
from ..validation import require
from ..simulate import MemberInput, SimulationInput, kind_compute, parse_scenario
from ..vectors import Line, compute_lines
from .consumer_records import ConsumerRun, classic_rebalances, kip848_rebalances, summary
from .jsonlines import ConsumerRecord, ConsumerStart, Subscribe
from .jsonlines_jvm import JsonLinesJvm, pause

__all__ = ["MAIN_CLASS", "run_scenario", "member_settings", "simulate_lines_on_kafka", "check_runnable", "driver_poll_ms", "DRIVER_POLL_MS", "broker_config_for",
           "CLASSIC_SETTINGS", "CONSUMER_SETTINGS", "MAX_WALL_MS", "OBSERVE_INTERVAL_MS", "MEMBER_HEAP"]

MAIN_CLASS = "org.rebalance.consumers.ScenarioMembers"
#: the longest scenario (``until_ms``) a run on the wall clock accepts
MAX_WALL_MS = 600_000
#: how often the KIP-848 observer describes the group
OBSERVE_INTERVAL_MS = 50
#: the heap of each member's JVM (its other flags: :data:`rebalance.kafka.jvm.CLIENT_JVM_OPTIONS`)
MEMBER_HEAP = "128m"
#: how long a member JVM may take to start, to warm up, or the topics to be created
_START_S = 60.0


_ASSIGNOR_CLASS = {"range": "Range", "roundrobin": "RoundRobin", "sticky": "Sticky",
                   "cooperative-sticky": "CooperativeSticky"}
#: classic ``config`` fields -> ("client" | "broker", Kafka setting); the rest of the poll loop is emulated:
#: ``revoke_ms`` is slept in onPartitionsRevoked, ``poll_processing_ms``/``max_poll_records`` *
#: ``record_processing_ms`` after each poll while the member owns partitions (a full batch, as the simulators
#: assume; the topics stay empty; a member's own ``poll_processing_ms`` for that member), nothing while it owns
#: none (since 2026-11-30: before, every poll was followed by a batch, so an eager member that had revoked
#: everything still answered the group a batch later than the simulator's); a classic member's ``poll()`` lasts
#: ``poll_timeout_ms`` while it owns partitions and processes batches (0, the default: it returns at once, as the
#: simulator's does), :data:`DRIVER_POLL_MS` otherwise
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
#: ``consumer`` (KIP-848) ``config`` fields -> settings; the session timeout, heartbeat interval and assignment
#: interval are the broker's (``group.consumer.*``, the first two's minimums lowered to match)
CONSUMER_SETTINGS = {
    "session_timeout_ms": ("broker", "group.consumer.session.timeout.ms"),
    "heartbeat_interval_ms": ("broker", "group.consumer.heartbeat.interval.ms"),
    "max_poll_interval_ms": ("client", "max.poll.interval.ms"),
    "max_poll_records": ("client", "max.poll.records"),
    "assignor": ("client", "group.remote.assignor"),
    "assignment_interval_ms": ("broker", "group.consumer.assignment.interval.ms"),
}
_EMULATED = {"revoke_ms", "poll_processing_ms", "record_processing_ms", "poll_timeout_ms"}
#: the timeout of the driver's ``poll()`` (``ScenarioMembers.IDLE_POLL_MS``) when a member owns nothing or
#: processes nothing, and always for a KIP-848 member (whose ``poll()`` the simulator does not model): on empty
#: topics the consumer loops until then, acting on each response as it arrives, as the simulators' member that
#: processes nothing acts at once.  Before 2026-11-30 every classic member polled this long, whatever the scenario
#: said (the recorded peer runs; ``bench_kafka_peer.with_driver_poll``)
DRIVER_POLL_MS = 100
#: broker settings left to the cluster when the scenario has Kafka's default (a cluster started without them,
#: as chapter 9's, runs the scenario): the assignment interval of Kafka 4.3 (``GroupCoordinatorConfig``, 1 s)
_BROKER_DEFAULTS = {"group.consumer.assignment.interval.ms": KIP848Config().assignment_interval_ms}
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
    """(client settings, broker settings, revoke_ms, batch_ms) of a scenario (the client settings of its
    protocol's members; :func:`member_settings` gives each member its own)."""
    c = s.config
    table = CONSUMER_SETTINGS if s.protocol == "consumer" else CLASSIC_SETTINGS
    client: Dict[str, str] = {}
    # one partition of __consumer_offsets: created at once (the members' group is made ready before the clock)
    broker: Dict[str, Union[str, int, float, bool]] = {"group.initial.rebalance.delay.ms": 0, "offsets.topic.num.partitions": 1}
    for name, (where, setting) in table.items():
        v = getattr(c, name)
        if where == "client":
            client[setting] = str(v)
        elif not (setting in _BROKER_DEFAULTS and v == _BROKER_DEFAULTS[setting]):
            broker[setting] = v
    if s.protocol == "consumer":
        client["group.protocol"] = "consumer"
        broker["group.consumer.min.session.timeout.ms"] = min(45000, c.session_timeout_ms)
        broker["group.consumer.min.heartbeat.interval.ms"] = min(5000, c.heartbeat_interval_ms)
    elif s.mixed:  # the KIP-848 members get the scenario's session timeout and heartbeat from the broker
        broker["group.consumer.session.timeout.ms"] = c.session_timeout_ms
        broker["group.consumer.heartbeat.interval.ms"] = c.heartbeat_interval_ms
        broker["group.consumer.min.session.timeout.ms"] = min(45000, c.session_timeout_ms)
        broker["group.consumer.min.heartbeat.interval.ms"] = min(5000, c.heartbeat_interval_ms)
    if s.protocol != "consumer":
        client["group.protocol"] = "classic"
        client["partition.assignment.strategy"] = ",".join(
            f"org.rebalance.consumers.RecordingAssignor${_ASSIGNOR_CLASS[a]}" for a in s.assignors)
    client.update({"enable.auto.commit": "false", "auto.offset.reset": "earliest"})
    return client, broker, int(c.revoke_ms), int(c.batch_ms)


def member_settings(s: SimulationInput, client: Mapping[str, str], member: MemberInput) -> Dict[str, str]:
    """A member's client settings: the scenario's, or, for a member whose own ``group_protocol`` is ``consumer``
    in a classic scenario (a group being migrated), ``group.protocol=consumer`` without the settings that
    ``ConsumerConfig`` refuses with it (``partition.assignment.strategy``, ``session.timeout.ms``,
    ``heartbeat.interval.ms``: the broker's ``group.consumer.*`` hold the scenario's values) and with the broker's
    default assignor (no ``group.remote.assignor``)."""
    props = dict(client)
    if s.protocol != "consumer" and s.group_protocol_of(member) == "consumer":
        for key in ("partition.assignment.strategy", "session.timeout.ms", "heartbeat.interval.ms"):
            props.pop(key, None)
        props["group.protocol"] = "consumer"
    return props


def driver_poll_ms(s: SimulationInput, member: MemberInput) -> int:
    """The timeout of ``member``'s ``poll()`` while it owns partitions and processes batches: the scenario's
    ``poll_timeout_ms`` for a classic member (0 by default: ``poll()`` returns at once, as the simulator's does);
    :data:`DRIVER_POLL_MS` for a KIP-848 member, whose ``poll()`` the simulator does not model."""
    if s.group_protocol_of(member) == "consumer":
        return DRIVER_POLL_MS
    return int(getattr(s.config, "poll_timeout_ms"))


class _Player:
    """Plays one scenario on a running broker (see the module docstring): one :class:`JsonLinesJvm` per process
    of a member that crashes or restarts and one for the other members, the admin and the observer, in a folder
    of their own."""

    def __init__(self, s: SimulationInput, bootstrap: str, on_clock: Optional[Callable[[int, str], None]] = None):
        self.s = s
        self.on_clock = on_clock
        self.bootstrap = bootstrap
        self.folder = Path(tempfile.mkdtemp(prefix="rebalance-members-"))
        self.run = ConsumerRun()
        self.jvms: List[JsonLinesJvm[ConsumerRecord]] = []

    def _new_jvm(self) -> JsonLinesJvm[ConsumerRecord]:
        k = len(self.jvms)
        j: JsonLinesJvm[ConsumerRecord] = JsonLinesJvm(f"jvm{k}", MAIN_CLASS, self.folder,
                                                       f"member JVM {k} (ScenarioMembers)", heap=MEMBER_HEAP,
                                                       companions=self.jvms)
        self.jvms.append(j)  # held before it is spawned: stop() reaches it even if the spawn is interrupted
        j.spawn()
        return j

    def _watch_until(self, wall_s: float) -> None:
        """Until the wall clock reads ``wall_s`` (``time.time()``), every JVM not stopped on purpose checked
        alive every 0.2 s."""
        pause(self.jvms, max(0.0, wall_s - time.time()))

    def play(self) -> ConsumerRun:
        s = self.s
        client, _, revoke_ms, batch_ms = _settings(s)
        group = f"rebalance-{uuid.uuid4().hex[:8]}"
        client.update({"bootstrap.servers": self.bootstrap, "group.id": group})
        # a member that crashes or restarts gets a JVM per process (its first run, one more per restart): a crash
        # kills its JVM; the members that do neither run side by side in one JVM, with the admin and observer
        own = {e.member for e in s.events if e.op in ("crash", "restart")}
        shared = self._new_jvm()
        shared.what = "member JVM 0 (ScenarioMembers: the members that neither crash nor restart, the admin)"
        incarnations = {m.id: [self._new_jvm() if m.id in own else shared] for m in s.members}
        for e in s.events:
            if e.op == "restart":
                incarnations[e.member].append(self._new_jvm())
        for j in self.jvms:
            j.await_ready(_START_S)
        warming = [(j, j.ask({"op": "warm", "bootstrap": self.bootstrap})) for j in self.jvms]
        for j, since in warming:
            j.answer({"op": "warm"}, "warmed", _START_S, since)
        shared.request({"op": "create_topics", "bootstrap": self.bootstrap, "topics": dict(s.topics), "group": group},
                       "topics_created", _START_S)
        # every member process's consumer made before the clock starts, so that members that start at the same
        # time start together (a start only subscribes and polls)
        by_id = {m.id: m for m in s.members}
        preparing = []
        for name, js in incarnations.items():
            m = by_id[name]
            props = member_settings(s, client, m)
            if m.instance_id is not None:
                props["group.instance.id"] = m.instance_id
            command: ConsumerStart = {"op": "prepare", "member": name, "topics": list(m.topics), "props": props,
                                      "revoke_ms": revoke_ms,
                                      "batch_ms": batch_ms if m.poll_processing_ms is None else m.poll_processing_ms,
                                      "poll_ms": driver_poll_ms(s, m)}
            for j in js:
                if j is not shared:
                    j.what = f"the JVM of member {name} (ScenarioMembers, JVM {self.jvms.index(j)})"
                preparing.append((j, command, j.ask(command)))
        for j, command, since in preparing:
            j.answer(command, "prepared", _START_S, since)
        t0 = int(time.time() * 1000)
        self.run.t0 = t0
        if self.on_clock is not None:
            self.on_clock(t0, group)
        current: Dict[str, Optional[JsonLinesJvm[ConsumerRecord]]] = {m.id: None for m in s.members}
        used = {m.id: 0 for m in s.members}
        if s.protocol == "consumer" or s.mixed:
            shared.send({"op": "observe", "bootstrap": self.bootstrap, "group": group, "t0": t0,
                         "interval_ms": OBSERVE_INTERVAL_MS, "topics": sorted(s.topics)})

        def start(name: str) -> None:
            j = incarnations[name][used[name]]
            used[name] += 1
            j.send({"op": "start", "member": name, "t0": t0})  # the consumer prepare() made
            current[name] = j

        def close(name: str, wait: bool) -> None:
            j = current[name]
            if j is None:
                return
            current[name] = None
            j.leave(name, max(60, s.config.max_poll_interval_ms / 1000 + 10) if wait else None)

        joins = {e.member for e in s.events if e.op == "join"}
        for m in s.members:
            if m.id not in joins:
                start(m.id)
        for e in s.events:
            self._watch_until((t0 + e.at_ms) / 1000)
            if e.op == "join":
                start(e.member)
            elif e.op == "leave":
                close(e.member, wait=False)
            elif e.op == "subscribe":
                running = current[e.member]
                if running is not None:
                    change: Subscribe = {"op": "subscribe", "member": e.member, "topics": list(e.topics)}
                    running.send(change)
            elif e.op == "crash":
                victim = current[e.member]
                if victim is not None:
                    victim.kill()
                    victim.note({"member": e.member, "event": "killed", "t": int(time.time() * 1000) - t0})
                    current[e.member] = None
            else:
                close(e.member, wait=True)
                if e.down_ms:  # the new process starts down_ms after close() returned
                    self._watch_until(time.time() + e.down_ms / 1000)
                start(e.member)
        self._watch_until((t0 + s.until_ms) / 1000)
        # each running member's rebalance and poll metrics (KafkaConsumer.metrics()) at the scenario's end
        asked = [(name, j, j.ask({"op": "metrics", "member": name})) for name, j in current.items() if j is not None]
        for name, j, since in asked:
            j.answer({"op": "metrics", "member": name}, "metrics", _START_S, since)
        return self.records()

    def records(self) -> ConsumerRun:
        """Every record so far, by member process: each JVM's records split by the member they name (in the
        JVM's order; a JVM runs a member once at most, so a member of a JVM is one process), the records that
        name none (warm-up, topics, observer) a process of their own."""
        self.run.records, self.run.process_member = {}, {}
        for j in self.jvms:
            by_member: Dict[Optional[str], List[ConsumerRecord]] = {}
            for r in list(j.records):
                by_member.setdefault(r.get("member"), []).append(r)
            for name, recs in by_member.items():
                k = len(self.run.records)
                self.run.records[k] = recs
                if name is not None:
                    self.run.process_member[k] = name
        return self.run

    def stop(self) -> int:
        """Stop every JVM (SIGKILL) and remove the folder; returns how many were still running."""
        running = sum(1 for j in self.jvms if j.process.running)
        for j in self.jvms:
            j.stop()
        shutil.rmtree(self.folder, ignore_errors=True)
        return running


def broker_config_for(values: Iterable[object]) -> Dict[str, Union[str, int, float, bool]]:
    """The broker settings a :class:`~rebalance.kafka.cluster.KafkaCluster` needs to run every scenario of
    ``values`` with :func:`run_scenario` (``cluster=``): the union of each scenario's (a ``consumer`` scenario
    does not ask for the classic ``group.initial.rebalance.delay.ms``).  Two scenarios that need different
    values of one setting cannot share a cluster: an :class:`~rebalance.errors.InputError` names the second
    one's field (``[1].config``)."""
    merged: Dict[str, Union[str, int, float, bool]] = {}
    for i, value in enumerate(values):
        s = parse_scenario(value)
        _, broker, _, _ = _settings(s)
        for key, v in broker.items():
            if s.protocol == "consumer" and key == "group.initial.rebalance.delay.ms":
                continue
            require(key not in merged or str(merged[key]) == str(v), f"[{i}].config",
                    f"needs {key}={v}, an earlier scenario {key}={merged.get(key)}: they cannot share a cluster")
            merged[key] = v
    return merged


def run_scenario(value: object, cluster: Optional[Any] = None,
                 on_clock: Optional[Callable[[int, str], None]] = None) -> List[Dict[str, Any]]:
    """One scenario on a cluster of its own: its rebalance lines (with ``replayed``) and its summary line.

    ``cluster``: a running :class:`~rebalance.kafka.cluster.KafkaCluster` to run it on instead (each scenario
    still gets a group of its own; its topics must not exist there yet).  Every broker setting the scenario needs
    must be the cluster's, with the same value, else an :class:`~rebalance.errors.InputError` names the field;
    ``group.initial.rebalance.delay.ms`` is not asked of a ``consumer`` scenario (only classic groups wait it,
    ``GroupMetadataManager.prepareRebalance``).  Ctrl-C stops the member JVMs and the cluster it started before
    the ``KeyboardInterrupt`` goes on, its message saying what was stopped.  With ``REBALANCE_KAFKA_RECORDS=FILE``
    it appends to FILE a ``clock`` record (``t0``: the wall clock of ``t`` = 0, ms since the epoch; ``until_ms``)
    and every record its JVMs wrote by ``until_ms``, each with its ``scenario`` (and ``process``: the member
    process, an index in the run), and then each member still running's ``metrics`` record (its
    ``KafkaConsumer.metrics()`` of rebalances and polls at ``until_ms``).  ``on_clock(t0, group)``, when given,
    is called as the scenario's clock starts, with its ``t0``
    (ms since the epoch) and its group id (to look at the group from outside while it runs).

    Defined in chapter 10, *Watch real clients rebalance*."""
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
    stopped = 0
    began = time.monotonic()
    try:
        with (KafkaCluster(brokers=1, broker_config=broker) if cluster is None else contextlib.nullcontext(cluster)) as c:
            player = _Player(s, c.bootstrap_servers, on_clock)
            try:
                run = player.play()
            finally:
                stopped = player.stop()
    except KeyboardInterrupt:
        where = "its one-broker Kafka cluster" if cluster is None else "nothing of the cluster it was given"
        raise KeyboardInterrupt(f"scenario {scenario.get('id', '?')!r} stopped {time.monotonic() - began:.0f} s in: "
                                f"{stopped} member JVM(s) killed and {where} stopped") from None
    keep = os.environ.get("REBALANCE_KAFKA_RECORDS")
    if keep:  # every record of the run, for a reader who wants the callbacks themselves
        with open(keep, "a", encoding="utf-8") as f:
            # the records' clock: t = 0 is the wall clock's t0 (ms since the epoch), the scenario ends at until_ms
            f.write(json.dumps({"scenario": scenario.get("id"), "event": "clock", "t": 0, "t0": run.t0,
                                "until_ms": s.until_ms}) + "\n")
            for idx, recs in sorted(run.records.items()):
                for r in recs:
                    f.write(json.dumps({"scenario": scenario.get("id"), "process": idx, **r}) + "\n")
    if s.mixed:  # a migration: the classic generations the leader assigned and the epochs the broker assigned
        found = sorted(classic_rebalances(run, s) + kip848_rebalances(run, s), key=lambda f: f[0].at_ms)
    else:
        found = kip848_rebalances(run, s) if s.protocol == "consumer" else classic_rebalances(run, s)
    rows: List[Dict[str, Any]] = [{"generation": r.generation, "at_ms": r.at_ms, "assignment": r.assignment,
                                      "replayed": ok} for r, ok in found]
    return rows + [{"summary": summary(s, [r for r, _ in found], run)}]


def simulate_lines_on_kafka(lines: Iterable[Line], write: Callable[[Dict[str, Any]], None]) -> Tuple[int, int]:
    """``simulate --on kafka``: each scenario run on a real broker (see the module docstring); a bad scenario
    gets its error line naming the field and the others still run."""
    def compute(value: object) -> List[Dict[str, Any]]:
        other = kind_compute(value, on_kafka=True)
        return other(value) if other is not None else run_scenario(value)

    return compute_lines(lines, write, compute)



