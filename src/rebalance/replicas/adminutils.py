"""Replica placement at topic creation: ``org.apache.kafka.admin.AdminUtils.assignReplicasToBrokers``.

Mirrors ``server-common/.../admin/AdminUtils.java`` of Kafka 3.9.2 and 4.0 (the same source; 4.0 kept it only
for ``kafka-reassign-partitions --generate``, and it is gone from 4.1; the Scala ``kafka.admin.AdminUtils`` of
earlier releases computes the same thing).  Up to 3.9, ZooKeeper-mode brokers and the admin tools use it
when a topic is created or partitions are added; KRaft controllers use :mod:`rebalance.replicas.striped`
instead.

Rack-unaware (no broker has a rack): the brokers keep the given order (Kafka's callers sort them by id).
Partition ``p``'s leader is ``brokers[(p + startIndex) % n]``; its followers are taken at an *increasing
shift* from the leader, ``1 + (nextReplicaShift + j) % (n - 1)`` positions further on, and
``nextReplicaShift`` grows by one each time ``p`` completes a lap of the broker list (``p % n == 0``), so
later laps do not repeat the same replica sets.

Rack-aware (every broker has a rack): the same walk runs over the *rack-alternated* broker list (one broker
of each rack in turn, racks in ``String.compareTo`` order, brokers of a rack by id), with the shift
multiplied by the number of racks; a candidate follower is skipped while its rack already holds a replica
and some rack holds none, or while it already holds a replica and some broker holds none.

Where Kafka throws, :class:`~rebalance.errors.KafkaError` carries the Java class name (fully qualified, as
the conformance vectors record it) and Kafka's message:

* ``nPartitions == 0`` -> ``InvalidPartitionsException`` (a negative count is refused as bad input, for every
  input shape: Kafka's callers never pass one, ``CreateTopics`` turns ``-1`` into the broker default);
* ``replicationFactor <= 0`` or ``> number of brokers`` -> ``InvalidReplicationFactorException``;
* some brokers with a rack and some without -> ``AdminOperationException``.

``fixedStartIndex < 0`` means "random": Kafka draws ``startIndex`` and then ``nextReplicaShift`` from a
static unseeded ``java.util.Random``; here they come from ``random`` (a :class:`JavaRandom`) or a
``JavaRandom(seed)`` so that a chapter can be reproducible.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ..errors import InputError, KafkaError
from ..java import INT_MAX, java_string_key, to_int32
from .brokers import Broker, check_int, parse_brokers
from .java_random import JavaRandom

INVALID_PARTITIONS = "org.apache.kafka.common.errors.InvalidPartitionsException"
INVALID_REPLICATION_FACTOR = "org.apache.kafka.common.errors.InvalidReplicationFactorException"
ADMIN_OPERATION = "org.apache.kafka.server.common.AdminOperationException"
INDEX_OUT_OF_BOUNDS = "java.lang.IndexOutOfBoundsException"
ARITHMETIC = "java.lang.ArithmeticException"


def _jrem(a: int, b: int) -> int:
    """Java's ``a % b`` for ints (the sign follows the dividend)."""
    if b == 0:
        raise KafkaError(ARITHMETIC, "/ by zero")
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def _get(lst: Sequence[int], index: int) -> int:
    """``ArrayList.get``: a negative index (reachable only through int overflow) throws."""
    if index < 0 or index >= len(lst):
        raise KafkaError(INDEX_OUT_OF_BOUNDS, f"Index {index} out of bounds for length {len(lst)}")
    return lst[index]


def replica_index(first_replica_index: int, second_replica_shift: int, replica_index: int,
                  n_brokers: int) -> int:
    """``AdminUtils.replicaIndex``: position of a follower in the broker list.

    ``shift = 1 + (secondReplicaShift + replicaIndex) % (nBrokers - 1)`` lies in ``1 .. nBrokers-1``, so a
    follower is never placed on the leader's own position.

    >>> replica_index(0, 0, 0, 6), replica_index(0, 0, 1, 6)   # partition 0, six brokers, shift 0
    (1, 2)
    """
    shift = 1 + _jrem(to_int32(second_replica_shift + replica_index), n_brokers - 1)
    return _jrem(first_replica_index + shift, n_brokers)  # long arithmetic in Java, then (int)


