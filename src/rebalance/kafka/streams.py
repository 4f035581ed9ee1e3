"""A real Kafka Streams application on a real broker, its rebalances set next to the book's KIP-441 assignor.

:class:`StreamsInstances` runs the Java module's ``org.rebalance.streams.StreamsInstances``: one JVM holding N
:class:`KafkaStreams` clients of one stateful application (``stream(input).groupByKey().count()``, a
changelog-backed store ``counts``; one subtopology, so one task ``0_p`` per input partition).  Each instance is a
Streams client of its own -- its own ``client.id`` (the instance name ``i1``, ``i2``, ...), ``state.dir`` (and so
its own process id, which Kafka Streams keeps there) and stream threads -- in one JVM to save the machine three
JVM start-ups; nothing is shared between them but the JVM.  The instances run on a broker of
:class:`rebalance.kafka.cluster.KafkaCluster` with the classic group protocol (``group.protocol=classic``, the
default), so the group leader's ``StreamsPartitionAssignor`` runs ``HighAvailabilityTaskAssignor``.

What is recorded, per instance: its ``StateListener`` transitions and each change of
``KafkaStreams.metadataForLocalThreads()`` (active and standby tasks; a warm-up replica is a standby to the client),
as JSON lines; and, in the JVM's log, the leader's ``StreamsPartitionAssignor`` lines of every rebalance
(``StreamsPartitionAssignor.java`` at 4.3.1):

* ``DEBUG`` "Assigning tasks and {} standby replicas to client nodes {}" (line 790) -- every client's
  ``ClientState`` *before* the assignor runs: process id, previous active and standby tasks, the offset sums its
  subscription reported, the lags computed from them (``taskLagTotals``), client tags and capacity;
* "Assigning stateful tasks: {} and stateless tasks: {}" (line 786) and "{} client nodes and {} consumers
  participating in this rebalance" (line 775: which consumers, so which instance, each process id is);
* "Assignment of tasks to nodes: {}" (line 851) -- every client's active and standby tasks *after* it;
* "Requesting followup rebalance be scheduled by {} for {} to probe for caught-up replica tasks." (line 1170) --
  the probing rebalance, and "... scheduled immediately by {} due to tasks changing ownership." (line 1163).

:func:`parse_rebalances` reads those lines into :class:`StreamsRebalance`\\ s; :func:`predict_rebalance` gives the same
clients (process ids, capacities, previous tasks, lags) and the application's configs to the book's
:class:`rebalance.streams.HighAvailabilityTaskAssignor`; :func:`compare_rebalance` sets the two side by side, per process.
:func:`scale_out_and_in` plays the scenario of chapter 15: two instances with state, a third joining (warm-ups,
a probing rebalance scheduled), optionally the probing rebalance ``probing.rebalance.interval.ms`` (at least
60 s, ``StreamsConfig``) later, and one instance leaving.

Every JVM runs in its own process group with a parent-death signal; :meth:`StreamsInstances.stop` -- on leaving
the ``with`` block, on an error, and at interpreter exit -- kills it and removes its folder.
"""
from __future__ import annotations

import json
import queue
import re
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ..errors import IllegalStateError, JavaUnavailableError, RebalanceError, require
from ..streams import (AssignmentConfigs, AssignmentMemberSpec, AssignmentResult, ClientState, GroupSpec,
                       HighAvailabilityTaskAssignor, ProcessId, StickyTaskAssignor, Subtopology, TaskId, Topology)
from .cluster import (DEFAULT_JVM_OPTIONS, KafkaCluster, _kill_and_reap, _pdeathsig_prefix, _remove_dir,
                      _StartedInWith, _stopped_at_exit,
                      broker_classpath, log4j2_properties)
from .oracle import find_java, java_module

__all__ = ["STREAMS_BROKER_CONFIG", "STREAMS_GROUP_SETTINGS", "STREAMS_SETTINGS", "sticky_prediction", "StreamsInstances", "StreamsRebalance", "StreamsScenario",
           "compare_rebalance", "parse_rebalances", "predict_rebalance", "scale_out_and_in", "streams_classpath",
           "streams_configs"]

