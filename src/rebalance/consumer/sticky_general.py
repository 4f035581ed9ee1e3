"""``AbstractStickyAssignor.GeneralAssignmentBuilder`` and ``PartitionMovements`` (Kafka 4.3.1): the
path taken when members subscribe to different topics.

1. ``prepopulateCurrentAssignments`` re-reads every member's data (rewinding the user-data buffer) and
   remembers, for partitions reported by members of an *older* generation than ``maxGeneration``, the
   latest such owner (``prevAssignment``).
2. Owned partitions stay where they are unless the owner no longer subscribes to the topic (or, with rack
   matching, the rack does not match).
3. Unassigned partitions go, one at a time, to the member with the fewest partitions (ties: smaller member
   id) that subscribes to the topic -- Kafka's ``TreeSet`` ordered by (assignment size, member id).
4. ``performReassignments`` walks the reassignable partitions (topics with fewer potential consumers
   first) while the assignment is not balanced, and moves a partition to a less-loaded member when that
   member has two or more partitions fewer; ``PartitionMovements`` makes a move that would send a
   partition of a topic back along an existing movement undo that movement instead (stickiness).
5. If the moves did not lower the balance score (see :func:`~.abstract_sticky.balance_score`), they are
   undone -- unless this is the very first assignment.

With a ``trace`` list the builder records ``{"step": "assign", "partition", "member"}`` for each
unassigned partition, ``{"step": "move", "partition", "requested", "from", "to", "reason", "sizes"}`` for each
reassignment (``requested`` differs from ``partition`` when a reverse movement was undone instead) and
``{"step": "revert", "score_before", "score_after"}`` when the moves were undone.

Which partition an "undo" picks is the first element of a ``java.util.HashSet<TopicPartition>``, so its
iteration order is emulated (:class:`rebalance.jcollections.JavaHashSet`).
"""
from __future__ import annotations

import bisect
from itertools import groupby, repeat
from operator import itemgetter
from typing import Any, Dict, Iterable, Iterator, List, Optional, Set, Tuple

from ..errors import KafkaError
from ..java import java_string_key
from ..jcollections import JavaHashSet
from ..wire import ByteBuffer
from .abstract_sticky import (DEFAULT_GENERATION, AbstractStickyAssignor, RackInfo, all_partitions, balance_score,
                              unassigned_partitions)
from .model import Subscription, TopicPartition
from .abstract import topic_subscribers

_TOPIC = itemgetter(0)


class PartitionMovements:
    """``AbstractStickyAssignor.PartitionMovements``: for each moved partition, where it came from and
    where it is now, and per topic the set of partitions moved between each (source, destination) pair."""

    def __init__(self) -> None:
        self.by_topic: Dict[str, Dict[Tuple[str, str], JavaHashSet]] = {}
        self.moves: Dict[TopicPartition, Tuple[str, str]] = {}

    def _remove_record(self, tp: TopicPartition) -> Tuple[str, str]:
        pair = self.moves.pop(tp)
        per_topic = self.by_topic[tp[0]]
        per_topic[pair].remove(tp)
        if not per_topic[pair]:
            del per_topic[pair]
        if not per_topic:
            del self.by_topic[tp[0]]
        return pair

    def _add_record(self, tp: TopicPartition, pair: Tuple[str, str]) -> None:
        self.moves[tp] = pair
        per_topic = self.by_topic.setdefault(tp[0], {})
        moved = per_topic.get(pair)
        if moved is None:
            moved = per_topic[pair] = JavaHashSet()
        moved.add(tp)

    def move_partition(self, tp: TopicPartition, old: str, new: str) -> None:
        """Record that ``tp`` moves from ``old`` to ``new``; a move back to the original owner cancels out."""
        if tp in self.moves:
            src, _dst = self._remove_record(tp)
            if src != new:
                self._add_record(tp, (src, new))
        else:
            self._add_record(tp, (old, new))

    def actual_partition_to_move(self, tp: TopicPartition, old: str, new: str) -> TopicPartition:
        """``getTheActualPartitionToBeMoved``: if some partition of the topic already moved from ``new`` to
        (the original owner of) ``tp``, move that one back instead."""
        per_topic = self.by_topic.get(tp[0])
        if per_topic is None:
            return tp
        if tp in self.moves:
            old = self.moves[tp][0]
        reverse = per_topic.get((new, old))
        if reverse is None:
            return tp
        return reverse.first()

    def snapshot(self) -> Dict[TopicPartition, Tuple[str, str]]:
        return dict(self.moves)


