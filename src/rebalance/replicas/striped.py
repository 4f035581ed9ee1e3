"""The KRaft controller's replica placement: ``org.apache.kafka.metadata.placement.StripedReplicaPlacer``.

Mirrors ``metadata/.../placement/StripedReplicaPlacer.java`` of Kafka 4.3.1 (the placer arrived with
KRaft in 2.8 and has kept this algorithm since 3.0; 3.9.2 differs only in two error messages), including its use of ``java.util.Random``, so that a
seeded run gives the controller's exact placements.

Structure (names as in Kafka):

* :class:`BrokerList` -- a sorted list of broker ids with a random start ``offset``; ``next(epoch)`` walks
  it once per *epoch*, and a new epoch moves the offset on by one;
* :class:`Rack` -- two broker lists, ``unfenced`` (used first) and ``fenced`` (only when a rack's unfenced
  brokers are exhausted in the current epoch);
* :class:`RackList` -- built afresh by every ``place()`` call from ``ClusterDescriber.usableBrokers()``:
  the racks (``Optional<String>``; ``None`` is ``Optional.empty()``) sorted with the empty rack first, a
  random rack offset, and one ``place(replicationFactor)`` per partition.  Each partition starts one rack
  further on (the "stripes"); the leader is always an unfenced broker; after as many partitions as there
  are unfenced brokers the rack names and the broker lists are shuffled (``Collections.shuffle``) and the
  epoch restarts.

Random draws, in Kafka's order (they decide every result):

1. ``new RackList``: for each rack **in ``HashMap<Optional<String>, Rack>`` iteration order** (vectors
   README, surprise 6: ``Optional.hashCode`` is the rack name's ``String.hashCode``, 0 for no rack), the
   fenced list then the unfenced list draw ``nextInt(size)`` if non-empty; then the rack offset
   ``nextInt(#racks)``.  This happens before the placement is validated, so a failing placement still
   consumes random numbers.
2. At each reshuffle: ``Collections.shuffle`` of the sorted rack names, then, rack by rack in the same
   ``HashMap`` order, of the fenced and the unfenced broker list.

Errors (all ``InvalidReplicationFactorException``, checked in this order by ``place``): a replication
factor <= 0; no unfenced broker; more replicas than brokers.  The messages are Kafka 4.3.1's, which also name
cordoned log directories; 3.9.2's ended at "fenced." and "registered." (``kafka-vectors/releases.json``).
"""
from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from ..errors import KafkaError
from ..java import JavaHashOrder, java_string_key, string_hash
from .brokers import Broker  # noqa: F401 (re-exported)
from .java_random import JavaRandom, make_random, shuffle
from .placement import ClusterDescriber, PlacementSpec, TopicAssignment, placement_spec, usable_brokers

INVALID_REPLICATION_FACTOR = "org.apache.kafka.common.errors.InvalidReplicationFactorException"


def optional_hash(rack: Optional[str]) -> int:
    """``Optional<String>.hashCode()``: the string's hash code, or 0 for ``Optional.empty()``."""
    return 0 if rack is None else string_hash(rack)


def optional_string_key(rack: Optional[str]) -> Tuple[int, Union[str, bytes]]:
    """Sort key of ``OptionalStringComparator``: empty first, then ``String.compareTo``."""
    return (0, "") if rack is None else (1, java_string_key(rack))


def _non_positive(replication_factor: int) -> None:
    if replication_factor <= 0:
        raise KafkaError(INVALID_REPLICATION_FACTOR, f"Invalid replication factor {replication_factor}: "
                                                     "the replication factor must be positive.")


def _all_fenced(num_unfenced: int) -> None:
    if num_unfenced == 0:
        raise KafkaError(INVALID_REPLICATION_FACTOR, "All brokers are currently fenced, or have all their log "
                                                     "directories cordoned.")


def _too_few(replication_factor: int, num_total: int) -> None:
    if replication_factor > num_total:
        raise KafkaError(INVALID_REPLICATION_FACTOR, f"The target replication factor of {replication_factor} "
                                                     f"cannot be reached because only {num_total} broker(s) "
                                                     "are registered or some brokers have all their log "
                                                     "directories cordoned.")


