"""What a replica placer is given and what it returns (``org.apache.kafka.metadata.placement``, Kafka 4.3.1).

* :class:`PlacementSpec` -- ``PlacementSpec``: which partitions to place, with how many replicas;
* :class:`ClusterDescriber` -- ``ClusterDescriber``: the usable brokers (id, rack, fenced) in iteration
  order; :class:`BrokerCluster` implements it over a broker list (``defaultDir`` is not modelled: the
  placements here never depend on log directories);
* :class:`TopicAssignment` / :class:`PartitionAssignment` -- ``TopicAssignment``/``PartitionAssignment``:
  the one result type of every placer (replica lists, leader first), without the directory ids.

:func:`placement_spec` and :func:`usable_brokers` are the one validation path of every input shape: a
``PlacementSpec`` or a dict ``{"startPartition", "numPartitions", "numReplicas"}``, a ``ClusterDescriber`` or a
broker list (ids, ``(id, rack, fenced)`` tuples, ``{"id", "rack", "fenced"}`` dicts, :class:`~.brokers.Broker`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Protocol, Tuple, Union, runtime_checkable

from ..errors import InputError
from .brokers import SHORT_MAX, SHORT_MIN, Broker, check_int, parse_brokers


@dataclass(frozen=True)
class PlacementSpec:
    """``org.apache.kafka.metadata.placement.PlacementSpec`` (Kafka 4.3.1): which partitions to place,
    with how many replicas (a Java ``short``).  ``start_partition`` does not influence
    ``StripedReplicaPlacer``; for ``AdminUtils`` it is ``startPartitionId``."""

    start_partition: int
    num_partitions: int
    num_replicas: int


def placement_spec(value: Union[PlacementSpec, Mapping[Any, Any]], prefix: str = "") -> PlacementSpec:
    """A validated :class:`PlacementSpec` from a ``PlacementSpec`` or a dict with Kafka's field names
    (``startPartition`` optional, default 0).  Errors name ``prefix + field`` (e.g. ``placements[1].numReplicas``).
    A negative partition count is bad input (Kafka's callers never pass one: ``CreateTopics`` turns ``-1``
    into the broker default before placing replicas)."""
    if isinstance(value, PlacementSpec):
        start, num, rf = value.start_partition, value.num_partitions, value.num_replicas
    elif isinstance(value, Mapping):
        unknown = set(value) - {"startPartition", "numPartitions", "numReplicas"}
        if unknown:
            raise InputError(f"{prefix}{sorted(unknown)[0]}",
                             "unknown field; a placement has startPartition, numPartitions, numReplicas")
        for key in ("numPartitions", "numReplicas"):
            if key not in value:
                raise InputError(f"{prefix}{key}", "missing")
        start, num, rf = value.get("startPartition", 0), value["numPartitions"], value["numReplicas"]
    else:
        raise InputError(prefix.rstrip(".") or "placement",
                         f"must be a PlacementSpec or an object {{startPartition, numPartitions, numReplicas}}, "
                         f"got {value!r}")
    start = check_int(start, f"{prefix}startPartition")
    num = check_int(num, f"{prefix}numPartitions")
    if num < 0:
        raise InputError(f"{prefix}numPartitions", f"must not be negative, got {num}")
    rf = check_int(rf, f"{prefix}numReplicas", lo=SHORT_MIN, hi=SHORT_MAX, what="a Java short")
    return PlacementSpec(start, num, rf)


@runtime_checkable
class ClusterDescriber(Protocol):
    """``org.apache.kafka.metadata.placement.ClusterDescriber`` (Kafka 4.3.1): ``usableBrokers()``."""

    def usable_brokers(self) -> Iterator[Broker]: ...


class BrokerCluster:
    """A :class:`ClusterDescriber` over a broker list, kept in the given order (the order
    ``usableBrokers()`` iterates, which ``StripedReplicaPlacer`` depends on)."""

    def __init__(self, brokers: Iterable[Any], field: str = "brokers", *, with_fenced: bool = True):
        self.brokers: List[Broker] = parse_brokers(brokers, field, with_fenced=with_fenced)

    def usable_brokers(self) -> Iterator[Broker]:
        """``ClusterDescriber.usableBrokers()``: every broker, fenced ones included."""
        return iter(self.brokers)


def usable_brokers(cluster: Union[ClusterDescriber, Iterable[Any]], field: str = "brokers", *,
                   with_fenced: bool = True) -> List[Broker]:
    """The validated brokers of a :class:`ClusterDescriber` or of a broker list (``InputError`` naming
    ``field[i]...``); ``with_fenced=False`` refuses fenced brokers (``AdminUtils`` has no such notion)."""
    if isinstance(cluster, ClusterDescriber):
        cluster = list(cluster.usable_brokers())
    return parse_brokers(cluster, field, with_fenced=with_fenced)


@dataclass(frozen=True)
class PartitionAssignment:
    """``org.apache.kafka.metadata.placement.PartitionAssignment`` (Kafka 4.3.1): one partition's replica
    broker ids, the preferred leader first (the directory ids are not modelled)."""

    replicas: Tuple[int, ...]


@dataclass(frozen=True)
class TopicAssignment:
    """``org.apache.kafka.metadata.placement.TopicAssignment`` (Kafka 4.3.1): one
    :class:`PartitionAssignment` per placed partition, in partition order, the first being
    ``start_partition``."""

    assignments: Tuple[PartitionAssignment, ...]
    start_partition: int = 0

    @classmethod
    def of(cls, replica_lists: Iterable[Iterable[int]], start_partition: int = 0) -> "TopicAssignment":
        """A ``TopicAssignment`` from replica lists in partition order."""
        return cls(tuple(PartitionAssignment(tuple(r)) for r in replica_lists), start_partition)

    def replica_lists(self) -> List[List[int]]:
        """Each partition's replicas as a list, in partition order."""
        return [list(a.replicas) for a in self.assignments]

    def as_mapping(self) -> Dict[int, List[int]]:
        """``{partition id: replicas}``, ids from ``start_partition``."""
        return {self.start_partition + i: list(a.replicas) for i, a in enumerate(self.assignments)}

    def __len__(self) -> int:
        return len(self.assignments)


__all__ = ["BrokerCluster", "ClusterDescriber", "PartitionAssignment", "PlacementSpec", "TopicAssignment",
           "placement_spec", "usable_brokers"]
