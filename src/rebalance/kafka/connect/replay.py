"""A real Connect group's rounds set next to the book's model replaying them (Kafka 4.3.1).

:func:`real_shares` gives each real round's :class:`Share` per worker (what it runs after the round, what the
round started and stopped on it), :func:`model_shares` the same from the book's model
(:class:`rebalance.connect.cluster.ConnectCluster`) replaying the rounds with their real members, leaders and
generations, and :func:`compare_rounds` one :class:`RoundComparison` per generation.  Worker order: a worker
reports what it runs with the newly assigned work first (``WorkerCoordinator.onJoinComplete`` appends what it
keeps, lines 213-214 at 4.3.1), which decides which tasks a later load-balancing revocation takes; the model's
protocol mode follows it since this comparison found it.  The delays themselves differ by a few milliseconds (the
model's clock is read from log timestamps); only whether one was sent is compared.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, TypedDict

from ...connect.cluster import ConnectCluster, Running
from ...connect.model import parse_task, task_str
from .logs import RealRound, task_key

__all__ = ["ComparisonRow", "RoundComparison", "Share", "compare_rounds", "model_shares", "real_shares"]

#: :meth:`RoundComparison.row`: one generation in a table, run-independent values only
ComparisonRow = TypedDict("ComparisonRow", {
    "generation": int, "members": str, "missed": str, "real c+t": str, "model c+t": str, "real revoked": str,
    "model revoked": str, "real delay": bool, "model delay": bool, "equal": bool, "identical": bool})


@dataclass
class Share:
    """One worker's side of one round, real or modelled: what it runs after the round (``connectors``,
    ``tasks``), what the round started on it and what it stopped (under eager: everything it ran before,
    ``WorkerCoordinator.onJoinPrepare``, line 243 at 4.3.1)."""

    connectors: List[str]
    tasks: List[str]
    started_connectors: List[str]
    started_tasks: List[str]
    revoked_connectors: List[str]
    revoked_tasks: List[str]

    @property
    def counts(self) -> Tuple[int, int]:
        """(connectors, tasks) it runs after the round."""
        return len(self.connectors), len(self.tasks)

    @property
    def revoked(self) -> Tuple[int, int]:
        """(connectors, tasks) the round stopped on it."""
        return len(self.revoked_connectors), len(self.revoked_tasks)


@dataclass
class RoundComparison:
    """One generation of the real cluster next to the model's round with the same members and configuration."""

    generation: int
    members: List[str]
    leader: Optional[str]
    real: Dict[str, Share]
    model: Dict[str, Share]
    real_delay: int
    model_delay: int
    #: members of the JoinGroup that did not receive the assignment (compared: only the others)
    missed: List[str] = field(default_factory=list)

    @property
    def counts_equal(self) -> bool:
        """Connectors and tasks per worker after the round are the same numbers."""
        return {w: s.counts for w, s in self.real.items()} == {w: s.counts for w, s in self.model.items()}

    @property
    def revocations_equal(self) -> bool:
        return {w: s.revoked for w, s in self.real.items()} == {w: s.revoked for w, s in self.model.items()}

    @property
    def delay_equal(self) -> bool:
        """Both scheduled a rebalance (delay > 0) or neither did (the delays themselves are clock readings)."""
        return (self.real_delay > 0) == (self.model_delay > 0)

    @property
    def equal(self) -> bool:
        """Counts per worker, revocations per worker and whether a delay was sent all agree."""
        return self.counts_equal and self.revocations_equal and self.delay_equal

    @property
    def identical(self) -> bool:
        """The same connectors and tasks on the same workers, the same ones revoked (the model was given the
        real member ids, so even the eager deal by member id can agree)."""
        return self.real == self.model and self.delay_equal

    def row(self) -> ComparisonRow:
        """A table row with only run-independent values (names, counts, flags; no ports, ids or times)."""
        def fmt(d: Mapping[str, Tuple[int, int]]) -> str:
            return " ".join(f"{w}:{c}+{t}" for w, (c, t) in sorted(d.items()))

        return {"generation": self.generation, "members": ",".join(self.members),
                "missed": ",".join(self.missed) or "-",
                "real c+t": fmt({w: s.counts for w, s in self.real.items()}),
                "model c+t": fmt({w: s.counts for w, s in self.model.items()}),
                "real revoked": fmt({w: s.revoked for w, s in self.real.items() if s.revoked != (0, 0)}) or "-",
                "model revoked": fmt({w: s.revoked for w, s in self.model.items() if s.revoked != (0, 0)}) or "-",
                "real delay": self.real_delay > 0, "model delay": self.model_delay > 0,
                "equal": self.equal, "identical": self.identical}


def _share(before: Tuple[List[str], List[str]], after: Tuple[List[str], List[str]], revoked_c: List[str],
           revoked_t: List[str]) -> Share:
    kept_c = [c for c in before[0] if c not in revoked_c]
    kept_t = [t for t in before[1] if t not in revoked_t]
    return Share(sorted(after[0]), sorted(after[1], key=task_key),
                 sorted(c for c in after[0] if c not in kept_c),
                 sorted((t for t in after[1] if t not in kept_t), key=task_key),
                 sorted(revoked_c), sorted(revoked_t, key=task_key))


