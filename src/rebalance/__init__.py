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

from .versions import KAFKA_VERSION

__version__ = "0.1.0"

#: public name -> the module that defines it
_EXPORTS = {
    "assign": "rebalance.consumer", "ConsumerPartitionAssignor": "rebalance.consumer",
    "AssignorResult": "rebalance.consumer",
    "partition_for": "rebalance.protocol", "find_coordinator": "rebalance.protocol",
    "ConnectCluster": "rebalance.connect", "ConnectAssignor": "rebalance.connect",
    "assign_replicas_to_brokers": "rebalance.replicas", "StripedReplicaPlacer": "rebalance.replicas",
    "ReplicaPlacer": "rebalance.replicas",
    "assign_group": "rebalance.kip848", "ConsumerGroupPartitionAssignor": "rebalance.kip848",
    "assign_share_group": "rebalance.share",
    "HighAvailabilityTaskAssignor": "rebalance.streams", "StickyTaskAssignor": "rebalance.streams",
    "InputError": "rebalance.errors", "KafkaError": "rebalance.errors",
}
__all__ = ["__version__", "KAFKA_VERSION", *_EXPORTS]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:  # what type checkers and IDEs see
    from .connect import ConnectAssignor, ConnectCluster
    from .consumer import AssignorResult, ConsumerPartitionAssignor, assign
    from .errors import InputError, KafkaError
    from .kip848 import ConsumerGroupPartitionAssignor, assign_group
    from .protocol import find_coordinator, partition_for
    from .replicas import ReplicaPlacer, StripedReplicaPlacer, assign_replicas_to_brokers
    from .share.group import assign_share_group
    from .streams import HighAvailabilityTaskAssignor, StickyTaskAssignor
