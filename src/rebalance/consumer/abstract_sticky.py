"""What ``StickyAssignor`` and ``CooperativeStickyAssignor`` share: Kafka's ``AbstractStickyAssignor``
(clients, Kafka 4.3.1, unchanged since 3.9; first written from trunk commit 1eb7644).

One ``assign`` call does what ``AbstractStickyAssignor.assignPartitions`` does:

1. ``allSubscriptionsEqual`` walks the subscriptions (a ``java.util.HashMap`` filled in member order, so in
   its iteration order), reads each member's owned partitions and generation (``memberData``), raises the
   instance's ``maxGeneration``, and settles double claims: the higher generation keeps the partition, equal
   generations lose it (KAFKA-12984, 3.0.0 and 2.8.1).  The other claimant's generation is taken from the protocol field
   ``Subscription.generationId()``, not from user data (vectors README, Surprise 1).
2. Equal subscriptions take the fast *constrained* path (:mod:`.sticky_constrained`, KAFKA-9987/KAFKA-12464),
   which also records ``partitionsTransferringOwnership``; anything else takes the *general* path
   (:mod:`.sticky_general`), where that map is ``null``.
3. ``RackInfo`` (KIP-881, 3.5) decides whether rack matching is used at all.

``maxGeneration`` is instance state that Kafka never resets (Surprise 3): an assignor object here keeps it
across calls too.
"""
from __future__ import annotations

from bisect import bisect_left
from itertools import filterfalse, repeat
from operator import add, itemgetter, lt, sub as subtract
from typing import Any, Callable, Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Sized, Tuple, Union

from ..errors import InputError, KafkaError
from ..java import hashmap_order
from ..wire import ByteBuffer
from .abstract import AbstractPartitionAssignor, use_rack_aware_assignment
from .model import AssignorResult, ConsumerScenario, Subscription, TopicPartition
from .replay import ReplayOptions
from .sticky_userdata import DEFAULT_GENERATION, MemberData, sticky_v1_buffer, user_data_from_spec

__all__ = [
    "AbstractStickyAssignor",
    "RackInfo",
    "balance_score",
    "DEFAULT_GENERATION",
]

EMPTY: FrozenSet[str] = frozenset()
_TOPIC = itemgetter(0)
_PARTITION = itemgetter(1)


def balance_score(sizes: Union[Mapping[str, Union[int, Sized]], Sequence[int]]) -> int:
    """``GeneralAssignmentBuilder.getBalanceScore``: the sum over all member pairs of the difference in
    their partition counts (0 = perfectly even).  ``sizes`` is a mapping member -> partitions (or count)
    or a sequence of counts.  Computed in O(n log n) from the sorted counts; Kafka's int arithmetic wraps.

    Defined in chapter 4, *The sticky assignor*."""
    if isinstance(sizes, dict):
        values = [v if isinstance(v, int) else len(v) for v in sizes.values()]
    else:
        values = [v if isinstance(v, int) else len(v) for v in sizes]
    values.sort()
    n = len(values)
    total = 0
    for i, v in enumerate(values):
        total += v * (2 * i - (n - 1))
    total &= 0xFFFFFFFF
    return total - (1 << 32) if total & 0x80000000 else total