class BrokerList:
    """``StripedReplicaPlacer.BrokerList``: brokers walked once per epoch from a moving offset."""

    __slots__ = ("brokers", "index", "offset", "epoch")

    def __init__(self, brokers: Iterable[int] = ()):
        self.brokers: List[int] = list(brokers)
        self.index = 0
        self.offset = 0
        self.epoch = 0

    def add(self, broker: int) -> "BrokerList":
        self.brokers.append(broker)
        return self

    def initialize(self, random: JavaRandom) -> None:
        """Sort the ids and draw the start offset (no draw for an empty list)."""
        if self.brokers:
            self.brokers.sort()
            self.offset = random.next_int(len(self.brokers))

    def shuffle(self, random: JavaRandom) -> None:
        shuffle(self.brokers, random)

    def __len__(self) -> int:
        return len(self.brokers)

    def next(self, epoch: int) -> int:
        """The next broker of this epoch, or -1 once every broker has been returned in it."""
        brokers = self.brokers
        if not brokers:
            return -1
        if self.epoch != epoch:
            self.epoch = epoch
            self.index = 0
            self.offset = (self.offset + 1) % len(brokers)
        if self.index >= len(brokers):
            return -1
        broker = brokers[(self.index + self.offset) % len(brokers)]
        self.index += 1
        return broker


class Rack:
    """``StripedReplicaPlacer.Rack``: unfenced brokers first, fenced ones only as a last resort."""

    __slots__ = ("fenced", "unfenced")

    def __init__(self) -> None:
        self.fenced = BrokerList()
        self.unfenced = BrokerList()

    def initialize(self, random: JavaRandom) -> None:
        self.fenced.initialize(random)
        self.unfenced.initialize(random)

    def shuffle(self, random: JavaRandom) -> None:
        self.fenced.shuffle(random)
        self.unfenced.shuffle(random)

    def next_unfenced(self, epoch: int) -> int:
        return self.unfenced.next(epoch)

    def next(self, epoch: int) -> int:
        result = self.unfenced.next(epoch)
        return result if result >= 0 else self.fenced.next(epoch)


class RackList:
    """``StripedReplicaPlacer.RackList``: the racks of one ``place()`` call and its striping state.

    ``brokers`` is the ``usableBrokers()`` iteration order (it decides the ``HashMap`` insertion order of
    racks, hence the order of the random draws)."""

    def __init__(self, random: JavaRandom, brokers: Iterable[Broker]):
        self.random = random
        self.racks: Dict[Optional[str], Rack] = {}
        self.rack_names: List[Optional[str]] = []
        order = JavaHashOrder(optional_hash)
        total = unfenced = 0
        for b in brokers:
            rack = self.racks.get(b.rack)
            if rack is None:
                self.rack_names.append(b.rack)
                rack = self.racks[b.rack] = Rack()
                order.put(b.rack)
            if b.fenced:
                rack.fenced.add(b.id)
            else:
                unfenced += 1
                rack.unfenced.add(b.id)
            total += 1
        #: the racks in java.util.HashMap iteration order (Kafka iterates racks.values())
        self.hash_order: List[Optional[str]] = order.keys()
        for name in self.hash_order:
            self.racks[name].initialize(random)
        self.rack_names.sort(key=optional_string_key)
        self.num_total_brokers = total
        self.num_unfenced_brokers = unfenced
        self.epoch = 0
        self.offset = random.next_int(len(self.rack_names)) if self.rack_names else 0

    def place(self, replication_factor: int) -> List[int]:
        """``RackList.place``: the replicas of the next partition, leader first."""
        _non_positive(replication_factor)
        _too_few(replication_factor, self.num_total_brokers)
        _all_fenced(self.num_unfenced_brokers)
        if self.epoch == self.num_unfenced_brokers and self.num_unfenced_brokers > 1:
            self.shuffle()
            self.epoch = 0
        if self.offset == len(self.rack_names):
            self.offset = 0
        names, racks, epoch = self.rack_names, self.racks, self.epoch
        n = len(names)
        brokers: List[int] = []
        first_rack_index = self.offset
        while True:  # the leader: the first unfenced broker found from the offset on
            result = racks[names[first_rack_index]].next_unfenced(epoch)
            if result >= 0:
                brokers.append(result)
                break
            first_rack_index += 1
            if first_rack_index == n:
                first_rack_index = 0
        rack_index = self.offset
        for _replica in range(1, replication_factor):
            result = -1
            while True:
                if rack_index == first_rack_index:
                    first_rack_index = -1  # the leader's rack is skipped once
                else:
                    result = racks[names[rack_index]].next(epoch)
                rack_index += 1
                if rack_index == n:
                    rack_index = 0
                if result >= 0:
                    break
            brokers.append(result)
        self.epoch += 1
        self.offset += 1
        return brokers

    def shuffle(self) -> None:
        shuffle(self.rack_names, self.random)
        for name in self.hash_order:
            self.racks[name].shuffle(self.random)


