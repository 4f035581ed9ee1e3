"""Replica placement at topic creation, exactly as Kafka computes it.

The KRaft controller's ``StripedReplicaPlacer`` follows Kafka 4.3.1; ``AdminUtils`` (ZooKeeper mode's
placement up to 3.9, kept by 4.0 only for ``kafka-reassign-partitions --generate``, gone from 4.1) follows the
last release that has it, :data:`rebalance.versions.ADMINUTILS_RELEASE` (the same source as 3.9.2).

* :mod:`.placer`      -- the ``ReplicaPlacer`` interface (``org.apache.kafka.metadata.placement.ReplicaPlacer``),
  the :data:`PLACERS` registry and :func:`placer_for`; :class:`AdminUtilsPlacer` adapts ``AdminUtils``;
* :mod:`.placement`   -- ``PlacementSpec``, ``ClusterDescriber``, and ``TopicAssignment`` (the one result type);
* :mod:`.java_random` -- ``java.util.Random``, Kafka's ``MockRandom`` and ``Collections.shuffle``, bit for bit;
* :mod:`.adminutils`  -- ``org.apache.kafka.admin.AdminUtils.assignReplicasToBrokers`` (ZooKeeper mode,
  admin tools), rack-unaware and rack-aware, with ``getRackAlternatedBrokerList`` and a trace of choices;
* :mod:`.striped`     -- ``org.apache.kafka.metadata.placement.StripedReplicaPlacer`` (KRaft controller),
  including the ``HashMap<Optional<String>, Rack>`` order of its random draws;
* :mod:`.measures`    -- leaders / replicas per broker and per rack, racks per partition, skew;
* :mod:`.coordinators` -- where ``__consumer_offsets`` partitions land, hence which broker coordinates a group;
* :mod:`.brokers`     -- broker descriptions and input validation (``InputError`` naming the field);
* :mod:`.vectors`     -- conformance adapter for the kinds ``adminutils``, ``striped`` and ``java_random``.
"""
from .adminutils import assign_replicas_to_brokers, rack_alternated_broker_list
from .brokers import Broker
from .java_random import JavaRandom, MockRandom, shuffle
from .placement import (BrokerCluster, ClusterDescriber, PartitionAssignment, PlacementSpec, TopicAssignment,
                        placement_spec)
from .placer import PLACERS, AdminUtilsPlacer, ReplicaPlacer, placer_for
from .striped import StripedReplicaPlacer

from .._lazy import lazy_exports  # noqa: E402

# More public names, loaded on first use (the chapters' helpers and the classes they show).
_EXPORTS = {
    "RackList": ".striped", "VECTOR_CASES": ".vectors", "explain": ".adminutils",
    "place_offsets_topic": ".coordinators",
}

__all__ = ["AdminUtilsPlacer", "Broker", "BrokerCluster", "ClusterDescriber", "JavaRandom", "MockRandom", "PLACERS",
           "PartitionAssignment", "PlacementSpec", "ReplicaPlacer", "StripedReplicaPlacer", "TopicAssignment",
           "assign_replicas_to_brokers", "placement_spec", "placer_for", "rack_alternated_broker_list", "shuffle"]
__all__ += [
    "RackList", "VECTOR_CASES", "explain", "place_offsets_topic",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
