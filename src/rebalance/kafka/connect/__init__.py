"""A real distributed Kafka Connect cluster on 127.0.0.1 (Kafka 4.3.1) and its rounds set next to the book's model.

* :mod:`~rebalance.kafka.connect.workers` -- :class:`ConnectDistributedCluster`: N ``ConnectDistributed``
  workers as JVMs against a running :class:`~rebalance.kafka.cluster.KafkaCluster`, connectors added over REST
  (:mod:`~rebalance.kafka.connect.rest`), workers bounced;
* :mod:`~rebalance.kafka.connect.logs` -- :func:`parse_rounds`: the rebalances every worker went through, read
  from its log (one :class:`RealRound` per generation);
* :mod:`~rebalance.kafka.connect.replay` -- :func:`compare_rounds`: the book's model
  (:class:`rebalance.connect.cluster.ConnectCluster`) replaying those rounds with their real members, leaders,
  generations and clock, set against them worker by worker (:class:`RoundComparison`);
* :mod:`~rebalance.kafka.connect.scenarios` -- :func:`connectors_added` and :func:`worker_bounced`, the
  scenarios of chapter 11 scaled down, each a :class:`ScenarioResult` of those comparisons.

>>> with KafkaCluster(broker_config=CONNECT_BROKER_CONFIG) as kafka:              # doctest: +SKIP
...     with ConnectDistributedCluster(kafka.bootstrap_servers, workers=3) as connect:
...         connect.add_connector("c1", tasks=2)
...         connect.wait_until_settled()
...         connect.counts()
{'w1': (1, 1), 'w2': (0, 1), 'w3': (0, 0)}
"""
from __future__ import annotations

from .logs import RealRound, WorkerAssignment, parse_rounds
from .replay import RoundComparison, Share, compare_rounds, model_shares, real_shares
from .scenarios import ScenarioResult, connectors_added, summary_table, worker_bounced
from .workers import (CONNECT_BROKER_CONFIG, CONNECTOR_CLASS, ConnectDistributedCluster, ConnectStartError,
                      ConnectWorker, connect_classpath)

__all__ = ["CONNECT_BROKER_CONFIG", "CONNECTOR_CLASS", "ConnectDistributedCluster", "ConnectStartError",
           "ConnectWorker", "RealRound", "RoundComparison", "ScenarioResult", "Share", "WorkerAssignment",
           "compare_rounds", "connect_classpath", "connectors_added", "model_shares", "parse_rounds", "real_shares",
           "summary_table", "worker_bounced"]
