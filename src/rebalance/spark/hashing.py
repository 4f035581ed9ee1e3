"""``String.hashCode`` and ``partitionFor`` over whole columns at once, for the coordinator job.

This is the definition of :func:`rebalance.java.string_hash` (``h = 31*h + c`` over UTF-16 code units,
32-bit overflow) evaluated on numpy arrays, so that tens of millions of group ids can be hashed inside
Spark's Arrow batches; :func:`partition_for_array` is ``Utils.abs(groupId.hashCode()) % numPartitions``
(``GroupCoordinatorService.partitionFor``, Kafka 4.3.1, the same expression as
:func:`rebalance.protocol.coordinator.partition_for`).  ``tests/spark`` checks both, value by value,
against those scalar functions and against Kafka's own vectors.

How it is vectorised: the ASCII strings of a batch are laid out *right-aligned* in a ``(width, n)`` byte
matrix (column ``i`` holds string ``i`` preceded by zeros).  Leading zeros leave ``h`` at 0, so the whole
batch is hashed by ``width`` multiply-adds on ``uint32`` arrays, which wrap exactly like a Java ``int``.
Strings that are not pure ASCII (UTF-16 surrogates, accents, CJK) go through the scalar
:func:`rebalance.java.string_hash` one by one.
"""
from __future__ import annotations

from typing import Iterable, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError
from ..java import INT_MIN, string_hash
from ..validation import require

ArrayLike = Union[Iterable[str], np.ndarray, pa.Array, pa.ChunkedArray]

_ROWS_PER_BLOCK = 65_536  # keeps the (width, rows) byte matrix small (a few MB)


def _as_arrow_strings(values: ArrayLike) -> pa.Array:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not isinstance(values, pa.Array):
        try:
            values = pa.array(values if not isinstance(values, np.ndarray) else values.tolist(), type=pa.string())
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise InputError("groupIds", f"must all be strings ({exc})") from None
    if pa.types.is_large_string(values.type):
        values = values.cast(pa.string())
    require(pa.types.is_string(values.type), "groupIds", f"must be strings, got Arrow type {values.type}")
    require(values.null_count == 0, "groupIds", "must not contain nulls (a group id is a string)")
    return values


def _ascii_block_hash(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """``String.hashCode`` of the ASCII strings ``data[starts[i]:ends[i]]`` (as ``uint32``)."""
    n = len(starts)
    h = np.zeros(n, dtype=np.uint32)
    if n == 0:
        return h
    lengths = ends - starts
    width = int(lengths.max()) if n else 0
    if width == 0:
        return h
    thirty_one = np.uint32(31)
    padded = np.concatenate([np.zeros(width, dtype=np.uint8), data])  # index -1.. -width land on zeros
    # byte j (0..width-1) of the right-aligned string i sits at data[ends[i] - width + j]
    for j in range(width):
        idx = ends - width + j
        col = np.where(idx >= starts, padded[idx + width], 0).astype(np.uint32)
        h = h * thirty_one + col
    return h


def string_hash_array(values: ArrayLike) -> np.ndarray:
    """``java.lang.String.hashCode()`` of every string, as an ``int32`` numpy array.

    >>> string_hash_array(["my-group", "polygenelubricants", "é"]).tolist()
    [-1906497762, -2147483648, 233]
    """
    arr = _as_arrow_strings(values)
    n = len(arr)
    out = np.zeros(n, dtype=np.uint32)
    if n == 0:
        return out.view(np.int32)
    ascii_mask = pc.string_is_ascii(arr).to_numpy(zero_copy_only=False)
    offsets_buf, data_buf = arr.buffers()[1], arr.buffers()[2]
    offsets = np.frombuffer(offsets_buf, dtype=np.int32, count=arr.offset + n + 1)[arr.offset:].astype(np.int64)
    data = (np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None and data_buf.size
            else np.zeros(0, dtype=np.uint8))
    ascii_rows = np.flatnonzero(ascii_mask)
    for lo in range(0, len(ascii_rows), _ROWS_PER_BLOCK):
        rows = ascii_rows[lo:lo + _ROWS_PER_BLOCK]
        out[rows] = _ascii_block_hash(data, offsets[rows], offsets[rows + 1])
    other = np.flatnonzero(~ascii_mask)
    if len(other):
        texts = arr.take(pa.array(other)).to_pylist()
        out[other] = np.array([string_hash(t) for t in texts], dtype=np.int64).astype(np.uint32)
    return out.view(np.int32)


def java_abs_array(hashes: np.ndarray) -> np.ndarray:
    """``Utils.abs`` element-wise: ``Integer.MIN_VALUE`` becomes 0 (see :func:`rebalance.java.java_abs`)."""
    h = np.asarray(hashes, dtype=np.int64)
    return np.where(h == INT_MIN, 0, np.abs(h)).astype(np.int64)


def partition_for_array(values: ArrayLike, num_partitions: int) -> np.ndarray:
    """``Utils.abs(groupId.hashCode()) % numPartitions`` for every group id (``int64`` array)."""
    require(isinstance(num_partitions, int) and not isinstance(num_partitions, bool) and num_partitions >= 1,
            "numPartitions", f"must be a whole number >= 1, got {num_partitions!r}")
    return java_abs_array(string_hash_array(values)) % num_partitions