class RackInfo:
    """``AbstractStickyAssignor.RackInfo``: consumer racks, partition racks, and whether rack matching is on.

    ``consumer_racks``/``partition_racks`` are empty unless ``useRackAwareAssignment`` says yes: some member
    has a (non-empty) rack that some partition has a replica on, and either the test hook
    ``preferRackAwareLogic`` is set or not every partition has replicas on every rack.
    ``num_consumers_by_partition`` is filled whenever some member has a rack (as in Kafka, even when rack
    matching ends up off); it orders the constrained path's unassigned partitions.
    """

    def __init__(self, partitions_per_topic: Dict[str, int], partition_racks_in: Dict[str, List[FrozenSet[str]]],
                 subscriptions: Sequence[Tuple[str, Subscription]], prefer_rack_aware_logic: bool):
        consumers_by_rack: Dict[str, List[str]] = {}
        for member, sub in subscriptions:
            if sub.rack_id:
                consumers_by_rack.setdefault(sub.rack_id, []).append(member)
        partition_racks: Dict[TopicPartition, FrozenSet[str]] = {}
        all_partition_racks: Set[str] = set()
        if consumers_by_rack:
            for topic, count in partitions_per_topic.items():
                racks_of = partition_racks_in.get(topic)
                for p in range(count):
                    racks = racks_of[p] if racks_of is not None and p < len(racks_of) else EMPTY
                    partition_racks[(topic, p)] = racks
                    all_partition_racks.update(racks)
        use = use_rack_aware_assignment(set(consumers_by_rack), all_partition_racks, partition_racks.values(),
                                        prefer_rack_aware_logic)
        self.use_rack_aware = use
        if use:
            self.consumer_racks: Dict[str, str] = {m: rack for rack, ms in consumers_by_rack.items() for m in ms}
            self.partition_racks: Dict[TopicPartition, FrozenSet[str]] = partition_racks
        else:
            self.consumer_racks = {}
            self.partition_racks = {}
        counts = {rack: len(ms) for rack, ms in consumers_by_rack.items()}
        self.num_consumers_by_partition: Dict[TopicPartition, int] = {
            tp: sum(counts.get(r, 0) for r in racks) for tp, racks in partition_racks.items()}

    def racks_mismatch(self, consumer: str, tp: TopicPartition) -> bool:
        """True if ``consumer`` has a rack and ``tp`` has no replica on it (only when rack matching is on)."""
        rack = self.consumer_racks.get(consumer)
        if rack is None:
            return False
        racks = self.partition_racks.get(tp)
        return racks is None or rack not in racks

    def sort_partitions_by_rack_consumers(self, partitions: List[TopicPartition]) -> List[TopicPartition]:
        """Stable sort by how many consumers share a rack with the partition's replicas (fewest first)."""
        if not self.num_consumers_by_partition:
            return partitions
        counts = self.num_consumers_by_partition
        return sorted(partitions, key=lambda tp: counts.get(tp, 0))

    def next_rack_consumer(self, tp: TopicPartition, consumers: List[str], first_index: int) -> int:
        """Index of the first consumer (circularly from ``first_index``) on one of ``tp``'s racks, or -1."""
        racks = self.partition_racks.get(tp)
        if not racks:
            return -1
        n = len(consumers)
        for i in range(n):
            index = (first_index + i) % n
            rack = self.consumer_racks.get(consumers[index])
            if rack is not None and rack in racks:
                return index
        return -1


