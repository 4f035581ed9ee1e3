"""``UniformHeterogeneousAssignmentBuilder`` (Kafka 4.3.1 group coordinator): members subscribe to
different topics.  This is the builder as reworked for 4.0 (KAFKA-17710); 3.9's was a different algorithm.

1. Members are numbered in ``memberIds()`` order; each topic's subscribers are kept as ascending member
   indices.  A partition of a topic the member no longer subscribes to is dropped; every other current
   partition stays where it is.
2. Topics are sorted by partitions per subscriber (descending), then subscriber count (ascending), then topic
   id (``Uuid.compareTo``).  Topic by topic, each unassigned partition (ascending) goes to the subscriber with
   the fewest partitions *in total* (ties: lowest member index), round-robin within the least-loaded range.
3. Balancing: topics with two or more subscribers are visited in the same order, again and again (at most 16
   passes, stopping after a full lap without a move).  Within a topic, partitions are taken from its most
   loaded subscribers (highest partition number of that member first) and given to its least loaded ones until
   their totals differ by at most one.

Only member order (the member map) influences the result; everything else is sorted.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Dict, List, Optional

from ..jcollections import HashJMap, HashJSet, JSet, deep_copy_assignment
from ..errors import KafkaError
from .spec import Assignment, GroupAssignment, GroupSpec, PartitionAssignorException, SubscribedTopicDescriber
from .uuid import Uuid, uuid_hash

BUILDER_NAME = "UniformHeterogeneousAssignmentBuilder"
MAX_ITERATION_COUNT = 16


class _Balancer:
    """``UniformHeterogeneousAssignmentBuilder.MemberAssignmentBalancer``: two moving ranges over the
    subscribers sorted by (assigned partitions, member index)."""

    def __init__(self, sizes: List[int]):
        self.sizes = sizes
        self.sorted: List[int] = []

    def initialize(self, members: List[int]) -> int:
        if not members:
            raise ValueError("Cannot balance an empty subscriber list.")
        sizes = self.sizes
        self.sorted = sorted(members, key=lambda m: (sizes[m], m))
        s = self.sorted
        self.least_end = 0
        self.least_count = sizes[s[0]] - 1
        self.next_least = 0
        self.most_start = len(s)
        self.most_end = len(s)
        self.most_count = sizes[s[-1]] + 1
        self.next_most = len(s) - 1
        return sizes[s[-1]] - sizes[s[0]]

    def next_least_loaded(self) -> int:
        s, sizes = self.sorted, self.sizes
        if self.next_least >= self.least_end:
            self.least_count += 1
            while self.least_end < len(s) and sizes[s[self.least_end]] == self.least_count:
                self.least_end += 1
            self.next_least = 0
        member = s[self.next_least]
        self.next_least += 1
        return member

    def next_most_loaded(self) -> int:
        s, sizes = self.sorted, self.sizes
        if self.next_most < self.most_start:
            if self.most_end <= self.most_start and self.most_start > 0:
                self.most_count = sizes[s[self.most_start - 1]]
            else:
                self.most_count -= 1
            while self.most_start > 0 and sizes[s[self.most_start - 1]] == self.most_count:
                self.most_start -= 1
            self.next_most = self.most_end - 1
        if self.next_most < 0:
            return -1
        member = s[self.next_most]
        self.next_most -= 1
        return member

    def exclude_most_loaded(self) -> None:
        s = self.sorted
        i = self.next_most + 1
        member = s[i]
        s[i] = s[self.most_end - 1]
        s[self.most_end - 1] = member
        self.most_end -= 1

    def is_balanced(self) -> bool:
        return self.most_count - self.least_count <= 1


class _Builder:
    def __init__(self, group: GroupSpec, describer: SubscribedTopicDescriber):
        self.group = group
        self.describer = describer
        self.member_ids: List[str] = list(group.member_ids())
        self.member_index = {m: i for i, m in enumerate(self.member_ids)}
        self.subscribed: Dict[Uuid, None] = {}
        self.subscribers: Dict[Uuid, List[int]] = {}
        self.sizes = [0] * len(self.member_ids)
        self.target: Dict[str, Assignment] = {}
        for index, member_id in enumerate(self.member_ids):
            for topic_id in group.member(member_id).subscribed_topic_ids:
                if describer.num_partitions(topic_id) == -1:
                    raise PartitionAssignorException(
                        f"Members are subscribed to topic {topic_id} which doesn't exist in the topic metadata.")
                self.subscribed.setdefault(topic_id, None)
                self.subscribers.setdefault(topic_id, []).append(index)
        self.owners: Dict[Uuid, List[int]] = {
            t: [-1] * describer.num_partitions(t) for t in self.subscribed}

    def topic_key(self, topic_id: Uuid) -> tuple[float, int, tuple[int, int]]:
        count = self.describer.num_partitions(topic_id)
        subs = len(self.subscribers[topic_id])
        return (-(count / subs), subs, (topic_id.msb, topic_id.lsb))

    def sort_topics(self, topic_ids: Iterable[Uuid]) -> List[Uuid]:
        return sorted(topic_ids, key=self.topic_key)

    def build(self) -> GroupAssignment:
        if not self.subscribed:
            return GroupAssignment({}, BUILDER_NAME)
        self.revoke_unsubscribed()
        self.assign_remaining(self.unassigned_partitions())
        balance_topics = [t for t in self.subscribed if len(self.subscribers[t]) >= 2]
        if balance_topics:
            self.balance(balance_topics)
        return GroupAssignment(self.target, BUILDER_NAME)

    def revoke_unsubscribed(self) -> None:
        for member_id in self.member_ids:
            index = self.member_index[member_id]
            spec = self.group.member(member_id)
            old = spec.assignment
            new: Optional[HashJMap[Uuid, JSet[int]]] = None
            for topic_id, partitions in old.items():
                if topic_id in spec.subscribed_topic_ids:
                    self.sizes[index] += len(partitions)
                    owners = self.owners[topic_id]
                    for p in partitions:
                        if not 0 <= p < len(owners):
                            raise KafkaError("ArrayIndexOutOfBoundsException",
                                             f"Index {p} out of bounds for length {len(owners)}")
                        owners[p] = index
                else:
                    if new is None:
                        new = deep_copy_assignment(old, uuid_hash)
                    new.remove(topic_id)
            self.target[member_id] = old if new is None else new

    def unassigned_partitions(self) -> Dict[Uuid, List[int]]:
        result = {}
        for topic_id in self.subscribed:
            free = [p for p, owner in enumerate(self.owners[topic_id]) if owner == -1]
            if free:
                result[topic_id] = free
        return result

    def assign_remaining(self, unassigned: Dict[Uuid, List[int]]) -> None:
        balancer = _Balancer(self.sizes)
        for topic_id in self.sort_topics(unassigned):
            balancer.initialize(self.subscribers[topic_id])
            for p in unassigned[topic_id]:
                self.assign_partition(topic_id, p, balancer.next_least_loaded())

    def balance(self, topic_ids: Iterable[Uuid]) -> None:
        ordered = self.sort_topics(topic_ids)
        last = -1
        balancer = _Balancer(self.sizes)
        for _ in range(MAX_ITERATION_COUNT):
            for i, topic_id in enumerate(ordered):
                if i == last:
                    return
                moved = self.balance_topic(topic_id, balancer)
                if moved > 0 or last == -1:
                    last = i

    def balance_topic(self, topic_id: Uuid, balancer: _Balancer) -> int:
        moved = 0
        owners = self.owners[topic_id]
        if balancer.initialize(self.subscribers[topic_id]) <= 1:
            return 0
        partitions = sorted(range(len(owners)), key=lambda p: (owners[p], p))
        start: Dict[int, int] = {}
        end: Dict[int, int] = {}
        for i, p in enumerate(partitions):
            start.setdefault(owners[p], i)
            end[owners[p]] = i + 1
        while not balancer.is_balanced():
            most = -1
            while True:
                most = balancer.next_most_loaded()
                if most == -1:
                    break
                if most not in end or end[most] - start[most] <= 0:
                    balancer.exclude_most_loaded()
                    continue
                break
            if most == -1:
                break
            partition = partitions[end[most] - 1]
            end[most] -= 1
            least = balancer.next_least_loaded()
            if balancer.is_balanced():
                break
            self.assign_partition(topic_id, partition, least)
            moved += 1
        return moved

    def assign_partition(self, topic_id: Uuid, partition: int, member_index: int) -> None:
        old = self.owners[topic_id][partition]
        if old != -1:
            self.remove_partition(topic_id, partition, old)
        self.add_partition(topic_id, partition, member_index)

    def _mutable(self, member_id: str) -> Assignment:
        assignment = self.target[member_id]
        if assignment.immutable:
            assignment = deep_copy_assignment(assignment, uuid_hash)
            self.target[member_id] = assignment
        return assignment

    def add_partition(self, topic_id: Uuid, partition: int, member_index: int) -> None:
        assignment = self._mutable(self.member_ids[member_index])
        count = self.describer.num_partitions(topic_id)
        subs = len(self.subscribers[topic_id])
        estimate = (count + subs - 1) // subs
        assignment.setdefault(topic_id, lambda: HashJSet(None, int(estimate / 0.75 + 1))).add(partition)
        self.owners[topic_id][partition] = member_index
        self.sizes[member_index] += 1

    def remove_partition(self, topic_id: Uuid, partition: int, member_index: int) -> None:
        assignment = self._mutable(self.member_ids[member_index])
        parts = assignment.get(topic_id)
        if parts is not None:
            parts.remove(partition)
            if len(parts) == 0:
                assignment.remove(topic_id)
        self.owners[topic_id][partition] = -1
        self.sizes[member_index] -= 1


def assign_heterogeneous(group: GroupSpec, describer: SubscribedTopicDescriber) -> GroupAssignment:
    """``new UniformHeterogeneousAssignmentBuilder(groupSpec, describer).build()``."""
    return _Builder(group, describer).build()
