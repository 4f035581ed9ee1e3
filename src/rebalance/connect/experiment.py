"""The 90-connector x 10-task experiment: how much work eager and incremental rebalancing stop.

The scenario follows Confluent's post on incremental cooperative rebalancing (KIP-415) and the vectors
README: ten workers with nothing configured; connectors ``conn01..conn90`` with ten tasks each are added
one at a time, and the cluster settles after each addition (the herder's follow-up rounds); then the
connectors are deleted one at a time.  A new connector costs one rebalance, or two when modelled the
way ``DistributedHerder`` really reacts (one for the connector config, one when its task configs are
written: ``rebalances_per_addition=2``).

Counted per phase: rebalance rounds (and how many were follow-ups), task and connector *stops*
(revocations: under eager, ``WorkerCoordinator.onJoinPrepare`` stops everything a worker runs) and
*starts* (assignments).  Everything runs through :class:`~rebalance.connect.cluster.ConnectCluster`,
i.e. through the ported Kafka assignors; nothing here is a formula.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, List, Sequence, Tuple

from ..validation import require
from .assignor import ASSIGNOR_NAMES
from .cluster import ConnectCluster, RoundResult


@dataclass
class PhaseCounts:
    """Totals of one phase of the experiment."""

    rebalances: int = 0
    follow_ups: int = 0
    task_stops: int = 0
    connector_stops: int = 0
    task_starts: int = 0
    connector_starts: int = 0
    max_task_stops_in_round: int = 0
    #: task stops of every round, in order (for figures)
    task_stops_per_round: List[int] = field(default_factory=list)
    #: the delay the leader sent after every round
    delays: List[int] = field(default_factory=list)

    def add(self, r: RoundResult) -> None:
        t = r.totals()
        self.rebalances += 1
        if r.follow_up:
            self.follow_ups += 1
        self.task_stops += t["revoked_tasks"]
        self.connector_stops += t["revoked_connectors"]
        self.task_starts += t["assigned_tasks"]
        self.connector_starts += t["assigned_connectors"]
        self.max_task_stops_in_round = max(self.max_task_stops_in_round, t["revoked_tasks"])
        self.task_stops_per_round.append(t["revoked_tasks"])
        self.delays.append(r.delay)

    def summary(self) -> Dict[str, int]:
        d = asdict(self)
        d.pop("task_stops_per_round")
        d.pop("delays")
        return d


def worker_names(n: int) -> List[str]:
    return [f"worker-{i:02d}" for i in range(1, n + 1)]


def connector_names(n: int) -> List[str]:
    return [f"conn{i:02d}" for i in range(1, n + 1)]


def _round(cluster: ConnectCluster, counts: PhaseCounts, workers: List[str], settle: bool, settle_delay: bool,
           max_follow_ups: int = 20) -> None:
    r = cluster.rebalance(cluster.carried_members(workers))
    counts.add(r)
    if settle:
        for follow in cluster.settle(r, settle_delay, max_follow_ups):
            counts.add(follow)


def start_stop(assignor: str, rebalances_per_addition: int = 1, n_workers: int = 10, n_connectors: int = 90,
               tasks_per_connector: int = 10, settle_delay: bool = True, mode: str = "direct",
               max_delay_ms: int = 300_000) -> Dict[str, PhaseCounts]:
    """Add ``n_connectors`` connectors one at a time to a cluster of ``n_workers`` idle workers, then
    delete them one at a time; return the counts of the ``"start"`` and ``"stop"`` phases.

    ``assignor`` is ``"eager"`` or ``"incremental"``.  With ``rebalances_per_addition=2`` each addition
    is a rebalance with the connector alone (no task configs yet) followed by one with its tasks.
    """
    require(rebalances_per_addition in (1, 2), "rebalances_per_addition", "must be 1 or 2")
    require(n_workers >= 1, "n_workers", "must be at least 1")
    cluster = ConnectCluster(assignor=assignor, mode=mode, max_delay_ms=max_delay_ms)
    workers = worker_names(n_workers)
    cluster.rebalance(cluster.carried_members(workers))  # the workers form the group (not counted)
    start, stop = PhaseCounts(), PhaseCounts()
    names = connector_names(n_connectors)
    for name in names:
        if rebalances_per_addition == 2:
            cluster.connectors[name] = 0
            _round(cluster, start, workers, True, settle_delay)
        cluster.connectors[name] = tasks_per_connector
        _round(cluster, start, workers, True, settle_delay)
    for name in names:
        del cluster.connectors[name]
        _round(cluster, stop, workers, True, settle_delay)
    return {"start": start, "stop": stop}


def steady_cluster(assignor: str, n_workers: int = 10, n_connectors: int = 90, tasks_per_connector: int = 10,
                   max_delay_ms: int = 300_000) -> ConnectCluster:
    """A settled cluster running every task (all connectors configured at once)."""
    cluster = ConnectCluster(assignor=assignor, max_delay_ms=max_delay_ms,
                             connectors={n: tasks_per_connector for n in connector_names(n_connectors)})
    workers = worker_names(n_workers)
    r = cluster.rebalance(cluster.carried_members(workers))
    cluster.settle(r)
    return cluster


def _after_membership_change(assignor: str, members: Callable[[List[str]], List[str]], **kw: int) -> PhaseCounts:
    """A steady cluster's workers become ``members(workers)`` in one rebalance; then everything settles."""
    cluster = steady_cluster(assignor, **kw)
    counts = PhaseCounts()
    _round(cluster, counts, members(list(cluster.running)), True, True)
    return counts