class AbstractStickyAssignor(AbstractPartitionAssignor):
    """``org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor`` (Kafka 4.3.1).

    Subclasses define :meth:`member_data` (how a member's owned partitions and generation are read) and
    may post-process the builder's result (:meth:`_finish`).  ``max_generation`` persists across calls.
    """

    NAME = "abstract-sticky"
    #: the general path's builder class: None is Kafka's ``GeneralAssignmentBuilder``; a subclass lets a model of
    #: another client's port (``rebalance.live.librdkafka_sticky``) change one step and keep the rest
    general_builder: Optional[type] = None

    def __init__(self, max_generation: int = DEFAULT_GENERATION, trace: bool = False, *,
                 replay: Optional[ReplayOptions] = None):
        super().__init__(replay=replay)
        self.max_generation = max_generation
        #: record the builder's steps in ``AssignorResult.trace`` (slower; for small teaching examples)
        self.trace = trace
        #: ``partitionsTransferringOwnership`` of the last call (None after the general path)
        self.partitions_transferring_ownership: Optional[Dict[TopicPartition, str]] = {}

    # -- to be provided by subclasses -------------------------------------------------------
    def member_data(self, subscription: Subscription, buffer: Optional[ByteBuffer]) -> MemberData:
        raise NotImplementedError

    def _finish(self, result: AssignorResult, subscriptions: Dict[str, Subscription]) -> AssignorResult:
        return result

    # -- the public entry point ------------------------------------------------------------
    def assign(self, scenario: ConsumerScenario) -> AssignorResult:
        """Run one rebalance the way the group leader's assignor does for ``scenario``."""
        if not isinstance(scenario, ConsumerScenario):
            raise InputError("scenario", "must be a ConsumerScenario (see rebalance.consumer.model)")
        if self.replay.initial_max_generation is not None:
            self.max_generation = self.replay.initial_max_generation
        partitions_per_topic = self._partitions_per_topic(scenario)
        order = list(scenario.members)
        if self.replay.subscription_map_type == "java.util.HashMap":
            order = hashmap_order(order)
        subscriptions = {m: scenario.members[m] for m in order}
        buffers = self._buffers(scenario)
        if not subscriptions:
            raise KafkaError("ArithmeticException", "/ by zero")
        return self._assign_partitions(scenario, partitions_per_topic, subscriptions, buffers)

    def _partitions_per_topic(self, scenario: ConsumerScenario) -> Dict[str, int]:
        if self.replay.entry == "assignPartitions":
            return dict(scenario.partitions)
        # AbstractPartitionAssignor.assign(Cluster, ...): only subscribed topics that have partitions
        subscribed = {t for sub in scenario.members.values() for t in sub.topics}
        return {t: n for t, n in scenario.partitions.items() if t in subscribed and n > 0}

    def _buffers(self, scenario: ConsumerScenario) -> Dict[str, Optional[ByteBuffer]]:
        buffers: Dict[str, Optional[ByteBuffer]] = {}
        for i, (member, sub) in enumerate(scenario.members.items()):
            if sub.user_data is not None:
                buffers[member] = ByteBuffer(sub.user_data, 0)
                continue
            spec = self.replay.user_data_specs.get(member)  # the vectors' userData; none otherwise
            if spec == "auto" and self.NAME == "sticky" and (sub.generation_id is not None or sub.owned_partitions):
                # what user_data_from_spec encodes here, with the bytes made only if they are read as bytes
                generation = DEFAULT_GENERATION if sub.generation_id is None else sub.generation_id
                buffers[member] = sticky_v1_buffer(sub.owned_partitions, generation)
                continue
            data, position = user_data_from_spec(spec, self.NAME, sub.owned_partitions, sub.generation_id,
                                                 field=f"members[{i}].userData")
            buffers[member] = None if data is None else ByteBuffer(data, position)
        return buffers

    def _assign_partitions(self, scenario: ConsumerScenario, partitions_per_topic: Dict[str, int],
                           subscriptions: Dict[str, Subscription],
                           buffers: Dict[str, Optional[ByteBuffer]]) -> AssignorResult:
        from .sticky_constrained import ConstrainedAssignmentBuilder
        from .sticky_general import GeneralAssignmentBuilder

        rack_info = RackInfo(partitions_per_topic, scenario.partition_racks, list(subscriptions.items()),
                             self.replay.prefer_rack_aware_logic)
        owned: Dict[str, List[TopicPartition]] = {}
        multiple: Set[TopicPartition] = set()
        equal = self._all_subscriptions_equal(partitions_per_topic, subscriptions, buffers, owned, multiple)
        owned_copy = {m: list(v) for m, v in owned.items()}
        trace: Optional[List[Dict[str, Any]]] = [] if self.trace else None
        if equal:
            self.partitions_transferring_ownership = {}
            builder = ConstrainedAssignmentBuilder(partitions_per_topic, rack_info, owned, multiple,
                                                   self.partitions_transferring_ownership, trace)
            assignment = builder.build()
            movements: Dict[TopicPartition, Tuple[str, str]] = {}
            path = "constrained"
        else:
            self.partitions_transferring_ownership = None
            general = self.general_builder or GeneralAssignmentBuilder
            builder = general(self, partitions_per_topic, rack_info, owned, subscriptions, buffers, trace)
            assignment = builder.build()
            movements = builder.movements.snapshot()
            path = "general"
        ordered = {m: assignment.get(m, []) for m in scenario.members}
        result = AssignorResult(
            assignment=ordered,
            rack_aware=rack_info.use_rack_aware,
            partitions_transferring_ownership=(None if self.partitions_transferring_ownership is None
                                               else dict(self.partitions_transferring_ownership)),
            path=path,
            max_generation=self.max_generation,
            owned=owned_copy,
            partitions_with_multiple_previous_owners=set(multiple),
            movements=movements,
            trace=trace,
        )
        return self._finish(result, subscriptions)

    def _all_subscriptions_equal(self, partitions_per_topic: Dict[str, int], subscriptions: Dict[str, Subscription],
                                 buffers: Dict[str, Optional[ByteBuffer]], owned: Dict[str, List[TopicPartition]],
                                 multiple: Set[TopicPartition]) -> bool:
        """``allSubscriptionsEqual``: also fills ``owned`` (each member's still-valid owned partitions) and
        ``multiple`` (partitions claimed by two members of the same generation)."""
        equal = True
        subscribed: Set[str] = set()
        previous_owner: Dict[TopicPartition, str] = {}
        for member, sub in subscriptions.items():
            if not subscribed:
                subscribed.update(sub.topics)
            elif equal and not (len(sub.topics) == len(subscribed) and subscribed.issuperset(sub.topics)):
                equal = False
            data = self.member_data(sub, buffers.get(member))
            generation = DEFAULT_GENERATION if data.generation is None else data.generation
            self.max_generation = max(self.max_generation, generation)
            mine: List[TopicPartition] = []
            owned[member] = mine
            claimed = data.partitions
            if (previous_owner.keys().isdisjoint(claimed) and len(set(claimed)) == len(claimed)
                    and partitions_per_topic.keys() >= set(map(_TOPIC, claimed))):
                # the common case, settled in bulk: no partition claimed twice, every topic known
                mine.extend(claimed)
                previous_owner.update(dict.fromkeys(claimed, member))
                continue
            for tp in claimed:
                if tp[0] not in partitions_per_topic:
                    continue
                other = previous_owner.get(tp)
                if other is None:
                    mine.append(tp)
                    previous_owner[tp] = member
                    continue
                other_generation = subscriptions[other].generation_id
                if other_generation is None:
                    other_generation = DEFAULT_GENERATION
                if generation == other_generation:
                    multiple.add(tp)
                    _remove_first(owned[other], tp)
                    previous_owner[tp] = member
                elif generation > other_generation:
                    mine.append(tp)
                    _remove_first(owned[other], tp)
                    previous_owner[tp] = member
        return equal


