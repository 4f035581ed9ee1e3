"""The ``java.util`` collections whose iteration order decides Kafka's results, emulated once for the package.

* :class:`JavaHashSet`: the ``HashSet<TopicPartition>`` of ``AbstractStickyAssignor.PartitionMovements``
  (client assignors, Kafka 4.3.1), reduced to add, remove and its first element -- the hot path of the
  sticky general builder, so it keeps only what that needs;
* the collections of the KIP-848 server-side assignors, below.

The group coordinator's assignors (Kafka 4.3.1, ``group-coordinator/.../assignor``) keep member
assignments as ``Map<Uuid, Set<Integer>>`` and topic ids as ``Set<Uuid>``.  Which partitions a member keeps
when it is over its quota follows the iteration order of those collections, so each collection here
remembers how Java would iterate it:

* ``HashMap``/``HashSet`` through :class:`rebalance.java.JavaHashOrder` (bucket of the current table, then
  insertion order); the table size follows the constructor used (``new HashSet<>()``, ``new HashSet<>(c)``,
  ``new HashMap<>(n)``) and the growth rule;
* ``LinkedHashMap``/``LinkedHashSet``: insertion order;
* ``TreeMap``: key order;
* Kafka's ``RangeSet``: ascending integers;
* Kafka's ``TimelineHashMap`` (the coordinator's map of a group's members): :class:`TimelineHashOrder`.

Nothing here re-implements the JDK hash rules; they come from :mod:`rebalance.java`.
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Dict, Generic, List, Optional, Sequence, Tuple, TypeVar, Union, cast, overload

from .java import JavaHashOrder, hash_set_copy_capacity, java_string_key, spread, string_hash, to_int32

T = TypeVar("T", bound=Hashable)
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
D = TypeVar("D")

__all__ = [
    "JavaHashSet",
    "JSet", "HashJSet", "LinkedJSet", "RangeSet",
    "JMap", "HashJMap", "LinkedJMap", "TreeJMap",
    "new_set", "new_map", "deep_copy_assignment", "TimelineHashOrder",
]


#: ``String.hashCode`` of topic names, memoised with a bound (a long-lived process sees many topics)
_topic_hash = functools.lru_cache(maxsize=1 << 16)(string_hash)


def _tp_hash(tp: Tuple[str, int]) -> int:
    """The spread ``TopicPartition.hashCode`` a ``HashSet<TopicPartition>`` buckets by (``tp`` is ``(topic, partition)``)."""
    return spread(to_int32(31 * (31 + tp[1]) + _topic_hash(tp[0])))


class JavaHashSet:
    """A ``java.util.HashSet<TopicPartition>`` (``(topic, partition)`` tuples) reduced to what Kafka uses here: add, remove, size and the
    first element of its iteration order (bucket of the current table, then insertion order)."""

    __slots__ = ("size", "_seq", "_items")

    def __init__(self) -> None:
        self.size = 16
        self._seq = 0
        self._items: Dict[Tuple[str, int], Tuple[int, int]] = {}  # tp -> (spread hash, insertion seq)

    def add(self, tp: Tuple[str, int]) -> None:
        if tp in self._items:
            return
        self._items[tp] = (_tp_hash(tp), self._seq)
        self._seq += 1
        if len(self._items) > self.size * 0.75:
            self.size *= 2

    def remove(self, tp: Tuple[str, int]) -> None:
        self._items.pop(tp, None)

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)

    def first(self) -> Tuple[str, int]:
        """The first element; the set is never empty here (Kafka drops an emptied set, as the callers do)."""
        mask = self.size - 1
        best: Optional[Tuple[str, int]] = None
        best_key: Optional[Tuple[int, int]] = None
        for tp, (h, seq) in self._items.items():
            key = (h & mask, seq)
            if best_key is None or key < best_key:
                best, best_key = tp, key
        return cast(Tuple[str, int], best)  # non-empty: see the docstring


class JSet(Generic[T]):
    """A Java ``Set`` whose iteration order is modelled."""

    def add(self, item: T) -> None:
        raise NotImplementedError

    def remove(self, item: T) -> None:
        raise NotImplementedError

    def __contains__(self, item: object) -> bool:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def __iter__(self) -> Iterator[T]:
        raise NotImplementedError

    def to_list(self) -> List[T]:
        return list(iter(self))


class HashJSet(JSet[T]):
    """``java.util.HashSet`` with an initial table size (``new HashSet<>(capacity)``)."""

    __slots__ = ("_order", "_cache")

    def __init__(self, hash_fn: Optional[Callable[[T], int]] = None, capacity: int = 16, items: Iterable[T] = ()):
        self._order = JavaHashOrder(hash_fn, capacity)
        self._cache: Optional[List[T]] = None
        for item in items:
            self.add(item)

    @classmethod
    def copy_of(cls, items: Iterable[T], hash_fn: Optional[Callable[[T], int]] = None) -> "HashJSet[T]":
        """``new HashSet<>(collection)``: table for ``max(n/.75 + 1, 16)`` keys, filled in ``items`` order."""
        listed = list(items)
        return cls(hash_fn, hash_set_copy_capacity(len(listed)), listed)

    def add(self, item: T) -> None:
        if item not in self._order:
            self._order.put(item)
            self._cache = None

    def remove(self, item: T) -> None:
        if item in self._order:
            self._order.remove(item)
            self._cache = None

    def __contains__(self, item: object) -> bool:
        return item in self._order

    def __len__(self) -> int:
        return len(self._order)

    def __iter__(self) -> Iterator[T]:
        if self._cache is None:
            self._cache = self._order.keys()
        return iter(self._cache)


class LinkedJSet(JSet[T]):
    """``java.util.LinkedHashSet`` (also stands for ``Set.of``-free test sets): insertion order."""

    __slots__ = ("_items",)

    def __init__(self, items: Iterable[T] = ()):
        self._items: Dict[T, None] = dict.fromkeys(items)

    def add(self, item: T) -> None:
        self._items.setdefault(item, None)

    def remove(self, item: T) -> None:
        self._items.pop(item, None)

    def __contains__(self, item: object) -> bool:
        return item in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[T]:
        return iter(list(self._items))


class RangeSet(JSet[int]):
    """Kafka's ``RangeSet`` (``group-coordinator/.../assignor/RangeSet``): the integers ``[start, end)``."""

    __slots__ = ("start", "end")

    def __init__(self, start: int, end: int):
        self.start, self.end = start, end

    def __contains__(self, item: object) -> bool:
        return isinstance(item, int) and self.start <= item < self.end

    def __len__(self) -> int:
        return max(0, self.end - self.start)

    def __iter__(self) -> Iterator[int]:
        return iter(range(self.start, self.end))