_MAIN = "org.rebalance.streams.StreamsInstances"
#: a new group's first rebalance is not held back (``group.initial.rebalance.delay.ms``, default 3000, and for
#: streams groups ``group.streams.initial.rebalance.delay.ms``, default 3000); streams group members heartbeat
#: every 500 ms instead of 5 s (``group.streams.heartbeat.interval.ms`` and its minimum, ``GroupCoordinatorConfig``),
#: so that a revocation and the assignment after it take well under a second
STREAMS_BROKER_CONFIG: Dict[str, Union[str, int, float, bool]] = {
    "group.initial.rebalance.delay.ms": 0, "group.streams.initial.rebalance.delay.ms": 0,
    "group.streams.min.heartbeat.interval.ms": 500, "group.streams.heartbeat.interval.ms": 500}
#: the application's settings that make KIP-441 visible within a minute: a new instance is *not* caught up on a
#: task whose changelog it lags by more than 100 records; two warm-ups per assignment; the probing rebalance at
#: ``probing.rebalance.interval.ms``'s minimum, 60 s; no record cache, so every count reaches the changelog; a
#: commit (and standby checkpoint) every 500 ms, so a warm-up's offsets reach its next subscription
STREAMS_SETTINGS: Dict[str, object] = {
    "num.stream.threads": 1, "acceptable.recovery.lag": 100, "max.warmup.replicas": 2,
    "num.standby.replicas": 0, "probing.rebalance.interval.ms": 60_000, "statestore.cache.max.bytes": 0,
    "commit.interval.ms": 500,
}
_LOGGERS = {"org.apache.kafka.streams.processor.internals.StreamsPartitionAssignor": "debug",
            "org.apache.kafka.streams.processor.internals.assignment": "info"}


def streams_classpath() -> str:
    """The JVM's classpath: the book's Java module, the Kafka 4.3.1 jars (``kafka-streams`` and its dependencies,
    RocksDB included) without ``slf4j-nop``, and the broker's log4j2 jars (the SLF4J binding)."""
    root = java_module() / "target"
    classes, lib = root / "classes", root / "lib-4.3.1"
    main = classes / "org" / "rebalance" / "streams" / "StreamsInstances.class"
    if not main.exists() or not any(lib.glob("kafka-streams-*.jar")):
        raise JavaUnavailableError("the Java module is not built (no StreamsInstances.class or kafka-streams jar): "
                                   "run 'make java' (needs Java 17+ and Maven)")
    broker = Path(broker_classpath(kafka_home="")[0]).parent
    logging = sorted(str(p) for p in broker.glob("log4j-*.jar"))
    jars = [str(classes)] + [str(j) for j in sorted(lib.glob("*.jar")) if not j.name.startswith("slf4j-nop")]
    return ":".join(jars + logging)


_RUNNING: "set[StreamsInstances]" = _stopped_at_exit()


