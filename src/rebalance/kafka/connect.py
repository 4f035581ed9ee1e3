"""A real distributed Kafka Connect cluster on 127.0.0.1, from the jars the book pins (Kafka 4.3.1).

:class:`ConnectDistributedCluster` starts N Connect workers -- ``org.apache.kafka.connect.cli.ConnectDistributed``, the main
class behind the distribution's ``bin/connect-distributed.sh``, from ``connect-runtime`` 4.3.1 -- as one JVM
each, against a running Kafka cluster (:class:`rebalance.kafka.cluster.KafkaCluster`).  Each worker has its own
``worker.properties``, a REST listener on ``http://127.0.0.1:PORT`` (its worker id is ``127.0.0.1:PORT``) and a
log file that receives Connect's ``INFO`` lines; nothing reaches the terminal.  The workers of one
``ConnectDistributedCluster`` share a group id and internal topics of their own, so several Connect clusters can use one
Kafka cluster one after another.

>>> with KafkaCluster(broker_config=CONNECT_BROKER_CONFIG) as kafka:              # doctest: +SKIP
...     with ConnectDistributedCluster(kafka.bootstrap_servers, workers=3) as connect:
...         connect.add_connector("c1", tasks=2)
...         connect.wait_until_settled()
...         connect.counts()
{'w1': (1, 1), 'w2': (0, 1), 'w3': (0, 0)}

Workers are named ``w1``, ``w2``, ... in start order; their ports (and so their worker ids and the member ids of
the group) change from run to run, so everything this module returns uses the names.

Operations: :meth:`ConnectDistributedCluster.add_connector` (``POST /connectors`` with the book's idle source connector and
``tasks.max``), :meth:`ConnectDistributedCluster.stop_worker` / :meth:`ConnectDistributedCluster.start_worker` (a bounce: the same name,
port and worker id come back), :meth:`ConnectDistributedCluster.assignment` (who runs what, from ``GET
/connectors?expand=status``), and :meth:`ConnectDistributedCluster.rounds` -- the rebalances every worker went through, read
from the ``INFO`` line ``DistributedHerder.RebalanceListener.onAssigned`` writes after each one ("Joined group at
generation {} with protocol version {} and got assignment: {} with rebalance delay: {}",
``DistributedHerder.java`` line 2627 at 4.3.1) and from ``AbstractCoordinator``'s "Successfully joined group with
generation" (``AbstractCoordinator.java`` line 672), which gives each worker's member id.

:func:`compare_rounds` sets the rounds of a real cluster next to the book's model
(:class:`rebalance.connect.cluster.ConnectCluster`) replaying them: the model is given each round's members
(their real member ids), leader, generation, the configuration and the leader's clock, and computes the
assignment itself; the comparison is per worker (connectors and tasks after the round, what it started and what
it revoked) and whether a delay was sent.  :func:`connectors_added` and :func:`worker_bounced` play the
scenarios of chapter 9 scaled down and return a :class:`ScenarioResult` of those comparisons.  Worker order: a
worker reports what it runs with the newly assigned work first (``WorkerCoordinator.onJoinComplete`` appends
what it keeps, lines 213-214 at 4.3.1), which decides which tasks a later load-balancing revocation takes; the
model's protocol mode follows it since this comparison found it.  The delays themselves differ by a few
milliseconds (the model's clock is read from log timestamps); only whether one was sent is compared.

The connector is the book's own ``org.rebalance.connect.IdleSourceConnector`` (Java module): the 4.3.1 jars
the book resolves ship no source connector (no ``connect-file``, no MirrorMaker), and only the placement matters
here, so its tasks produce nothing.

Every JVM runs in its own process group with a parent-death signal (as :mod:`rebalance.kafka.cluster`'s
brokers); :meth:`ConnectDistributedCluster.stop` -- on leaving the ``with`` block, on an error during start, on Ctrl-C and at
interpreter exit -- kills every worker and removes the cluster's folder.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ..errors import ConnectStartError as ConnectStartError  # re-exported; defined in errors
from ..errors import JavaUnavailableError, RebalanceError, require
from ..versions import KAFKA_VERSION
from .cluster import (DEFAULT_JVM_OPTIONS, _check_jvm, _free_ports, _jvm_log_tail, _kill_and_reap,
                      _kill_group, _pdeathsig_prefix, _remove_dir, _StartedInWith,
                      _stopped_at_exit, _tail, _wait_each, broker_classpath, log4j2_properties)
from .oracle import find_java, java_module
from .settings import checked_settings, pick, properties_text

__all__ = ["CONNECT_BROKER_CONFIG", "CONNECTOR_CLASS", "ConnectDistributedCluster", "ConnectStartError", "ConnectWorker",
           "RealRound", "RoundComparison", "ScenarioResult", "Share", "WorkerAssignment", "compare_rounds",
           "connect_classpath", "connectors_added", "model_shares", "parse_rounds", "real_shares", "summary_table",
           "worker_bounced"]

#: the connector every :meth:`ConnectDistributedCluster.add_connector` creates (the Java module's)
CONNECTOR_CLASS = "org.rebalance.connect.IdleSourceConnector"

#: broker settings a Connect cluster of short sessions needs: the broker's ``group.min.session.timeout.ms``
#: (default 6000, ``GroupCoordinatorConfig``) is lowered so that workers may use a 3 s session, and a new
#: group's first rebalance is not held back (``group.initial.rebalance.delay.ms``, default 3000)
CONNECT_BROKER_CONFIG: Dict[str, Union[int, str]] = {"group.min.session.timeout.ms": 1000,
                                                      "group.initial.rebalance.delay.ms": 0}

_MAIN = "org.apache.kafka.connect.cli.ConnectDistributed"
_PROTOCOLS = ("eager", "compatible", "sessioned")
#: what ConnectDistributedCluster writes itself; ``worker_config`` may not change it
RESERVED = frozenset({"bootstrap.servers", "group.id", "listeners", "rest.advertised.host.name",
                      "rest.advertised.port", "rest.advertised.listener", "config.storage.topic",
                      "offset.storage.topic", "status.storage.topic", "connect.protocol",
                      "scheduled.rebalance.max.delay.ms", "plugin.path"})
_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.]*$")
#: Connect's group membership and assignment at INFO (Kafka's own connect-log4j2.yaml also logs INFO), the
#: rest at WARN
_LOG_LEVELS = {"org.apache.kafka.connect.runtime.distributed": "info",
               "org.apache.kafka.clients.consumer.internals.AbstractCoordinator": "info",
               "org.apache.kafka.connect.runtime.rest.RestServer": "info"}



def connect_classpath() -> str:
    """The workers' classpath: the book's Java module (the idle connector), the oracle's Kafka 4.3.1 jars
    (``connect-runtime`` and its dependencies, ``java/target/lib-4.3.1``) without their ``slf4j-nop``, and the
    broker's log4j2 jars (``log4j-api``, ``log4j-core``, the SLF4J binding ``log4j-slf4j-impl``;
    ``java/target/broker-4.3.1``), the logging backend the distribution's ``libs/`` gives Connect
    (``connect-runtime``'s ``Loggers`` imports ``log4j-core``)."""
    root = java_module() / "target"
    classes, lib = root / "classes", root / f"lib-{KAFKA_VERSION}"
    connector = classes / "org" / "rebalance" / "connect" / "IdleSourceConnector.class"
    if not connector.exists() or not any(lib.glob("connect-runtime-*.jar")):
        raise JavaUnavailableError(f"the Java module is not built for Kafka {KAFKA_VERSION} (no {connector.name} or "
                                   f"connect-runtime jar): run 'make java' (needs Java 17+ and Maven)")
    broker_cp, _ = broker_classpath(kafka_home="")
    broker = Path(broker_cp).parent
    logging = sorted(p for p in broker.glob("log4j-*.jar"))
    require(len(logging) >= 3, "classpath", f"no log4j2 jars in {broker}: run 'make java'")
    jars = [str(classes)] + [str(j) for j in sorted(lib.glob("*.jar")) if not j.name.startswith("slf4j-nop")]
    return os.pathsep.join(jars + [str(j) for j in logging])


@dataclass
class ConnectWorker:
    """One Connect worker: its ``name`` (``w1``...), REST ``port``, folder ``dir`` and JVM ``process``."""

    name: str
    port: int
    dir: Path
    process: Optional[subprocess.Popen] = None
    #: the log files of this worker's earlier lives (a bounced worker starts a new one)
    logs: List[Path] = field(default_factory=list)

    @property
    def worker_id(self) -> str:
        """Connect's worker id: the advertised REST host and port."""
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None


_RUNNING: "set[ConnectDistributedCluster]" = _stopped_at_exit()


class ConnectDistributedCluster(_StartedInWith):
    """A distributed Kafka Connect cluster of ``workers`` workers (``ConnectDistributed``, Kafka 4.3.1) against
    the Kafka cluster at ``bootstrap_servers``.

    ``connect_protocol``: ``"eager"``, ``"compatible"`` or ``"sessioned"`` (``connect.protocol``);
    ``max_delay_ms``: ``scheduled.rebalance.max.delay.ms`` (Kafka's default is 300,000; short here so that a
    bounce plays out in seconds); ``worker_config``: other worker settings by name (the defaults below keep
    sessions and flushes short; ``session.timeout.ms`` below 6000 needs the broker's
    ``group.min.session.timeout.ms`` lowered: :data:`CONNECT_BROKER_CONFIG`).  ``heap``: each JVM's ``-Xmx``.
    ``start_timeout``: seconds for all workers to serve REST and join the group.  ``leader_first``: start
    ``w1`` alone and the others once it has joined, so that ``w1`` is the group's leader (the coordinator makes
    the first member to join the leader); ``False`` starts all at once (faster; any of them may lead).
    Workers are named in the order of their member ids, so ``w1`` comes first in the eager deal.

    Defined in chapter 9, *Kafka Connect: from stop-the-world to incremental*."""

    DEFAULTS: Dict[str, str] = {
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "config.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "offset.storage.partitions": "1",
        "status.storage.partitions": "1",
        "offset.flush.interval.ms": "10000",
        "session.timeout.ms": "6000",
        "heartbeat.interval.ms": "1000",
        "plugin.discovery": "service_load",
        "task.shutdown.graceful.timeout.ms": "2000",
    }

    def __init__(self, bootstrap_servers: str, workers: int = 3, connect_protocol: str = "sessioned",
                 max_delay_ms: int = 10_000, worker_config: Optional[Mapping[str, Union[str, int, float, bool]]] = None,
                 *, heap: str = "256m", start_timeout: float = 120.0, stop_timeout: float = 15.0,
                 jvm_options: Optional[Sequence[str]] = None, leader_first: bool = True):
        require(isinstance(bootstrap_servers, str) and bool(re.fullmatch(r"[\w.-]+:\d+(,[\w.-]+:\d+)*",
                                                                          bootstrap_servers or "")),
                "bootstrap_servers", f"must be 'host:port[,host:port...]', got {bootstrap_servers!r}")
        require(isinstance(workers, int) and not isinstance(workers, bool) and 1 <= workers <= 9, "workers",
                f"must be a whole number from 1 to 9, got {workers!r}")
        require(connect_protocol in _PROTOCOLS, "connect_protocol",
                f"must be one of {', '.join(_PROTOCOLS)}, got {connect_protocol!r}")
        require(isinstance(max_delay_ms, int) and not isinstance(max_delay_ms, bool) and 0 <= max_delay_ms <= 2**31 - 1,
                "max_delay_ms", f"must be a whole number of milliseconds >= 0, got {max_delay_ms!r}")
        settings = {**self.DEFAULTS, **checked_settings(
            worker_config, "worker_config", "Connect worker", "ConnectDistributedCluster", RESERVED,
            {"connect.protocol": " (use connect_protocol=...)",
             "scheduled.rebalance.max.delay.ms": " (use max_delay_ms=...)"})}
        _check_jvm(start_timeout, stop_timeout, heap, jvm_options, "256m")
        require(isinstance(leader_first, bool), "leader_first", f"must be True or False, got {leader_first!r}")
        self.leader_first = leader_first
        self.bootstrap_servers = bootstrap_servers
        self.size = workers
        self.connect_protocol = connect_protocol
        self.max_delay_ms = max_delay_ms
        self.worker_config = settings
        self.heap = heap
        self.start_timeout = float(start_timeout)
        self.stop_timeout = float(stop_timeout)
        self.jvm_options = list(DEFAULT_JVM_OPTIONS if jvm_options is None else jvm_options)
        self.group_id = f"rebalance-connect-{uuid.uuid4().hex[:8]}"
        self.workdir: Optional[Path] = None
        self.workers: List[ConnectWorker] = []
        #: connectors added, with their tasks.max, in order
        self.connectors: Dict[str, int] = {}
        self.started_in: Optional[float] = None
        self._lock = threading.RLock()
        self._java: Optional[str] = None
        self._cp: Optional[str] = None

    def __repr__(self) -> str:
        alive = sum(w.running for w in self.workers)
        return (f"ConnectDistributedCluster(workers={self.size}, connect_protocol={self.connect_protocol!r}, "
                f"max_delay_ms={self.max_delay_ms}, {alive} running)")

    def worker(self, name: str) -> ConnectWorker:
        return pick(self.workers, lambda w: w.name, name, "worker", "worker")

    def log_tail(self, name: str, lines: int = 40) -> str:
        return _jvm_log_tail(self.worker(name).dir, "connect.log", lines)

    # ------------------------------------------------------------------ start
    def start(self) -> "ConnectDistributedCluster":
        """Start every worker at once and wait until each serves REST and has joined the group (its first
        "Joined group at generation" line); on any failure (also Ctrl-C) everything is stopped and removed."""
        with self._lock:
            require(not self.workers, "cluster", "is already started")
            began = time.monotonic()
            self._cp = connect_classpath()
            self._java = find_java()
            self.workdir = Path(tempfile.mkdtemp(prefix="rebalance-connect-"))
            _RUNNING.add(self)
            try:
                (self.workdir / "log4j2.properties").write_text(
                    log4j2_properties("rebalance.kafka.connect", "warn", _LOG_LEVELS))
                # w1, w2, ... in the order of their member ids ("connect-127.0.0.1:PORT-<uuid>"), which is the
                # order the eager assignor deals in and the incremental one breaks ties in
                for i, port in enumerate(sorted(_free_ports(self.size), key=lambda p: f"{p}-")):
                    w = ConnectWorker(f"w{i + 1}", port, self.workdir / f"w{i + 1}")
                    w.dir.mkdir()
                    self.workers.append(w)
                    self._write_config(w)
                first, rest = self.workers[:1], self.workers[1:]
                if self.leader_first:  # w1 joins an empty group, so it is the leader (it stays while a member)
                    self._spawn(first[0])
                    self._wait_serving(first[0], began + self.start_timeout)
                    self._wait_joined(first, began + self.start_timeout)
                    first = []
                for w in first + rest:
                    self._spawn(w)
                for w in first + rest:
                    self._wait_serving(w, began + self.start_timeout)
                self._wait_joined(self.workers, began + self.start_timeout)
            except BaseException:
                self._stop_locked()
                raise
            self.started_in = time.monotonic() - began
            return self

    def _write_config(self, w: ConnectWorker) -> None:
        props = {
            "bootstrap.servers": self.bootstrap_servers,
            "group.id": self.group_id,
            "listeners": f"http://127.0.0.1:{w.port}",
            "rest.advertised.host.name": "127.0.0.1",
            "rest.advertised.port": str(w.port),
            "config.storage.topic": f"{self.group_id}-configs",
            "offset.storage.topic": f"{self.group_id}-offsets",
            "status.storage.topic": f"{self.group_id}-status",
            "connect.protocol": self.connect_protocol,
            "scheduled.rebalance.max.delay.ms": str(self.max_delay_ms),
            **self.worker_config,
        }
        (w.dir / "worker.properties").write_text("# written by rebalance.kafka.connect\n" + properties_text(props))

    def _spawn(self, w: ConnectWorker) -> None:
        assert self.workdir is not None and self._java and self._cp
        log = w.dir / "connect.log"
        if log.exists():  # a bounced worker: keep the earlier life's log, start a new one
            old = w.dir / f"connect.{len(w.logs) + 1}.log"
            log.rename(old)
            w.logs.append(old)
        cmd = _pdeathsig_prefix() + [self._java, f"-Xmx{self.heap}", *self.jvm_options,
                                     f"-Dlog4j2.configurationFile={self.workdir / 'log4j2.properties'}",
                                     f"-Drebalance.log.file={log}", "-cp", self._cp, _MAIN,
                                     str(w.dir / "worker.properties")]
        with open(w.dir / "stdout.log", "ab") as out:
            w.process = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                         cwd=w.dir, start_new_session=True)

    def _check_alive(self, w: ConnectWorker) -> None:
        assert w.process is not None
        code = w.process.poll()
        if code is not None:
            raise ConnectStartError(f"Connect worker {w.name} exited with code {code} while starting",
                                    self.log_tail(w.name))

    def _wait_serving(self, w: ConnectWorker, deadline: float) -> None:
        while True:
            self._check_alive(w)
            try:
                with urllib.request.urlopen(w.url + "/", timeout=2) as r:
                    if r.status == 200:
                        return
            except (OSError, urllib.error.URLError):
                pass
            if time.monotonic() > deadline:
                raise ConnectStartError(f"Connect worker {w.name} did not serve REST on {w.url} within "
                                        f"start_timeout={self.start_timeout:g} s", self.log_tail(w.name))
            time.sleep(0.2)

    def _joined(self, w: ConnectWorker) -> bool:
        return "Joined group at generation" in _tail(w.dir / "connect.log", 100_000)

    def _wait_joined(self, workers: Sequence[ConnectWorker], deadline: float) -> None:
        def alive(pending: List[ConnectWorker]) -> None:
            for w in pending:
                self._check_alive(w)

        _wait_each(workers, self._joined, deadline, lambda w: ConnectStartError(
            f"Connect worker {w.name} did not join the group within start_timeout={self.start_timeout:g} s",
            self.log_tail(w.name)), pause=0.2, check=alive)

    # ------------------------------------------------------------------ bounce
    def stop_worker(self, name: str, graceful: bool = True) -> None:
        """Stop one worker.  ``graceful`` (default): SIGTERM, Connect's shutdown hook stops the herder, which
        leaves the group at once (``LeaveGroup``); after ``stop_timeout`` it is killed.  ``graceful=False``:
        SIGKILL, and the group notices only after ``session.timeout.ms``."""
        with self._lock:
            w = self.worker(name)
            require(w.running, "worker", f"{name} is not running")
            assert w.process is not None
            _kill_group(w.process, signal.SIGTERM if graceful else signal.SIGKILL)
            try:
                w.process.wait(timeout=self.stop_timeout)
            except subprocess.TimeoutExpired:
                _kill_group(w.process, signal.SIGKILL)
                w.process.wait()
            w.process = None

    def start_worker(self, name: str, timeout: Optional[float] = None) -> None:
        """Start a stopped worker again, with the same name, port (so the same worker id) and settings, and wait
        until it serves REST and has joined the group."""
        with self._lock:
            w = self.worker(name)
            require(not w.running, "worker", f"{name} is running")
            deadline = time.monotonic() + (self.start_timeout if timeout is None else timeout)
            self._spawn(w)
            self._wait_serving(w, deadline)
            self._wait_joined([w], deadline)

    def bounce(self, name: str, away_s: float) -> None:
        """Stop ``name`` (gracefully), wait ``away_s`` seconds, start it again (and wait until it has joined)."""
        require(isinstance(away_s, (int, float)) and not isinstance(away_s, bool) and away_s >= 0, "away_s",
                f"must be a number of seconds >= 0, got {away_s!r}")
        self.stop_worker(name)
        time.sleep(away_s)
        self.start_worker(name)

    # ------------------------------------------------------------------ REST
    def _request(self, method: str, path: str, body: Optional[dict] = None, timeout: float = 30.0) -> object:
        last: Optional[Exception] = None
        for w in [w for w in self.workers if w.running]:
            data = None if body is None else json.dumps(body).encode()
            req = urllib.request.Request(w.url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json", "Accept": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=timeout) as r:
                    text = r.read().decode()
                    return json.loads(text) if text else None
            except urllib.error.HTTPError as e:
                detail = e.read().decode(errors="replace")
                if e.code in (409, 503):  # rebalance in progress / worker not ready: try another worker
                    last = RebalanceError(f"{method} {path}: HTTP {e.code} {detail}")
                    continue
                raise RebalanceError(f"{method} {path}: HTTP {e.code} {detail}") from None
            except (OSError, urllib.error.URLError) as e:
                last = e
        raise RebalanceError(f"{method} {path}: no worker answered ({last})")

    def add_connector(self, name: str, tasks: int, timeout: float = 60.0) -> None:
        """``POST /connectors``: the idle source connector ``name`` with ``tasks.max=tasks`` (it always asks for
        exactly that many tasks).  Retried while the group is rebalancing (HTTP 409)."""
        require(isinstance(name, str) and bool(_NAME.match(name)) and "-" not in name, "name",
                f"must be a connector name of letters, digits, '_' and '.', got {name!r}")
        require(name not in self.connectors, "name", f"connector {name!r} already exists")
        require(isinstance(tasks, int) and not isinstance(tasks, bool) and 1 <= tasks <= 1000, "tasks",
                f"must be a whole number from 1 to 1000, got {tasks!r}")
        body = {"name": name, "config": {"connector.class": CONNECTOR_CLASS, "tasks.max": str(tasks)}}
        deadline = time.monotonic() + timeout
        while True:
            try:
                self._request("POST", "/connectors", body)
                break
            except RebalanceError as e:
                if "HTTP 409" in str(e) and "already exists" in str(e):
                    break
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        self.connectors[name] = tasks

    def assignment(self) -> Dict[str, Tuple[List[str], List[str]]]:
        """Who runs what now, from ``GET /connectors?expand=status``: ``{worker name: (connectors, tasks)}``
        (tasks as ``connector-N``, sorted), every worker listed.  States are not looked at: a connector or task
        counts for the worker the status topic names (``UNASSIGNED`` ones for none)."""
        status = self._request("GET", "/connectors?expand=status")
        by_id = {w.worker_id: w.name for w in self.workers}
        out: Dict[str, Tuple[List[str], List[str]]] = {w.name: ([], []) for w in self.workers}
        assert isinstance(status, dict)
        for conn, value in status.items():
            s = value["status"]
            c = s["connector"]
            if c.get("state") != "UNASSIGNED" and c.get("worker_id") in by_id:
                out[by_id[c["worker_id"]]][0].append(conn)
            for t in s.get("tasks", []):
                if t.get("state") != "UNASSIGNED" and t.get("worker_id") in by_id:
                    out[by_id[t["worker_id"]]][1].append(f"{conn}-{t['id']}")
        return {k: (sorted(c), sorted(t, key=_task_key)) for k, (c, t) in out.items()}

    def settled(self) -> bool:
        """The latest round (in the logs) has every running worker and no other, sent no delay (no scheduled
        rebalance pending), assigns every connector added and its ``tasks.max`` tasks exactly once, and REST
        reports each of them RUNNING on the worker that round gave it."""
        rounds = self.rounds()
        if not rounds:
            return False
        last = rounds[-1]
        alive = {w.name for w in self.workers if w.running}
        if set(last.workers) != alive or last.delay != 0:
            return False
        placed: Dict[str, str] = {}
        for name, a in last.workers.items():
            for item in a.assigned_connectors + a.assigned_tasks:
                if item in placed:
                    return False
                placed[item] = name
        want = set(self.connectors) | {f"{c}-{i}" for c, n in self.connectors.items() for i in range(n)}
        if set(placed) != want:
            return False
        try:
            now = self.assignment()
        except RebalanceError:
            return False
        rest = {item: name for name, (c, t) in now.items() for item in c + t}
        if rest != placed:
            return False
        status = self._request("GET", "/connectors?expand=status")
        assert isinstance(status, dict)
        return all(v["status"]["connector"]["state"] == "RUNNING"
                   and all(t["state"] == "RUNNING" for t in v["status"]["tasks"]) for v in status.values())

    def wait_until_settled(self, timeout: float = 60.0, quiet_s: float = 1.0) -> Dict[str, Tuple[List[str], List[str]]]:
        """Wait until :meth:`settled` holds and no worker has logged a new round for ``quiet_s`` seconds;
        return :meth:`assignment`."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                ok = self.settled()
            except RebalanceError:
                ok = False
            if ok and time.time() - self._last_round_time() >= quiet_s and self.settled():
                return self.assignment()
            if time.monotonic() > deadline:
                raise RebalanceError(f"the Connect cluster did not settle on {self.connectors} within {timeout:g} s; "
                                     f"assignment now: {self._safe_assignment()}")
            time.sleep(0.25)

    def generation(self) -> int:
        """The latest generation in the workers' logs (-1 before any)."""
        rounds = self.rounds()
        return rounds[-1].generation if rounds else -1

    def _safe_assignment(self) -> object:
        try:
            return self.assignment()
        except RebalanceError as e:
            return str(e)

    def _last_round_time(self) -> float:
        rounds = self.rounds()
        return max((r.time for r in rounds), default=0.0)

    def counts(self) -> Dict[str, Tuple[int, int]]:
        """``{worker name: (connectors, tasks)}`` running now (REST)."""
        return {w: (len(c), len(t)) for w, (c, t) in self.assignment().items()}

    # ------------------------------------------------------------------ logs
    def rounds(self) -> List["RealRound"]:
        """Every rebalance the workers completed, oldest first, read from their logs (all lives of a bounced
        worker): one :class:`RealRound` per generation, with what each member was assigned and told to revoke."""
        texts = {}
        for w in self.workers:
            parts = [p.read_text(errors="replace") for p in w.logs if p.exists()]
            log = w.dir / "connect.log"
            if log.exists():
                parts.append(log.read_text(errors="replace"))
            texts[w.name] = "\n".join(parts)
        return parse_rounds(texts, {w.worker_id: w.name for w in self.workers})

    # ------------------------------------------------------------------ stop
    def stop(self) -> None:
        """Kill every worker (SIGKILL to its process group) and remove the cluster's folder; safe to call twice."""
        with self._lock:
            self._stop_locked()

    def _stop_locked(self) -> None:
        for w in self.workers:
            if w.process is not None:
                _kill_and_reap(w.process)
                w.process = None
        self.workers = []
        _remove_dir(self.workdir)
        self.workdir = None
        _RUNNING.discard(self)


# ---------------------------------------------------------------------------------------------- log rounds
@dataclass
class WorkerAssignment:
    """One worker's share of one round, as ``ExtendedAssignment.toString`` logged it: what it was assigned
    (under eager: everything it runs; incremental: what to start) and told to revoke, and the delay."""

    member_id: Optional[str]
    leader_id: str
    assigned_connectors: List[str]
    assigned_tasks: List[str]
    revoked_connectors: List[str]
    revoked_tasks: List[str]
    delay: int
    protocol_version: int
    leader_url: str
    offset: int
    error: int


@dataclass
class RealRound:
    """One generation of the real group: ``workers`` maps the name of each member that completed it (its
    SyncGroup answered) to its :class:`WorkerAssignment`; ``joined`` maps every member of its JoinGroup to its
    member id -- a member can join and still miss the assignment, when the group starts another rebalance
    before its SyncGroup is answered ("SyncGroup failed: The group began another rebalance").  ``time`` is
    when the last member logged its assignment (seconds since the epoch, for ordering only)."""

    generation: int
    workers: Dict[str, WorkerAssignment]
    time: float
    #: when the first member logged its assignment or join (seconds since the epoch): the model's clock
    first_time: float = 0.0
    joined: Dict[str, str] = field(default_factory=dict)

    @property
    def missed(self) -> List[str]:
        """Members that joined but did not receive this generation's assignment."""
        return sorted(set(self.joined) - set(self.workers))

    @property
    def leader(self) -> Optional[str]:
        """The leader's worker name (from ``leaderUrl``)."""
        return next(iter({w.leader_url for w in self.workers.values()}), None)

    @property
    def leader_id(self) -> Optional[str]:
        """The leader's member id."""
        return next(iter({w.leader_id for w in self.workers.values()}), None)

    @property
    def delay(self) -> int:
        return max((w.delay for w in self.workers.values()), default=0)


_JOINED = re.compile(r"^\[(?P<ts>[^\]]+)\] INFO .*Joined group at generation (?P<gen>-?\d+) with protocol version "
                     r"(?P<ver>\d+) and got assignment: Assignment\{error=(?P<err>-?\d+), leader='(?P<leader>[^']*)', "
                     r"leaderUrl='(?P<url>[^']*)', offset=(?P<off>-?\d+), connectorIds=\[(?P<c>[^\]]*)\], "
                     r"taskIds=\[(?P<t>[^\]]*)\], revokedConnectorIds=\[(?P<rc>[^\]]*)\], "
                     r"revokedTaskIds=\[(?P<rt>[^\]]*)\], delay=(?P<delay>-?\d+)\}", re.M)
_MEMBER = re.compile(r"Successfully joined group with generation Generation\{generationId=(?P<gen>-?\d+), "
                     r"memberId='(?P<member>[^']*)'")


def _items(text: str) -> List[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def _task_key(task: str) -> Tuple[str, int]:
    conn, _, num = task.rpartition("-")
    return conn, int(num)


def _stamp(ts: str) -> float:
    try:
        return time.mktime(time.strptime(ts[:19], "%Y-%m-%d %H:%M:%S")) + float("0." + ts[20:23])
    except ValueError:
        return 0.0


def parse_rounds(logs: Mapping[str, str], names_by_url: Optional[Mapping[str, str]] = None) -> List[RealRound]:
    """The rounds in Connect workers' logs, ``{worker name: log text}``: one :class:`RealRound` per generation,
    from ``DistributedHerder``'s "Joined group at generation" lines (4.3.1, line 2627) and the member ids of
    ``AbstractCoordinator``'s "Successfully joined group with generation" lines.  ``names_by_url`` turns the
    leader's URL's ``host:port`` into a worker name."""
    rounds: Dict[int, RealRound] = {}
    for name, text in logs.items():
        members = {}
        for m in _MEMBER.finditer(text):
            gen = int(m.group("gen"))
            members[gen] = m.group("member")
            line_start = text.rfind("\n", 0, m.start()) + 1
            stamp = _stamp(text[line_start + 1:line_start + 24])
            r = rounds.setdefault(gen, RealRound(gen, {}, 0.0, stamp))
            r.joined[name] = m.group("member")
            r.first_time = min(r.first_time, stamp) if r.first_time else stamp
        for m in _JOINED.finditer(text):
            gen = int(m.group("gen"))
            url = m.group("url")
            if names_by_url:
                hostport = re.sub(r"^https?://|/$", "", url)
                url = names_by_url.get(hostport, url)
            wa = WorkerAssignment(members.get(gen), m.group("leader"), _items(m.group("c")), sorted(_items(m.group("t")), key=_task_key),
                                  _items(m.group("rc")), sorted(_items(m.group("rt")), key=_task_key),
                                  int(m.group("delay")), int(m.group("ver")), url, int(m.group("off")),
                                  int(m.group("err")))
            stamp = _stamp(m.group("ts"))
            r = rounds.setdefault(gen, RealRound(gen, {}, stamp, stamp))
            r.workers[name] = wa
            r.joined.setdefault(name, wa.member_id or f"{name}@{gen}")
            r.time = max(r.time, stamp)
            r.first_time = min(r.first_time, stamp) if r.first_time else stamp
    return [rounds[g] for g in sorted(rounds)]


# ---------------------------------------------------------------------------------------------- the model, side by side
@dataclass
class Share:
    """One worker's side of one round, real or modelled: what it runs after the round (``connectors``,
    ``tasks``), what the round started on it and what it stopped (under eager: everything it ran before,
    ``WorkerCoordinator.onJoinPrepare``, line 243 at 4.3.1)."""

    connectors: List[str]
    tasks: List[str]
    started_connectors: List[str]
    started_tasks: List[str]
    revoked_connectors: List[str]
    revoked_tasks: List[str]

    @property
    def counts(self) -> Tuple[int, int]:
        return len(self.connectors), len(self.tasks)

    @property
    def revoked(self) -> Tuple[int, int]:
        return len(self.revoked_connectors), len(self.revoked_tasks)


@dataclass
class RoundComparison:
    """One generation of the real cluster next to the model's round with the same members and configuration."""

    generation: int
    members: List[str]
    leader: Optional[str]
    real: Dict[str, Share]
    model: Dict[str, Share]
    real_delay: int
    model_delay: int
    #: members of the JoinGroup that did not receive the assignment (compared: only the others)
    missed: List[str] = field(default_factory=list)

    @property
    def counts_equal(self) -> bool:
        """Connectors and tasks per worker after the round are the same numbers."""
        return {w: s.counts for w, s in self.real.items()} == {w: s.counts for w, s in self.model.items()}

    @property
    def revocations_equal(self) -> bool:
        return {w: s.revoked for w, s in self.real.items()} == {w: s.revoked for w, s in self.model.items()}

    @property
    def delay_equal(self) -> bool:
        """Both scheduled a rebalance (delay > 0) or neither did (the delays themselves are clock readings)."""
        return (self.real_delay > 0) == (self.model_delay > 0)

    @property
    def equal(self) -> bool:
        """Counts per worker, revocations per worker and whether a delay was sent all agree."""
        return self.counts_equal and self.revocations_equal and self.delay_equal

    @property
    def identical(self) -> bool:
        """The same connectors and tasks on the same workers, the same ones revoked (the model was given the
        real member ids, so even the eager deal by member id can agree)."""
        return self.real == self.model and self.delay_equal

    def row(self) -> dict:
        """A table row with only run-independent values (names, counts, flags; no ports, ids or times)."""
        fmt = lambda d: " ".join(f"{w}:{c}+{t}" for w, (c, t) in sorted(d.items()))
        return {"generation": self.generation, "members": ",".join(self.members),
                "missed": ",".join(self.missed) or "-",
                "real c+t": fmt({w: s.counts for w, s in self.real.items()}),
                "model c+t": fmt({w: s.counts for w, s in self.model.items()}),
                "real revoked": fmt({w: s.revoked for w, s in self.real.items() if s.revoked != (0, 0)}) or "-",
                "model revoked": fmt({w: s.revoked for w, s in self.model.items() if s.revoked != (0, 0)}) or "-",
                "real delay": self.real_delay > 0, "model delay": self.model_delay > 0,
                "equal": self.equal, "identical": self.identical}


def _share(before: Tuple[List[str], List[str]], after: Tuple[List[str], List[str]], revoked_c: List[str],
           revoked_t: List[str]) -> Share:
    kept_c = [c for c in before[0] if c not in revoked_c]
    kept_t = [t for t in before[1] if t not in revoked_t]
    return Share(sorted(after[0]), sorted(after[1], key=_task_key),
                 sorted(c for c in after[0] if c not in kept_c),
                 sorted((t for t in after[1] if t not in kept_t), key=_task_key),
                 sorted(revoked_c), sorted(revoked_t, key=_task_key))


def real_shares(rounds: Sequence[RealRound], connect_protocol: str) -> List[Dict[str, Share]]:
    """Each real round's :class:`Share` per worker.  A worker's logged assignment is already its whole
    assignment after the round (``WorkerCoordinator.onJoinComplete`` adds what it keeps to what it was given,
    lines 213-214 at 4.3.1); what it ran before is its previous round's, in the same JVM (a restarted worker,
    with a new member id, starts empty).  Under eager nothing is listed as revoked: ``onJoinPrepare`` stopped
    everything the worker ran (lines 241-244), so that is its revocation."""
    state: Dict[str, Tuple[Optional[str], Tuple[List[str], List[str]]]] = {}
    out = []
    for r in rounds:
        shares = {}
        for name, a in r.workers.items():
            member, before = state.get(name, (None, ([], [])))
            if member != a.member_id:
                before = ([], [])
            if connect_protocol == "eager":
                rc, rt = list(before[0]), list(before[1])
            else:
                rc, rt = a.revoked_connectors, a.revoked_tasks
            after = (list(a.assigned_connectors), list(a.assigned_tasks))
            shares[name] = _share(before, after, rc, rt)
            state[name] = (a.member_id, after)
        out.append(shares)
    return out


def model_shares(rounds: Sequence[RealRound], connect_protocol: str, max_delay_ms: int
                 ) -> Tuple[List[Dict[str, Share]], List[int]]:
    """The book's model (:class:`rebalance.connect.cluster.ConnectCluster`, ``mode="protocol"``: the leader
    entry point ``performAssignment`` on serialized member metadata) replaying the real rounds: each round has
    the real members (their real member ids, so the leader's ``HashMap`` and the eager assignor's sort see the
    same keys), the real leader (a new leader gets its own assignor, as each worker has one), the real
    generation ids, and the leader's clock at the first worker's log line of that round.  What each member
    runs is the model's own result of the rounds before (a restarted worker comes back empty).  The
    configuration is rebuilt from the logs: every connector and task assigned anywhere so far (the scenarios
    only add connectors).  Returns each round's shares and the delay the model sent."""
    from ..connect.cluster import ConnectCluster as ModelCluster
    from ..connect.model import parse_task, task_str

    if not rounds:
        return [], []
    assignor = "eager" if connect_protocol == "eager" else "incremental"
    model = ModelCluster(assignor=assignor, mode="protocol", protocol=connect_protocol,
                         max_delay_ms=max_delay_ms, initial_generation_id=rounds[0].generation - 1)
    t0 = rounds[0].first_time
    start_ms = model.time.milliseconds()
    assignors: Dict[str, object] = {}
    leader: Optional[str] = None
    last_completed: Dict[str, int] = {}  # member id -> its last completed generation
    state: Dict[str, Tuple[str, Tuple[List[str], List[str]]]] = {}  # name -> (member id, what it runs)
    configured: Dict[str, int] = {}
    out, delays = [], []
    for r in rounds:
        for a in r.workers.values():
            for c in a.assigned_connectors:
                configured.setdefault(c, 0)
            for t in a.assigned_tasks + a.revoked_tasks:
                conn, num = _task_key(t)
                configured[conn] = max(configured.get(conn, 0), num + 1)
        model.connectors = dict(configured)
        now = start_ms + int(round((r.first_time - t0) * 1000))
        model.time.sleep(max(0, now - model.time.milliseconds()))
        members: Dict[str, Tuple[List[str], list]] = {}
        ids = {}
        for name in sorted(r.joined):
            member = r.joined[name]
            ids[member] = name
            prev_member, running = state.get(name, (None, ([], [])))
            if prev_member != member:
                running = ([], [])
            members[member] = (list(running[0]), [parse_task(t, "task") for t in running[1]])
        new_leader = r.leader_id if r.leader_id in members else leader if leader in members else min(members)
        if new_leader != leader:
            if leader is not None:
                assignors[leader] = model.assignor
            model.assignor = assignors.get(new_leader) or model._new_assignor(-1)  # type: ignore[assignment]
            leader = new_leader
        result = model.rebalance(members, generation_id=r.generation,
                                 last_completed_generation_id=last_completed.get(leader, -1), leader=leader)
        shares = {}
        for member, wr in result.workers.items():
            name = ids[member]
            if name not in r.workers:  # joined, but the assignment never reached it: it runs what it ran
                model.running[member] = members[member]
                state[name] = (member, (list(members[member][0]), [task_str(t) for t in members[member][1]]))
                continue
            before = (members[member][0], [task_str(t) for t in members[member][1]])
            after = (list(model.running[member][0]), [task_str(t) for t in model.running[member][1]])
            shares[name] = _share(before, after, list(wr.revoked_connectors), [task_str(t) for t in wr.revoked_tasks])
            state[name] = (member, after)
            last_completed[member] = r.generation
        out.append(shares)
        delays.append(result.delay)
    return out, delays


def compare_rounds(rounds: Sequence[RealRound], connect_protocol: str, max_delay_ms: int,
                   since_generation: int = -1) -> List[RoundComparison]:
    """The real rounds next to the model's (:func:`model_shares` replays them all, from the first), one
    :class:`RoundComparison` per generation after ``since_generation``."""
    real = real_shares(rounds, connect_protocol)
    model, delays = model_shares(rounds, connect_protocol, max_delay_ms)
    out = []
    for r, rs, ms, d in zip(rounds, real, model, delays):
        if r.generation > since_generation:
            out.append(RoundComparison(r.generation, sorted(r.joined), r.leader, rs, ms, r.delay, d, r.missed))
    return out


# ---------------------------------------------------------------------------------------------- scenarios
@dataclass
class ScenarioResult:
    """A scenario played on a real Connect cluster and replayed through the model: its rounds side by side."""

    scenario: str
    connect_protocol: str
    comparisons: List[RoundComparison]
    #: the bounced worker (bounces only) and whether it rejoined before the scheduled delay ran out
    worker: Optional[str] = None
    back_in_time: Optional[bool] = None
    seconds: float = 0.0

    def summary(self) -> dict:
        """Run-independent figures: rounds compared, equal and identical, whether any delay was sent."""
        c = self.comparisons
        return {"scenario": self.scenario, "connect.protocol": self.connect_protocol, "rounds": len(c),
                "rounds equal": sum(r.equal for r in c), "rounds identical": sum(r.identical for r in c),
                "delay scheduled (real)": any(r.real_delay > 0 for r in c),
                "delay scheduled (model)": any(r.model_delay > 0 for r in c),
                "revocations (real)": sum(sum(map(sum, (s.revoked for s in r.real.values()))) for r in c),
                "revocations (model)": sum(sum(map(sum, (s.revoked for s in r.model.values()))) for r in c)}

    def table(self) -> List[dict]:
        return [r.row() for r in self.comparisons]


def _result(connect: ConnectDistributedCluster, scenario: str, since: int, began: float, **kw: object) -> ScenarioResult:
    comparisons = compare_rounds(connect.rounds(), connect.connect_protocol, connect.max_delay_ms, since)
    return ScenarioResult(scenario, connect.connect_protocol, comparisons, seconds=time.monotonic() - began,
                          **kw)  # type: ignore[arg-type]


def connectors_added(connect: ConnectDistributedCluster, connectors: Mapping[str, int], timeout: float = 60.0) -> ScenarioResult:
    """Add each connector (``{name: tasks.max}``) in turn, waiting until the cluster has settled after each
    (``DistributedHerder`` rebalances once for the connector's config and once more when its task configs are
    written)."""
    require(isinstance(connectors, Mapping) and len(connectors) > 0, "connectors",
            "must be a non-empty dict {name: tasks.max}")
    began, since = time.monotonic(), connect.generation()
    for name, tasks in connectors.items():
        connect.add_connector(name, tasks)
        connect.wait_until_settled(timeout)
    return _result(connect, "connectors added", since, began)


def worker_bounced(connect: ConnectDistributedCluster, worker: str, longer_than_delay: bool, timeout: float = 90.0
                   ) -> ScenarioResult:
    """Stop ``worker`` (gracefully: it leaves the group) and start it again with the same port: at once
    (``longer_than_delay=False``: it is back while ``scheduled.rebalance.max.delay.ms`` still runs, unless the
    restart takes longer), or only after the scheduled rebalance has given its work to the others
    (``longer_than_delay=True``).  Then wait until the cluster has settled."""
    require(isinstance(longer_than_delay, bool), "longer_than_delay", "must be True or False")
    began, since = time.monotonic(), connect.generation()
    connect.stop_worker(worker)
    left = time.monotonic()
    if longer_than_delay:
        if connect.connect_protocol == "eager":
            time.sleep(connect.max_delay_ms / 1000 + 1)
        connect.wait_until_settled(timeout)  # the survivors run everything: the scheduled rebalance has run
    connect.start_worker(worker)
    back_after = time.monotonic() - left
    connect.wait_until_settled(timeout)
    scenario = f"worker bounced, {'longer' if longer_than_delay else 'shorter'} than the delay"
    return _result(connect, scenario, since, began, worker=worker,
                   back_in_time=back_after * 1000 < connect.max_delay_ms)


def summary_table(results: Sequence[ScenarioResult]) -> List[dict]:
    return [r.summary() for r in results]
