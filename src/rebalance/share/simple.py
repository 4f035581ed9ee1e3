"""``SimpleAssignor`` (Kafka 4.3.1 group coordinator, ``org.apache.kafka.coordinator.group.assignor.SimpleAssignor``):
the server-side assignor of KIP-932 share groups, ``"simple"`` (``SIMPLE_ASSIGNOR_NAME``, line 49).

It implements ``ShareGroupPartitionAssignor``, which has the same two methods as the consumer groups'
``ConsumerGroupPartitionAssignor`` (both extend ``PartitionAssignor``): ``name()`` and ``assign(groupSpec,
subscribedTopicDescriber)``, over the same ``GroupSpec`` (:mod:`rebalance.kip848.spec`).  What differs is the
contract: in a share group several members may consume one partition, so the result may give a partition to more
than one member (when there are more members than partitions), and the coordinator only lets it assign the
partitions whose share-group state is initialized (``GroupSpec.isPartitionAssignable``, the
``topicPartitionAllowedMap`` of :attr:`~rebalance.kip848.spec.GroupSpec.topic_partition_allowed`).

``assign`` (lines 67-79): no members, no assignment; otherwise the group's subscription type picks
:mod:`~rebalance.share.simple_homogeneous` or :mod:`~rebalance.share.simple_heterogeneous`.  The broker's
``group.share.assignors`` (``GroupCoordinatorConfig.SHARE_GROUP_ASSIGNORS_CONFIG``, default this assignor) must
name exactly one assignor.
"""
from __future__ import annotations

from typing import Dict

from ..kip848.assignor import ConsumerGroupPartitionAssignor
from ..kip848.spec import HOMOGENEOUS, GroupAssignment, GroupSpec, SubscribedTopicDescriber
from ..validation import one_of
from .simple_heterogeneous import assign_heterogeneous
from .simple_homogeneous import assign_homogeneous

__all__ = ["SHARE_ASSIGNORS", "ShareGroupPartitionAssignor", "SimpleAssignor", "share_assignor_for"]

#: ``org.apache.kafka.coordinator.group.api.assignor.ShareGroupPartitionAssignor``: the same ``name()`` /
#: ``assign(groupSpec, subscribedTopicDescriber)`` protocol as the consumer groups' assignors
ShareGroupPartitionAssignor = ConsumerGroupPartitionAssignor


class SimpleAssignor:
    """``SimpleAssignor`` (Kafka 4.3.1): ``name()`` is ``"simple"``; ``assign`` dispatches on the subscription
    type.  Raises :class:`~rebalance.errors.PartitionAssignorException` where Kafka's throws (a subscribed topic
    missing from the metadata).

    Defined in chapter 14, *Share groups: queues for Kafka*."""

    NAME = "simple"

    def name(self) -> str:
        """``PartitionAssignor.name()``: ``"simple"``."""
        return self.NAME

    def __repr__(self) -> str:
        return "SimpleAssignor()"

    def assign(self, group_spec: GroupSpec, subscribed_topic_describer: SubscribedTopicDescriber
               ) -> GroupAssignment:
        """``SimpleAssignor.assign(groupSpec, subscribedTopicDescriber)`` (lines 67-79)."""
        if not group_spec.member_ids():
            return GroupAssignment({}, "")
        if group_spec.subscription_type == HOMOGENEOUS:
            return assign_homogeneous(group_spec, subscribed_topic_describer)
        return assign_heterogeneous(group_spec, subscribed_topic_describer)


#: ``group.share.assignors`` default (``GroupCoordinatorConfig``, Kafka 4.3.1): name -> assignor
SHARE_ASSIGNORS: Dict[str, ShareGroupPartitionAssignor] = {a.name(): a for a in (SimpleAssignor(),)}


def share_assignor_for(name: object, field: str = "assignor") -> ShareGroupPartitionAssignor:
    """The registered share-group assignor called ``name``, or ``InputError(field)``."""
    return one_of(SHARE_ASSIGNORS, name, field)
