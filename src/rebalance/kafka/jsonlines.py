"""The one JSON-lines protocol of the book's client drivers, and :class:`JsonLinesJvm`, its Python side.

Three Java mains of the book's Java module speak it (``org.rebalance.clients.JsonLines`` is its Java side, with
the same table in its comment): ``org.rebalance.consumers.ScenarioMembers`` (``KafkaConsumer`` members,
:mod:`rebalance.kafka.consumers`), ``org.rebalance.share.ShareMembers`` (``KafkaShareConsumer`` members,
:mod:`rebalance.kafka.share`) and ``org.rebalance.streams.StreamsInstances`` (``KafkaStreams`` instances,
:mod:`rebalance.kafka.streams`).

* **commands**: JSON objects, one a line, on the JVM's stdin: ``{"op", "member"?, "t0"?, ...}``; ``member``
  names the client the command is about (a consumer, a share consumer, a Streams instance: one key for all);
* **records**: JSON objects, one a line, on its stdout: ``{"event", "t", "member"?, ...}``;
* **handshake**: the JVM writes ``{"event": "ready", "driver": MAIN}`` unprompted, once, when it reads commands
  (:meth:`JsonLinesJvm.start` waits for it); there is no other;
* **time**: ``t`` is milliseconds since ``t0``, the epoch milliseconds of the last command that carried a
  ``t0`` (the drivers send the scenario clock's start with their ``start`` commands), and before any did, the
  JVM's start;
* **errors**: ``{"event": "error", "op"?, "member"?, "field"?, "message"}``.  With ``op``: that command failed
  or was refused (``field`` names a missing or ill-typed field; ``"op"`` an unknown command), and
  :meth:`JsonLinesJvm.request` raises :class:`~rebalance.errors.LiveClientError` saying so; without ``op``: a
  line that was not a JSON object, or a client's own thread failed (``member``), which a driver reports as data.
  The JVM goes on serving after every error;
* **end**: end of stdin halts the JVM at once.

===============  =======  =============================================  =========================================
op               drivers  fields                                         answer records
===============  =======  =============================================  =========================================
``warm``         C        bootstrap?                                     ``warmed``
``create_topics`` C S K   bootstrap, topics {name: partitions}, group?,  ``topics_created`` (topic_ids)
                          group_config? (S)
``start``        C        member, topics, props, revoke_ms?, batch_ms?   ``started``; ``assigned``/``revoked``/
                                                                         ``lost``, ``assignor``
``leave``        C        member                                         ``closing``, ``closed``
``observe``      C        bootstrap, group, topics, interval_ms?         ``topic_ids``, then ``group`` records
``start``        S        member, topics, props, release?, reject?,      ``started``; ``delivered``, ``acked``
                          slow?, slow_ms?
``stop``         S                                                       ``closing``/``closed``, ``stopped``
``produce``      S K      bootstrap, topic, count, partition? (S),       ``produced`` (count; S: offsets)
                          keys (K)
``describe``     S K      bootstrap, group                               ``group``
``offsets``      S        bootstrap, group                               ``offsets`` (start_offsets, lags)
``start``        K        member, props                                  ``started``; ``state``, ``tasks``
``stop``         K        member                                         ``stopped`` (closed)
``count``        K                                                       ``count`` (total)
===============  =======  =============================================  =========================================

(C: ``ScenarioMembers``, S: ``ShareMembers``, K: ``StreamsInstances``.)  The commands are the TypedDicts below
(:class:`Command` and its subclasses), the records :class:`Record` and one subclass per driver
(:class:`ConsumerRecord`, :class:`ShareRecord`, :class:`StreamsRecord`), every field a record of that driver
may carry.

:class:`JsonLinesJvm` runs one such JVM through :class:`~rebalance.kafka.jvm.JvmProcess` (``pipes="both"``):
a reader thread keeps every record, in order (:attr:`JsonLinesJvm.records`); :meth:`~JsonLinesJvm.send` writes a
command; :meth:`~JsonLinesJvm.await_record` waits for a record, checking every 0.2 s that the JVM is alive, so a
JVM that died is a :class:`~rebalance.errors.LiveClientError` with the tail of its stderr at once, not at the
timeout; a send to a dead JVM is one too.
"""
from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable, Dict, Generic, Iterable, List, Optional, Sequence, TypedDict, TypeVar, Union, cast

