"""``UniformHomogeneousAssignmentBuilder`` (Kafka 4.3.1 group coordinator): every member subscribes to the
same topics.

The algorithm in three moves:

1. every partition of the subscribed topics that no member currently holds is *unassigned*, listed topic by
   topic in the iteration order of a ``HashSet<Uuid>`` of the subscribed topic ids;
2. members are visited in ``memberIds()`` order with a quota of ``total // members``, plus one while some of
   the ``total % members`` "+1" slots are left.  A member keeps its current partitions, in the iteration order
   of its assignment map and sets, up to its quota; the rest (and every partition of a topic it no longer
   subscribes to) is revoked and appended to the unassigned list.  A member that still has room after that
   gives its "+1" back (``quotaHasExtraPartition``) for a later member to claim, unless it is one of the last
   members in visiting order that must take the remaining "+1" slots;
3. the unassigned partitions are dealt, in list order, to the members still under quota, in visiting order.

So a member that already holds ``min + 1`` partitions keeps them as long as "+1" slots are left when it is
visited, and on a fresh assignment (nobody holds anything) the extras go to the *last* ``total % members``
members in ``memberIds()`` order.

This is KAFKA-18688 ("Fix uniform homogeneous assignor stability", apache/kafka PR 19677), first released in
Kafka 4.0.1 (and 4.1.0).  Up to 4.0.0 ``maybeRevokePartitions`` fixed the quotas before looking at anyone: the first
``total % members`` members in ``memberIds()`` order got ``min + 1`` whatever they held, so a fresh assignment
put the extras on the *first* members, and a member with ``min + 1`` visited after the extra slots were used
up gave one back even though nobody needed it.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ..jcollections import HashJMap, HashJSet, JSet, deep_copy_assignment
from .spec import Assignment, GroupAssignment, GroupSpec, PartitionAssignorException, SubscribedTopicDescriber
from .uuid import Uuid, uuid_hash

BUILDER_NAME = "UniformHomogeneousAssignmentBuilder"


def assign_homogeneous(group: GroupSpec, describer: SubscribedTopicDescriber) -> GroupAssignment:
    """``new UniformHomogeneousAssignmentBuilder(groupSpec, describer).build()``."""
    member_ids = group.member_ids()
    first = group.member(member_ids[0])
    subscribed = HashJSet.copy_of(first.subscribed_topic_ids, uuid_hash)
    if len(subscribed) == 0:
        return GroupAssignment({}, BUILDER_NAME)

    unassigned: List[Tuple[Uuid, int]] = []
    total = 0
    for topic_id in subscribed:
        count = describer.num_partitions(topic_id)
        if count == -1:
            raise PartitionAssignorException(
                f"Members are subscribed to topic {topic_id} which doesn't exist in the topic metadata.")
        for p in range(count):
            if not group.is_partition_assigned(topic_id, p):
                unassigned.append((topic_id, p))
        total += count

    n = len(member_ids)
    min_quota, extra = divmod(total, n)

    target: Dict[str, Assignment] = {}
    unfilled: List[Tuple[str, int]] = []
    member_count = n
    for member_index, member_id in enumerate(member_ids):
        old = group.member_assignment(member_id)
        new: Optional[HashJMap[Uuid, JSet[int]]] = None
        quota = min_quota
        quota_has_extra = False
        if extra > 0:
            quota += 1
            quota_has_extra = True
        for topic_id, partitions in old.items():
            if topic_id in subscribed:
                if len(partitions) <= quota:
                    quota -= len(partitions)
                else:
                    for p in list(partitions):
                        if quota > 0:
                            quota -= 1
                        else:
                            if new is None:
                                new = deep_copy_assignment(old, uuid_hash)
                            parts = new[topic_id]
                            parts.remove(p)
                            if len(parts) == 0:
                                new.remove(topic_id)
                            unassigned.append((topic_id, p))
            else:
                if new is None:
                    new = deep_copy_assignment(old, uuid_hash)
                new.remove(topic_id)
        if quota > 0 and quota_has_extra and member_count - member_index > extra:
            # KAFKA-18688 (4.0.1+): give up the "+1" for a later member to claim, unless this member is one
            # of the last ``extra`` members in the list and must take it.
            quota -= 1
            quota_has_extra = False
        if quota > 0:
            unfilled.append((member_id, quota))
        if quota_has_extra:
            extra -= 1
        target[member_id] = old if new is None else new

    index = 0
    for member_id, remaining in unfilled:
        assignment = target[member_id]
        if assignment.immutable:
            assignment = deep_copy_assignment(assignment, uuid_hash)
            target[member_id] = assignment
        i = 0
        while i < remaining and index < len(unassigned):
            topic_id, p = unassigned[index]
            index += 1
            assignment.setdefault(topic_id, lambda: HashJSet()).add(p)
            i += 1
    if index < len(unassigned):
        raise PartitionAssignorException("Partitions were left unassigned")
    return GroupAssignment(target, BUILDER_NAME)
