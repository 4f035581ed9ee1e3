"""A live consumer group: real members joining, leaving, crashing and restarting, and the trace they leave.

:class:`LiveGroup` drives :class:`~rebalance.live.member.LiveMember` s (``confluent_kafka.Consumer``) in one
group on a :class:`~rebalance.live.mock.MockCluster`.  Every step waits on a *condition*, never on a fixed
sleep: :meth:`LiveGroup.wait_settled` returns when every polling member has joined the same generation, their
assignments are disjoint and cover every subscribed partition, and nothing has happened for ``quiet_ms``.

The trace is a list of :class:`~rebalance.protocol.trace.TraceEvent`, the simulator's type, with the kinds the
simulator uses for the same things (``revoke``, ``assigned``, ``lost``, ``assign`` for the leader's assignor
run, ``member`` for starts, leaves, crashes and restarts) plus ``joined`` (a JoinGroup response with the
generation and the partitions the member owned when it joined).  ``time_ms`` is wall-clock time since the
group was created and differs from run to run; :meth:`LiveGroup.format_events` leaves it out.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple, Type

from ..errors import LiveClientError, WaitTimeoutError
from ..protocol.trace import TraceEvent, format_events
from ..validation import require
from .config import MemberConfig
from .member import LiveMember, TopicPartition
from .mock import MockCluster

__all__ = ["LiveGroup", "RoundRecord", "LIVE_EVENT_KINDS"]

#: the kinds :meth:`LiveGroup.format_events` shows by default
LIVE_EVENT_KINDS = ("member", "joined", "revoke", "assigned", "lost")


@dataclass(frozen=True)
class RoundRecord:
    """One rebalance round as the leader ran it: the generation, the assignor, the members in the order the
    assignor received them (by member name), what each owned when it joined (from its callbacks), and the
    assignment the leader computed."""

    generation: int
    assignor: str
    members: Tuple[str, ...]
    owned: Mapping[str, Tuple[TopicPartition, ...]]
    owned_counts: Mapping[str, int]
    previous_generation: Mapping[str, Optional[int]]
    assignment: Mapping[str, Tuple[TopicPartition, ...]]
    member_ids: Mapping[str, str]
    #: the generation of each member's last successful SyncGroup when it joined (None: never synced), the
    #: generation librdkafka's sticky assignor sends (``rd_kafka_sticky_assignor_get_metadata``)
    synced_generation: Mapping[str, Optional[int]] = field(default_factory=dict)
    #: members whose JoinGroup response was never seen (closing): ``owned`` rebuilt from their callbacks
    from_callbacks: Tuple[str, ...] = ()


class LiveGroup:
    """Real consumers in group ``group_id`` on ``cluster``; a context manager that closes every consumer on
    exit, also when the block raises.

    Defined in chapter 10, *Watch real clients rebalance*."""

    def __init__(self, cluster: MockCluster, group_id: str):
        require(isinstance(cluster, MockCluster) and not cluster.closed, "cluster", "must be an open MockCluster")
        require(isinstance(group_id, str) and group_id != "", "group_id", "must be a non-empty string")
        self.cluster = cluster
        self.group_id = group_id
        self.members: Dict[str, LiveMember] = {}
        self.retired: List[LiveMember] = []
        self.events: List[TraceEvent] = []
        self._lock = threading.Lock()
        self._t0 = time.monotonic()
        self._last_event = self._t0
        self._restarts: Dict[str, int] = {}

    # ------------------------------------------------------------------ recording
    def _record(self, actor: str, kind: str, fields: Dict[str, Any]) -> None:
        now = time.monotonic()
        with self._lock:
            self.events.append(TraceEvent(int((now - self._t0) * 1000), actor, kind, fields))
            self._last_event = now

    # ------------------------------------------------------------------ schedule
    def join(self, name: str, config: MemberConfig) -> LiveMember:
        """Start member ``name`` with ``config`` (it subscribes and polls at once)."""
        require(isinstance(name, str) and name != "" and " " not in name, "name", "must be a non-empty word")
        require(isinstance(config, MemberConfig), f"members.{name}", "must be a MemberConfig")
        require(name not in self.members, f"members.{name}", "is already in the group (restart it instead)")
        for t in config.topics:
            require(t in self.cluster.topics, f"members.{name}.topics",
                    f"topic {t!r} does not exist on the mock cluster (create it first: the mock would "
                    f"auto-create it with 4 partitions)")
        member = LiveMember(name, config, self.cluster.bootstrap_servers, self.group_id, self._record)
        self.members[name] = member
        member.start()
        return member

    def _member(self, name: str) -> LiveMember:
        require(name in self.members, "name", f"no running member {name!r} (members: {sorted(self.members)})")
        return self.members[name]

    def leave(self, name: str) -> None:
        """Member ``name`` shuts down cleanly (``close``: revoke, commit, LeaveGroup unless static)."""
        member = self._member(name)
        self._record(name, "member", {"what": "close"})
        member.close()
        self.retired.append(self.members.pop(name))

    def crash(self, name: str) -> None:
        """Member ``name`` stops polling; librdkafka leaves after ``max.poll.interval.ms`` (see
        :meth:`LiveMember.stop_polling`).  It stays in :attr:`members` (not polling) until closed."""
        member = self._member(name)
        self._record(name, "member", {"what": "crash"})
        member.stop_polling()

    def restart(self, name: str, config: Optional[MemberConfig] = None) -> LiveMember:
        """Close member ``name`` and start a new process with the same (or a new) configuration: with
        ``group.instance.id`` the KIP-345 restart of a static member."""
        old = self._member(name)
        config = config or old.config
        self._record(name, "member", {"what": "restart"})
        old.close()
        self.retired.append(self.members.pop(name))
        self._restarts[name] = self._restarts.get(name, 0) + 1
        return self.join(name, config)

    # ------------------------------------------------------------------ conditions
    def partitions(self) -> Set[TopicPartition]:
        """Every partition some polling member subscribes to."""
        topics = {t for m in self.members.values() if m.polling for t in m.config.topics}
        return {(t, p) for t in topics for p in range(self.cluster.topics[t])}

    def assignment(self) -> Dict[str, List[TopicPartition]]:
        """Each polling member's current assignment (from its callbacks), sorted, by name."""
        return {n: sorted(m.assignment) for n, m in sorted(self.members.items()) if m.polling}

    def is_settled(self) -> bool:
        """Every polling member joined the same generation (classic protocol), assignments are disjoint and
        cover :meth:`partitions`."""
        polling = [m for m in self.members.values() if m.polling]
        if not polling:
            return False
        classic = [m for m in polling if m.config.group_protocol == "classic"]
        if classic and (any(m.generation is None for m in classic) or len({m.generation for m in classic}) != 1):
            return False
        owned: List[TopicPartition] = [tp for m in polling for tp in m.assignment]
        return len(owned) == len(set(owned)) and set(owned) == self.partitions()

    def wait_settled(self, timeout_s: float = 60.0, quiet_ms: int = 1500) -> Dict[str, List[TopicPartition]]:
        """Wait until :meth:`is_settled` holds and no event has been recorded for ``quiet_ms``; return
        :meth:`assignment`.  Raises :class:`~rebalance.errors.WaitTimeoutError` if the group does not settle
        within ``timeout_s`` (and :class:`~rebalance.errors.LiveClientError` if a member's client failed)."""
        require(isinstance(timeout_s, (int, float)) and timeout_s > 0, "timeout_s", "must be positive")
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            self.check_errors()
            if self.is_settled() and (time.monotonic() - self._last_event) * 1000 >= quiet_ms:
                return self.assignment()
            time.sleep(0.05)
        raise WaitTimeoutError(f"group {self.group_id!r} did not settle within timeout_s={timeout_s} s: "
                               f"{self.assignment()}")

    def wait_for(self, kind: str, actor: Optional[str] = None, count: int = 1, timeout_s: float = 60.0) -> None:
        """Wait until ``count`` events of ``kind`` (by ``actor`` if given) have been recorded."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            self.check_errors()
            with self._lock:
                n = sum(1 for e in self.events if e.kind == kind and (actor is None or e.actor == actor))
            if n >= count:
                return
            time.sleep(0.05)
        raise WaitTimeoutError(f"no {count} {kind!r} event(s) of {actor or 'any member'} "
                               f"within timeout_s={timeout_s} s")

    def check_errors(self) -> None:
        """Raise :class:`~rebalance.errors.LiveClientError` naming the member whose client reported a fatal
        error."""
        for name, m in self.members.items():
            if m.errors:
                raise LiveClientError(f"member {name!r}: the client failed: {m.errors[0]}")

    # ------------------------------------------------------------------ the record
    def names_by_id(self) -> Dict[str, str]:
        """librdkafka member id -> member name, for every process this group ran (a restarted member's
        processes carry ``name``, ``name~1``, ...)."""
        out: Dict[str, str] = {}
        seen: Dict[str, int] = {}
        for m in self.retired + list(self.members.values()):
            k = seen.get(m.name, 0)
            seen[m.name] = k + 1
            if m.member_id is not None:
                out[m.member_id] = m.name if k == 0 else f"{m.name}~{k}"
        return out

    def rounds(self) -> List[RoundRecord]:
        """Every assignor run a leader made, in order, with what each member owned when it joined that
        generation (its ``joined`` event) -- the input of the book's replay (:mod:`rebalance.live.peer`).

        A member that closes while the group rebalances can be in the leader's round without its JoinGroup
        response ever reaching the application (it has stopped polling); for such a member the partitions it
        held when it began to close (or, if it was not closing, at the time of the leader's run) are rebuilt
        from its callbacks, with the generation of its last successful SyncGroup (``synced`` events), and
        :attr:`RoundRecord.from_callbacks` names it."""
        by_id = self.names_by_id()
        with self._lock:
            events = list(self.events)
        joined: Dict[Tuple[int, str], Tuple[TopicPartition, ...]] = {}
        previous: Dict[Tuple[int, str], Optional[int]] = {}
        synced: Dict[Tuple[int, str], Optional[int]] = {}
        ids_at: Dict[int, Dict[str, str]] = {}  # generation -> member id -> name (the mock reuses ids)
        for e in events:
            if e.kind == "joined":
                joined[(e.fields["generation"], e.actor)] = tuple(e.fields["owned"])
                previous[(e.fields["generation"], e.actor)] = e.fields["previous"]
                synced[(e.fields["generation"], e.actor)] = e.fields.get("synced")
                ids_at.setdefault(e.fields["generation"], {})[e.fields["member_id"]] = e.actor
        # every id a member was ever given (the mock hands out a new one after UNKNOWN_MEMBER_ID)
        ever = {e.fields["member_id"]: e.actor for e in events if e.kind == "joined"}
        out = []
        held: Dict[str, Set[TopicPartition]] = {}  # what each member holds, from its callbacks so far
        at_close: Dict[str, Tuple[TopicPartition, ...]] = {}  # ... when it started to close (its last JoinGroup)
        last_synced: Dict[str, Optional[int]] = {}
        for e in events:
            if e.kind == "member" and e.fields.get("what") == "close":
                at_close.setdefault(e.actor, tuple(sorted(held.get(e.actor, ()))))
            elif e.kind == "member" and e.fields.get("what") == "start":
                at_close.pop(e.actor, None)
            if e.kind == "assigned":
                held.setdefault(e.actor, set()).update(map(tuple, e.fields["partitions"]))
            elif e.kind in ("revoke", "lost"):
                held.setdefault(e.actor, set()).difference_update(map(tuple, e.fields["partitions"]))
            elif e.kind == "synced":
                last_synced[e.actor] = e.fields["generation"]
            if e.kind != "assign":
                continue
            known = ids_at.get(e.fields["generation"], {})
            names = tuple(known.get(mid) or by_id.get(mid) or ever.get(mid, mid) for mid in e.fields["members"])
            process = dict(zip(names, e.fields["members"]))
            name_of = dict(zip(e.fields["members"], names))
            leader = next(m for m in self.retired + list(self.members.values())
                          if any(r.generation == e.fields["generation"] for r in m.runs) and m.name == e.actor)
            run = next(r for r in leader.runs if r.generation == e.fields["generation"])
            gen = e.fields["generation"]
            missing = tuple(n for n in names if (gen, n.split("~")[0]) not in joined)
            owned = {n: joined.get((gen, n.split("~")[0]), ()) for n in names}
            synced_at = {n: synced.get((gen, n.split("~")[0])) for n in names}
            for n in missing:
                base = n.split("~")[0]
                owned[n] = at_close[base] if base in at_close else tuple(sorted(held.get(base, ())))
                synced_at[n] = last_synced.get(n.split("~")[0])
            out.append(RoundRecord(
                generation=gen, assignor=e.fields["assignor"], members=names,
                owned=owned,
                owned_counts={name_of.get(mid, mid): c for mid, c in run.owned_counts.items()},
                previous_generation={n: previous.get((gen, n.split("~")[0])) for n in names},
                assignment={name_of.get(mid, mid): tuple(tps) for mid, tps in e.fields["assignment"].items()},
                member_ids={n: process[n] for n in names},
                synced_generation=synced_at, from_callbacks=missing))
        return out

    def mark(self) -> int:
        """The number of events recorded so far: pass it as ``since`` to see only what happens next."""
        with self._lock:
            return len(self.events)

    def format_events(self, kinds: Sequence[str] = LIVE_EVENT_KINDS, since: int = 0) -> List[str]:
        """The trace from event number ``since`` (:meth:`mark`) as ``actor kind field=value`` lines without
        times (wall-clock times and member ids change from run to run; the order of one member's events does
        not)."""
        with self._lock:
            events = [TraceEvent(0, e.actor, e.kind, {k: v for k, v in e.fields.items()
                                                      if k not in ("members", "instance", "previous", "synced",
                                                                   "member_id")})
                      for e in self.events[since:] if e.kind in kinds]
        return [line.split(None, 1)[1] for line in format_events(events, kinds=tuple(kinds))]

    def member_events(self, name: str, kinds: Sequence[str] = ("joined", "revoke", "assigned", "lost"),
                      since: int = 0) -> List[str]:
        """One member's events in order (from event number ``since``), without times."""
        return [line for line in self.format_events(kinds, since) if line.split(None, 1)[0] == name]

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        """Close every consumer, all at once (each ``close`` waits for its revocation and LeaveGroup;
        idempotent)."""
        members = [self.members.pop(name) for name in list(self.members)]
        for m in members:
            if not m.closed:
                self._record(m.name, "member", {"what": "close"})
        threads = [threading.Thread(target=m.close, name=f"close-{m.name}") for m in members]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.retired.extend(members)

    def __enter__(self) -> "LiveGroup":
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self.close()