def rack_alternated_broker_list(broker_racks: Mapping[int, str]) -> List[int]:
    """``AdminUtils.getRackAlternatedBrokerList``: take one broker from each rack in turn.

    Racks are visited in ``String.compareTo`` order, the brokers of a rack in ascending id; a rack that
    has run out of brokers is skipped.

    >>> rack_alternated_broker_list({0: "rack1", 1: "rack3", 2: "rack3", 3: "rack2", 4: "rack2", 5: "rack1"})
    [0, 3, 1, 5, 4, 2]
    """
    by_rack: Dict[str, List[int]] = {}
    for broker, rack in broker_racks.items():
        by_rack.setdefault(rack, []).append(broker)
    racks = sorted(by_rack, key=java_string_key)
    queues = [sorted(by_rack[r]) for r in racks]
    result: List[int] = []
    depth = 0
    while len(result) < len(broker_racks):
        for q in queues:
            if depth < len(q):
                result.append(q[depth])
        depth += 1
    return result


@dataclass
class Candidate:
    """One follower candidate examined by the rack-aware walk (for explanations)."""

    k: int
    index: int
    broker: int
    rack: Optional[str]
    accepted: bool
    reason: str = ""


@dataclass
class PartitionTrace:
    """How one partition's replicas were chosen."""

    partition: int
    first_replica_index: int
    next_replica_shift: int
    replicas: List[int]
    candidates: List[Candidate] = field(default_factory=list)


def _start_values(n: int, fixed_start_index: int, random: Optional[JavaRandom], seed: Optional[int]
                  ) -> Tuple[int, int]:
    if fixed_start_index >= 0:
        return fixed_start_index, fixed_start_index
    rnd = random if random is not None else JavaRandom(seed)
    start_index = rnd.next_int(n)
    next_replica_shift = rnd.next_int(n)
    return start_index, next_replica_shift


def _rack_unaware(n_partitions: int, replication_factor: int, broker_list: List[int], fixed_start_index: int,
                  start_partition_id: int, random: Optional[JavaRandom], seed: Optional[int],
                  trace: Optional[List[PartitionTrace]]) -> Dict[int, List[int]]:
    n = len(broker_list)
    start_index, next_replica_shift = _start_values(n, fixed_start_index, random, seed)
    current = max(0, start_partition_id)
    ret: Dict[int, List[int]] = {}
    plain = n > 1 and current + n_partitions + start_index <= INT_MAX \
        and next_replica_shift + n_partitions // n + replication_factor + 2 <= INT_MAX
    for _ in range(n_partitions):
        if current > 0 and current % n == 0:
            next_replica_shift = to_int32(next_replica_shift + 1)
        if plain:  # no Java int overflow possible: plain Python arithmetic is exact
            first = (current + start_index) % n
            replicas = [broker_list[first]]
            m = n - 1
            for j in range(replication_factor - 1):
                replicas.append(broker_list[(first + 1 + (next_replica_shift + j) % m) % n])
        else:
            first = _jrem(to_int32(current + start_index), n)
            replicas = [_get(broker_list, first)]
            for j in range(replication_factor - 1):
                replicas.append(_get(broker_list, replica_index(first, next_replica_shift, j, n)))
        ret[current] = replicas
        if trace is not None:
            trace.append(PartitionTrace(current, first, next_replica_shift, replicas))
        current = to_int32(current + 1)
    return ret


