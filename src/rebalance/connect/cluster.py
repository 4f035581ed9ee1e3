"""A Connect cluster driven round by round: workers, what they run, and the leader's assignor.

This is the loop Kafka spreads over ``WorkerCoordinator`` and ``DistributedHerder`` (modelled on Kafka's
source at commit 1eb7644, trunk before 4.0; the assignors themselves follow Kafka 4.3.1), reduced to what
decides *who runs what*:

* **eager** (``connect.protocol=eager``): ``onJoinPrepare`` stops everything a worker runs, the leader's
  :class:`~rebalance.connect.eager.EagerAssignor` hands out a complete assignment, each worker starts it;
* **incremental cooperative** (``compatible``/``sessioned``): workers keep running; the leader's
  :class:`~rebalance.connect.incremental.IncrementalCooperativeAssignor` answers with what to start and
  what to stop; ``onJoinComplete`` applies it (running = running - revoked + assigned); a round with any
  revocation makes the workers rejoin at once (``DistributedHerder.handleRebalanceCompleted`` ->
  ``requestRejoin``), and a positive ``delay`` schedules the next rebalance (the "scheduled delay").

The herder's clock (``DistributedHerder`` at trunk commit 1eb7644, before 4.0, not yet checked against a
release; the line numbers are that commit's, and in the 3.8.0 tag the same code sits about 20 lines
earlier): when a worker receives an assignment with ``delay > 0`` it sets ``scheduledRebalance = now +
delay`` (``onAssigned``, lines 2660-2663; ``Long.MAX_VALUE`` when the delay is 0); its tick loop polls no longer than until that time
(lines 506-511 and 563-569), and once ``scheduledRebalance <= now`` ``handleRebalanceCompleted`` logs
"Requesting rebalance because scheduled rebalance timeout has been reached" and calls
``member.requestRejoin()`` (lines 1818-1825 and 1840-1842).  So the group rebalances *when the delay
expires*, with whoever is in the group then, whether or not the departed worker came back.
:attr:`ConnectCluster.scheduled_rebalance` is that time; :meth:`ConnectCluster.advance` lets time pass
and runs the rounds the herders would run meanwhile; :meth:`ConnectCluster.settle` runs them until the
cluster is quiet.

``mode="direct"`` calls ``performTaskAssignment(config, lastCompletedGen, gen, memberAssignments)`` the
way Kafka's unit test does; ``mode="protocol"`` goes through the leader entry point, i.e. the members'
assignments arrive as ``ExtendedWorkerState`` metadata (orders as on the wire, see
:mod:`rebalance.connect.protocol`) and each worker reads back its serialized ``ExtendedAssignment``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Collection, Dict, List, Mapping, Optional, Sequence, Tuple, cast

from ..errors import InputError
from ..java import INT_MAX, INT_MIN, LONG_MAX, LONG_MIN
from ..validation import require
from .assignor import ASSIGNORS, ConnectAssignor, ReplayOptions, assignor_class, assignor_for, connect_protocol
from .eager import EagerAssignor
from .incremental import DEFAULT_MAX_DELAY_MS, DEFAULT_START_TIME_MS, IncrementalCooperativeAssignor, MockTime
from .model import ClusterAssignment, ConnectorTaskId, check_connectors, connector_key, hashmap_member_order
from .leader import ConfigSnapshot, member_metadata, on_join_prepare, perform_assignment, worker_url
from .protocol import ExtendedAssignment, protocol_version

Running = Tuple[List[str], List[ConnectorTaskId]]


@dataclass
class WorkerRound:
    """One worker's share of one round."""

    assigned_connectors: List[str]
    assigned_tasks: List[ConnectorTaskId]
    revoked_connectors: List[str]
    revoked_tasks: List[ConnectorTaskId]
    all_connectors: List[str]
    all_tasks: List[ConnectorTaskId]
    n_connectors: int = 0
    n_tasks: int = 0


