"""The group coordinator's server-side ``RangeAssignor`` (``group-coordinator/.../assignor/RangeAssignor``,
Kafka 4.3.1, ``group.remote.assignor=range``; the 3.9 algorithm, where 3.8's was sticky, KAFKA-16944).

Members are sorted: static members first, by ``group.instance.id``; then dynamic members by member id
(``String.compareTo``).  Each topic is cut into contiguous ranges for *its* subscribers in that order: the
first ``partitions % subscribers`` of them get ``partitions // subscribers + 1`` partitions, the others
``partitions // subscribers``.  An empty range is left out, so a member can be absent from a topic.

Unlike the uniform assignor it ignores the current assignment: the result is a pure function of the sorted
members and the partition counts (co-partitioned topics therefore line up), which makes it cheap and
predictable, but a membership change can move many partitions.
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from ..java import java_string_key
from ..jcollections import HashJMap, JSet, RangeSet
from .spec import (HOMOGENEOUS, Assignment, GroupAssignment, GroupSpec, PartitionAssignorException,
                   SubscribedTopicDescriber)
from .uuid import Uuid, uuid_hash

HOMOGENEOUS_BUILDER = "RangeAssignor.assignHomogeneousGroup"
HETEROGENEOUS_BUILDER = "RangeAssignor.assignHeterogeneousGroup"


class _TopicRanges:
    """``RangeAssignor.TopicMetadata``: the next range to hand out for one topic."""

    __slots__ = ("topic_id", "partitions", "members", "min_quota", "extra", "next_start")

    def __init__(self, topic_id: Uuid, partitions: int, members: int):
        self.topic_id = topic_id
        self.partitions = partitions
        self.members = members
        self.min_quota = -1
        self.extra = -1
        self.next_start = 0

    def take(self, assignment: Assignment) -> None:
        """``maybeComputeQuota`` + ``addPartitionsToAssignment``."""
        if self.min_quota == -1:
            self.min_quota, self.extra = divmod(self.partitions, self.members)
        start = self.next_start
        quota = self.min_quota
        if self.extra > 0:
            quota += 1
            self.extra -= 1
        end = min(start + quota, self.partitions)
        self.next_start = end
        if start < end:
            assignment.put(self.topic_id, RangeSet(start, end))


def sort_member_ids(group: GroupSpec) -> List[str]:
    """``RangeAssignor.sortMemberIds``: static members (by instance id) before dynamic ones (by member id)."""
    def key(member_id: str) -> Tuple[int, bytes]:
        instance = group.member(member_id).instance_id
        if instance is not None:
            return (0, java_string_key(instance))
        return (1, java_string_key(member_id))
    return sorted(group.member_ids(), key=key)


def assign_range(group: GroupSpec, describer: SubscribedTopicDescriber) -> GroupAssignment:
    """``RangeAssignor.assign``."""
    member_ids = group.member_ids()
    if not member_ids:
        return GroupAssignment({}, "")
    ordered = sort_member_ids(group)
    result: Dict[str, Assignment] = {}
    if group.subscription_type == HOMOGENEOUS:
        ranges: List[_TopicRanges] = []
        for topic_id in group.member(ordered[0]).subscribed_topic_ids:
            count = describer.num_partitions(topic_id)
            if count == -1:
                raise PartitionAssignorException("Member is subscribed to a non-existent topic")
            ranges.append(_TopicRanges(topic_id, count, len(member_ids)))
        for member_id in ordered:
            assignment: HashJMap[Uuid, JSet[int]] = HashJMap(uuid_hash, int(len(ranges) / 0.75 + 1))
            for topic in ranges:
                topic.take(assignment)
            result[member_id] = assignment
        return GroupAssignment(result, HOMOGENEOUS_BUILDER)

    topics: Dict[Uuid, _TopicRanges] = {}
    for member_id in ordered:
        for topic_id in group.member(member_id).subscribed_topic_ids:
            if topic_id not in topics:
                count = describer.num_partitions(topic_id)
                if count == -1:
                    raise PartitionAssignorException("Member is subscribed to a non-existent topic")
                topics[topic_id] = _TopicRanges(topic_id, count, 0)
            topics[topic_id].members += 1
    for member_id in ordered:
        subscribed = group.member(member_id).subscribed_topic_ids
        assignment = HashJMap(uuid_hash, int(len(subscribed) / 0.75 + 1))
        for topic_id in subscribed:
            topics[topic_id].take(assignment)
        result[member_id] = assignment
    return GroupAssignment(result, HETEROGENEOUS_BUILDER)
