"""The user data the sticky assignors put into a member's JoinGroup subscription.

Mirrors (Kafka 4.3.1, unchanged since 3.9):

* ``StickyAssignor.STICKY_ASSIGNOR_USER_DATA_V0`` -- ``previous_assignment: [{topic: STRING, partitions: [INT32]}]``
  (KIP-54, Kafka 1.0);
* ``StickyAssignor.STICKY_ASSIGNOR_USER_DATA_V1`` -- V0 plus ``generation: INT32`` (KIP-341, Kafka 2.3);
* ``CooperativeStickyAssignor.COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0`` -- ``generation: INT32`` only
  (the owned partitions travel in the protocol's own ``ownedPartitions`` field).

The wire types are Kafka's ``org.apache.kafka.common.protocol.types``: ``STRING`` is an INT16 length and
UTF-8 bytes, ``ArrayOf`` an INT32 count and the elements, integers big-endian.  ``Schema.read`` does not
insist on consuming the whole buffer, so a V1 reader accepts trailing bytes and a V0 reader accepts V1 data.

A :class:`~rebalance.wire.ByteBuffer` (the package's one reader of Kafka's protocol types, shared with
Connect's protocol) models the one ``java.nio.ByteBuffer`` Kafka hands to the assignor: reading moves its
position, ``rewind`` puts it back to 0.  Unit tests that re-use a ``Subscription`` see a buffer that was
already read (vectors README, "Surprises" 2), which is why the position is part of the input.
"""
from __future__ import annotations

import base64
import binascii
import struct
from itertools import groupby, repeat
from operator import itemgetter
from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, List, Optional, Sequence, Tuple

from ..errors import InputError
from ..java import INT_MAX, INT_MIN, compute_if_absent_order
from ..validation import require
from ..wire import ByteBuffer, SchemaError
from .model import TopicPartition, check_tp_names, parse_tps

DEFAULT_GENERATION = -1

_TOPIC = itemgetter(0)
_INT = struct.Struct(">i")
_SHORT = struct.Struct(">h")
_PARTITION = itemgetter(1)


# ---------------------------------------------------------------------------------------------
# writing


def group_partitions_by_topic(partitions: Sequence[TopicPartition]) -> List[Tuple[str, List[int]]]:
    """``CollectionUtils.groupPartitionsByTopic``: a ``HashMap<String, List<Integer>>`` filled by one
    ``computeIfAbsent(topic, ...)`` per partition in list order, returned in its iteration order
    (:func:`rebalance.java.compute_if_absent_order`: topics that share a bucket come newest first)."""
    return [(topic, list(map(_PARTITION, run))) for topic, run in groupby(_regrouped(partitions), key=_TOPIC)]


@lru_cache(maxsize=256)
def _topic_map(topics: Tuple[str, ...], trailing: bool) -> Tuple[List[str], Dict[str, int], List[int]]:
    """For the distinct topics of a member's list (first-appearance order; ``trailing``: a partition of a
    topic seen before follows the last topic's first partition, so one more ``computeIfAbsent`` call may
    resize the map): the ``HashMap`` iteration order, each topic's place in it, and the names' UTF-8 lengths
    in bytes (empty if a name cannot be encoded).  Cached: the members of a group usually report the same
    topics in the same order."""
    order = compute_if_absent_order(list(topics) + ([topics[-1]] if trailing and topics else []))
    try:
        lengths = [len(t.encode("utf-8")) for t in topics]
    except UnicodeEncodeError:
        lengths = []
    return order, {t: i for i, t in enumerate(order)}, lengths


def _layout(partitions: Sequence[TopicPartition]) -> Tuple[List[str], Tuple[str, ...], bool]:
    """Each partition's topic, the distinct topics in first-appearance order, and whether some partition follows
    the first partition of the last new topic (its ``computeIfAbsent`` call may still resize the map)."""
    names = list(map(_TOPIC, partitions))
    topics = tuple(dict.fromkeys(names))
    return names, topics, bool(topics) and names.index(topics[-1]) < len(names) - 1


