"""Ready-made scenarios for the classic group protocol simulator.

* :func:`cooperative_example` -- the p1/p2/p3 example of KIP-429 (c3 joins a group of two);
* :func:`rolling_restart` -- every member bounced once, ``batch`` at a time (a Deployment's
  ``maxUnavailable``), with or without ``group.instance.id`` (KIP-345);
* :func:`random_schedule` -- a seeded random group and fault schedule, for the invariant tests.

Each builds a :class:`~.simulation.GroupSimulation` (``ClassicGroupCoordinator`` and ``ConsumerCoordinator``
behaviour, modelled on Kafka's source at commit 1eb7644, trunk before 4.0) and schedules its faults (:mod:`.faults`).
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import List, Mapping, Optional, Tuple

from ..consumer.assignor import COOPERATIVE, EAGER
from ..validation import require
from .assignors import Assignor
from .config import ProtocolConfig
from .simulation import GroupSimulation

__all__ = ["cooperative_example", "rolling_restart", "RandomSchedule", "random_schedule"]


def cooperative_example(protocol: str = COOPERATIVE, assignors: Optional[Mapping[str, Assignor]] = None,
                        config: ProtocolConfig = ProtocolConfig.instant(initial_rebalance_delay_ms=0)) -> GroupSimulation:
    """The textbook example: one topic with three partitions p1, p2, p3 (``t-0``, ``t-1``, ``t-2``); c1
    and c2 form the group first, c3 joins at 10 s.  Uses ``cooperative-sticky`` (``protocol="eager"``
    runs the same assignor under the eager protocol, as a consumer configured with
    ``[cooperative-sticky, range]`` would)."""
    names = ("cooperative-sticky", "range") if protocol == EAGER else ("cooperative-sticky",)
    sim = GroupSimulation({"t": 3}, config, assignors=assignors)
    sim.add_member("c1", 0, assignors=names, protocol=protocol)
    sim.add_member("c2", 0, assignors=names, protocol=protocol)
    sim.add_member("c3", 10_000, assignors=names, protocol=protocol)
    return sim


def rolling_restart(n_members: int, topics: Mapping[str, int], *, protocol: str = EAGER, static: bool = False,
                    assignor: str = "range", down_ms: int = 5_000, gap_ms: int = 30_000,
                    start_ms: int = 60_000, settle_ms: int = 120_000, config: ProtocolConfig = ProtocolConfig(),
                    assignors: Optional[Mapping[str, Assignor]] = None, record_heartbeats: bool = False,
                    batch: int = 1, run: bool = True, fast_heartbeats: bool = True,
                    summary_only: bool = False) -> GroupSimulation:
    """Restart every member once: members are taken down ``batch`` at a time (a Deployment's
    ``maxUnavailable``); wave *w* shuts down at ``start_ms + w*gap_ms`` (each member closes once its batch in
    hand is done) and is back ``down_ms`` after it has closed.
    With ``static=True`` every member has ``group.instance.id`` (``down_ms`` shorter than the session
    timeout means no rebalance at all).  ``summary_only`` keeps only what ``metrics(sim.measure_from)``
    needs (``GroupSimulation(summary_from=start_ms)``), for groups too large to keep their whole trace.

    Defined in chapter 8, *Static membership*."""
    require(isinstance(n_members, int) and n_members > 0, "n_members", "must be a positive whole number")
    require(isinstance(batch, int) and batch > 0, "batch", "must be a positive whole number")
    sim = GroupSimulation(topics, config, assignors=assignors, record_heartbeats=record_heartbeats,
                          fast_heartbeats=fast_heartbeats, summary_from=start_ms if summary_only else None)
    names = [f"c{i + 1}" for i in range(n_members)]
    for name in names:
        sim.add_member(name, 0, assignors=(assignor,), protocol=protocol,
                       instance_id=f"instance-{name}" if static else None)
    for i, name in enumerate(names):
        sim.bounce(name, start_ms + (i // batch) * gap_ms, down_ms)
    end = start_ms + ((n_members - 1) // batch) * gap_ms + down_ms + settle_ms
    sim.measure_from = start_ms
    if run:
        sim.run(end)
    return sim


@dataclass
class RandomSchedule:
    """A seeded random group with faults; ``quiet_from`` is when the faults stop."""

    seed: int
    sim: GroupSimulation
    faults: List[Tuple[int, str, str]]
    quiet_from: int
    end_ms: int


def random_schedule(seed: int, *, protocol: Optional[str] = None, assignors: Optional[Mapping[str, Assignor]] = None,
                    assignor_name: Optional[str] = None, max_members: int = 5, max_partitions: int = 8,
                    n_faults: Optional[int] = None, config: Optional[ProtocolConfig] = None,
                    fast_heartbeats: bool = True, summary_from: Optional[int] = None) -> RandomSchedule:
    """A random group (2..``max_members`` members, some static) and a random fault schedule: crashes with
    or without restart, graceful bounces, slow members, the leader lost before SyncGroup, coordinator
    failover, late joiners.  Short timeouts keep runs small.  Deterministic in ``seed``.  ``summary_from``
    is passed to :class:`~.simulation.GroupSimulation` (a run kept for its summary only)."""
    rng = random.Random(seed)
    if protocol is None:
        protocol = rng.choice([EAGER, COOPERATIVE])
    if config is None:
        config = ProtocolConfig(session_timeout_ms=6_000, max_poll_interval_ms=20_000, heartbeat_interval_ms=1_000,
                                initial_rebalance_delay_ms=rng.choice([0, 1_000]), network_ms=rng.choice([1, 5]),
                                revoke_ms=rng.choice([0, 50, 500]), retry_backoff_ms=200,
                                new_member_join_timeout_ms=20_000, poll_processing_ms=rng.choice([0, 0, 300, 2_000]))
    if assignor_name is None:
        assignor_name = "cooperative-sticky" if protocol == COOPERATIVE else rng.choice(["range", "roundrobin"])
    n_topics = rng.randint(1, 2)
    topics = {f"t{i}": rng.randint(1, max_partitions) for i in range(n_topics)}
    sim = GroupSimulation(topics, config, assignors=assignors, group_id=f"group-{seed}", record_heartbeats=False,
                          fast_heartbeats=fast_heartbeats, summary_from=summary_from)
    n = rng.randint(2, max_members)
    names = [f"c{i + 1}" for i in range(n)]
    for name in names:
        static = rng.random() < 0.3
        sim.add_member(name, rng.choice([0, 0, rng.randint(0, 5_000)]), assignors=(assignor_name,),
                       protocol=protocol, instance_id=f"i-{name}" if static else None)
    faults: List[Tuple[int, str, str]] = []
    t = 8_000
    k = rng.randint(1, 5) if n_faults is None else n_faults
    for _ in range(k):
        t += rng.randint(200, 15_000)
        kind = rng.choice(["crash", "crash_restart", "bounce", "slow", "leader_lost", "failover", "join"])
        name = rng.choice(names)
        if kind == "crash":
            sim.crash(name, t)
            sim.restart(name, t + rng.randint(30_000, 40_000))  # eventually back, so the end state is full
            t_end = t + 40_000
        elif kind == "crash_restart":
            sim.crash(name, t)
            sim.restart(name, t + rng.randint(100, 9_000))
            t_end = t + 9_000
        elif kind == "bounce":
            sim.bounce(name, t, rng.randint(100, 8_000))
            t_end = t + 8_000
        elif kind == "slow":
            sim.slow(name, t, rng.randint(500, config.max_poll_interval_ms // 2))
            t_end = t + config.max_poll_interval_ms // 2
        elif kind == "leader_lost":
            sim.lose_leader_before_sync()  # the leader of the rebalance this late joiner starts dies
            extra = f"late-{len(faults)}"
            sim.add_member(extra, t, assignors=(assignor_name,), protocol=protocol)
            names.append(extra)
            t_end = t + 1
        elif kind == "failover":
            sim.coordinator_failover(t, rng.randint(100, 4_000))
            t_end = t + 4_000
        else:
            extra = f"late-{len(faults)}"
            sim.add_member(extra, t, assignors=(assignor_name,), protocol=protocol,
                           instance_id=f"i-{extra}" if rng.random() < 0.3 else None)
            names.append(extra)
            t_end = t
        faults.append((t, kind, name))
        t = max(t, t_end)
    quiet = t
    # (a leader lost before SyncGroup never comes back; the group must settle without it)
    end = quiet + config.session_timeout_ms + 3 * config.rebalance_timeout_ms + 10_000
    return RandomSchedule(seed, sim, faults, quiet, end)