class JMap(Generic[K, V]):
    """A Java ``Map`` whose key iteration order is modelled: the values live in ``_values`` (a ``dict``),
    the subclasses keep the order of the keys.  ``immutable`` marks the maps Kafka wraps with
    ``Collections.unmodifiableMap`` (the assignors copy those before changing them)."""

    immutable = False
    _values: Dict[K, V]

    def put(self, key: K, value: V) -> None:
        raise NotImplementedError

    @overload
    def get(self, key: K) -> Optional[V]: ...
    @overload
    def get(self, key: K, default: D) -> Union[V, D]: ...

    def get(self, key: K, default: object = None) -> object:
        return self._values.get(key, default)

    def remove(self, key: K) -> None:
        raise NotImplementedError

    def keys(self) -> List[K]:
        raise NotImplementedError

    def __contains__(self, key: object) -> bool:
        return key in self._values

    def __len__(self) -> int:
        return len(self._values)

    def __getitem__(self, key: K) -> V:
        value = self.get(key, _MISSING)
        if value is _MISSING:
            raise KeyError(key)
        return cast(V, value)

    def __iter__(self) -> Iterator[K]:
        return iter(self.keys())

    def items(self) -> List[tuple[K, V]]:
        # every key of keys() has a value: get(k) never falls back to its default here
        return [(k, cast(V, self.get(k))) for k in self.keys()]

    def values(self) -> List[V]:
        return [cast(V, self.get(k)) for k in self.keys()]

    def setdefault(self, key: K, factory: Callable[[], V]) -> V:
        """``computeIfAbsent(key, __ -> factory())``."""
        value = self.get(key, _MISSING)
        if value is _MISSING:
            created = factory()
            self.put(key, created)
            return created
        return cast(V, value)


_MISSING = object()


class HashJMap(JMap[K, V]):
    """``java.util.HashMap`` created with ``new HashMap<>(capacity)`` (default 16)."""

    def __init__(self, hash_fn: Optional[Callable[[K], int]] = None, capacity: int = 16):
        self._order = JavaHashOrder(hash_fn, capacity)
        self._values: Dict[K, V] = {}
        self._cache: Optional[List[K]] = None

    def put(self, key: K, value: V) -> None:
        if key not in self._values:
            self._order.put(key)
            self._cache = None
        self._values[key] = value

    def setdefault(self, key: K, factory: Callable[[], V]) -> V:
        """``HashMap.computeIfAbsent``: a new key goes to the head of its bucket; the table grows first when it
        is over its threshold, even when the key is present."""
        if key not in self._values:
            value = factory()
            self._order.put_head(key)
            self._cache = None
            self._values[key] = value
            return value
        size = self._order.size
        self._order.put_head(key)
        if self._order.size != size:
            self._cache = None
        return self._values[key]

    def remove(self, key: K) -> None:
        if key in self._values:
            del self._values[key]
            self._order.remove(key)
            self._cache = None

    def keys(self) -> List[K]:
        if self._cache is None:
            self._cache = self._order.keys()
        return list(self._cache)


class LinkedJMap(JMap[K, V]):
    """``java.util.LinkedHashMap``: insertion order."""

    def __init__(self) -> None:
        self._values: Dict[K, V] = {}

    def put(self, key: K, value: V) -> None:
        self._values[key] = value

    def remove(self, key: K) -> None:
        self._values.pop(key, None)

    def keys(self) -> List[K]:
        return list(self._values)


