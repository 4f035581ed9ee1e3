"""The running processes of a real Kafka Streams application: :class:`StreamsInstances`.

One JVM of the Java module's ``org.rebalance.streams.StreamsInstances`` holds N ``KafkaStreams`` clients of one
stateful application (``stream(input).groupByKey().count()``, a changelog-backed store ``counts``; one
subtopology, so one task ``0_p`` per input partition).  Each instance is a Streams client of its own -- its own
``client.id`` (the instance name ``i1``, ``i2``, ...), ``state.dir`` (and so its own process id, which Kafka
Streams keeps there) and stream threads -- in one JVM to save the machine three JVM start-ups; nothing is shared
between them but the JVM.

The JVM speaks :mod:`rebalance.kafka.jsonlines` (each instance a ``member``); it records each instance's
``StateListener`` transitions and each change of ``KafkaStreams.metadataForLocalThreads()`` (active and standby
tasks; a warm-up replica is a standby to the client), and its log holds the leader's ``StreamsPartitionAssignor``
lines (:mod:`rebalance.kafka.streams.assignor_log`).  A JVM that dies is a
:class:`~rebalance.errors.LiveClientError` with the tail of its stderr at once, a wait that runs out a
:class:`~rebalance.errors.WaitTimeoutError`.  :meth:`StreamsInstances.stop` -- on leaving the ``with`` block, on
an error, and at interpreter exit -- kills it and removes its folder.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Tuple

from ...errors import IllegalStateError, WaitTimeoutError
from ...validation import require
from ..jsonlines import StreamsRecord
from ..jsonlines_jvm import JsonLinesJvm, pause
from ..jvm import DEFAULT_JVM_OPTIONS, StartedInWith, StopAtExit, client_classpath, log4j2_properties
from .assignor_log import StreamsRebalance, parse_rebalances

__all__ = ["StreamsInstances", "STREAMS_SETTINGS", "MAIN_CLASS"]

MAIN_CLASS = "org.rebalance.streams.StreamsInstances"
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

#: every StreamsInstances running now, stopped at interpreter exit
_RUNNING: "StopAtExit[StreamsInstances]" = StopAtExit()


class StreamsInstances(StartedInWith):
    """One JVM of Kafka Streams instances of the application ``application_id`` over ``topic`` (``partitions``
    partitions), against ``bootstrap_servers``.  ``settings``: the application's Streams settings (default
    :data:`STREAMS_SETTINGS`).  Use it as a context manager."""

    def __init__(self, bootstrap_servers: str, topic: str = "words", partitions: int = 6,
                 application_id: str = "counts-app", settings: Optional[Mapping[str, object]] = None,
                 heap: str = "384m", create_topic: bool = True):
        require(isinstance(partitions, int) and 1 <= partitions <= 64, "partitions",
                f"must be a whole number from 1 to 64, got {partitions!r}")
        self.bootstrap_servers = bootstrap_servers
        self.topic = topic
        self.partitions = partitions
        self.application_id = application_id
        self.settings: Dict[str, object] = dict(STREAMS_SETTINGS if settings is None else settings)
        self.heap = heap
        self.create_topic = create_topic
        self.workdir: Optional[Path] = None
        self.jvm: Optional[JsonLinesJvm[StreamsRecord]] = None
        self.running: List[str] = []

    @property
    def log_file(self) -> Path:
        """The JVM's log4j2 file (the leader's ``StreamsPartitionAssignor`` lines)."""
        return self._jvm().process.log_file

    @property
    def records(self) -> List[StreamsRecord]:
        """Every record the JVM wrote so far."""
        return list(self._jvm().records)

    def _jvm(self) -> JsonLinesJvm[StreamsRecord]:
        if self.jvm is None:
            raise IllegalStateError("the Streams JVM is not started")
        return self.jvm

    def start(self) -> "StreamsInstances":
        """Start the JVM (in a new folder), wait for its ``ready`` and create the input topic (unless
        ``create_topic`` is false: another JVM of the application created it)."""
        cp = client_classpath(MAIN_CLASS)
        self.workdir = Path(tempfile.mkdtemp(prefix="rebalance-streams-"))
        _RUNNING.add(self)
        try:
            self.jvm = JsonLinesJvm("streams", MAIN_CLASS, self.workdir, "the Streams instances' JVM (StreamsInstances)",
                                    heap=self.heap, jvm_options=DEFAULT_JVM_OPTIONS, classpath=cp,
                                    log4j2=log4j2_properties("rebalance.kafka.streams", "warn", _LOGGERS))
            self.jvm.start(timeout=30)
            if self.create_topic:
                self.jvm.request({"op": "create_topics", "bootstrap": self.bootstrap_servers,
                                  "topics": {self.topic: self.partitions}}, "topics_created", 30)
        except BaseException:
            self.stop()
            raise
        return self

    # ------------------------------------------------------------------ operations
    def produce(self, records: int, keys: int) -> None:
        """``records`` records with keys ``k0``..``k{keys-1}`` in turn (the default partitioner spreads them)."""
        self._jvm().request({"op": "produce", "bootstrap": self.bootstrap_servers, "topic": self.topic,
                             "count": records, "keys": keys}, "produced", 60)

    def start_instance(self, name: str) -> None:
        """A new Kafka Streams instance ``name`` (client id, state dir ``WORKDIR/name``)."""
        assert self.workdir is not None
        props = {"application.id": self.application_id, "bootstrap.servers": self.bootstrap_servers,
                 "state.dir": str(self.workdir / name), "rebalance.input.topic": self.topic,
                 **{k: str(v) for k, v in self.settings.items()}}
        self._jvm().request({"op": "start", "member": name, "props": props}, "started", 30)
        self.running.append(name)

    def stop_instance(self, name: str) -> None:
        """``close`` with ``LEAVE_GROUP``: the group rebalances at once."""
        self._jvm().request({"op": "stop", "member": name}, "stopped", 60)
        self.running.remove(name)

    def count(self) -> int:
        """The sum of the counts in every running instance's store (interactive queries)."""
        return int(self._jvm().request({"op": "count"}, "count", 30)["total"])

    def describe_group(self) -> StreamsRecord:
        """The coordinator's description of the application's streams group (``Admin.describeStreamsGroups``,
        KIP-1071; only for ``group.protocol=streams``): ``group_epoch``, ``target_epoch`` and ``members`` in the
        order of the description (the order of the coordinator's member map), each with ``member_id``,
        ``process_id``, ``client_id``, ``instance`` (the instance the client id names), ``member_epoch``, and
        ``assignment`` and ``target_assignment`` (``{"active", "standby", "warmup"}``, task ids ``"0_p"``)."""
        group = self._jvm().request({"op": "describe", "bootstrap": self.bootstrap_servers,
                                     "group": self.application_id}, "group", 30)
        for member in group["members"]:
            member["instance"] = member["client_id"].split("-StreamThread-")[0]
        return group

    def tasks(self) -> Dict[str, Tuple[List[str], List[str], str]]:
        """Each running instance's latest ``metadataForLocalThreads()``: (active, standby, state)."""
        latest: Dict[str, Tuple[List[str], List[str], str]] = {}
        for rec in self.records:
            if rec["event"] == "tasks":
                latest[rec["member"]] = (rec["active"], rec["standby"], rec["state"])
        return {name: latest[name] for name in self.running if name in latest}

    def wait_settled(self, timeout: float = 60.0, quiet_s: float = 1.0, total: Optional[int] = None) -> None:
        """Until every running instance is ``RUNNING``, every task of the topology is active on one instance and
        nothing changed for ``quiet_s``; and, given ``total``, the stores count ``total`` records."""
        deadline = time.monotonic() + timeout
        last, since = None, time.monotonic()
        while time.monotonic() < deadline:
            self._jvm().check_alive()
            now = self.tasks()
            if now != last:
                last, since = now, time.monotonic()
            actives = sorted(t for a, _, _ in now.values() for t in a)
            ok = (len(now) == len(self.running) and all(s == "RUNNING" for _, _, s in now.values())
                  and actives == sorted(f"0_{p}" for p in range(self.partitions)))
            if ok and time.monotonic() - since >= quiet_s and (total is None or self.count() == total):
                return
            time.sleep(0.2)
        raise WaitTimeoutError(f"the Streams instances did not settle within {timeout:g} s: {last}")

    def wait_rebalances(self, count: int, timeout: float) -> None:
        """Until the log holds ``count`` computed assignments."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self._jvm().check_alive()
            if len(self.rebalances()) >= count:
                return
            time.sleep(0.5)
        raise WaitTimeoutError(f"fewer than {count} rebalances in the Streams JVM's log within {timeout:g} s")

    def pause(self, seconds: float) -> None:
        """Wait ``seconds``, checking every 0.2 s that the JVM is alive."""
        pause([self._jvm()], seconds)

    def rebalances(self) -> List[StreamsRebalance]:
        """The rebalances so far, from the JVM's log (:func:`~rebalance.kafka.streams.parse_rebalances`)."""
        if self.jvm is None or not self.log_file.exists():
            return []
        return parse_rebalances(self.log_file.read_text(errors="replace"))

    def stop(self) -> None:
        """Kill the JVM (SIGKILL to its process group) and remove the folder; safe to call twice."""
        if self.jvm is not None:
            self.jvm.stop()
            self.jvm = None
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)
        self.workdir = None
        self.running = []
        _RUNNING.discard(self)
