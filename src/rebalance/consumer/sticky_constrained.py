"""``AbstractStickyAssignor.ConstrainedAssignmentBuilder`` (Kafka 4.3.1): the path taken when every
member subscribes to the same topics.

With ``P`` partitions and ``N`` members, ``minQuota = floor(P/N)``, ``maxQuota = ceil(P/N)`` and exactly
``P mod N`` members end with ``maxQuota``.

1. Owned partitions are kept first, member by member in the iteration order of Kafka's
   ``consumerToOwnedPartitions`` ``HashMap`` -- that order decides *which* members that own ``maxQuota`` or
   more keep ``maxQuota`` (the others keep ``minQuota``).  Each member's kept partitions are the first ones
   after sorting its owned list by partition number, then topic (KAFKA-16277, 3.8).  With rack matching on,
   owned partitions with no replica on the member's rack are not kept.
2. With rack matching on, unassigned partitions (fewest same-rack consumers first) go round-robin to
   unfilled members on a matching rack.
3. The rest go round-robin: first to members under ``minQuota`` (sorted by member id), then one extra each
   to members at ``minQuota`` until ``P mod N`` members hold ``maxQuota``.

A partition that ends up with a member other than the one that owned it (or that two members of one
generation claimed) is recorded in ``partitionsTransferringOwnership``.

With a ``trace`` list the builder records its steps: ``{"step": "keep", "member", "kept", "released"}`` per
member in ``HashMap`` order, then ``{"step": "assign", "phase": "rack"|"round-robin", "partition",
"member", "transfer"}`` per newly assigned partition.
"""
from __future__ import annotations

from operator import itemgetter
from typing import Any, Dict, List, Optional, Set

from ..errors import KafkaError
from ..java import JavaHashOrder, java_string_key, same_order_as_python
from .abstract_sticky import RackInfo, all_partitions, partitions_left_by_number, unassigned_partitions
from .model import TopicPartition

_TOPIC = itemgetter(0)
_PARTITION = itemgetter(1)