class TreeJMap(LinkedJMap[str, V]):
    """``java.util.TreeMap`` with natural key order (``String.compareTo`` for member ids)."""

    def __init__(self, sort_key: Callable[[str], bytes] = java_string_key):
        super().__init__()
        self._sort_key = sort_key

    def keys(self) -> List[str]:
        return sorted(self._values, key=self._sort_key)


def new_set(kind: str, items: Iterable[T], hash_fn: Optional[Callable[[T], int]] = None) -> JSet[T]:
    """A set filled from ``items`` in order: ``"hash"`` = ``new HashSet<>(items)``, ``"linked"`` =
    ``new LinkedHashSet<>(items)``."""
    if kind == "hash":
        return HashJSet.copy_of(items, hash_fn)
    if kind == "linked":
        return LinkedJSet(items)
    raise ValueError(f"unknown set kind {kind!r}")


def new_map(kind: str, hash_fn: Optional[Callable[[K], int]] = None, capacity: int = 16) -> JMap[K, V]:
    """An empty map of ``kind`` ``"hash"`` | ``"linked"`` | ``"tree"``."""
    if kind == "hash":
        return HashJMap(hash_fn, capacity)
    if kind == "linked":
        return LinkedJMap()
    if kind == "tree":
        return cast(JMap[K, V], TreeJMap())  # a TreeMap's keys are member ids (str)
    raise ValueError(f"unknown map kind {kind!r}")


def deep_copy_assignment(assignment: JMap[K, JSet[int]], topic_hash: Callable[[K], int]) -> HashJMap[K, JSet[int]]:
    """``AssignorHelpers.deepCopyAssignment``: ``new HashMap<>(size)`` of ``new HashSet<>(partitions)``,
    copied in the source's iteration order."""
    copy: HashJMap[K, JSet[int]] = HashJMap(topic_hash, len(assignment))
    for topic_id, partitions in assignment.items():
        copy.put(topic_id, HashJSet.copy_of(partitions))
    return copy


class TimelineHashOrder(Generic[K]):
    """The iteration order of Kafka's ``org.apache.kafka.timeline.TimelineHashMap`` at its latest state, from the
    keys put and removed (``BaseHashTable``, ``server-common`` 4.3.1): a table of ``expectedSizeToCapacity``
    slots (2 for a map created empty, ``new TimelineHashMap<>(registry, 0)``) that doubles when ``(size + 1) *
    0.75`` exceeds it, never shrinks; a key goes to slot ``(hashCode * -7046029254386353131L) >>> (65 -
    log2size)`` (``findSlot``), a slot that holds several keeps them in the order they came (a rehash visits the
    old slots in order); iteration is slot by slot.  The group coordinator fills ``TargetAssignmentBuilder``'s
    member ``HashMap`` by iterating a group's members in this order, which decides the order of two member ids
    that fall into one of that ``HashMap``'s buckets.  ``hash_fn``: the key's ``hashCode`` (``String``'s by
    default)."""

    def __init__(self, hash_fn: Optional[Callable[[K], int]] = None, capacity: int = 2):
        self._hash: Callable[[K], int] = hash_fn or cast(Callable[[K], int], string_hash)
        self._slots: List[List[K]] = [[] for _ in range(capacity)]
        self._size = 0

    def _slot(self, key: K, n: int) -> int:
        log2size = n.bit_length()  # 32 - Integer.numberOfLeadingZeros(n)
        product = (self._hash(key) * -7046029254386353131) & 0xFFFFFFFFFFFFFFFF
        return product >> (65 - log2size)

    def __contains__(self, key: object) -> bool:
        return any(key in slot for slot in self._slots)

    def put(self, key: K) -> None:
        """``baseAddOrReplace``: a new key (a key already there keeps its place)."""
        if key in self:
            return
        if (self._size + 1) * 0.75 > len(self._slots) and len(self._slots) < (1 << 30):
            old, self._slots = self._slots, [[] for _ in range(len(self._slots) * 2)]
            for slot in old:
                for k in slot:
                    self._slots[self._slot(k, len(self._slots))].append(k)
        self._slots[self._slot(key, len(self._slots))].append(key)
        self._size += 1

    def remove(self, key: K) -> None:
        """``baseRemove`` (nothing if the key is not there)."""
        for slot in self._slots:
            if key in slot:
                slot.remove(key)
                self._size -= 1
                return

    @property
    def capacity(self) -> int:
        """The table's number of slots."""
        return len(self._slots)

    def keys(self) -> List[K]:
        return [k for slot in self._slots for k in slot]

    def follow(self, keys: Sequence[K]) -> List[K]:
        """The map after a group's members became ``keys``: those not among them removed, then the new ones put
        in ``keys``' order.  Returns the keys kept, in their order before the new ones came."""
        for gone in [k for k in self.keys() if k not in keys]:
            self.remove(gone)
        kept = self.keys()
        for k in keys:
            self.put(k)
        return kept