class StreamsInstances(_StartedInWith):
    """One JVM of Kafka Streams instances of the application ``application_id`` over ``topic`` (``partitions``
    partitions), against ``bootstrap_servers``.  ``settings``: the application's Streams settings (default
    :data:`STREAMS_SETTINGS`).  Use it as a context manager."""

    def __init__(self, bootstrap_servers: str, topic: str = "words", partitions: int = 6,
                 application_id: str = "counts-app", settings: Optional[Mapping[str, object]] = None,
                 heap: str = "384m"):
        require(isinstance(partitions, int) and 1 <= partitions <= 64, "partitions",
                f"must be a whole number from 1 to 64, got {partitions!r}")
        self.bootstrap_servers = bootstrap_servers
        self.topic = topic
        self.partitions = partitions
        self.application_id = application_id
        self.settings: Dict[str, object] = dict(STREAMS_SETTINGS if settings is None else settings)
        self.heap = heap
        self.workdir: Optional[Path] = None
        self.proc: Optional[subprocess.Popen] = None
        self.records: List[dict] = []
        self._lines: "queue.Queue[dict]" = queue.Queue()
        self._reader: Optional[threading.Thread] = None
        self._lock = threading.Lock()
        self.running: List[str] = []

    @property
    def log_file(self) -> Path:
        if self.workdir is None:
            raise IllegalStateError("the Streams JVM is not started")
        return self.workdir / "streams.log"

    def start(self) -> "StreamsInstances":
        cp = streams_classpath()
        self.workdir = Path(tempfile.mkdtemp(prefix="rebalance-streams-"))
        _RUNNING.add(self)
        try:
            (self.workdir / "log4j2.properties").write_text(
                log4j2_properties("rebalance.kafka.streams", "warn", _LOGGERS))
            cmd = _pdeathsig_prefix() + [find_java(), f"-Xmx{self.heap}", *DEFAULT_JVM_OPTIONS,
                                         f"-Dlog4j2.configurationFile={self.workdir / 'log4j2.properties'}",
                                         f"-Drebalance.log.file={self.log_file}", "-cp", cp, _MAIN]
            with open(self.workdir / "stderr.log", "ab") as err:
                self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                                             cwd=self.workdir, start_new_session=True)
            self._reader = threading.Thread(target=self._read, daemon=True)
            self._reader.start()
            self._await("ready", timeout=30)
            self._send({"op": "topic", "bootstrap": self.bootstrap_servers, "topic": self.topic,
                        "partitions": self.partitions})
            self._await("topic", timeout=30)
        except BaseException:
            self.stop()
            raise
        return self

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for raw in self.proc.stdout:
            try:
                rec = json.loads(raw)
            except ValueError:
                continue
            with self._lock:
                self.records.append(rec)
            self._lines.put(rec)

    def _send(self, cmd: dict) -> None:
        if self.proc is None or self.proc.poll() is not None or self.proc.stdin is None:
            raise RebalanceError(f"the Streams JVM is not running{self._stderr()}")
        self.proc.stdin.write((json.dumps(cmd) + "\n").encode())
        self.proc.stdin.flush()

    def _stderr(self) -> str:
        if self.workdir is None:
            return ""
        err = (self.workdir / "stderr.log")
        return (": " + err.read_text(errors="replace")[-2000:]) if err.exists() else ""

    def _await(self, event: str, timeout: float, instance: Optional[str] = None) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RebalanceError(f"no '{event}' from the Streams JVM within {timeout:g} s{self._stderr()}")
            try:
                rec = self._lines.get(timeout=min(left, 0.5))
            except queue.Empty:
                if self.proc is not None and self.proc.poll() is not None:
                    raise RebalanceError(f"the Streams JVM exited{self._stderr()}") from None
                continue
            if rec.get("event") == "error":
                raise RebalanceError(f"the Streams JVM failed: {rec.get('op')}: {rec.get('message')}")
            if rec.get("event") == event and (instance is None or rec.get("instance") == instance):
                return rec

    # ------------------------------------------------------------------ operations
    def produce(self, records: int, keys: int) -> None:
        """``records`` records with keys ``k0``..``k{keys-1}`` in turn (the default partitioner spreads them)."""
        self._send({"op": "produce", "bootstrap": self.bootstrap_servers, "topic": self.topic,
                    "records": records, "keys": keys})
        self._await("produced", timeout=60)

    def start_instance(self, name: str) -> None:
        """A new Kafka Streams instance ``name`` (client id, state dir ``WORKDIR/name``)."""
        assert self.workdir is not None
        props = {"application.id": self.application_id, "bootstrap.servers": self.bootstrap_servers,
                 "state.dir": str(self.workdir / name), "rebalance.input.topic": self.topic,
                 **{k: str(v) for k, v in self.settings.items()}}
        self._send({"op": "start", "instance": name, "props": props})
        self._await("started", timeout=30, instance=name)
        self.running.append(name)

    def stop_instance(self, name: str) -> None:
        """``close`` with ``LEAVE_GROUP``: the group rebalances at once."""
        self._send({"op": "stop", "instance": name})
        self._await("stopped", timeout=60, instance=name)
        self.running.remove(name)

    def count(self) -> int:
        """The sum of the counts in every running instance's store (interactive queries)."""
        self._send({"op": "count"})
        return int(self._await("count", timeout=30)["total"])

    def describe_group(self) -> dict:
        """The coordinator's description of the application's streams group (``Admin.describeStreamsGroups``,
        KIP-1071; only for ``group.protocol=streams``): ``group_epoch``, ``target_assignment_epoch`` and
        ``members`` in the order of the description (the order of the coordinator's member map), each with
        ``member_id``, ``process_id``, ``client_id``, ``instance`` (the instance the client id names),
        ``member_epoch``, and ``assignment`` and ``target_assignment`` (``{"active", "standby", "warmup"}``, task
        ids ``"0_p"``)."""
        self._send({"op": "describe", "bootstrap": self.bootstrap_servers, "group": self.application_id})
        group = self._await("group", timeout=30)
        for member in group["members"]:
            member["instance"] = member["client_id"].split("-StreamThread-")[0]
        return group

    def tasks(self) -> Dict[str, Tuple[List[str], List[str], str]]:
        """Each running instance's latest ``metadataForLocalThreads()``: (active, standby, state)."""
        latest: Dict[str, Tuple[List[str], List[str], str]] = {}
        with self._lock:
            for rec in self.records:
                if rec.get("event") == "tasks":
                    latest[rec["instance"]] = (rec["active"], rec["standby"], rec["state"])
        return {name: latest[name] for name in self.running if name in latest}

    def wait_settled(self, timeout: float = 60.0, quiet_s: float = 1.0, total: Optional[int] = None) -> None:
        """Until every running instance is ``RUNNING``, every task of the topology is active on one instance and
        nothing changed for ``quiet_s``; and, given ``total``, the stores count ``total`` records."""
        deadline = time.monotonic() + timeout
        last, since = None, time.monotonic()
        while time.monotonic() < deadline:
            now = self.tasks()
            if now != last:
                last, since = now, time.monotonic()
            actives = sorted(t for a, _, _ in now.values() for t in a)
            ok = (len(now) == len(self.running) and all(s == "RUNNING" for _, _, s in now.values())
                  and actives == sorted(f"0_{p}" for p in range(self.partitions)))
            if ok and time.monotonic() - since >= quiet_s and (total is None or self.count() == total):
                return
            time.sleep(0.2)
        raise RebalanceError(f"the Streams instances did not settle within {timeout:g} s: {last}")

    def wait_rebalances(self, count: int, timeout: float) -> None:
        """Until the log holds ``count`` computed assignments."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if len(self.rebalances()) >= count:
                return
            time.sleep(0.5)
        raise RebalanceError(f"fewer than {count} rebalances within {timeout:g} s")

    def rebalances(self) -> List["StreamsRebalance"]:
        """The rebalances so far, from the JVM's log (:func:`parse_rebalances`)."""
        if self.workdir is None or not self.log_file.exists():
            return []
        return parse_rebalances(self.log_file.read_text(errors="replace"))

    def stop(self) -> None:
        """Kill the JVM (SIGKILL to its process group) and remove the folder; safe to call twice."""
        if self.proc is not None:
            _kill_and_reap(self.proc)
            self.proc = None
        _remove_dir(self.workdir)
        self.workdir = None
        self.running = []
        _RUNNING.discard(self)


