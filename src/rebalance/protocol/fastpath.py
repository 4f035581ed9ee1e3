"""The heartbeat fast path: a stable classic group costs nothing per heartbeat until something changes.

A member of a ``Stable`` group that is itself ``STABLE`` in the group's generation does the same thing
every ``heartbeat.interval.ms``: its heartbeat thread sends Heartbeat, the coordinator moves its session
deadline (``GroupMetadataManager.classicGroupHeartbeat`` -> ``rescheduleClassicGroupMemberHeartbeat``,
at Kafka's commit 1eb7644, trunk before 4.0) and answers ``NONE``.  Nothing else happens until an event
that is not part of that cycle occurs: a fault, a request, a timer of the coordinator, a member's poll.
Simulating each of those heartbeats is what made a rolling restart of a 1,000-member group too slow to run.

While the coordinator is ``Stable``, :class:`HeartbeatFastPathMixin` takes the heartbeat cycle of every
*steady* member -- ``STABLE`` in the group's generation, nothing pending, at most a successful Heartbeat in
flight -- off the clock and remembers only its phase; the clock then jumps from one other event to the next.
A member's cycle is brought up to date arithmetically (the Heartbeat requests and responses it would have
counted, the session deadline its last arrival set, and the tick, arrival or response still to come, which
go back on the clock as ordinary events) the moment anything touches it: the member stops heartbeating
(crash, close, reset: ``ConsumerMember._disable_heartbeat``), the coordinator changes or removes its member
(``ClassicGroupCoordinator.member_touched``), or the group leaves ``Stable``
(``ClassicGroupCoordinator.state_changing``), which brings every member up to date.

The result is the step-by-step run exactly (``tests/protocol/test_fastpath.py`` compares both on random
schedules) because the clock breaks ties between events of the same millisecond by class, not by when they
were scheduled (:mod:`.clock`): ordinary events, then session timers (keyed by member id), then heartbeat
events (keyed by member and stage).  A heartbeat event only ever affects its own member and that member's
session deadline, so whether it was simulated or computed cannot change the order in which anything else
happens.  With ``record_heartbeats=True`` (every Heartbeat in the message trace) or
``fast_heartbeats=False`` the simulation runs step by step.
"""
from __future__ import annotations

import gc
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Tuple, cast

from ..errors import EventLimitError
from .clock import HEARTBEAT, MAX_EVENTS
from .group import STABLE
from .member import STABLE as MEMBER_STABLE

if TYPE_CHECKING:  # pragma: no cover
    from collections import Counter

    from .clock import ScheduledEvent, VirtualClock
    from .config import ProtocolConfig
    from .group import ClassicGroupCoordinator
    from .member import ConsumerMember

__all__ = ["HeartbeatFastPathMixin"]

#: allocations between two young-generation collections of Python's cycle collector while the clock runs
#: (default 700): a run allocates millions of short-lived events, and collecting every 700 of them took
#: half of a 150-member rolling restart's CPU time (measured; ``benchmarks/rolling_restart_results.md``)
GC_YOUNG_THRESHOLD = 100_000


def _count(first_ms: int, period: int, kmin: int, until_ms: int, inclusive: bool) -> int:
    """How many ``k >= kmin`` have ``first_ms + k * period`` before ``until_ms`` (or at it, ``inclusive``)."""
    x = until_ms - first_ms
    last = x // period if inclusive else (x - 1) // period
    return max(0, last - kmin + 1)


