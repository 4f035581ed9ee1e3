"""A real Apache Kafka cluster on 127.0.0.1, in KRaft mode, from the jars the book pins.

:class:`KafkaCluster` starts Kafka's own server -- ``kafka.Kafka``, the main class behind the distribution's
``bin/kafka-server-start.sh`` -- as one JVM per node, after formatting each node's log folder with
``kafka.tools.StorageTool`` (``bin/kafka-storage.sh format``).  The jars are the broker classpath that
``make java`` resolves from Maven Central (``java/target/broker-RELEASE``: ``kafka_2.13`` and log4j2, the pom's
``broker`` profile), or ``$KAFKA_HOME/libs`` when ``KAFKA_HOME`` names an Apache Kafka distribution.

>>> with KafkaCluster(brokers=3, broker_config={"group.initial.rebalance.delay.ms": 0}) as c:   # doctest: +SKIP
...     c.bootstrap_servers
'127.0.0.1:40411,127.0.0.1:35873,127.0.0.1:41277'

The layout:

* one broker: one node in combined mode (``process.roles=broker,controller``), node id 1;
* N brokers: N combined nodes, ids 1..N, with a static controller quorum of all N (``controller.quorum.voters``);
  ``controllers="dedicated"`` instead runs one controller (id 0) and N brokers (ids 1..N).  Combined nodes start
  faster on 2 cores and take one JVM fewer (README: *A Kafka cluster on loopback*).

Everything lives in one temporary folder (``workdir``: each node's ``server.properties``, data and
``server.log``; nothing reaches the terminal).  Every port is chosen free at start, on 127.0.0.1 only.  Each JVM
runs in its own process group; :meth:`KafkaCluster.stop` -- on leaving the ``with`` block, on an error during
start, on Ctrl-C, and at interpreter exit for a cluster still running -- kills every one of them and removes the
folder (``stop(graceful=True)``: Kafka's controlled shutdown first).  On Linux the JVMs are also started with a
parent-death signal, so they die with the Python process even when it is killed outright (its temporary folder
is then left behind).

A start that fails (a node exits, or the brokers do not all serve within ``start_timeout``) raises
:class:`ClusterStartError` with the tail of that node's log, after stopping everything.
"""
from __future__ import annotations

import atexit
import base64
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import (Any, Callable, Collection, Dict, List, Mapping, Optional, Protocol, Sequence, Tuple, TypeVar, Union,
                    cast)

from ..errors import ClusterStartError as ClusterStartError  # re-exported; defined in errors
from ..errors import IllegalStateError, InputError, JavaUnavailableError, require
from ..versions import KAFKA_VERSION
from .oracle import find_java, java_module
from .settings import checked_settings, config_value, pick, properties_text

__all__ = ["KafkaCluster", "ClusterStartError", "Node", "broker_classpath", "DEFAULT_JVM_OPTIONS"]

#: the JVM flags of every node.  SerialGC and C1 only (TieredStopAtLevel=1) start a broker in about half the
#: time of the JVM's defaults on 2 cores (README: *A Kafka cluster on loopback*); ``-Xmx`` comes from ``heap``.
DEFAULT_JVM_OPTIONS: Tuple[str, ...] = ("-Xms32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
                                        "-Djava.awt.headless=true")

#: the settings KafkaCluster writes itself; ``broker_config`` may not change them (racks: ``racks``)
RESERVED = frozenset({
    "process.roles", "node.id", "broker.id", "listeners", "advertised.listeners", "listener.security.protocol.map",
    "inter.broker.listener.name", "controller.listener.names", "controller.quorum.voters",
    "controller.quorum.bootstrap.servers", "log.dir", "log.dirs", "metadata.log.dir", "broker.rack",
})

_SERVER_MAIN = "kafka.Kafka"
_STORAGE_TOOL = "kafka.tools.StorageTool"
_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def log4j2_properties(writer: str, root_level: str = "info", loggers: Optional[Mapping[str, str]] = None) -> str:
    """The log4j2 configuration of a JVM the package starts: every log line into one file (the system
    property ``rebalance.log.file``), none to the terminal; the root logger at ``root_level`` and the
    ``loggers`` (class or package name -> level) as given.  ``writer`` names the module, in a comment."""
    lines = [f"# written by {writer}: every log line of this JVM into one file, none to the terminal",
             "status = error", "appender.file.type = File", "appender.file.name = file",
             "appender.file.fileName = ${sys:rebalance.log.file}", "appender.file.layout.type = PatternLayout",
             "appender.file.layout.pattern = [%d] %p %m (%c)%n", f"rootLogger.level = {root_level}",
             "rootLogger.appenderRef.file.ref = file"]
    for k, (name, level) in enumerate((loggers or {}).items()):
        lines += [f"logger.l{k}.name = {name}", f"logger.l{k}.level = {level}"]
    return "\n".join(lines) + "\n"