# ---------------------------------------------------------------------------------------------- the log
_ENTRY = re.compile(r"^\[(\d{4}-\d\d-\d\d [\d:,]+)\] (\w+) ", re.M)
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_STATE = re.compile(rf"({_UUID})=\[activeTasks: \(\[(.*?)\]\) standbyTasks: \(\[(.*?)\]\) prevActiveTasks: "
                    r"\(\[(.*?)\]\) prevStandbyTasks: \(\[(.*?)\]\) changelogOffsetTotalsByTask: \(\[(.*?)\]\) "
                    r"taskLagTotals: \(\[(.*?)\]\) clientTags: \(\[(.*?)\]\) capacity: (\d+) assigned: (\d+)\]")
_ASSIGNED = re.compile(rf"({_UUID})=\[activeTasks: \(\[(.*?)\]\) standbyTasks: \(\[(.*?)\]\)\]")
_CONSUMERS = re.compile(rf"^({_UUID}): \[(.*?)\]", re.M)
_PREFIX = re.compile(r"stream-thread \[(.+?)-StreamThread-\d+")


def _tasks(text: str) -> List[TaskId]:
    return sorted(TaskId.parse(t.strip(), "task") for t in text.split(",") if t.strip())


def _pairs(text: str) -> Dict[TaskId, int]:
    out: Dict[TaskId, int] = {}
    for item in text.split(","):
        if "=" in item:
            k, v = item.strip().split("=")
            out[TaskId.parse(k, "task")] = int(v)
    return out


