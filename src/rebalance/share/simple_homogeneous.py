"""``SimpleHomogeneousAssignmentBuilder`` (Kafka 4.3.1 group coordinator, ``group-coordinator/.../assignor/``): the
share-group assignment when every member subscribes to the same topics.

A share group may hand one partition to several members (the records of a share partition are acquired one
batch at a time, KIP-932), so the builder balances two numbers, computed in the constructor (lines 134-177):

* ``desiredSharing`` -- how many members each assignable partition should go to: ``ceil(members /
  partitions)`` (line 151); 1 as long as there are at least as many partitions as members;
* ``desiredAssignmentCount[i]`` -- how many partitions member ``i`` (in ``memberIds()`` order) should hold: the
  ``desiredSharing * partitions`` slots spread evenly, ``ceil(p * (i + 1)) - ceil(p * i)`` with ``p =
  desiredSharing * partitions / members`` in ``double`` (lines 171-176).  So the *later* members in
  ``memberIds()`` order get the "+1" of an uneven split.

``build`` (line 188) then runs four steps over the members' current assignments:

1. ``revokeUnassignablePartitions`` (line 224): drop the topics nobody subscribes to any more; count what each
   member keeps, and sort it into *unfilled* (fewer than desired) or *overfilled* (more);
2. ``revokeOverfilledMembers`` (line 276): an overfilled member gives up partitions, in the iteration order of
   its ``HashSet<TopicIdPartition>``, down to its desired count;
3. ``revokeOversharedPartitions`` (line 301): a partition held by more than ``desiredSharing`` members loses
   members, in the iteration order of its ``HashSet<Integer>``; each of them becomes unfilled;
4. ``assignRemainingPartitions`` (line 343): one pass over the partitions (``HashMap`` order; every assignable
   partition is added at line 201), handing each partition short of ``desiredSharing`` to the next unfilled
   member that does not already have it, cycling through the unfilled members; a member leaves the cycle once
   it reaches its desired count.  When no unfilled member can take a partition the pass moves on (Kafka accepts
   the slight imbalance, see its comment at line 335).

Steps 3 and 4 are the same in the heterogeneous builder (Kafka writes them in both classes); they are written once,
in :mod:`rebalance.share._simple_steps`.

Only partitions of ``isPartitionAssignable`` (the share group's initialized partitions) are targets
(``computeTargetPartitions``, line 395); a subscribed topic missing from the metadata throws
``PartitionAssignorException`` (line 404).  Partitions a member holds are counted and kept even when they are no
longer assignable, as Kafka does.
"""
from __future__ import annotations

import math
from typing import Dict, List, Optional

from ..errors import PartitionAssignorException
from ..java import to_int32
from ..jcollections import HashJMap, HashJSet, JSet
from ..kip848.spec import Assignment, GroupAssignment, GroupSpec, SubscribedTopicDescriber
from ..kip848.uuid import Uuid
from ._simple_steps import assign_remaining_partitions, revoke_overshared_partitions
from .assignor_helpers import TopicIdPartition, deep_copy_assignment, new_hash_capacity, topic_id_partition_hash

BUILDER_NAME = "SimpleHomogeneousAssignmentBuilder"

__all__ = ["BUILDER_NAME", "assign_homogeneous", "compute_target_partitions", "desired_assignment_counts",
           "topic_target_partitions"]


def topic_target_partitions(group: GroupSpec, topic_id: Uuid, describer: SubscribedTopicDescriber) -> List[int]:
    """The body of ``computeTargetPartitions`` for one topic (lines 402-413 here, 177-190 of the heterogeneous
    builder): its partitions that ``isPartitionAssignable``; ``PartitionAssignorException`` when the topic is
    not in the metadata (``numPartitions`` is -1)."""
    count = describer.num_partitions(topic_id)
    if count == -1:
        raise PartitionAssignorException(
            f"Members are subscribed to topic {topic_id} which doesn't exist in the topic metadata.")
    return [p for p in range(count) if group.is_partition_assignable(topic_id, p)]


def compute_target_partitions(group: GroupSpec, subscribed: JSet[Uuid], describer: SubscribedTopicDescriber
                              ) -> List[TopicIdPartition]:
    """``computeTargetPartitions`` (line 395): the assignable partitions of the subscribed topics, topic by topic
    in the iteration order of ``subscribed``."""
    return [(topic_id, p) for topic_id in subscribed for p in topic_target_partitions(group, topic_id, describer)]


