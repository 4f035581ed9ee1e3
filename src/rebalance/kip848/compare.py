"""Classic eager, classic cooperative and KIP-848 side by side, on the same scenarios.

The classic protocol runs in :class:`rebalance.protocol.simulation.GroupSimulation` (JoinGroup/SyncGroup
with a barrier); KIP-848 in :func:`rebalance.kip848.scenarios.simulate`.  Both report the same
:class:`~rebalance.protocol.ledger.RebalanceMetrics`, computed by the same ownership ledger.  Both share the virtual clock
design and the same assumptions where they overlap: one-way network latency, time spent revoking
(commit + ``onPartitionsRevoked``), the restart time of a bounced process, the same schedule of events.
Heartbeat intervals are each protocol's default (``heartbeat.interval.ms`` = 3 s for the classic consumer,
``group.consumer.heartbeat.interval.ms`` = 5 s for KIP-848), as an operator would run them, and both run the
same poll loop (:class:`rebalance.protocol.pollloop.PollLoopConfig`: 500-record batches of 500 ms by
default; ``poll_processing_ms`` changes the time per batch).  :func:`processing_sensitivity` shows how the
ranking of eager, cooperative, static and KIP-848 changes with that time.

The figures depend on where in the heartbeat cycle the event falls; :func:`phase_sweep` shows the spread.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..errors import InputError
from ..protocol.ledger import RebalanceMetrics
from .assignor import ASSIGNORS
from .group import assign_group, moved_partitions
from .config import KIP848Config
from .scenarios import simulate

__all__ = ["compare_protocols", "phase_sweep", "processing_sensitivity", "join_at_scale", "scale_group",
           "PROTOCOLS", "SENSITIVITY_PROTOCOLS"]

#: (label, classic rebalance protocol or None for KIP-848, assignor)
PROTOCOLS = (
    ("classic eager (range)", "eager", "range"),
    ("classic cooperative (cooperative-sticky)", "cooperative", "cooperative-sticky"),
    ("KIP-848 consumer (uniform)", None, "uniform"),
)

SCENARIO_NAMES = ("join", "leave", "crash", "rolling_restart")


def _classic(scenario: str, protocol: str, assignor: str, members: int, topics: Mapping[str, int], *,
             static: bool, start_ms: int, gap_ms: int, restart_ms: int, revoke_ms: int, network_ms: int,
             horizon_ms: int, poll_processing_ms: Optional[int] = None) -> RebalanceMetrics:
    from ..protocol.config import ProtocolConfig
    from ..protocol.simulation import GroupSimulation

    sim = GroupSimulation(dict(topics), ProtocolConfig(network_ms=network_ms, revoke_ms=revoke_ms,
                                                       poll_processing_ms=poll_processing_ms),
                          record_heartbeats=False)
    names = [f"consumer-{i + 1}" for i in range(members)]
    for name in names:
        sim.add_member(name, 0, assignors=(assignor,), protocol=protocol,
                       instance_id=f"instance-{name}" if static else None)
    if scenario == "join":
        extra = f"consumer-{members + 1}"
        sim.add_member(extra, start_ms, assignors=(assignor,), protocol=protocol,
                       instance_id=f"instance-{extra}" if static else None)
        end = start_ms
    elif scenario == "leave":
        sim.shutdown(names[-1], start_ms)
        end = start_ms
    elif scenario == "crash":
        sim.crash(names[-1], start_ms)
        end = start_ms
    else:
        for i, name in enumerate(names):
            sim.bounce(name, start_ms + i * gap_ms, restart_ms)
        end = start_ms + (members - 1) * gap_ms + restart_ms
    sim.run(end + horizon_ms)
    return sim.metrics(start_ms, sim.metrics(start_ms).stable_ms or sim.clock.now_ms)


def _kip848(scenario: str, members: int, topics: Mapping[str, int], *, static: bool, start_ms: int, gap_ms: int,
            restart_ms: int, revoke_ms: int, network_ms: int, assignor: str = "uniform",
            heartbeat_interval_ms: int = 5000, poll_processing_ms: Optional[int] = None) -> RebalanceMetrics:
    config = KIP848Config(network_ms=network_ms, revoke_ms=revoke_ms, assignment_ms=0, restart_ms=restart_ms,
                          assignor=assignor, heartbeat_interval_ms=heartbeat_interval_ms,
                          poll_processing_ms=poll_processing_ms)
    return simulate(scenario, members, dict(topics), static=static, config=config, start_ms=start_ms,
                    gap_ms=gap_ms if scenario == "rolling_restart" else None).metrics


def compare_protocols(scenario: str = "join", members: int = 3, topics: Optional[Mapping[str, int]] = None, *,
                      static: bool = False, start_ms: int = 61_500, gap_ms: int = 30_000, restart_ms: int = 5_000,
                      revoke_ms: int = 100, network_ms: int = 1, horizon_ms: int = 240_000,
                      kip848_heartbeat_ms: int = 5000, protocols: Sequence[Tuple[Any, ...]] = PROTOCOLS,
                      poll_processing_ms: Optional[int] = None) -> List[Dict[str, Any]]:
    """One row per protocol: time to stable, unowned partition-seconds, partitions moved and stopped,
    and the number of rebalances (classic) or group-epoch bumps (KIP-848) after ``start_ms``.
    ``kip848_heartbeat_ms`` is ``group.consumer.heartbeat.interval.ms`` (the classic consumer keeps its
    3 s ``heartbeat.interval.ms``); ``poll_processing_ms`` is every consumer's time per ``poll()`` batch
    (default: the poll loop's, 500 records at 1 ms each).  A protocol entry may carry a fourth element,
    ``True`` for static members (``group.instance.id``) whatever ``static`` says."""
    if scenario not in SCENARIO_NAMES:
        raise InputError("scenario", f"must be one of {', '.join(SCENARIO_NAMES)}, got {scenario!r}")
    topics = {"orders": 12} if topics is None else dict(topics)
    rows = []
    for entry in protocols:
        label, protocol, assignor = entry[:3]
        common: Dict[str, Any] = dict(static=static or (len(entry) > 3 and bool(entry[3])), start_ms=start_ms,
                                      gap_ms=gap_ms, restart_ms=restart_ms, revoke_ms=revoke_ms,
                                      network_ms=network_ms, poll_processing_ms=poll_processing_ms)
        if protocol is None:
            m = _kip848(scenario, members, topics, assignor=assignor, heartbeat_interval_ms=kip848_heartbeat_ms,
                        **common)
        else:
            m = _classic(scenario, protocol, assignor, members, topics, horizon_ms=horizon_ms, **common)
        rows.append({"scenario": scenario + ("-static" if static else ""), "protocol": label,
                     "time_to_stable_ms": m.time_to_stable_ms,
                     "unowned_partition_seconds": round(m.unowned_partition_seconds, 3),
                     "partitions_moved": m.partitions_moved, "partitions_stopped": m.partitions_stopped,
                     "rebalances_or_epoch_bumps": m.rebalances})
    return rows


def phase_sweep(scenario: str = "join", offsets_ms: Sequence[int] = range(0, 5000, 500), **kwargs: Any
                ) -> List[Dict[str, Any]]:
    """:func:`compare_protocols` for events that happen ``offset`` ms after 60 s: how much the figures
    depend on the heartbeat phase."""
    rows = []
    for offset in offsets_ms:
        for row in compare_protocols(scenario, start_ms=60_000 + offset, **kwargs):
            rows.append({"offset_ms": offset, **row})
    return rows


#: the four ways of running a consumer group the sensitivity figure ranks
SENSITIVITY_PROTOCOLS = (
    ("eager", "eager", "range"),
    ("cooperative", "cooperative", "cooperative-sticky"),
    ("static (eager)", "eager", "range", True),
    ("KIP-848", None, "uniform"),
)


def processing_sensitivity(processing_ms: Sequence[int] = (0, 100, 500, 2_000, 5_000, 10_000),
                           scenario: str = "rolling_restart", members: int = 4,
                           topics: Optional[Mapping[str, int]] = None,
                           offsets_ms: Sequence[int] = (0, 1_500), **kwargs: Any) -> List[Dict[str, Any]]:
    """:func:`compare_protocols` for each time per ``poll()`` batch in ``processing_ms`` and each protocol of
    :data:`SENSITIVITY_PROTOCOLS`, averaged over events that start ``offsets_ms`` after 60 s (the figures
    depend on where in the heartbeat and batch cycles an event falls).  One row per (processing time,
    protocol) with the mean unowned partition-seconds, time to stable and partitions stopped, and the
    protocol's ``rank`` (1 = fewest unowned partition-seconds) at that processing time."""
    for i, p in enumerate(processing_ms):
        if not isinstance(p, int) or isinstance(p, bool) or p < 0:
            raise InputError(f"processing_ms[{i}]", f"must be a whole number of milliseconds >= 0, got {p!r}")
    rows = []
    for p in processing_ms:
        runs = [compare_protocols(scenario, members, topics, start_ms=60_000 + offset, poll_processing_ms=p,
                                  protocols=SENSITIVITY_PROTOCOLS, **kwargs) for offset in offsets_ms]
        block = []
        for k, (label, *_rest) in enumerate(SENSITIVITY_PROTOCOLS):
            per = [run[k] for run in runs]
            stable = [r["time_to_stable_ms"] for r in per if r["time_to_stable_ms"] is not None]
            block.append({"poll_processing_ms": p, "protocol": label,
                          "unowned_partition_seconds": round(sum(r["unowned_partition_seconds"] for r in per) / len(per), 3),
                          "time_to_stable_s": round(sum(stable) / len(stable) / 1000, 3) if stable else None,
                          "partitions_stopped": sum(r["partitions_stopped"] for r in per) / len(per)})
        order = sorted(range(len(block)), key=lambda k: (block[k]["unowned_partition_seconds"], k))
        for rank, k in enumerate(order, start=1):
            block[k]["rank"] = rank
        rows.extend(block)
    return rows


def scale_group(members: int, topics: int, partitions: int, heterogeneous: bool, seed: int = 7
                ) -> Tuple[Dict[str, int], List[Dict[str, Any]]]:
    """A generated group: ``topics`` topics of ``partitions`` partitions; every member subscribes to all of
    them (homogeneous) or to a random half (heterogeneous, ``random.Random(seed)``).  Returns
    ``(topics, members)`` in :func:`assign_group`'s input form."""
    import random

    rng = random.Random(seed)
    by_name = {f"topic-{i:03d}": partitions for i in range(topics)}
    names = sorted(by_name)
    out = []
    for i in range(members):
        subs = sorted(rng.sample(names, max(1, topics // 2))) if heterogeneous else names
        out.append({"id": f"member-{i:04d}", "subscriptions": subs})
    return by_name, out


def join_at_scale(members: int = 100, topics: int = 20, partitions: int = 50, seed: int = 7) -> List[Dict[str, Any]]:
    """For each subscription shape and server-side assignor: a group of ``members`` is assigned, one more
    member (subscribed like the first) joins, and the row gives the builder, the partitions that change
    owner on the join, the spread (max - min partitions per member) and the members left with nothing after
    it.  ``benchmarks/bench_kip848.py`` times the same computation at larger sizes."""
    rows = []
    for heterogeneous in (False, True):
        topic_map, group = scale_group(members, topics, partitions, heterogeneous, seed)
        for assignor in ASSIGNORS:
            first = assign_group(assignor, topic_map, group)
            joined = group + [{"id": "member-new", "subscriptions": group[0]["subscriptions"]}]
            second = assign_group(assignor, topic_map, joined, previous=first)
            counts = [sum(len(p) for p in a.values()) for a in second.by_name().values()]
            rows.append({"subscriptions": "heterogeneous" if heterogeneous else "homogeneous", "assignor": assignor,
                         "builder": second.builder, "members": members, "topics": topics,
                         "partitions_per_topic": partitions,
                         "moved_on_join": sum(1 for m in moved_partitions(first.by_name(), second.by_name())
                                              if m["from"] is not None),
                         "max_minus_min": max(counts) - min(counts),
                         "idle_members": sum(1 for c in counts if c == 0)})
    return rows
