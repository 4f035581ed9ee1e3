"""What an application's ``ConsumerRebalanceListener`` is called with during a simulated run.

Kafka's consumer calls the three methods of ``org.apache.kafka.clients.consumer.ConsumerRebalanceListener``
through ``ConsumerRebalanceListenerInvoker`` at fixed points of ``ConsumerCoordinator`` (Kafka's source at
commit 1eb7644, trunk before 4.0), which :class:`~.member.ConsumerMember` mirrors and records as ``listener`` events:

* ``onJoinPrepare`` (before JoinGroup): under the eager protocol ``onPartitionsRevoked`` with *every* owned
  partition, called even when the set is empty; under the cooperative protocol nothing (the simulator does
  not change subscriptions, the only case where cooperative revokes here); with a reset generation the
  owned partitions are *lost* instead (``onPartitionsLost``);
* ``onJoinComplete`` (after SyncGroup): under the cooperative protocol ``onPartitionsRevoked`` with the
  owned partitions no longer assigned, only when there are some (and the member rejoins), then
  ``onPartitionsAssigned`` with the partitions *added* (assigned minus owned), called even when empty; under
  the eager protocol ``onPartitionsAssigned`` with the whole new assignment;
* a reset of the generation or member id (session expired, fenced, ``ILLEGAL_GENERATION``):
  ``onPartitionsLost`` with everything owned (``resetStateAndGeneration``);
* ``close()``: ``onPartitionsRevoked`` with everything owned (``onLeavePrepare``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from ..validation import require

if TYPE_CHECKING:
    from .simulation import GroupSimulation

__all__ = ["CALLBACKS", "ListenerCall", "listener_calls", "listener_rows", "callback_totals"]

#: the three methods of ``ConsumerRebalanceListener``
CALLBACKS = ("onPartitionsRevoked", "onPartitionsAssigned", "onPartitionsLost")


@dataclass(frozen=True)
class ListenerCall:
    """One call of a ``ConsumerRebalanceListener`` method: when, on which member, with which partitions
    (sorted, as Kafka's ``SortedSet<TopicPartition>``), in which generation."""

    time_ms: int
    member: str
    callback: str
    partitions: Tuple[Tuple[str, int], ...]
    generation: int


def listener_calls(sim: "GroupSimulation", members: Optional[Sequence[str]] = None,
                   since: int = 0) -> List[ListenerCall]:
    """The listener calls of a run in time order, from ``since`` on, optionally of some members only.

    Defined in chapter 7, *Eager and incremental cooperative rebalancing*."""
    require(isinstance(since, int) and since >= 0, "since", f"must be a time in ms >= 0, got {since!r}")
    wanted = None if members is None else set(members)
    out = []
    for e in sim.events:
        if e.kind != "listener" or e.time_ms < since or (wanted is not None and e.actor not in wanted):
            continue
        out.append(ListenerCall(e.time_ms, e.actor, e.fields["callback"],
                                tuple(tuple(tp) for tp in e.fields["partitions"]), e.fields["generation"]))
    return out


def listener_rows(calls: Sequence[ListenerCall]) -> List[Dict[str, object]]:
    """The calls as table rows: time, member, ``callback(partitions)`` written the way Java prints them."""
    return [{"t (ms)": c.time_ms, "member": c.member,
             "call": f"{c.callback}([{', '.join(f'{t}-{p}' for t, p in c.partitions)}])",
             "generation": c.generation} for c in calls]


def callback_totals(calls: Sequence[ListenerCall]) -> Dict[str, Dict[str, int]]:
    """Per callback: how many calls, how many of them with an empty set, and how many partitions in all."""
    totals = {name: {"calls": 0, "empty calls": 0, "partitions": 0} for name in CALLBACKS}
    for c in calls:
        t = totals[c.callback]
        t["calls"] += 1
        t["empty calls"] += not c.partitions
        t["partitions"] += len(c.partitions)
    return totals
