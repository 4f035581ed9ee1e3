"""The consumer assignor interface and the one registry of Kafka's built-in assignors.

Mirrors ``org.apache.kafka.clients.consumer.ConsumerPartitionAssignor`` (Kafka 4.3.1): an assignor has a
``name()`` (the value of ``partition.assignment.strategy`` it answers to), the rebalance protocols it
supports (``supportedProtocols()``), the user data its consumer puts into JoinGroup
(``subscriptionUserData``), the leader's ``assign`` and the member's ``onAssignment``.  One object serves one
consumer for its whole life, as ``ConsumerCoordinator`` keeps it, so an assignor may carry state from one
rebalance to the next (``StickyAssignor``'s kept assignment and generation, ``maxGeneration``).

Every caller -- :func:`rebalance.consumer.assign`, the command line, the vectors adapters, the protocol
simulator and the Spark sweep -- finds assignors here (:data:`ASSIGNORS`, :func:`assignor_for`).
"""
from __future__ import annotations

from typing import Dict, Optional, Protocol, Sequence, Tuple, Type, runtime_checkable

from ..errors import InputError
from ..validation import require
from .abstract import COOPERATIVE, EAGER
from .cooperative_sticky import CooperativeStickyAssignor
from .model import AssignorResult, ConsumerScenario, TopicPartition
from .range import RangeAssignor
from .replay import ReplayOptions
from .roundrobin import RoundRobinAssignor
from .sticky import StickyAssignor

__all__ = ["ConsumerPartitionAssignor", "ASSIGNORS", "ALIASES", "EAGER", "COOPERATIVE", "assignor_for",
           "assignor_name"]


@runtime_checkable
class ConsumerPartitionAssignor(Protocol):
    """``org.apache.kafka.clients.consumer.ConsumerPartitionAssignor`` (Kafka 4.3.1)."""

    #: the value ``name()`` returns, on the class (the registry's key)
    NAME: str
    #: the value ``supportedProtocols()`` returns, on the class
    SUPPORTED_PROTOCOLS: Tuple[str, ...]

    def name(self) -> str:
        """``name()``: the strategy name members announce in JoinGroup."""
        ...

    def supported_protocols(self) -> Tuple[str, ...]:
        """``supportedProtocols()``: ``(EAGER,)`` or ``(EAGER, COOPERATIVE)``."""
        ...

    def __init__(self, *, replay: Optional[ReplayOptions] = None) -> None:
        """A fresh assignor; ``replay`` (the vectors adapters only) replays how Kafka's test harness called it."""
        ...

    def subscription_user_data(self, topics: Sequence[str]) -> Optional[bytes]:
        """``subscriptionUserData(Set<String> topics)``: the bytes this consumer adds to its JoinGroup."""
        ...

    def assign(self, scenario: ConsumerScenario) -> AssignorResult:
        """``assign(Cluster, GroupSubscription)``: the leader's computation for the whole group."""
        ...

    def on_assignment(self, partitions: Sequence[TopicPartition], generation: int) -> None:
        """``onAssignment(Assignment, ConsumerGroupMetadata)``: this consumer's share and its generation."""
        ...


#: Kafka's built-in assignors by ``name()``, in the order of ``ConsumerConfig``'s documentation
ASSIGNORS: Dict[str, Type[ConsumerPartitionAssignor]] = {
    cls.NAME: cls for cls in (RangeAssignor, RoundRobinAssignor, StickyAssignor, CooperativeStickyAssignor)
}

#: other spellings accepted for a name: Kafka's class names (``partition.assignment.strategy`` also takes a
#: class name) and common variants
ALIASES = {
    "round-robin": "roundrobin", "round_robin": "roundrobin", "cooperative_sticky": "cooperative-sticky",
    "cooperativesticky": "cooperative-sticky", "rangeassignor": "range", "roundrobinassignor": "roundrobin",
    "stickyassignor": "sticky", "cooperativestickyassignor": "cooperative-sticky",
}


def assignor_name(name: object) -> str:
    """Kafka's ``name()`` for ``name`` (case-insensitive; fully qualified class names accepted)."""
    if not isinstance(name, str):
        raise InputError("assignor", f"must be a string, got {name!r}")
    key = name.strip().lower().rsplit(".", 1)[-1]
    key = ALIASES.get(key, key)
    require(key in ASSIGNORS, "assignor", f"must be one of {', '.join(ASSIGNORS)}, got {name!r}")
    return key


def assignor_for(name: str, *, replay: Optional[ReplayOptions] = None) -> ConsumerPartitionAssignor:
    """A fresh instance of the built-in assignor ``name``.  ``replay`` (the vectors adapters only) replays
    how Kafka's test harness called it; see :mod:`rebalance.consumer.replay`."""
    return ASSIGNORS[assignor_name(name)](replay=replay)

