"""KIP-848 scenarios: a group formed through the protocol, then one join, leave, crash or rolling restart.

Each runs a :class:`~.simulation.KIP848Simulation` (``GroupMetadataManager.consumerGroupHeartbeat`` and
``CurrentAssignmentBuilder`` on the coordinator side, ``AsyncKafkaConsumer``'s membership manager on the
client side, modelled on Kafka's source at commit 1eb7644, trunk before 4.0, with 4.3's assignment interval on
the coordinator) and returns a
:class:`~.simulation.SimulationResult` whose metrics are the shared
:class:`~rebalance.protocol.ledger.RebalanceMetrics`.
"""
from __future__ import annotations

import functools
from typing import Any, Mapping, Optional, Sequence, Union

from ..errors import InputError, SimulationError
from .config import KIP848Config
from .group import TopicCatalog, check_group_size
from .reconciliation import topic_partitions
from .simulation import KIP848Simulation, SimulationResult, process_of

__all__ = ["SCENARIOS", "simulate"]

SCENARIOS = ("join", "leave", "crash", "rolling_restart")


def simulate(scenario: str = "join", members: int = 3,
             topics: Optional[Union[TopicCatalog, Mapping[str, Any]]] = None, *, static: bool = False,
             config: Optional[KIP848Config] = None, start_ms: Optional[int] = None, gap_ms: Optional[int] = None,
             names: Optional[Sequence[str]] = None, max_ms: int = 3_600_000) -> SimulationResult:
    """Run one scenario on a fresh group of ``members`` consumers subscribed to every topic.

    * ``join``: one more member joins a stable group;
    * ``leave``: the last member shuts down gracefully;
    * ``crash``: the last member dies (the coordinator waits for the session timeout);
    * ``rolling_restart``: each member in turn shuts down, restarts ``config.restart_ms`` later and rejoins;
      the next one goes ``gap_ms`` after the previous shutdown or, without ``gap_ms``, once the group is
      stable again.  With ``static=True`` members have a ``group.instance.id`` and their partitions wait
      for them.

    The group is first formed through the protocol itself; the scenario starts at ``start_ms`` (default:
    half a heartbeat interval after the group first became stable) and the metrics count from there.
    ``names`` are member ids: the first ``members`` form the group, the next one (if given) joins.

    Defined in chapter 9, *KIP-848: rebalancing without the barrier*."""
    if scenario not in SCENARIOS:
        raise InputError("scenario", f"must be one of {', '.join(SCENARIOS)}, got {scenario!r}")
    if not isinstance(members, int) or isinstance(members, bool) or members < 1:
        raise InputError("members", f"must be a member count >= 1, got {members!r}")
    if gap_ms is not None and (not isinstance(gap_ms, int) or gap_ms <= 0):
        raise InputError("gap_ms", f"must be a positive number of ms, got {gap_ms!r}")
    if not isinstance(max_ms, int) or isinstance(max_ms, bool) or max_ms <= 0:
        raise InputError("max_ms", f"must be a positive number of ms, got {max_ms!r}")
    topics = {"orders": 12} if topics is None else topics
    sim = KIP848Simulation(topics, config)
    check_group_size(sim.catalog, members + 1)
    cfg = sim.config
    topic_names = [t.name for t in sim.catalog.topics()]
    if names is not None and (len(names) < members or len(set(names)) != len(names)
                              or not all(isinstance(n, str) and n and "~" not in n for n in names)):
        raise InputError("names", f"must be at least {members} distinct member ids without '~'")
    ids = list(names[:members]) if names is not None else [f"consumer-{i + 1}" for i in range(members)]
    for i, mid in enumerate(ids):
        sim.clock.schedule(i, functools.partial(sim.start_member, mid, topic_names,
                                                f"instance-{mid}" if static else None), f"start {mid}")
    sim.clock.run_until(0)
    formed = sim.run_until_stable(max_ms)
    if formed is None:
        raise SimulationError("max_ms", f"the initial group of {members} member(s) was not stable within "
                                        f"max_ms={max_ms} ms of virtual time; raise max_ms")
    if start_ms is None:
        start_ms = formed + cfg.heartbeat_interval_ms // 2
    elif not isinstance(start_ms, int) or start_ms < formed:
        raise InputError("start_ms", f"must be a time after the group formed ({formed} ms), got {start_ms!r}")
    sim.clock.run_until(start_ms)
    start = start_ms
    hb_before = sim.coordinator.heartbeats
    trace_from = len(sim.trace)
    stable: Optional[int] = None
    if scenario == "join":
        new_id = names[members] if names is not None and len(names) > members else f"consumer-{members + 1}"
        sim.start_member(new_id, topic_names, f"instance-{new_id}" if static else None)
        stable = sim.run_until_stable(max_ms)
    elif scenario == "leave":
        sim.stop_member(ids[-1])
        stable = sim.run_until_stable(max_ms, idle=lambda: ids[-1] not in sim.coordinator.members)
    elif scenario == "crash":
        sim.crash_member(ids[-1])
        stable = sim.run_until_stable(max_ms, idle=lambda: ids[-1] not in sim.coordinator.members)
    elif gap_ms is not None:
        def bounce(mid: str) -> None:
            current = [c for c in sim.clients if process_of(c) == mid]
            sim.stop_member(current[-1], restart_after_ms=cfg.restart_ms)
        for i, mid in enumerate(ids):
            sim.clock.schedule_at(start + i * gap_ms, functools.partial(bounce, mid), f"bounce {mid}")
        last_back = start + (members - 1) * gap_ms + cfg.restart_ms + cfg.revoke_ms

        def all_back() -> bool:
            return sim.clock.now_ms > last_back and all(
                any(process_of(c) == mid and sim.clients[c].running for c in sim.clients) for mid in ids)
        stable = sim.run_until_stable(max_ms, idle=all_back)
    else:
        for mid in ids:
            current = [c for c in sim.clients if process_of(c) == mid]
            sim.stop_member(current[-1], restart_after_ms=cfg.restart_ms)
            started = sim.clock.now_ms

            def back(mid: str = mid, started: int = started) -> bool:
                return sim.clock.now_ms > started + cfg.restart_ms and any(
                    process_of(c) == mid and sim.clients[c].running for c in sim.clients)
            stable = sim.run_until_stable(max_ms, idle=back)
            if stable is None:
                break
    end = stable if stable is not None else sim.clock.now_ms
    final = {m.member_id: [f"{t}-{p}" for t, p in sorted(topic_partitions(m.assigned))]
             for m in sim.coordinator.members.values()}
    return SimulationResult(
        scenario=scenario + ("-static" if static else ""), protocol=f"consumer ({cfg.assignor})",
        metrics=sim.metrics(start, end, stable), heartbeats=sim.coordinator.heartbeats - hb_before,
        assignments_computed=sim.coordinator.assignments_computed, final_assignment=final,
        trace=sim.trace[trace_from:], ownership=sim.ownership, epochs=list(sim.epochs),
        group_epochs=list(sim.group_epochs))
