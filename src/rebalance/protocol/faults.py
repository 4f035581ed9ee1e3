"""Fault injection for the classic group protocol simulator.

What Kafka's own tests do to a group (``ConsumerCoordinatorTest``, ``GroupMetadataManagerTest`` and the
system tests' ``consumer_rolling_upgrade_test`` / ``consumer_test`` at Kafka's commit 1eb7644), as timed actions on
the virtual clock: a member crashes (no ``LeaveGroup``; the coordinator finds out by
``session.timeout.ms``), restarts (a running process is closed first; then a new process, same
``group.instance.id`` if static), shuts down
gracefully (``KafkaConsumer.close``: revoke, then ``LeaveGroup`` for a dynamic member), bounces (a rolling
restart step), stops calling ``poll()`` for a while (``max.poll.interval.ms``), a second process starts
with the same ``group.instance.id``, the leader is lost between ``JoinGroup`` and ``SyncGroup``, and the
coordinator fails over to another broker (the ``__consumer_offsets`` partition moves and the new leader
loads the group from its last record, ``GroupMetadataManager.loadGroupsForPartition``).

:class:`FaultsMixin` is mixed into :class:`rebalance.protocol.simulation.GroupSimulation`.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Set, Tuple

from ..common import JsonRecord
from ..validation import require
from .config import MemberSpec

if TYPE_CHECKING:
    from .clock import VirtualClock
    from .group import ClassicGroupCoordinator, GroupSnapshot
    from .member import ConsumerMember

__all__ = ["FaultsMixin"]


class FaultsMixin:
    """Timed faults on members and the coordinator (see the module docstring)."""

    clock: "VirtualClock"
    coordinator: "ClassicGroupCoordinator"
    coordinator_available: bool
    coordinator_name: str
    snapshot: Optional["GroupSnapshot"]
    leaders: Dict[int, int]
    brokers: List[int]
    offsets_partition: int
    specs: Dict[str, MemberSpec]
    members: Dict[str, "ConsumerMember"]
    _lose_leader_at: List[Tuple[Optional[int], Optional[int]]]
    _fault_times: List[int]
    _bounced: Set[str]
    log: Callable[..., None]
    _start: Callable[[str], None]
    _start_after_close: Dict[str, int]
    _new_coordinator: Callable[[], "ClassicGroupCoordinator"]
    materialize: Callable[..., None]

    def should_lose_leader(self, member: ConsumerMember, resp: JsonRecord) -> bool:
        """Fault hook: the leader is lost after its JoinGroup response and before its SyncGroup -- it
        dies, or (with ``partition_ms``) it is cut off from the coordinator and sends its SyncGroup late."""
        if not member.is_leader:
            return False
        for i, (gen, partition_ms) in enumerate(self._lose_leader_at):
            if gen is None or gen == resp["generation"]:
                self._lose_leader_at.pop(i)
                if partition_ms is None:
                    self.log("fault", member.name, what="leaderLostBeforeSync", generation=resp["generation"])
                    member.crash("leader lost between JoinGroup and SyncGroup")
                    return True
                self.log("fault", member.name, what="leaderPartitionedBeforeSync", generation=resp["generation"],
                         duration_ms=partition_ms)
                member.partitioned_until = self.clock.now_ms + partition_ms
                return False
        return False

    def last_fault_ms(self) -> Optional[int]:
        """When the last fault happens: the latest time a fault was scheduled for, or a bounced member's new
        process started (which waits for the old one's close), whichever is later; ``None`` without faults."""
        return max(self._fault_times, default=None)

    def _at(self, at: int, action: Callable[[], None], label: str) -> None:
        self._fault_times.append(at)
        self.clock.schedule_at(at, action, label)

    def _live(self, name: str) -> Optional[ConsumerMember]:
        require(name in self.specs, "name", f"unknown member {name!r}")
        m = self.members.get(name)
        return m if m is not None and m.alive else None

    def _on_live(self, name: str, at: int, what: str, action: Callable[["ConsumerMember"], None]) -> None:
        """At ``at``, if process ``name`` is alive, log the fault ``what`` and apply ``action`` to it."""
        def act() -> None:
            m = self._live(name)
            if m is not None:
                self.log("fault", name, what=what)
                action(m)
        self._at(at, act, f"{what}:{name}")

    def crash(self, name: str, at: int) -> None:
        """Member ``name`` dies at ``at`` (no LeaveGroup; the coordinator finds out by session timeout)."""
        self._on_live(name, at, "crash", lambda m: m.crash())

    def restart(self, name: str, at: int, *, down_ms: int = 0) -> None:
        """At ``at``, a new process for ``name`` (same ``group.instance.id`` if it is static).  A process
        still running then is closed first (``KafkaConsumer.close``: revoke, then LeaveGroup unless static),
        and one that is closing is let finish: the new process starts the moment the old one has stopped,
        never alongside it.  A dynamic member rejoins with a new member id (a rebalance); a static one
        back within its session timeout replaces its old member id (``ClassicGroup.replaceStaticMember``)
        and, while the group is ``Stable`` and the selected protocol stays, gets its old assignment back
        with no rebalance.  ``down_ms``: the new process starts that long after the old one has stopped
        (a real process's restart is not instantaneous; past a heartbeat interval a dynamic member's leave is
        a rebalance of its own, and its join another)."""
        self._check_restart(name, down_ms)

        def act() -> None:
            self.log("fault", name, what="restart")
            m = self._live(name)
            if m is None:
                self._start(name)
                return
            self._close_then_start(m, down_ms)
        self._at(at, act, f"restart:{name}")

    def _check_restart(self, name: str, down_ms: int) -> None:
        require(name in self.specs, "name", f"unknown member {name!r}")
        require(isinstance(down_ms, int) and down_ms >= 0, "down_ms", f"must be a whole number of ms >= 0, got {down_ms!r}")

    def _close_then_start(self, m: "ConsumerMember", down_ms: int, bounced: bool = False) -> None:
        """Close running process ``m`` once its batch in hand is done (unless it is closing already) and start
        its new process ``down_ms`` after it has stopped (``member_stopped``)."""
        self._start_after_close[m.name] = down_ms  # before close(): a close with nothing to revoke stops at once
        if bounced:
            self._bounced.add(m.name)
        if not m.closing:
            m.close_after_batch()

    def shutdown(self, name: str, at: int) -> None:
        """Graceful stop at ``at``: the application calls ``close()`` (revoke, then LeaveGroup for a dynamic
        member) when its batch in hand is done (:meth:`~.member.ConsumerMember.close_after_batch`)."""
        self._on_live(name, at, "shutdown", lambda m: m.close_after_batch())

    def bounce(self, name: str, at: int, down_ms: int) -> None:
        """Rolling-restart step: graceful shutdown at ``at`` (the process closes once its batch in hand is
        done), and the new process ``down_ms`` after the old one has stopped (as :meth:`restart` starts it)."""
        self._check_restart(name, down_ms)
        self._on_live(name, at, "shutdown", lambda m: self._close_then_start(m, down_ms, bounced=True))

    def start_duplicate(self, name: str, at: int, copy_name: Optional[str] = None) -> str:
        """At ``at`` start a *second* process with ``name``'s configuration (the same
        ``group.instance.id`` if static) while the first keeps running -- e.g. a new pod started before
        the old one is gone.  Returns the copy's name (default ``name + "'"``)."""
        require(name in self.specs, "name", f"unknown member {name!r}")
        copy_name = copy_name or f"{name}'"
        require(copy_name not in self.specs, "copy_name", f"member {copy_name!r} already exists")
        spec = self.specs[name]
        self.specs[copy_name] = replace(spec, name=copy_name)

        def act() -> None:
            self.log("fault", copy_name, what="duplicateStart", of=name, instance=spec.instance_id)
            self._start(copy_name)
        self._at(at, act, f"duplicate:{name}")
        return copy_name

    def pause(self, name: str, at: int, duration_ms: int) -> None:
        """The whole process of ``name`` stops during ``[at, at + duration_ms)`` (a stop-the-world garbage
        collection, a frozen VM or container): its heartbeat thread sends nothing and its application thread does
        not call ``poll()``.  The coordinator sees only the missing heartbeats: a pause longer than what is left
        of the session after the last heartbeat removes the member; past ``max.poll.interval.ms`` the consumer
        also leaves when it wakes (as :meth:`slow`).  Answers already on their way are taken in when they arrive
        (the model's one simplification: a real process reads them when it wakes)."""
        require(isinstance(duration_ms, int) and not isinstance(duration_ms, bool) and duration_ms >= 0,
                "duration_ms", f"must be a whole number of ms >= 0, got {duration_ms!r}")

        def act() -> None:
            m = self._live(name)
            if m is not None:
                self.log("fault", name, what="pause", duration_ms=duration_ms)
                self.materialize(m)  # its heartbeats so far, if the fast path had taken them off the clock
                m.paused_until = max(m.paused_until, self.clock.now_ms + duration_ms)
                m.go_slow(duration_ms)
        self._at(at, act, f"pause:{name}")

    def slow(self, name: str, at: int, duration_ms: int) -> None:
        """Member ``name`` does not call ``poll()`` during ``[at, at + duration_ms)``."""
        def act() -> None:
            m = self._live(name)
            if m is not None:
                self.log("fault", name, what="slow", duration_ms=duration_ms)
                m.go_slow(duration_ms)
        self._at(at, act, f"slow:{name}")

    def lose_leader_before_sync(self, generation: Optional[int] = None, partition_ms: Optional[int] = None) -> None:
        """The leader of ``generation`` (the next one, if ``None``) is lost after receiving its JoinGroup
        response and before sending SyncGroup: it dies, or with ``partition_ms`` it cannot reach the
        coordinator for that long and then sends its (stale) SyncGroup."""
        self._lose_leader_at.append((generation, partition_ms))

    def coordinator_failover(self, at: int, downtime_ms: int, new_broker: Optional[int] = None) -> None:
        """At ``at`` the coordinator broker loses the group's ``__consumer_offsets`` partition; ``downtime_ms``
        later a new leader (``new_broker``, default the next broker) has loaded the last group record."""
        def down() -> None:
            self.log("fault", self.coordinator_name, what="coordinatorFailover", broker=self.coordinator.broker)
            self.coordinator_available = False
            self.coordinator.unload()

        def up() -> None:
            old = self.leaders[self.offsets_partition]
            nb = new_broker if new_broker is not None else self.brokers[(self.brokers.index(old) + 1) % len(self.brokers)]
            self.leaders[self.offsets_partition] = nb
            self.coordinator = self._new_coordinator()
            self.coordinator_available = True
            self.log("coordinator", self.coordinator_name, what="loaded", broker=nb,
                     generation=self.snapshot.generation if self.snapshot else 0)
            self.coordinator.load(self.snapshot)
        self._at(at, down, "coordinator-down")
        self._at(at + downtime_ms, up, "coordinator-up")
