"""The workers of a real distributed Kafka Connect cluster on 127.0.0.1, from the jars the book pins (4.3.1).

:class:`ConnectDistributedCluster` starts N Connect workers -- ``org.apache.kafka.connect.cli.ConnectDistributed``,
the main class behind the distribution's ``bin/connect-distributed.sh``, from ``connect-runtime`` 4.3.1 -- as one
:class:`~rebalance.kafka.jvm.JvmProcess` each, against a running Kafka cluster
(:class:`rebalance.kafka.cluster.KafkaCluster`).  Each worker has its own folder with its ``worker.properties``,
a REST listener on ``http://127.0.0.1:PORT`` (its worker id is ``127.0.0.1:PORT``), a log file
(``connect.log``) that receives Connect's ``INFO`` lines and its JVM's ``connect.out``/``connect.err``; nothing
reaches the terminal.  The workers of one ``ConnectDistributedCluster`` share a group id and internal topics of
their own, so several Connect clusters can use one Kafka cluster one after another.

Workers are named ``w1``, ``w2``, ... in start order; their ports (and so their worker ids and the member ids of
the group) change from run to run, so everything this module returns uses the names.

Operations: :meth:`~ConnectDistributedCluster.add_connector` (``POST /connectors`` with the book's idle source
connector and ``tasks.max``), :meth:`~ConnectDistributedCluster.stop_worker` /
:meth:`~ConnectDistributedCluster.start_worker` (a bounce: the same name, port and worker id come back),
:meth:`~ConnectDistributedCluster.assignment` (who runs what, from ``GET /connectors?expand=status``:
:mod:`rebalance.kafka.connect.rest`) and :meth:`~ConnectDistributedCluster.rounds`, the rebalances every worker
went through, read from its logs (:func:`rebalance.kafka.connect.logs.parse_rounds`).

The connector is the book's own ``org.rebalance.connect.IdleSourceConnector`` (Java module): the 4.3.1 jars
the book resolves ship no source connector (no ``connect-file``, no MirrorMaker), and only the placement matters
here, so its tasks produce nothing.

Every JVM runs in its own process group with a parent-death signal (:class:`~rebalance.kafka.jvm.JvmProcess`);
:meth:`ConnectDistributedCluster.stop` -- on leaving the ``with`` block, on an error during start, on Ctrl-C and
at interpreter exit -- kills every worker and removes the cluster's folder.
"""
from __future__ import annotations

import os
import re
import tempfile
import threading
import time
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ...errors import ConnectRestError, ConnectStartError, JavaUnavailableError, LiveClientError, WaitTimeoutError
from ...validation import require
from ..class_data import class_data_archive
from ..cluster import free_ports
from ..jvm import (DEFAULT_JVM_OPTIONS, JvmProcess, StartedInWith, StopAtExit, check_jvm_settings, client_classpath,
                   find_java, log4j2_properties, remove_dir, stop_together, wait_each)
from ..settings import checked_settings, pick, properties_text
from .logs import RealRound, parse_rounds
from .rest import all_running, placement, rest_request, status_of_connectors

__all__ = ["CONNECT_BROKER_CONFIG", "CONNECTOR_CLASS", "ConnectDistributedCluster", "ConnectStartError",
           "ConnectWorker", "RESERVED", "connect_classpath"]

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
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.]*$")
#: Connect's group membership and assignment at INFO (Kafka's own connect-log4j2.yaml also logs INFO), the
#: rest at WARN
_LOG_LEVELS = {"org.apache.kafka.connect.runtime.distributed": "info",
               "org.apache.kafka.clients.consumer.internals.AbstractCoordinator": "info",
               "org.apache.kafka.connect.runtime.rest.RestServer": "info"}


def connect_classpath() -> str:
    """The workers' classpath (:func:`rebalance.kafka.jvm.client_classpath`): the book's Java module (the idle
    connector), the Kafka 4.3.1 jars of ``make java`` (``connect-runtime`` and its dependencies,
    ``java/target/lib-4.3.1``) without their ``slf4j-nop``, and the broker's log4j2 jars, the logging backend the
    distribution's ``libs/`` gives Connect (``connect-runtime``'s ``Loggers`` imports ``log4j-core``)."""
    entries = client_classpath(CONNECTOR_CLASS)
    if not any(Path(e).name.startswith("connect-runtime-") for e in entries):
        raise JavaUnavailableError("the Java module is not built (no connect-runtime jar): run 'make java' "
                                   "(needs Java 17+ and Maven)")
    return os.pathsep.join(entries)


