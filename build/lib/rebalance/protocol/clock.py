"""A deterministic virtual clock and event queue, shared by every simulator in the book.

Kafka's tests drive time with ``MockTime``; the book's simulators do the same with :class:`VirtualClock`:
time only moves when the next scheduled event is taken, so a run is a pure function of its inputs and
seed.  Events at the same instant run in the order they were scheduled.
"""
from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional


@dataclass(order=True)
class ScheduledEvent:
    time_ms: int
    seq: int
    action: Callable[[], Any] = field(compare=False)
    label: str = field(default="", compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        """Cancel the event (it stays in the heap and is skipped when reached)."""
        self.cancelled = True


# The heap holds ``(time_ms, seq, event)`` tuples: tuple comparison runs in C, which matters for
# simulations with millions of events (``seq`` is unique, so the event itself is never compared).


class VirtualClock:
    """Virtual milliseconds plus a queue of timed callbacks (a discrete-event loop)."""

    def __init__(self, start_ms: int = 0):
        self.now_ms = start_ms
        self._queue: List[tuple] = []
        self._seq = itertools.count()

    def schedule(self, delay_ms: int, action: Callable[[], Any], label: str = "") -> ScheduledEvent:
        """Run ``action`` ``delay_ms`` from now (``delay_ms`` >= 0)."""
        if delay_ms < 0:
            raise ValueError(f"delay_ms must not be negative, got {delay_ms}")
        return self.schedule_at(self.now_ms + delay_ms, action, label)

    def schedule_at(self, time_ms: int, action: Callable[[], Any], label: str = "") -> ScheduledEvent:
        if time_ms < self.now_ms:
            raise ValueError(f"cannot schedule in the past ({time_ms} < now {self.now_ms})")
        seq = next(self._seq)
        event = ScheduledEvent(time_ms, seq, action, label)
        heapq.heappush(self._queue, (time_ms, seq, event))
        return event

    def pending(self) -> int:
        return sum(1 for _, _, e in self._queue if not e.cancelled)

    def peek_time(self) -> Optional[int]:
        while self._queue and self._queue[0][2].cancelled:
            heapq.heappop(self._queue)
        return self._queue[0][0] if self._queue else None

    def clear(self) -> None:
        """Drop every scheduled event (the clock keeps its time)."""
        self._queue.clear()

    def step(self) -> Optional[ScheduledEvent]:
        """Advance to the next event and run it; ``None`` when nothing is scheduled."""
        while self._queue:
            event = heapq.heappop(self._queue)[2]
            if event.cancelled:
                continue
            self.now_ms = event.time_ms
            event.action()
            return event
        return None

    def run_until(self, time_ms: int, max_events: int = 10_000_000) -> int:
        """Run every event due at or before ``time_ms``, then set the clock to ``time_ms``.
        Returns the number of events run."""
        count = 0
        while count < max_events:
            t = self.peek_time()
            if t is None or t > time_ms:
                break
            self.step()
            count += 1
        else:
            raise RuntimeError(f"more than {max_events} events before {time_ms} ms")
        self.now_ms = max(self.now_ms, time_ms)
        return count

    def run(self, max_events: int = 10_000_000) -> int:
        """Run until no event is left.  Returns the number of events run."""
        count = 0
        while self.step() is not None:
            count += 1
            if count >= max_events:
                raise RuntimeError(f"simulation did not finish within {max_events} events")
        return count
