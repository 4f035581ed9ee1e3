"""What Connect's group protocol does to the order of connectors and tasks on the wire.

Mirrors ``ConnectProtocol`` (V0, eager), ``IncrementalCooperativeConnectProtocol`` (V1 "compatible",
V2 "sessioned"), ``ExtendedAssignment`` and ``ExtendedWorkerState`` (Kafka 3.8/3.9).

An assignment is serialized as a list of ``(connector, [task numbers])`` groups, ``-1`` standing for the
connector itself (``ConnectProtocol.CONNECTOR_TASK``):

* ``Assignment.asMap`` (assigned work) builds a ``LinkedHashMap``: first one group per assigned
  connector, iterating ``new HashSet<>(connectorIds)`` (so in Java ``HashSet`` order), then each task is
  appended to its connector's group, creating new groups in order of first appearance;
* ``ExtendedAssignment.revokedAsMap`` does the same but keeps the revoked connectors in list order.

Deserializing reads the connectors (groups holding ``-1``) and then the tasks, group by group.  The
leader therefore sees each worker's running connectors in hash order and its tasks grouped by
connector, which decides which tasks a load-balancing revocation picks first in protocol mode.

This module models the order and the content of the messages (it does not produce the bytes).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from ..errors import InputError
from ..java import string_hash
from .model import CONNECTOR_TASK, ConnectorTaskId, hash_set_copy_order

#: protocol name -> (Connect protocol compatibility, version in the assignment header)
PROTOCOLS: Dict[str, int] = {"default": 0, "eager": 0, "compatible": 1, "sessioned": 2}

Groups = List[Tuple[str, List[int]]]


def protocol_version(protocol: str, field_name: str = "protocol") -> int:
    """``ConnectProtocolCompatibility.fromProtocol(protocol).protocolVersion()``."""
    try:
        return PROTOCOLS[protocol]
    except (KeyError, TypeError):
        raise InputError(field_name, f"unknown Connect protocol {protocol!r}; use default, compatible or sessioned") from None


def assigned_groups(connectors: Sequence[str], tasks: Sequence[ConnectorTaskId]) -> Groups:
    """``ConnectProtocol.Assignment.asMap()``: the groups written on the wire for assigned work."""
    groups: Dict[str, List[int]] = {}
    for connector in hash_set_copy_order(list(connectors), string_hash):
        groups.setdefault(connector, []).append(CONNECTOR_TASK)
    for connector, task in tasks:
        groups.setdefault(connector, []).append(task)
    return list(groups.items())


def revoked_groups(connectors: Sequence[str], tasks: Sequence[ConnectorTaskId]) -> Groups:
    """``ExtendedAssignment.revokedAsMap()``: the groups written for revoked work."""
    groups: Dict[str, List[int]] = {}
    for connector in dict.fromkeys(connectors):
        groups.setdefault(connector, []).append(CONNECTOR_TASK)
    for connector, task in tasks:
        groups.setdefault(connector, []).append(task)
    return list(groups.items())


def read_groups(groups: Groups) -> Tuple[List[str], List[ConnectorTaskId]]:
    """``ExtendedAssignment.extractConnectors``/``extractTasks``: the lists a worker reads back."""
    connectors = [c for c, ids in groups for i in ids if i == CONNECTOR_TASK]
    tasks = [(c, i) for c, ids in groups for i in ids if i != CONNECTOR_TASK]
    return connectors, tasks


def assigned_on_the_wire(connectors: Sequence[str], tasks: Sequence[ConnectorTaskId]) -> Tuple[List[str], List[ConnectorTaskId]]:
    """Assigned connectors and tasks after a serialize/deserialize round trip."""
    return read_groups(assigned_groups(connectors, tasks))


def revoked_on_the_wire(connectors: Sequence[str], tasks: Sequence[ConnectorTaskId]) -> Tuple[List[str], List[ConnectorTaskId]]:
    """Revoked connectors and tasks after a serialize/deserialize round trip."""
    return read_groups(revoked_groups(connectors, tasks))


@dataclass
class ExtendedAssignment:
    """``ExtendedAssignment``: what the leader sends each worker (``version`` 0 = plain ``Assignment``)."""

    version: int
    error: int
    leader: str
    leader_url: str
    config_offset: int
    connectors: List[str] = field(default_factory=list)
    tasks: List[ConnectorTaskId] = field(default_factory=list)
    revoked_connectors: List[str] = field(default_factory=list)
    revoked_tasks: List[ConnectorTaskId] = field(default_factory=list)
    delay: int = 0

    NO_ERROR = 0
    CONFIG_MISMATCH = 1

    def round_trip(self) -> "ExtendedAssignment":
        """The assignment as the worker deserializes it (orders as on the wire)."""
        c, t = assigned_on_the_wire(self.connectors, self.tasks)
        if self.version == 0:
            rc, rt = [], []
        else:
            rc, rt = revoked_on_the_wire(self.revoked_connectors, self.revoked_tasks)
        return ExtendedAssignment(self.version, self.error, self.leader, self.leader_url, self.config_offset,
                                  c, t, rc, rt, self.delay if self.version > 0 else 0)


@dataclass
class ExtendedWorkerState:
    """``ExtendedWorkerState``: a worker's JoinGroup metadata -- REST url, config offset and (V1+) the
    assignment it is running."""

    url: str
    offset: int
    connectors: List[str] = field(default_factory=list)
    tasks: List[ConnectorTaskId] = field(default_factory=list)

    def as_leader_sees_it(self, version: int) -> "ExtendedWorkerState":
        """After ``serializeMetadata``/``deserializeMetadata``: V0 carries no assignment at all."""
        if version == 0 or (not self.connectors and not self.tasks):
            return ExtendedWorkerState(self.url, self.offset)
        c, t = assigned_on_the_wire(self.connectors, self.tasks)
        return ExtendedWorkerState(self.url, self.offset, c, t)


__all__ = [
    "ExtendedAssignment", "ExtendedWorkerState", "PROTOCOLS", "assigned_groups", "assigned_on_the_wire",
    "protocol_version", "read_groups", "revoked_groups", "revoked_on_the_wire",
]