def desired_assignment_counts(desired_sharing: int, partitions: int, members: int) -> List[int]:
    """The desired number of partitions of each of ``members`` members, in order (lines 171-176 here, 284-289 of
    the heterogeneous builder): ``desiredSharing * partitions`` slots spread with ``Math.ceil`` over ``double``."""
    precise = to_int32(desired_sharing * partitions) / float(members)
    return [math.ceil(precise * float(i + 1)) - math.ceil(precise * float(i)) for i in range(members)]


def _same(tp: TopicIdPartition) -> TopicIdPartition:
    """A ``TopicIdPartition`` key is already its topic id and partition."""
    return tp


def assign_homogeneous(group: GroupSpec, describer: SubscribedTopicDescriber) -> GroupAssignment:
    """``new SimpleHomogeneousAssignmentBuilder(groupSpec, describer).build()``."""
    member_ids = list(group.member_ids())
    subscribed = group.member(member_ids[0]).subscribed_topic_ids
    n = len(member_ids)
    targets = compute_target_partitions(group, subscribed, describer)
    nt = len(targets)
    desired_sharing = 0 if nt == 0 else (n + nt - 1) // nt
    desired = desired_assignment_counts(desired_sharing, nt, n)
    # oldGroupAssignment / newGroupAssignment: HashMap<Integer, ...> sized for n keys, so iterated by index
    old: Dict[int, Assignment] = {i: group.member_assignment(m) for i, m in enumerate(member_ids)}
    new: Dict[int, HashJMap[Uuid, JSet[int]]] = {}
    by_partition: HashJMap[TopicIdPartition, JSet[int]] = HashJMap(topic_id_partition_hash, new_hash_capacity(nt))
    by_member: HashJMap[int, JSet[TopicIdPartition]] = HashJMap(None, new_hash_capacity(n))
    unfilled: HashJSet[int] = HashJSet(None, new_hash_capacity(n))
    overfilled: HashJSet[int] = HashJSet(None, new_hash_capacity(n))

    if len(subscribed) == 0:  # line 189
        return GroupAssignment({}, BUILDER_NAME)

    def new_assignment(i: int) -> HashJMap[Uuid, JSet[int]]:
        current = new.get(i)
        if current is None:
            current = new[i] = deep_copy_assignment(old[i])
        return current

    # 1. revokeUnassignablePartitions (line 224)
    for i, old_assignment in old.items():
        copied: Optional[HashJMap[Uuid, JSet[int]]] = None
        assigned = 0
        for topic_id, partitions in old_assignment.items():
            if topic_id in subscribed:
                for p in partitions:
                    tp = (topic_id, p)
                    assigned += 1
                    by_partition.setdefault(tp, HashJSet).add(i)
                    by_member.setdefault(i, lambda: HashJSet(topic_id_partition_hash)).add(tp)
                    if assigned >= desired[i] and copied is None:
                        copied = deep_copy_assignment(old_assignment)
            else:
                if copied is None:
                    copied = deep_copy_assignment(old_assignment)
                copied.remove(topic_id)
        if copied is not None:
            new[i] = copied
        if assigned < desired[i]:
            unfilled.add(i)
        elif assigned > desired[i]:
            overfilled.add(i)

    # 2. revokeOverfilledMembers (line 276)
    for i in overfilled:
        held = by_member[i]
        if len(held) > desired[i]:
            for tp in held.to_list():
                new[i][tp[0]].remove(tp[1])
                by_partition[tp].remove(i)
                held.remove(tp)
                if len(held) == desired[i]:
                    break

    # 3. revokeOversharedPartitions (line 301)
    revoke_overshared_partitions(by_partition, by_member, desired_sharing, new_assignment, _same, unfilled)

    for tp in targets:  # line 201: every assignable partition has an entry
        by_partition.setdefault(tp, HashJSet)

    # 4. assignRemainingPartitions (line 343)
    if len(unfilled) > 0:
        assign_remaining_partitions(by_partition, by_member, desired, desired_sharing, unfilled, new_assignment,
                                    _same, lambda: HashJSet(topic_id_partition_hash))

    target: Dict[str, Assignment] = {}
    for i, member_id in enumerate(member_ids):
        changed = new.get(i)
        target[member_id] = old[i] if changed is None else changed
    return GroupAssignment(target, BUILDER_NAME)
