"""Kafka Connect's assignment of connectors and tasks to workers.

The assignors and their wire format follow Kafka 4.3.1 (the same answers as 3.9.2); the herder's follow-up
rounds and clock (:mod:`.cluster`, :mod:`.experiment`) are modelled on Kafka's source at commit 1eb7644
(trunk before 4.0).

* :class:`~rebalance.connect.assignor.ConnectAssignor` -- the interface (``ConnectAssignor``), :data:`ASSIGNORS` the
  registry by ``connect.protocol`` (eager / compatible / sessioned), :class:`ReplayOptions` the vectors' switches;
  :class:`ClusterAssignment` the one result type of an assignor round;
* :class:`~rebalance.connect.eager.EagerAssignor` -- ``EagerAssignor``: stop everything, deal everything;
* :class:`~rebalance.connect.incremental.IncrementalCooperativeAssignor` -- KIP-415, stateful across rounds;
* :mod:`~rebalance.connect.protocol` -- ``ConnectProtocol``/``IncrementalCooperativeConnectProtocol`` bytes;
* :mod:`~rebalance.connect.leader` -- ``performAssignment``, ``onJoinPrepare``, ``onJoinComplete`` on bytes,
  for a group-protocol simulator that treats Connect workers as members;
* :class:`~rebalance.connect.cluster.ConnectCluster` -- a cluster driven round by round, with the herder's
  follow-up rounds;
* :mod:`~rebalance.connect.experiment` -- the 90 connectors x 10 tasks experiment;
* :mod:`~rebalance.connect.vectors` -- the ``connect`` kind of the conformance vectors;
* :mod:`~rebalance.connect.simulate` -- ``simulate``'s ``kind: connect``: workers and operators on a clock.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

#: every public name and the module that defines it, imported on first use (:mod:`rebalance._lazy`)
_EXPORTS = {
    "ASSIGNORS": ".assignor", "ConnectAssignor": ".assignor", "ReplayOptions": ".assignor",
    "assignor_for": ".assignor", "connect_protocol": ".assignor",
    "ConnectCluster": ".cluster", "RoundResult": ".cluster", "WorkerRound": ".cluster",
    "EagerAssignor": ".eager", "eager_assignment": ".eager",
    "derived_sets_example": ".examples", "derived_sets_table": ".examples", "interleaved_round_robin": ".examples",
    "pretty": ".examples", "round_table": ".examples", "three_workers_example": ".examples",
    "bounce_rounds": ".experiment", "bounce_table": ".experiment", "ninety_by_ten": ".experiment",
    "start_stop": ".experiment", "steady_cluster": ".experiment", "successive_joins": ".experiment",
    "supplementary": ".experiment",
    "ExponentialBackoff": ".incremental", "IncrementalCooperativeAssignor": ".incremental",
    "MockTime": ".incremental",
    "member_metadata": ".leader",
    "ClusterAssignment": ".model", "ConnectorsAndTasks": ".model", "WorkerLoad": ".model",
    "hashmap_member_order": ".model", "parse_task": ".model", "task_str": ".model",
    "ExtendedWorkerState": ".protocol",
    "ConnectScenario": ".simulate", "connect_summary": ".simulate", "parse_connect_scenario": ".simulate",
    "simulate_connect": ".simulate", "connect_alternatives": ".simulate",
    "CONFIG_MS": ".simulate", "TASK_CONFIG_MS": ".simulate", "WORKER_START_MS": ".simulate",
    "WORKER_STOP_MS": ".simulate",
}
__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # what type checkers and IDEs see: the same names, from the same modules
    from .assignor import (ASSIGNORS as ASSIGNORS, ConnectAssignor as ConnectAssignor, ReplayOptions as ReplayOptions,
                           assignor_for as assignor_for, connect_protocol as connect_protocol)
    from .cluster import ConnectCluster as ConnectCluster, RoundResult as RoundResult, WorkerRound as WorkerRound
    from .eager import EagerAssignor as EagerAssignor, eager_assignment as eager_assignment
    from .examples import (derived_sets_example as derived_sets_example, derived_sets_table as derived_sets_table,
                           interleaved_round_robin as interleaved_round_robin, pretty as pretty,
                           round_table as round_table, three_workers_example as three_workers_example)
    from .experiment import (bounce_rounds as bounce_rounds, bounce_table as bounce_table,
                             ninety_by_ten as ninety_by_ten, start_stop as start_stop,
                             steady_cluster as steady_cluster, successive_joins as successive_joins,
                             supplementary as supplementary)
    from .incremental import (ExponentialBackoff as ExponentialBackoff,
                              IncrementalCooperativeAssignor as IncrementalCooperativeAssignor, MockTime as MockTime)
    from .leader import member_metadata as member_metadata
    from .model import (ClusterAssignment as ClusterAssignment, ConnectorsAndTasks as ConnectorsAndTasks,
                        WorkerLoad as WorkerLoad, hashmap_member_order as hashmap_member_order,
                        parse_task as parse_task, task_str as task_str)
    from .protocol import ExtendedWorkerState as ExtendedWorkerState
    from .simulate import (ConnectScenario as ConnectScenario, connect_summary as connect_summary,
                           parse_connect_scenario as parse_connect_scenario, simulate_connect as simulate_connect,
                           connect_alternatives as connect_alternatives, CONFIG_MS as CONFIG_MS,
                           TASK_CONFIG_MS as TASK_CONFIG_MS, WORKER_START_MS as WORKER_START_MS,
                           WORKER_STOP_MS as WORKER_STOP_MS)
else:
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
