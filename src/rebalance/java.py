"""Small, exact emulations of the JDK behaviour that Kafka's results depend on.

Kafka's assignors iterate ``java.util.HashMap`` / ``HashSet`` collections of member ids, topics and
``TopicPartition`` objects; which member keeps a partition, or the order of a list, can follow that
iteration order.  This module reproduces the public JDK rules (OpenJDK 17):

* ``String.hashCode``: ``h = 31*h + c`` over UTF-16 code units, 32-bit overflow;
* ``HashMap.hash``: ``h ^ (h >>> 16)``; bucket ``hash & (table_size - 1)``;
* the table starts at 16 buckets (or ``tableSizeFor(initialCapacity)``), doubles when the number of
  entries passes ``0.75 * size`` and never shrinks; a resize keeps the relative order of the keys that
  share a bucket, so the iteration order is "by bucket of the final table, then by insertion order".

Tree bins (more than 8 keys in one bucket of a table of 64 or more) are not emulated; Kafka's inputs
rarely reach them.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Hashable, Iterable, Iterator, List, Optional, Sequence, TypeVar

K = TypeVar("K", bound=Hashable)

_MASK32 = 0xFFFFFFFF
#: ``Integer.MIN_VALUE`` / ``Integer.MAX_VALUE`` and ``Long.MIN_VALUE`` / ``Long.MAX_VALUE``
INT_MIN = -(1 << 31)
INT_MAX = (1 << 31) - 1
LONG_MIN = -(1 << 63)
LONG_MAX = (1 << 63) - 1


def to_int32(value: int) -> int:
    """Wrap a Python int to a Java ``int`` (two's complement, 32 bits)."""
    value &= _MASK32
    return value - (1 << 32) if value & 0x80000000 else value


def to_int64(value: int) -> int:
    """Wrap a Python int to a Java ``long``."""
    value &= 0xFFFFFFFFFFFFFFFF
    return value - (1 << 64) if value & 0x8000000000000000 else value


def utf16_units(text: str) -> List[int]:
    """The UTF-16 code units Java stores for ``text`` (astral characters count as two)."""
    data = text.encode("utf-16-be", "surrogatepass")
    return [(data[i] << 8) | data[i + 1] for i in range(0, len(data), 2)]


def string_hash(text: str) -> int:
    """``java.lang.String.hashCode()`` of ``text``."""
    h = 0
    if text.isascii():
        for ch in text.encode("ascii"):
            h = (31 * h + ch) & _MASK32
    else:
        for unit in utf16_units(text):
            h = (31 * h + unit) & _MASK32
    return h - (1 << 32) if h & 0x80000000 else h


def java_abs(value: int) -> int:
    """``org.apache.kafka.common.utils.Utils.abs``: ``Integer.MIN_VALUE`` maps to 0, not to itself."""
    return 0 if value == INT_MIN else abs(value)


def compare_strings(a: str, b: str) -> int:
    """``String.compareTo``: compares UTF-16 code units (differs from Python for astral characters)."""
    if a.isascii() and b.isascii():
        return (a > b) - (a < b)
    ua, ub = utf16_units(a), utf16_units(b)
    return (ua > ub) - (ua < ub)


def java_string_key(text: str) -> bytes:
    """A sort key that orders strings as ``String.compareTo`` does: the big-endian UTF-16 bytes, which
    compare exactly like the sequences of UTF-16 code units (one type for every string, so ASCII and
    non-ASCII names can be sorted together)."""
    return text.encode("utf-16-be", "surrogatepass")


def same_order_as_python(texts: Iterable[str]) -> bool:
    """True when Python's own ``str`` ordering sorts ``texts`` exactly as ``java.lang.String.compareTo`` does: no text
    has a character outside the Basic Multilingual Plane (only surrogate pairs make UTF-16 order differ from
    code-point order).  Lets a hot sort compare the strings themselves instead of :func:`java_string_key`."""
    return all(text.isascii() or max(text) <= "\uffff" for text in texts)


def topic_partition_hash(topic: str, partition: int) -> int:
    """``org.apache.kafka.common.TopicPartition.hashCode()``."""
    return to_int32(31 * (31 + partition) + string_hash(topic))


def integer_hash(value: int) -> int:
    """``java.lang.Integer.hashCode()``."""
    return to_int32(value)


def spread(h: int) -> int:
    """``HashMap.hash``: the hash code with its high half folded into the low half."""
    h &= _MASK32
    return h ^ (h >> 16)


def table_size_for(capacity: int) -> int:
    """``HashMap.tableSizeFor``: the smallest power of two >= capacity (at least 1)."""
    n = 1
    while n < capacity:
        n <<= 1
    return n


def capacity_for_copy(size: int) -> int:
    """Table size of ``new HashMap<>(otherMap)`` / ``new HashSet<>(collection)`` holding ``size`` keys."""
    if size == 0:
        return 16
    return max(table_size_for(int(size / 0.75 + 1.0)), 1)


def hash_set_copy_capacity(size: int) -> int:
    """Table size of ``new HashSet<>(collection)``: capacity ``max(size/.75f + 1, 16)``."""
    return table_size_for(max(int(size / 0.75) + 1, 16))


class JavaHashOrder:
    """Tracks the table size of one ``java.util.HashMap`` while keys are put and removed, and gives
    its iteration order.

    ``hash_fn`` is the key's ``hashCode``; keys are iterated by bucket of the current table and, within a
    bucket, in the order they were (last) inserted.
    """

    __slots__ = ("hash_fn", "size", "_order", "_seq", "_head")

    def __init__(self, hash_fn: Optional[Callable[[Any], int]] = None, initial_capacity: int = 16):
        self.hash_fn: Callable[[Any], int] = hash_fn or _default_hash
        self.size = table_size_for(initial_capacity) if initial_capacity > 0 else 1
        self._order: dict[Hashable, int] = {}
        self._seq = 0
        self._head = 0

    def put(self, key: Hashable) -> None:
        """``put``/``add``: a new key is appended at the tail of its bucket."""
        if key in self._order:
            return
        self._order[key] = self._seq
        self._seq += 1
        self._grow()

    def put_head(self, key: Hashable) -> None:
        """``computeIfAbsent`` (of a new or a present key): a new key is linked at the *head* of its bucket (``newNode(hash, key, v,
        first)``).  A resize keeps the order inside a bucket, so sorting by (bucket, sequence) stays exact
        when head insertions take decreasing negative sequences."""
        # computeIfAbsent resizes *first* (``if (size > threshold || ...) resize()``), whether or not the key is
        # there already, and not after linking (``++size`` without a check), unlike ``putVal``: a map can hold
        # threshold + 1 keys until the next computeIfAbsent (even of a present key) or put
        self._grow()
        if key in self._order:
            return
        self._head -= 1
        self._order[key] = self._head

    def _grow(self) -> None:
        if len(self._order) > self.size * 0.75:
            self.size *= 2

    def put_all(self, keys: Iterable[Hashable]) -> "JavaHashOrder":
        for key in keys:
            self.put(key)
        return self

    def remove(self, key: Hashable) -> None:
        self._order.pop(key, None)

    def __contains__(self, key: object) -> bool:
        return key in self._order

    def __len__(self) -> int:
        return len(self._order)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.keys())

    def keys(self) -> List[Any]:
        mask = self.size - 1
        h = self.hash_fn
        order = self._order
        return sorted(order, key=lambda k: (spread(h(k)) & mask, order[k]))


