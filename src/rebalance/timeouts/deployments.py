"""Timeout values for named deployments, chosen by simulating each candidate (Kafka 4.3.1, classic protocol).

A :class:`Deployment` states what the settings depend on: whether the consumers are static members
(``group.instance.id``), how long a consumer process is away when it restarts, how long one ``poll()``'s records
take, the longest whole-process pause to survive (a garbage collection, a VM hiccup) and the gap between two
consumers' starts.  :func:`recommend` tries every candidate ``session.timeout.ms`` (with
``heartbeat.interval.ms`` a third of it, at most Kafka's default): a candidate that breaks a rule of
:mod:`rebalance.timeouts.rules` is out; each other one runs a rolling restart of the group and one crashed
consumer that comes back after a restart (:func:`rebalance.protocol.rolling_restart` and
:class:`~rebalance.protocol.simulation.GroupSimulation`, cooperative-sticky), and the candidate with the fewest
rebalances, then the fewest unowned partition-seconds, then the fewest stopped member-seconds
(``processing_stopped_member_seconds``), then the shortest session (a dead consumer found sooner) wins.
``max.poll.interval.ms``, ``group.initial.rebalance.delay.ms`` and Kubernetes' ``terminationGracePeriodSeconds``
are the smallest candidates their rules accept with a margin of two (processing times vary).

Defined in chapter 17, *Setting the timeouts*.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

from ..consumer.assignor import COOPERATIVE
from ..kafka.config_defs import default_of
from ..protocol.config import ProtocolConfig
from ..protocol.scenarios import rolling_restart
from ..protocol.simulation import GroupSimulation
from ..validation import require
from .rules import (grace_covers_close, heartbeat_interval, initial_delay_covers_starts, pause_within_session,
                    poll_interval_covers_batch, session_bounds, static_session_covers_restart)
from .runs import Row

__all__ = ["Deployment", "DEPLOYMENTS", "Recommendation", "recommend", "SESSION_CANDIDATES_MS",
           "POLL_INTERVAL_CANDIDATES_MS", "INITIAL_DELAY_CANDIDATES_MS", "MARGIN"]

#: the ``session.timeout.ms`` values tried
SESSION_CANDIDATES_MS = (10_000, 15_000, 20_000, 30_000, 45_000, 60_000, 90_000, 120_000)
#: the ``max.poll.interval.ms`` values tried (the default last)
POLL_INTERVAL_CANDIDATES_MS = (30_000, 60_000, 120_000, 300_000, 600_000)
#: the ``group.initial.rebalance.delay.ms`` values tried
INITIAL_DELAY_CANDIDATES_MS = (0, 3_000, 5_000, 10_000, 20_000)
#: the margin on a measured time (a batch, a close, a start gap)
MARGIN = 2


@dataclass(frozen=True)
class Deployment:
    """What the timeouts of one deployment depend on (milliseconds): ``static`` (``group.instance.id`` set, e.g.
    to the pod name), ``restart_ms`` (a consumer away during a restart: from its old process's last heartbeat to
    its new process's JoinGroup), ``batch_ms`` (one ``poll()``'s records), ``longest_pause_ms`` (the longest
    whole-process pause to survive), ``start_gap_ms`` (between two consumers' starts when the group starts from
    empty), ``kubernetes`` (a pod gets ``terminationGracePeriodSeconds`` to close), ``members`` and
    ``partitions`` of the simulated group."""

    name: str
    static: bool
    restart_ms: int
    batch_ms: int
    longest_pause_ms: int
    start_gap_ms: int
    kubernetes: bool
    members: int = 6
    partitions: int = 24


#: the three deployments of chapter 17: a service on its own hosts (systemd restarts it in seconds), a
#: Kubernetes Deployment (a new pod, hence a new member, for every restart) and a StatefulSet whose pods keep
#: their names (``group.instance.id`` = pod name) but take 40 s to come back
DEPLOYMENTS: Tuple[Deployment, ...] = (
    Deployment("plain service", static=False, restart_ms=5_000, batch_ms=5_000, longest_pause_ms=10_000,
               start_gap_ms=1_000, kubernetes=False),
    Deployment("Kubernetes Deployment", static=False, restart_ms=20_000, batch_ms=5_000, longest_pause_ms=10_000,
               start_gap_ms=4_000, kubernetes=True),
    Deployment("StatefulSet, static members", static=True, restart_ms=40_000, batch_ms=5_000,
               longest_pause_ms=10_000, start_gap_ms=4_000, kubernetes=True),
)


@dataclass(frozen=True)
class Recommendation:
    """The settings chosen for a deployment (Kafka's names -> values; ``terminationGracePeriodSeconds`` in
    seconds) and every ``session.timeout.ms`` candidate's row (``rule broken`` names the rule that put it out)."""

    deployment: Deployment
    settings: Dict[str, int]
    candidates: List[Row] = field(default_factory=list)


