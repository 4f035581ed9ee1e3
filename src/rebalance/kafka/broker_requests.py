"""Requests to a real broker over a plain socket, in Kafka's wire protocol (no client library).

The drivers of real clusters ask a broker two things directly: which brokers it knows (:func:`metadata_brokers`,
one ``MetadataRequest``: :class:`~rebalance.kafka.cluster.KafkaCluster` waits for it to list every broker, and
:func:`rebalance.kafka.placement.fence_broker` until it no longer lists a dead one) and which broker coordinates a
group (``FindCoordinatorRequest``, :mod:`rebalance.kafka.coordinators`).  Both are one request and one answer:
:func:`round_trip` sends a request (the header and body as Kafka's ``RequestHeader`` v1 and the request's
``Struct`` write them, without the size) and returns the answer without its size; :func:`recv_exactly` reads an
exact number of bytes.
"""
from __future__ import annotations

import socket
import struct
from typing import Dict, NamedTuple, Optional

__all__ = ["BrokerAddress", "metadata_brokers", "recv_exactly", "round_trip", "CLIENT_ID"]

#: the ``client.id`` of every request sent from here
CLIENT_ID = b"rebalance"


class BrokerAddress(NamedTuple):
    """One broker as ``MetadataResponse`` v1 lists it: ``host``, ``port`` and ``rack`` (``None``: no rack)."""

    host: str
    port: int
    rack: Optional[str]


def recv_exactly(s: socket.socket, n: int) -> bytes:
    """Exactly ``n`` bytes from ``s``; ``ConnectionError`` when the broker closes the connection first."""
    chunks, got = [], 0
    while got < n:
        chunk = s.recv(n - got)
        if not chunk:
            raise ConnectionError("connection closed")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def round_trip(port: int, request: bytes, *, host: str = "127.0.0.1", timeout: float = 2.0) -> bytes:
    """Send one request (its header and body) to ``host:port`` and return the answer (its header and body, the
    size prefix read off); ``OSError`` when the broker cannot be reached or does not answer within ``timeout``."""
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.sendall(struct.pack(">i", len(request)) + request)
        (size,) = struct.unpack(">i", recv_exactly(s, 4))
        return recv_exactly(s, size)


def metadata_brokers(port: int, timeout: float = 2.0) -> Dict[int, BrokerAddress]:
    """The brokers a broker on ``127.0.0.1:port`` reports, ``{node_id: BrokerAddress}``, from one ``Metadata``
    request (API key 3, version 1: an empty topic list asks for brokers only).  Only fenced-out (not yet
    registered, or shut down) brokers are missing from the answer.  ``OSError`` when it cannot be reached,
    ``struct.error`` for an answer cut short."""
    header = struct.pack(">hhih", 3, 1, 1, len(CLIENT_ID)) + CLIENT_ID  # api key, version, correlation id, client
    data = round_trip(port, header + struct.pack(">i", 0), timeout=timeout)
    pos = 4  # correlation id
    (count,) = struct.unpack_from(">i", data, pos)
    pos += 4
    brokers: Dict[int, BrokerAddress] = {}
    for _ in range(count):
        node_id, n = struct.unpack_from(">ih", data, pos)
        pos += 6
        host = data[pos:pos + n].decode()
        pos += n
        bport, rn = struct.unpack_from(">ih", data, pos)
        pos += 6
        rack = None if rn < 0 else data[pos:pos + rn].decode()
        pos += max(rn, 0)
        brokers[node_id] = BrokerAddress(host, bport, rack)
    return brokers