@dataclass
class StreamsRebalance:
    """One assignment the group leader computed: its inputs and its result, as the leader logged them."""

    leader: str                                   #: the instance whose StreamsPartitionAssignor ran it
    instances: Dict[ProcessId, str]               #: process id -> instance name
    clients: Dict[ProcessId, dict]                #: the ClientState before: prev_active, prev_standby, offset_sums, lags, capacity, tags
    stateful: List[TaskId]
    stateless: List[TaskId]
    assignment: Dict[ProcessId, Tuple[List[TaskId], List[TaskId]]]  #: after: (active, standby incl. warm-ups)
    probing_scheduled: bool                       #: "Requesting followup rebalance ... to probe"
    immediate_followup: bool                      #: "... scheduled immediately ... tasks changing ownership"

    def followup_as_predicted(self, probing_predicted: bool) -> bool:
        """Whether the follow-up the leader asked for is the one the assignor's answer implies: a probing
        rebalance when it returned true -- unless the leader's own client had active tasks revoked, when Kafka
        asks for an immediate follow-up rebalance instead ("Don't bother to schedule a probing rebalance if an
        immediate one is already scheduled", ``StreamsPartitionAssignor``, lines 1162-1168 at 4.3.1)."""
        if self.probing_scheduled:
            return probing_predicted
        return not probing_predicted or self.immediate_followup

    def by_instance(self) -> Dict[str, Tuple[List[str], List[str]]]:
        return {self.instances[p]: ([str(t) for t in a], [str(t) for t in s]) for p, (a, s) in
                sorted(self.assignment.items(), key=lambda kv: self.instances[kv[0]])}


def parse_rebalances(log: str) -> List[StreamsRebalance]:
    """The leader's computed assignments in a Streams JVM's log (the lines listed in the module's docstring)."""
    starts = [m.start() for m in _ENTRY.finditer(log)] + [len(log)]
    entries = [log[a:b] for a, b in zip(starts, starts[1:])]
    out: List[StreamsRebalance] = []
    current: Optional[dict] = None
    for entry in entries:
        if "StreamsPartitionAssignor" not in entry:
            continue
        if "participating in this rebalance" in entry:
            current = {"instances": {ProcessId.parse(pid, "process_id"): consumers.split(",")[0].split(
                "-StreamThread")[0].strip() for pid, consumers in _CONSUMERS.findall(entry)}}
            m = _PREFIX.search(entry)
            current["leader"] = m.group(1) if m else "?"
        elif current is None:
            continue
        elif "Assigning stateful tasks:" in entry:
            m = re.search(r"Assigning stateful tasks: \[(.*?)\]\s*and stateless tasks: \[(.*?)\]", entry, re.S)
            assert m is not None
            current["stateful"], current["stateless"] = _tasks(m.group(1)), _tasks(m.group(2))
        elif "standby replicas to client nodes" in entry:
            current["clients"] = {
                ProcessId.parse(g[0], "process_id"): {
                    "prev_active": _tasks(g[3]), "prev_standby": _tasks(g[4]), "offset_sums": _pairs(g[5]),
                    "lags": _pairs(g[6]), "tags": dict(kv.split("=") for kv in g[7].split(", ") if "=" in kv),
                    "capacity": int(g[8])} for g in _STATE.findall(entry)}
        elif "Assignment of tasks to nodes:" in entry:
            current["assignment"] = {ProcessId.parse(pid, "process_id"): (_tasks(a), _tasks(s))
                                     for pid, a, s in _ASSIGNED.findall(entry)}
            current.update(probing=False, immediate=False)
        elif "to probe for caught-up replica tasks" in entry and "assignment" in current:
            current["probing"] = True
        elif "scheduled immediately by" in entry and "assignment" in current:
            current["immediate"] = True
        elif "assignment of tasks, " in entry and "assignment" in current:
            if "clients" in current:
                out.append(StreamsRebalance(current["leader"], current["instances"], current["clients"],
                                            current["stateful"], current["stateless"], current["assignment"],
                                            current["probing"], current["immediate"]))
            current = None
    return out


