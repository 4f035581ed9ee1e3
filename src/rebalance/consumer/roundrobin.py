"""Kafka's consumer ``RoundRobinAssignor`` (``org.apache.kafka.clients.consumer.RoundRobinAssignor``;
unchanged in substance since KAFKA-8356 in 2.4.0, logic as in 4.3.1).  No rack awareness.

All partitions of all subscribed topics are laid out in one list -- topics in ``TreeSet`` order
(``String.compareTo``), each topic's partitions 0..n-1 -- and dealt out by a ``CircularIterator`` over the
members sorted in ``MemberInfo`` order (static members by ``group.instance.id`` first, then member id).  A
member not subscribed to the partition's topic is skipped, and the walk goes on from the member after the
one that took the partition.

Implementation note: instead of peeking member by member, each topic's subscribers are kept as a sorted
list of ring positions; the next subscriber at or after the iterator's position is found by bisection and
the topic's partitions are then dealt round that list.  This is the same walk, in O(partitions + members
per topic) instead of O(partitions x skipped members).
"""
from __future__ import annotations

from bisect import bisect_left
from typing import Dict, List

from ..errors import KafkaError
from .model import AssignorResult, ConsumerScenario, TopicPartition
from ..java import java_string_key
from .abstract import AbstractPartitionAssignor, sorted_members, subscription_order, topic_subscribers

ROUNDROBIN_ASSIGNOR_NAME = "roundrobin"


class RoundRobinAssignor(AbstractPartitionAssignor):
    """Kafka's ``RoundRobinAssignor``.  ``assign(scenario)`` returns an
    :class:`~rebalance.consumer.model.AssignorResult` whose lists follow Kafka's order.

    Defined in chapter 3, *The RoundRobin assignor*."""

    NAME = ROUNDROBIN_ASSIGNOR_NAME

    def assign(self, scenario: ConsumerScenario) -> AssignorResult:
        ring = sorted_members(scenario, subscription_order(scenario, self.replay), self.replay)
        if not ring:
            raise KafkaError("IllegalArgumentException", "CircularIterator can only be used on non-empty lists")
        assignment: Dict[str, List[TopicPartition]] = {m: [] for m in scenario.members}

        # ring positions of each topic's subscribers, ascending
        positions: Dict[str, List[int]] = topic_subscribers(ring, {m: s.topics for m, s in scenario.members.items()},
                                                                range(len(ring)))

        size = len(ring)
        cursor = 0  # ring index of CircularIterator.peek()
        skipped = 0
        dealt = 0
        for topic in sorted(positions, key=java_string_key):  # TreeSet<String>
            count = scenario.partitions.get(topic, 0)
            if count <= 0:
                continue
            subs = positions[topic]
            start = bisect_left(subs, cursor)
            if start == len(subs):
                start = 0
            first = subs[start]
            skipped += (first - cursor) % size
            n = len(subs)
            lists = [assignment[ring[i]] for i in subs]
            for p in range(count):
                lists[(start + p) % n].append((topic, p))
            last = subs[(start + count - 1) % n]
            # members passed over between consecutive takes inside the topic (counted, for the book)
            if n < size:
                laps, rest = divmod(count - 1, n)
                gaps = [(subs[(j + 1) % n] - subs[j] - 1) % size for j in range(n)]
                skipped += laps * sum(gaps) + sum(gaps[(start + j) % n] for j in range(rest))
            cursor = (last + 1) % size
            dealt += count
        counters = {"partitions": dealt, "members": size, "skipped_peeks": skipped}
        return AssignorResult(assignment, counters, rack_aware=False)