@dataclass
class ConnectWorker:
    """One Connect worker: its ``name`` (``w1``...), REST ``port``, folder ``dir`` and JVM ``process`` (the same
    :class:`~rebalance.kafka.jvm.JvmProcess` through a bounce; ``None`` before the cluster starts it)."""

    name: str
    port: int
    dir: Path
    process: Optional[JvmProcess] = None
    #: the log files of this worker's earlier lives (a bounced worker starts a new one)
    logs: List[Path] = field(default_factory=list)

    @property
    def worker_id(self) -> str:
        """Connect's worker id: the advertised REST host and port."""
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """Its REST API's address."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        """Its JVM runs."""
        return self.process is not None and self.process.running

    @property
    def log_file(self) -> Path:
        """The log of its current (or last) life."""
        return self.dir / "connect.log"


#: every ConnectDistributedCluster running now, stopped at interpreter exit
_RUNNING: "StopAtExit[ConnectDistributedCluster]" = StopAtExit()


class ConnectDistributedCluster(StartedInWith):
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

    Defined in chapter 11, *Kafka Connect: from stop-the-world to incremental*."""

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
                 jvm_options: Optional[Sequence[str]] = None, leader_first: bool = True,
                 start_only: Optional[int] = None):
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
        check_jvm_settings(start_timeout, stop_timeout, heap, jvm_options, "256m")
        require(isinstance(leader_first, bool), "leader_first", f"must be True or False, got {leader_first!r}")
        self.leader_first = leader_first
        require(start_only is None or (isinstance(start_only, int) and not isinstance(start_only, bool)
                                       and 0 <= start_only <= workers), "start_only",
                f"must be a whole number from 0 to workers ({workers}) or None, got {start_only!r}")
        #: how many of the workers start() starts (w1...; the others wait for start_worker)
        self.start_only = workers if start_only is None else start_only
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
        self.started_in: Optional[float] = None  # seconds from start() to every worker in the group
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        alive = sum(w.running for w in self.workers)
        return (f"ConnectDistributedCluster(workers={self.size}, connect_protocol={self.connect_protocol!r}, "
                f"max_delay_ms={self.max_delay_ms}, {alive} running)")

    def worker(self, name: str) -> ConnectWorker:
        """The worker ``name``; :class:`~rebalance.errors.InputError` naming ``worker`` when there is none."""
        return pick(self.workers, lambda w: w.name, name, "worker", "worker")

    def log_tail(self, name: str, lines: int = 40) -> str:
        """The last ``lines`` lines of worker ``name``'s log (and of its JVM's own output, when any)."""
        w = self.worker(name)
        return w.process.last_lines(lines) if w.process is not None else ""

    # ------------------------------------------------------------------ start
    def start(self) -> "ConnectDistributedCluster":
        """Start every worker and wait until each serves REST and has joined the group (its first "Joined group
        at generation" line); on any failure (also Ctrl-C) everything is stopped and removed.  A worker that
        exits or does not serve and join within ``start_timeout`` raises :class:`ConnectStartError` with its
        log's tail."""
        with self._lock:
            require(not self.workers, "cluster", "is already started")
            classpath = connect_classpath()
            java = find_java()
            class_data_archive(classpath, java)  # trained (the first time) before the start's clock runs
            began = time.monotonic()
            self.workdir = Path(tempfile.mkdtemp(prefix="rebalance-connect-"))
            _RUNNING.add(self)
            try:
                log4j2 = log4j2_properties("rebalance.kafka.connect", "warn", _LOG_LEVELS)
                # w1, w2, ... in the order of their member ids ("connect-127.0.0.1:PORT-<uuid>"), which is the
                # order the eager assignor deals in and the incremental one breaks ties in
                for i, port in enumerate(sorted(free_ports(self.size), key=lambda p: f"{p}-")):
                    w = ConnectWorker(f"w{i + 1}", port, self.workdir / f"w{i + 1}")
                    w.dir.mkdir()
                    w.process = JvmProcess("connect", _MAIN, [classpath], w.dir, [str(w.dir / "worker.properties")],
                                           heap=self.heap, jvm_options=self.jvm_options, log4j2=log4j2, java=java,
                                           class_data=True)
                    self.workers.append(w)
                    self._write_config(w)
                first, rest = self.workers[:1][:self.start_only], self.workers[1:self.start_only]
                if self.leader_first and first:  # w1 joins an empty group, so it is the leader (while a member)
                    self._spawn(first[0])
                    self._wait_serving(first[0], began + self.start_timeout)
                    self._wait_joined(first, began + self.start_timeout)
                    first = []
                for w in first + rest:
                    self._spawn(w)
                for w in first + rest:
                    self._wait_serving(w, began + self.start_timeout)
                self._wait_joined(self.workers[:self.start_only], began + self.start_timeout)
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
        assert w.process is not None
        if w.log_file.exists():  # a bounced worker: keep the earlier life's log, start a new one
            old = w.dir / f"connect.{len(w.logs) + 1}.log"
            w.log_file.rename(old)
            w.logs.append(old)
        w.process.start()

    def _check_alive(self, w: ConnectWorker) -> None:
        code = w.process.exit_code() if w.process is not None else None
        if code is not None:
            raise ConnectStartError(f"Connect worker {w.name} exited with code {code} while starting",
                                    self.log_tail(w.name))

    def _wait_serving(self, w: ConnectWorker, deadline: float) -> None:
        def serving(w: ConnectWorker) -> bool:
            try:
                with urllib.request.urlopen(w.url + "/", timeout=2) as r:
                    return bool(r.status == 200)
            except OSError:  # urllib.error.URLError, a refused connection, a timeout
                return False

        wait_each([w], serving, deadline, lambda w: ConnectStartError(
            f"Connect worker {w.name} did not serve REST on {w.url} within start_timeout={self.start_timeout:g} s",
            self.log_tail(w.name)), pause=0.2, check=lambda left: self._check_alive(w))

    def _joined(self, w: ConnectWorker) -> bool:
        return w.process is not None and "Joined group at generation" in w.process.log_tail(100_000)

    def _wait_joined(self, workers: Sequence[ConnectWorker], deadline: float) -> None:
        def alive(pending: List[ConnectWorker]) -> None:
            for w in pending:
                self._check_alive(w)

        wait_each(workers, self._joined, deadline, lambda w: ConnectStartError(
            f"Connect worker {w.name} did not join the group within start_timeout={self.start_timeout:g} s",
            self.log_tail(w.name)), pause=0.2, check=alive)

    # ------------------------------------------------------------------ bounce
    def stop_worker(self, name: str, graceful: bool = True) -> None:
        """Stop one worker.  ``graceful`` (default): SIGTERM, Connect's shutdown hook stops the herder, which
        leaves the group at once (``LeaveGroup``); after ``stop_timeout`` it is killed.  ``graceful=False``:
        SIGKILL, and the group notices only after ``session.timeout.ms``.  Returns once the process has exited;
        other workers can be stopped and started meanwhile (from other threads)."""
        with self._lock:
            w = self.worker(name)
            require(w.running, "worker", f"{name} is not running")
            process = w.process
        assert process is not None
        process.stop(grace=self.stop_timeout if graceful else 0.0)

    def start_worker(self, name: str, timeout: Optional[float] = None) -> None:
        """Start a stopped worker again, with the same name, port (so the same worker id) and settings, and wait
        until it serves REST and has joined the group (:class:`ConnectStartError` if it does not within
        ``timeout``, default ``start_timeout``).  Other workers can be stopped and started meanwhile (from other
        threads)."""
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
    def _urls(self) -> List[str]:
        return [w.url for w in self.workers if w.running]

    def add_connector(self, name: str, tasks: int, timeout: float = 60.0) -> None:
        """``POST /connectors``: the idle source connector ``name`` with ``tasks.max=tasks`` (it always asks for
        exactly that many tasks).  Retried while the workers answer 409 (the group rebalances) or 503, or none
        answers; :class:`~rebalance.errors.WaitTimeoutError` when that lasts ``timeout`` seconds, and any other
        HTTP error at once (:class:`~rebalance.errors.ConnectRestError`, with its ``status``)."""
        require(isinstance(name, str) and bool(_NAME.match(name)) and "-" not in name, "name",
                f"must be a connector name of letters, digits, '_' and '.', got {name!r}")
        require(name not in self.connectors, "name", f"connector {name!r} already exists")
        require(isinstance(tasks, int) and not isinstance(tasks, bool) and 1 <= tasks <= 1000, "tasks",
                f"must be a whole number from 1 to 1000, got {tasks!r}")
        body = {"name": name, "config": {"connector.class": CONNECTOR_CLASS, "tasks.max": str(tasks)}}
        deadline = time.monotonic() + timeout
        while True:
            try:
                rest_request(self._urls(), "POST", "/connectors", body)
                break
            except ConnectRestError as e:
                # 409 is also the answer to a connector that exists (DistributedHerder, line 1155 at 4.3.1): an
                # earlier POST of this loop went through, though its answer did not come back
                if e.status == 409 and e.message == f"Connector {name} already exists":
                    break
                if e.status not in (409, 503):
                    raise
                failure: LiveClientError = e
            except LiveClientError as e:  # no worker answered
                failure = e
            if time.monotonic() > deadline:
                raise WaitTimeoutError(f"connector {name!r} was not created within {timeout:g} s: {failure}") \
                    from failure
            time.sleep(0.5)
        self.connectors[name] = tasks

    def delete_connector(self, name: str, timeout: float = 60.0) -> None:
        """``DELETE /connectors/{name}``, retried while the workers answer 409 or 503 (as :meth:`add_connector`)."""
        require(name in self.connectors, "name", f"connector {name!r} does not exist")
        deadline = time.monotonic() + timeout
        while True:
            try:
                rest_request(self._urls(), "DELETE", f"/connectors/{name}")
                break
            except ConnectRestError as e:
                if e.status == 404:  # an earlier DELETE of this loop went through
                    break
                if e.status not in (409, 503) or time.monotonic() > deadline:
                    raise
            except LiveClientError:
                if time.monotonic() > deadline:
                    raise
            time.sleep(0.5)
        del self.connectors[name]

    def assignment(self) -> Dict[str, Tuple[List[str], List[str]]]:
        """Who runs what now, from ``GET /connectors?expand=status``: ``{worker name: (connectors, tasks)}``
        (tasks as ``connector-N``, sorted), every worker listed (:func:`rebalance.kafka.connect.rest.placement`)."""
        return placement(status_of_connectors(self._urls()), {w.worker_id: w.name for w in self.workers})

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
            status = status_of_connectors(self._urls())
        except LiveClientError:
            return False
        now = placement(status, {w.worker_id: w.name for w in self.workers})
        rest = {item: name for name, (c, t) in now.items() for item in c + t}
        return rest == placed and all_running(status)

    def wait_until_settled(self, timeout: float = 60.0, quiet_s: float = 1.0) -> Dict[str, Tuple[List[str], List[str]]]:
        """Wait until :meth:`settled` holds and no worker has logged a new round for ``quiet_s`` seconds;
        return :meth:`assignment`.  :class:`~rebalance.errors.WaitTimeoutError` after ``timeout`` seconds, saying
        who runs what then."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                ok = self.settled()
            except LiveClientError:
                ok = False
            if ok and time.time() - self._last_round_time() >= quiet_s and self.settled():
                return self.assignment()
            if time.monotonic() > deadline:
                raise WaitTimeoutError(f"the Connect cluster did not settle on {self.connectors} within "
                                       f"{timeout:g} s; assignment now: {self._safe_assignment()}")
            time.sleep(0.25)

    def generation(self) -> int:
        """The latest generation in the workers' logs (-1 before any)."""
        rounds = self.rounds()
        return rounds[-1].generation if rounds else -1

    def _safe_assignment(self) -> object:
        try:
            return self.assignment()
        except LiveClientError as e:
            return str(e)

    def _last_round_time(self) -> float:
        rounds = self.rounds()
        return max((r.time for r in rounds), default=0.0)

    def counts(self) -> Dict[str, Tuple[int, int]]:
        """``{worker name: (connectors, tasks)}`` running now (REST)."""
        return {w: (len(c), len(t)) for w, (c, t) in self.assignment().items()}

    # ------------------------------------------------------------------ logs
    def rounds(self) -> List[RealRound]:
        """Every rebalance the workers completed, oldest first, read from their logs (all lives of a bounced
        worker): one :class:`~rebalance.kafka.connect.logs.RealRound` per generation, with what each member was
        assigned and told to revoke."""
        texts = {}
        for w in self.workers:
            parts = [p.read_text(errors="replace") for p in w.logs if p.exists()]
            if w.log_file.exists():
                parts.append(w.log_file.read_text(errors="replace"))
            texts[w.name] = "\n".join(parts)
        return parse_rounds(texts, {w.worker_id: w.name for w in self.workers})

    # ------------------------------------------------------------------ stop
    def stop(self) -> None:
        """Kill every worker (SIGKILL to its process group) and remove the cluster's folder; safe to call twice."""
        with self._lock:
            self._stop_locked()

    def _stop_locked(self) -> None:
        stop_together([w.process for w in self.workers if w.process is not None])
        self.workers = []
        remove_dir(self.workdir)
        self.workdir = None
        _RUNNING.discard(self)
