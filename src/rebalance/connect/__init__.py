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
* :mod:`~rebalance.connect.vectors` -- the ``connect`` kind of the conformance vectors.
"""
from .assignor import ASSIGNORS, ConnectAssignor, ReplayOptions, assignor_for, connect_protocol
from .cluster import ConnectCluster, RoundResult, WorkerRound
from .eager import EagerAssignor, eager_assignment
from .incremental import ExponentialBackoff, IncrementalCooperativeAssignor, MockTime
from .model import ClusterAssignment, ConnectorsAndTasks, WorkerLoad, parse_task, task_str

from .._lazy import lazy_exports  # noqa: E402

# More public names, loaded on first use (the chapters' helpers and the classes they show).
_EXPORTS = {
    "ExtendedWorkerState": ".protocol", "bounce_rounds": ".experiment", "bounce_table": ".experiment",
    "derived_sets_example": ".examples", "derived_sets_table": ".examples", "hashmap_member_order": ".model",
    "interleaved_round_robin": ".examples", "member_metadata": ".leader", "ninety_by_ten": ".experiment",
    "pretty": ".examples", "start_stop": ".experiment", "round_table": ".examples",
    "three_workers_example": ".examples", "steady_cluster": ".experiment", "successive_joins": ".experiment",
    "supplementary": ".experiment",
}

__all__ = [
    "ASSIGNORS", "ClusterAssignment", "ConnectAssignor", "ConnectCluster", "ConnectorsAndTasks", "EagerAssignor",
    "ExponentialBackoff", "IncrementalCooperativeAssignor", "MockTime", "ReplayOptions", "RoundResult", "WorkerLoad",
    "WorkerRound", "assignor_for", "connect_protocol", "eager_assignment", "parse_task", "task_str",
]
__all__ += [
    "ExtendedWorkerState", "bounce_rounds", "bounce_table", "derived_sets_example", "derived_sets_table",
    "hashmap_member_order", "interleaved_round_robin", "member_metadata", "ninety_by_ten", "pretty", "round_table",
    "start_stop", "steady_cluster", "successive_joins", "supplementary", "three_workers_example",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