def _regrouped(partitions: Sequence[TopicPartition],
               layout: Optional[Tuple[List[str], Tuple[str, ...], bool]] = None) -> List[TopicPartition]:
    """``partitions`` in the order of :func:`group_partitions_by_topic`'s groups: a stable sort by the
    topic's place in the ``HashMap`` (list order within a topic).  ``layout``: :func:`_layout` of them."""
    partitions = list(partitions)
    names, topics, trailing = layout or _layout(partitions)
    order, place, _ = _topic_map(topics, trailing)
    if len(topics) == len(partitions):  # one partition per topic
        by_topic = dict(partitions)
        return list(zip(order, map(by_topic.__getitem__, order)))
    keys = list(map(place.__getitem__, names))
    return list(map(partitions.__getitem__, sorted(range(len(partitions)), key=keys.__getitem__)))


def encode_sticky_v1(partitions: Sequence[TopicPartition], generation: Optional[int]) -> bytes:
    """``StickyAssignor.serializeTopicPartitionAssignment``: schema V1 (V0 when ``generation`` is None)."""
    return _encode_groups(group_partitions_by_topic(partitions), generation)


def _encode_groups(groups: Sequence[Tuple[str, List[int]]], generation: Optional[int]) -> bytes:
    chunks = [_INT.pack(len(groups))]
    append = chunks.append
    for topic, numbers in groups:
        raw = topic.encode("utf-8")
        append(_SHORT.pack(len(raw)))
        append(raw)
        append(struct.pack(f">i{len(numbers)}i", len(numbers), *numbers))
    if generation is not None:
        append(_INT.pack(generation))
    return b"".join(chunks)


class _StickyV1Buffer(ByteBuffer):
    """The buffer of ``encode_sticky_v1(partitions, generation)`` whose bytes are only produced if someone
    reads them byte by byte: :func:`decode_sticky` reading it from the start gets the partitions back
    regrouped by topic, exactly what decoding the bytes gives, without the round trip (a member of
    Kafka's large tests reports 500 topics).  Built by :func:`sticky_v1_buffer` only for values the
    encoder accepts, so no error moves."""

    __slots__ = ("_partitions", "_generation", "_size", "_bytes")

    def __init__(self, regrouped: List[TopicPartition], generation: int, length: int,  # noqa: no super()
                 position: int = 0):
        self._partitions = regrouped
        self._generation = generation
        self._size = length
        self._bytes: Optional[bytes] = None
        self.position = max(0, min(position, length))

    @property
    def data(self) -> bytes:  # type: ignore[override]
        if self._bytes is None:
            groups = [(t, list(map(_PARTITION, run))) for t, run in groupby(self._partitions, key=_TOPIC)]
            self._bytes = _encode_groups(groups, self._generation)
        return self._bytes

    def remaining(self) -> int:
        return self._size - self.position

    def has_remaining(self) -> bool:
        return self.position < self._size

    def duplicate(self) -> "ByteBuffer":
        copy = _StickyV1Buffer(self._partitions, self._generation, self._size, self.position)
        copy._bytes = self._bytes
        return copy

    def read_all(self) -> MemberData:
        """The whole V1 read from position 0 (``Schema.read`` of every field)."""
        self.position = self._size
        return MemberData(list(self._partitions), self._generation)


def sticky_v1_buffer(partitions: Sequence[TopicPartition], generation: int) -> ByteBuffer:
    """``ByteBuffer(encode_sticky_v1(partitions, generation))`` (``StickyAssignor.serializeTopicPartitionAssignment``,
    Kafka 4.3.1), with the bytes produced only on demand
    when every value fits the schema (topic names up to 32,767 UTF-8 bytes, Java ints); otherwise encoded
    at once, raising where the encoder raises."""
    numbers = list(map(_PARTITION, partitions))
    if (type(generation) is int and INT_MIN <= generation <= INT_MAX and set(map(type, numbers)) <= {int}
            and (not numbers or (INT_MIN <= min(numbers) and max(numbers) <= INT_MAX))
            and set(map(type, map(_TOPIC, partitions))) <= {str}):
        layout = _layout(partitions)
        topics = layout[1]
        lengths = _topic_map(topics, layout[2])[2]
        if len(lengths) == len(topics) and max(lengths, default=0) <= 32767:
            length = 4 + 6 * len(topics) + sum(lengths) + 4 * len(partitions) + 4
            return _StickyV1Buffer(_regrouped(partitions, layout), generation, length)
    return ByteBuffer(encode_sticky_v1(partitions, generation))


