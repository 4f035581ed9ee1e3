"""``org.apache.kafka.streams.processor.TaskId`` (Kafka 4.3.1, ``streams/src/main/java/.../processor/TaskId.java``):
a task is one partition of one subtopology, written ``"<subtopology>_<partition>"``.

Only what the client-side task assignor needs: the natural order of ``compareTo`` (line 135: subtopology, then
partition, both by ``Integer.compare``; named topologies are not modelled, so the branch that compares topology
names never runs), ``hashCode`` (line 130: ``Objects.hash(subtopology, partition, topologyName)`` with a null
name), the ``HashMap`` order of ``ClientTagAwareStandbyTaskAssignor``'s pending standbys depends on it, and
``toString`` (line 75: ``subtopology + "_" + partition`` without a topology name).

The streams group's coordinator has a ``TaskId`` of its own, a record of a *string* subtopology id and a partition
ordered by ``String.compareTo`` (``org.apache.kafka.coordinator.group.streams.assignor.TaskId``):
:class:`rebalance.streams.coordinator.TaskId`.  This one is the ``TaskId`` :mod:`rebalance.streams` exports.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ...errors import InputError
from ...java import to_int32

__all__ = ["TaskId"]

_TEXT = re.compile(r"(0|[1-9][0-9]{0,9})_(0|[1-9][0-9]{0,9})")
_INT_MAX = 2**31 - 1


@dataclass(frozen=True, order=True)
class TaskId:
    """A Kafka Streams task: ``subtopology`` (the topic group id) and ``partition``; ordered as Kafka orders them."""

    subtopology: int
    partition: int

    @classmethod
    def parse(cls, text: object, field: str) -> "TaskId":
        """``"<subtopology>_<partition>"``, two non-negative 32-bit ints; anything else is ``InputError(field)``."""
        match = _TEXT.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise InputError(field, f'a task id must be "<subtopology>_<partition>" (two non-negative ints), got {text!r}')
        subtopology, partition = int(match.group(1)), int(match.group(2))
        if subtopology > _INT_MAX or partition > _INT_MAX:
            raise InputError(field, f"a task id's subtopology and partition must be 32-bit ints, got {text}")
        return cls(subtopology, partition)

    def java_hash_code(self) -> int:
        """``TaskId.hashCode()``: ``Objects.hash(subtopology, partition, null)``."""
        return to_int32(31 * to_int32(31 * (31 + self.subtopology) + self.partition))

    def __str__(self) -> str:
        return f"{self.subtopology}_{self.partition}"
