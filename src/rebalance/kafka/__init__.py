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
* :mod:`rebalance.kafka.config_defs` -- the group settings' ``ConfigDef`` entries (``ConsumerConfig``,
  ``GroupCoordinatorConfig``, ``GroupConfig``) as the pinned jars define them: names, defaults, valid ranges.
* :mod:`rebalance.kafka.config_refusals` -- the settings Kafka refuses outright (a heartbeat not below the session,
  a session outside the broker's bounds, a consumer-protocol consumer's session, a broker's ``group.consumer.*``
  timings out of bounds) tried on the jars: what the consumer or the broker says (:func:`refusals_on_kafka`).
* :mod:`rebalance.kafka.group_command` -- ``kafka-consumer-groups.sh --describe`` (Kafka's
  ``ConsumerGroupCommand``) run against a cluster, its table read and normalised (:func:`describe_group`).
* :mod:`rebalance.kafka.jvm` -- every JVM of this area started one way (:class:`~rebalance.kafka.jvm.JvmProcess`)
  and ``find_java``; :mod:`rebalance.kafka.classpath` -- the Java module's classpaths;
  :mod:`rebalance.kafka.class_data` -- the class-data archive (AppCDS) each classpath's JVMs start with;
  :mod:`rebalance.kafka.broker_requests` -- a broker asked over a plain socket (``Metadata``).
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

#: every public name and the module that defines it, imported on first use (:mod:`rebalance._lazy`)
_EXPORTS = {
    "side_by_side": ".agreement", "ClusterStartError": ".cluster", "KafkaCluster": ".cluster",
    "ConfigKey": ".config_defs", "GROUP_SETTINGS": ".config_defs", "config_key": ".config_defs",
    "default_of": ".config_defs", "read_config_defs": ".config_defs", "setting_defs": ".config_defs",
    "write_cache": ".config_defs", "broker_refusal": ".config_refusals", "consumer_refusals": ".config_refusals",
    "refusals_on_kafka": ".config_refusals",
    "assignment_lines": ".connect.logs", "connectors_added": ".connect.scenarios", "worker_bounced": ".connect.scenarios",
    "run_connect_scenario": ".connect.simulate", "run_share_scenario": ".share_scenarios",
    "run_streams_scenario": ".streams.simulate",
    "CONNECT_BROKER_CONFIG": ".connect.workers", "ConnectDistributedCluster": ".connect.workers",
    "broker_config_for": ".consumers", "run_scenario": ".consumers", "simulate_lines_on_kafka": ".consumers",
    "cluster_leaders": ".coordinators", "describe_group": ".group_command", "normalise_rows": ".group_command",
    "parse_table": ".group_command",
    "compare_coordinators": ".coordinators", "coordinator_summary": ".coordinators", "group_ids": ".coordinators",
    "load_by_leader": ".coordinators", "java_module": ".jvm", "Oracle": ".oracle", "OracleAnswer": ".oracle",
    "answer_all": ".oracle", "check_files": ".oracle", "rewrite_files": ".oracle",
    "controller_placements": ".placement", "first_leader": ".placement", "goodness_of_fit": ".placement",
    "marginal": ".placement", "outcome_distribution": ".placement", "SHARE_BROKER_CONFIG": ".share",
    "ShareRule": ".share", "ShareRun": ".share", "outcome_table": ".share", "predict_outcomes": ".share",
    "run_share_group": ".share", "share_rule": ".share", "share_summary": ".share",
    "StreamsRebalance": ".streams.assignor_log", "parse_rebalances": ".streams.assignor_log",
    "probing_lines": ".streams.assignor_log",
    "STREAMS_SETTINGS": ".streams.instances", "StreamsInstances": ".streams.instances",
    "compare_rebalance": ".streams.replay", "predict_rebalance": ".streams.replay",
    "sticky_prediction": ".streams.replay", "streams_configs": ".streams.replay",
    "STREAMS_BROKER_CONFIG": ".streams.scenarios", "STREAMS_GROUP_SETTINGS": ".streams.scenarios",
    "StreamsScenario": ".streams.scenarios", "scale_out_and_in": ".streams.scenarios",
}
__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # what type checkers and IDEs see: the same names, from the same modules
    from .agreement import side_by_side as side_by_side
    from .cluster import (ClusterStartError as ClusterStartError, KafkaCluster as KafkaCluster)
    from .config_defs import (GROUP_SETTINGS as GROUP_SETTINGS, ConfigKey as ConfigKey, config_key as config_key,
                              default_of as default_of, read_config_defs as read_config_defs,
                              setting_defs as setting_defs, write_cache as write_cache)
    from .config_refusals import (broker_refusal as broker_refusal, consumer_refusals as consumer_refusals,
                                  refusals_on_kafka as refusals_on_kafka)
    from .connect.logs import assignment_lines as assignment_lines
    from .connect.scenarios import (connectors_added as connectors_added, worker_bounced as worker_bounced)
    from .connect.simulate import run_connect_scenario as run_connect_scenario
    from .connect.workers import (CONNECT_BROKER_CONFIG as CONNECT_BROKER_CONFIG,
                                  ConnectDistributedCluster as ConnectDistributedCluster)
    from .consumers import (broker_config_for as broker_config_for, run_scenario as run_scenario,
                            simulate_lines_on_kafka as simulate_lines_on_kafka)
    from .coordinators import (cluster_leaders as cluster_leaders, compare_coordinators as compare_coordinators,
                               coordinator_summary as coordinator_summary, group_ids as group_ids,
                               load_by_leader as load_by_leader)
    from .group_command import (describe_group as describe_group, normalise_rows as normalise_rows,
                                parse_table as parse_table)
    from .jvm import java_module as java_module
    from .oracle import (Oracle as Oracle, OracleAnswer as OracleAnswer, answer_all as answer_all,
                         check_files as check_files, rewrite_files as rewrite_files)
    from .placement import (controller_placements as controller_placements, first_leader as first_leader,
                            goodness_of_fit as goodness_of_fit, marginal as marginal,
                            outcome_distribution as outcome_distribution)
    from .share import (SHARE_BROKER_CONFIG as SHARE_BROKER_CONFIG, ShareRule as ShareRule, ShareRun as ShareRun,
                        outcome_table as outcome_table, predict_outcomes as predict_outcomes,
                        run_share_group as run_share_group, share_rule as share_rule, share_summary as share_summary)
    from .share_scenarios import run_share_scenario as run_share_scenario
    from .streams.assignor_log import (StreamsRebalance as StreamsRebalance, parse_rebalances as parse_rebalances,
                                       probing_lines as probing_lines)
    from .streams.instances import (STREAMS_SETTINGS as STREAMS_SETTINGS, StreamsInstances as StreamsInstances)
    from .streams.replay import (compare_rebalance as compare_rebalance, predict_rebalance as predict_rebalance,
                                 sticky_prediction as sticky_prediction, streams_configs as streams_configs)
    from .streams.simulate import run_streams_scenario as run_streams_scenario
    from .streams.scenarios import (STREAMS_BROKER_CONFIG as STREAMS_BROKER_CONFIG,
                                    STREAMS_GROUP_SETTINGS as STREAMS_GROUP_SETTINGS,
                                    StreamsScenario as StreamsScenario, scale_out_and_in as scale_out_and_in)
else:
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