def _rack_aware(n_partitions: int, replication_factor: int, brokers: List[Broker], fixed_start_index: int,
                start_partition_id: int, random: Optional[JavaRandom], seed: Optional[int],
                trace: Optional[List[PartitionTrace]]) -> Dict[int, List[int]]:
    broker_rack: Dict[int, str] = {}
    for b in brokers:
        if b.rack is None:
            raise KafkaError(ADMIN_OPERATION,
                             "Not all brokers have rack information for replica rack aware assignment.")
        broker_rack[b.id] = b.rack
    num_racks = len(set(broker_rack.values()))
    arranged = rack_alternated_broker_list(broker_rack)
    num_brokers = len(arranged)
    start_index, next_replica_shift = _start_values(num_brokers, fixed_start_index, random, seed)
    current = max(0, start_partition_id)
    ret: Dict[int, List[int]] = {}
    for _ in range(n_partitions):
        if current > 0 and current % num_brokers == 0:
            next_replica_shift = to_int32(next_replica_shift + 1)
        first = _jrem(to_int32(current + start_index), num_brokers)
        leader = _get(arranged, first)
        replicas = [leader]
        racks_with_replicas = {broker_rack[leader]}
        brokers_with_replicas = {leader}
        shift = to_int32(next_replica_shift * num_racks)
        candidates: List[Candidate] = []
        k = 0
        for _j in range(replication_factor - 1):
            while True:
                index = replica_index(first, shift, k, num_brokers)
                broker = _get(arranged, index)
                rack = broker_rack[broker]
                rack_ok = rack not in racks_with_replicas or len(racks_with_replicas) == num_racks
                broker_ok = broker not in brokers_with_replicas or len(brokers_with_replicas) == num_brokers
                if trace is not None:
                    reason = "" if rack_ok and broker_ok else (
                        f"rack {rack} already has a replica" if not rack_ok else "broker already has a replica")
                    candidates.append(Candidate(k, index, broker, rack, rack_ok and broker_ok, reason))
                k += 1
                if rack_ok and broker_ok:
                    replicas.append(broker)
                    racks_with_replicas.add(rack)
                    brokers_with_replicas.add(broker)
                    break
        ret[current] = replicas
        if trace is not None:
            trace.append(PartitionTrace(current, first, next_replica_shift, replicas, candidates))
        current = to_int32(current + 1)
    return ret


def assign_replicas_to_brokers(brokers: Iterable[Any], n_partitions: int, replication_factor: int,
                               fixed_start_index: int = -1, start_partition_id: int = -1, *,
                               random: Optional[JavaRandom] = None, seed: Optional[int] = None,
                               trace: Optional[List[PartitionTrace]] = None) -> Dict[int, List[int]]:
    """``AdminUtils.assignReplicasToBrokers(brokerMetadatas, nPartitions, replicationFactor,
    fixedStartIndex, startPartitionId)`` of Kafka 3.9.2 and 4.0.

    ``brokers``: broker ids, ``(id, rack)`` pairs, ``{"id", "rack"}`` dicts or :class:`Broker` objects.
    Returns ``{partition id: [replica broker ids, leader first]}`` in ascending partition id, the ids
    starting at ``max(0, start_partition_id)``.  With ``fixed_start_index < 0`` the start index and the
    first shift are drawn from ``random`` (or ``JavaRandom(seed)``; unseeded if both are ``None``, like
    Kafka's static ``RAND``).  Pass a list as ``trace`` to receive one :class:`PartitionTrace` per partition.

    >>> assign_replicas_to_brokers([0, 1, 2, 3, 4], 3, 3, fixed_start_index=0)
    {0: [0, 1, 2], 1: [1, 2, 3], 2: [2, 3, 4]}

    Defined in chapter 12, *Placing replicas*."""
    parsed = parse_brokers(brokers)
    n_partitions = check_int(n_partitions, "partitions")
    replication_factor = check_int(replication_factor, "replicationFactor")
    fixed_start_index = check_int(fixed_start_index, "fixedStartIndex")
    start_partition_id = check_int(start_partition_id, "startPartitionId")
    if n_partitions < 0:
        # Kafka's callers never pass one (CreateTopics turns -1 into the broker default first): bad input
        raise InputError("partitions", f"must not be negative, got {n_partitions}")
    if n_partitions <= 0:
        raise KafkaError(INVALID_PARTITIONS, "Number of partitions must be larger than 0.")
    if replication_factor <= 0:
        raise KafkaError(INVALID_REPLICATION_FACTOR, "Replication factor must be larger than 0.")
    if replication_factor > len(parsed):
        raise KafkaError(INVALID_REPLICATION_FACTOR, f"Replication factor: {replication_factor} larger than "
                                                     f"available brokers: {len(parsed)}.")
    if all(b.rack is None for b in parsed):
        return _rack_unaware(n_partitions, replication_factor, [b.id for b in parsed], fixed_start_index,
                             start_partition_id, random, seed, trace)
    return _rack_aware(n_partitions, replication_factor, parsed, fixed_start_index, start_partition_id,
                       random, seed, trace)