def worker_leaves(assignor: str, **kw: int) -> PhaseCounts:
    """One worker leaves for good; the rest settle (incremental: the lost work waits for the delay)."""
    return _after_membership_change(assignor, lambda workers: workers[1:], **kw)


def bounce_rounds(assignor: str, away_ms: int = 60_000, leave_for_good: bool = False, **kw: int
                  ) -> Tuple[List[RoundResult], ConnectCluster]:
    """The rounds around a departure: ``worker-01`` leaves a steady cluster and (unless
    ``leave_for_good``) comes back empty ``away_ms`` later; then the herder's follow-ups run.

    Time runs as in Kafka's ``DistributedHerder`` (modelled on Kafka's source at commit 1eb7644, trunk before
    4.0; the line numbers are that commit's): the departure round sends the survivors a delay
    (``scheduled.rebalance.max.delay.ms``), and when it expires their herders rejoin ("scheduled rebalance
    timeout has been reached", ``DistributedHerder.java`` lines 1818-1825) whether or not the worker is back.  Back in time, the worker is a candidate and the expiry
    round hands it the lost work (``IncrementalCooperativeAssignor.handleLostAssignments``, lines
    473-503).  Away longer, the expiry round runs without it and the lost work goes to the survivors as
    new work (line 505); its return is then an ordinary join, answered by load-balancing revocations
    (``performLoadBalancingRevocations``, line 633) and the follow-up round they trigger.

    Returns ``(rounds, cluster)``; each round's ``time_ms``, ``delay`` and ``follow_up`` give the timeline.
    """
    require(isinstance(away_ms, int) and not isinstance(away_ms, bool) and away_ms >= 0, "away_ms",
            f"must be a non-negative integer number of milliseconds, got {away_ms!r}")
    cluster = steady_cluster(assignor, **kw)
    workers = list(cluster.running)
    rounds = []
    r = cluster.rebalance(cluster.carried_members(workers[1:]))
    rounds.append(r)
    if leave_for_good:
        rounds += cluster.settle(r)
        return rounds, cluster
    rounds += cluster.advance(away_ms, after=r)   # the survivors' herders, while worker-01 is away
    r = cluster.rebalance(cluster.carried_members(workers[1:] + workers[:1]))
    rounds.append(r)
    rounds += cluster.settle(r)
    return rounds, cluster


