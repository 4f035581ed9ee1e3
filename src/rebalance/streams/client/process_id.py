"""``org.apache.kafka.streams.processor.assignment.ProcessId`` (Kafka 4.3.1): a Kafka Streams client (one
``KafkaStreams`` instance, ``process.id``) identified by a ``java.util.UUID``.

Its order and hash are the UUID's (``ProcessId.compareTo``, line 69, and ``hashCode``, line 52, delegate to it), and
the assignor's ``TreeMap<ProcessId, ClientState>`` iterates clients in that order.  ``UUID.compareTo`` compares the
most significant 64 bits, then the least, **as signed longs**: ``80000000-...`` sorts before ``00000000-...``,
unlike the string or ``uuid.UUID`` order.  ``UUID.hashCode`` is ``(int) (hilo >> 32) ^ (int) hilo`` with
``hilo = msb ^ lsb``.
"""
from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from typing import Tuple

from ...errors import InputError
from ...java import to_int32, to_int64

__all__ = ["ProcessId"]

_CANONICAL = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass(frozen=True, eq=True)
class ProcessId:
    """A client's process id; ``<`` is ``ProcessId.compareTo`` (signed ``UUID.compareTo``)."""

    id: uuid.UUID
    _key: Tuple[int, int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        value = self.id.int
        object.__setattr__(self, "_key", (to_int64(value >> 64), to_int64(value & (2**64 - 1))))

    @classmethod
    def parse(cls, text: object, field_name: str) -> "ProcessId":
        """A UUID in its canonical lower-case form (``UUID.toString()``); anything else is ``InputError``."""
        if not isinstance(text, str) or not _CANONICAL.fullmatch(text):
            raise InputError(field_name, f"process_id must be a UUID in canonical lower-case form, got {text!r}")
        return cls(uuid.UUID(text))

    @property
    def most_sig_bits(self) -> int:
        """``UUID.getMostSignificantBits()`` (a signed long)."""
        return self._key[0]

    @property
    def least_sig_bits(self) -> int:
        """``UUID.getLeastSignificantBits()`` (a signed long)."""
        return self._key[1]

    def compare_to(self, other: "ProcessId") -> int:
        """``UUID.compareTo``: ``Long.compare`` of the most, then the least significant bits."""
        return (self._key > other._key) - (self._key < other._key)

    def __lt__(self, other: "ProcessId") -> bool:
        return self._key < other._key

    def java_hash_code(self) -> int:
        """``UUID.hashCode()``."""
        hilo = to_int64(self._key[0] ^ self._key[1])
        return to_int32(to_int32(hilo >> 32) ^ to_int32(hilo))

    def __str__(self) -> str:
        return str(self.id)
