"""Real Apache Kafka, from its released jars on Maven Central.

The book pins one Kafka release, :data:`rebalance.KAFKA_VERSION` (the ``kafka.version`` of ``java/pom.xml``).
This area runs Kafka's own classes from those jars through the book's Java module (``java/``):

* :mod:`rebalance.kafka.oracle` -- the oracle: any scenario line of the vectors' kinds answered by Kafka's
  classes (``python -m rebalance run FILE --oracle kafka``), ``make vectors`` and ``make vectors-check``;
* :mod:`rebalance.kafka.cluster` -- :class:`~rebalance.kafka.cluster.KafkaCluster`, Kafka's own broker as a
  KRaft cluster of 1..9 brokers on 127.0.0.1 (``with KafkaCluster(brokers=3) as c: c.bootstrap_servers``);
* :mod:`rebalance.kafka.coordinators` -- a real cluster's ``FindCoordinator`` answers set against
  ``partition_for`` and the leaders of ``__consumer_offsets``;
* :mod:`rebalance.kafka.placement` -- a real controller's replica placements set against the exactly
  enumerated outcome distribution of the book's ``StripedReplicaPlacer`` (membership and chi-square fit).
* :mod:`rebalance.kafka.connect` -- a real distributed Kafka Connect cluster (``ConnectDistributed`` workers)
  whose rounds, read from the workers' logs, are replayed through the book's Connect model side by side.
* :mod:`rebalance.kafka.jvm` -- every JVM of this area started one way (:class:`~rebalance.kafka.jvm.JvmProcess`),
  ``find_java`` and the Java module's classpaths; :mod:`rebalance.kafka.broker_requests` -- a broker asked over a
  plain socket (``Metadata``).
* :mod:`rebalance.kafka.share` -- a share group (KIP-932) of real ``KafkaShareConsumer`` instances dividing one
  partition's records, set against ``SimpleAssignor`` and ``SharePartitionModel``.
* :mod:`rebalance.kafka.streams` -- real Kafka Streams instances of a stateful application (classic protocol)
  whose group leader's task assignments, read from its log, are replayed through the book's
  ``HighAvailabilityTaskAssignor`` (:func:`scale_out_and_in`, chapter 15).

Every JVM starts through :mod:`rebalance.kafka.jvm`; the consumer, share-consumer and Streams drivers speak one
JSON-lines protocol (:mod:`rebalance.kafka.jsonlines`, :mod:`rebalance.kafka.jsonlines_jvm`).

Names are loaded on first use, so ``python -m rebalance.kafka.oracle`` runs the module cleanly.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

_EXPORTS = {
    "Oracle": "rebalance.kafka.oracle", "OracleAnswer": "rebalance.kafka.oracle",
    "answer_all": "rebalance.kafka.oracle", "check_files": "rebalance.kafka.oracle",
    "rewrite_files": "rebalance.kafka.oracle", "java_module": "rebalance.kafka.jvm",
    "KafkaCluster": "rebalance.kafka.cluster", "ClusterStartError": "rebalance.kafka.cluster",
    "run_scenario": "rebalance.kafka.consumers",
    "simulate_lines_on_kafka": "rebalance.kafka.consumers",
    "side_by_side": "rebalance.kafka.agreement",
    "group_ids": "rebalance.kafka.coordinators", "compare_coordinators": "rebalance.kafka.coordinators",
    "cluster_leaders": "rebalance.kafka.coordinators", "load_by_leader": "rebalance.kafka.coordinators",
    "coordinator_summary": "rebalance.kafka.coordinators",
    "controller_placements": "rebalance.kafka.placement", "first_leader": "rebalance.kafka.placement",
    "goodness_of_fit": "rebalance.kafka.placement", "marginal": "rebalance.kafka.placement",
    "outcome_distribution": "rebalance.kafka.placement",
    "ConnectDistributedCluster": "rebalance.kafka.connect.workers",
    "CONNECT_BROKER_CONFIG": "rebalance.kafka.connect.workers",
    "connectors_added": "rebalance.kafka.connect.scenarios", "worker_bounced": "rebalance.kafka.connect.scenarios",
    "run_share_group": "rebalance.kafka.share", "ShareRun": "rebalance.kafka.share", "ShareRule": "rebalance.kafka.share",
    "share_rule": "rebalance.kafka.share", "predict_outcomes": "rebalance.kafka.share",
    "outcome_table": "rebalance.kafka.share", "share_summary": "rebalance.kafka.share",
    "SHARE_BROKER_CONFIG": "rebalance.kafka.share",
    "StreamsInstances": "rebalance.kafka.streams.instances", "STREAMS_SETTINGS": "rebalance.kafka.streams.instances",
    "StreamsRebalance": "rebalance.kafka.streams.assignor_log",
    "parse_rebalances": "rebalance.kafka.streams.assignor_log",
    "predict_rebalance": "rebalance.kafka.streams.replay", "compare_rebalance": "rebalance.kafka.streams.replay",
    "streams_configs": "rebalance.kafka.streams.replay", "sticky_prediction": "rebalance.kafka.streams.replay",
    "StreamsScenario": "rebalance.kafka.streams.scenarios", "scale_out_and_in": "rebalance.kafka.streams.scenarios",
    "STREAMS_BROKER_CONFIG": "rebalance.kafka.streams.scenarios",
    "STREAMS_GROUP_SETTINGS": "rebalance.kafka.streams.scenarios",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from .cluster import ClusterStartError, KafkaCluster
    from .connect.scenarios import connectors_added, worker_bounced
    from .connect.workers import CONNECT_BROKER_CONFIG, ConnectDistributedCluster
    from .consumers import run_scenario, simulate_lines_on_kafka
    from .jvm import java_module
    from .oracle import Oracle, OracleAnswer, answer_all, check_files, rewrite_files
    from .share import (SHARE_BROKER_CONFIG, ShareRule, ShareRun, outcome_table, predict_outcomes, run_share_group,
                        share_rule, share_summary)