from ..errors import LiveClientError, WaitTimeoutError
from .jvm import CLIENT_JVM_OPTIONS, JvmProcess, kill_and_reap, module_classpath

__all__ = ["JsonLinesJvm", "AnyCommand", "Command", "Warm", "CreateTopics", "ConsumerStart", "Observe", "ShareStart",
           "Produce", "GroupCommand", "StreamsStart", "Record", "SubscriptionRecord", "ConsumerGroupMember",
           "ShareGroupMember", "StreamsTasks", "StreamsGroupMember", "ConsumerRecord", "ShareRecord", "StreamsRecord", "pause",
           "CHECK_INTERVAL_S"]

#: how often a wait checks that the JVMs it waits on are alive
CHECK_INTERVAL_S = 0.2


# ------------------------------------------------------------------------------------------ commands
class _CommandOp(TypedDict):
    op: str


class Command(_CommandOp, total=False):
    """Every command: ``op``, the ``member`` it is about, ``t0`` (epoch ms) to reset the JVM's clock."""

    member: str
    t0: int


class Warm(Command, total=False):
    """``warm`` (C): load the consumer's classes against ``bootstrap``."""

    bootstrap: str


class CreateTopics(Command, total=False):
    """``create_topics`` (C S K): ``topics`` {name: partitions}; C: ``group`` (wait for its coordinator); S:
    ``group`` and ``group_config`` (the share group's dynamic configs)."""

    bootstrap: str
    topics: Dict[str, int]
    group: str
    group_config: Dict[str, str]


class ConsumerStart(Command, total=False):
    """``start`` (C): a ``KafkaConsumer`` of ``topics`` with ``props``; ``revoke_ms`` slept in
    ``onPartitionsRevoked``, ``batch_ms`` after each poll."""

    topics: List[str]
    props: Dict[str, str]
    revoke_ms: int
    batch_ms: int


class Observe(Command, total=False):
    """``observe`` (C): ``describeConsumerGroups`` of ``group`` every ``interval_ms``."""

    bootstrap: str
    group: str
    topics: List[str]
    interval_ms: int


class ShareStart(Command, total=False):
    """``start`` (S): a ``KafkaShareConsumer`` of ``topics``; the offsets to release, reject, or accept after
    ``slow_ms``."""

    topics: List[str]
    props: Dict[str, str]
    release: List[int]
    reject: List[int]
    slow: List[int]
    slow_ms: int


class Produce(Command, total=False):
    """``produce`` (S K): ``count`` records to ``topic``; S: to ``partition``; K: keys ``k0..k(keys-1)``."""

    bootstrap: str
    topic: str
    count: int
    partition: int
    keys: int


class GroupCommand(Command, total=False):
    """``describe`` (S K) and ``offsets`` (S): about ``group``."""

    bootstrap: str
    group: str


class StreamsStart(Command, total=False):
    """``start`` (K): a ``KafkaStreams`` instance with the settings ``props``."""

    props: Dict[str, str]


# ------------------------------------------------------------------------------------------ records
class _RecordEvent(TypedDict):
    event: str
    t: int


class Record(_RecordEvent, total=False):
    """Every record: ``event``, ``t`` (ms since ``t0``; ``-1`` on an error record of a line the JVM wrote that was
    not a record), the ``member`` it is about; an ``error``'s ``op``, ``field`` and ``message``; ``ready``'s
    ``driver``; ``topics_created``'s ``topic_ids``."""

    member: str
    op: str
    field: str
    message: str
    driver: str
    topic_ids: Dict[str, str]


class SubscriptionRecord(TypedDict):
    """One member's ``Subscription`` in an ``assignor`` record (C)."""

    member_id: str
    topics: List[str]
    owned: List[str]
    generation: Optional[int]
    instance_id: Optional[str]
    rack: Optional[str]
    user_data: Optional[str]


