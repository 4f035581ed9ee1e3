"""The one JSON-lines protocol of the book's client drivers: its commands and records, written down once.

Three Java mains of the book's Java module speak it (``org.rebalance.clients.JsonLines`` is its Java side, with
the same table in its comment): ``org.rebalance.consumers.ScenarioMembers`` (``KafkaConsumer`` members,
:mod:`rebalance.kafka.consumers`), ``org.rebalance.share.ShareMembers`` (``KafkaShareConsumer`` members,
:mod:`rebalance.kafka.share`) and ``org.rebalance.streams.StreamsInstances`` (``KafkaStreams`` instances,
:mod:`rebalance.kafka.streams`).

* **commands**: JSON objects, one a line, on the JVM's stdin: ``{"op", "member"?, "t0"?, ...}``; ``member``
  names the client the command is about (a consumer, a share consumer, a Streams instance: one key for all);
* **records**: JSON objects, one a line, on its stdout: ``{"event", "t", "member"?, ...}``;
* **handshake**: the JVM writes ``{"event": "ready", "driver": MAIN}`` unprompted, once, when it reads commands
  (:meth:`~rebalance.kafka.jsonlines_jvm.JsonLinesJvm.start` waits for it); there is no other;
* **time**: ``t`` is milliseconds since ``t0``, the epoch milliseconds of the last command that carried a
  ``t0`` (the drivers send the scenario clock's start with their ``start`` commands), and before any did, the
  JVM's start;
* **errors**: ``{"event": "error", "op"?, "member"?, "field"?, "message"}``.  With ``op``: that command failed
  or was refused (``field`` names a missing or ill-typed field; ``"op"`` an unknown command), and
  :meth:`~rebalance.kafka.jsonlines_jvm.JsonLinesJvm.request` raises :class:`~rebalance.errors.LiveClientError`
  saying so; without ``op``: a line that was not a JSON object, or a client's own thread failed (``member``),
  which a driver reports as data.  The JVM goes on serving after every error;
* **end**: end of stdin halts the JVM at once.

=================  ===  ===============================================================  =====================================
op                 by   fields                                                           answer records
=================  ===  ===============================================================  =====================================
``warm``           CS   bootstrap?                                                       ``warmed``
``create_topics``  CSK  bootstrap, topics {name: partitions}, group?, group_config? (S)  ``topics_created`` (topic_ids)
``start``          C    member, topics, props, revoke_ms?, batch_ms?                     ``started``, callbacks, ``assignor``
``subscribe``      C    member, topics                                                   ``subscribed`` (topics)
``leave``          CS   member                                                           ``closing``, ``closed``
``observe``        C    bootstrap, group, topics, interval_ms?                           ``topic_ids``, ``group`` records
``metrics``        C    member                                                           ``metrics`` (values, groups)
``start``          S    member, topics, props, release?, reject?, slow?, slow_ms?,       ``started``, ``delivered``, ``acked``
                        processing_ms?
``stop``           S                                                                     ``closed`` each, ``stopped``
``produce``        SK   bootstrap, topic, count, partition? (S), keys (K)                ``produced`` (count, offsets)
``describe``       SK   bootstrap, group                                                 ``group``
``offsets``        S    bootstrap, group                                                 ``offsets`` (start_offsets, lags)
``start``          K    member, props                                                    ``started``, ``state``, ``tasks``
``stop``           K    member                                                           ``stopped`` (closed)
``count``          K                                                                     ``count`` (total)
=================  ===  ===============================================================  =====================================

(By: C ``ScenarioMembers``, S ``ShareMembers``, K ``StreamsInstances``; ``?``: optional.)  The commands are the TypedDicts below
(:class:`Command` and its subclasses), the records :class:`Record` and one subclass per driver
(:class:`ConsumerRecord`, :class:`ShareRecord`, :class:`StreamsRecord`), every field a record of that driver
may carry.

:class:`rebalance.kafka.jsonlines_jvm.JsonLinesJvm` runs one such JVM and keeps its records.
"""
from __future__ import annotations

from typing import Dict, List, Optional, TypedDict, Union

__all__ = ["AnyCommand", "Command", "Warm", "CreateTopics", "ConsumerStart", "Subscribe", "Observe", "ShareStart", "Produce",
           "GroupCommand", "StreamsStart", "Record", "SubscriptionRecord", "ConsumerGroupMember", "ConsumerRecord",
           "ShareGroupMember", "ShareRecord", "StreamsTasks", "StreamsGroupMember", "StreamsRecord"]

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
    """``prepare`` (C): a ``KafkaConsumer`` of ``topics`` with ``props`` made before the scenario's clock
    (answered ``prepared``); ``start`` (C): its thread (a new consumer when none was prepared) subscribes and
    polls; ``revoke_ms`` slept in ``onPartitionsRevoked``, ``batch_ms`` after each poll while it owns partitions,
    each such poll lasting ``poll_ms`` (default 100; 100 while it owns or processes nothing)."""

    topics: List[str]
    props: Dict[str, str]
    revoke_ms: int
    batch_ms: int
    poll_ms: int


class Subscribe(Command, total=False):
    """``subscribe`` (C): the running consumer ``member`` subscribes to ``topics`` instead, on its own thread
    before its next ``poll``."""

    topics: List[str]


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
    processing_ms: int


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
    """A record of ``ScenarioMembers`` (C): ``member_id`` (member_id, generation: the first ``poll`` that finds
    ``groupMetadata().memberId()`` set, and every change of it), callbacks (``assigned``/``revoked``/``lost``:
    partitions, generation, member_id), ``assignor`` (name, subscriptions, partitions_per_topic, assignment),
    ``metrics`` (values {metric name: value, ``None`` for NaN}, groups {metric name: metric group}: the member's
    ``KafkaConsumer.metrics()`` of rebalances and polls), the observer's ``topic_ids`` (ids) and ``group`` (state,
    type, group_epoch, target_epoch, members)."""

    partitions: List[str]
    generation: int
    generation_error: str
    member_id: str
    name: str
    subscriptions: List[SubscriptionRecord]
    partitions_per_topic: Dict[str, int]
    assignment: Dict[str, List[str]]
    values: Dict[str, Union[float, str, None]]
    groups: Dict[str, str]
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
    ``acked`` (topic, partition, offsets, ok, error), ``committed`` (the same, from ``commitSync()``'s answer), ``produced`` (count, offsets), ``group`` (state,
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
AnyCommand = Union[Command, Warm, CreateTopics, ConsumerStart, Subscribe, Observe, ShareStart, Produce, GroupCommand, StreamsStart]
