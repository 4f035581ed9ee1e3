"""Models of the two places where librdkafka's assignors depart from Kafka's Java ones, as the peer runs of
:mod:`rebalance.live.peer` found them: the book's Kafka code with one step replaced by what the C code does.

**Range, co-partitioned topics** (:func:`librdkafka_range_assign`).  Rack-aware Range (KIP-881) assigns topics
that have the same subscribers and partition count together: partition *p* of all of them goes to the first
member whose rack matches *p* in every topic and who has quota left.  Kafka's ``racksMatch`` accepts a member
without a rack (``RangeAssignor.TopicAssignmentState.racksMatch``, Kafka 4.3.1 lines 269-273, used by
``assignCoPartitionedWithRackMatching``, line 196); librdkafka's ``rd_kafka_assign_co_partitioned``
(``src/rdkafka_range_assignor.c``, check "(1.)", lines 443-449) skips it, although its single-topic pass
accepts it (``rd_kafka_racks_match``, lines 325-335).  The partitions it would have taken go to the racked
members first, and the member without a rack gets what the plain pass leaves over.

**Cooperative-sticky, general path** (:func:`librdkafka_general_assign`).  librdkafka 2.16's ``src/rdkafka_sticky_assignor.c`` is a C port of the *general* algorithm of Kafka's
``AbstractStickyAssignor`` (``GeneralAssignmentBuilder``, Kafka 4.3.1).  Replaying live rounds
of groups whose members subscribe differently (:mod:`rebalance.live.peer`) shows the two answers differ only
in *which* partition moves back to a member when a partition that already moved is moved again.  The cause is
in librdkafka's ``PartitionMovements``, and this module is the book's general builder
(:class:`~rebalance.consumer.sticky_general.GeneralAssignmentBuilder`) with that one part replaced by a model
of the C code (line numbers of ``src/rdkafka_sticky_assignor.c`` at librdkafka 2.16, unchanged since March
2025):

1. ``getTheActualPartitionToBeMoved`` (lines 421-451) builds the reverse pair ``{newConsumer, oldConsumer}``
   at its declaration (line 428), *before* ``oldConsumer`` is replaced by the partition's original owner
   (line 440).  Kafka builds ``new ConsumerPair(newConsumer, oldConsumer)`` after the replacement
   (``AbstractStickyAssignor.PartitionMovements.getTheActualPartitionToBeMoved``, lines 308-325).  So when a
   partition moves back to its original owner, Kafka finds no reverse pair and moves that partition; librdkafka
   finds the pair of the first hop and returns ``&plist->elems[0]`` (line 450): a pointer *into* the list of
   partitions moved along that pair.
2. ``processPartitionMovement`` (lines 629-650) first calls ``PartitionMovements_movePartition`` (line 641),
   which removes the partition from that same list (``removeMovementRecordOfPartition``, line 360,
   ``rd_kafka_topic_partition_list_del``, which shifts the later elements down with ``memmove``,
   ``src/rdkafka_partition.c`` lines 3594-3606), and then moves whatever the pointer now points at (lines
   644-650): the *next* partition of the list, not the one requested.  If the list held only that partition it
   is freed (line 363) and the pointer dangles.
3. ``removeMovementRecordOfPartition`` only reads the partition's record (``RD_MAP_GET``, line 351) where
   Kafka removes it (``partitionMovements.remove``, line 265): a partition that went back to its original
   owner keeps a stale record.  A later move of a partition whose record no longer matches its owner fails
   ``rd_assert(!rd_strcmp(existing_cpair->dst, old_consumer))`` (line 404) or, in
   ``getTheActualPartitionToBeMoved``, the assertion at line 438 -- the aborts the peer benchmark sees.

For members subscribing differently everything else (partition order, member order, the balance loop) is
the book's Kafka code: librdkafka's
``isBalanced`` keeps the condition Kafka changed in 3.6 (``consumerPartitions->cnt < otherConsumerPartitionCount``,
line 855, against ``consumerPartitionCount + 1 < otherConsumerPartitionCount`` since KAFKA-15106), which only
makes its loop run longer: no move is taken unless some member has two partitions more than another.

**Cooperative-sticky, members subscribing alike** (the same :func:`librdkafka_general_assign`).  Kafka takes
its constrained path (``AbstractStickyAssignor.assignPartitions``, Kafka 4.3.1 lines 103-107:
``allSubscriptionsEqual`` -> ``ConstrainedAssignmentBuilder``); librdkafka has no constrained path and runs the general algorithm, with the
partitions in the order of its ``sortPartitions`` branch for identical subscriptions (lines 1604-1796): a
round robin over the owned partitions, then the others from the last topic's highest partition down
(:class:`LibrdkafkaStickyBuilder`, which also models ``prepopulateCurrentAssignments``' owners, lines
1355-1490).  New partitions therefore go out highest first, where Kafka deals them lowest first.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from ..consumer.api import MemberSpec, build_scenario
from ..consumer.cooperative_sticky import CooperativeStickyAssignor
from ..consumer.model import TopicPartition
from ..consumer.range import RangeAssignor
from ..consumer.sticky_general import GeneralAssignmentBuilder
from ..errors import LibrdkafkaCrash as LibrdkafkaCrash  # re-exported; defined in errors
from ..validation import require

__all__ = ["observed_disagreements", "observed_same_subscription_rounds", "librdkafka_range_assign", "LibrdkafkaCrash", "LibrdkafkaRun", "LibrdkafkaPartitionMovements", "LibrdkafkaGeneralBuilder",
           "LibrdkafkaStickyBuilder", "librdkafka_general_assign"]

Pair = Tuple[str, str]


class _LibrdkafkaRange(RangeAssignor):
    """Kafka's ``RangeAssignor`` with librdkafka's co-partitioned pass (``rd_kafka_assign_co_partitioned``)."""

    @staticmethod
    def _assign_co_partitioned(consumers: List[str], num_partitions: int, states: List[Any],
                               assignment: Dict[str, List[TopicPartition]]) -> None:
        # states: RangeAssignor's per-topic states of the co-partitioned topics (private to consumer.range)
        racks = states[0].racks
        for p in range(num_partitions):
            match = next((c for c in consumers
                          if racks.get(c) is not None  # check (1.): no rack, no match (Kafka: a match)
                          and all(racks[c] in t.partition_racks[p] and t.max_assignable(c) > 0 for t in states)),
                         None)
            if match is None:
                continue
            for t in states:
                assignment[match].append((t.topic, p))
                t.on_assigned(match, (p,))


def librdkafka_range_assign(partitions: Mapping[str, int], members: Mapping[str, MemberSpec], *,
                            partition_racks: Optional[Mapping[str, Iterable[Iterable[str]]]] = None
                            ) -> Dict[str, List[TopicPartition]]:
    """librdkafka's Range answer, by the model: :func:`rebalance.consumer.assign` ``("range", ...)`` with the
    co-partitioned pass that skips members without a rack; same inputs, same output shape."""
    scenario = build_scenario("range", partitions, members, partition_racks=partition_racks)
    result = _LibrdkafkaRange().assign(scenario)
    return {m: list(result.assignment.get(m, [])) for m in scenario.members}


class LibrdkafkaPartitionMovements:
    """librdkafka's ``PartitionMovements_t``: each moved partition's (source, destination) record, never
    removed (line 351), and per topic the partitions moved along each pair, as insertion-ordered lists
    (``rd_kafka_topic_partition_list_t``) where Kafka keeps ``HashSet`` s."""

    def __init__(self) -> None:
        self.moves: Dict[TopicPartition, Pair] = {}
        self.by_topic: Dict[str, Dict[Pair, List[TopicPartition]]] = {}

    def snapshot(self) -> Dict[TopicPartition, Pair]:
        return dict(self.moves)

    def _add(self, tp: TopicPartition, pair: Pair) -> None:  # addPartitionMovementRecord, lines 370-388
        self.moves[tp] = pair
        self.by_topic.setdefault(tp[0], {}).setdefault(pair, []).append(tp)

    def _remove(self, tp: TopicPartition) -> Tuple[Pair, List[TopicPartition]]:
        """removeMovementRecordOfPartition (lines 343-367): the record stays in ``moves``."""
        pair = self.moves[tp]
        per_topic = self.by_topic.get(tp[0])
        if per_topic is None:
            raise LibrdkafkaCrash(356, "partitionMovementsForThisTopic is NULL (segmentation fault)")
        moved = per_topic.get(pair)
        if moved is None:
            raise LibrdkafkaCrash(358, "rd_assert(plist) failed")
        if tp in moved:
            moved.remove(tp)
        if not moved:
            del per_topic[pair]
        if not per_topic:
            del self.by_topic[tp[0]]
        return pair, moved

    def actual_partition_to_move(self, tp: TopicPartition, old: str,
                                 new: str) -> Tuple[TopicPartition, Optional[List[TopicPartition]]]:
        """getTheActualPartitionToBeMoved (lines 421-451): the partition requested, or the list whose first
        element the C code returns a pointer to (the reverse pair of the partition's *last* hop, line 428)."""
        per_topic = self.by_topic.get(tp[0])
        if per_topic is None:
            return tp, None
        record = self.moves.get(tp)
        if record is not None and record[1] != old:
            raise LibrdkafkaCrash(438, "rd_assert(!rd_strcmp(oldConsumer, cpair->dst)) failed")
        moved = per_topic.get((new, old))
        if not moved:
            return tp, None
        return moved[0], moved


class LibrdkafkaGeneralBuilder(GeneralAssignmentBuilder):
    """Kafka's general builder with librdkafka's :class:`LibrdkafkaPartitionMovements` and its
    ``processPartitionMovement`` (lines 629-650).  :attr:`substitutions` lists each (requested, moved)
    partition pair where the moved partition is not the one requested because of the pointer into the list."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.movements = LibrdkafkaPartitionMovements()  # type: ignore[assignment]
        self.substitutions: List[Tuple[TopicPartition, TopicPartition]] = []

    def _reassign(self, tp: TopicPartition, new_member: Optional[str], reason: str = "balance") -> None:
        if new_member is None:
            new_member = self._first_subscribed(tp[0])
            require(new_member is not None, "partitions", f"no consumer for {tp[0]}-{tp[1]}")
        movements: LibrdkafkaPartitionMovements = self.movements  # type: ignore[assignment]
        first, pointed = movements.actual_partition_to_move(tp, self.owner[tp], new_member)  # type: ignore[arg-type]
        old_member = self.owner[first]
        if first in movements.moves:  # PartitionMovements_movePartition, lines 391-418
            pair, moved = movements._remove(first)
            if pair[1] != old_member:
                raise LibrdkafkaCrash(404, "rd_assert(!rd_strcmp(existing_cpair->dst, old_consumer)) failed")
            if pointed is moved and not moved:
                raise LibrdkafkaCrash(363, "the moved partition's list was freed while pointed into "
                                           "(use after free)")
            target = pointed[0] if pointed is moved else first  # what the pointer now points at
            if pair[0] != new_member:
                movements._add(target, (pair[0], new_member))  # type: ignore[arg-type]
        else:
            target = first
            movements._add(first, (old_member, new_member))  # type: ignore[arg-type]
        if target != first:
            self.substitutions.append((first, target))
        current = self.current[old_member]
        require(target in current, "partitions", f"{target[0]}-{target[1]} would be assigned twice")
        sorted_members = self.sorted_members
        sorted_members.remove(old_member)
        sorted_members.remove(new_member)  # type: ignore[arg-type]
        current.remove(target)
        self.current[new_member].append(target)  # type: ignore[index]
        self.owner[target] = new_member  # type: ignore[assignment]
        sorted_members.add(new_member)  # type: ignore[arg-type]
        sorted_members.add(old_member)
        if self.trace is not None:
            self.trace.append({"step": "move", "partition": target, "requested": tp, "from": old_member,
                               "to": new_member, "reason": reason})


def _c_key(member: str) -> bytes:
    """``strcmp`` order of member ids (``sort_by_map_elem_val_toppar_list_cnt``, lines 506-515)."""
    return member.encode("utf-8")


class LibrdkafkaStickyBuilder(LibrdkafkaGeneralBuilder):
    """The whole of librdkafka's ``rd_kafka_sticky_assignor_assign_cb`` (lines 1822-2068), for any group: the
    general builder with librdkafka's :class:`LibrdkafkaPartitionMovements` (:class:`LibrdkafkaGeneralBuilder`)
    and three more places where the C code departs from Kafka 4.3.1's ``GeneralAssignmentBuilder``:

    * **current and previous owners** (``prepopulateCurrentAssignments``, lines 1355-1490): each partition's
      claimants are sorted by generation; if *any* two claim it in the same generation
      (``rd_list_find_duplicate``, line 1439) nobody keeps it, else the highest generation keeps it and
      ``prevAssignment`` holds the *second* highest (lines 1470-1478) -- only partitions claimed by two
      members have a previous owner.  Kafka's ``prepopulateCurrentAssignments`` records every partition of a
      member of an older generation than the group's newest.
    * **the order of the partitions** (``sortPartitions``, lines 1604-1796): every member has an entry in
      ``currentAssignment`` (line 1399), so ``isFreshAssignment`` (line 1920) is never true, and when all
      members have the same potential partitions (``areSubscriptionsIdentical``, lines 1553-1576) the order
      is a round robin over the owned partitions -- repeatedly the member with the most owned partitions
      left (ties: the greater member id), its first partition that had another owner before, else its first
      one (lines 1700-1768) -- followed by every other partition in the iteration order of the
      ``partition2AllPotentialConsumers`` map (lines 1773-1775), which is the *reverse* of insertion
      (``rd_map_insert``, ``LIST_INSERT_HEAD``, ``src/rdmap.c``): the last topic of the metadata first,
      partitions from the highest down.  Only when nobody owned anything is the list sorted (lines 1781-1783).
      Kafka's constrained path never sees this order; its general path sorts.
    * **the unassigned partitions** are that list minus the owned partitions kept (lines 1933-2021), in that
      order: librdkafka hands the new partitions out highest first to the least-loaded members.

    The balance loop, ``maybeAssignPartition`` and the score check are Kafka's.  ``isBalanced`` keeps the
    pre-KAFKA-15106 test (line 855), which only lengthens the loop (no move without a two-partition gap)."""

    def __init__(self, assignor: Any, partitions_per_topic: Dict[str, int], rack_info: Any,
                 current_assignment: Dict[str, List[TopicPartition]], subscriptions: Mapping[str, Any],
                 buffers: Mapping[str, Any], trace: Optional[List[Dict[str, Any]]] = None,
                 topic_order: Optional[List[str]] = None) -> None:
        claims: Dict[TopicPartition, List[Tuple[str, int]]] = {}
        for member, sub in subscriptions.items():  # lines 1383-1413: members in the leader's order
            buffer = buffers.get(member)
            if buffer is not None:
                buffer.rewind()
            data = assignor.member_data(sub, buffer)
            generation = -1 if data.generation is None else data.generation
            for tp in data.partitions:
                claims.setdefault(tuple(tp), []).append((member, generation))
        self.c_prev: Dict[TopicPartition, Tuple[str, int]] = {}
        kept: Dict[str, List[TopicPartition]] = {m: [] for m in subscriptions}
        for tp, owners in claims.items():  # lines 1418-1481
            owners = sorted(owners, key=lambda o: o[1])
            if any(a[1] == b[1] for a, b in zip(owners, owners[1:])):
                continue  # claimed twice in one generation: invalidated for all (lines 1437-1461)
            kept[owners[-1][0]].append(tp)
            if len(owners) >= 2:
                self.c_prev[tp] = owners[-2]
        for member in list(current_assignment):
            current_assignment[member][:] = [tp for tp in kept.get(member, []) if tp[0] in partitions_per_topic]
        super().__init__(assignor, partitions_per_topic, rack_info, current_assignment, subscriptions,
                         buffers, trace)
        # the topics in the order of the leader's metadata (eligible topics, rdkafka_assignor.c lines 280-318).
        # That is the order of its MetadataRequest (written in list order, rdkafka_request.c lines 3026-3033;
        # the mock answers in request order, rdkafka_mock_handlers.c lines 1410-1420; the client sorts no
        # topics when it parses the response, only partitions, rdkafka_metadata.c lines 932-935), whose list
        # is each member's subscription in the JoinGroup response's order, first appearance kept
        # (rd_kafka_topic_partition_list_get_topic_names, rdkafka_partition.c lines 4361-4382, called from
        # rdkafka_cgrp.c line 2426); every client sends its subscription sorted by name
        # (rd_kafka_cgrp_update_subscribed_topics, rdkafka_cgrp.c line 2853, strcmp first).  The order is
        # used only when every member has the same potential partitions, and then the first member's sorted
        # list already holds every existing topic: the order is by name (line numbers at commit 4c3b017c3).
        self.topic_order = [t for t in (topic_order or sorted(partitions_per_topic, key=_c_key))
                            if t in partitions_per_topic]
        potential = {m: frozenset(self.consumer_topics[m]) for m in subscriptions}
        self.identical = len(set(potential.values())) <= 1
        if self.identical:
            self.sorted_all_partitions = self._round_robin_order()

    def _prepopulate(self, prev: Dict[TopicPartition, Tuple[str, int]]) -> None:
        prev.update(self.c_prev)

    def _round_robin_order(self) -> List[TopicPartition]:
        """``sortPartitions``'s branch for identical subscriptions (lines 1650-1783)."""
        valid = {t for t in self.partitions_per_topic if self.topic_consumers[t]}
        remaining = {m: sorted((tp for tp in tps if tp[0] in valid), key=lambda tp: (_c_key(tp[0]), tp[1]))
                     for m, tps in self.current.items()}
        remaining = {m: tps for m, tps in remaining.items() if tps}
        order: List[TopicPartition] = []
        while remaining:
            member = max(remaining, key=lambda m: (len(remaining[m]), _c_key(m)))
            tps = remaining[member]
            earlier = [tp for tp in tps if tp in self.c_prev]
            pick = earlier[0] if earlier else tps[0]
            tps.remove(pick)
            order.append(pick)
            if not tps:  # removed from the list on its next turn (lines 1757-1761), same order
                del remaining[member]
        if not order:  # wasEmpty: every partition, sorted (lines 1771-1783)
            return [tp for t in sorted(valid, key=_c_key) for tp in ((t, p) for p in range(self.partitions_per_topic[t]))]
        seen = set(order)
        for t in reversed(self.topic_order):  # the map's iteration: reverse insertion order (rdmap.c)
            if t in valid:
                order.extend(tp for tp in ((t, p) for p in reversed(range(self.partitions_per_topic[t])))
                             if tp not in seen)
        return order

    def _unassigned_partitions(self, assigned: List[TopicPartition]) -> List[TopicPartition]:
        if not self.identical:
            return super()._unassigned_partitions(assigned)
        kept = set(assigned)
        return [tp for tp in self.sorted_all_partitions if tp not in kept]


class _LibrdkafkaCooperativeSticky(CooperativeStickyAssignor):
    """librdkafka has one algorithm for every group: the general path is always taken."""

    general_builder = LibrdkafkaStickyBuilder

    def _all_subscriptions_equal(self, *args: Any, **kwargs: Any) -> bool:
        super()._all_subscriptions_equal(*args, **kwargs)  # fills the owned partitions
        return False


@dataclass(frozen=True)
class LibrdkafkaRun:
    """The model's answer: the assignor's raw ``assignment`` (before the KIP-429 adjustment librdkafka makes
    afterwards in ``rd_kafka_cooperative_protocol_adjust_assignment``) and the ``substitutions``."""

    assignment: Mapping[str, List[TopicPartition]]
    substitutions: List[Tuple[TopicPartition, TopicPartition]] = field(default_factory=list)
    #: whether librdkafka's ``sortPartitions`` took its branch for identical subscriptions
    identical: bool = False


def librdkafka_general_assign(partitions: Mapping[str, int], members: Mapping[str, MemberSpec], *,
                              partition_racks: Optional[Mapping[str, Iterable[Iterable[str]]]] = None,
                              topic_order: Optional[List[str]] = None) -> LibrdkafkaRun:
    """librdkafka's cooperative-sticky answer (``rd_kafka_sticky_assignor_assign_cb``), by the model, for any
    group, members subscribing alike or not; same inputs as :func:`rebalance.consumer.assign`, members in the
    leader's order; ``topic_order`` the order of the topics in the leader's metadata (default: by name).
    Raises :class:`LibrdkafkaCrash` where librdkafka aborts."""
    scenario = build_scenario("cooperative-sticky", partitions, members, partition_racks=partition_racks)
    assignor = _LibrdkafkaCooperativeSticky()
    captured: List[LibrdkafkaStickyBuilder] = []

    class _Capturing(LibrdkafkaStickyBuilder):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **{**kwargs, "topic_order": topic_order})
            captured.append(self)

    assignor.general_builder = _Capturing
    result = assignor.assign(scenario)
    full = result.full_assignment or result.assignment
    return LibrdkafkaRun({m: list(full.get(m, [])) for m in scenario.members},
                         list(captured[0].substitutions) if captured else [],
                         bool(captured and captured[0].identical))


