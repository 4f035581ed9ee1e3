"""What Connect's group protocol does to the order of connectors and tasks on the wire.

Mirrors ``ConnectProtocol`` (V0, eager), ``IncrementalCooperativeConnectProtocol`` (V1 "compatible",
V2 "sessioned"), ``ExtendedAssignment`` and ``ExtendedWorkerState`` (Kafka 4.3.1).

An assignment is serialized as a list of ``(connector, [task numbers])`` groups, ``-1`` standing for the
connector itself (``ConnectProtocol.CONNECTOR_TASK``):

* ``Assignment.asMap`` (assigned work) builds a ``LinkedHashMap``: first one group per assigned
  connector, iterating ``new HashSet<>(connectorIds)`` (so in Java ``HashSet`` order), then each task is
  appended to its connector's group, creating new groups in order of first appearance;
* ``ExtendedAssignment.revokedAsMap`` does the same but keeps the revoked connectors in list order.

Deserializing reads the connectors (groups holding ``-1``) and then the tasks, group by group.  The
leader therefore sees each worker's running connectors in hash order and its tasks grouped by
connector, which decides which tasks a load-balancing revocation picks first in protocol mode.

The byte formats are those of Kafka's ``Schema``/``Struct`` types (read through :class:`rebalance.wire.ByteBuffer`,
the reader the consumer's sticky user data uses too): ``INT16``/``INT32``/``INT64`` big
endian, ``STRING`` = int16 length + UTF-8, ``ARRAY`` = int32 count (-1 for a null nullable array),
``NULLABLE_BYTES`` = int32 length (-1 for null).  Schemas read with "tolerate missing fields" take the
field's default when the buffer is exhausted, which is how a V1 reader understands V0 bytes.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from ..errors import InputError
from ..java import string_hash
from ..wire import ByteBuffer, SchemaError
from .model import CONNECTOR_TASK, ConnectorTaskId, hash_set_copy_order

#: protocol name -> (Connect protocol compatibility, version in the assignment header)
PROTOCOLS: Dict[str, int] = {"default": 0, "eager": 0, "compatible": 1, "sessioned": 2}

Groups = List[Tuple[str, List[int]]]


def protocol_version(protocol: object, field_name: str = "protocol") -> int:
    """``ConnectProtocolCompatibility.fromProtocol(protocol).protocolVersion()``."""
    version = PROTOCOLS.get(protocol) if isinstance(protocol, str) else None
    if version is None:
        raise InputError(field_name, f"unknown Connect protocol {protocol!r}; use default, compatible or sessioned")
    return version


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


# ---------------------------------------------------------------------------------------------
# Kafka protocol primitive types


class _Writer:
    def __init__(self) -> None:
        self.parts: List[bytes] = []

    def int16(self, v: int) -> "_Writer":
        self.parts.append(struct.pack(">h", v))
        return self

    def int32(self, v: int) -> "_Writer":
        self.parts.append(struct.pack(">i", v))
        return self

    def int64(self, v: int) -> "_Writer":
        self.parts.append(struct.pack(">q", v))
        return self

    def string(self, v: str) -> "_Writer":
        if v is None:
            raise InputError("string", "Kafka's STRING type cannot be null")
        data = v.encode("utf-8")
        if len(data) > 32767:
            raise InputError("string", "longer than 32767 bytes")
        self.parts.append(struct.pack(">h", len(data)) + data)
        return self

    def nullable_bytes(self, v: Optional[bytes]) -> "_Writer":
        if v is None:
            return self.int32(-1)
        self.parts.append(struct.pack(">i", len(v)) + v)
        return self

    def groups(self, groups: Optional[Groups]) -> "_Writer":
        if groups is None:
            return self.int32(-1)
        parts = self.parts
        parts.append(struct.pack(">i", len(groups)))
        for connector, ids in groups:
            data = connector.encode("utf-8")
            parts.append(struct.pack(f">h{len(data)}si{len(ids)}i", len(data), data, len(ids), *ids))
        return self

    def getvalue(self) -> bytes:
        return b"".join(self.parts)


def _read_groups(r: ByteBuffer) -> Optional[Groups]:
    """A nullable ``ArrayOf`` of ``(connector: STRING, tasks: ArrayOf(INT32))`` structs
    (``CONNECTOR_ASSIGNMENT_V0``), the reads of ``Schema.read`` inlined (an assignment can list thousands of
    tasks); any malformed or truncated field is a ``SchemaException``."""
    n = r.get_int()
    if n < 0:
        return None
    data, pos, end = r.data, r.position, len(r.data)
    out = []
    try:
        for _ in range(n):
            (length,) = struct.unpack_from(">h", data, pos)
            if length < 0 or pos + 2 + length > end:
                raise SchemaError("bad STRING in connector assignment")
            connector = data[pos + 2:pos + 2 + length].decode("utf-8", errors="replace")
            pos += 2 + length
            (m,) = struct.unpack_from(">i", data, pos)
            if m < 0:
                raise SchemaError("tasks array is null")
            out.append((connector, list(struct.unpack_from(f">{m}i", data, pos + 4))))
            pos += 4 + 4 * m
    except struct.error:
        raise SchemaError("BufferUnderflowException") from None
    r.position = pos
    return out


def _header_version(reader: ByteBuffer) -> int:
    version = reader.get_short()
    if version < 0:  # checkVersionCompatibility
        raise SchemaError(f"Unsupported subscription version: {version}")
    return version


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

    def serialize(self) -> bytes:
        """``ConnectProtocol.serializeAssignment`` (version 0) or
        ``IncrementalCooperativeConnectProtocol.serializeAssignment`` (versions 1 and 2)."""
        w = _Writer().int16(self.version).int16(self.error).string(self.leader).string(self.leader_url)
        w.int64(self.config_offset).groups(assigned_groups(self.connectors, self.tasks))
        if self.version > 0:
            w.groups(revoked_groups(self.revoked_connectors, self.revoked_tasks)).int32(self.delay)
        return w.getvalue()

    @staticmethod
    def deserialize(data: bytes) -> "ExtendedAssignment":
        """``IncrementalCooperativeConnectProtocol.deserializeAssignment`` (what
        ``WorkerCoordinator.onJoinComplete`` calls for every protocol): missing V1 fields take their
        defaults, so V0 bytes read as no revocations and delay 0."""
        r = ByteBuffer(data)
        version = _header_version(r)
        error, leader, leader_url, offset = r.get_short(), r.read_string(), r.read_string(), r.get_long()
        assigned = _read_groups(r) if r.has_remaining() else None
        revoked = _read_groups(r) if r.has_remaining() else None
        delay = r.get_int() if r.has_remaining() else 0
        c, t = read_groups(assigned or [])
        rc, rt = read_groups(revoked or [])
        return ExtendedAssignment(version, error, leader, leader_url, offset, c, t, rc, rt, delay)

    def round_trip(self) -> "ExtendedAssignment":
        """The assignment as the worker deserializes it (orders as on the wire)."""
        return ExtendedAssignment.deserialize(self.serialize())


@dataclass
class ExtendedWorkerState:
    """``ExtendedWorkerState``: a worker's JoinGroup metadata -- REST url, config offset and (V1+) the
    assignment it is running."""

    url: str
    offset: int
    connectors: List[str] = field(default_factory=list)
    tasks: List[ConnectorTaskId] = field(default_factory=list)
    leader: Optional[str] = None
    leader_url: Optional[str] = None

    def serialize(self, version: int) -> bytes:
        """JoinGroup metadata: ``ConnectProtocol.serializeMetadata`` (version 0: url and config offset
        only) or ``IncrementalCooperativeConnectProtocol.serializeMetadata`` (versions 1 and 2: plus the
        running assignment, as a nested serialized ``ExtendedAssignment``, or null when there is none)."""
        w = _Writer().int16(version).string(self.url).int64(self.offset)
        if version > 0:
            allocation = None
            if self.connectors or self.tasks:
                allocation = ExtendedAssignment(version, ExtendedAssignment.NO_ERROR, self.leader or "",
                                                self.leader_url or "", self.offset,
                                                list(self.connectors), list(self.tasks)).serialize()
            w.nullable_bytes(allocation)
        return w.getvalue()

    @staticmethod
    def deserialize(data: bytes) -> Tuple[int, "ExtendedWorkerState"]:
        """``IncrementalCooperativeConnectProtocol.deserializeMetadata`` (used by both assignors):
        returns ``(header version, state)``."""
        r = ByteBuffer(data)
        version = _header_version(r)
        url, offset = r.read_string(), r.get_long()
        allocation = r.read_nullable_bytes() if r.has_remaining() else None
        if allocation is None:
            return version, ExtendedWorkerState(url, offset)
        a = ExtendedAssignment.deserialize(allocation)
        return version, ExtendedWorkerState(url, offset, a.connectors, a.tasks, a.leader, a.leader_url)

    def as_leader_sees_it(self, version: int) -> "ExtendedWorkerState":
        """After ``serializeMetadata``/``deserializeMetadata``: V0 carries no assignment at all."""
        return ExtendedWorkerState.deserialize(self.serialize(version))[1]


__all__ = [
    "ExtendedAssignment", "ExtendedWorkerState", "PROTOCOLS", "assigned_groups", "assigned_on_the_wire",
    "protocol_version", "read_groups", "revoked_groups", "revoked_on_the_wire",
]
