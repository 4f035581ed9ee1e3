"""Rebalance: the executable textbook's package.

Every algorithm of the book lives here and mirrors a named Kafka class of the release the book pins,
:data:`KAFKA_VERSION` (checked against that release's own classes by ``make vectors-check``):

* ``rebalance.consumer``  -- client-side consumer partition assignors (Range, RoundRobin, Sticky,
  CooperativeSticky);
* ``rebalance.protocol``  -- coordinator lookup and the classic group protocol as a simulator;
* ``rebalance.connect``   -- Kafka Connect's eager and incremental cooperative assignors;
* ``rebalance.replicas``  -- replica placement (AdminUtils, StripedReplicaPlacer);
* ``rebalance.kip848``    -- the KIP-848 consumer group protocol and its server-side assignors;
* ``rebalance.share``     -- KIP-932 share groups: the server-side ``SimpleAssignor`` and a share partition's
  record states (acquisition lock, delivery count);
* ``rebalance.streams``   -- Kafka Streams' task assignment: the client-side ``HighAvailabilityTaskAssignor``
  (KIP-441) and the streams group's broker-side ``StickyTaskAssignor`` (KIP-1071);
* ``rebalance.spark``     -- the PySpark data pipeline used by the Spark-scale exercises;
* ``rebalance.live``      -- librdkafka's clients against its mock cluster;
* ``rebalance.kafka``     -- real Apache Kafka from its jars: the oracle that answers any scenario with Kafka's
  own classes (``python -m rebalance run FILE --oracle kafka``);
* ``rebalance.widgets`` / ``rebalance.viz`` -- the chapters' widgets and figures.

``python -m rebalance conform FILE...`` replays Kafka's conformance vectors.

The main entry points are importable from ``rebalance`` itself (loaded on first use, so ``import rebalance``
stays cheap): one call and one interface per Kafka role --

* consumer groups: :func:`assign`, :class:`ConsumerPartitionAssignor`, :class:`AssignorResult`;
* the group coordinator: :func:`partition_for`, :func:`find_coordinator`;
* Kafka Connect: :class:`ConnectCluster`, :class:`ConnectAssignor`;
* replica placement: :func:`assign_replicas_to_brokers`, :class:`StripedReplicaPlacer`, :class:`ReplicaPlacer`;
* KIP-848: :func:`assign_group`, :class:`ConsumerGroupPartitionAssignor`;
* share groups: :func:`assign_share_group`; Kafka Streams: :class:`HighAvailabilityTaskAssignor`,
  :class:`StickyTaskAssignor`;
* errors: :class:`InputError` (bad input, naming the field), :class:`KafkaError` (where Kafka throws).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports

__version__ = "0.1.0"

#: every public name and the module that defines it, imported on first use (:mod:`rebalance._lazy`)
_EXPORTS = {
    "ConnectAssignor": ".connect", "ConnectCluster": ".connect",
    "AssignorResult": ".consumer", "ConsumerPartitionAssignor": ".consumer", "assign": ".consumer",
    "InputError": ".errors", "KafkaError": ".errors",
    "ConsumerGroupPartitionAssignor": ".kip848", "assign_group": ".kip848",
    "find_coordinator": ".protocol", "partition_for": ".protocol",
    "ReplicaPlacer": ".replicas", "StripedReplicaPlacer": ".replicas", "assign_replicas_to_brokers": ".replicas",
    "assign_share_group": ".share",
    "HighAvailabilityTaskAssignor": ".streams", "StickyTaskAssignor": ".streams",
    "KAFKA_VERSION": ".versions",
}
__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # what type checkers and IDEs see: the same names, from the same modules
    from .connect import ConnectAssignor as ConnectAssignor, ConnectCluster as ConnectCluster
    from .consumer import (AssignorResult as AssignorResult, ConsumerPartitionAssignor as ConsumerPartitionAssignor,
                           assign as assign)
    from .errors import InputError as InputError, KafkaError as KafkaError
    from .kip848 import ConsumerGroupPartitionAssignor as ConsumerGroupPartitionAssignor, assign_group as assign_group
    from .protocol import find_coordinator as find_coordinator, partition_for as partition_for
    from .replicas import (ReplicaPlacer as ReplicaPlacer, StripedReplicaPlacer as StripedReplicaPlacer,
                           assign_replicas_to_brokers as assign_replicas_to_brokers)
    from .share import assign_share_group as assign_share_group
    from .streams import (HighAvailabilityTaskAssignor as HighAvailabilityTaskAssignor,
                          StickyTaskAssignor as StickyTaskAssignor)
    from .versions import KAFKA_VERSION as KAFKA_VERSION
else:
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
