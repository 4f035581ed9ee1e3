"""share area: KIP-932 share groups (``KafkaShareConsumer``, Kafka 4.x).

A share group lets several consumers read one partition: the broker hands out records batch by batch and
tracks each record's delivery, instead of giving each partition to one member.  The group coordinator still
decides which members fetch from which partitions, with a server-side assignor of the KIP-848 shape
(``name()`` / ``assign(groupSpec, subscribedTopicDescriber)``, :mod:`rebalance.kip848.spec`):

* :class:`SimpleAssignor` -- ``org.apache.kafka.coordinator.group.assignor.SimpleAssignor`` (Kafka 4.3.1), the
  default and only built-in ``group.share.assignors``; :data:`SHARE_ASSIGNORS` its registry;
* :func:`assign_homogeneous` / :func:`assign_heterogeneous` -- its ``SimpleHomogeneousAssignmentBuilder`` and
  ``SimpleHeterogeneousAssignmentBuilder``, with Java's iteration orders reproduced exactly;
* :func:`assign_share_group` -- the front door by topic *name* (as :func:`rebalance.kip848.assign_group`), with
  the share group's assignable (initialized) partitions;
* :class:`SharePartitionModel` -- a share partition's records (``SharePartition``): acquired under a lock,
  acknowledged, released, redelivered up to ``group.share.delivery.count.limit`` times; :class:`InFlightState` and
  :class:`RecordState` port Kafka's own classes;
* :func:`deliveries` -- a share partition's deliveries under a :class:`ShareRule` of acknowledgement (members
  fetching in turn on a virtual clock), and :func:`outcomes`, each record's deliveries and final state;
* :mod:`.vectors` -- the ``share`` conformance adapter; :mod:`.scenarios` -- the seeded generator of
  ``kafka-vectors/share_*.jsonl``.

The public names are in ``__all__``: ``from rebalance.share import SimpleAssignor, assign_share_group``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

_EXPORTS = {
    "SimpleAssignor": ".simple", "SHARE_ASSIGNORS": ".simple", "ShareGroupPartitionAssignor": ".simple",
    "share_assignor_for": ".simple",
    "assign_homogeneous": ".simple_homogeneous", "assign_heterogeneous": ".simple_heterogeneous",
    "assign_share_group": ".group",
    "random_scenario": ".scenarios", "unit_scenarios": ".scenarios",
    "RecordState": ".share_partition", "InFlightState": ".share_partition", "AcknowledgeType": ".share_partition",
    "DeliveryCountOps": ".share_partition", "SharePartitionModel": ".share_partition",
    "DEFAULT_DELIVERY_COUNT_LIMIT": ".share_partition", "DEFAULT_RECORD_LOCK_DURATION_MS": ".share_partition",
    "DEFAULT_PARTITION_MAX_RECORD_LOCKS": ".share_partition",
    "ShareRule": ".delivery", "share_rule": ".delivery", "Delivery": ".delivery", "deliveries": ".delivery",
    "outcomes": ".delivery",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from .delivery import Delivery, ShareRule, deliveries, outcomes, share_rule
    from .group import assign_share_group
    from .scenarios import random_scenario, unit_scenarios
    from .simple import SHARE_ASSIGNORS, ShareGroupPartitionAssignor, SimpleAssignor, share_assignor_for
    from .simple_heterogeneous import assign_heterogeneous
    from .share_partition import (DEFAULT_DELIVERY_COUNT_LIMIT, DEFAULT_PARTITION_MAX_RECORD_LOCKS,
                                  DEFAULT_RECORD_LOCK_DURATION_MS, AcknowledgeType, DeliveryCountOps, InFlightState,
                                  RecordState, SharePartitionModel)
    from .simple_homogeneous import assign_homogeneous
