"""One way to drive both group simulators: members join, leave, crash and restart on a virtual clock.

:class:`ConsumerGroupDriver` is what the classic simulator (:class:`rebalance.protocol.simulation.GroupSimulation`:
``ClassicGroup`` on the coordinator, ``ConsumerCoordinator`` on the client) and the KIP-848 simulator
(:class:`rebalance.kip848.simulation.KIP848Simulation`: ``GroupMetadataManager.consumerGroupHeartbeat`` and
the ``AsyncKafkaConsumer`` membership manager) both offer, so that a caller such as ``python -m rebalance
simulate`` (:mod:`rebalance.simulate`) drives either without reaching into it.  The operations are the
life of one consumer process, named by its ``client.id``:

* ``join(name, at_ms)`` -- the consumer starts and subscribes (its first JoinGroup, or its first
  ``ConsumerGroupHeartbeat`` with epoch 0); ``poll_processing_ms`` gives this consumer its own time per
  ``poll()`` batch (a slow member), instead of the configuration's;
* ``leave(name, at_ms)`` -- ``KafkaConsumer.close()``: revoke, then leave the group (LeaveGroup, or epoch
  -1); a static member (``group.instance.id``) sends no LeaveGroup (classic) or leaves with epoch -2
  (KIP-848) and keeps its place until its session times out;
* ``crash(name, at_ms)`` -- the process dies: no goodbye, the coordinator finds out at the session timeout;
* ``restart(name, at_ms)`` -- a running consumer is closed as by ``leave`` and a new process starts as soon
  as the close has finished (a stopped one starts at once); the new process has a new member id and the
  same ``group.instance.id``, so a static member restarted within its session timeout takes over its old
  member's place and assignment without a rebalance (classic: ``ClassicGroup.replaceStaticMember``;
  KIP-848: the new member replaces the one that left with epoch -2);
* ``run(until_ms)`` -- run the virtual clock; more than ``max_events`` events in one run (default
  :data:`~.clock.MAX_EVENTS`) raise :class:`rebalance.errors.EventLimitError` (field ``until_ms``);
* ``metrics(measure_from, until)`` -- the shared :class:`~.ledger.RebalanceMetrics`;
* ``on_rebalance_completed(callback)`` -- ``callback(CompletedRebalance)`` each time a rebalance completes
  (classic: the coordinator moves the group ``CompletingRebalance -> Stable``; KIP-848: the group is stable
  again after a group-epoch bump); ``on_event(callback)`` -- every :class:`~.trace.TraceEvent` as it is
  recorded.

The operations are scheduled: each acts at ``at_ms`` of the virtual clock, when ``run`` gets there.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Dict, Iterable, List, Mapping, Optional, Protocol, Sequence, Tuple
from typing import runtime_checkable

from .clock import MAX_EVENTS

if TYPE_CHECKING:  # pragma: no cover
    from .clock import VirtualClock
    from .ledger import OwnershipLedger, RebalanceMetrics
    from .trace import TraceEvent

__all__ = ["CompletedRebalance", "ConsumerGroupDriver", "DriverHooks", "format_assignment"]


@dataclass(frozen=True)
class CompletedRebalance:
    """One completed rebalance: the generation (classic) or group epoch (KIP-848), when it completed and
    the assignment, member name (``client.id``) -> ``"topic-partition"`` strings in topic, partition order."""

    generation: int
    at_ms: int
    assignment: Dict[str, List[str]]


def format_assignment(assignment: Mapping[str, Iterable[Tuple[str, int]]]) -> Dict[str, List[str]]:
    """``{member: [(topic, partition), ...]}`` as :class:`CompletedRebalance` holds it: members sorted,
    each member's partitions as sorted, distinct ``"topic-partition"`` strings."""
    return {member: [f"{t}-{p}" for t, p in sorted(set(tps))] for member, tps in sorted(assignment.items())}


@runtime_checkable
class ConsumerGroupDriver(Protocol):
    """A consumer group simulator driven by its members' lives (see the module docstring)."""

    clock: "VirtualClock"
    #: who processed which partition when (the same ledger type for both simulators)
    ownership: "OwnershipLedger"
    #: the most events one :meth:`run` may take before it raises :class:`~rebalance.errors.EventLimitError`
    max_events: int

    def join(self, name: str, at_ms: int, /, *, topics: Optional[Sequence[str]] = None,
             instance_id: Optional[str] = None, poll_processing_ms: Optional[int] = None) -> None:
        """Consumer ``name`` starts at ``at_ms`` subscribed to ``topics`` (default: every topic), spending
        ``poll_processing_ms`` on each ``poll()`` batch (default: the configuration's ``batch_ms``)."""
        ...

    def leave(self, name: str, at_ms: int, /) -> None:
        """``KafkaConsumer.close()`` of ``name`` at ``at_ms`` (nothing if it is not running then)."""
        ...

    def crash(self, name: str, at_ms: int, /) -> None:
        """``name``'s process dies at ``at_ms`` (nothing if it is not running then)."""
        ...

    def restart(self, name: str, at_ms: int, /, *, down_ms: int = 0) -> None:
        """At ``at_ms``: close ``name`` if it runs, and start a new process ``down_ms`` after it has stopped
        (a stopped one starts at once)."""
        ...

    def run(self, until_ms: int, /) -> "ConsumerGroupDriver":
        """Run every event up to ``until_ms``; :class:`~rebalance.errors.EventLimitError` past the limit."""
        ...

    def metrics(self, measure_from: int = 0, until: Optional[int] = None, /) -> "RebalanceMetrics":
        """The run's summary figures over ``[measure_from, until)`` (``until`` default: now)."""
        ...

    def on_rebalance_completed(self, callback: Callable[[CompletedRebalance], None], /) -> None:
        """Call ``callback`` with each rebalance that completes from now on."""
        ...

    def on_event(self, callback: Callable[["TraceEvent"], None], /) -> None:
        """Call ``callback`` with each trace event recorded from now on."""
        ...


class DriverHooks:
    """The listeners of :meth:`ConsumerGroupDriver.on_rebalance_completed` and
    :meth:`ConsumerGroupDriver.on_event`, mixed into both simulators."""

    #: the most events one ``run`` may take (:class:`~rebalance.errors.EventLimitError` past it)
    max_events: int = MAX_EVENTS
    _rebalance_listeners: Tuple[Callable[[CompletedRebalance], None], ...] = ()
    _event_listeners: Tuple[Callable[["TraceEvent"], None], ...] = ()

    def on_rebalance_completed(self, callback: Callable[[CompletedRebalance], None], /) -> None:
        """Call ``callback(CompletedRebalance)`` each time a rebalance completes from now on."""
        self._rebalance_listeners = self._rebalance_listeners + (callback,)

    def on_event(self, callback: Callable[["TraceEvent"], None], /) -> None:
        """Call ``callback(TraceEvent)`` with each trace event recorded from now on (all kinds, also those a
        summary-only run does not keep)."""
        self._event_listeners = self._event_listeners + (callback,)

    def _emit_rebalance(self, rebalance: CompletedRebalance) -> None:
        for callback in self._rebalance_listeners:
            callback(rebalance)

    def _emit_event(self, event: "TraceEvent") -> None:
        for callback in self._event_listeners:
            callback(event)