def encode_sticky_v0(partitions: Sequence[TopicPartition]) -> bytes:
    """The pre-2.3 StickyAssignor user data (schema V0: no generation)."""
    return encode_sticky_v1(partitions, None)


def encode_cooperative_v0(generation: int) -> bytes:
    """``CooperativeStickyAssignor.subscriptionUserData``: one INT32, the last generation it was assigned in."""
    return struct.pack(">i", generation)


# ---------------------------------------------------------------------------------------------
# reading


@dataclass
class MemberData:
    """``AbstractStickyAssignor.MemberData``: the owned partitions and generation a member reports."""

    partitions: List[TopicPartition]
    generation: Optional[int]  # None is Optional.empty()


def _read_sticky(buffer: ByteBuffer, with_generation: bool) -> MemberData:
    """``STICKY_ASSIGNOR_USER_DATA_V1`` (or V0) read from ``buffer``: the reads of ``Schema.read``, inlined (a
    member can report hundreds of topics); ``buffer.position`` ends where Kafka's buffer would, also when a
    read fails part-way."""
    if with_generation and buffer.position == 0 and isinstance(buffer, _StickyV1Buffer):
        return buffer.read_all()
    data, pos = buffer.data, buffer.position
    end = len(data)
    partitions: List[TopicPartition] = []

    def take(codec: struct.Struct) -> int:  # ByteBuffer.getInt / getShort, on the local position
        nonlocal pos
        if end - pos < codec.size:
            raise SchemaError("BufferUnderflowException")
        value: int = codec.unpack_from(data, pos)[0]
        pos += codec.size
        return value

    def array_size() -> int:  # ByteBuffer.read_array_size
        size = take(_INT)
        if size < 0:
            raise SchemaError(f"Array size {size} cannot be negative")
        if size > end - pos:
            raise SchemaError(f"Error reading array of size {size}, only {end - pos} bytes available")
        return size

    try:
        for _ in range(array_size()):
            length = take(_SHORT)
            if length < 0:
                raise SchemaError(f"String length {length} cannot be negative")
            if length > end - pos:
                raise SchemaError(f"Error reading string of length {length}")
            topic = data[pos:pos + length].decode("utf-8", errors="replace")
            pos += length
            n = array_size()
            if 4 * n > end - pos:  # Kafka reads the ints that are there, then underflows
                pos += 4 * ((end - pos) // 4)
                raise SchemaError("BufferUnderflowException")
            numbers = struct.unpack_from(f">{n}i", data, pos)
            pos += 4 * n
            partitions.extend(zip(repeat(topic, n), numbers))
        generation = take(_INT) if with_generation else None
    finally:
        buffer.position = pos
    return MemberData(partitions, generation)


def decode_sticky(buffer: Optional[ByteBuffer]) -> MemberData:
    """``StickyAssignor.memberData``: no bytes left means no previous assignment; V1 first, V0 as fallback,
    and unreadable data counts as "nothing owned, generation -1"."""
    if buffer is None or not buffer.has_remaining():
        return MemberData([], None)
    copy = buffer.duplicate()
    try:
        return _read_sticky(buffer, True)
    except SchemaError:
        try:
            return _read_sticky(copy, False)
        except SchemaError:
            return MemberData([], DEFAULT_GENERATION)


def decode_cooperative(buffer: Optional[ByteBuffer]) -> Optional[int]:
    """The generation ``CooperativeStickyAssignor.memberData`` reads from user data (protocol < v2)."""
    if buffer is None:
        return None
    try:
        return buffer.get_int()
    except SchemaError:
        return DEFAULT_GENERATION


# ---------------------------------------------------------------------------------------------
# the vectors' "userData" field


def auto_user_data(assignor: str, owned: Sequence[TopicPartition], generation_id: Optional[int]) -> Optional[bytes]:
    """The user data a real client of ``assignor`` sends in JoinGroup for what it owns (``subscriptionUserData``,
    Kafka 4.3.1): StickyAssignor V1 of its owned partitions and generation once it has either,
    CooperativeStickyAssignor its generation (-1 before any), nothing for Range and RoundRobin."""
    return user_data_from_spec("auto", assignor, owned, generation_id)[0]


#: each encoding of the vectors' ``userData`` and the fields it may have, and the fields of its body
_USER_DATA_FIELDS = {"stickyV1": ("stickyV1",), "stickyV0": ("stickyV0",), "cooperativeV0": ("cooperativeV0",),
                     "base64": ("base64", "position")}
_USER_DATA_BODIES = {"stickyV1": ("partitions", "generation"), "stickyV0": ("partitions",),
                     "cooperativeV0": ("generation",)}


def _generation(value: object, field: str) -> int:
    """A generation as the user data's ``INT32`` field holds it."""
    if not (isinstance(value, int) and not isinstance(value, bool) and INT_MIN <= value <= INT_MAX):
        raise InputError(field, f"must be a whole number (a Java int), got {value!r}")
    return value


def user_data_from_spec(spec: object, assignor: str, owned: Sequence[TopicPartition], generation_id: Optional[int],
                        field: str = "userData") -> Tuple[Optional[bytes], int]:
    """Bytes and buffer position for a member's ``userData`` as the vectors describe it.

    ``"auto"`` is what a real client of ``assignor`` sends (StickyAssignor: V1 of its owned partitions and
    generation once it has either; CooperativeStickyAssignor: its generation or -1); ``None`` is no user data;
    ``{"stickyV1": ...}``, ``{"stickyV0": ...}``, ``{"cooperativeV0": ...}`` are explicit encodings and
    ``{"base64": ..., "position": n}`` raw bytes.
    """
    if spec is None:
        return None, 0
    if spec == "auto":
        if assignor == "sticky":
            if generation_id is None and not owned:
                return None, 0
            return encode_sticky_v1(owned, DEFAULT_GENERATION if generation_id is None else generation_id), 0
        if assignor == "cooperative-sticky":
            return encode_cooperative_v0(DEFAULT_GENERATION if generation_id is None else generation_id), 0
        return None, 0
    if not (isinstance(spec, dict) and len(spec) >= 1):
        raise InputError(field, "must be \"auto\", null or an object such as {\"stickyV1\": ...} or {\"base64\": ...}")
    encodings = [k for k in _USER_DATA_FIELDS if k in spec]
    require(len(encodings) == 1, field, f"must hold exactly one of {', '.join(_USER_DATA_FIELDS)}, "
                                        f"got {sorted(spec)!r}")
    allowed = _USER_DATA_FIELDS[encodings[0]]
    for key in spec:
        require(key in allowed, f"{field}.{key}", f"unknown field; {encodings[0]} user data has {', '.join(allowed)}")
    for key, inner in _USER_DATA_BODIES.items():
        if isinstance(spec.get(key), dict):
            for name in spec[key]:
                require(name in inner, f"{field}.{key}.{name}", f"unknown field; {key} has {', '.join(inner)}")
    if "base64" in spec:
        raw = spec["base64"]
        require(isinstance(raw, str), f"{field}.base64", "must be a base64 string")
        try:
            data = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            raise InputError(f"{field}.base64", "is not valid base64") from None
        position = spec.get("position", 0)
        require(isinstance(position, int) and not isinstance(position, bool) and 0 <= position <= len(data),
                f"{field}.position", f"must be a whole number between 0 and {len(data)}")
        return data, position
    if "stickyV1" in spec or "stickyV0" in spec:
        key = "stickyV1" if "stickyV1" in spec else "stickyV0"
        body = spec[key]
        require(isinstance(body, dict), f"{field}.{key}", "must be an object with 'partitions'")
        raw_parts = body.get("partitions", [])
        require(isinstance(raw_parts, list), f"{field}.{key}.partitions", "must be a list of 'topic-partition'")
        parts = parse_tps(raw_parts, f"{field}.{key}.partitions")
        check_tp_names(parts, f"{field}.{key}.partitions")
        if key == "stickyV0":
            return encode_sticky_v0(parts), 0
        generation = _generation(body.get("generation", DEFAULT_GENERATION), f"{field}.{key}.generation")
        return encode_sticky_v1(parts, generation), 0
    if "cooperativeV0" in spec:
        body = spec["cooperativeV0"]
        require(isinstance(body, dict), f"{field}.cooperativeV0", "must be an object with 'generation'")
        generation = _generation(body.get("generation", DEFAULT_GENERATION), f"{field}.cooperativeV0.generation")
        return encode_cooperative_v0(generation), 0
    raise InputError(field, f"unknown user data encoding {sorted(spec)!r}; use stickyV1, stickyV0, "
                            "cooperativeV0 or base64")
