"""The interface of Kafka Connect's assignors and the registry keyed by ``connect.protocol``.

Mirrors ``org.apache.kafka.connect.runtime.distributed.ConnectAssignor`` (Kafka 4.3.1):
``performAssignment(leaderId, protocol, allMemberMetadata, coordinator)``, the leader's call on serialized
``JoinGroup`` metadata (``protocol`` is the wire name up to 4.1.0 and a ``ConnectProtocolCompatibility`` in
4.3.1, KAFKA-19140; the behaviour is the same).  ``WorkerCoordinator`` builds one ``EagerAssignor`` and one
``IncrementalCooperativeAssignor`` and picks by ``ConnectProtocolCompatibility.fromProtocol(protocol)``
(``WorkerCoordinator.onLeaderElected``, lines 224-235 in 4.3.1, 229-239 at commit 1eb7644): ``EAGER``
(wire name ``default``) -> eager, the others (``compatible``, ``sessioned``) -> incremental.  :data:`ASSIGNORS` is that choice by the
``connect.protocol`` config value, and :func:`assignor_for` builds one; the cluster driver
(:class:`~rebalance.connect.cluster.ConnectCluster`), the vectors adapter and the chapter helpers go through it.

Besides Kafka's byte-level method, every assignor here offers the direct call Kafka's unit tests make,
``perform_task_assignment(connectors, lastCompletedGenerationId, currentGenerationId, memberAssignments)``,
returning the one result type :class:`~rebalance.connect.model.ClusterAssignment`.

:class:`ReplayOptions` holds the switches that exist only to replay Kafka's recorded test harness; only
:mod:`rebalance.connect.vectors` passes them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Protocol, Sequence, Tuple, Type, Union, runtime_checkable

from ..errors import InputError
from ..java import INT_MAX, INT_MIN
from ..validation import require
from .eager import EagerAssignor
from .incremental import DEFAULT_MAX_DELAY_MS, IncrementalCooperativeAssignor, MemberAssignments, MockTime
from .leader import CoordinatorState
from .model import ClusterAssignment
from .protocol import protocol_version


@runtime_checkable
class ConnectAssignor(Protocol):
    """``ConnectAssignor`` (Kafka 4.3.1) plus the direct call of Kafka's unit tests.

    ``NAME`` is the assignor family (``"eager"`` or ``"incremental"``), ``PROTOCOLS`` the ``connect.protocol``
    values it serves and ``delay`` the ``scheduled.rebalance.max.delay.ms`` wait it last sent (always 0 for
    the eager assignor).
    """

    NAME: str
    PROTOCOLS: Tuple[str, ...]
    delay: int

    def name(self) -> str: ...

    def perform_assignment(self, leader_id: str, protocol: str, all_member_metadata: Sequence[Tuple[str, bytes]],
                           coordinator: CoordinatorState) -> Dict[str, bytes]: ...

    def perform_task_assignment(self, connectors: Mapping[str, int], last_completed_generation_id: int,
                                current_generation_id: int, member_assignments: MemberAssignments,
                                member_order: Optional[Sequence[str]] = None) -> ClusterAssignment: ...


AssignorClass = Type[Union[EagerAssignor, IncrementalCooperativeAssignor]]

#: ``connect.protocol`` value -> the assignor ``WorkerCoordinator.onLeaderElected`` runs for it
ASSIGNORS: Dict[str, AssignorClass] = {p: cls for cls in (EagerAssignor, IncrementalCooperativeAssignor)
                                       for p in cls.PROTOCOLS}

#: assignor family name (the vectors' ``"assignor"``) -> class
ASSIGNOR_NAMES: Dict[str, AssignorClass] = {cls.NAME: cls for cls in ASSIGNORS.values()}


def connect_protocol(protocol: object, field: str = "protocol") -> str:
    """The ``connect.protocol`` name of ``protocol``: a config value (``eager``, ``compatible``,
    ``sessioned``) or a wire name (``default`` is ``EAGER``'s, ``ConnectProtocolCompatibility.protocol()``)."""
    version = protocol_version(protocol, field)
    return next(name for name in ASSIGNORS if protocol_version(name) == version)


def assignor_for(protocol: object, *, max_delay_ms: int = DEFAULT_MAX_DELAY_MS, time: Optional[MockTime] = None,
                 previous_generation_id: int = -1, field: str = "protocol") -> ConnectAssignor:
    """A new assignor for ``connect.protocol=protocol`` (see :func:`connect_protocol`), with the leader's
    clock ``time`` and ``scheduled.rebalance.max.delay.ms``; ``InputError(field)`` for an unknown protocol."""
    return ASSIGNORS[connect_protocol(protocol, field)](max_delay_ms, time, previous_generation_id)


def assignor_class(name: object, field: str = "assignor") -> AssignorClass:
    """The assignor family called ``name`` (``"eager"`` or ``"incremental"``), or ``InputError(field)``."""
    if not isinstance(name, str) or name not in ASSIGNOR_NAMES:
        raise InputError(field, f"must be one of {', '.join(repr(n) for n in ASSIGNOR_NAMES)}, got {name!r}")
    return ASSIGNOR_NAMES[name]


@dataclass(frozen=True)
class ReplayOptions:
    """Switches of Kafka's recorded test harness; only :mod:`rebalance.connect.vectors` passes them.

    ``members_map``: the member map ``performTaskAssignment`` iterates, a Java ``HashMap`` (``"hash"``, as
    ``WorkerCoordinator`` builds it) or input order (``"linked"``, as some of Kafka's unit tests build it);
    ``initial_previous_generation_id``: the generation the new leader's assignor believes it last assigned
    (default: the cluster's initial generation).
    """

    members_map: str = "hash"
    initial_previous_generation_id: Optional[int] = None

    def check(self) -> "ReplayOptions":
        """Raise ``InputError`` naming the first bad switch; return ``self``."""
        require(self.members_map in ("hash", "linked"), "members_map",
                f"must be 'hash' or 'linked', got {self.members_map!r}")
        prev = self.initial_previous_generation_id
        require(prev is None or (isinstance(prev, int) and not isinstance(prev, bool) and INT_MIN <= prev <= INT_MAX),
                "initial_previous_generation_id", f"must be an integer (a Java int), got {prev!r}")
        return self


__all__ = ["ASSIGNORS", "ASSIGNOR_NAMES", "AssignorClass", "ConnectAssignor", "ReplayOptions", "assignor_class",
           "assignor_for", "connect_protocol"]
