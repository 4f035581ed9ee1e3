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
* :func:`simulate_share` -- ``simulate``'s ``kind: share`` (:mod:`.simulate`): members, crashes and records on a
  clock;
* :mod:`.vectors` -- the ``share`` conformance adapter; :mod:`.scenarios` -- the seeded generator of
  ``kafka-vectors/share_*.jsonl``.

The public names are in ``__all__``: ``from rebalance.share import SimpleAssignor, assign_share_group``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

#: every public name and the module that defines it, imported on first use (:mod:`rebalance._lazy`)
_EXPORTS = {
    "Delivery": ".delivery", "ShareRule": ".delivery", "deliveries": ".delivery", "outcomes": ".delivery",
    "share_rule": ".delivery",
    "assign_share_group": ".group",
    "random_scenario": ".scenarios", "unit_scenarios": ".scenarios",
    "DEFAULT_DELIVERY_COUNT_LIMIT": ".share_partition", "DEFAULT_PARTITION_MAX_RECORD_LOCKS": ".share_partition",
    "DEFAULT_RECORD_LOCK_DURATION_MS": ".share_partition", "AcknowledgeType": ".share_partition",
    "DeliveryCountOps": ".share_partition", "InFlightState": ".share_partition", "RecordState": ".share_partition",
    "SharePartitionModel": ".share_partition",
    "simulate_share": ".simulate", "share_alternatives": ".simulate",
    "SHARE_ASSIGNORS": ".simple", "ShareGroupPartitionAssignor": ".simple", "SimpleAssignor": ".simple",
    "share_assignor_for": ".simple",
    "assign_heterogeneous": ".simple_heterogeneous",
    "assign_homogeneous": ".simple_homogeneous",
}
__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # what type checkers and IDEs see: the same names, from the same modules
    from .delivery import (Delivery as Delivery, ShareRule as ShareRule, deliveries as deliveries,
                           outcomes as outcomes, share_rule as share_rule)
    from .group import assign_share_group as assign_share_group
    from .scenarios import random_scenario as random_scenario, unit_scenarios as unit_scenarios
    from .share_partition import (DEFAULT_DELIVERY_COUNT_LIMIT as DEFAULT_DELIVERY_COUNT_LIMIT,
                                  DEFAULT_PARTITION_MAX_RECORD_LOCKS as DEFAULT_PARTITION_MAX_RECORD_LOCKS,
                                  DEFAULT_RECORD_LOCK_DURATION_MS as DEFAULT_RECORD_LOCK_DURATION_MS,
                                  AcknowledgeType as AcknowledgeType, DeliveryCountOps as DeliveryCountOps,
                                  InFlightState as InFlightState, RecordState as RecordState,
                                  SharePartitionModel as SharePartitionModel)
    from .simulate import share_alternatives as share_alternatives, simulate_share as simulate_share
    from .simple import (SHARE_ASSIGNORS as SHARE_ASSIGNORS,
                         ShareGroupPartitionAssignor as ShareGroupPartitionAssignor, SimpleAssignor as SimpleAssignor,
                         share_assignor_for as share_assignor_for)
    from .simple_heterogeneous import assign_heterogeneous as assign_heterogeneous
    from .simple_homogeneous import assign_homogeneous as assign_homogeneous
else:
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