def _costs(d: Deployment, config: ProtocolConfig) -> Row:
    topics = {"t": d.partitions}
    rolling = rolling_restart(d.members, topics, protocol=COOPERATIVE, static=d.static, assignor="cooperative-sticky",
                              down_ms=d.restart_ms, gap_ms=max(60_000, 2 * d.restart_ms), config=config)
    crash = GroupSimulation(topics, config, record_heartbeats=False, default_assignors=("cooperative-sticky",),
                            default_protocol=COOPERATIVE)
    names = [f"c{i + 1}" for i in range(d.members)]
    for name in names:
        crash.add_member(name, 0, instance_id=f"pod-{name}" if d.static else None)
    crash.crash("c1", 30_000)
    crash.restart("c1", 30_000 + d.restart_ms)
    end = 30_000 + d.restart_ms + config.session_timeout_ms + 120_000
    crash.run(end)
    out: Row = {"rebalances": 0, "unowned partition-s": 0.0, "stopped member-s": 0.0}
    for sim, start in ((rolling, rolling.measure_from), (crash, 30_000)):
        until = sim.clock.now_ms
        m = sim.metrics(start)
        stops = sim.ownership.stop_measures(start, until)
        out["rebalances"] += m.rebalances
        out["unowned partition-s"] = round(out["unowned partition-s"] + m.unowned_partition_seconds, 1)
        out["stopped member-s"] = round(out["stopped member-s"] + stops.processing_stopped_member_seconds, 1)
    return out


def _smallest(candidates: Tuple[int, ...], ok: Callable[[int], bool]) -> int:
    for c in candidates:
        if ok(c):
            return c
    return candidates[-1]


def recommend(d: Deployment) -> Recommendation:
    """The settings for deployment ``d`` (see the module docstring).

    Defined in chapter 17, *Setting the timeouts*."""
    require(isinstance(d, Deployment), "d", f"must be a Deployment, got {type(d).__name__}")
    default_hb = default_of("heartbeat.interval.ms")
    low, high = default_of("group.min.session.timeout.ms"), default_of("group.max.session.timeout.ms")
    rows: List[Row] = []
    best: Optional[Tuple[Tuple[float, ...], int, int]] = None
    for session in SESSION_CANDIDATES_MS:
        hb = min(default_hb, session // 3)
        broken = (session_bounds(session, low, high) or heartbeat_interval(session, hb)
                  or pause_within_session(session, hb, d.longest_pause_ms)
                  or (static_session_covers_restart(session, hb, d.restart_ms) if d.static else None))
        row: Row = {"session.timeout.ms": session, "heartbeat.interval.ms": hb,
                    "rule broken": broken.rule if broken else ""}
        costs = _costs(d, ProtocolConfig(session_timeout_ms=session, heartbeat_interval_ms=hb).validate())
        row.update(costs)
        rows.append(row)
        if broken is None:
            key = (costs["unowned partition-s"], costs["stopped member-s"], costs["rebalances"], session)
            if best is None or key < best[0]:
                best = (key, session, hb)
    require(best is not None, "d", f"no session.timeout.ms candidate satisfies the rules for {d.name!r}")
    assert best is not None
    settings = {"session.timeout.ms": best[1], "heartbeat.interval.ms": best[2],
                "max.poll.interval.ms": _smallest(POLL_INTERVAL_CANDIDATES_MS,
                                                  lambda m: poll_interval_covers_batch(m, MARGIN * d.batch_ms) is None),
                "group.initial.rebalance.delay.ms": _smallest(
                    INITIAL_DELAY_CANDIDATES_MS,
                    lambda g: initial_delay_covers_starts(g, MARGIN * d.start_gap_ms) is None)}
    if d.kubernetes:
        close_ms = d.batch_ms + ProtocolConfig().revoke_ms  # the batch in progress, then the commit on revoke
        grace_s = max(30, -(-MARGIN * close_ms // 1000))  # at least Kubernetes' default of 30 s
        require(grace_covers_close(grace_s * 1000, close_ms) is None, "d", "no grace period covers the close")
        settings["terminationGracePeriodSeconds"] = grace_s
    return Recommendation(d, settings, rows)