class _ConsumerMemberIds(TypedDict):
    member_id: str
    client_id: str
    instance_id: Optional[str]
    member_epoch: int
    assignment: List[str]


class ConsumerGroupMember(_ConsumerMemberIds, total=False):
    """A member of a ``group`` record (C): ``describeConsumerGroups``; ``target`` when the broker has one."""

    target: List[str]


class ConsumerRecord(Record, total=False):
    """A record of ``ScenarioMembers`` (C): callbacks (``assigned``/``revoked``/``lost``: partitions,
    generation, member_id), ``assignor`` (name, subscriptions, partitions_per_topic, assignment), the observer's
    ``topic_ids`` (ids) and ``group`` (state, type, group_epoch, target_epoch, members)."""

    partitions: List[str]
    generation: int
    generation_error: str
    member_id: str
    name: str
    subscriptions: List[SubscriptionRecord]
    partitions_per_topic: Dict[str, int]
    assignment: Dict[str, List[str]]
    ids: Dict[str, str]
    state: str
    type: str
    group_epoch: int
    target_epoch: int
    members: List[ConsumerGroupMember]


class ShareGroupMember(TypedDict):
    """A member of a ``group`` record (S): ``describeShareGroups``."""

    member_id: str
    client_id: str
    member_epoch: int
    assignment: List[str]


class ShareRecord(Record, total=False):
    """A record of ``ShareMembers`` (S): ``delivered`` (topic, partition, offset, delivery_count, ack),
    ``acked`` (topic, partition, offsets, ok, error), ``produced`` (count, offsets), ``group`` (state,
    group_epoch, target_epoch, members), ``offsets`` (start_offsets, lags); ``jvm``: which of the run's JVMs
    wrote it (set by the driver)."""

    topic: str
    partition: int
    offset: int
    delivery_count: int
    ack: str
    offsets: List[int]
    ok: bool
    error: str
    count: int
    state: str
    group_epoch: int
    target_epoch: int
    members: List[ShareGroupMember]
    start_offsets: Dict[str, int]
    lags: Dict[str, int]
    jvm: int


class StreamsTasks(TypedDict):
    """A streams group member's tasks (``"subtopology_partition"``)."""

    active: List[str]
    standby: List[str]
    warmup: List[str]


class _StreamsMemberIds(TypedDict):
    member_id: str
    process_id: str
    client_id: str
    member_epoch: int
    assignment: StreamsTasks
    target_assignment: StreamsTasks


class StreamsGroupMember(_StreamsMemberIds, total=False):
    """A member of a ``group`` record (K): ``describeStreamsGroups``; ``instance``: the instance its client id
    names (set by the driver)."""

    instance: str


class StreamsRecord(Record, total=False):
    """A record of ``StreamsInstances`` (K): ``state`` (previous, state), ``tasks`` (active, standby, state),
    ``stopped`` (closed), ``produced`` (count), ``count`` (total), ``group`` (group, state, group_epoch,
    target_epoch, members)."""

    previous: str
    state: str
    active: List[str]
    standby: List[str]
    closed: bool
    count: int
    total: int
    group: str
    group_epoch: int
    target_epoch: int
    members: List[StreamsGroupMember]


#: any command of the table
AnyCommand = Union[Command, Warm, CreateTopics, ConsumerStart, Observe, ShareStart, Produce, GroupCommand, StreamsStart]
R = TypeVar("R", bound=Record)