def bounce_table(rounds: Sequence[RoundResult], worker: str = "worker-01", away: str = "(away)") -> List[Dict[str, Any]]:
    """One row per round of :func:`bounce_rounds`: when it ran, why, the delay sent, what started and
    stopped, and what ``worker`` runs afterwards (``away`` while it is not a member)."""
    t0 = rounds[0].time_ms
    rows = []
    for i, r in enumerate(rounds):
        t = r.totals()
        if i == 0:
            why = f"{worker} leaves"
        elif r.follow_up:
            why = {"scheduled_delay": "scheduled rebalance (delay expired)",
                   "revocation": "rejoin after revocation"}[r.follow_up]
        else:
            why = f"{worker} rejoins"
        mine = r.workers.get(worker)
        rows.append({"generation": r.generation_id, "seconds after leaving": (r.time_ms - t0) // 1000, "why": why,
                     "members": len(r.workers), "delay sent (ms)": r.delay,
                     "connectors started": t["assigned_connectors"], "tasks started": t["assigned_tasks"],
                     "connectors stopped": t["revoked_connectors"], "tasks stopped": t["revoked_tasks"],
                     f"{worker} connectors": away if mine is None else len(mine.all_connectors),
                     f"{worker} tasks": away if mine is None else len(mine.all_tasks)})
    return rows


def worker_bounces(assignor: str, away_ms: int = 60_000, **kw: Any) -> PhaseCounts:
    """One worker leaves and comes back (empty) ``away_ms`` later; then everything settles."""
    counts = PhaseCounts()
    for r in bounce_rounds(assignor, away_ms, **kw)[0]:
        counts.add(r)
    return counts


def worker_joins(assignor: str, **kw: int) -> PhaseCounts:
    """An extra worker joins a steady cluster; then everything settles."""
    return _after_membership_change(assignor, lambda workers: workers + [f"worker-{len(workers) + 1:02d}"], **kw)


def successive_joins(max_delay_ms: int = 300_000, n_joins: int = 12, n_connectors: int = 8,
                     tasks_per_connector: int = 8) -> List[Dict[str, Any]]:
    """Workers join one at a time, each straight after the previous round (after sleeping out any
    scheduled delay): the pattern of ``testAssignmentsWhenWorkersJoinAfterRevocations``.  One row per
    round with the revocations and the delay the leader sent; shows the backoff 40 ms, 1.6 s, 64 s, max.
    """
    cluster = ConnectCluster(max_delay_ms=max_delay_ms,
                             connectors={f"conn{i:02d}": tasks_per_connector for i in range(1, n_connectors + 1)})
    workers = ["worker-01"]
    cluster.rebalance(cluster.carried_members(workers))
    rows = []
    for n in range(2, n_joins + 2):
        slept = cluster.delay
        cluster.time.sleep(slept)
        workers.append(f"worker-{n:02d}")
        r = cluster.rebalance(cluster.carried_members(workers))
        t = r.totals()
        rows.append({"round": r.generation_id, "workers": len(workers), "slept before (ms)": slept,
                     "tasks revoked": t["revoked_tasks"], "tasks assigned": t["assigned_tasks"],
                     "delay sent (ms)": r.delay,
                     "successive revoking rounds": cluster.incremental_assignor().num_successive_revoking_rebalances})
    return rows


def ninety_by_ten(settle_delay: bool = True) -> List[Dict[str, Any]]:
    """The README's table: one row per (variant, phase) with rebalances, follow-ups and stops."""
    rows = []
    for rpa in (1, 2):
        runs = {a: start_stop(a, rpa, settle_delay=settle_delay) for a in ASSIGNOR_NAMES}
        for a in ASSIGNOR_NAMES:
            phases = ("start", "stop") if rpa == 1 else ("start",)
            for phase in phases:
                c = runs[a][phase]
                rows.append({"assignor": a, "rebalances_per_addition": rpa, "phase": phase, **c.summary()})
    return rows


def supplementary() -> List[Dict[str, Any]]:
    """Supplementary events on a steady 10-worker cluster running the 900 tasks."""
    rows = []
    for event, fn in (("one worker leaves for good", worker_leaves), ("one worker bounces (back after 60 s)", worker_bounces),
                      ("an 11th worker joins", worker_joins)):
        for a in ASSIGNOR_NAMES:
            c = fn(a)
            rows.append({"event": event, "assignor": a, **c.summary(), "delays": list(c.delays)})
    return rows


__all__ = [
    "PhaseCounts", "bounce_rounds", "bounce_table", "connector_names", "successive_joins", "ninety_by_ten", "start_stop", "steady_cluster", "supplementary",
    "worker_bounces", "worker_joins", "worker_leaves", "worker_names",
]
