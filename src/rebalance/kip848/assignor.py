"""The interface of KIP-848's server-side assignors and the registry of the ones the package ports.

Mirrors ``org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor`` (which extends
``PartitionAssignor``: ``String name()`` and ``GroupAssignment assign(GroupSpec, SubscribedTopicDescriber)``),
``group-coordinator/group-coordinator-api`` (Kafka 4.3.1; first written from trunk commit 1eb7644).  The
coordinator picks the assignor named by the member's ``group.remote.assignor`` among those configured in
``group.consumer.assignors`` (default ``uniform, range``: ``GroupCoordinatorConfig.CONSUMER_GROUP_ASSIGNORS_DEFAULT``,
line 222 in 4.3.1, line 123 at commit 1eb7644); :data:`ASSIGNORS` is
that list, and every caller (:func:`rebalance.kip848.group.assign_group`, the ``group`` vectors adapter,
:mod:`rebalance.kip848.compare`) looks an assignor up with :func:`assignor_for`.

:class:`ReplayOptions` holds the switches that exist only to replay Kafka's recorded unit-test harness
(which ``Map``/``Set`` implementation it filled, a forced subscription type, a hand-written inverted
assignment); only the vectors adapter passes them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Optional, Protocol, Tuple, runtime_checkable

from ..errors import InputError
from .range import assign_range
from .spec import HETEROGENEOUS, HOMOGENEOUS, GroupAssignment, GroupSpec, SubscribedTopicDescriber, TopicDescriber
from .uniform import assign_uniform


@runtime_checkable
class ConsumerGroupPartitionAssignor(Protocol):
    """``ConsumerGroupPartitionAssignor`` / ``PartitionAssignor`` (Kafka 4.3.1):
    ``name()`` and ``assign(groupSpec, subscribedTopicDescriber)``.  Raises
    :class:`~rebalance.kip848.spec.PartitionAssignorException` where Kafka's assignor throws."""

    def name(self) -> str: ...

    def assign(self, group_spec: GroupSpec, subscribed_topic_describer: SubscribedTopicDescriber
               ) -> GroupAssignment: ...


class _ServerSideAssignor:
    """What the ported assignors share: ``name()`` returns ``NAME``; ``assign`` runs ``BUILD``."""

    NAME = ""
    BUILD: Callable[[GroupSpec, SubscribedTopicDescriber], GroupAssignment]

    def name(self) -> str:
        """``PartitionAssignor.name()``: the ``group.remote.assignor`` value that selects this assignor."""
        return self.NAME

    def assign(self, group_spec: GroupSpec, subscribed_topic_describer: SubscribedTopicDescriber
               ) -> GroupAssignment:
        """``PartitionAssignor.assign(groupSpec, subscribedTopicDescriber)``."""
        return type(self).BUILD(group_spec, subscribed_topic_describer)


class UniformAssignor(_ServerSideAssignor):
    """``org.apache.kafka.coordinator.group.assignor.UniformAssignor`` (Kafka 4.3.1): the default
    ``group.remote.assignor``, ``"uniform"``; the homogeneous or the heterogeneous builder, see
    :mod:`rebalance.kip848.uniform`.

    Defined in chapter 9, *KIP-848: rebalancing without the barrier*."""

    NAME = "uniform"
    BUILD = staticmethod(assign_uniform)


class RangeAssignor(_ServerSideAssignor):
    """``org.apache.kafka.coordinator.group.assignor.RangeAssignor`` (Kafka 4.3.1), the server-side
    range assignor, ``"range"``: contiguous ranges per topic over the sorted subscribers, see
    :mod:`rebalance.kip848.range`.

    Defined in chapter 9, *KIP-848: rebalancing without the barrier*."""

    NAME = "range"
    BUILD = staticmethod(assign_range)