def observed_disagreements() -> List[Dict[str, Any]]:
    """The rounds of one run of the peer benchmark (``benchmarks/bench_live_peer.py``, 300 groups, seed 0,
    2026-11-24, librdkafka 2.16.0) where librdkafka's answer differed from the book's, except the
    cooperative-sticky rounds of groups whose members all subscribe alike: each as
    :func:`rebalance.live.peer.round_inputs` recorded it (members in the leader's order with their mock-given
    ids, subscriptions, racks, owned partitions and generations, and librdkafka's raw output, ``live``)."""
    return _recorded("observed_rounds.jsonl")


def observed_same_subscription_rounds() -> List[Dict[str, Any]]:
    """Cooperative-sticky rounds of groups whose members all subscribe alike, from one run of the peer
    benchmark (``bench_live_peer.py --assignors cooperative-sticky --dump-all``, seed 0, 2026-11-24,
    librdkafka 2.16.0), in the shape of :func:`observed_disagreements`: rounds where librdkafka's answer
    differs from Kafka's (the constrained path against librdkafka's general algorithm; new partitions dealt
    highest first; the round-robin order of the owned partitions) and a few where the two agree."""
    return _recorded("observed_same_subscription_rounds.jsonl")


def _recorded(name: str) -> List[Dict[str, Any]]:
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]
