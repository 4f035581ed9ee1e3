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
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

#: every public name and the module that defines it, imported on first use (:mod:`rebalance._lazy`)
_EXPORTS = {
    "assign_replicas_to_brokers": ".adminutils", "explain": ".adminutils",
    "rack_alternated_broker_list": ".adminutils",
    "Broker": ".brokers",
    "place_offsets_topic": ".coordinators",
    "JavaRandom": ".java_random", "MockRandom": ".java_random", "shuffle": ".java_random",
    "BrokerCluster": ".placement", "ClusterDescriber": ".placement", "PartitionAssignment": ".placement",
    "PlacementSpec": ".placement", "TopicAssignment": ".placement", "placement_spec": ".placement",
    "PLACERS": ".placer", "AdminUtilsPlacer": ".placer", "ReplicaPlacer": ".placer", "placer_for": ".placer",
    "RackList": ".striped", "StripedReplicaPlacer": ".striped",
    "VECTOR_CASES": ".vectors",
}
__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # what type checkers and IDEs see: the same names, from the same modules
    from .adminutils import (assign_replicas_to_brokers as assign_replicas_to_brokers, explain as explain,
                             rack_alternated_broker_list as rack_alternated_broker_list)
    from .brokers import Broker as Broker
    from .coordinators import place_offsets_topic as place_offsets_topic
    from .java_random import JavaRandom as JavaRandom, MockRandom as MockRandom, shuffle as shuffle
    from .placement import (BrokerCluster as BrokerCluster, ClusterDescriber as ClusterDescriber,
                            PartitionAssignment as PartitionAssignment, PlacementSpec as PlacementSpec,
                            TopicAssignment as TopicAssignment, placement_spec as placement_spec)
    from .placer import (PLACERS as PLACERS, AdminUtilsPlacer as AdminUtilsPlacer, ReplicaPlacer as ReplicaPlacer,
                         placer_for as placer_for)
    from .striped import RackList as RackList, StripedReplicaPlacer as StripedReplicaPlacer
    from .vectors import VECTOR_CASES as VECTOR_CASES
else:
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