class StripedReplicaPlacer:
    """``StripedReplicaPlacer`` (Kafka 4.3.1), a :class:`~rebalance.replicas.placer.ReplicaPlacer`: one
    instance (and one random stream) serves every ``place`` call, as in the controller.

    >>> placer = StripedReplicaPlacer(seed=17, random="MockRandom")
    >>> placer.place(PlacementSpec(0, 5, 3), [0, 3, 2, 1]).replica_lists()     # Kafka's testSuccessfulPlacement
    [[2, 3, 0], [3, 0, 1], [0, 1, 2], [1, 2, 3], [1, 0, 2]]

    Defined in chapter 12, *Placing replicas*."""

    #: the registry name (:data:`rebalance.replicas.placer.PLACERS`)
    NAME = "StripedReplicaPlacer"

    def name(self) -> str:
        """The registry name, :attr:`NAME` (the package's one convention: a ``NAME`` constant on the class and a
        ``name()`` method, as Kafka's assignors have ``String name()``)."""
        return self.NAME

    def __init__(self, random: Union[JavaRandom, str] = "java.util.Random", seed: Optional[int] = None):
        self.random = random if isinstance(random, JavaRandom) else make_random(random, seed)

    def place(self, placement: Union[PlacementSpec, Dict[str, Any]], cluster: Union[ClusterDescriber, Iterable[Any]]
              ) -> TopicAssignment:
        """``ReplicaPlacer.place(placement, cluster)``: the replica list of each partition.

        ``placement`` is a :class:`~.placement.PlacementSpec` (or its dict form); ``cluster`` a
        :class:`~.placement.ClusterDescriber` or ``cluster.usableBrokers()`` in iteration order:
        :class:`~.brokers.Broker` objects, ``{"id", "rack", "fenced"}`` dicts, ``(id, rack, fenced)`` tuples or
        bare ids.  Raises :class:`~rebalance.errors.KafkaError` (``InvalidReplicationFactorException``) where
        Kafka throws."""
        spec = placement_spec(placement)
        parsed = usable_brokers(cluster)
        rack_list = RackList(self.random, parsed)  # draws random numbers even if the checks below fail
        _non_positive(spec.num_replicas)
        _all_fenced(rack_list.num_unfenced_brokers)
        _too_few(spec.num_replicas, rack_list.num_total_brokers)
        return TopicAssignment.of((rack_list.place(spec.num_replicas) for _ in range(spec.num_partitions)),
                                  spec.start_partition)


def place(brokers: Sequence[Any], num_partitions: int, replication_factor: int, *, seed: Optional[int] = None,
          random: Union[JavaRandom, str] = "java.util.Random") -> List[List[int]]:
    """One placement with a fresh placer: ``StripedReplicaPlacer(new Random(seed)).place(...)``, as replica
    lists in partition order."""
    return StripedReplicaPlacer(random, seed).place(PlacementSpec(0, num_partitions, replication_factor),
                                                    brokers).replica_lists()
