"""A deterministic virtual clock and event queue, shared by every simulator in the book.

Kafka's tests drive time with ``MockTime``; the book's simulators do the same with :class:`VirtualClock`:
time only moves when the next scheduled event is taken, so a run is a pure function of its inputs and
seed.  Events at the same instant run by ``priority`` (lower first), then by ``key``, then in the order they
were scheduled.  The classic group simulator uses the priority to give ties a fixed meaning that does not
depend on when an event was scheduled: ordinary events first (:data:`NORMAL`), then the coordinator's
session timers (:data:`SESSION_TIMER`, keyed by member id), then the heartbeat cycle (:data:`HEARTBEAT`,
keyed by member): a heartbeat that arrives in the same millisecond as a JoinGroup or a session expiry is
handled after it.  That is what lets the heartbeat fast path (:mod:`.simulation`) skip a stable group's
heartbeats and still give the same run as the step-by-step simulation.
"""
from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional, Tuple

from ..errors import EventLimitError

#: the most events one run of a simulator's clock may take (a runaway guard; past it,
#: :class:`~rebalance.errors.EventLimitError`)
MAX_EVENTS = 10_000_000

#: tie-break classes of events at the same virtual millisecond (lower runs first)
NORMAL = 0
SESSION_TIMER = 1
HEARTBEAT = 2

@dataclass(order=True, slots=True)
class ScheduledEvent:
    time_ms: int
    seq: int
    action: Callable[[], Any] = field(compare=False)
    label: str = field(default="", compare=False)
    priority: int = field(default=0, compare=False)
    cancelled: bool = field(default=False, compare=False)
    fired: bool = field(default=False, compare=False)

    @property
    def pending(self) -> bool:
        """Neither run nor cancelled yet."""
        return not (self.cancelled or self.fired)

    def cancel(self) -> None:
        """Cancel the event (it stays in the heap and is skipped when reached)."""
        self.cancelled = True


# The heap holds ``(time_ms, priority, key, seq, event)`` tuples: tuple comparison runs in C, which matters
# for simulations with millions of events (``seq`` is unique, so the event itself is never compared).


class VirtualClock:
    """Virtual milliseconds plus a queue of timed callbacks (a discrete-event loop)."""

    def __init__(self, start_ms: int = 0):
        self.now_ms = start_ms
        self._queue: List[Tuple[int, int, str, int, ScheduledEvent]] = []
        self._seq = itertools.count()

    def schedule(self, delay_ms: int, action: Callable[[], Any], label: str = "", priority: int = NORMAL,
                 key: str = "") -> ScheduledEvent:
        """Run ``action`` ``delay_ms`` from now (``delay_ms`` >= 0)."""
        if delay_ms < 0:
            raise ValueError(f"delay_ms must not be negative, got {delay_ms}")
        return self.schedule_at(self.now_ms + delay_ms, action, label, priority, key)

    def schedule_at(self, time_ms: int, action: Callable[[], Any], label: str = "", priority: int = NORMAL,
                    key: str = "") -> ScheduledEvent:
        """Run ``action`` at virtual time ``time_ms``; among events at the same time, lower ``priority``
        first, then ``key``, then the order of scheduling."""
        if time_ms < self.now_ms:
            raise ValueError(f"cannot schedule in the past ({time_ms} < now {self.now_ms})")
        seq = next(self._seq)
        event = ScheduledEvent(time_ms, seq, action, label, priority)
        heapq.heappush(self._queue, (time_ms, priority, key, seq, event))
        return event

    def peek_priority(self) -> Optional[int]:
        """The tie-break class of the next event (``None`` when nothing is scheduled)."""
        return self._queue[0][1] if self.peek_time() is not None else None

    def pending(self) -> int:
        return sum(1 for *_, e in self._queue if not e.cancelled)

    def peek_time(self) -> Optional[int]:
        while self._queue and self._queue[0][4].cancelled:
            heapq.heappop(self._queue)
        return self._queue[0][0] if self._queue else None

    def clear(self) -> None:
        """Drop every scheduled event (the clock keeps its time)."""
        self._queue.clear()

    def step(self) -> Optional[ScheduledEvent]:
        """Advance to the next event and run it; ``None`` when nothing is scheduled."""
        while self._queue:
            event = heapq.heappop(self._queue)[4]
            if event.cancelled:
                continue
            self.now_ms = event.time_ms
            event.fired = True
            event.action()
            return event
        return None

    def step_until(self, time_ms: int) -> Optional[ScheduledEvent]:
        """Run the next event if it is due at or before ``time_ms`` and return it; ``None`` (and nothing
        run) otherwise.  One look at the queue, where :meth:`peek_time` then :meth:`step` take two."""
        queue = self._queue
        while queue:
            item = queue[0]
            event = item[4]
            if event.cancelled:
                heapq.heappop(queue)
                continue
            if item[0] > time_ms:
                return None
            heapq.heappop(queue)
            self.now_ms = item[0]
            event.fired = True
            event.action()
            return event
        return None

    def run_until(self, time_ms: int, max_events: int = MAX_EVENTS) -> int:
        """Run every event due at or before ``time_ms``, then set the clock to ``time_ms``.
        Returns the number of events run; :class:`~rebalance.errors.EventLimitError` (field ``until_ms``)
        after ``max_events``."""
        count = 0
        while count < max_events:
            if self.step_until(time_ms) is None:
                break
            count += 1
        else:
            raise EventLimitError(max_events, time_ms)
        self.now_ms = max(self.now_ms, time_ms)
        return count

    def run(self, max_events: int = MAX_EVENTS) -> int:
        """Run until no event is left.  Returns the number of events run; :class:`~rebalance.errors.EventLimitError`
        (field ``max_events``) after ``max_events``."""
        count = 0
        while self.step() is not None:
            count += 1
            if count >= max_events:
                raise EventLimitError(max_events)
        return count
