"""``java.util.PriorityQueue`` with a comparator, exactly as OpenJDK 17 keeps its binary heap.

Kafka's ``StickyTaskAssignor`` and ``ProcessState`` (streams group, Kafka 4.3.1) take the least-loaded process and
the least-loaded member from a ``PriorityQueue`` whose comparator ties often (equal loads, equal task counts).
Which of the tied elements ``poll()`` returns is decided by the heap's layout, which follows from the order of
the ``add`` calls and the sift rules below (``PriorityQueue.siftUpUsingComparator`` /
``siftDownUsingComparator``), not from insertion order.  ``addAll`` is ``AbstractQueue.addAll``: one ``add`` per
element in the collection's iteration order.
"""
from __future__ import annotations

from typing import Callable, Generic, Iterable, List, Optional, TypeVar

T = TypeVar("T")

__all__ = ["JavaPriorityQueue"]


class JavaPriorityQueue(Generic[T]):
    """A min-heap ordered by ``compare(a, b)`` (negative, zero, positive) as ``java.util.PriorityQueue`` orders it."""

    __slots__ = ("_heap", "_compare")

    def __init__(self, compare: Callable[[T, T], int], items: Iterable[T] = ()):
        self._heap: List[T] = []
        self._compare = compare
        for item in items:
            self.add(item)

    def __len__(self) -> int:
        return len(self._heap)

    def is_empty(self) -> bool:
        """``isEmpty()``."""
        return not self._heap

    def add(self, item: T) -> None:
        """``add``/``offer``: append at the end and sift up while strictly smaller than the parent."""
        heap = self._heap
        heap.append(item)
        k = len(heap) - 1
        while k > 0:
            parent = (k - 1) >> 1
            above = heap[parent]
            if self._compare(item, above) >= 0:
                break
            heap[k] = above
            k = parent
        heap[k] = item

    def poll(self) -> Optional[T]:
        """``poll()``: the head (``None`` when empty); the last element sifts down from the root."""
        heap = self._heap
        if not heap:
            return None
        result = heap[0]
        last = heap.pop()
        n = len(heap)
        if n > 0:
            k = 0
            half = n >> 1
            while k < half:
                child = 2 * k + 1
                c = heap[child]
                right = child + 1
                if right < n and self._compare(c, heap[right]) > 0:
                    child = right
                    c = heap[child]
                if self._compare(last, c) <= 0:
                    break
                heap[k] = c
                k = child
            heap[k] = last
        return result