# ------------------------------------------------------------------------------------------ the client
class JsonLinesJvm(Generic[R]):
    """One JVM speaking the protocol: ``main_class`` of the Java module, named ``name`` (its files ``NAME.err``...
    in ``folder``), ``what`` naming it in every error (e.g. ``"member JVM 3 (ScenarioMembers)"``).  ``heap``,
    ``jvm_options``, ``classpath`` (default :func:`~rebalance.kafka.jvm.module_classpath`) and ``log4j2`` go to
    :class:`~rebalance.kafka.jvm.JvmProcess`.

    :meth:`start` spawns it and waits for ``ready``; :attr:`records` holds every record it wrote, in order.
    :meth:`stop` (or :meth:`kill`, the same: SIGKILL) ends it; a JVM stopped so is no longer checked."""

    def __init__(self, name: str, main_class: str, folder: Path, what: str, *, heap: str,
                 jvm_options: Sequence[str] = CLIENT_JVM_OPTIONS, classpath: Optional[Sequence[str]] = None,
                 log4j2: Optional[str] = None):
        self.process = JvmProcess(name, main_class, list(classpath) if classpath is not None else module_classpath(),
                                  folder, heap=heap, jvm_options=jvm_options, log4j2=log4j2, pipes="both")
        self.what = what
        self.records: List[R] = []
        self._cond = threading.Condition()
        self._eof = False
        self._stopped = False
        self._reader: Optional[threading.Thread] = None

    # -------------------------------------------------------------------- life
    def start(self, timeout: float = 60.0) -> "JsonLinesJvm[R]":
        """Spawn the JVM and wait (``timeout`` s) for its ``ready``."""
        self.spawn()
        self.await_ready(timeout)
        return self

    def spawn(self) -> None:
        """Spawn the JVM and its reader thread, without waiting (several JVMs start side by side; then
        :meth:`await_ready` each)."""
        self.process.start()
        self._reader = threading.Thread(target=self._read, name=f"jsonlines-{self.process.name}", daemon=True)
        self._reader.start()

    def await_ready(self, timeout: float) -> R:
        """The ``ready`` record (the JVM's handshake)."""
        return self.await_record(lambda r: r["event"] == "ready", timeout, "'ready' (the JVM's start)")

    def stop(self) -> None:
        """SIGKILL to the JVM (its process group) and reap it, keep the records it wrote before (the reader
        reads its stdout to the end), close its pipes; from now on it is not checked.  Safe twice."""
        self._stopped = True
        p = self.process.process
        if p is not None:
            kill_and_reap(p)
            if self._reader is not None and self._reader is not threading.current_thread():
                self._reader.join(timeout=2.0)
        self.process.stop()

    kill = stop

    @property
    def stopped(self) -> bool:
        """:meth:`stop` was called."""
        return self._stopped

    # -------------------------------------------------------------------- records
    def _read(self) -> None:
        stdout = self.process.stdout
        try:
            for raw in stdout:
                self._keep(raw)
        except (OSError, ValueError):  # the pipe closed under us by stop()
            pass
        finally:
            with self._cond:
                self._eof = True
                self._cond.notify_all()

    def _keep(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "replace").strip()
        if not text:
            return
        try:
            obj = json.loads(text)
        except ValueError:
            obj = None
        if not isinstance(obj, dict) or not isinstance(obj.get("event"), str) or not isinstance(obj.get("t"), int):
            obj = {"event": "error", "t": -1, "message": f"the JVM wrote a line that is not a record: {text[:200]}"}
        self.note(cast(R, obj))

    def note(self, record: R) -> None:
        """Keep a record the driver adds itself (e.g. ``killed``) in the JVM's order."""
        with self._cond:
            self.records.append(record)
            self._cond.notify_all()

    def errors(self) -> List[R]:
        """The ``error`` records so far."""
        with self._cond:
            return [r for r in self.records if r["event"] == "error"]

    # -------------------------------------------------------------------- talking
    def send(self, command: AnyCommand) -> None:
        """Write one command; :class:`~rebalance.errors.LiveClientError` (with the tail of its stderr) when the
        JVM has exited or its stdin is closed."""
        self.send_line(json.dumps(command))

    def send_line(self, line: str) -> None:
        """Write one line as it is (a test writes what is not a command)."""
        self.check_alive()
        try:
            self.process.stdin.write(line.encode("utf-8") + b"\n")
            self.process.stdin.flush()
        except (OSError, ValueError) as exc:  # BrokenPipeError: the JVM is gone; ValueError: the pipe is closed
            raise self._dead(f"its stdin failed ({type(exc).__name__})") from None

    def request(self, command: AnyCommand, answer: str, timeout: float, what: Optional[str] = None) -> R:
        """Send ``command`` and return the first record after it whose event is ``answer`` (about the same
        ``member`` when the command names one).  An ``error`` record of the command's ``op`` (and member) is a
        :class:`~rebalance.errors.LiveClientError` naming the op, the field and the message."""
        return self.answer(command, answer, timeout, self.ask(command), what)

    def ask(self, command: AnyCommand) -> int:
        """Send ``command`` without waiting; returns where its answer's search starts (for :meth:`answer`), so
        that several JVMs work on a command side by side."""
        with self._cond:
            since = len(self.records)
        self.send(command)
        return since

    def answer(self, command: AnyCommand, answer: str, timeout: float, since: int, what: Optional[str] = None) -> R:
        """The answer to ``command`` sent by :meth:`ask` (which returned ``since``): see :meth:`request`."""
        op, member = command["op"], command.get("member")

        def answered(r: R) -> bool:
            if member is not None and r.get("member") != member:
                return False
            return r["event"] == answer or (r["event"] == "error" and r.get("op") == op)

        rec = self.await_record(answered, timeout, what or f"'{answer}' (the answer to {op})", since=since)
        if rec["event"] == "error":
            field = rec.get("field")
            raise LiveClientError(f"{self.what}: command {op!r} failed"
                                  + (f" (field {field!r})" if field else "") + f": {rec.get('message')}")
        return rec

    def await_record(self, ready: Callable[[R], bool], timeout: float, what: str, since: int = 0) -> R:
        """The first record from index ``since`` on for which ``ready`` holds, waiting up to ``timeout`` s for
        it: :class:`~rebalance.errors.WaitTimeoutError` (``<what JVM>: no <what> within <timeout> s``) when
        none came; :class:`~rebalance.errors.LiveClientError` with the tail of its stderr as soon as the JVM
        is found dead (checked every :data:`CHECK_INTERVAL_S`)."""
        deadline = time.monotonic() + timeout
        seen = since
        with self._cond:
            while True:
                for k in range(seen, len(self.records)):
                    if ready(self.records[k]):
                        return self.records[k]
                seen = max(seen, len(self.records))
                if self._eof or not self.process.running:
                    raise self._dead("it closed its stdout" if self._eof else "")
                left = deadline - time.monotonic()
                if left <= 0:
                    raise WaitTimeoutError(f"{self.what}: no {what} within {timeout:g} s")
                self._cond.wait(min(left, CHECK_INTERVAL_S))

    def check_alive(self) -> None:
        """:class:`~rebalance.errors.LiveClientError` with the tail of its stderr if the JVM has exited (a JVM
        stopped on purpose is not checked)."""
        if not self._stopped and self.process.exit_code() is not None:
            raise self._dead("")

    def _dead(self, how: str) -> LiveClientError:
        """The error of a JVM that is gone: its exit code and stderr's tail (once it has exited: up to 2 s)."""
        if self._stopped:
            return LiveClientError(f"{self.what} was stopped")
        p = self.process.process
        if p is not None:
            try:
                p.wait(timeout=2.0)
            except subprocess.TimeoutExpired:  # still running 2 s after closing its pipes: say so
                return LiveClientError(f"{self.what}: {how}, and it has not exited")
        return self.process.died(self.what)

    def __repr__(self) -> str:
        return f"JsonLinesJvm({self.what!r}, {len(self.records)} records, {self.process!r})"


def pause(jvms: Iterable[JsonLinesJvm[R]], seconds: float) -> None:
    """Sleep ``seconds``, checking every :data:`CHECK_INTERVAL_S` that each of ``jvms`` not stopped on purpose is
    alive (:class:`~rebalance.errors.LiveClientError` with its stderr's tail otherwise)."""
    deadline = time.monotonic() + seconds
    watched = list(jvms)
    while True:
        for j in watched:
            j.check_alive()
        left = deadline - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, CHECK_INTERVAL_S))
