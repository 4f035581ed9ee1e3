"""What the consumers' own logs add to the broker's: who a member id is, why it rejoined or left, and when its
partitions were given up and taken again.

A consumer's group lines (kafka-clients 4.3.1) carry its ``LogContext``, ``[Consumer clientId=C, groupId=G]``,
and some carry its member id: ``Successfully joined group with generation Generation{generationId=N,
memberId='M', ...}`` and ``Member M sending LeaveGroup request ... due to R`` (``AbstractCoordinator``, classic),
``Member M with epoch E transitioned from S to T`` (``AbstractMembershipManager``, the consumer protocol).  Its
reasons: ``Request joining group due to: R`` (``AbstractCoordinator.requestRejoin``), ``consumer poll timeout has
expired`` (``AbstractCoordinator.handlePollTimeoutExpiry``; ``Consumer poll timeout has expired`` in
``AbstractHeartbeatRequestManager``).  Its partitions: ``Adding newly assigned partitions: [...]``, ``Revoke
previously assigned partitions [...]``, ``Lost previously assigned partitions [...]``
(``ConsumerRebalanceListenerInvoker``): a partition revoked or lost at *t* and added to a member of the same group
at *t'* stood unowned for *t' - t*.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from .patterns import LineEvent
from .reasons import classify_client_reason

__all__ = ["ClientReason", "ClientLogs", "partitions_of"]

_TP = re.compile(r"([^\s,\[\]{}=]+)-(\d+)")


def partitions_of(text: str) -> List[str]:
    """The ``topic-partition`` names of a printed collection (``[t-0, t-1]``; Java's ``TopicPartition.toString``)."""
    return [f"{t}-{p}" for t, p in _TP.findall(text)]


@dataclass(frozen=True)
class ClientReason:
    """A consumer's reason at ``at_ms``: its ``client_id``, member id when the line gives it, the ``kind`` it names
    (or ``None``) and its ``text``."""

    at_ms: int
    client_id: str
    member: Optional[str]
    kind: Optional[str]
    text: str


@dataclass
class ClientLogs:
    """Everything the consumers' lines say, by group."""

    clients: Dict[Tuple[str, str], str] = field(default_factory=dict)   # (group, member id) -> client id
    reasons: Dict[str, List[ClientReason]] = field(default_factory=dict)
    released: Dict[str, List[Tuple[int, str, str]]] = field(default_factory=dict)   # group -> (time, tp, client)
    acquired: Dict[str, List[Tuple[int, str, str]]] = field(default_factory=dict)
    lines: int = 0

    def feed(self, e: LineEvent) -> None:
        f = e.fields
        group, client = f.get("group", ""), f.get("client_id", "")
        self.lines += 1
        member = f.get("member")
        if member:
            self.clients[(group, member)] = client
        if e.event == "k_request_join":
            text = f["reason"]
            self.reasons.setdefault(group, []).append(ClientReason(e.at_ms, client, member, classify_client_reason(text), text))
        elif e.event == "k_poll_timeout":
            self.reasons.setdefault(group, []).append(
                ClientReason(e.at_ms, client, member, "poll timeout", "consumer poll timeout has expired"))
        elif e.event == "k_leave" and "reason" in f:
            text = f["reason"]
            self.reasons.setdefault(group, []).append(
                ClientReason(e.at_ms, client, member, classify_client_reason(text) or "leave", text))
        elif e.event in ("k_revoked", "k_lost"):
            for tp in partitions_of(f.get("partitions", "")):
                self.released.setdefault(group, []).append((e.at_ms, tp, client))
        elif e.event == "k_assigned":
            for tp in partitions_of(f.get("partitions", "")):
                self.acquired.setdefault(group, []).append((e.at_ms, tp, client))

    def client_of(self, group: str, member: Optional[str]) -> Optional[str]:
        """The client id of ``member`` in ``group``, when a client's line gave it."""
        return self.clients.get((group, member)) if member is not None else None

    def reason_near(self, group: str, client: Optional[str], member: Optional[str], at_ms: int,
                    before_ms: int = 60_000, after_ms: int = 2_000) -> Optional[ClientReason]:
        """The last reason of ``client`` (or of ``member``) in ``group`` from ``before_ms`` before ``at_ms`` to
        ``after_ms`` after it; one that names a kind wins over one that does not."""
        found = [r for r in self.reasons.get(group, []) if at_ms - before_ms <= r.at_ms <= at_ms + after_ms
                 and ((client is not None and r.client_id == client) or (member is not None and r.member == member))]
        named = [r for r in found if r.kind is not None]
        best = named or found
        return best[-1] if best else None

    def unowned(self, group: str, start_ms: int, end_ms: int) -> Optional[Tuple[int, int]]:
        """``(partitions, partition-milliseconds)``: the partitions released (revoked or lost) in ``[start_ms,
        end_ms]`` and how long, summed, they stood unowned until a member of the group was given them; ``None``
        when no client log of the group says anything."""
        if group not in self.released and group not in self.acquired:
            return None
        acquired = sorted(self.acquired.get(group, []))
        count = total = 0
        for at, tp, _ in sorted(self.released.get(group, [])):
            if not start_ms <= at <= end_ms:
                continue
            again = next((t for t, p, _ in acquired if p == tp and t >= at), None)
            if again is not None:
                count += 1
                total += again - at
        return count, total