class ConstrainedAssignmentBuilder:
    """One run of Kafka's constrained builder; :meth:`build` returns member -> list of partitions."""

    def __init__(self, partitions_per_topic: Dict[str, int], rack_info: RackInfo,
                 current_assignment: Dict[str, List[TopicPartition]],
                 partitions_with_multiple_previous_owners: Set[TopicPartition],
                 partitions_transferring_ownership: Dict[TopicPartition, str],
                 trace: Optional[List[Dict[str, Any]]] = None):
        self.trace = trace
        self._phase = "round-robin"
        self.partitions_per_topic = partitions_per_topic
        self.rack_info = rack_info
        self.current_assignment = current_assignment
        self.multiple = partitions_with_multiple_previous_owners
        self.transferring = partitions_transferring_ownership
        self.maybe_revoked: Dict[TopicPartition, str] = {}
        self.unfilled_under_min: List[str] = []
        self.unfilled_exactly_min: List[str] = []
        n = len(current_assignment)
        total = sum(partitions_per_topic.values())
        self.total = total
        self.min_quota = total // n
        self.max_quota = -(-total // n)
        self.expected_over_min = total % n
        self.current_over_min = 0
        self.assignment: Dict[str, List[TopicPartition]] = {m: [] for m in current_assignment}
        self.assigned_partitions: List[TopicPartition] = []

    def build(self) -> Dict[str, List[TopicPartition]]:
        self._assign_owned_partitions()
        unassigned = self._unassigned_partitions(self.assigned_partitions)
        self.unfilled_under_min.sort(key=java_string_key)
        self.unfilled_exactly_min.sort(key=java_string_key)
        unassigned = self.rack_info.sort_partitions_by_rack_consumers(unassigned)
        unassigned = self._assign_rack_aware_round_robin(unassigned)
        self._assign_round_robin(unassigned)
        self._verify_unfilled_members()
        return self.assignment

    def _member_order(self) -> List[str]:
        # consumerToOwnedPartitions is a HashMap<String, List<TopicPartition>> filled in subscription order
        return JavaHashOrder().put_all(self.current_assignment).keys()

    def _assign_owned_partitions(self) -> None:
        rack_info = self.rack_info
        min_quota, max_quota = self.min_quota, self.max_quota
        check_racks = bool(rack_info.consumer_racks)
        plain = same_order_as_python(self.partitions_per_topic)
        for consumer in self._member_order():
            if check_racks:
                owned = []
                for tp in self.current_assignment[consumer]:
                    if rack_info.racks_mismatch(consumer, tp):
                        self.maybe_revoked[tp] = consumer
                    else:
                        owned.append(tp)
            else:  # no rack to check: every owned partition is a candidate (copied in C, not one by one)
                owned = list(self.current_assignment[consumer])
            if plain:  # two stable sorts = one by (partition, topic), without a Python key per partition
                owned.sort(key=_TOPIC)
                owned.sort(key=_PARTITION)
            else:
                owned.sort(key=lambda tp: (tp[1], java_string_key(tp[0])))
            mine = self.assignment[consumer]
            if self.multiple:
                for tp in self.multiple:
                    if tp in owned:
                        owned.remove(tp)
            if self.trace is not None:
                released = [tp for tp in self.current_assignment[consumer] if tp not in owned]
            if len(owned) < min_quota:
                mine.extend(owned)
                self.assigned_partitions.extend(owned)
                self.unfilled_under_min.append(consumer)
            elif len(owned) >= max_quota and self.current_over_min < self.expected_over_min:
                self.current_over_min += 1
                if self.current_over_min == self.expected_over_min:
                    self.unfilled_exactly_min.clear()
                mine.extend(owned[:max_quota])
                self.assigned_partitions.extend(owned[:max_quota])
                for tp in owned[max_quota:]:
                    self.maybe_revoked[tp] = consumer
            else:
                mine.extend(owned[:min_quota])
                self.assigned_partitions.extend(owned[:min_quota])
                for tp in owned[min_quota:]:
                    self.maybe_revoked[tp] = consumer
                if self.current_over_min < self.expected_over_min:
                    self.unfilled_exactly_min.append(consumer)
            if self.trace is not None:
                kept = list(mine)
                self.trace.append({"step": "keep", "member": consumer, "kept": kept,
                                   "released": released + [tp for tp in owned if tp not in kept]})

    def _unassigned_partitions(self, assigned: List[TopicPartition]) -> List[TopicPartition]:
        """``getUnassignedPartitions``: all partitions (topics sorted by name) minus the kept ones, by the
        same two-pointer walk Kafka uses."""
        topics = sorted(self.partitions_per_topic, key=java_string_key)
        if assigned:
            left = partitions_left_by_number(topics, self.partitions_per_topic, assigned)
            if left is not None:
                return left
        everything = all_partitions(topics, self.partitions_per_topic)
        return unassigned_partitions(everything, assigned, lambda tp: (java_string_key(tp[0]), tp[1]))

    def _assign_rack_aware_round_robin(self, unassigned: List[TopicPartition]) -> List[TopicPartition]:
        rack_info = self.rack_info
        if not rack_info.consumer_racks:
            return unassigned
        self._phase = "rack"
        under = self.unfilled_under_min
        exactly = self.unfilled_exactly_min
        next_index_under = 0
        remaining: List[TopicPartition] = []
        for tp in unassigned:
            consumer = None
            next_index = rack_info.next_rack_consumer(tp, under, next_index_under)
            if next_index >= 0:
                consumer = under[next_index]
                count = len(self.assignment[consumer]) + 1
                if count >= self.min_quota:
                    under.remove(consumer)
                    if count < self.max_quota and self.current_over_min < self.expected_over_min:
                        exactly.append(consumer)
                else:
                    next_index += 1
                next_index_under = 0 if not under else next_index % len(under)
            elif exactly:
                first = rack_info.next_rack_consumer(tp, exactly, 0)
                if first >= 0:
                    consumer = exactly[first]
                    if len(self.assignment[consumer]) + 1 == self.max_quota:
                        del exactly[first]
                        self.current_over_min += 1
                        if self.current_over_min == self.expected_over_min:
                            exactly.clear()
            if consumer is not None:
                self._assign_new_partition(tp, consumer)
            else:
                remaining.append(tp)
        self._phase = "round-robin"
        return remaining

    def _assign_round_robin(self, unassigned: List[TopicPartition]) -> None:
        under = self.unfilled_under_min
        exactly = self.unfilled_exactly_min
        min_quota, max_quota = self.min_quota, self.max_quota
        assignment = self.assignment
        bulk = self.trace is None
        pos = 0  # the LinkedList iterator over ``under``: index of the next element
        i, total = 0, len(unassigned)
        while i < total:
            if bulk and under and (i == 0 or pos >= len(under)):
                # At the start of a pass over ``under`` (not after a removal moved the iterator back: that
                # pass is the one filling members): while no member of it can reach minQuota, whole passes
                # deal one partition to each member in turn, so member x of the pass gets every u-th
                # partition from i + x.  Dealt with slices; the pass that fills members goes step by step.
                u = len(under)
                k = min(min_quota - 1 - max(len(assignment[c]) for c in under), (total - i) // u)
                if k > 0:
                    end = i + k * u
                    for x, consumer in enumerate(under):
                        assignment[consumer].extend(unassigned[i + x:end:u])
                    if self.maybe_revoked or self.multiple:
                        self._record_transfers(unassigned, i, end, under)
                    i, pos = end, 0
                    continue
            tp = unassigned[i]
            i += 1
            if pos < len(under):
                consumer = under[pos]
                pos += 1
            elif not under and not exactly:
                raise KafkaError("IllegalStateException", "No more unfilled consumers to be assigned.")
            elif not under:
                consumer = exactly.pop(0)
            else:
                pos = 0
                consumer = under[pos]
                pos += 1
            count = self._assign_new_partition(tp, consumer)
            if count == min_quota:
                # Iterator.remove(): drops the element last returned by the iterator
                if pos == 0 or pos > len(under):
                    raise KafkaError("IllegalStateException", "iterator remove without next")
                del under[pos - 1]
                pos -= 1
                exactly.append(consumer)
            elif count == max_quota:
                self.current_over_min += 1

    def _record_transfers(self, unassigned: List[TopicPartition], start: int, end: int, under: List[str]) -> None:
        """The transfers of the partitions ``unassigned[start:end]`` dealt round ``under`` (in that order)."""
        maybe_revoked, multiple, transferring = self.maybe_revoked, self.multiple, self.transferring
        u = len(under)
        for index in range(start, end):
            tp = unassigned[index]
            consumer = under[(index - start) % u]
            previous = maybe_revoked.get(tp)
            if (previous is not None and previous != consumer) or tp in multiple:
                transferring[tp] = consumer

    def _assign_new_partition(self, tp: TopicPartition, consumer: str) -> int:
        mine = self.assignment[consumer]
        mine.append(tp)
        previous = self.maybe_revoked.get(tp)
        transfer = (previous is not None and previous != consumer) or tp in self.multiple
        if transfer:
            self.transferring[tp] = consumer
        if self.trace is not None:
            self.trace.append({"step": "assign", "phase": self._phase, "partition": tp, "member": consumer,
                               "transfer": transfer})
        return len(mine)

    def _verify_unfilled_members(self) -> None:
        if not self.unfilled_under_min:
            return
        if self.current_over_min != self.expected_over_min:
            raise KafkaError("IllegalStateException", "We haven't reached the expected number of members with "
                                                      "more than the minQuota partitions, but no more partitions to be assigned")
        for member in self.unfilled_under_min:
            if len(self.assignment[member]) != self.min_quota:
                raise KafkaError("IllegalStateException", f"Consumer: [{member}] doesn't reach minQuota partitions, "
                                                          "and no more partitions to be assigned")