def add_partitions(brokers: Iterable[Any], existing_assignment: Mapping[int, Sequence[int]],
                   num_partitions: int, topic: str = "topic") -> Dict[int, List[int]]:
    """The replicas Kafka gives the partitions added to a topic: ``AdminZkClient.createNewPartitionsAssignment``
    without a manual assignment (``core/src/main/scala/kafka/zk/AdminZkClient.scala`` lines 253-283 at
    commit 1eb7644, trunk before 4.0; ZooKeeper mode, removed in 4.0; ``ZkAdminManager.createPartitions``
    calls it with ``getBrokerMetadatas()``, which sorts the brokers by id, line 88 at that commit).

    Kafka does not remember the start index or the shift the topic was created with.  It takes
    ``startIndex = max(0, position in the id-sorted broker list of the first broker whose id >= partition
    0's leader)`` (line 276) and calls ``assignReplicasToBrokers(allBrokers, partitionsToAdd,
    replicationFactor of partition 0, startIndex, existingAssignment.size)``, so that index serves as both
    the start index and the initial shift (``AdminUtils.java`` lines 144-146 and 172-174), and on the
    rack-aware path it indexes the *rack-alternated* list although it was computed on the id-sorted one.
    The new partitions therefore continue the original placement only when the topic was created with a
    start index equal to that position and a shift equal to it (for example ``fixed_start_index=0`` with
    partition 0 led by the lowest id).

    ``brokers`` is sorted by id here, as Kafka's callers do.  Returns ``{partition id: replicas}`` for the
    new partitions only.  Errors as Kafka's: no partition 0 -> ``AdminOperationException``; no increase ->
    ``InvalidPartitionsException``.

    >>> add_partitions([0, 1, 2, 3], {0: [2, 3], 1: [3, 0]}, 3)
    {2: [0, 3]}
    """
    parsed = sorted(parse_brokers(brokers), key=lambda b: b.id)
    num_partitions = check_int(num_partitions, "numPartitions")
    if not isinstance(existing_assignment, Mapping):
        raise InputError("existingAssignment", f"must map partition ids to replica lists, got {existing_assignment!r}")
    if 0 not in existing_assignment:
        raise KafkaError(ADMIN_OPERATION, f"Unexpected existing replica assignment for topic '{topic}', partition "
                                          f"id 0 is missing. Assignment: {dict(existing_assignment)}")
    partition0 = list(existing_assignment[0])
    if not partition0:
        raise InputError("existingAssignment[0]", "must list at least one replica")
    partitions_to_add = num_partitions - len(existing_assignment)
    if partitions_to_add <= 0:
        raise KafkaError(INVALID_PARTITIONS, "The number of partitions for a topic can only be increased. "
                                             f"Topic {topic} currently has {len(existing_assignment)} partitions, "
                                             f"{num_partitions} would not be an increase.")
    start_index = next((i for i, b in enumerate(parsed) if b.id >= partition0[0]), 0)
    return assign_replicas_to_brokers(parsed, partitions_to_add, len(partition0), start_index,
                                      len(existing_assignment))


def is_rack_aware(brokers: Iterable[Any]) -> bool:
    """Whether ``assignReplicasToBrokers`` takes the rack-aware path (some broker has a rack)."""
    return any(b.rack is not None for b in parse_brokers(brokers))


def explain(brokers: Iterable[Any], n_partitions: int, replication_factor: int, fixed_start_index: int = 0,
            start_partition_id: int = -1, *, seed: Optional[int] = None) -> List[PartitionTrace]:
    """The placement with its reasoning: one :class:`PartitionTrace` per partition (leader index, shift,
    and, on the rack-aware path, every follower candidate with why it was skipped)."""
    trace: List[PartitionTrace] = []
    assign_replicas_to_brokers(brokers, n_partitions, replication_factor, fixed_start_index,
                               start_partition_id, seed=seed, trace=trace)
    return trace
