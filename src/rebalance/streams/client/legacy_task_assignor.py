"""``org.apache.kafka.streams.processor.internals.assignment.LegacyTaskAssignor`` (Kafka 4.3.1): the interface of Kafka
Streams' client-side task assignors (run by the group leader's ``StreamsPartitionAssignor``):
``boolean assign(clients, allTaskIds, statefulTaskIds, rackAwareTaskAssignor, configs)``, which assigns into the
clients' ``ClientState``\\ s and returns whether a follow-up probing rebalance is needed.

:data:`ASSIGNORS` is the registry of the ported ones (Kafka's default, ``HighAvailabilityTaskAssignor``; the
others -- ``LegacyStickyTaskAssignor``, ``FallbackPriorTaskAssignor`` -- are not ported); callers look one up with
:func:`assignor_for`.  The rack-aware task assignor argument is left out: KIP-925 is not ported (strategy ``none``).
"""
from __future__ import annotations

from typing import AbstractSet, Dict, Mapping, Protocol, runtime_checkable

from ...validation import one_of
from .assignment_configs import AssignmentConfigs
from .client_state import ClientState
from .high_availability_task_assignor import HighAvailabilityTaskAssignor
from .process_id import ProcessId
from .task_id import TaskId

__all__ = ["ASSIGNORS", "LegacyTaskAssignor", "assignor_for"]


@runtime_checkable
class LegacyTaskAssignor(Protocol):
    """``LegacyTaskAssignor``: ``name()`` (the registry's) and ``assign(...)``."""

    def name(self) -> str: ...

    def assign(self, clients: Mapping[ProcessId, ClientState], all_task_ids: AbstractSet[TaskId],
               stateful_task_ids: AbstractSet[TaskId], configs: AssignmentConfigs) -> bool: ...


#: name -> assignor; the assignors are stateless, one instance serves every call
ASSIGNORS: Dict[str, LegacyTaskAssignor] = {a.name(): a for a in (HighAvailabilityTaskAssignor(),)}


def assignor_for(name: object, field: str = "assignor") -> LegacyTaskAssignor:
    """The registered assignor called ``name``, or ``InputError(field)``."""
    return one_of(ASSIGNORS, name, field)
