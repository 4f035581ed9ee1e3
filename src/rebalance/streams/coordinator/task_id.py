"""``org.apache.kafka.coordinator.group.streams.assignor.TaskId`` (Kafka 4.3.1, ``TaskId.java``): one task of a
streams group, a subtopology id (a string) and a partition number, as the group coordinator's task assignors see
it.

The Streams client's ``org.apache.kafka.streams.processor.TaskId`` is another class of another shape (an ``int``
subtopology, ordered by ``Integer.compare``, and a named topology): :class:`rebalance.streams.client.TaskId`.  The
two keep Kafka's one name, each in the subpackage of its side; :mod:`rebalance.streams` exports the client's.

Kafka's record compares by subtopology id (``String.compareTo``, UTF-16 code units) then partition (lines 35-39)
and prints as ``subtopologyId_partition`` (lines 42-44), the form its exception and log messages use.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

from ...java import java_string_key

__all__ = ["TaskId"]


@dataclass(frozen=True)
class TaskId:
    """``TaskId(String subtopologyId, int partition)`` (Kafka 4.3.1): equal when both fields are equal."""

    subtopology_id: str
    partition: int

    def sort_key(self) -> Tuple[bytes, int]:
        """``TaskId.compareTo``: subtopology id as ``String.compareTo`` orders it, then partition."""
        return java_string_key(self.subtopology_id), self.partition

    def __str__(self) -> str:
        return f"{self.subtopology_id}_{self.partition}"
