"""Models of the two places where librdkafka's assignors depart from Kafka's Java ones, as the peer runs of
:mod:`rebalance.live.peer` found them: the book's Kafka code with one step replaced by what the C code does.

**Range, co-partitioned topics** (:func:`librdkafka_range_assign`).  Rack-aware Range (KIP-881) assigns topics
that have the same subscribers and partition count together: partition *p* of all of them goes to the first
member whose rack matches *p* in every topic and who has quota left.  Kafka's ``racksMatch`` accepts a member
without a rack (``RangeAssignor.TopicAssignmentState.racksMatch``, Kafka 3.8/3.9 lines 269-273, used by
``assignCoPartitionedWithRackMatching``, line 196); librdkafka's ``rd_kafka_assign_co_partitioned``
(``src/rdkafka_range_assignor.c``, check "(1.)", lines 443-449) skips it, although its single-topic pass
accepts it (``rd_kafka_racks_match``, lines 325-335).  The partitions it would have taken go to the racked
members first, and the member without a rack gets what the plain pass leaves over.

**Cooperative-sticky, general path** (:func:`librdkafka_general_assign`).  librdkafka 2.16's ``src/rdkafka_sticky_assignor.c`` is a C port of the *general* algorithm of Kafka's
``AbstractStickyAssignor`` (``GeneralAssignmentBuilder``, Kafka 3.8/3.9, commit 1eb7644).  Replaying live rounds
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

Everything else (partition order, member order, the balance loop) is the book's Kafka code: librdkafka's
``isBalanced`` keeps the condition Kafka changed in 3.6 (``consumerPartitions->cnt < otherConsumerPartitionCount``,
line 855, against ``consumerPartitionCount + 1 < otherConsumerPartitionCount`` since KAFKA-15106), which only
makes its loop run longer: no move is taken unless some member has two partitions more than another.  The
model covers groups whose members subscribe differently; for identical subscriptions librdkafka orders the
partitions differently (``sortPartitions``, lines 1605-1796) and Kafka takes its constrained path instead.
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
from ..errors import RebalanceError, require

__all__ = ["observed_disagreements", "librdkafka_range_assign", "LibrdkafkaCrash", "LibrdkafkaRun", "LibrdkafkaPartitionMovements", "LibrdkafkaGeneralBuilder",
           "librdkafka_general_assign"]

Pair = Tuple[str, str]


class _LibrdkafkaRange(RangeAssignor):
    """Kafka's ``RangeAssignor`` with librdkafka's co-partitioned pass (``rd_kafka_assign_co_partitioned``)."""

    @staticmethod
    def _assign_co_partitioned(consumers: List[str], num_partitions: int, states: list, assignment: dict) -> None:
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


class LibrdkafkaCrash(RebalanceError):
    """Where the C code would stop: an ``rd_assert`` that fails (``line`` of ``src/rdkafka_sticky_assignor.c``,
    the process aborts) or a read through a pointer to freed memory (undefined behaviour: a segmentation fault,
    or a move of whatever the freed memory still holds)."""

    def __init__(self, line: int, what: str):
        super().__init__(f"rdkafka_sticky_assignor.c:{line}: {what}")
        self.line = line
        self.what = what


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


class _LibrdkafkaCooperativeSticky(CooperativeStickyAssignor):
    general_builder = LibrdkafkaGeneralBuilder


@dataclass(frozen=True)
class LibrdkafkaRun:
    """The model's answer: the assignor's raw ``assignment`` (before the KIP-429 adjustment librdkafka makes
    afterwards in ``rd_kafka_cooperative_protocol_adjust_assignment``) and the ``substitutions``."""

    assignment: Mapping[str, List[TopicPartition]]
    substitutions: List[Tuple[TopicPartition, TopicPartition]] = field(default_factory=list)


def librdkafka_general_assign(partitions: Mapping[str, int], members: Mapping[str, MemberSpec], *,
                              partition_racks: Optional[Mapping[str, Iterable[Iterable[str]]]] = None
                              ) -> LibrdkafkaRun:
    """librdkafka's cooperative-sticky answer, by the model, for members that subscribe differently; same
    inputs as :func:`rebalance.consumer.assign`.  Raises :class:`LibrdkafkaCrash` where librdkafka aborts."""
    scenario = build_scenario("cooperative-sticky", partitions, members, partition_racks=partition_racks)
    require(len({tuple(sorted(s.topics)) for s in scenario.members.values()}) > 1, "members",
            "the model covers librdkafka's general path for members with different subscriptions only")
    assignor = _LibrdkafkaCooperativeSticky()
    captured: List[LibrdkafkaGeneralBuilder] = []

    class _Capturing(LibrdkafkaGeneralBuilder):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)
            captured.append(self)

    assignor.general_builder = _Capturing
    result = assignor.assign(scenario)
    full = result.full_assignment or result.assignment
    return LibrdkafkaRun({m: list(full.get(m, [])) for m in scenario.members},
                         list(captured[0].substitutions) if captured else [])


def observed_disagreements() -> List[Dict[str, Any]]:
    """The rounds of one run of the peer benchmark (``benchmarks/bench_live_peer.py``, 300 groups, seed 0,
    2026-11-24, librdkafka 2.16.0) where librdkafka's answer differed from the book's, except the
    cooperative-sticky rounds of groups whose members all subscribe alike: each as
    :func:`rebalance.live.peer.round_inputs` recorded it (members in the leader's order with their mock-given
    ids, subscriptions, racks, owned partitions and generations, and librdkafka's raw output, ``live``)."""
    text = resources.files(__package__).joinpath("observed_rounds.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]