#: ``group.consumer.assignors`` default (``GroupCoordinatorConfig``, Kafka 4.3.1): name -> assignor.
#: The assignors are stateless, so one instance each serves every group.
ASSIGNORS: Dict[str, ConsumerGroupPartitionAssignor] = {a.name(): a for a in (UniformAssignor(), RangeAssignor())}


def assignor_for(name: object, field: str = "assignor") -> ConsumerGroupPartitionAssignor:
    """The registered assignor called ``name`` (``group.remote.assignor``), or ``InputError(field)``."""
    assignor = ASSIGNORS.get(name) if isinstance(name, str) else None
    if assignor is None:
        raise InputError(field, f"must be one of {', '.join(ASSIGNORS)}, got {name!r}")
    return assignor


#: the ``Map`` implementations a group spec's member map may be filled into
MAP_KINDS: Tuple[str, ...] = ("hash", "tree", "linked")


def check_members_map(members_map: object, field: str = "members_map") -> str:
    """``members_map`` if it names one of :data:`MAP_KINDS`, else ``InputError(field)``."""
    if not isinstance(members_map, str) or members_map not in MAP_KINDS:
        raise InputError(field, f"must be one of {', '.join(MAP_KINDS)}, got {members_map!r}")
    return members_map


@dataclass(frozen=True)
class ReplayOptions:
    """Switches of Kafka's recorded test harness, passed only by the ``group`` vectors adapter.

    ``assignment_map``: each member's current assignment as a ``HashMap`` of ``HashSet`` (``"hash"``, as the
    coordinator builds it) or in insertion order (``"linked"``, as some unit tests build it);
    ``subscription_set``: the member's subscribed topic ids as a ``HashSet`` or a ``LinkedHashSet`` (as the unit
    tests build them), or ``"names"``: as the coordinator itself does, a ``TopicIds`` view over the member's
    subscribed topic *names* in a ``HashSet<String>`` (``ConsumerGroupMember`` / ``ShareGroupMember``:
    ``new HashSet<>(subscribedTopicList)``; ``TargetAssignmentBuilder.newMemberSubscriptionAndAssignment``), which
    iterates in the order the names hash to;
    ``subscription_type``: force ``HOMOGENEOUS``/``HETEROGENEOUS`` instead of computing it
    (``ModernGroup.subscriptionType``); ``inverted_assignment``: ``{topic: {partition: member}}`` in place of
    the one derived from the members' assignments.
    """

    assignment_map: str = "hash"
    subscription_set: str = "hash"
    subscription_type: Optional[str] = None
    inverted_assignment: Optional[Mapping[Any, Any]] = None

    def check(self, fields: Optional[Mapping[str, str]] = None) -> "ReplayOptions":
        """Raise ``InputError`` naming the first bad switch; return ``self``.  ``fields`` maps a switch to
        the field an error names where the input sets it elsewhere (a step's ``steps[2].assignment_map``)."""
        def name(switch: str) -> str:
            return (fields or {}).get(switch, switch)

        if self.assignment_map not in ("hash", "linked"):
            raise InputError(name("assignment_map"), f"must be 'hash' or 'linked', got {self.assignment_map!r}")
        if self.subscription_set not in ("hash", "linked", "names"):
            raise InputError(name("subscription_set"),
                             f"must be 'hash', 'linked' or 'names', got {self.subscription_set!r}")
        if self.subscription_type is not None and self.subscription_type not in (HOMOGENEOUS, HETEROGENEOUS):
            raise InputError(name("subscription_type"),
                             f"must be HOMOGENEOUS or HETEROGENEOUS, got {self.subscription_type!r}")
        return self


#: the defaults: what the group coordinator itself builds
COORDINATOR = ReplayOptions(subscription_set="names")

__all__ = ["ASSIGNORS", "COORDINATOR", "ConsumerGroupPartitionAssignor", "MAP_KINDS", "RangeAssignor",
           "ReplayOptions", "SubscribedTopicDescriber", "UniformAssignor", "assignor_for", "check_members_map",
           "TopicDescriber"]