@dataclass
class Node:
    """One Kafka JVM: ``node_id``, its ``roles`` (``"broker,controller"``, ``"broker"`` or ``"controller"``),
    ``port`` (the PLAINTEXT listener clients use; ``None`` on a controller-only node), ``controller_port``
    (``None`` on a broker-only node), ``rack`` and its folder ``dir`` (``server.properties``, ``data/``,
    ``server.log``)."""

    node_id: int
    roles: str
    port: Optional[int]
    controller_port: Optional[int]
    rack: Optional[str]
    dir: Path
    process: Optional[subprocess.Popen] = None

    @property
    def is_broker(self) -> bool:
        return "broker" in self.roles.split(",")

    @property
    def is_controller(self) -> bool:
        return "controller" in self.roles.split(",")


def broker_classpath(kafka_home: Optional[str] = None) -> Tuple[str, str]:
    """``(classpath, release)`` of the broker: ``$KAFKA_HOME/libs/*`` when ``kafka_home`` (default: the
    ``KAFKA_HOME`` environment variable) is set, else ``java/target/broker-KAFKA_VERSION/*`` from ``make java``."""
    home = kafka_home if kafka_home is not None else os.environ.get("KAFKA_HOME")
    if home:
        libs = Path(home) / "libs"
        jars = sorted(libs.glob("kafka_2.1*-*.jar")) if libs.is_dir() else []
        jars = [j for j in jars if not re.search(r"-(sources|javadoc|test|test-sources|scaladoc)\.jar$", j.name)]
        require(bool(jars), "KAFKA_HOME", f"{home} is not an Apache Kafka distribution folder "
                                          f"(no libs/kafka_2.13-VERSION.jar in it)")
        release = re.sub(r"^kafka_2\.1\d-|\.jar$", "", jars[0].name)
        return str(libs / "*"), release
    lib = java_module() / "target" / f"broker-{KAFKA_VERSION}"
    if not any(lib.glob("kafka_2.13-*.jar")):
        raise JavaUnavailableError(f"Kafka's broker jars are not resolved ({lib} is missing): run 'make java' "
                                   f"(needs Java 17+ and Maven), or set KAFKA_HOME to a Kafka distribution folder")
    return str(lib / "*"), KAFKA_VERSION


def random_cluster_id() -> str:
    """A cluster id as ``kafka-storage.sh random-uuid`` prints one: 16 random bytes, URL-safe base64, no padding
    (Kafka's ``Uuid.toString``; like ``Uuid.randomUuid`` it never starts with '-')."""
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not text.startswith("-"):
            return text


def _free_ports(count: int) -> List[int]:
    """``count`` distinct free TCP ports on 127.0.0.1 (each bound to port 0 and held until all are chosen)."""
    socks = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _tail(path: Path, lines: int) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 200_000))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def _jvm_log_tail(folder: Path, log_name: str, lines: int) -> str:
    """The last ``lines`` lines of a JVM's log ``folder/log_name``, then of its own output (``stdout.log``) when
    it wrote any: what a failed start shows (a broker's ``server.log``, a Connect worker's ``connect.log``)."""
    text = _tail(folder / log_name, lines)
    out = _tail(folder / "stdout.log", lines)
    return text + (f"\n--- JVM output ---\n{out}" if out.strip() else "")


def _metadata_brokers(port: int, timeout: float = 2.0) -> Dict[int, Tuple[str, int, Optional[str]]]:
    """The brokers a broker on ``127.0.0.1:port`` reports, ``{node_id: (host, port, rack)}``, from one Metadata
    request (API key 3, version 1: an empty topic list asks for brokers only).  Only fenced-out (not yet
    registered, or shut down) brokers are missing from the answer."""
    client = b"rebalance"
    body = struct.pack(">hhih", 3, 1, 1, len(client)) + client + struct.pack(">i", 0)
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(struct.pack(">i", len(body)) + body)
        size = struct.unpack(">i", _recv(s, 4))[0]
        data = _recv(s, size)
    pos = 4  # correlation id
    (count,) = struct.unpack_from(">i", data, pos)
    pos += 4
    brokers = {}
    for _ in range(count):
        node_id, n = struct.unpack_from(">ih", data, pos)
        pos += 6
        host = data[pos:pos + n].decode()
        pos += n
        bport, rn = struct.unpack_from(">ih", data, pos)
        pos += 6
        rack = None if rn < 0 else data[pos:pos + rn].decode()
        pos += max(rn, 0)
        brokers[node_id] = (host, bport, rack)
    return brokers