def predict_rebalance(rebalance: StreamsRebalance, configs: AssignmentConfigs) -> AssignmentResult:
    """The book's ``HighAvailabilityTaskAssignor`` given the clients the leader logged (process ids, capacities,
    previous tasks, lags, tags) and the tasks."""
    clients = {pid: ClientState(c["prev_active"], c["prev_standby"], c["lags"], c["tags"], c["capacity"], pid)
               for pid, c in rebalance.clients.items()}
    return HighAvailabilityTaskAssignor().assign_detailed(clients, set(rebalance.stateful) | set(rebalance.stateless),
                                                          set(rebalance.stateful), configs)


def streams_configs(settings: Mapping[str, object]) -> AssignmentConfigs:
    """The ``AssignmentConfigs`` of an application's Streams settings (Kafka's defaults where unset)."""
    return AssignmentConfigs(int(str(settings.get("acceptable.recovery.lag", 10_000))),
                             int(str(settings.get("max.warmup.replicas", 2))),
                             int(str(settings.get("num.standby.replicas", 0))),
                             int(str(settings.get("probing.rebalance.interval.ms", 600_000))))


def compare_rebalance(rebalance: StreamsRebalance, configs: AssignmentConfigs) -> List[dict]:
    """One row per instance: its lag on each stateful task before, the real and the predicted active and standby
    tasks, the predicted warm-ups, and whether they agree."""
    result = predict_rebalance(rebalance, configs)
    rows = []
    for pid in sorted(rebalance.assignment, key=lambda p: rebalance.instances.get(p, "?")):
        real_a, real_s = rebalance.assignment[pid]
        state = result.clients[pid]
        pa, ps = state.active_tasks(), state.standby_tasks()
        lags = rebalance.clients[pid]["lags"]
        rows.append({
            "instance": rebalance.instances.get(pid, "?"),
            "caught_up_on": sum(1 for t in rebalance.stateful
                                if lags.get(t, 0) == -2 or 0 <= lags.get(t, 0) <= configs.acceptable_recovery_lag),
            "real_active": " ".join(str(t) for t in real_a), "real_standby": " ".join(str(t) for t in real_s),
            "book_active": " ".join(str(t) for t in pa), "book_standby": " ".join(str(t) for t in ps),
            "book_warmups": " ".join(str(t) for t in sorted(result.warmups.get(pid, set()))),
            "equal": (pa, ps) == (real_a, real_s)})
    return rows


@dataclass
class StreamsScenario:
    """What :func:`scale_out_and_in` saw: the phases' rebalances and the instances' own task views."""

    configs: AssignmentConfigs
    phases: List[Tuple[str, List[StreamsRebalance]]] = field(default_factory=list)
    views: Dict[str, Dict[str, Tuple[List[str], List[str], str]]] = field(default_factory=dict)
    records_counted: int = 0
    records_produced: int = 0
    #: with ``streams_group``: the KIP-1071 run, per phase and instance (the instance's tasks, the coordinator's
    #: target assignment and the book's StickyTaskAssignor)
    streams_group_rows: List[dict] = field(default_factory=list)

    def table(self) -> List[dict]:
        """One row per (phase, rebalance, instance): :func:`compare_rebalance`'s row and the probing flags."""
        rows = []
        for phase, rebalances in self.phases:
            for k, r in enumerate(rebalances, 1):
                probing = predict_rebalance(r, self.configs).probing_rebalance_needed
                for row in compare_rebalance(r, self.configs):
                    rows.append({"phase": phase, "rebalance": k, **row, "probing_logged": r.probing_scheduled,
                                 "probing_predicted": probing,
                                 "followup_as_predicted": r.followup_as_predicted(probing)})
        return rows

    def summary(self) -> List[dict]:
        """One row per rebalance: clients, whether every instance's tasks equal the book's, warm-ups, probing."""
        rows = []
        for phase, rebalances in self.phases:
            for k, r in enumerate(rebalances, 1):
                result = predict_rebalance(r, self.configs)
                cmp = compare_rebalance(r, self.configs)
                rows.append({"phase": phase, "rebalance": k, "clients": len(r.clients),
                             "actives_per_instance": " ".join(str(len(r.assignment[p][0])) for p in sorted(
                                 r.assignment, key=lambda p: r.instances.get(p, "?"))),
                             "book_warmups": result.warmup_count(), "all_equal": all(c["equal"] for c in cmp),
                             "probing_logged": r.probing_scheduled,
                             "probing_predicted": result.probing_rebalance_needed,
                             "immediate_followup": r.immediate_followup,
                             "followup_as_predicted": r.followup_as_predicted(result.probing_rebalance_needed)})
        return rows


