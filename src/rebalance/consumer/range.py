"""Kafka's consumer ``RangeAssignor`` (``org.apache.kafka.clients.consumer.RangeAssignor``, Kafka 3.5+
with KIP-881 rack awareness; logic as in 4.3.1), built on :mod:`rebalance.consumer.abstract` (``AbstractPartitionAssignor``).

Range works topic by topic.  For each topic it sorts the topic's subscribers in ``MemberInfo`` order
(static members by ``group.instance.id`` first, then dynamic members by member id) and gives each one a
contiguous range of partitions: ``P // N`` each, and one more to the first ``P % N``.  Because every topic
starts again with the *same* first member, the "+1" partitions of all topics pile up on the same members.

With KIP-881 (3.5.0) the assignor first tries to give each member partitions that have a replica on the
member's rack.  Each topic stays balanced (every member gets ``P // N`` or ``P // N + 1`` of it), but the
per-topic counts are not those of the plain rule: ``TopicAssignmentState.maxAssignable`` lets the rack pass
give a topic's "+1" partitions to whichever members' racks match first, so a later member can take one
before the first member is reached.  Topics with the same partition count and the same
subscribers ("co-partitioned") are matched partition by partition so that partition *p* of all of them
goes to one member.  The rack step only runs when :func:`use_rack_aware_assignment` holds.

List order follows Kafka: topics in the iteration order of the ``partitionsPerTopic`` ``HashMap`` and each
topic's range in partition order -- except when the rack-aware step ran, in which case every member's list
is sorted with ``TopicPartitionComparator``.
"""
from __future__ import annotations

from itertools import islice, product
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple

from .abstract import (AbstractPartitionAssignor, partition_racks_of, partitions_per_topic, sorted_members,
                       subscription_order, topic_subscribers, tp_sort_key, use_rack_aware_assignment)
from .model import AssignorResult, ConsumerScenario, TopicPartition

RANGE_ASSIGNOR_NAME = "range"

def consumer_racks(scenario: ConsumerScenario) -> Dict[str, str]:
    """``RangeAssignor.consumerRacks``: members whose subscription carries a non-empty rack id."""
    return {m: s.rack_id for m, s in scenario.members.items() if s.rack_id}


# ---------------------------------------------------------------------------------------------------
# RangeAssignor


class _TopicState:
    """``RangeAssignor.TopicAssignmentState``: one topic's subscribers, quotas and unassigned partitions."""

    __slots__ = ("topic", "consumers", "racks", "partition_racks", "unassigned", "assigned",
                 "per_consumer", "extra", "needs_rack_aware", "count")

    def __init__(self, topic: str, count: int, consumers: List[str], racks: Mapping[str, str],
                 replica_racks: Sequence[FrozenSet[str]], prefer_rack_aware_logic: bool):
        self.topic = topic
        self.count = count
        self.consumers = consumers  # sorted, without duplicates (Java's LinkedHashMap keys)
        self.racks = {c: racks.get(c) for c in consumers}
        #: Java's LinkedHashSet: a dict keeps partition order and removes in O(1)
        self.unassigned: Dict[int, None] = dict.fromkeys(range(count))
        self.assigned: Dict[str, int] = {}
        self.per_consumer = count // len(consumers) if consumers else 0
        self.extra = count % len(consumers) if consumers else 0
        all_consumer_racks = {racks[c] for c in consumers if c in racks}
        if all_consumer_racks:
            self.partition_racks: List[FrozenSet[str]] = list(replica_racks)
            all_partition_racks: Set[str] = set().union(*self.partition_racks) if count else set()
        else:
            self.partition_racks = []  # Collections.emptyMap()
            all_partition_racks = set()
        self.needs_rack_aware = use_rack_aware_assignment(
            all_consumer_racks, all_partition_racks, self.partition_racks, prefer_rack_aware_logic)

    def racks_match(self, consumer: str, partition: int) -> bool:
        rack = self.racks.get(consumer)
        if rack is None:
            return True
        return partition < len(self.partition_racks) and rack in self.partition_racks[partition]

    def max_assignable(self, consumer: str) -> int:
        quota = self.per_consumer + (1 if self.extra > 0 else 0) - self.assigned.get(consumer, 0)
        return quota if quota > 0 else 0

    def on_assigned(self, consumer: str, partitions: Sequence[int]) -> None:
        n = self.assigned.get(consumer, 0) + len(partitions)
        self.assigned[consumer] = n
        if n > self.per_consumer:
            self.extra -= 1
        for p in partitions:
            self.unassigned.pop(p, None)