def all_partitions(topics: Sequence[str], counts: Mapping[str, int]) -> List[TopicPartition]:
    """Every partition of ``topics``, topic after topic in that order, each topic's in partition order (the
    builders' ``sortedAllPartitions`` / ``getAllTopicPartitions``).  Topics of the same count share one tuple
    of partition numbers, so a million partitions are a million ``(topic, partition)`` tuples and not also a
    million ``int`` objects (CPython caches only -5..256): about a quarter less time at Kafka's scale."""
    numbers: Dict[int, Tuple[int, ...]] = {}
    everything: List[TopicPartition] = []
    for t in topics:
        count = counts[t]
        shared = numbers.get(count)
        if shared is None:
            shared = numbers[count] = tuple(range(count))
        everything.extend(zip(repeat(t, count), shared))
    return everything


def partitions_left(everything: List[TopicPartition],
                    assigned: List[TopicPartition]) -> Optional[List[TopicPartition]]:
    """What the two-pointer walk of ``getUnassignedPartitions`` (``AbstractStickyAssignor``'s constrained and
    general builders, Kafka 4.3.1) over ``everything`` (all partitions, in the builder's order) and the ``assigned`` ones (sorted the same way) leaves, computed as a set difference --
    or ``None`` when the walk is not a plain difference: ``assigned`` holds a partition twice or one that is
    not in ``everything`` (the walk then stops matching and every later partition counts as unassigned,
    which only the walk itself reproduces)."""
    taken = set(assigned)
    if len(taken) != len(assigned):
        return None
    result = list(filterfalse(taken.__contains__, everything))
    if len(result) != len(everything) - len(taken):
        return None
    return result


def partitions_left_by_number(topics: Sequence[str], counts: Mapping[str, int],
                              assigned: List[TopicPartition]) -> Optional[List[TopicPartition]]:
    """:func:`partitions_left` for ``everything`` = :func:`all_partitions` ``(topics, counts)``, without
    building or hashing a tuple per partition: each partition is numbered by its place in that layout (its
    topic's offset + its partition), the ``assigned`` numbers go into a set of ints, and only the partitions
    left become tuples again.  ``None`` exactly when :func:`partitions_left` gives ``None`` (a partition
    assigned twice, or one of a topic not in ``topics`` or out of its range) or an entry is not a
    ``(topic, partition)`` pair.  At Kafka's scale (a million partitions, nearly all kept) it takes about half
    the time of the tuple set difference."""
    offset: Dict[str, int] = {}
    total = 0
    for t in topics:
        offset[t] = total
        total += counts[t]
    try:
        names = list(map(_TOPIC, assigned))
        numbers = list(map(_PARTITION, assigned))
        starts = list(map(offset.__getitem__, names))
        if min(numbers, default=0) < 0 or not all(map(lt, numbers, map(counts.__getitem__, names))):
            return None
        taken = set(map(add, starts, numbers))
    except (KeyError, TypeError, IndexError):
        return None
    if len(taken) != len(assigned):
        return None
    left = list(filterfalse(taken.__contains__, range(total)))
    result: List[TopicPartition] = []
    lo = 0
    for t in topics:  # the numbers left of each topic are one run of the ascending list
        start = offset[t]
        hi = bisect_left(left, start + counts[t], lo)
        if hi > lo:
            result.extend(zip(repeat(t), map(subtract, left[lo:hi], repeat(start))))
        lo = hi
    return result


def unassigned_partitions(everything: List[TopicPartition], assigned: List[TopicPartition],
                          order: Callable[[TopicPartition], Tuple[Union[bytes, int], int]]) -> List[TopicPartition]:
    """``getUnassignedPartitions`` of ``AbstractStickyAssignor``'s constrained and general builders (Kafka
    4.3.1): ``everything`` (all partitions, in the builder's order) minus ``assigned``, by Kafka's
    two-pointer walk over ``assigned`` sorted by ``order`` (the same order as ``everything``; sorted in
    place) -- a plain set difference (:func:`partitions_left`) whenever the walk is one."""
    if not assigned:
        return everything
    fast = partitions_left(everything, assigned)
    if fast is not None:
        return fast
    assigned.sort(key=order)
    result: List[TopicPartition] = []
    it = iter(assigned)
    nxt = next(it)
    add_directly = False
    for tp in everything:
        if add_directly or nxt != tp:
            result.append(tp)
        else:
            try:
                nxt = next(it)
            except StopIteration:
                add_directly = True
    return result


def _remove_first(items: List[TopicPartition], value: TopicPartition) -> None:
    """``List.remove(Object)``: drop the first occurrence if there is one."""
    try:
        items.remove(value)
    except ValueError:
        pass