def _recv(s: socket.socket, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = s.recv(n - got)
        if not chunk:
            raise ConnectionError("connection closed")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _pdeathsig_prefix() -> List[str]:
    """``setpriv --pdeathsig KILL --`` on Linux when this is the main thread: the JVM is killed when the Python
    process dies, however it dies.  (The signal follows the thread that started the child, so it is only used
    from the main thread, which lives as long as the process.)"""
    if sys.platform.startswith("linux") and threading.current_thread() is threading.main_thread():
        setpriv = shutil.which("setpriv")
        if setpriv:
            return [setpriv, "--pdeathsig", "KILL", "--"]
    return []


def _check_jvm(start_timeout: object, stop_timeout: object, heap: object, jvm_options: object,
               heap_example: str) -> None:
    """The JVM settings every driver of real processes takes: positive timeouts (s), a heap size, JVM flags."""
    for field, value in (("start_timeout", start_timeout), ("stop_timeout", stop_timeout)):
        require(isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0, field,
                f"must be a positive number of seconds, got {value!r}")
    require(isinstance(heap, str) and bool(re.fullmatch(r"\d+[kmgKMG]?", heap)), "heap",
            f"must be a JVM heap size such as {heap_example!r}, got {heap!r}")
    require(jvm_options is None or (isinstance(jvm_options, (list, tuple))
                                    and all(isinstance(o, str) for o in jvm_options)), "jvm_options",
            f"must be a list of JVM flags, got {jvm_options!r}")


_T = TypeVar("_T")


def _wait_each(pending: Sequence[_T], ready: Callable[[_T], bool], deadline: float,
               timed_out: Callable[[_T], Exception], pause: float,
               check: Callable[[List[_T]], None] = lambda left: None) -> None:
    """Until ``ready(x)`` holds for every ``x`` of ``pending`` (each pass first calls ``check`` with the ones still
    pending; it raises for a process that died); past ``deadline`` (``time.monotonic()``) raises ``timed_out`` of
    the first one still pending."""
    left = list(pending)
    while True:
        check(left)
        left = [x for x in left if not ready(x)]
        if not left:
            return
        if time.monotonic() > deadline:
            raise timed_out(left[0])
        time.sleep(pause)


class _Startable(Protocol):
    def start(self) -> Any: ...

    def stop(self) -> None: ...


_S = TypeVar("_S", bound=_Startable)


class _StartedInWith:
    """A mixin: ``start()`` on entering a ``with`` block (which gives the object), ``stop()`` on leaving it."""

    def __enter__(self: _S) -> _S:
        self.start()
        return self

    def __exit__(self: _Startable, *exc: object) -> None:
        self.stop()


def _stopped_at_exit() -> set:
    """A set for the objects (with a ``stop()``) that hold processes: each is added when it starts and discarded
    when it stops, so it is held also when the caller dropped its reference, and whatever is still in the set
    when the interpreter exits is stopped (started outside a ``with`` block and never stopped)."""
    held: set = set()

    @atexit.register
    def _stop_all() -> None:
        for obj in list(held):
            obj.stop()

    return held


_RUNNING: "set[KafkaCluster]" = _stopped_at_exit()


class KafkaCluster(_StartedInWith):
    """A KRaft Kafka cluster of ``brokers`` brokers on 127.0.0.1, from the book's pinned jars.

    ``racks``: one ``broker.rack`` per broker, in broker order (broker *i+1* gets ``racks[i]``).
    ``broker_config``: Kafka broker settings by name, applied to every node (values: strings, numbers or
    booleans), e.g. ``{"group.initial.rebalance.delay.ms": 0, "offsets.topic.num.partitions": 5}``; Kafka
    accepts names it does not know (and ignores them), but rejects bad values at start.  The settings that
    shape the cluster (``node.id``, ``listeners``, ``log.dirs``, ...: :data:`RESERVED`) are KafkaCluster's own.
    Internal topics' replication follows the cluster's size unless set here: replication factor
    ``min(3, brokers)``, ``min.insync.replicas`` 2 from three brokers on, else 1.
    ``controllers``: ``"combined"`` (every node is a broker and a controller) or ``"dedicated"`` (one
    controller node and the brokers).  ``heap``: each JVM's ``-Xmx``.  ``jvm_options``: the JVM flags
    (default :data:`DEFAULT_JVM_OPTIONS`).  ``kafka_home``: a Kafka distribution folder whose ``libs/`` to run
    (default ``$KAFKA_HOME``; unset: the jars of ``make java``).

    Use it as a context manager, or call :meth:`start` and :meth:`stop`.

    Defined in chapter 13, *Watch real clients rebalance*."""

    def __init__(self, brokers: int = 1, racks: Optional[Sequence[str]] = None,
                 broker_config: Optional[Mapping[str, Union[str, int, float, bool]]] = None, *,
                 controllers: str = "combined", start_timeout: float = 60.0, stop_timeout: float = 10.0,
                 heap: str = "512m", jvm_options: Optional[Sequence[str]] = None,
                 kafka_home: Optional[str] = None):
        require(isinstance(brokers, int) and not isinstance(brokers, bool) and 1 <= brokers <= 9, "brokers",
                f"must be a whole number from 1 to 9, got {brokers!r}")
        if racks is not None:
            require(isinstance(racks, (list, tuple)) and len(racks) == brokers, "racks",
                    f"must list one rack per broker ({brokers}), got {racks!r}")
            for i, rack in enumerate(racks):
                require(isinstance(rack, str) and bool(rack.strip()) and "\n" not in rack, f"racks[{i}]",
                        f"must be a non-empty rack name, got {rack!r}")
        settings = checked_settings(broker_config, "broker_config", "Kafka broker", "KafkaCluster", RESERVED,
                                     {"broker.rack": " (use racks=[...])"})
        require(controllers in ("combined", "dedicated"), "controllers",
                f"must be 'combined' or 'dedicated', got {controllers!r}")
        _check_jvm(start_timeout, stop_timeout, heap, jvm_options, "512m")
        self.brokers = brokers
        self.racks: Optional[List[str]] = list(racks) if racks is not None else None
        self.broker_config = settings
        self.controllers = controllers
        self.start_timeout = float(start_timeout)
        self.stop_timeout = float(stop_timeout)
        self.heap = heap
        self.jvm_options = list(DEFAULT_JVM_OPTIONS if jvm_options is None else jvm_options)
        self.kafka_home = kafka_home
        self.release: Optional[str] = None
        self.cluster_id: Optional[str] = None
        self.workdir: Optional[Path] = None
        self.nodes: List[Node] = []
        self.started_in: Optional[float] = None  # seconds from start() to every broker serving
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ the public face
    @property
    def bootstrap_servers(self) -> str:
        """``"127.0.0.1:port,..."``, every broker's PLAINTEXT listener."""
        if not self.nodes:
            raise IllegalStateError("the Kafka cluster is not started: use it in a with block or call start()")
        return ",".join(f"127.0.0.1:{n.port}" for n in self.broker_nodes)

    @property
    def broker_nodes(self) -> List[Node]:
        return [n for n in self.nodes if n.is_broker]

    @property
    def running(self) -> bool:
        return bool(self.nodes) and all(n.process is not None and n.process.poll() is None for n in self.nodes)

    def node(self, node_id: int) -> Node:
        return pick(self.nodes, lambda n: n.node_id, node_id, "node_id", "node")

    def log_tail(self, node_id: int, lines: int = 40) -> str:
        """The last ``lines`` lines of a node's ``server.log`` (and of its JVM's own output, when any)."""
        return _jvm_log_tail(self.node(node_id).dir, "server.log", lines)

    def __repr__(self) -> str:
        state = ("stopped" if not self.nodes else f"running at {self.bootstrap_servers}" if self.running
                 else f"started at {self.bootstrap_servers}, but a node has exited")
        return f"KafkaCluster(brokers={self.brokers}, release={self.release}, {state})"

    # ------------------------------------------------------------------ start
    def start(self) -> "KafkaCluster":
        """Format every node's folder, start every JVM and wait until each broker reports all brokers; on any
        failure (also Ctrl-C) everything started so far is stopped and removed before the error propagates."""
        with self._lock:
            require(not self.nodes, "cluster", "is already started")
            began = time.monotonic()
            cp, self.release = broker_classpath(self.kafka_home)
            java = find_java()
            for attempt in (1, 2):
                self.workdir = Path(tempfile.mkdtemp(prefix="rebalance-kafka-"))
                _RUNNING.add(self)
                try:
                    self._layout()
                    self._write_configs()
                    self._format(java, cp, began)
                    for n in self.nodes:
                        n.process = self._spawn(java, cp, n, [_SERVER_MAIN, str(n.dir / "server.properties")],
                                                n.dir / "server.log", n.dir / "stdout.log")
                    self._wait_until_serving(began)
                except ClusterStartError:
                    # a port chosen free may be taken by another program before Kafka binds it: once more
                    clash = any("Address already in use" in _tail(n.dir / "server.log", 100_000) for n in self.nodes)
                    self._stop_locked()
                    if attempt == 2 or not clash:
                        raise
                except BaseException:
                    self._stop_locked()
                    raise
                else:
                    break
            self.started_in = time.monotonic() - began
            return self

    def _layout(self) -> None:
        assert self.workdir is not None
        dedicated = self.controllers == "dedicated"
        ports = iter(_free_ports(2 * self.brokers + (1 if dedicated else 0)))
        if dedicated:
            self.nodes.append(Node(0, "controller", None, next(ports), None, self.workdir / "node-0"))
        for i in range(self.brokers):
            rack = self.racks[i] if self.racks else None
            cport = None if dedicated else next(ports)
            roles = "broker" if dedicated else "broker,controller"
            self.nodes.append(Node(i + 1, roles, next(ports), cport, rack, self.workdir / f"node-{i + 1}"))
        self.cluster_id = random_cluster_id()

    def _write_configs(self) -> None:
        assert self.workdir is not None
        (self.workdir / "log4j2.properties").write_text(log4j2_properties("rebalance.kafka.cluster"))
        voters = ",".join(f"{n.node_id}@127.0.0.1:{n.controller_port}" for n in self.nodes if n.is_controller)
        rf = min(3, self.brokers)
        min_isr = 2 if self.brokers >= 3 else 1
        defaults = {  # Kafka's defaults (3 and 2) need three brokers: these follow the cluster's size
            "offsets.topic.replication.factor": rf,
            "transaction.state.log.replication.factor": rf,
            "transaction.state.log.min.isr": min_isr,
            "share.coordinator.state.topic.replication.factor": rf,
            "share.coordinator.state.topic.min.isr": min_isr,
        }
        for n in self.nodes:
            n.dir.mkdir()
            listeners, protocols = [], []
            if n.is_broker:
                listeners.append(f"PLAINTEXT://127.0.0.1:{n.port}")
                protocols.append("PLAINTEXT:PLAINTEXT")
            if n.is_controller:
                listeners.append(f"CONTROLLER://127.0.0.1:{n.controller_port}")
                protocols.append("CONTROLLER:PLAINTEXT")
            if not n.is_controller:
                protocols.append("CONTROLLER:PLAINTEXT")
            props: Dict[str, str] = {
                "process.roles": n.roles,
                "node.id": str(n.node_id),
                "listeners": ",".join(listeners),
                "listener.security.protocol.map": ",".join(protocols),
                "controller.listener.names": "CONTROLLER",
                "controller.quorum.voters": voters,
                "log.dirs": str(n.dir / "data"),
            }
            if n.is_broker:
                props["advertised.listeners"] = f"PLAINTEXT://127.0.0.1:{n.port}"
                props["inter.broker.listener.name"] = "PLAINTEXT"
                if n.rack is not None:
                    props["broker.rack"] = n.rack
            # a dedicated controller reads some of them too (num.partitions, default.replication.factor of
            # the topics it creates); the settings it has no use for it ignores
            props.update({k: str(v) for k, v in defaults.items()})
            props.update(self.broker_config)
            (n.dir / "server.properties").write_text(
                "# written by rebalance.kafka.cluster\n" + properties_text(props))

    def _spawn(self, java: str, cp: str, n: Node, args: List[str], log_file: Path, out_file: Path) -> subprocess.Popen:
        assert self.workdir is not None
        cmd = _pdeathsig_prefix() + [java, f"-Xmx{self.heap}", *self.jvm_options,
                                     f"-Dlog4j2.configurationFile={self.workdir / 'log4j2.properties'}",
                                     f"-Drebalance.log.file={log_file}", "-cp", cp, *args]
        with open(out_file, "ab") as out:
            return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                    cwd=n.dir, start_new_session=True)

    def _format(self, java: str, cp: str, began: float) -> None:
        """``kafka-storage.sh format -t CLUSTER_ID -c server.properties`` for every node, all at once."""
        assert self.cluster_id is not None
        procs: List[Tuple[Node, subprocess.Popen]] = []
        try:
            for n in self.nodes:
                procs.append((n, self._spawn(java, cp, n, [_STORAGE_TOOL, "format", "-t", self.cluster_id, "-c",
                                                           str(n.dir / "server.properties")],
                                             n.dir / "format.log", n.dir / "format.out")))
            for n, p in procs:
                try:
                    code = p.wait(timeout=max(1.0, self.start_timeout - (time.monotonic() - began)))
                except subprocess.TimeoutExpired:
                    raise ClusterStartError(f"formatting node {n.node_id}'s log folder took longer than "
                                            f"start_timeout={self.start_timeout:g} s",
                                            _tail(n.dir / "format.out", 40)) from None
                if code != 0:
                    raise ClusterStartError(f"Kafka's storage tool refused node {n.node_id}'s configuration "
                                            f"(exit code {code})", self._format_tail(n))
        finally:
            for _, p in procs:
                if p.poll() is None:
                    _kill_group(p, signal.SIGKILL)
                    p.wait()

    @staticmethod
    def _format_tail(n: Node) -> str:
        out, log = _tail(n.dir / "format.out", 40), _tail(n.dir / "format.log", 40)
        return "\n".join(t for t in (log, out) if t.strip())

    def _wait_until_serving(self, began: float) -> None:
        want = {n.node_id for n in self.broker_nodes}

        def alive(_: List[Node]) -> None:  # every node, the controllers too
            for n in self.nodes:
                assert n.process is not None
                code = n.process.poll()
                if code is not None:
                    raise ClusterStartError(f"Kafka node {n.node_id} ({n.roles}) exited with code {code} while "
                                            f"starting", self.log_tail(n.node_id))

        def serving_all(n: Node) -> bool:
            try:
                return want <= set(_metadata_brokers(n.port))  # type: ignore[arg-type]
            except (OSError, struct.error, ValueError):
                return False

        _wait_each(self.broker_nodes, serving_all, began + self.start_timeout, lambda n: ClusterStartError(
            f"Kafka broker {n.node_id} did not serve all {len(want)} broker(s) within "
            f"start_timeout={self.start_timeout:g} s", self.log_tail(n.node_id)), pause=0.1, check=alive)

    # ------------------------------------------------------------------ stop
    def stop(self, graceful: bool = False) -> None:
        """Stop every JVM of the cluster and remove its folder; safe to call twice, and on a cluster that never
        started.  By default each JVM is killed (SIGKILL to its process group): its data is deleted a moment
        later, so Kafka's orderly shutdown would only tidy files nobody reads, and with three combined nodes it
        takes over 5 s (the Raft leader waits for followers that are stopping too).  ``graceful=True`` sends
        SIGTERM first (Kafka's controlled shutdown) and kills what is left after ``stop_timeout``."""
        with self._lock:
            self._stop_locked(graceful)

    def _stop_locked(self, graceful: bool = False) -> None:
        procs = [n.process for n in self.nodes if n.process is not None]
        if graceful:
            for p in procs:
                if p.poll() is None:
                    _kill_group(p, signal.SIGTERM)
            deadline = time.monotonic() + self.stop_timeout
            for p in procs:
                try:
                    p.wait(timeout=max(0.0, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    pass
        for p in procs:
            _kill_and_reap(p)
        for n in self.nodes:
            n.process = None
        self.nodes = []
        _remove_dir(self.workdir)
        self.workdir = None
        _RUNNING.discard(self)


def _kill_and_reap(p: subprocess.Popen) -> None:
    """SIGKILL to the process group of ``p`` unless it is reaped already (then its pid, which is its group id, may
    be another's), and wait for it."""
    if p.poll() is None:
        _kill_group(p, signal.SIGKILL)
    p.wait()


def _remove_dir(workdir: Optional[Path]) -> None:
    """Remove a stopped process's folder, if any."""
    if workdir is not None:
        shutil.rmtree(workdir, ignore_errors=True)


def _kill_group(p: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(p.pid, sig)  # start_new_session: the group id is the child's pid
    except (ProcessLookupError, PermissionError):
        pass
