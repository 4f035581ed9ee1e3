"""One live consumer: a ``confluent_kafka.Consumer`` and the application's poll loop around it.

:class:`LiveMember` is what an application built on librdkafka runs (``rd_kafka_consumer_poll`` in a loop,
with a rebalance callback: ``on_assign``, ``on_revoke``, ``on_lost`` in ``confluent-kafka``); the group
protocol itself runs in librdkafka's consumer group handler (``src/rdkafka_cgrp.c``), the counterpart of the
Java client's ``ConsumerCoordinator``.  The member records:

* each callback, with the partitions it carried, in the order the application saw them;
* each ``JoinGroup`` response (generation, whether this member leads) with the partitions it owned when it
  joined, read from librdkafka's ``cgrp`` debug log (``rd_kafka_cgrp_handle_JoinGroup``), which the client
  delivers through the same ``poll`` that runs the callbacks, so in order with them;
* as leader, each assignor run (``rd_kafka_assignor_run`` in ``src/rdkafka_assignor.c`` logs every member's
  owned-partition count and every member's resulting assignment).
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Set

from .config import MemberConfig

__all__ = ["LiveMember", "AssignorRun", "TopicPartition"]

from ..common import TopicPartition
Recorder = Callable[[str, str, Dict[str, Any]], None]

_JOIN = re.compile(r"JoinGroup response: GenerationId (-?\d+), Protocol (\S*), LeaderId (\S+?)( \(me\))?, "
                   r"my MemberId (\S+?),")
#: ``rd_kafka_cgrp_rebalance`` / ``rd_kafka_cgrp_rejoin`` log why the member (re)joins
_REJOIN = re.compile(r'Group "[^"]*" initiating rebalance \(\w+\) in state \S+ \(join-state [\w-]+\) '
                     r'with \d+ assigned partition\(s\): (.*)$')
#: ``rd_kafka_cgrp_handle_SyncGroup`` logs the outcome; on success the sticky assignor's state takes the
#: generation (``rd_kafka_sticky_assignor_on_assignment_cb``), which the member sends at its next JoinGroup
_SYNC_OK = re.compile(r"SyncGroup response: Success ")
_RUN = re.compile(r'Group "[^"]*" running (\S+) assignor for (\d+) member\(s\)')
_RUN_MEMBER = re.compile(r' Member "([^"]*)"(?: \(me\))? with (\d+) owned partition\(s\)')
_DONE = re.compile(r'Group "[^"]*" (\S+) assignment for (\d+) member\(s\) finished')
_DONE_MEMBER = re.compile(r' Member "([^"]*)"(?: \(me\))? assigned (\d+) partition\(s\)')
_TP = re.compile(r"^  (\S+) \[(-?\d+)\]$")


@dataclass
class AssignorRun:
    """One run of the client-side assignor on the leader: ``members`` in the order librdkafka passed them to
    the assignor, each member's owned-partition count (``owned_counts``) and resulting ``assignment``."""

    generation: int
    protocol: str
    members: List[str] = field(default_factory=list)
    owned_counts: Dict[str, int] = field(default_factory=dict)
    assignment: Dict[str, List[TopicPartition]] = field(default_factory=dict)


