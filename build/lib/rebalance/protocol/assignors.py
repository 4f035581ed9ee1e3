"""Pluggable assignors for the protocol simulator.

The group leader is a *client*: it receives every member's subscription in its JoinGroup response and
runs the assignor named by the group's selected protocol (``ConsumerCoordinator.onLeaderElected`` in
Kafka 3.8/3.9).  In the simulator an assignor is any callable

    assignor(members, partitions) -> {member_id: [(topic, partition), ...]}

where ``members`` is ``{member_id: {"topics": [...], "owned": [(t, p), ...], "generation": g,
"instance_id": ...}}`` in the order the leader received them and ``partitions`` is ``{topic: count}``.
An optional attribute ``rebalance_protocols`` (``("eager",)`` or ``("eager", "cooperative")``) says which
rebalance protocols it supports, like ``ConsumerPartitionAssignor.supportedProtocols``.  Connect workers
or any other client can plug their own callable in.
"""
from __future__ import annotations

from typing import Callable, Dict, Iterable, List, Mapping, Tuple

from ..errors import InputError, KafkaError

EAGER = "eager"
COOPERATIVE = "cooperative"

#: ``supportedProtocols()`` of Kafka's built-in consumer assignors.
BUILTIN_PROTOCOLS = {
    "range": (EAGER,),
    "roundrobin": (EAGER,),
    "sticky": (EAGER,),
    "cooperative-sticky": (EAGER, COOPERATIVE),
}

Assignor = Callable[[Dict[str, dict], Dict[str, int]], Dict[str, List[Tuple[str, int]]]]


def consumer_assignor(name: str) -> Assignor:
    """The consumer assignor ``name`` from :mod:`rebalance.consumer` (``rebalance.consumer.assign``),
    wrapped as a simulator assignor.  The import happens at call time."""
    if name not in BUILTIN_PROTOCOLS:
        raise InputError("assignor", f"unknown consumer assignor {name!r}; known: {', '.join(BUILTIN_PROTOCOLS)}")

    def assign(members: Dict[str, dict], partitions: Dict[str, int]):
        from .. import consumer  # the consumer area's common entry point

        return consumer.assign(name, partitions, members)

    assign.__name__ = f"consumer_{name.replace('-', '_')}"
    assign.rebalance_protocols = BUILTIN_PROTOCOLS[name]
    return assign


def supported_protocols(assignor) -> Tuple[str, ...]:
    return tuple(getattr(assignor, "rebalance_protocols", (EAGER,)))


def rebalance_protocol_for(assignors: Iterable) -> str:
    """``ConsumerCoordinator``'s choice: the highest rebalance protocol supported by *every* configured
    assignor (cooperative only when all of them support it)."""
    common = None
    for a in assignors:
        p = set(supported_protocols(a))
        common = p if common is None else common & p
    if not common:
        raise KafkaError("IllegalArgumentException",
                         "Specified assignors do not have commonly supported rebalance protocol")
    return COOPERATIVE if COOPERATIVE in common else EAGER


def validate_cooperative_assignment(owned: Mapping[str, Iterable], assignment: Mapping[str, Iterable]) -> None:
    """``ConsumerCoordinator.validateCooperativeAssignment``: under the cooperative protocol no partition
    may be given to a member in the same rebalance in which another member still owns it."""
    owner = {}
    for mid, tps in owned.items():
        for tp in tps:
            owner[tuple(tp)] = mid
    for mid, tps in assignment.items():
        for tp in tps:
            prev = owner.get(tuple(tp))
            if prev is not None and prev != mid:
                raise KafkaError("IllegalStateException",
                                 f"Assignor supporting the COOPERATIVE protocol violates its requirements: "
                                 f"{tp[0]}-{tp[1]} is owned by {prev} and assigned to {mid}")
