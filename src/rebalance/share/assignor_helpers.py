"""What the simple assignor's two builders share: ``AssignorHelpers`` and the hash of ``TopicIdPartition``.

* :func:`new_hash_capacity` -- ``AssignorHelpers.newHashMap(n)`` / ``newHashSet(n)``
  (``group-coordinator/.../assignor/AssignorHelpers.java``, Kafka 4.3.1, lines 53-65): ``new HashMap<>((int)
  (((n + 1) / 0.75f) + 1))``, a table that holds ``n`` keys without growing.  The arithmetic is ``float``, so it
  is done here in IEEE single precision;
* :func:`topic_id_partition_hash` -- ``org.apache.kafka.server.common.TopicIdPartition`` (server-common, Kafka
  4.3.1) is a Java ``record (Uuid topicId, int partitionId)``: its ``hashCode`` is the JDK's record hash
  (``java.lang.runtime.ObjectMethods``: ``31 * topicId.hashCode() + partitionId``; checked on Java 17);
* :func:`deep_copy_assignment` is :func:`rebalance.jcollections.deep_copy_assignment` over topic ids
  (``AssignorHelpers.deepCopyAssignment``, lines 40-46).

The iteration orders of these ``HashMap``/``HashSet`` decide which member loses a partition and which member gets
one next; they are kept by :mod:`rebalance.jcollections` (bucket, then insertion order; ``computeIfAbsent`` links a
new key at the head of its bucket).
"""
from __future__ import annotations

import struct
from typing import Tuple

from ..errors import KafkaError
from ..java import to_int32
from ..jcollections import HashJMap, JMap, JSet, deep_copy_assignment as _deep_copy
from ..kip848.uuid import Uuid, uuid_hash

#: ``org.apache.kafka.server.common.TopicIdPartition``: a topic id and a partition
TopicIdPartition = Tuple[Uuid, int]

__all__ = ["TopicIdPartition", "deep_copy_assignment", "new_hash_capacity", "no_such_element", "topic_id_partition_hash"]


def _f32(value: float) -> float:
    """``value`` rounded to a Java ``float``."""
    return float(struct.unpack("<f", struct.pack("<f", value))[0])


def new_hash_capacity(num_mappings: int) -> int:
    """The initial capacity ``AssignorHelpers.newHashMap(n)`` and ``newHashSet(n)`` pass to ``HashMap``:
    ``(int) (((n + 1) / 0.75f) + 1)``, computed in ``float``."""
    quotient = _f32(_f32(float(num_mappings + 1)) / 0.75)
    return int(_f32(quotient + 1.0))


def topic_id_partition_hash(tp: TopicIdPartition) -> int:
    """``TopicIdPartition.hashCode()`` (a record's: ``31 * topicId.hashCode() + partitionId``)."""
    return to_int32(31 * uuid_hash(tp[0]) + tp[1])


def deep_copy_assignment(assignment: JMap[Uuid, JSet[int]]) -> HashJMap[Uuid, JSet[int]]:
    """``AssignorHelpers.deepCopyAssignment``: ``new HashMap<>(size)`` of ``new HashSet<>(partitions)``."""
    return _deep_copy(assignment, uuid_hash)


def no_such_element() -> KafkaError:
    """What ``HashSet.iterator().next()`` throws on an empty set, ``java.util.NoSuchElementException`` (no
    message).  Both builders' ``assignRemainingPartitions`` restart their iterator over the unfilled members when
    it runs out while a partition still wants members (homogeneous line 360, heterogeneous line 434); if the last
    unfilled member has just reached its count, the restarted iterator is empty and ``next()`` throws."""
    return KafkaError("NoSuchElementException", "")
