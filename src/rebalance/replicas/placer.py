"""The replica placer interface and the registry of Kafka's two placers.

Mirrors ``org.apache.kafka.metadata.placement.ReplicaPlacer`` (Kafka 4.3.1):
``TopicAssignment place(PlacementSpec placement, ClusterDescriber cluster) throws
InvalidReplicationFactorException``.  Two implementations:

* :class:`~rebalance.replicas.striped.StripedReplicaPlacer` -- the KRaft controller's placer, which implements
  the interface in Kafka;
* :class:`AdminUtilsPlacer` -- an adapter over ``org.apache.kafka.admin.AdminUtils.assignReplicasToBrokers``
  (ZooKeeper mode and the admin tools), which in Kafka is a static method outside the interface.

:data:`PLACERS` names them; the vectors adapter, the Spark placement job, the offsets-topic helpers and the
chapter's widgets build a placer with :func:`placer_for`.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Optional, Protocol, Union, runtime_checkable

from ..errors import InputError
from .adminutils import assign_replicas_to_brokers
from .java_random import JavaRandom
from .placement import ClusterDescriber, PlacementSpec, TopicAssignment, placement_spec, usable_brokers
from .striped import StripedReplicaPlacer


@runtime_checkable
class ReplicaPlacer(Protocol):
    """``org.apache.kafka.metadata.placement.ReplicaPlacer`` (Kafka 4.3.1): ``place(placement, cluster)``.
    Raises :class:`~rebalance.errors.KafkaError` where Kafka throws (``InvalidReplicationFactorException``...)
    and :class:`~rebalance.errors.InputError` for malformed input."""

    #: the registry name (:data:`PLACERS`), also returned by ``name()``
    NAME: str

    def name(self) -> str: ...

    def place(self, placement: PlacementSpec, cluster: Union[ClusterDescriber, Iterable[Any]]) -> TopicAssignment: ...


class AdminUtilsPlacer:
    """``AdminUtils.assignReplicasToBrokers(brokers, nPartitions, replicationFactor, fixedStartIndex,
    startPartitionId)`` (Kafka 3.9.2 and 4.0, gone from 4.1) behind the :class:`ReplicaPlacer` interface.

    ``PlacementSpec.start_partition`` is ``startPartitionId``, ``num_replicas`` the replication factor;
    ``fixed_start_index`` (``-1``: random) is fixed per placer.  With a random start, ``startIndex`` and the
    first shift are drawn from ``random`` (one stream for all ``place`` calls, as Kafka's static ``RAND``),
    or from ``JavaRandom(seed)``.

    Defined in chapter 12, *Placing replicas*."""

    #: the registry name (:data:`PLACERS`)
    NAME = "AdminUtils"

    def name(self) -> str:
        """The registry name, :attr:`NAME` (the package's one convention: a ``NAME`` constant on the class and a
        ``name()`` method, as Kafka's assignors have ``String name()``)."""
        return self.NAME

    def __init__(self, random: Optional[JavaRandom] = None, seed: Optional[int] = None, *,
                 fixed_start_index: int = -1):
        self.random = random if random is not None else JavaRandom(seed)
        self.fixed_start_index = fixed_start_index

    def place(self, placement: Union[PlacementSpec, Dict[str, Any]], cluster: Union[ClusterDescriber, Iterable[Any]]
              ) -> TopicAssignment:
        """``ReplicaPlacer.place`` through ``AdminUtils.assignReplicasToBrokers``: partition ids from
        ``max(0, start_partition)``."""
        spec = placement_spec(placement)
        brokers = usable_brokers(cluster, with_fenced=False)
        mapping = assign_replicas_to_brokers(brokers, spec.num_partitions, spec.num_replicas, self.fixed_start_index,
                                             spec.start_partition, random=self.random)
        return TopicAssignment.of(mapping.values(), max(0, spec.start_partition))


def _striped(random: JavaRandom, fixed_start_index: int = -1) -> ReplicaPlacer:
    """``StripedReplicaPlacer(random)`` (it has no start index: ``fixed_start_index`` is not used)."""
    return StripedReplicaPlacer(random)


def _admin_utils(random: JavaRandom, fixed_start_index: int = -1) -> ReplicaPlacer:
    """``AdminUtilsPlacer(random, fixed_start_index=...)``."""
    return AdminUtilsPlacer(random, fixed_start_index=fixed_start_index)


#: placer name -> factory ``(random, fixed_start_index) -> ReplicaPlacer``, in the order the book shows them
PLACERS: Dict[str, Callable[[JavaRandom, int], ReplicaPlacer]] = {
    AdminUtilsPlacer.NAME: _admin_utils,
    StripedReplicaPlacer.NAME: _striped,
}


def placer_for(name: object, random: Optional[JavaRandom] = None, *, seed: Optional[int] = None,
               fixed_start_index: int = -1, field: str = "placer") -> ReplicaPlacer:
    """A new placer called ``name`` (a key of :data:`PLACERS`) drawing from ``random`` (or
    ``JavaRandom(seed)``); ``InputError(field)`` for an unknown name."""
    factory = PLACERS.get(name) if isinstance(name, str) else None
    if factory is None:
        raise InputError(field, f"must be one of {', '.join(PLACERS)}, got {name!r}")
    return factory(random if random is not None else JavaRandom(seed), fixed_start_index)


__all__ = ["AdminUtilsPlacer", "PLACERS", "ReplicaPlacer", "placer_for"]