#: the streams group protocol's application settings (KIP-1071): no warm-ups exist there (Kafka warns that
#: ``max.warmup.replicas`` is ignored), the assignment is the broker's
STREAMS_GROUP_SETTINGS: Dict[str, object] = {"group.protocol": "streams", "num.stream.threads": 1,
                                             "statestore.cache.max.bytes": 0, "commit.interval.ms": 500}


def sticky_prediction(members: Sequence[Tuple[str, str, Sequence[str]]], partitions: int,
                      members_map: str = "hash") -> Dict[str, List[str]]:
    """The book's broker-side ``StickyTaskAssignor`` (KIP-1071) for one stateful subtopology ``0`` over
    ``partitions`` partitions: ``members`` as ``(member id, process id, active tasks "0_p")`` in the order the
    coordinator puts them into its member map (``TargetAssignmentBuilder.build``: the group's members, then the
    member whose heartbeat triggered the computation), that map a ``HashMap`` (``members_map="hash"``) as in
    the coordinator; no standbys (``num.standby.replicas`` 0).  Returns each member's active tasks."""
    specs = [(member_id, AssignmentMemberSpec(process_id=process_id, active_tasks={"0": frozenset(
        int(t.split("_")[1]) for t in tasks)} if tasks else {})) for member_id, process_id, tasks in members]
    result = StickyTaskAssignor().assign(GroupSpec.of(specs, members_map=members_map),
                                         Topology([Subtopology("0", partitions, stateful=True)]))
    return {m: [f"0_{p}" for p in sorted(a.active_tasks.get("0", ()))] for m, a in result.members.items()}


def _next_group_spec(before: dict, after: dict) -> List[Tuple[str, str, List[str]]]:
    """The members of the target-assignment computation between two descriptions of a streams group, in the order
    the coordinator put them into its member map: the members described before that are still there (with their
    target tasks then), then the newcomers (with none)."""
    now = {m["member_id"]: m for m in after["members"]}
    kept = [(m["member_id"], m["process_id"], m["target_assignment"]["active"]) for m in before["members"]
            if m["member_id"] in now]
    seen = {m["member_id"] for m in before["members"]}
    return kept + [(m["member_id"], m["process_id"], []) for m in after["members"] if m["member_id"] not in seen]


def _streams_group_phases(bootstrap_servers: str, records: int, keys: int, partitions: int) -> List[dict]:
    """The same scale-out and scale-in with ``group.protocol=streams``: per phase and instance, the tasks the
    instance reports, the coordinator's target assignment (``describeStreamsGroups``) and the book's
    ``StickyTaskAssignor`` given the members, process ids and target tasks the coordinator described just before
    the change (:func:`sticky_prediction`)."""
    rows: List[dict] = []
    with StreamsInstances(bootstrap_servers, topic="words-sg", partitions=partitions,
                          application_id="counts-app-sg", settings=STREAMS_GROUP_SETTINGS) as app:
        app.start_instance("i1")
        app.start_instance("i2")
        app.wait_settled(timeout=60, quiet_s=3.0)
        app.produce(records, keys)
        app.wait_settled(timeout=60, quiet_s=3.0, total=records)
        before = app.describe_group()
        for phase, change in (("i3 joins", "i3"), ("i1 leaves", "i1")):
            if phase == "i3 joins":
                app.start_instance(change)
            else:
                app.stop_instance(change)
            time.sleep(2.0)
            app.wait_settled(timeout=60, quiet_s=3.0)      # six heartbeats without a change
            after = app.describe_group()
            book = sticky_prediction(_next_group_spec(before, after), partitions)
            ran = {m["instance"]: m["target_assignment"]["active"] for m in before["members"]}
            views = app.tasks()
            for m in sorted(after["members"], key=lambda m: m["instance"]):
                inst, broker = m["instance"], m["target_assignment"]["active"]
                real = views[inst][0] if inst in views else []
                rows.append({"phase": phase, "instance": inst, "real_active": " ".join(real),
                             "broker_target": " ".join(broker), "book_active": " ".join(book.get(m["member_id"], [])),
                             "equal": real == broker == book.get(m["member_id"]),
                             "kept": len(set(real) & set(ran.get(inst, [])))})
            before = after
        rows_total = app.count()
    for row in rows:
        row["records_counted"] = rows_total
    return rows


