"""``java.util.PriorityQueue`` with a comparator, element for element (JDK 17, the oracle's runtime).

What both sides of :mod:`rebalance.streams` share.  The client-side assignor (:mod:`rebalance.streams.client`)
polls clients and task movements from ``PriorityQueue``\\ s whose comparators read live state: a client's
*current* task load (``ConstrainedPrioritySet``, which removes and re-offers a client when its load changes), and a
movement's task and count of caught-up clients (``TaskMovement``, where two standby movements of one task compare
equal); the coordinator's ``StickyTaskAssignor`` (:mod:`rebalance.streams.coordinator`) polls processes by load and,
in ``ProcessState``, members by task count.  Which element ``poll`` returns can then depend on the exact array the
JDK keeps, not only on the comparator.  This class keeps the same array and moves elements exactly as ``offer``
(``siftUpUsingComparator``), ``poll`` (``siftDownUsingComparator`` from the root with the last element) and
``remove(Object)`` (``indexOf`` by ``equals`` from index 0, then ``removeAt``: sift the last element down at the
hole and, if it did not move, up) do, calling the comparator at the same moments.

A poll depends on the array when its least element ties with another one, or when an element's key changed while
it was queued (the array is then no longer a heap).  ``JavaPriorityQueue.naive = True``
makes every queue poll as a plain priority list would (the least element by the comparator now, the earliest in
the array among equals): the scenario generator compares the two to keep the groups whose answer depends on the
array, and the tests check that Kafka's answers to those groups are the exact array's.
"""
from __future__ import annotations

from typing import Callable, Generic, Iterable, List, Optional, TypeVar

__all__ = ["JavaPriorityQueue"]

T = TypeVar("T")


class JavaPriorityQueue(Generic[T]):
    """A ``PriorityQueue<T>`` whose ``compare(a, b)`` is evaluated when the JDK would evaluate it."""

    __slots__ = ("_compare", "_queue")

    #: when True, every queue polls as a plain priority list (for comparison only: this is not Java's answer)
    naive = False

    def __init__(self, compare: Callable[[T, T], int], items: Iterable[T] = ()):
        """``new PriorityQueue<>(comparator)`` followed by ``addAll(items)`` (one ``offer`` each, in order)."""
        self._compare = compare
        self._queue: List[T] = []
        for item in items:
            self.offer(item)

    def __len__(self) -> int:
        return len(self._queue)

    def __bool__(self) -> bool:
        return bool(self._queue)

    def offer(self, item: T) -> None:
        """``offer(e)``: append at ``size`` and sift up."""
        self._queue.append(item)
        self._sift_up(len(self._queue) - 1, item)

    def add(self, item: T) -> None:
        """``add(e)``, which is ``offer(e)``."""
        self.offer(item)

    def is_empty(self) -> bool:
        """``isEmpty()``."""
        return not self._queue

    def poll(self) -> Optional[T]:
        """``poll()``: the root, replaced by the last element sifted down (None when empty)."""
        es = self._queue
        if not es:
            return None
        if JavaPriorityQueue.naive:
            least = 0
            for i in range(1, len(es)):
                if self._compare(es[i], es[least]) < 0:
                    least = i
            return es.pop(least)
        result = es[0]
        last = es.pop()
        if es:
            self._sift_down(0, last)
        return result

    def remove(self, item: T) -> bool:
        """``remove(Object)``: the first element ``equals`` to ``item`` in array order."""
        for i, e in enumerate(self._queue):
            if e == item:
                self._remove_at(i)
                return True
        return False

    def _remove_at(self, i: int) -> None:
        es = self._queue
        s = len(es) - 1
        if s == i:
            es.pop()
            return
        moved = es.pop()
        self._sift_down(i, moved)
        if es[i] is moved:
            self._sift_up(i, moved)

    def _sift_up(self, k: int, x: T) -> None:
        es, cmp = self._queue, self._compare
        while k > 0:
            parent = (k - 1) >> 1
            e = es[parent]
            if cmp(x, e) >= 0:
                break
            es[k] = e
            k = parent
        es[k] = x

    def _sift_down(self, k: int, x: T) -> None:
        es, cmp = self._queue, self._compare
        n = len(es)
        half = n >> 1
        while k < half:
            child = (k << 1) + 1
            c = es[child]
            right = child + 1
            if right < n and cmp(c, es[right]) > 0:
                child = right
                c = es[child]
            if cmp(x, c) <= 0:
                break
            es[k] = c
            k = child
        es[k] = x