@dataclass
class RoundResult:
    """What one rebalance did: per-worker starts/stops, the delay sent, and the input it saw."""

    generation_id: int
    last_completed_generation_id: int
    time_ms: int
    connectors: Dict[str, int]
    members_in: Dict[str, Running]
    workers: Dict[str, WorkerRound]
    delay: int
    failed: bool = False
    leader: Optional[str] = None
    protocol_versions: Optional[Dict[str, int]] = None
    follow_up: Optional[str] = None

    def totals(self) -> Dict[str, int]:
        return {
            "assigned_connectors": sum(len(w.assigned_connectors) for w in self.workers.values()),
            "assigned_tasks": sum(len(w.assigned_tasks) for w in self.workers.values()),
            "revoked_connectors": sum(len(w.revoked_connectors) for w in self.workers.values()),
            "revoked_tasks": sum(len(w.revoked_tasks) for w in self.workers.values()),
        }

    def revoked_anything(self) -> bool:
        return any(w.revoked_connectors or w.revoked_tasks for w in self.workers.values())


def _whole(value: object, field: str, minimum: Optional[int] = None, java: str = "int") -> int:
    """``value`` as a Java ``int`` (or ``long``), at least ``minimum`` if given, or ``InputError`` naming ``field``."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(field, f"must be an integer, got {value!r}")
    lo, hi = (INT_MIN, INT_MAX) if java == "int" else (LONG_MIN, LONG_MAX)
    require(lo <= value <= hi, field, f"{value} does not fit a Java {java}")
    require(minimum is None or value >= minimum, field, f"must be >= {minimum}, got {value!r}")
    return value


def check_members(members: object, field: str = "members") -> Dict[str, Running]:
    """Validate ``{worker: (connectors, tasks)}`` (what each member runs, in join order) and copy it."""
    if not isinstance(members, Mapping) or len(members) == 0:
        raise InputError(field, "a rebalance needs at least one member: an object worker -> (connectors, tasks)")
    out: Dict[str, Running] = {}
    for w, value in members.items():
        where = f"{field}.{w}"
        require(isinstance(w, str) and w != "", where, "worker ids must be non-empty strings")
        require(isinstance(value, (tuple, list)) and len(value) == 2, where,
                f"must be a pair (connectors, tasks), got {value!r}")
        connectors, tasks = list(value[0]), list(value[1])
        require(all(isinstance(c, str) for c in connectors), f"{where}.connectors", "must be connector names")
        for i, t in enumerate(tasks):
            require(isinstance(t, tuple) and len(t) == 2 and isinstance(t[0], str) and isinstance(t[1], int)
                    and not isinstance(t[1], bool), f"{where}.tasks[{i}]",
                    f"must be a (connector, task number) pair, got {t!r}")
        out[w] = (connectors, tasks)
    return out


class ConnectCluster:
    """Workers of one Connect group and the leader's assignor, rebalanced one round at a time.

    ``assignor``: ``"incremental"`` or ``"eager"`` (:data:`~rebalance.connect.assignor.ASSIGNOR_NAMES`);
    ``mode``: ``"direct"`` (``performTaskAssignment`` as Kafka's unit tests call it) or ``"protocol"`` (on
    serialized metadata; eager is always protocol); ``protocol``: ``connect.protocol`` of the incremental
    assignor, ``"compatible"`` or ``"sessioned"`` (the eager assignor speaks ``"default"``, ``EAGER``'s wire
    name).  The assignor comes from :func:`~rebalance.connect.assignor.assignor_for`.  Every argument is
    validated here (``InputError`` naming it), for the chapters and the vectors alike; ``replay`` carries
    the switches only :mod:`rebalance.connect.vectors` passes (:class:`~rebalance.connect.assignor.ReplayOptions`).

    Defined in chapter 11, *Kafka Connect: from stop-the-world to incremental*."""

    def __init__(self, assignor: str = "incremental", mode: str = "direct", protocol: str = "sessioned",
                 max_delay_ms: int = DEFAULT_MAX_DELAY_MS, initial_time_ms: int = DEFAULT_START_TIME_MS,
                 initial_generation_id: int = 1000, connectors: Optional[Mapping[str, int]] = None,
                 replay: Optional[ReplayOptions] = None):
        family = assignor_class(assignor)
        require(mode in ("direct", "protocol"), "mode", f"must be 'direct' or 'protocol', got {mode!r}")
        if family is EagerAssignor:
            mode, protocol, self.connect_protocol = "protocol", "default", "eager"
        else:
            self.connect_protocol = connect_protocol(protocol)
            require(family.NAME == ASSIGNORS[self.connect_protocol].NAME, "protocol",
                    f"the {family.NAME} assignor runs under connect.protocol "
                    f"{' or '.join(family.PROTOCOLS)}, not {protocol!r}")
        replay = (replay or ReplayOptions()).check()
        self.kind = family.NAME
        self.mode = mode
        self.protocol = protocol
        self.version = protocol_version(self.protocol)
        self.max_delay_ms = _whole(max_delay_ms, "max_delay_ms", 0)
        self.time = MockTime(_whole(initial_time_ms, "initial_time_ms", java="long"))
        self.members_map = replay.members_map
        self.generation_id = _whole(initial_generation_id, "initial_generation_id")
        self.connectors: Dict[str, int] = check_connectors(connectors if connectors is not None else {}, "connectors")
        #: offset of the config topic every worker has read (the simulator keeps all workers in sync)
        self.config_offset = 0
        self.running: Dict[str, Running] = {}
        #: when the workers' herders will rejoin on their own: ``DistributedHerder.scheduledRebalance``, set
        #: from the delay of the last assignment (``None`` stands for ``Long.MAX_VALUE``: nothing scheduled)
        self.scheduled_rebalance: Optional[int] = None
        prev = replay.initial_previous_generation_id
        self.assignor: ConnectAssignor = self._new_assignor(initial_generation_id if prev is None else prev)
        #: :meth:`replay_round`: the member whose assignor :attr:`assignor` is, and the other members' assignors
        self._leader: Optional[str] = None
        self._assignors: Dict[str, ConnectAssignor] = {}

    def _new_assignor(self, previous_generation_id: int) -> ConnectAssignor:
        return assignor_for(self.connect_protocol, max_delay_ms=self.max_delay_ms, time=self.time,
                            previous_generation_id=previous_generation_id)

    def reset(self, previous_generation_id: Optional[int] = None) -> int:
        """A new leader: a fresh assignor instance (its in-memory state is lost)."""
        prev = self.generation_id if previous_generation_id is None else previous_generation_id
        self.assignor = self._new_assignor(prev)
        return prev

    def replay_round(self, members: Mapping[str, Running], generation_id: int, last_completed_generation_id: int,
                     leader: str, received: Optional[Collection[str]] = None) -> RoundResult:
        """One round of a real group replayed as Kafka's ``WorkerCoordinator`` (4.3.1) runs it on each worker.
        Every worker holds an assignor of its own (``WorkerCoordinator``'s constructor, lines 103-104), so
        ``leader`` computes the round with the assignor it had when it last led, its leader state (previous
        assignment, scheduled delay) intact, or, leading for the first time, with a new one
        (``IncrementalCooperativeAssignor``'s constructor: previous generation -1); the assignor of the leader it
        replaces is kept for that member.  Only the members in ``received`` (default: all) get the assignment:
        the others joined, but their SyncGroup failed (the group began another rebalance), so ``onJoinComplete``
        never ran on them and they run what they ran.  ``members`` (in join order), ``generation_id`` and
        ``last_completed_generation_id`` are as for :meth:`rebalance` (``mode="protocol"``: the leader entry
        point), whose :class:`RoundResult` it returns."""
        members_in = check_members(members)
        require(isinstance(leader, str) and leader in members_in, "leader",
                f"{leader!r} is not a member of this round")
        heard = set(members_in) if received is None else set(received)
        require(heard <= set(members_in), "received",
                f"names workers that are not members: {sorted(heard - set(members_in))}")
        if leader != self._leader:
            if self._leader is not None:
                self._assignors[self._leader] = self.assignor
            self.assignor = self._assignors[leader] if leader in self._assignors else self._new_assignor(-1)
            self._leader = leader
        result = self.rebalance(members_in, generation_id, last_completed_generation_id, leader=leader)
        for w in members_in:
            if w not in heard:
                self.running[w] = members_in[w]
        return result

    @property
    def delay(self) -> int:
        """The delay the assignor sent in the last round (``ExtendedAssignment.delay``; 0 for eager)."""
        return self.assignor.delay

    # ------------------------------------------------------------------------------------------
    def rebalance(self, members: Mapping[str, Running], generation_id: Optional[int] = None,
                  last_completed_generation_id: Optional[int] = None, failed: bool = False,
                  leader: Optional[str] = None) -> RoundResult:
        """One rebalance with these members, each running what ``members`` says (in join order):
        ``{worker: (connectors, tasks)}``, a task being ``(connector, number)``."""
        members_in = check_members(members)
        gen = self.generation_id + 1 if generation_id is None else _whole(generation_id, "generation_id")
        last = (gen - 1 if last_completed_generation_id is None
                else _whole(last_completed_generation_id, "last_completed_generation_id"))
        self.generation_id = gen
        if self.mode == "direct":
            result = self._incremental_direct(members_in, gen, last)
        else:
            result = self._protocol_round(members_in, gen, last, leader)
        result.failed = failed
        if not failed:
            self._apply(result)
            # DistributedHerder.onAssigned (lines 2660-2663): scheduledRebalance = now + delay, or none
            self.scheduled_rebalance = result.time_ms + result.delay if result.delay > 0 else None
        else:
            self.running = {w: members_in[w] for w in members_in}
        for wr in result.workers.values():
            wr.n_connectors, wr.n_tasks = len(wr.all_connectors), len(wr.all_tasks)
        return result

    def _apply(self, result: RoundResult) -> None:
        running: Dict[str, Running] = {}
        for w, (c, t) in result.members_in.items():
            wr = result.workers[w]
            rc, rt = set(wr.revoked_connectors), set(wr.revoked_tasks)
            # WorkerCoordinator.onJoinComplete (4.3.1, lines 213-214): what the worker keeps is appended to the
            # newly assigned work (newAssignment.tasks().addAll(snapshot.tasks())), so the new work comes first
            # in what the worker runs and reports in its next JoinGroup
            keep_c = [x for x in c if x not in rc]
            keep_t = [x for x in t if x not in rt]
            seen_c, seen_t = set(keep_c), set(keep_t)
            start_c = [x for x in wr.assigned_connectors if x not in seen_c]
            start_t = [x for x in wr.assigned_tasks if x not in seen_t]
            if self.mode == "protocol":
                running[w] = (start_c + keep_c, start_t + keep_t)
            else:  # direct (performTaskAssignment, no worker in the loop): kept work first, the harness's order
                running[w] = (keep_c + start_c, keep_t + start_t)
        self.running = running

    # ------------------------------------------------------------------------------------------
    def incremental_assignor(self) -> IncrementalCooperativeAssignor:
        """The assignor, when ``kind`` is ``"incremental"`` (its leader state: delays, the last derived sets)."""
        require(self.kind == "incremental", "assignor", "only the incremental assignor has this state")
        # kind "incremental" is built by IncrementalCooperativeAssignor (ASSIGNORS), which the type cannot say
        return cast(IncrementalCooperativeAssignor, self.assignor)

    def _protocol_round(self, members_in: Dict[str, Running], gen: int, last: int,
                        leader: Optional[str]) -> RoundResult:
        """The leader entry point on bytes (:func:`rebalance.connect.leader.perform_assignment`)."""
        leader = leader or min(members_in, key=connector_key)
        require(leader in members_in, "leader", f"{leader!r} is not a member of this round")
        metadata = [(w, member_metadata(self.protocol, worker_url(w), self.config_offset, c, t))
                    for w, (c, t) in members_in.items()]
        snapshot = ConfigSnapshot(self.config_offset, dict(self.connectors))
        blobs = perform_assignment(self.assignor, leader, self.protocol, metadata, snapshot, gen, last)
        workers: Dict[str, WorkerRound] = {}
        versions: Dict[str, int] = {}
        for w, (c, t) in members_in.items():
            got = ExtendedAssignment.deserialize(blobs[w])
            versions[w] = got.version
            if self.kind == "eager":
                # under the eager protocol onJoinPrepare already stopped everything the worker ran
                rc, rt = on_join_prepare(self.protocol, c, t)
                workers[w] = WorkerRound(got.connectors, got.tasks, rc, rt, list(got.connectors), list(got.tasks))
            else:
                # the leader's assignor always computes a ClusterAssignment here: the members' config offset
                # is the leader's own, so performAssignment never answers CONFIG_MISMATCH in this driver
                ca = cast(ClusterAssignment, self.incremental_assignor().last_cluster_assignment)
                workers[w] = WorkerRound(got.connectors, got.tasks, got.revoked_connectors, got.revoked_tasks,
                                         list(ca.all_assigned_connectors.get(w, [])), list(ca.all_assigned_tasks.get(w, [])))
        return RoundResult(gen, last, self.time.milliseconds(), dict(self.connectors), members_in, workers,
                           self.delay, leader=leader, protocol_versions=versions)

    def _incremental_direct(self, members_in: Dict[str, Running], gen: int, last: int) -> RoundResult:
        order = hashmap_member_order(list(members_in)) if self.members_map == "hash" else list(members_in)
        ca = self.assignor.perform_task_assignment(self.connectors, last, gen, members_in, member_order=order)
        workers: Dict[str, WorkerRound] = {}
        for w in members_in:
            workers[w] = WorkerRound(
                list(ca.newly_assigned_connectors.get(w, [])), list(ca.newly_assigned_tasks.get(w, [])),
                list(ca.newly_revoked_connectors.get(w, [])), list(ca.newly_revoked_tasks.get(w, [])),
                list(ca.all_assigned_connectors.get(w, [])), list(ca.all_assigned_tasks.get(w, [])))
        return RoundResult(gen, last, self.time.milliseconds(), dict(self.connectors), members_in, workers,
                           self.assignor.delay)

    # ------------------------------------------------------------------------------------------
    def carried_members(self, workers: Sequence[str]) -> Dict[str, Running]:
        """Members of a new round given as ids: a worker of the previous round keeps what it runs, a new
        (or returning) worker starts empty."""
        out = {}
        for w in workers:
            c, t = self.running.get(w, ([], []))
            out[w] = (list(c), list(t))
        return out

    def needs_follow_up(self, result: RoundResult, settle_delay: bool = True) -> Optional[str]:
        """Why the herder rebalances again after ``result`` (incremental only), or ``None``: at once after a
        revocation (``handleRebalanceCompleted`` -> ``requestRejoin``, lines 1861-1865), or when the delay
        it sent expires (``"scheduled_delay"``, see :attr:`scheduled_rebalance`)."""
        if self.kind != "incremental":
            return None
        if result.revoked_anything():
            return "revocation"
        if settle_delay and self.scheduled_rebalance is not None:
            return "scheduled_delay"
        return None

    def _follow_up(self, last: Optional[RoundResult], reason: str, members: Sequence[str]) -> RoundResult:
        if reason == "scheduled_delay":
            # the herders' tick loops wake up at scheduledRebalance and rejoin
            # (reason "scheduled_delay" is given only while a rebalance is scheduled)
            self.time.sleep(max(0, cast(int, self.scheduled_rebalance) - self.time.milliseconds()))
        result = self.rebalance(self.carried_members(list(members)))
        result.follow_up = reason
        return result

    def settle(self, result: RoundResult, settle_delay: bool = True, max_follow_ups: int = 20) -> List[RoundResult]:
        """Run the herder's follow-up rounds after ``result`` with the same members, carried: at once
        after a revocation, at the scheduled rebalance (after sleeping out the ``delay`` sent) when one is
        scheduled; until neither holds."""
        rounds = []
        last = result
        for _ in range(max_follow_ups):
            reason = self.needs_follow_up(last, settle_delay)
            if reason is None:
                break
            last = self._follow_up(last, reason, list(last.members_in))
            rounds.append(last)
        return rounds

    def advance(self, ms: int, after: Optional[RoundResult] = None, max_rounds: int = 20) -> List[RoundResult]:
        """Let ``ms`` milliseconds pass while the group keeps its members (those of the last round), and
        return the rounds the herders run meanwhile: a round at once after any revocation, and a round
        when a scheduled rebalance falls due (``DistributedHerder``: "scheduled rebalance timeout has been
        reached", lines 1818-1825).  ``after`` is the last round (its revocations are followed up); the
        clock ends ``ms`` after it started.  With nothing scheduled this is a plain sleep."""
        require(isinstance(ms, int) and not isinstance(ms, bool) and ms >= 0, "ms",
                f"must be a non-negative integer number of milliseconds, got {ms!r}")
        deadline = self.time.milliseconds() + ms
        members = list(self.running)
        rounds: List[RoundResult] = []
        last = after
        while len(rounds) < max_rounds and members and self.kind == "incremental":
            if last is not None and last.revoked_anything():
                reason = "revocation"
            elif self.scheduled_rebalance is not None and self.scheduled_rebalance <= deadline:
                reason = "scheduled_delay"
            else:
                break
            last = self._follow_up(last, reason, members)
            rounds.append(last)
        self.time.sleep(max(0, deadline - self.time.milliseconds()))
        return rounds


__all__ = ["ConnectCluster", "RoundResult", "Running", "WorkerRound", "check_members"]