def _phase(app: StreamsInstances, scenario: StreamsScenario, name: str, seen: int, timeout: float = 60.0,
           follow_up_s: float = 0.0) -> int:
    """One phase of :func:`scale_out_and_in`: wait for a rebalance after the first ``seen`` (and ``follow_up_s``
    more seconds), then until the instances settle; record the phase's rebalances and the instances' own view of
    their tasks under ``name``.  Returns the rebalances seen so far."""
    app.wait_rebalances(seen + 1, timeout=timeout)
    if follow_up_s:
        time.sleep(follow_up_s)
    app.wait_settled(timeout=60)
    rebalances = app.rebalances()
    scenario.phases.append((name, rebalances[seen:]))
    scenario.views[name] = app.tasks()
    return len(rebalances)


def scale_out_and_in(records: int = 6000, keys: int = 600, partitions: int = 6, wait_for_probe: bool = True,
                     settings: Optional[Mapping[str, object]] = None, probe_timeout: float = 90.0,
                     streams_group: bool = False) -> StreamsScenario:
    """Chapter 15's scenario on a one-broker cluster: ``i1`` and ``i2`` count ``records`` records (so every task
    has state: about ``records / partitions`` changelog records each); ``i3`` joins (scale-out); with
    ``wait_for_probe``, the probing rebalance ``probing.rebalance.interval.ms`` later and what follows it; then
    ``i1`` leaves (scale-in).  With ``streams_group``, the same scale-out and scale-in of a second application
    with ``group.protocol=streams`` (KIP-1071) on the same broker, while the first waits for its probing
    rebalance, into ``streams_group_rows``.  Every
    process is stopped on return or failure.

    Defined in chapter 15, *Kafka Streams: who runs which task*."""
    app_settings = dict(STREAMS_SETTINGS if settings is None else settings)
    scenario = StreamsScenario(streams_configs(app_settings), records_produced=records)
    with KafkaCluster(broker_config=STREAMS_BROKER_CONFIG) as kafka:
        with StreamsInstances(kafka.bootstrap_servers, partitions=partitions, settings=app_settings) as app:
            app.start_instance("i1")
            app.start_instance("i2")
            app.wait_settled(timeout=60)
            app.produce(records, keys)
            app.wait_settled(timeout=60, total=records)
            seen = len(app.rebalances())
            scenario.views["start"] = app.tasks()
            scenario.phases.append(("start", app.rebalances()))
            app.start_instance("i3")                       # scale-out
            seen = _phase(app, scenario, "i3 joins", seen)
            probe_due = scenario.phases[-1][1][-1].probing_scheduled  # the join's last rebalance
            if streams_group:  # meanwhile (the probing rebalance is a minute away), on the same broker
                scenario.streams_group_rows = _streams_group_phases(kafka.bootstrap_servers, records, keys,
                                                                    partitions)
            if wait_for_probe and probe_due:
                # the follow-up rebalance(s) the probe's moves need come within 1.5 s of it
                seen = _phase(app, scenario, "probing rebalance", seen, timeout=probe_timeout, follow_up_s=1.5)
            else:
                time.sleep(2.0)                            # the warm-ups restore their tasks' changelogs
            app.stop_instance("i1")                        # scale-in
            _phase(app, scenario, "i1 leaves", seen)
            scenario.records_counted = app.count()
    return scenario
