"""The interface of a streams group's broker-side task assignor and the registry of the ones the package ports.

Mirrors ``org.apache.kafka.coordinator.group.streams.assignor.TaskAssignor`` (Kafka 4.3.1, ``TaskAssignor.java``):
``String name()`` and ``GroupAssignment assign(GroupSpec, TopologyDescriber)``, which throws
``TaskAssignorException``.  The coordinator picks the assignor named in ``group.streams.assignors`` (Kafka 4.3.1
ships ``StickyTaskAssignor``, ``"sticky"``); :data:`TASK_ASSIGNORS` is the list this package ports and
:func:`task_assignor_for` looks one up, as :func:`rebalance.kip848.assignor.assignor_for` does for KIP-848.
"""
from __future__ import annotations

from typing import Dict, Protocol, runtime_checkable

from ...validation import one_of
from .assignment import GroupAssignment
from .spec import GroupSpec, TopologyDescriber
from .sticky_task_assignor import StickyTaskAssignor

__all__ = ["TASK_ASSIGNORS", "TaskAssignor", "task_assignor_for"]


@runtime_checkable
class TaskAssignor(Protocol):
    """``TaskAssignor`` (Kafka 4.3.1): ``name()`` and ``assign(groupSpec, topologyDescriber)``; raises
    :class:`~rebalance.errors.TaskAssignorException` where Kafka's assignor throws."""

    def name(self) -> str: ...

    def assign(self, group_spec: GroupSpec, topology_describer: TopologyDescriber) -> GroupAssignment: ...


#: name -> assignor; the assignors keep no state between calls, so one instance serves every group
TASK_ASSIGNORS: Dict[str, TaskAssignor] = {a.name(): a for a in (StickyTaskAssignor(),)}


def task_assignor_for(name: object, field: str = "assignor") -> TaskAssignor:
    """The registered task assignor called ``name``, or ``InputError(field)``."""
    return one_of(TASK_ASSIGNORS, name, field)
