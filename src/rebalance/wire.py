"""Kafka's protocol types read from a ``java.nio.ByteBuffer``: the one reader of both group protocols' bytes.

Mirrors ``org.apache.kafka.common.protocol.types`` (Kafka 4.3.1): ``Type.INT16``/``INT32``/``INT64`` are
big-endian, ``Type.STRING`` an INT16 length and UTF-8 bytes, ``Type.NULLABLE_BYTES`` an INT32 length (-1 for
null) and the bytes, ``ArrayOf`` an INT32 count and the elements.  The consumer's sticky user data
(:mod:`rebalance.consumer.sticky_userdata`) and Connect's assignment and worker metadata
(:mod:`rebalance.connect.protocol`) are both read through :class:`ByteBuffer`; a read past the end or a
length the type refuses raises :class:`SchemaError`, Kafka's ``SchemaException``.
"""
from __future__ import annotations

import struct
from typing import Optional

from .errors import SchemaError as SchemaError  # re-exported; defined in errors

__all__ = ["SchemaError", "ByteBuffer"]

_SHORT = struct.Struct(">h")
_INT = struct.Struct(">i")
_LONG = struct.Struct(">q")




class ByteBuffer:
    """A read-only ``java.nio.ByteBuffer`` over ``data`` with a movable position: reading moves it,
    :meth:`rewind` puts it back to 0, :meth:`duplicate` is an independent view at the same position."""

    __slots__ = ("data", "position")

    def __init__(self, data: bytes, position: int = 0):
        self.data = bytes(data)
        self.position = max(0, min(position, len(self.data)))

    def remaining(self) -> int:
        return len(self.data) - self.position

    def has_remaining(self) -> bool:
        return self.position < len(self.data)

    def rewind(self) -> None:
        self.position = 0

    def duplicate(self) -> "ByteBuffer":
        return ByteBuffer(self.data, self.position)

    def _take(self, n: int) -> bytes:
        if n > self.remaining():
            raise SchemaError("BufferUnderflowException")
        chunk = self.data[self.position:self.position + n]
        self.position += n
        return chunk

    def get_short(self) -> int:
        """``getShort()``: ``Type.INT16``."""
        value: int = _SHORT.unpack(self._take(2))[0]
        return value

    def get_int(self) -> int:
        """``getInt()``: ``Type.INT32``."""
        value: int = _INT.unpack(self._take(4))[0]
        return value

    def get_long(self) -> int:
        """``getLong()``: ``Type.INT64``."""
        value: int = _LONG.unpack(self._take(8))[0]
        return value

    def _length(self, value: int, what: str, unit: str) -> int:
        """A length prefix as ``Type.STRING`` and ``ArrayOf`` check it: not negative, not beyond the buffer."""
        if value < 0:
            raise SchemaError(f"{what.capitalize()} {unit} {value} cannot be negative")
        if value > self.remaining():
            raise SchemaError(f"Error reading {what} of {unit} {value}, only {self.remaining()} bytes available")
        return value

    def read_string(self) -> str:
        """``Type.STRING.read`` (``Type.java`` line 493 in 4.3.1, 455 at commit 1eb7644): malformed UTF-8 is
        replaced, as ``Utils.utf8`` (``new String(bytes, UTF_8)``)."""
        return self._take(self._length(self.get_short(), "string", "length")).decode("utf-8", errors="replace")

    def read_nullable_bytes(self) -> Optional[bytes]:
        """``Type.NULLABLE_BYTES.read`` (``Type.java`` line 790 in 4.3.1, 802 at commit 1eb7644): a negative
        size is null."""
        n = self.get_int()
        return None if n < 0 else self._take(self._length(n, "bytes", "size"))

    def read_array_size(self) -> int:
        """The element count ``ArrayOf.read`` starts with (``ArrayOf.java`` lines 70-72 in 4.3.1, line 70 at
        commit 1eb7644; not nullable)."""
        return self._length(self.get_int(), "array", "size")