class HeartbeatFastPathMixin:
    """Runs the clock, skipping the heartbeats of steady members (see the module docstring)."""

    clock: "VirtualClock"
    config: "ProtocolConfig"
    coordinator: "ClassicGroupCoordinator"
    coordinator_available: bool
    members: Dict[str, "ConsumerMember"]
    message_counts: "Counter[str]"
    record_heartbeats: bool
    fast_heartbeats: bool
    arrive_at: Callable[..., None]
    deliver_at: Callable[..., None]
    _members_version: int

    #: lazy members: member -> (first tick time, stages of that first cycle already applied)
    _lazy: Optional[Dict["ConsumerMember", Tuple[int, int]]] = None
    _lazy_ids: Optional[Dict[str, "ConsumerMember"]] = None
    _quiet_cursor: int = 0

    # ------------------------------------------------------------------ running
    def run_clock(self, until_ms: int, max_events: int = MAX_EVENTS) -> int:
        """Run every event due at or before ``until_ms`` and set the clock there; returns the events run.
        :class:`~rebalance.errors.EventLimitError` (field ``until_ms``) once ``max_events`` have run."""
        thresholds = gc.get_threshold()
        gc.set_threshold(max(thresholds[0], GC_YOUNG_THRESHOLD), *thresholds[1:])
        try:
            return self._run_clock(until_ms, max_events)
        finally:
            gc.set_threshold(*thresholds)

    def _run_clock(self, until_ms: int, max_events: int) -> int:
        clock = self.clock
        fast = self.fast_heartbeats and not self.record_heartbeats \
            and 2 * self.config.network_ms < self.config.heartbeat_interval_ms
        if fast and self._lazy is None:
            self._lazy, self._lazy_ids = {}, {}
        count = 0
        step_until = clock.step_until
        while True:
            event = step_until(until_ms)
            if event is None:
                break
            count += 1
            if count >= max_events:
                raise EventLimitError(max_events, until_ms)
            if fast and event.priority == HEARTBEAT:
                self._maybe_lazy()  # the group is running heartbeats step by step: take steady members off
        self.wake_all(until_ms, inclusive=True)
        clock.now_ms = max(clock.now_ms, until_ms)
        return count

    # ------------------------------------------------------------------ steady members
    def _steady(self, m: "ConsumerMember") -> bool:
        """Member ``m`` does nothing but heartbeat successfully until something touches it."""
        c = self.coordinator
        if not (m.alive and m.state == MEMBER_STABLE and m.hb_enabled and m.coordinator_known and not m.joining
                and not m.rejoin_needed and m.lost_pending is None and m.generation == c.generation
                and m.partitioned_until <= self.clock.now_ms and m.paused_until <= self.clock.now_ms
                and m._hb_event is not None and m._hb_event.pending):
            return False
        gm = c.members.get(m.member_id)
        if gm is None or gm.awaiting_join is not None or gm.awaiting_sync is not None:
            return False
        arrival, delivery = m.hb_arrival, m.hb_delivery
        on_its_way = arrival is not None and arrival.pending
        answered = delivery is not None and delivery.pending
        if not m.hb_in_flight:
            return not (on_its_way or answered)
        # a Heartbeat of this steady member in flight is answered NONE (the group stays Stable meanwhile)
        return on_its_way or (answered and m.hb_response is not None and m.hb_response.get("error") == "NONE")

    def _member_names(self) -> List[str]:
        """The members' names (a restart keeps its name, so the list changes only when a name is added)."""
        cached = getattr(self, "_names_cache", None)
        if cached is None or len(cached) != len(self.members):
            cached = list(self.members)
            self._names_cache = cached
        return cached

    def _maybe_lazy(self, checks: int = 2) -> None:
        """Look at the next ``checks`` live members (round robin) and take the steady ones off the clock.
        When a member goes lazy does not change the run, so a few looks per heartbeat event are enough."""
        c = self.coordinator
        if not (self.coordinator_available and c.active and c.state == STABLE):
            return
        names = self._member_names()
        n = len(names)
        if n == 0:
            return
        lazy, lazy_ids, members = self._lazy, self._lazy_ids, self.members
        if lazy is None or lazy_ids is None:  # the fast path is off (run_clock sets both when it is on)
            return
        for _ in range(min(checks, n)):
            self._quiet_cursor = i = (self._quiet_cursor + 1) % n
            m = members[names[i]]
            if m not in lazy and self._steady(m):
                self._make_lazy(m, lazy, lazy_ids)

    def _make_lazy(self, m: "ConsumerMember", lazy: Dict["ConsumerMember", Tuple[int, int]],
                   lazy_ids: Dict[str, "ConsumerMember"]) -> None:
        """Take ``m``'s heartbeat cycle off the clock, keeping its phase (``lazy``, ``lazy_ids``: the
        fast path's ``_lazy`` and ``_lazy_ids``)."""
        n = self.config.network_ms
        # _steady(m) held: its next heartbeat tick is on the clock, and a Heartbeat in flight whose request
        # is not on its way has its response on its way
        tick = cast("ScheduledEvent", m._hb_event)
        if m.hb_in_flight and m.hb_arrival is not None and m.hb_arrival.pending:  # the request is on its way
            first, stage = m.hb_arrival.time_ms - n, 1
            m.hb_arrival.cancel()
        elif m.hb_in_flight:                                                     # the response is on its way
            delivery = cast("ScheduledEvent", m.hb_delivery)
            first, stage = delivery.time_ms - 2 * n, 2
            delivery.cancel()
        else:
            first, stage = tick.time_ms, 0
        tick.cancel()
        m._hb_event = None
        timer = self.coordinator._hb_timers.pop(m.member_id, None)
        if timer is not None:
            timer.cancel()
        lazy[m] = (first, stage)
        lazy_ids[m.member_id] = m

    # ------------------------------------------------------------------ bringing members up to date
    def member_touched(self, member_id: str) -> None:
        """The coordinator is about to change member ``member_id``: bring it up to date first."""
        if self._lazy_ids:
            m = self._lazy_ids.get(member_id)
            if m is not None:
                self.materialize(m)

    def wake_all(self, until_ms: Optional[int] = None, inclusive: bool = False) -> None:
        """Bring every lazy member up to date (the group is about to leave ``Stable``, or the run ends)."""
        if self._lazy:
            for m in list(self._lazy):
                self.materialize(m, until_ms, inclusive)

    def materialize(self, m: "ConsumerMember", until_ms: Optional[int] = None, inclusive: bool = False) -> None:
        """Bring lazy member ``m``'s heartbeat cycle up to ``until_ms`` (default now) and put what is still to
        come of it back on the clock (``inclusive``: its events at ``until_ms`` itself have happened)."""
        lazy, lazy_ids = self._lazy, self._lazy_ids
        if not lazy or lazy_ids is None or m not in lazy:  # (run_clock sets both dictionaries together)
            return
        first, stage = lazy.pop(m)
        lazy_ids.pop(m.member_id, None)
        c, n = self.coordinator, self.config.network_ms
        until_ms = self.clock.now_ms if until_ms is None else until_ms
        h = m.heartbeat_interval_ms
        done = []  # per stage (0 tick, 1 arrival, 2 response): index of the last cycle it happened in
        sent = 0
        for kind in (0, 1, 2):
            kmin = 0 if kind >= stage else 1
            k = _count(first + kind * n, h, kmin, until_ms, inclusive)
            done.append(kmin + k - 1)
            if kind < 2:
                sent += k
        self.message_counts["Heartbeat"] += sent
        ticks, arrivals, responses = done
        mid = m.member_id
        gm = c.members.get(mid)
        if gm is not None and arrivals >= (0 if stage <= 1 else 1):
            c._hb_deadline[mid] = first + arrivals * h + n + gm.session_timeout_ms
        if mid in c._hb_deadline and c.active:
            c._arm_heartbeat(mid, c._hb_deadline[mid])
        cycle_start = first + ticks * h
        m.hb_in_flight = False
        if ticks >= 0 and arrivals < ticks:
            m.hb_in_flight = True
            self.arrive_at(cycle_start + n, m, "Heartbeat", m.heartbeat_request(), m._on_heartbeat_response)
        elif ticks >= 0 and responses < ticks:
            m.hb_in_flight = True
            self.deliver_at(cycle_start + 2 * n, m, "Heartbeat", {"error": "NONE"}, m._on_heartbeat_response,
                            m.epoch, m.incarnation)
        m._hb_event = m._later(first + (ticks + 1) * h - self.clock.now_ms, m._heartbeat_tick, "heartbeat",
                               HEARTBEAT, m.heartbeat_key(2))