#: ``string_hash`` with a bounded memory: the same topic and member names are hashed again and again (each
#: member's user data is one HashMap of its topics)
_string_hash_cached = lru_cache(maxsize=1 << 16)(string_hash)


def _default_hash(key: object) -> int:
    if isinstance(key, str):
        return _string_hash_cached(key)
    if isinstance(key, int):
        return integer_hash(key)
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], str):
        return topic_partition_hash(key[0], key[1])
    raise TypeError(f"no Java hashCode known for {key!r}")


def _spread_string_hash(text: str) -> int:
    return spread(string_hash(text))


#: ``HashMap.hash`` of a ``String``, with a bounded memory (the same names are hashed again and again)
_spread_string_hash_cached = lru_cache(maxsize=1 << 16)(_spread_string_hash)


def hashmap_order(keys: Sequence[Any], hash_fn: Optional[Callable[[Any], int]] = None,
                  initial_capacity: int = 16) -> List[Any]:
    """Iteration order of a ``HashMap``/``HashSet`` filled with ``keys`` in this order (no removals)."""
    if hash_fn is None and all(type(k) is str for k in keys):
        # what JavaHashOrder computes, for the common all-String case in one sort: the final table size,
        # then a stable sort of the distinct keys (in first-insertion order) by bucket
        unique = list(dict.fromkeys(keys))
        size = table_size_for(initial_capacity) if initial_capacity > 0 else 1
        while len(unique) > size * 0.75:
            size *= 2
        mask = size - 1
        buckets = [h & mask for h in map(_spread_string_hash_cached, unique)]
        return [unique[i] for i in sorted(range(len(unique)), key=buckets.__getitem__)]
    return JavaHashOrder(hash_fn, initial_capacity).put_all(keys).keys()


def compute_if_absent_order(keys: Sequence[Any], hash_fn: Optional[Callable[[Any], int]] = None) -> List[Any]:
    """Iteration order of a ``new HashMap<>()`` filled by one ``computeIfAbsent(key, ...)`` call for each of
    ``keys``, repeats included (``CollectionUtils.groupPartitionsByTopic`` calls it once per partition).

    Two rules set it apart from :func:`hashmap_order` (``put``): a new key is linked at the *head* of its bucket,
    so keys sharing a bucket of the final table come in reverse order of their first call; and the table grows
    at the *start* of a call (when it holds more than ``0.75 * size`` keys), so the last new key can leave the
    map one key over its threshold, not resized, when no call follows it.  :meth:`JavaHashOrder.put_head` per
    call gives the same order; this is its one-sort form for ``String`` keys."""
    if hash_fn is not None or not all(type(k) is str for k in keys):
        order = JavaHashOrder(hash_fn)
        for key in keys:
            order.put_head(key)
        return order.keys()
    first = {k: i for i, k in reversed(list(enumerate(keys)))}  # each key's first call
    unique = sorted(first, key=first.__getitem__)
    size = 16
    for count in range(len(unique)):  # the call that brings key number count + 1 sees count keys
        if count > size * 0.75:
            size *= 2
    if unique and first[unique[-1]] < len(keys) - 1 and len(unique) > size * 0.75:
        size *= 2  # a later call (of a present key) resizes
    mask = size - 1
    buckets = [h & mask for h in map(_spread_string_hash_cached, unique)]
    return [unique[i] for i in sorted(range(len(unique)), key=lambda i: (buckets[i], -i))]