class LiveMember:
    """One real consumer in a group, polled by its own thread.

    ``record(actor, kind, fields)`` receives every event; :class:`~rebalance.live.group.LiveGroup` gives it
    a recorder that stamps times and keeps the group's trace."""

    def __init__(self, name: str, config: MemberConfig, bootstrap_servers: str, group_id: str, record: Recorder):
        self.name = name
        self.config = config
        self.record = record
        self.assignment: Set[TopicPartition] = set()
        self.member_id: Optional[str] = None
        self.generation: Optional[int] = None
        #: the generation of the last SyncGroup that succeeded (None before the first): what librdkafka's
        #: cooperative-sticky member reports as its generation when it rejoins
        self.synced_generation: Optional[int] = None
        self.runs: List[AssignorRun] = []
        self.errors: List[str] = []
        self.polling = False
        self.closed = False
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._lock = threading.Lock()
        self._run: Optional[AssignorRun] = None
        self._parsing: Optional[str] = None  # "in" (inputs) or "out" (assignment)
        self._current: Optional[str] = None
        self._expected: Dict[str, int] = {}
        from confluent_kafka import Consumer  # the live extra; imported here so rebalance.live.config is light
        props = config.properties(bootstrap_servers, group_id)
        if config.group_protocol == "classic":
            props["debug"] = "cgrp"
        props["logger"] = self
        self.consumer = Consumer(props)

    # ------------------------------------------------------------------ the application's callbacks
    def _on_assign(self, consumer: Any, partitions: List[Any]) -> None:
        tps = sorted((p.topic, p.partition) for p in partitions)
        with self._lock:
            if not self.config.cooperative:
                self.assignment = set()
            self.assignment |= set(tps)
        self.record(self.name, "assigned", {"partitions": tps, "generation": self.generation})

    def _on_revoke(self, consumer: Any, partitions: List[Any]) -> None:
        tps = sorted((p.topic, p.partition) for p in partitions)
        with self._lock:
            self.assignment -= set(tps)
        self.record(self.name, "revoke", {"partitions": tps,
                                          "protocol": "cooperative" if self.config.cooperative else "eager"})

    def _on_lost(self, consumer: Any, partitions: List[Any]) -> None:
        tps = sorted((p.topic, p.partition) for p in partitions)
        with self._lock:
            self.assignment -= set(tps)
        self.record(self.name, "lost", {"partitions": tps})

    # ------------------------------------------------------------------ librdkafka's log (the logger protocol)
    def log(self, level: int, fmt: str, *args: Any) -> None:
        """``logging.Logger.log``'s signature: ``confluent-kafka`` hands every librdkafka log line here,
        from ``poll``; the ``cgrp`` lines carry the generation and, on the leader, the assignor's run."""
        msg = fmt % args if args else fmt
        text = msg.split("]: ", 1)[1] if "]: " in msg else msg
        m = _JOIN.search(text)
        if m:
            previous, self.generation = self.generation, int(m.group(1))
            self.member_id = m.group(5)
            with self._lock:
                owned = sorted(self.assignment)
            self.record(self.name, "joined", {"generation": self.generation, "leader": bool(m.group(4)),
                                              "owned": owned, "previous": previous,
                                              "synced": self.synced_generation, "member_id": self.member_id})
            return
        if _SYNC_OK.search(text):
            self.synced_generation = self.generation
            self.record(self.name, "synced", {"generation": self.generation})
            return
        m = _REJOIN.search(text)
        if m:
            self.record(self.name, "rejoin", {"reason": m.group(1)})
            return
        m = _RUN.search(text)
        if m:
            self._run = AssignorRun(self.generation if self.generation is not None else -1, m.group(1))
            self._expected = {}
            self._parsing = "in"
            return
        if self._run is None:
            return
        m = _DONE.search(text)
        if m:
            self._parsing = "out"
            return
        m = _RUN_MEMBER.match(text) if self._parsing == "in" else _DONE_MEMBER.match(text)
        if m:
            self._current = m.group(1)
            if self._parsing == "in":
                self._run.members.append(self._current)
                self._run.owned_counts[self._current] = int(m.group(2))
            else:
                self._run.assignment[self._current] = []
                self._expected[self._current] = int(m.group(2))
                self._maybe_finish()
            return
        m = _TP.match(text)
        if m and self._parsing == "out" and self._current is not None:
            self._run.assignment[self._current].append((m.group(1), int(m.group(2))))
            self._maybe_finish()
        elif "assignment failed" in text:
            self.errors.append(text)
            self._run, self._parsing = None, None

    def _maybe_finish(self) -> None:
        run = self._run
        if run is not None and len(run.assignment) == len(run.members) and all(
                len(run.assignment[m]) == self._expected.get(m, -1) for m in run.members):
            self._finish_run()

    def _finish_run(self) -> None:
        run, self._run, self._parsing, self._current = self._run, None, None, None
        if run is not None:
            self.runs.append(run)
            self.record(self.name, "assign", {"generation": run.generation, "assignor": run.protocol,
                                              "members": list(run.members), "assignment": dict(run.assignment)})

    # ------------------------------------------------------------------ lifetime
    def start(self) -> None:
        """Fetch the cluster's metadata, then subscribe and start polling in a thread.  Without the metadata
        fetched first, librdkafka may send its first JoinGroup before it knows the subscribed topics and rejoin
        once their metadata arrives ("Metadata for subscribed topic(s) has changed", ``rd_kafka_cgrp_metadata_update_check``),
        an extra rebalance whose presence depends on timing."""
        self.consumer.list_topics(timeout=30)
        self.consumer.subscribe(list(self.config.topics), on_assign=self._on_assign, on_revoke=self._on_revoke,
                                on_lost=self._on_lost)
        self.polling = True
        self.record(self.name, "member", {"what": "start", "instance": self.config.instance_id,
                                          "strategy": ",".join(self.config.strategy)
                                          if self.config.group_protocol == "classic" else "consumer"})
        self._thread = threading.Thread(target=self._loop, name=f"live-{self.name}", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                msg = self.consumer.poll(0.05)
            except Exception as exc:  # a callback's error surfaces from poll: keep it, stop polling
                self.errors.append(repr(exc))
                break
            error = msg.error() if msg is not None else None
            if error is not None and not error.retriable():
                self.errors.append(str(error))
        self.polling = False

    def stop_polling(self) -> None:
        """Stop calling ``poll`` (a stuck or crashed application): librdkafka keeps heartbeating from its own
        thread until ``max.poll.interval.ms`` expires, then leaves the group (``rd_kafka_cgrp_handle_max_poll_interval``
        ... "Application maximum poll interval exceeded")."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        self.polling = False

    def close(self) -> None:
        """Stop polling and close the consumer (``rd_kafka_consumer_close``: revokes and sends LeaveGroup, except
        for a static member, which leaves without LeaveGroup as KIP-345 asks).  Idempotent."""
        if self.closed:
            return
        self.stop_polling()
        self.closed = True
        try:
            self.consumer.close()
        except Exception as exc:  # closing twice or after a fatal error: nothing left to release
            self.errors.append(repr(exc))