class _SortedMembers:
    """Kafka's ``TreeSet<String>`` with ``SubscriptionComparator``: members ordered by their current
    assignment size, then member id.  Keys are ``size * n + rank`` in a sorted list."""

    __slots__ = ("n", "rank", "names", "keys", "stored", "assignment")

    def __init__(self, members: List[str], assignment: Dict[str, List[TopicPartition]]):
        ordered = sorted(members, key=java_string_key)
        self.n = max(1, len(ordered))
        self.rank = {m: i for i, m in enumerate(ordered)}
        self.names = ordered
        self.keys: List[int] = []
        self.stored: Dict[str, int] = {}
        self.assignment = assignment

    def add(self, member: str) -> None:
        if member in self.stored:
            return
        key = len(self.assignment[member]) * self.n + self.rank[member]
        self.stored[member] = key
        bisect.insort(self.keys, key)

    def remove(self, member: str) -> None:
        key = self.stored.pop(member, None)
        if key is not None:
            del self.keys[bisect.bisect_left(self.keys, key)]

    def first(self) -> str:
        return self.names[self.keys[0] % self.n]

    def last(self) -> str:
        return self.names[self.keys[-1] % self.n]

    def __iter__(self) -> Iterator[str]:
        names, n = self.names, self.n
        for key in self.keys:
            yield names[key % n]

    def __len__(self) -> int:
        return len(self.keys)


