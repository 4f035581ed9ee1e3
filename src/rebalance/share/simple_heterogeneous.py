"""``SimpleHeterogeneousAssignmentBuilder`` (Kafka 4.3.1 group coordinator, ``group-coordinator/.../assignor/``): the
share-group assignment when members subscribe to different topics.

Balance is computed *topic by topic* (the class comment, lines 51-53): each subscribed topic, in the iteration
order of a ``HashSet<Uuid>`` filled from every member's subscription in ``memberIds()`` order (lines 103-104, 142),
goes through its own ``TopicAssignmentPartialBuilder`` (line 223) with the same four steps as the homogeneous
builder (:mod:`rebalance.share.simple_homogeneous`), restricted to the topic's subscribers:

* ``desiredSharing`` = ``ceil(subscribers / assignable partitions)`` (line 276), and each subscriber's desired
  count for this topic spreads the ``desiredSharing * partitions`` slots over the subscribers in ``memberIds()``
  order (lines 284-289); a member that does not subscribe to the topic wants 0 of it;
* ``revokeUnassignablePartitions`` (line 312) collects who holds which partition of the topic, whether or not the
  holder still subscribes (it wants 0, so ``revokeOverfilledMembers``, line 347, takes them all back);
* ``revokeOversharedPartitions`` (line 370), then ``assignRemainingPartitions`` (line 411) over the unfilled
  subscribers of the topic (a ``HashSet`` filled in subscriber order, line 412).
  These last two steps are the homogeneous builder's, written once in :mod:`rebalance.share._simple_steps`.

So a member subscribed to T1 and T2 is balanced separately against the other T1 subscribers and the other T2
subscribers, and its total can differ from another member's by more than one.  A topic that no member subscribes
to any more is never visited: partitions of it that a member still holds stay in its assignment (the homogeneous
builder drops them).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ..jcollections import HashJMap, HashJSet, JSet
from ..kip848.spec import Assignment, GroupAssignment, GroupSpec, SubscribedTopicDescriber
from ..kip848.uuid import Uuid, uuid_hash
from ._simple_steps import assign_remaining_partitions, revoke_overshared_partitions
from .assignor_helpers import deep_copy_assignment, new_hash_capacity
from .simple_homogeneous import desired_assignment_counts, topic_target_partitions

BUILDER_NAME = "SimpleHeterogeneousAssignmentBuilder"

__all__ = ["BUILDER_NAME", "assign_heterogeneous"]


class _Group:
    """The builder's state shared by the topics: members, their old and new assignments."""

    def __init__(self, group: GroupSpec, describer: SubscribedTopicDescriber):
        self.member_ids = list(group.member_ids())
        self.n = len(self.member_ids)
        subscribed: HashJSet[Uuid] = HashJSet(uuid_hash)
        for member_id in self.member_ids:
            for topic_id in group.member(member_id).subscribed_topic_ids:
                subscribed.add(topic_id)
        self.subscribed = subscribed
        # computeTargetPartitions (line 170), topic by topic
        self.targets: Dict[Uuid, List[int]] = {}
        for topic_id in subscribed:
            self.targets[topic_id] = topic_target_partitions(group, topic_id, describer)
        # computeSubscribedMembers (line 203)
        self.subscribers: Dict[Uuid, List[int]] = {}
        for index, member_id in enumerate(self.member_ids):
            for topic_id in group.member(member_id).subscribed_topic_ids:
                self.subscribers.setdefault(topic_id, []).append(index)
        self.old: Dict[int, Assignment] = {i: group.member_assignment(m) for i, m in enumerate(self.member_ids)}
        self.new: Dict[int, HashJMap[Uuid, JSet[int]]] = {}

    def new_assignment(self, i: int) -> HashJMap[Uuid, JSet[int]]:
        current = self.new.get(i)
        if current is None:
            current = self.new[i] = deep_copy_assignment(self.old[i])
        return current


def _assign_topic(g: _Group, topic_id: Uuid) -> None:
    """``TopicAssignmentPartialBuilder(topicId, ...).build()`` (lines 264-305)."""
    targets = g.targets[topic_id]
    subscribers = g.subscribers[topic_id]
    nt, ns = len(targets), len(subscribers)
    by_partition: HashJMap[int, JSet[int]] = HashJMap(None, new_hash_capacity(nt))
    by_member: HashJMap[int, JSet[int]] = HashJMap(None, new_hash_capacity(ns))
    desired_sharing = 0 if nt == 0 else (ns + nt - 1) // nt
    desired = [0] * g.n
    for k, count in enumerate(desired_assignment_counts(desired_sharing, nt, ns)):
        desired[subscribers[k]] = count

    # revokeUnassignablePartitions (line 312): the topic is subscribed (it is one of subscribedTopicIds)
    for i, old_assignment in g.old.items():
        if len(old_assignment) == 0:
            continue
        partitions = old_assignment.get(topic_id)
        if partitions is not None:
            for p in partitions:
                by_partition.setdefault(p, HashJSet).add(i)
                by_member.setdefault(i, HashJSet).add(p)

    # revokeOverfilledMembers (line 347)
    for i, held in by_member.items():
        if len(held) > desired[i]:
            changed: Optional[HashJMap[Uuid, JSet[int]]] = g.new.get(i)
            for p in held.to_list():
                if len(held) <= desired[i]:
                    break
                by_partition[p].remove(i)
                held.remove(p)
                if changed is None:
                    changed = g.new_assignment(i)
                changed[topic_id].remove(p)

    def split(p: int) -> Tuple[Uuid, int]:
        return topic_id, p

    # revokeOversharedPartitions (line 370)
    revoke_overshared_partitions(by_partition, by_member, desired_sharing, g.new_assignment, split)

    capacity = new_hash_capacity(ns)
    for p in targets:  # line 301
        by_partition.setdefault(p, lambda: HashJSet(None, capacity))

    # assignRemainingPartitions (line 411)
    unfilled: HashJSet[int] = HashJSet(None, new_hash_capacity(g.n))
    for i in subscribers:
        held_now = by_member.get(i)
        if (0 if held_now is None else len(held_now)) < desired[i]:
            unfilled.add(i)
    assign_remaining_partitions(by_partition, by_member, desired, desired_sharing, unfilled, g.new_assignment,
                                split, HashJSet)


def assign_heterogeneous(group: GroupSpec, describer: SubscribedTopicDescriber) -> GroupAssignment:
    """``new SimpleHeterogeneousAssignmentBuilder(groupSpec, describer).build()`` (lines 102-160)."""
    g = _Group(group, describer)
    if len(g.subscribed) == 0:
        return GroupAssignment({}, BUILDER_NAME)
    for topic_id in g.subscribed:
        _assign_topic(g, topic_id)
    target: Dict[str, Assignment] = {}
    for i, member_id in enumerate(g.member_ids):
        changed = g.new.get(i)
        target[member_id] = g.old[i] if changed is None else changed
    return GroupAssignment(target, BUILDER_NAME)
