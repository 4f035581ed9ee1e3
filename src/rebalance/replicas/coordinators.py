"""From replica placement to group coordinators.

A consumer group's coordinator is the broker that leads one partition of ``__consumer_offsets``
(``offsets.topic.num.partitions``, default 50; ``offsets.topic.replication.factor``, default 3).  The
partition comes from the group id alone, ``Utils.abs(groupId.hashCode()) % numPartitions``
(``GroupCoordinatorService.partitionFor``, Kafka 4.3.1); the broker comes from wherever the replica placer
put that partition's leader when the offsets topic was created:

* ZooKeeper mode: ``AdminZkClient.createTopic`` -> ``AdminUtils.assignReplicasToBrokers(brokers, 50, 3)``
  with a random start (``fixedStartIndex = -1``);
* KRaft: the auto-created topic goes through ``CreateTopics`` to the controller's
  ``StripedReplicaPlacer``.

At creation the leader is the first replica (the preferred leader), which is what these helpers use.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Dict, Iterable, List, Optional

from ..java import string_hash
from ..validation import require
# one implementation of ``GroupCoordinatorService.partitionFor`` (validation and errors included) for the
# whole package; the name ``offsets_partition_for`` is kept for this module's callers
from ..protocol.coordinator import OFFSETS_TOPIC_PARTITIONS_DEFAULT, partition_for as offsets_partition_for
from .java_random import JavaRandom
from .measures import Assignment, as_mapping
from .placement import PlacementSpec
from .placer import placer_for

OFFSETS_TOPIC = "__consumer_offsets"
OFFSETS_TOPIC_PARTITIONS = OFFSETS_TOPIC_PARTITIONS_DEFAULT
OFFSETS_TOPIC_REPLICATION_FACTOR = 3


def place_offsets_topic(brokers: Iterable[Any], placer: str = "AdminUtils", *, seed: int = 0,
                        num_partitions: int = OFFSETS_TOPIC_PARTITIONS,
                        replication_factor: int = OFFSETS_TOPIC_REPLICATION_FACTOR) -> Dict[int, List[int]]:
    """Place ``__consumer_offsets`` as the cluster would at creation, with a seeded random source:
    ``placer="AdminUtils"`` (ZooKeeper mode, random start from ``JavaRandom(seed)``) or
    ``"StripedReplicaPlacer"`` (KRaft controller, ``java.util.Random(seed)``); any name of
    :data:`~rebalance.replicas.placer.PLACERS`."""
    return placer_for(placer, JavaRandom(seed)).place(PlacementSpec(0, num_partitions, replication_factor),
                                                      list(brokers)).as_mapping()


def _offsets_mapping(assignment: Assignment) -> Dict[int, List[int]]:
    mapping = as_mapping(assignment)
    require(len(mapping) > 0, "assignment", "the offsets topic placement has no partitions")
    return mapping


def coordinator_for(group_id: str, assignment: Assignment) -> int:
    """The coordinator of ``group_id``: the leader (first replica) of its offsets partition."""
    mapping = _offsets_mapping(assignment)
    partition = offsets_partition_for(group_id, len(mapping))
    return mapping[partition][0]


def coordinators(group_ids: Iterable[str], assignment: Assignment) -> List[Dict[str, Any]]:
    """One row per group: its hash, offsets partition, the partition's replicas and the coordinator."""
    mapping = _offsets_mapping(assignment)
    rows = []
    for g in group_ids:
        p = offsets_partition_for(g, len(mapping))
        rows.append({"groupId": g, "hashCode": string_hash(g), "partition": p, "replicas": mapping[p],
                     "coordinator": mapping[p][0]})
    return rows


def coordinator_load(group_ids: Iterable[str], assignment: Assignment,
                     brokers: Optional[Iterable[int]] = None) -> Dict[int, int]:
    """How many of ``group_ids`` each broker coordinates (brokers listed in ``brokers`` count 0)."""
    counts = Counter(row["coordinator"] for row in coordinators(group_ids, assignment))
    for b in brokers or ():
        counts.setdefault(b, 0)
    return dict(sorted(counts.items()))
