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

Everything lives in one temporary folder (``workdir``: each node's ``server.properties``, data, ``server.log``
and the JVM's own ``server.out``/``server.err``; nothing reaches the terminal).  Every port is chosen free at
start, on 127.0.0.1 only.  Each JVM is a :class:`~rebalance.kafka.jvm.JvmProcess`: its own process group, and on
Linux a parent-death signal, so it dies with the Python process even when that is killed outright (its
temporary folder is then left behind).  :meth:`KafkaCluster.stop` -- on leaving the ``with`` block, on an error
during start, on Ctrl-C, and at interpreter exit for a cluster still running -- kills every one of them and
removes the folder (``stop(graceful=True)``: Kafka's controlled shutdown first); :meth:`KafkaCluster.kill_node`
kills one node and leaves the others running (a machine that died).

A start that fails (a node exits, or the brokers do not all serve within ``start_timeout``) raises
:class:`ClusterStartError` with the tail of that node's log, after stopping everything.
"""
from __future__ import annotations

import base64
import os
import re
import socket
import struct
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ..errors import ClusterStartError as ClusterStartError  # re-exported; defined in errors
from ..errors import IllegalStateError
from ..validation import require
from ..versions import KAFKA_VERSION
from .broker_requests import metadata_brokers
from .jvm import (DEFAULT_JVM_OPTIONS, JvmProcess, StartedInWith, StopAtExit, broker_lib, check_jvm_settings,
                  find_java, kill_and_reap, log4j2_properties, parent_death_prefix, remove_dir, stop_together,
                  wait_each)
from .settings import checked_settings, pick, properties_text

__all__ = ["KafkaCluster", "ClusterStartError", "Node", "broker_classpath", "free_ports", "random_cluster_id",
           "DEFAULT_JVM_OPTIONS", "RESERVED"]

#: the settings KafkaCluster writes itself; ``broker_config`` may not change them (racks: ``racks``)
RESERVED = frozenset({
    "process.roles", "node.id", "broker.id", "listeners", "advertised.listeners", "listener.security.protocol.map",
    "inter.broker.listener.name", "controller.listener.names", "controller.quorum.voters",
    "controller.quorum.bootstrap.servers", "log.dir", "log.dirs", "metadata.log.dir", "broker.rack",
})

_SERVER_MAIN = "kafka.Kafka"
_STORAGE_TOOL = "kafka.tools.StorageTool"


@dataclass
class Node:
    """One Kafka JVM: ``node_id``, its ``roles`` (``"broker,controller"``, ``"broker"`` or ``"controller"``),
    ``port`` (the PLAINTEXT listener clients use; ``None`` on a controller-only node), ``controller_port``
    (``None`` on a broker-only node), ``rack``, its folder ``dir`` (``server.properties``, ``data/``,
    ``server.log``) and its JVM ``process``."""

    node_id: int
    roles: str
    port: Optional[int]
    controller_port: Optional[int]
    rack: Optional[str]
    dir: Path
    #: its JVM (``kafka.Kafka``), from the cluster's start on (``None`` before)
    process: Optional[JvmProcess] = None

    @property
    def is_broker(self) -> bool:
        return "broker" in self.roles.split(",")

    @property
    def is_controller(self) -> bool:
        return "controller" in self.roles.split(",")

    @property
    def running(self) -> bool:
        """Its JVM runs."""
        return self.process is not None and self.process.running


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
    return str(broker_lib(KAFKA_VERSION) / "*"), KAFKA_VERSION


def random_cluster_id() -> str:
    """A cluster id as ``kafka-storage.sh random-uuid`` prints one: 16 random bytes, URL-safe base64, no padding
    (Kafka's ``Uuid.toString``; like ``Uuid.randomUuid`` it never starts with '-')."""
    while True:
        text = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not text.startswith("-"):
            return text


def free_ports(count: int) -> List[int]:
    """``count`` distinct free TCP ports on 127.0.0.1 (each bound to port 0 and held until all are chosen)."""
    socks: List[socket.socket] = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


#: every KafkaCluster running now, stopped at interpreter exit
_RUNNING: "StopAtExit[KafkaCluster]" = StopAtExit()


class KafkaCluster(StartedInWith):
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
    (default ``$KAFKA_HOME``; unset: the jars of ``make java``).  ``class_data``: start every JVM with the
    class-data archive of the broker's classpath (:func:`~rebalance.kafka.class_data.class_data_archive`), which the
    first cluster to ask for it trains by starting and stopping a one-node cluster (about 10 s, once per build);
    a node then starts on about a fifth less CPU.

    Use it as a context manager, or call :meth:`start` and :meth:`stop`.

    Defined in chapter 10, *Watch real clients rebalance*."""

    def __init__(self, brokers: int = 1, racks: Optional[Sequence[str]] = None,
                 broker_config: Optional[Mapping[str, Union[str, int, float, bool]]] = None, *,
                 controllers: str = "combined", start_timeout: float = 60.0, stop_timeout: float = 10.0,
                 heap: str = "512m", jvm_options: Optional[Sequence[str]] = None,
                 kafka_home: Optional[str] = None, class_data: bool = True):
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
        check_jvm_settings(start_timeout, stop_timeout, heap, jvm_options, "512m")
        require(isinstance(class_data, bool), "class_data", f"must be true or false, got {class_data!r}")
        self.brokers = brokers
        self.racks: Optional[List[str]] = list(racks) if racks is not None else None
        self.broker_config = settings
        self.controllers = controllers
        self.start_timeout = float(start_timeout)
        self.stop_timeout = float(stop_timeout)
        self.heap = heap
        self.jvm_options = list(DEFAULT_JVM_OPTIONS if jvm_options is None else jvm_options)
        self.kafka_home = kafka_home
        self.class_data = class_data
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
        """Every node's JVM runs (``False`` before the start, after the stop, and once a node died or was
        killed)."""
        return bool(self.nodes) and all(n.running for n in self.nodes)

    def node(self, node_id: int) -> Node:
        """The node ``node_id``; :class:`~rebalance.errors.InputError` naming ``node_id`` when there is none."""
        return pick(self.nodes, lambda n: n.node_id, node_id, "node_id", "node")

    def log_tail(self, node_id: int, lines: int = 40) -> str:
        """The last ``lines`` lines of a node's ``server.log`` (and of its JVM's own output, when any)."""
        n = self.node(node_id)
        return n.process.last_lines(lines) if n.process is not None else ""

    def kill_node(self, node_id: int, graceful: bool = False) -> None:
        """Stop node ``node_id`` and leave the others running: SIGKILL to its JVM's process group (a machine that
        died: no controlled shutdown, the controller fences it once its broker session times out), or with
        ``graceful=True`` SIGTERM first (Kafka's controlled shutdown) and SIGKILL after ``stop_timeout``; the JVM
        is reaped.  The node stays in :attr:`nodes`, no longer running (:attr:`running` is ``False``), and its
        folder until :meth:`stop`.  :class:`~rebalance.errors.InputError` for a node that is not there,
        :class:`~rebalance.errors.IllegalStateError` for one that is not running."""
        with self._lock:
            n = self.node(node_id)
            if n.process is None or not n.process.running:
                raise IllegalStateError(f"Kafka node {node_id} is not running")
            n.process.stop(grace=self.stop_timeout if graceful else 0.0)

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
            cp, self.release = broker_classpath(self.kafka_home)
            java = find_java()
            if self.class_data:  # trained (the first time) before the start's clock runs
                from .class_data import class_data_archive
                class_data_archive(cp, java, self._train_class_data)
            began = time.monotonic()
            for attempt in (1, 2):
                self.workdir = Path(tempfile.mkdtemp(prefix="rebalance-kafka-"))
                _RUNNING.add(self)
                try:
                    self._layout()
                    self._write_configs()
                    self._format(java, cp, began)
                    for n in self.nodes:
                        n.process = self._jvm(java, cp, n, "server", _SERVER_MAIN,
                                              [str(n.dir / "server.properties")]).start()
                    self._wait_until_serving(began)
                except ClusterStartError:
                    # a port chosen free may be taken by another program before Kafka binds it: once more
                    clash = any("Address already in use" in n.process.last_lines(100_000)
                                for n in self.nodes if n.process is not None)
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
        ports = iter(free_ports(2 * self.brokers + (1 if dedicated else 0)))
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

    def _jvm(self, java: str, cp: str, n: Node, name: str, main_class: str, args: List[str]) -> JvmProcess:
        """A JVM of node ``n`` in its folder: ``NAME.log`` (log4j2), ``NAME.out``, ``NAME.err``."""
        return JvmProcess(name, main_class, [cp], n.dir, args, heap=self.heap, jvm_options=self.jvm_options,
                          log4j2=log4j2_properties("rebalance.kafka.cluster"), java=java, class_data=self.class_data,
                          class_data_training=self._train_class_data)

    def _train_class_data(self, java: str, flags: List[str]) -> None:
        """Train the class-data archive of this cluster's classpath (:func:`~rebalance.kafka.class_data.class_data_archive`):
        a one-node cluster of the same jars with the JVM flags ``flags``, started and stopped by Kafka's controlled
        shutdown, so that its JVMs exit normally and write the archive."""
        trainer = KafkaCluster(heap=self.heap, jvm_options=[*self.jvm_options, *flags], kafka_home=self.kafka_home,
                               class_data=False, start_timeout=120, stop_timeout=60)
        try:
            trainer.start()
        finally:
            servers = [n.process.process for n in trainer.nodes if n.process is not None and n.process.process]
            trainer.stop(graceful=True)
        codes = [p.returncode for p in servers]  # the processes themselves: a stopped JvmProcess lets go of its own
        if not servers or any(c is None or c < 0 for c in codes):  # killed: its archive may be cut short
            raise ClusterStartError(f"the training node did not stop by itself (exit codes {codes})")

    def _format(self, java: str, cp: str, began: float) -> None:
        """``kafka-storage.sh format -t CLUSTER_ID -c server.properties`` for every node, all at once."""
        assert self.cluster_id is not None
        tools: List[Tuple[Node, JvmProcess]] = []
        try:
            for n in self.nodes:
                tools.append((n, self._jvm(java, cp, n, "format", _STORAGE_TOOL, [
                    "format", "-t", self.cluster_id, "-c", str(n.dir / "server.properties")]).start()))
            for n, tool in tools:
                code = tool.wait(timeout=max(1.0, self.start_timeout - (time.monotonic() - began)))
                if code is None:
                    raise ClusterStartError(f"formatting node {n.node_id}'s log folder took longer than "
                                            f"start_timeout={self.start_timeout:g} s", tool.last_lines())
                if code != 0:
                    raise ClusterStartError(f"Kafka's storage tool refused node {n.node_id}'s configuration "
                                            f"(exit code {code})", tool.last_lines())
        finally:
            for _, tool in tools:
                tool.stop()

    def _wait_until_serving(self, began: float) -> None:
        want = {n.node_id for n in self.broker_nodes}

        def alive(_: List[Node]) -> None:  # every node, the controllers too
            for n in self.nodes:
                code = n.process.exit_code() if n.process is not None else None
                if code is not None:
                    raise ClusterStartError(f"Kafka node {n.node_id} ({n.roles}) exited with code {code} while "
                                            f"starting", self.log_tail(n.node_id))

        def serving_all(n: Node) -> bool:
            try:
                return n.port is not None and want <= set(metadata_brokers(n.port))
            except (OSError, struct.error, ValueError):
                return False

        wait_each(self.broker_nodes, serving_all, began + self.start_timeout, lambda n: ClusterStartError(
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
        stop_together([n.process for n in self.nodes if n.process is not None],
                      grace=self.stop_timeout if graceful else 0.0)
        self.nodes = []
        remove_dir(self.workdir)
        self.workdir = None
        _RUNNING.discard(self)
