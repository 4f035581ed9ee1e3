"""What a KIP-848 server-side assignor sees: the group spec and the topic describer.

Mirrors ``GroupSpecImpl``, ``MemberSubscriptionAndAssignmentImpl``, ``SubscribedTopicDescriberImpl`` and
``GroupAssignment`` of Kafka's group coordinator (``group-coordinator/.../modern``, Kafka 4.3.1), and
``ModernGroup.subscriptionType``.  Collections keep their Java iteration order (see
:mod:`rebalance.jcollections`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import AbstractSet, Dict, Hashable, Iterable, List, Mapping, Optional, Protocol, Sequence, runtime_checkable

from ..errors import PartitionAssignorException as PartitionAssignorException  # re-exported; defined in errors
from ..jcollections import JMap, JSet, LinkedJMap
from .uuid import Uuid

#: a member's assignment as Kafka keeps it: ``Map<Uuid, Set<Integer>>``
Assignment = JMap[Uuid, JSet[int]]

HOMOGENEOUS = "HOMOGENEOUS"
HETEROGENEOUS = "HETEROGENEOUS"




@dataclass
class MemberSpec:
    """``MemberSubscriptionAndAssignmentImpl``: a member's subscription and its current target assignment.

    ``subscribed_topic_ids`` is a :class:`JSet` of :class:`Uuid`; ``assignment`` a :class:`JMap`
    ``Uuid -> JSet[int]`` (``immutable`` as Kafka's ``Assignment`` wraps it)."""

    member_id: str
    subscribed_topic_ids: JSet[Uuid]
    assignment: Assignment
    instance_id: Optional[str] = None
    rack_id: Optional[str] = None


@dataclass
class GroupSpec:
    """``GroupSpecImpl``: members (in ``memberIds()`` iteration order), the subscription type and the
    inverted target assignment ``topic id -> {partition -> member id}``."""

    members: JMap[str, MemberSpec]
    subscription_type: str
    inverted_assignment: Dict[Uuid, Dict[int, str]] = field(default_factory=dict)
    #: ``topicPartitionAllowedMap`` (share groups, KIP-932): the partitions an assignor may assign, by topic
    #: id; ``None`` is ``Optional.empty()``, where every partition is assignable (consumer groups)
    topic_partition_allowed: Optional[Mapping[Uuid, AbstractSet[int]]] = None

    def member_ids(self) -> Sequence[str]:
        """``GroupSpec.memberIds()``: the member ids in the member map's iteration order."""
        return self.members.keys()

    def member(self, member_id: str) -> MemberSpec:
        spec = self.members.get(member_id)
        if spec is None:
            raise KeyError(f"Member Id {member_id} not found.")
        return spec

    def member_assignment(self, member_id: str) -> Assignment:
        spec = self.members.get(member_id)
        return spec.assignment if spec is not None else _empty_map()

    def is_partition_assigned(self, topic_id: Uuid, partition: int) -> bool:
        owners = self.inverted_assignment.get(topic_id)
        return owners is not None and partition in owners

    def is_partition_assignable(self, topic_id: Uuid, partition: int) -> bool:
        """``GroupSpecImpl.isPartitionAssignable`` (Kafka 4.3.1, line 110): in the allowed map when there is
        one, else always."""
        allowed = self.topic_partition_allowed
        if allowed is None:
            return True
        partitions = allowed.get(topic_id)
        return partitions is not None and partition in partitions


def _empty_map() -> Assignment:
    empty: Assignment = LinkedJMap()
    empty.immutable = True
    return empty


@runtime_checkable
class SubscribedTopicDescriber(Protocol):
    """``org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber`` (Kafka 4.3.1):
    partition counts (``-1`` for an unknown topic) and partition racks by topic id."""

    def num_partitions(self, topic_id: Uuid) -> int: ...

    def racks_for_partition(self, topic_id: Uuid, partition: int) -> frozenset[str]: ...


class TopicDescriber:
    """``SubscribedTopicDescriberImpl``: partition counts by topic id (``-1`` when unknown); racks are
    not used at this Kafka commit (``racksForPartition`` returns the empty set)."""

    def __init__(self, partitions_by_topic: Mapping[Uuid, int]):
        self._partitions = dict(partitions_by_topic)

    def num_partitions(self, topic_id: Uuid) -> int:
        return self._partitions.get(topic_id, -1)

    def racks_for_partition(self, topic_id: Uuid, partition: int) -> frozenset[str]:
        """``SubscribedTopicDescriber.racksForPartition``: empty at this commit."""
        return frozenset()


@dataclass
class GroupAssignment:
    """``GroupAssignment``: member id -> ``Map<Uuid, Set<Integer>>`` (a :class:`JMap` of :class:`JSet`)."""

    members: Dict[str, Assignment]
    builder: str = ""

    def as_sorted(self) -> Dict[str, Dict[Uuid, List[int]]]:
        """Each member's partitions, sorted, by topic id."""
        return {m: {t: sorted(p) for t, p in a.items()} for m, a in self.members.items()}


def inverted_assignment(members: Iterable[MemberSpec]) -> Dict[Uuid, Dict[int, str]]:
    """The partition -> member map ``TargetAssignmentBuilder`` keeps next to the target assignment."""
    inverted: Dict[Uuid, Dict[int, str]] = {}
    for spec in members:
        for topic_id, partitions in spec.assignment.items():
            owners = inverted.setdefault(topic_id, {})
            for p in partitions:
                owners[p] = spec.member_id
    return inverted


def subscription_type(subscriptions: Iterable[Iterable[Hashable]]) -> str:
    """``ModernGroup.subscriptionType``: HOMOGENEOUS iff every subscribed topic is subscribed by every
    member (and also when nobody subscribes to anything).  Topics by name (as Kafka counts them) or by id."""
    counts: Dict[Hashable, int] = {}
    n = 0
    for topics in subscriptions:
        n += 1
        for t in set(topics):
            counts[t] = counts.get(t, 0) + 1
    return HOMOGENEOUS if all(c == n for c in counts.values()) else HETEROGENEOUS
