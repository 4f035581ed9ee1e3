"""A front door to the share-group assignor by topic *name*, as :func:`rebalance.kip848.assign_group` is for consumer
groups: build what ``TargetAssignmentBuilder.build`` hands to the assignor for a share group (Kafka 4.3.1,
``ShareTargetAssignmentBuilder``: ``GroupSpecImpl`` over a ``HashMap`` of members, with the share group's
initialized partitions as ``topicPartitionAllowedMap``), run ``SimpleAssignor`` and return the result by name.
"""
from __future__ import annotations

from typing import Mapping, Optional, Sequence

from ..kip848.group import GroupResult, TopicCatalog, prepare_group
from .simple import share_assignor_for
from .vectors import parse_assignable

__all__ = ["assign_share_group"]


def assign_share_group(topics: object, members: Sequence[object], *, assignable: Optional[Mapping[str, object]] = None,
                       assignor: str = "simple", members_map: str = "hash",
                       previous: Optional[GroupResult] = None) -> GroupResult:
    """Compute a share group's target assignment (``SimpleAssignor.assign``, Kafka 4.3.1).

    ``topics``: ``{name: partitions}`` or ``[{name, id?, partitions}]`` (or a
    :class:`~rebalance.kip848.group.TopicCatalog`); ``members``: ``[{id, subscriptions, assignment?}]``, a member
    whose ``assignment`` is omitted or ``"carry"`` starting from its assignment in ``previous``; ``assignable``:
    ``{topic: [partitions]}``, the partitions whose share-group state is initialized (the coordinator's
    ``topicPartitionAllowedMap``), ``None`` for all of them.  :meth:`GroupResult.by_name` gives ``{member: {topic:
    [partitions]}}``; a partition may be in several members' lists.  Raises
    :class:`~rebalance.errors.InputError` for bad input and :class:`~rebalance.errors.KafkaError` where Kafka's
    assignor throws.
    """
    impl = share_assignor_for(assignor)
    catalog = topics if isinstance(topics, TopicCatalog) else TopicCatalog.parse(topics)
    allowed = parse_assignable(assignable, catalog=catalog)
    _, spec = prepare_group(catalog, members, previous=previous, members_map=members_map)
    spec.topic_partition_allowed = allowed
    result = impl.assign(spec, catalog.describer())
    return GroupResult(impl.name(), spec.subscription_type, result.builder, result, catalog)