def real_shares(rounds: Sequence[RealRound], connect_protocol: str) -> List[Dict[str, Share]]:
    """Each real round's :class:`Share` per worker.  A worker's logged assignment is already its whole
    assignment after the round (``WorkerCoordinator.onJoinComplete`` adds what it keeps to what it was given,
    lines 213-214 at 4.3.1); what it ran before is its previous round's, in the same JVM (a restarted worker,
    with a new member id, starts empty).  Under eager nothing is listed as revoked: ``onJoinPrepare`` stopped
    everything the worker ran (lines 241-244), so that is its revocation."""
    state: Dict[str, Tuple[Optional[str], Tuple[List[str], List[str]]]] = {}
    out: List[Dict[str, Share]] = []
    for r in rounds:
        shares: Dict[str, Share] = {}
        for name, a in r.workers.items():
            member, before = state.get(name, (None, ([], [])))
            if member != a.member_id:
                before = ([], [])
            if connect_protocol == "eager":
                rc, rt = list(before[0]), list(before[1])
            else:
                rc, rt = a.revoked_connectors, a.revoked_tasks
            after = (list(a.assigned_connectors), list(a.assigned_tasks))
            shares[name] = _share(before, after, rc, rt)
            state[name] = (a.member_id, after)
        out.append(shares)
    return out


def model_shares(rounds: Sequence[RealRound], connect_protocol: str, max_delay_ms: int,
                 removed: Optional[Mapping[str, float]] = None) -> Tuple[List[Dict[str, Share]], List[int]]:
    """The book's model (:class:`rebalance.connect.cluster.ConnectCluster`, ``mode="protocol"``: the leader
    entry point ``performAssignment`` on serialized member metadata) replaying the real rounds
    (:meth:`~rebalance.connect.cluster.ConnectCluster.replay_round`): each round has the real members (their
    real member ids, so the leader's ``HashMap`` and the eager assignor's sort see the same keys), the real
    leader (with the assignor it had when it led before, as each worker has its own), the real generation ids,
    the members that missed the assignment, and the leader's clock at the first worker's log line of that
    round.  What each member runs is the model's own result of the rounds before (a restarted worker comes back
    empty).  The configuration is rebuilt from the logs: every connector and task assigned anywhere so far (the
    scenarios only add connectors), less the connectors of ``removed`` (name -> when its ``DELETE`` was sent, in
    seconds since the epoch) from the first round that begins after that time.  Returns each round's shares and the
    delay the model sent."""
    if not rounds:
        return [], []
    assignor = "eager" if connect_protocol == "eager" else "incremental"
    model = ConnectCluster(assignor=assignor, mode="protocol", protocol=connect_protocol,
                           max_delay_ms=max_delay_ms, initial_generation_id=rounds[0].generation - 1)
    t0 = rounds[0].first_time
    start_ms = model.time.milliseconds()
    leader: Optional[str] = None
    last_completed: Dict[str, int] = {}  # member id -> its last completed generation
    state: Dict[str, Tuple[str, Tuple[List[str], List[str]]]] = {}  # name -> (member id, what it runs)
    configured: Dict[str, int] = {}
    out: List[Dict[str, Share]] = []
    delays: List[int] = []
    for r in rounds:
        for a in r.workers.values():
            for c in a.assigned_connectors:
                configured.setdefault(c, 0)
            for t in a.assigned_tasks + a.revoked_tasks:
                conn, num = task_key(t)
                configured[conn] = max(configured.get(conn, 0), num + 1)
        model.connectors = {c: n for c, n in configured.items()
                            if not (removed and c in removed and removed[c] <= r.first_time)}
        now = start_ms + int(round((r.first_time - t0) * 1000))
        model.time.sleep(max(0, now - model.time.milliseconds()))
        members: Dict[str, Running] = {}
        ids: Dict[str, str] = {}
        for name in sorted(r.joined):
            member = r.joined[name]
            ids[member] = name
            prev_member, running = state.get(name, (None, ([], [])))
            if prev_member != member:
                running = ([], [])
            members[member] = (list(running[0]), [parse_task(t, "task") for t in running[1]])
        leader = r.leader_id if r.leader_id in members else leader if leader in members else min(members)
        assert leader is not None
        received = [member for member, name in ids.items() if name in r.workers]
        result = model.replay_round(members, r.generation, last_completed.get(leader, -1), leader, received)
        shares: Dict[str, Share] = {}
        for member, wr in result.workers.items():
            name = ids[member]
            before = (members[member][0], [task_str(t) for t in members[member][1]])
            after = (list(model.running[member][0]), [task_str(t) for t in model.running[member][1]])
            state[name] = (member, after)
            if name not in r.workers:  # joined, but the assignment never reached it: it runs what it ran
                continue
            shares[name] = _share(before, after, list(wr.revoked_connectors), [task_str(t) for t in wr.revoked_tasks])
            last_completed[member] = r.generation
        out.append(shares)
        delays.append(result.delay)
    return out, delays


def compare_rounds(rounds: Sequence[RealRound], connect_protocol: str, max_delay_ms: int,
                   since_generation: int = -1, removed: Optional[Mapping[str, float]] = None) -> List[RoundComparison]:
    """The real rounds next to the model's (:func:`model_shares` replays them all, from the first, ``removed`` as
    there), one :class:`RoundComparison` per generation after ``since_generation``."""
    real = real_shares(rounds, connect_protocol)
    model, delays = model_shares(rounds, connect_protocol, max_delay_ms, removed)
    out: List[RoundComparison] = []
    for r, rs, ms, d in zip(rounds, real, model, delays):
        if r.generation > since_generation:
            out.append(RoundComparison(r.generation, sorted(r.joined), r.leader, rs, ms, r.delay, d, r.missed))
    return out
