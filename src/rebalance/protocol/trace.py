"""Trace records shared by both group simulators: wire messages and events on the virtual clock.

:class:`Message` is one request or response of the classic group protocol (``JoinGroup``, ``SyncGroup``,
``Heartbeat``, ``LeaveGroup``, ``FindCoordinator``; the request and response schemas of
``clients/src/main/resources/common/message`` at Kafka's commit 1eb7644, trunk before 4.0), kept for
sequence diagrams.  :class:`TraceEvent` is one state change, decision or fault, recorded by the classic simulator
(:class:`rebalance.protocol.simulation.GroupSimulation`) and by the KIP-848 model
(:class:`rebalance.kip848.simulation.KIP848Simulation`) alike.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence

from .group import MEMBER_ID_REQUIRED, NONE

__all__ = ["Message", "TraceEvent", "format_messages", "format_events", "EVENT_KINDS"]

#: the classic simulator's event kinds that :func:`format_events` shows by default
EVENT_KINDS = ("state", "revoke", "assigned", "lost", "fault", "decision", "assign")


@dataclass(slots=True)
class Message:
    """One request or response on the wire (classic group protocol)."""

    id: int
    api: str            # JoinGroup, SyncGroup, Heartbeat, LeaveGroup, FindCoordinator
    kind: str           # "request" or "response"
    src: str
    dst: str
    sent_ms: int
    recv_ms: int
    fields: Dict[str, Any] = field(default_factory=dict)

    def label(self) -> str:
        """``JoinGroup(memberId=..)`` for a request, ``JoinGroupResponse(NONE gen=2 leader=..)`` for a response."""
        f = self.fields
        if self.kind == "response":
            err = f.get("error", NONE)
            extra = ""
            if self.api == "JoinGroup" and err == NONE:
                extra = f" gen={f.get('generation')} leader={f.get('leader')}"
            elif self.api == "SyncGroup" and err == NONE:
                extra = f" {len(f.get('assignment', []))} partitions"
            elif self.api == "FindCoordinator" and err == NONE:
                extra = f" node={f.get('nodeId')}"
            elif self.api == "JoinGroup" and err == MEMBER_ID_REQUIRED:
                extra = f" memberId={f.get('memberId')}"
            return f"{self.api}Response({err}{extra})"
        parts = [f"{k}={v}" for k, v in f.items() if v not in (None, "", False)]
        return f"{self.api}({', '.join(parts)})"


@dataclass(slots=True)
class TraceEvent:
    """One event at virtual time ``time_ms``: ``actor`` (a member, ``coordinator``) did ``kind`` (a state
    change, a decision, a revocation, a fault...) with ``fields``."""

    time_ms: int
    actor: str
    kind: str
    fields: Dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> Dict[str, Any]:
        """A JSON-ready dict of the event."""
        return {"time_ms": self.time_ms, "actor": self.actor, "kind": self.kind, "fields": self.fields}


def format_messages(messages: Iterable[Message], apis: Optional[Sequence[str]] = None, since: int = 0) -> List[str]:
    """The message trace as text lines ``time src -> dst: Label``."""
    return [f"{m.sent_ms:>7} {m.src} -> {m.dst}: {m.label()}" for m in messages
            if m.sent_ms >= since and (apis is None or m.api in apis)]


def format_events(events: Iterable[TraceEvent], kinds: Sequence[str] = EVENT_KINDS, since: int = 0) -> List[str]:
    """The events as text lines ``time actor kind field=value ...`` (partitions written ``topic-p``)."""
    out = []
    for e in events:
        if e.time_ms < since or e.kind not in kinds:
            continue
        f = dict(e.fields)
        if "partitions" in f:
            f["partitions"] = " ".join(f"{t}-{p}" for t, p in f["partitions"])
        if "assignment" in f:
            f["assignment"] = {k: " ".join(f"{t}-{p}" for t, p in v) for k, v in f["assignment"].items()}
        body = " ".join(f"{k}={v}" for k, v in f.items())
        out.append(f"{e.time_ms:>7} {e.actor} {e.kind} {body}")
    return out
