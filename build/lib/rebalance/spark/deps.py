"""The package functions the Spark jobs distribute, looked up when a job runs.

The jobs never contain an algorithm of their own: they call the consumer assignors, the coordinator
lookup, the replica placers and the group protocol simulator written in the other areas.  A job whose
algorithm is not available raises ``NotImplementedError`` naming what is missing.
"""
from __future__ import annotations

import importlib
from typing import Callable


def _lookup(module: str, name: str, job: str) -> Callable:
    try:
        mod = importlib.import_module(module)
        return getattr(mod, name)
    except (ImportError, AttributeError) as exc:
        raise NotImplementedError(
            f"the {job} job calls {module}.{name}, which is not available in this build of the package "
            f"({exc}); the job stays unfinished until that algorithm lands") from None


def consumer_assign() -> Callable:
    """``rebalance.consumer.assign(assignor, partitions, members)`` (Range, RoundRobin, Sticky,
    CooperativeSticky; ``ConsumerPartitionAssignor`` implementations of Kafka 3.8/3.9)."""
    return _lookup("rebalance.consumer", "assign", "sweep")


def partition_for() -> Callable:
    """``rebalance.protocol.coordinator.partition_for`` (``GroupCoordinatorService.partitionFor``)."""
    return _lookup("rebalance.protocol.coordinator", "partition_for", "coordinator")


def check_assignors(assignors) -> None:
    """Raise ``NotImplementedError`` unless every named consumer assignor can be instantiated."""
    assignor_for = _lookup("rebalance.consumer", "assignor_for", "sweep")
    from ..errors import InputError

    for name in assignors:
        try:
            assignor_for(name)
        except InputError as exc:
            raise NotImplementedError(f"the sweep job needs the {name!r} assignor: {exc.message}") from None


def balance_score() -> Callable:
    """``GeneralAssignmentBuilder.getBalanceScore`` from the sticky assignors' module, if it is there
    (sum over member pairs of the difference in their loads); otherwise a function returning ``None``."""
    try:
        return _lookup("rebalance.consumer.abstract_sticky", "balance_score", "sweep")
    except NotImplementedError:
        return lambda loads: None


def group_simulation() -> Callable:
    """``rebalance.protocol.simulation.GroupSimulation``: the classic group protocol on a virtual clock."""
    _lookup("rebalance.protocol.simulation", "rolling_restart", "montecarlo")
    return _lookup("rebalance.protocol.simulation", "GroupSimulation", "montecarlo")


def replica_placers():
    """``(assign_replicas_to_brokers, StripedReplicaPlacer, PlacementSpec, JavaRandom, balance)`` from
    ``rebalance.replicas`` (``AdminUtils.assignReplicasToBrokers`` and ``StripedReplicaPlacer``)."""
    return (_lookup("rebalance.replicas.adminutils", "assign_replicas_to_brokers", "placement"),
            _lookup("rebalance.replicas.striped", "StripedReplicaPlacer", "placement"),
            _lookup("rebalance.replicas.striped", "PlacementSpec", "placement"),
            _lookup("rebalance.replicas.java_random", "JavaRandom", "placement"),
            _lookup("rebalance.replicas.measures", "balance", "placement"))