class GeneralAssignmentBuilder:
    """One run of Kafka's general builder; :meth:`build` returns member -> list of partitions."""

    def __init__(self, assignor: AbstractStickyAssignor, partitions_per_topic: Dict[str, int], rack_info: RackInfo,
                 current_assignment: Dict[str, List[TopicPartition]], subscriptions: Dict[str, Subscription],
                 buffers: Dict[str, Optional[ByteBuffer]], trace: Optional[List[Dict[str, Any]]] = None):
        self.trace = trace
        self.assignor = assignor
        self.partitions_per_topic = partitions_per_topic
        self.total = sum(partitions_per_topic.values())
        self.rack_info = rack_info
        self.current = current_assignment
        self.subscriptions = subscriptions
        self.buffers = buffers
        self.revocation_required = False
        self.consumer_topics: Dict[str, List[str]] = {}
        self.consumer_topic_set: Dict[str, Set[str]] = {}
        self.topic_consumers = self._index_subscriptions(partitions_per_topic, subscriptions)
        for member in subscriptions:
            if member not in current_assignment:
                current_assignment[member] = []
        self.owner: Dict[TopicPartition, str] = {}
        for member, tps in current_assignment.items():
            self.owner.update(zip(tps, repeat(member)))
        self.sorted_topics = sorted(partitions_per_topic,
                                    key=lambda t: (len(self.topic_consumers[t]), java_string_key(t)))
        self.topic_position = {t: i for i, t in enumerate(self.sorted_topics)}
        self.sorted_all_partitions: List[TopicPartition] = all_partitions(self.sorted_topics, partitions_per_topic)
        self.sorted_members = _SortedMembers(list(subscriptions), current_assignment)
        self.movements = PartitionMovements()
        self._max_size_cache: Dict[str, int] = {}
        #: True when the reassignments did not improve the balance score and were undone
        self.movements_reverted = False

    def _index_subscriptions(self, partitions_per_topic: Dict[str, int],
                             subscriptions: Dict[str, Subscription]) -> Dict[str, List[str]]:
        """Fill ``consumer_topics`` / ``consumer_topic_set`` (each member's subscribed topics that exist) and
        return ``topic_consumers``: each topic's subscribers in subscription order (a member listed once per
        time it lists the topic).  Members with the same topic list share the work: Kafka's large groups
        have thousands of members and one or two distinct subscriptions."""
        kinds: Dict[Tuple[str, ...], int] = {}
        kind_topics: List[List[str]] = []
        kind_sets: List[Set[str]] = []
        for member, sub in subscriptions.items():
            key = tuple(sub.topics)
            kind = kinds.get(key)
            if kind is None:
                kind = kinds[key] = len(kind_topics)
                kind_topics.append([t for t in key if t in partitions_per_topic])
                kind_sets.append(set(kind_topics[-1]))
            self.consumer_topics[member] = list(kind_topics[kind])
            self.consumer_topic_set[member] = kind_sets[kind]  # read only: shared by the members of a kind
        subscribers = topic_subscribers(list(subscriptions), self.consumer_topics, repeats=True)
        return {t: subscribers.get(t, []) for t in partitions_per_topic}

    # -- steps of build() ------------------------------------------------------------------
    def build(self) -> Dict[str, List[TopicPartition]]:
        prev: Dict[TopicPartition, Tuple[str, int]] = {}
        self._prepopulate(prev)
        assigned = self._assign_owned_partitions()
        unassigned = self._unassigned_partitions(assigned)
        for member in self.current:
            self.sorted_members.add(member)
        self._balance(prev, unassigned)
        return self.current

    def _prepopulate(self, prev: Dict[TopicPartition, Tuple[str, int]]) -> None:
        max_generation = self.assignor.max_generation
        for member, sub in self.subscriptions.items():
            buffer = self.buffers.get(member)
            if buffer is not None:
                buffer.rewind()
            data = self.assignor.member_data(sub, buffer)
            if data.generation is not None and data.generation < max_generation:
                self._update_prev(prev, data.partitions, member, data.generation)
            elif data.generation is None and max_generation > DEFAULT_GENERATION:
                self._update_prev(prev, data.partitions, member, DEFAULT_GENERATION)

    @staticmethod
    def _update_prev(prev: Dict[TopicPartition, Tuple[str, int]], partitions: Iterable[TopicPartition], member: str,
                     generation: int) -> None:
        for tp in partitions:
            known = prev.get(tp)
            if known is None or generation > known[1]:
                prev[tp] = (member, generation)

    def _assign_owned_partitions(self) -> List[TopicPartition]:
        assigned: List[TopicPartition] = []
        rack_info = self.rack_info
        check_racks = bool(rack_info.consumer_racks)
        for member, tps in self.current.items():
            subscribed = self.subscriptions[member].topics
            subscribed_set = set(subscribed)
            if not check_racks:
                owned_topics = set(map(_TOPIC, tps))
                if owned_topics <= subscribed_set and owned_topics <= self.topic_consumers.keys():
                    assigned.extend(tps)  # every owned partition is of a subscribed topic that exists: all kept
                    continue
            kept: List[TopicPartition] = []
            for tp in tps:
                if tp[0] not in self.topic_consumers:
                    self.owner.pop(tp, None)
                elif tp[0] not in subscribed_set or (check_racks and rack_info.racks_mismatch(member, tp)):
                    self.revocation_required = True
                else:
                    kept.append(tp)
                    assigned.append(tp)
            tps[:] = kept
        return assigned

    def _unassigned_partitions(self, assigned: List[TopicPartition]) -> List[TopicPartition]:
        pos = self.topic_position
        return unassigned_partitions(self.sorted_all_partitions, assigned, lambda tp: (pos[tp[0]], tp[1]))

    def _max_assignment_size(self, member: str) -> int:
        size = self._max_size_cache.get(member)
        if size is None:
            topics = self.consumer_topics[member]
            if len(topics) == len(self.partitions_per_topic):
                size = self.total
            else:
                size = sum(self.partitions_per_topic[t] for t in topics)
            self._max_size_cache[member] = size
        return size

    def _first_subscribed(self, topic: str) -> Optional[str]:
        topic_sets = self.consumer_topic_set
        for member in self.sorted_members:
            if topic in topic_sets[member]:
                return member
        return None

    def _maybe_assign(self, partitions: List[TopicPartition], rack_info: Optional[RackInfo],
                      remove_assigned: bool) -> List[TopicPartition]:
        """``maybeAssign``; returns the list with assigned partitions removed when ``remove_assigned``."""
        if rack_info is None and self.trace is None:
            self._assign_runs(partitions)
            return [] if remove_assigned else list(partitions)
        remaining: List[TopicPartition] = []
        sorted_members = self.sorted_members
        topic_sets = self.consumer_topic_set
        current = self.current
        owner = self.owner
        for tp in partitions:
            topic = tp[0]
            if not self.topic_consumers[topic]:
                remaining.append(tp)
                continue
            chosen = None
            if rack_info is None:
                # fast path: the smallest member is usually subscribed
                first = sorted_members.first() if len(sorted_members) else None
                if first is not None and topic in topic_sets[first]:
                    chosen = first
                else:
                    chosen = self._first_subscribed(topic)
            else:
                for member in sorted_members:
                    if topic in topic_sets[member] and not rack_info.racks_mismatch(member, tp):
                        chosen = member
                        break
            if chosen is None:
                remaining.append(tp)
                continue
            sorted_members.remove(chosen)
            current[chosen].append(tp)
            owner[tp] = chosen
            sorted_members.add(chosen)
            if self.trace is not None:
                self.trace.append({"step": "assign", "partition": tp, "member": chosen})
            if not remove_assigned:
                remaining.append(tp)
        return remaining

    def _assign_runs(self, partitions: List[TopicPartition]) -> None:
        """``maybeAssign`` without rack matching, for runs of consecutive partitions whose topics have the
        same subscribers.  Within a run each partition goes to the subscriber that is first in the TreeSet,
        the smallest (assignment size, member id); a member of size s takes its j-th partition of the run at
        key (s + j, member id), so the run is dealt level by level: at each level, the subscribers whose
        size is at most that level, in member-id order.  Levels where that set does not change are dealt
        with slices.  Same result as one partition at a time."""
        topic_consumers = self.topic_consumers
        start = end = 0
        consumers: List[str] = []
        for topic, run in groupby(map(_TOPIC, partitions)):  # runs of one topic, counted by C code
            subscribers = topic_consumers[topic]
            if subscribers != consumers:
                if consumers and end > start:
                    self._deal(partitions[start:end], consumers)
                start, consumers = end, subscribers
            end += len(list(run))
        if consumers and end > start:
            self._deal(partitions[start:end], consumers)

    def _deal(self, run: List[TopicPartition], consumers: List[str]) -> None:
        sorted_members, current, owner = self.sorted_members, self.current, self.owner
        rank, names = sorted_members.rank, sorted_members.names
        members = [m for m in dict.fromkeys(consumers) if m in sorted_members.stored]  # a topic listed twice
        if not members:
            return
        before = {m: len(current[m]) for m in members}
        waiting = sorted((before[m], rank[m]) for m in members)  # (size, rank), smallest first
        for m in members:
            sorted_members.remove(m)
        eligible: List[int] = []  # ranks of the members taking part at the current level, ascending
        level = waiting[0][0]
        w, pos, total = 0, 0, len(run)
        while pos < total:
            while w < len(waiting) and waiting[w][0] <= level:
                bisect.insort(eligible, waiting[w][1])
                w += 1
            e = len(eligible)
            next_level = waiting[w][0] if w < len(waiting) else level + total
            levels = min(next_level - level, (total - pos) // e)
            if levels > 0:
                stop = pos + levels * e
                for i, r in enumerate(eligible):
                    current[names[r]].extend(run[pos + i:stop:e])
                pos, level = stop, level + levels
            else:  # the last, partial level
                for i in range(total - pos):
                    current[names[eligible[i]]].append(run[pos + i])
                pos = total
        for m in members:
            taken = current[m][before[m]:]
            if taken:
                owner.update(zip(taken, repeat(m)))
            sorted_members.add(m)

    def _can_consumer_participate(self, member: str) -> bool:
        tps = self.current[member]
        if len(tps) < self._max_assignment_size(member):
            return True
        topic_consumers = self.topic_consumers
        return any(len(topic_consumers[tp[0]]) >= 2 for tp in tps)

    def _balance(self, prev: Dict[TopicPartition, Tuple[str, int]], unassigned: List[TopicPartition]) -> None:
        current = self.current
        initializing = not current[self.sorted_members.last()]
        to_assign = unassigned
        if self.rack_info.consumer_racks:
            to_assign = self._maybe_assign(list(unassigned), self.rack_info, True)
        self._maybe_assign(to_assign, None, False)

        fixed_topics = {t for t, cs in self.topic_consumers.items() if len(cs) < 2}
        if fixed_topics:
            aliased = unassigned is self.sorted_all_partitions
            self.sorted_all_partitions[:] = [tp for tp in self.sorted_all_partitions if tp[0] not in fixed_topics]
            if not aliased:
                unassigned[:] = [tp for tp in unassigned if tp[0] not in fixed_topics]

        fixed_assignments: Dict[str, List[TopicPartition]] = {}
        for member in self.consumer_topics:
            if not self._can_consumer_participate(member):
                self.sorted_members.remove(member)
                fixed_assignments[member] = current.pop(member)

        pre_balance = {m: list(tps) for m, tps in current.items()}
        pre_balance_owner = dict(self.owner)

        if not self.revocation_required:
            self._perform_reassignments(unassigned, prev)
        performed = self._perform_reassignments(self.sorted_all_partitions, prev)

        if not initializing and performed and balance_score(current) >= balance_score(pre_balance):
            if self.trace is not None:
                self.trace.append({"step": "revert", "score_before": balance_score(pre_balance),
                                   "score_after": balance_score(current)})
            current.clear()
            current.update(pre_balance)
            self.owner = pre_balance_owner
            self.movements_reverted = True
        for member, tps in fixed_assignments.items():
            current[member] = tps

    # -- isBalanced and the reassignment loop ----------------------------------------------
    def _is_balanced(self) -> bool:
        current = self.current
        sorted_members = self.sorted_members
        smallest = len(current[sorted_members.first()])
        largest = len(current[sorted_members.last()])
        if smallest >= largest - 1:
            return True
        # For each member that could take more, no partition of its topics may sit with a member that has
        # two or more partitions more than it (Kafka checks partition by partition; the maximum owner size
        # per topic is the same test).
        max_owner: Dict[str, int] = {}
        for member, tps in current.items():
            size = len(tps)
            for topic in {tp[0] for tp in tps}:
                if max_owner.get(topic, -1) < size:
                    max_owner[topic] = size
        for member in sorted_members:
            size = len(current[member])
            if size == self._max_assignment_size(member):
                continue
            for topic in self.consumer_topics[member]:
                if max_owner.get(topic, -1) > size + 1:
                    return False
        return True

    def _perform_reassignments(self, partitions: List[TopicPartition], prev: Dict[TopicPartition, Tuple[str, int]]) -> bool:
        performed = False
        current = self.current
        rack_info = self.rack_info
        consumer_racks = rack_info.consumer_racks
        while True:
            modified = False
            for tp in partitions:
                if self._is_balanced():
                    break
                member = self.owner.get(tp)
                if member is None or member not in current:
                    raise KafkaError("NullPointerException", f"partition {tp[0]}-{tp[1]} has no current consumer")
                size = len(current[member])
                earlier = prev.get(tp)
                if earlier is not None:
                    earlier_list = current.get(earlier[0])
                    if earlier_list is None:
                        raise KafkaError("NullPointerException", f"previous owner {earlier[0]} is not assignable")
                    if size > len(earlier_list) + 1:
                        self._reassign(tp, earlier[0], "previous owner")
                        performed = modified = True
                        continue
                found_rack = False
                rack = consumer_racks.get(member) if consumer_racks else None
                if rack is not None:
                    racks = rack_info.partition_racks.get(tp)
                    if racks and rack in racks:
                        for other in self.topic_consumers[tp[0]]:
                            other_rack = consumer_racks.get(other)
                            if other_rack is None or other_rack not in racks:
                                continue
                            if size > len(current[other]) + 1:
                                self._reassign(tp, None, "balance (rack)")
                                performed = modified = found_rack = True
                                break
                if not found_rack:
                    # "some potential consumer of the topic has two fewer partitions": the least-loaded
                    # subscriber (first in the TreeSet) is the one to test, and the one reassignPartition picks
                    target = self._first_subscribed(tp[0])
                    if target is not None and size > len(current[target]) + 1:
                        self._reassign(tp, target, "balance")
                        performed = modified = True
            if not modified:
                return performed

    def _reassign(self, tp: TopicPartition, new_member: Optional[str], reason: str = "balance") -> None:
        if new_member is None:
            new_member = self._first_subscribed(tp[0])
            if new_member is None:
                raise KafkaError("AssertionError", f"no consumer for {tp[0]}-{tp[1]}")
        old_member = self.owner[tp]
        to_move = self.movements.actual_partition_to_move(tp, old_member, new_member)
        from_member = self.owner[to_move]
        self._process_movement(to_move, new_member)
        if self.trace is not None:
            self.trace.append({"step": "move", "partition": to_move, "requested": tp, "from": from_member,
                               "to": new_member, "reason": reason,
                               "sizes": {m: len(tps) for m, tps in self.current.items()}})

    def _process_movement(self, tp: TopicPartition, new_member: str) -> None:
        old_member = self.owner[tp]
        sorted_members = self.sorted_members
        sorted_members.remove(old_member)
        sorted_members.remove(new_member)
        self.movements.move_partition(tp, old_member, new_member)
        self.current[old_member].remove(tp)
        self.current[new_member].append(tp)
        self.owner[tp] = new_member
        sorted_members.add(new_member)
        sorted_members.add(old_member)
