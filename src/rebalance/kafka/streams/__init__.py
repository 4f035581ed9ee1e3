"""A real Kafka Streams application on a real broker, its rebalances set next to the book's KIP-441 assignor.

One module per concern:

* :mod:`~rebalance.kafka.streams.instances` -- the running processes: :class:`StreamsInstances`, one JVM of
  ``KafkaStreams`` instances of a stateful application (``stream(input).groupByKey().count()``) on a broker of
  :class:`rebalance.kafka.cluster.KafkaCluster`, with the classic group protocol by default, so the group
  leader's ``StreamsPartitionAssignor`` runs ``HighAvailabilityTaskAssignor``;
* :mod:`~rebalance.kafka.streams.assignor_log` -- their logs: :func:`parse_rebalances` reads the leader's
  ``StreamsPartitionAssignor`` lines of every rebalance into :class:`StreamsRebalance`\\ s (every client's state
  before, every client's tasks after, the probing rebalance it scheduled);
* :mod:`~rebalance.kafka.streams.replay` -- the replay through the book's model: :func:`predict_rebalance` and
  :func:`compare_rebalance` (``HighAvailabilityTaskAssignor`` given exactly the logged clients and
  :func:`streams_configs`), :func:`sticky_prediction` (the broker-side ``StickyTaskAssignor`` of KIP-1071);
* :mod:`~rebalance.kafka.streams.scenarios` -- the scenarios: :func:`scale_out_and_in`, chapter 15's two
  instances with state, a third joining (warm-ups, a probing rebalance scheduled), optionally the probing
  rebalance, and one leaving, optionally also on a streams group (:class:`StreamsScenario`).

Every JVM runs through :mod:`rebalance.kafka.jsonlines` (its instances are its ``member``\\ s) and is stopped
on leaving the ``with`` block, on an error, and at interpreter exit.
"""
from __future__ import annotations

from .assignor_log import StreamsRebalance, parse_rebalances
from .instances import STREAMS_SETTINGS, StreamsInstances
from .replay import compare_rebalance, next_group_spec, predict_rebalance, sticky_prediction, streams_configs
from .scenarios import STREAMS_BROKER_CONFIG, STREAMS_GROUP_SETTINGS, StreamsScenario, scale_out_and_in

__all__ = ["STREAMS_BROKER_CONFIG", "STREAMS_GROUP_SETTINGS", "STREAMS_SETTINGS", "StreamsInstances",
           "StreamsRebalance", "StreamsScenario", "compare_rebalance", "next_group_spec", "parse_rebalances",
           "predict_rebalance", "scale_out_and_in", "sticky_prediction", "streams_configs"]