class RangeAssignor(AbstractPartitionAssignor):
    """Kafka's ``RangeAssignor`` (3.5+ incl. KIP-881 rack matching, as in 4.3.1).

    ``assign(scenario)`` returns an :class:`AssignorResult` whose lists follow Kafka's order.

    Defined in chapter 2, *The Range assignor*."""

    NAME = RANGE_ASSIGNOR_NAME

    def assign(self, scenario: ConsumerScenario) -> AssignorResult:
        replay = self.replay
        order = subscription_order(scenario, replay)
        racks = consumer_racks(scenario)

        # consumersPerTopic, then Collections.sort(members) per topic: iterating all members once in
        # sorted order and appending gives each topic's sorted subscriber list directly.
        members = scenario.members
        subscribers = topic_subscribers(sorted_members(scenario, order, replay),
                                        {m: s.topics for m, s in members.items()})
        topics = [t for t in partitions_per_topic(scenario, order, replay) if scenario.partitions.get(t, 0) > 0]
        assignment: Dict[str, List[TopicPartition]] = {m: [] for m in members}

        if not racks:
            # No member has a rack, so no topic can need rack matching: every topic is the plain split
            # (the first P % N subscribers get P // N + 1 partitions, the rest P // N), in topic order.
            # Consecutive topics with the same partition count and the same subscribers are split alike:
            # subscriber i gets the same range [start, end) of each, so its share of such a run of topics
            # is product(run, range(start, end)) -- topic after topic, each range in partition order.
            # Kafka's large groups are one or two such runs (500 topics): one extend per member and run
            # instead of one per member and topic.
            pairs = 0
            counts = scenario.partitions
            i, n_topics = 0, len(topics)
            while i < n_topics:
                count = counts[topics[i]]
                consumers = subscribers.get(topics[i], ())
                j = i + 1
                while j < n_topics and counts[topics[j]] == count and subscribers.get(topics[j], ()) == consumers:
                    j += 1
                run, i = topics[i:j], j
                pairs += len(consumers) * len(run)
                if not consumers:
                    continue
                per, extra = divmod(count, len(consumers))
                start = 0
                for k, consumer in enumerate(consumers):
                    if start >= count:
                        break
                    end = start + per + (1 if k < extra else 0)
                    assignment[consumer].extend(product(run, range(start, end)))
                    start = end
            counters = {"topics": len(topics), "partitions": sum(scenario.partitions[t] for t in topics),
                        "member_topic_pairs": pairs}
            return AssignorResult(assignment, counters, rack_aware=False)

        states = [_TopicState(topic, scenario.partitions[topic], subscribers.get(topic, []), racks,
                              partition_racks_of(scenario, topic), replay.prefer_rack_aware_logic)
                  for topic in topics]
        rack_aware = any(s.needs_rack_aware for s in states)
        if rack_aware:
            self._assign_with_rack_matching(states, assignment)
        for state in states:
            self._assign_ranges(state, assignment)
        if rack_aware:
            for member, tps in assignment.items():
                tps.sort(key=tp_sort_key)
        counters = {"topics": len(states), "partitions": sum(s.count for s in states),
                    "member_topic_pairs": sum(len(s.consumers) for s in states)}
        return AssignorResult(assignment, counters, rack_aware=rack_aware)

    # -- the plain range step (also the second pass after rack matching) ---------------------------
    @staticmethod
    def _assign_ranges(state: _TopicState, assignment: Dict[str, List[TopicPartition]]) -> None:
        topic = state.topic
        unassigned = list(state.unassigned)  # partition order; this pass takes prefixes only
        pos, end = 0, len(unassigned)
        for consumer in state.consumers:
            if pos >= end:
                break
            k = state.max_assignable(consumer)
            if k == 0:
                continue
            chunk = unassigned[pos:pos + k]
            pos += len(chunk)
            assignment[consumer].extend([(topic, p) for p in chunk])
            n = state.assigned.get(consumer, 0) + len(chunk)
            state.assigned[consumer] = n
            if n > state.per_consumer:
                state.extra -= 1
        state.unassigned = dict.fromkeys(unassigned[pos:])

    @staticmethod
    def _assign_rack_matching_ranges(state: _TopicState, assignment: Dict[str, List[TopicPartition]]) -> None:
        """``assignRanges(state, state::racksMatch, ...)``: the first partitions whose replicas are on
        the member's rack, up to its quota."""
        for consumer in state.consumers:
            if not state.unassigned:
                break
            k = state.max_assignable(consumer)
            if k == 0:
                continue
            chunk = list(islice((p for p in state.unassigned if state.racks_match(consumer, p)), k))
            if not chunk:
                continue
            assignment[consumer].extend([(state.topic, p) for p in chunk])
            state.on_assigned(consumer, chunk)

    def _assign_with_rack_matching(self, states: List[_TopicState],
                                   assignment: Dict[str, List[TopicPartition]]) -> None:
        """``assignWithRackMatching``: group topics by (subscribers with racks), then by partition count
        (the size of the topic's rack map, which is empty when none of its subscribers has a rack)."""
        by_consumers: Dict[FrozenSet[Tuple[str, Optional[str]]], List[_TopicState]] = {}
        for s in states:
            by_consumers.setdefault(frozenset(s.racks.items()), []).append(s)
        for group in by_consumers.values():
            by_count: Dict[int, List[_TopicState]] = {}
            for s in group:
                by_count.setdefault(len(s.partition_racks), []).append(s)
            for num_partitions, co_partitioned in by_count.items():
                if len(co_partitioned) > 1:
                    self._assign_co_partitioned(co_partitioned[0].consumers, num_partitions, co_partitioned,
                                                assignment)
                elif co_partitioned[0].needs_rack_aware:
                    self._assign_rack_matching_ranges(co_partitioned[0], assignment)

    @staticmethod
    def _assign_co_partitioned(consumers: List[str], num_partitions: int, states: List[_TopicState],
                               assignment: Dict[str, List[TopicPartition]]) -> None:
        """``assignCoPartitionedWithRackMatching``: partition *p* of every co-partitioned topic goes to the
        first remaining member whose rack matches *p* in all of them and who still has quota in all."""
        remaining = list(consumers)
        racks = states[0].racks  # the same in every state of the group: it is part of the grouping key
        for p in range(num_partitions):
            match = None
            for c in remaining:
                rack = racks.get(c)
                for t in states:  # racksMatch(c, tp) && maxAssignable(c) > 0, for every topic
                    if rack is not None and rack not in t.partition_racks[p]:
                        break
                    if t.per_consumer + (1 if t.extra > 0 else 0) - t.assigned.get(c, 0) <= 0:
                        break
                else:
                    match = c
                    break
            if match is None:
                continue
            for t in states:
                assignment[match].append((t.topic, p))
                t.on_assigned(match, (p,))
            if not any(t.max_assignable(match) > 0 for t in states):
                remaining.remove(match)
                if not remaining:
                    break
