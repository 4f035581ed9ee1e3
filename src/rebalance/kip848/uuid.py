"""Kafka topic ids: ``org.apache.kafka.common.Uuid`` (clients, Kafka 4.3.1).

A topic id is 128 bits held as two Java ``long`` values.  Kafka prints it as the URL-safe base64 of its 16
bytes without padding (22 characters), orders it by ``compareTo`` (signed most significant bits, then signed
least significant bits) and hashes it with ``hashCode``: ``(int)(x >> 32) ^ (int) x`` where
``x = msb ^ lsb``.  The server-side assignors keep topic ids in ``HashSet``/``HashMap`` collections, so that
hash decides iteration orders and, through them, some assignments.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
from functools import total_ordering

from ..errors import InputError
from ..java import to_int32, to_int64

__all__ = ["Uuid", "uuid_hash", "topic_id_for_name"]


@total_ordering
class Uuid:
    """An immutable Kafka ``Uuid``: ``msb`` and ``lsb`` are signed 64-bit integers."""

    __slots__ = ("msb", "lsb", "_hash")

    def __init__(self, msb: int, lsb: int):
        self.msb = to_int64(msb)
        self.lsb = to_int64(lsb)
        x = self.msb ^ self.lsb
        self._hash = to_int32((x >> 32) ^ to_int32(x))

    # -- conversions ------------------------------------------------------------------------------
    @classmethod
    def from_string(cls, text: str, field: str = "id") -> "Uuid":
        """``Uuid.fromString``: 22 characters of URL-safe base64 (no padding) for 16 bytes."""
        if not isinstance(text, str):
            raise InputError(field, f"a topic id must be a base64url string, got {text!r}")
        if len(text) > 24:
            raise InputError(field, f"{text!r} is too long to be a base64 Kafka Uuid")
        try:
            raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        except (binascii.Error, ValueError):
            raise InputError(field, f"{text!r} is not URL-safe base64") from None
        if len(raw) != 16:
            raise InputError(field, f"{text!r} decodes to {len(raw)} bytes, a Kafka Uuid has 16")
        return cls.from_bytes(raw)

    @classmethod
    def from_bytes(cls, raw: bytes) -> "Uuid":
        return cls(int.from_bytes(raw[:8], "big", signed=True), int.from_bytes(raw[8:], "big", signed=True))

    def to_bytes(self) -> bytes:
        return self.msb.to_bytes(8, "big", signed=True) + self.lsb.to_bytes(8, "big", signed=True)

    def __str__(self) -> str:
        """``Uuid.toString``: URL-safe base64 without padding."""
        return base64.urlsafe_b64encode(self.to_bytes()).decode("ascii").rstrip("=")

    def __repr__(self) -> str:
        return f"Uuid({str(self)!r})"

    # -- Java semantics ---------------------------------------------------------------------------
    def hash_code(self) -> int:
        """``Uuid.hashCode()``."""
        return self._hash

    def compare_to(self, other: "Uuid") -> int:
        """``Uuid.compareTo``: signed msb first, then signed lsb."""
        a, b = (self.msb, self.lsb), (other.msb, other.lsb)
        return (a > b) - (a < b)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Uuid) and self.msb == other.msb and self.lsb == other.lsb

    def __lt__(self, other: "Uuid") -> bool:
        return (self.msb, self.lsb) < (other.msb, other.lsb)

    def __hash__(self) -> int:
        return hash((self.msb, self.lsb))


def uuid_hash(uuid: Uuid) -> int:
    """``Uuid.hashCode()`` as a function (for :class:`rebalance.java.JavaHashOrder`)."""
    return uuid.hash_code()


def topic_id_for_name(name: str) -> Uuid:
    """The default topic id of a topic given without one.

    Kafka assigns random ids; the book needs a stable one, so it uses the JDK's name-based UUID
    (``java.util.UUID.nameUUIDFromBytes(name.getBytes(UTF_8))``, MD5, version 3).  None of the
    conformance vectors omits an id, so this choice never changes a recorded result.
    """
    digest = bytearray(hashlib.md5(name.encode("utf-8")).digest())
    digest[6] = (digest[6] & 0x0F) | 0x30
    digest[8] = (digest[8] & 0x3F) | 0x80
    return Uuid.from_bytes(bytes(digest))
