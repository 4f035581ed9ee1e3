"""What breaking each timeout rule does, computed: one simulated run per rule (:mod:`rebalance.timeouts.rules`).

Every run is a small group of the book's simulators -- the classic protocol's
:class:`~rebalance.protocol.simulation.GroupSimulation` (``ClassicGroup`` and ``ConsumerCoordinator``) and
KIP-848's :class:`~rebalance.kip848.simulation.KIP848Simulation`, driven through
:func:`rebalance.simulate.simulate_scenario` where a scenario can say it -- with Kafka 4.3.1's defaults (the
same as the jars', :mod:`rebalance.kafka.config_defs`) except for the setting the run varies.  Each returns one
row: the group's rebalances, its unowned partition-seconds and, where the scenario language gives them, the
members' stopped seconds (``processing_stopped_member_seconds``) and how long a member that joined waited for its first partition,
measured from the moment the rule is broken.

Defined in chapter 17, *Setting the timeouts*.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from ..protocol.config import ProtocolConfig
from ..protocol.simulation import GroupSimulation
from ..simulate import simulate_scenario
from ..validation import require

__all__ = ["Row", "scenario_row", "pause_run", "poll_timeout_run", "stall_run", "initial_delay_run",
           "static_restart_run", "grace_run", "session_bounds_run"]

#: one run's figures, column name -> value
Row = Dict[str, Any]


def scenario_row(protocol: str, members: List[Dict[str, Any]], events: List[Dict[str, Any]],
                 config: Mapping[str, Any], until_ms: int, *, partitions: int = 6, measure_from_ms: int = 0) -> Row:
    """Run one scenario of :mod:`rebalance.simulate` (topic ``t`` of ``partitions`` partitions) and give its
    summary's cost figures."""
    out = simulate_scenario({"id": "timeouts", "protocol": protocol, "topics": {"t": partitions}, "members": members,
                             "config": dict(config), "events": events, "until_ms": until_ms,
                             "measure_from_ms": measure_from_ms, "rebuild_ms_per_partition": 0})
    s = out.summary()
    row: Row = {"rebalances": s["rebalances"], "unowned partition-s": round(s["unowned_partition_seconds"], 1),
                "stopped member-s": round(s.get("processing_stopped_member_seconds", 0.0), 1)}
    joins = [e for e in events if e["op"] == "join" and e["at_ms"] >= measure_from_ms]
    if joins and out.ownership is not None:  # how long a member that joined waited for its first partition
        firsts = [out.ownership.acquired_ms(e["member"], e["at_ms"], until_ms)[:1] for e in joins]
        waits = [(t[0] - e["at_ms"]) / 1000 for t, e in zip(firsts, joins) if t]
        row["first work after s"] = round(max(waits), 1) if len(waits) == len(joins) else None
    return row


def pause_run(pause_ms: int, *, session_timeout_ms: int = 45_000, heartbeat_interval_ms: int = 3_000,
              at_ms: int = 20_000, starts: int = 4) -> Row:
    """Three classic consumers on six partitions; ``c2``'s whole process stops for ``pause_ms``
    (:meth:`GroupSimulation.pause <rebalance.protocol.simulation.GroupSimulation.pause>`), in ``starts`` runs
    whose pause begins at ``at_ms`` and at even steps across one heartbeat interval after it (how long ago the
    last heartbeat went decides whether the session survives).  ``removed in``: the runs in which the
    coordinator expired ``c2``'s session; the other figures are the worst run's."""
    require(isinstance(pause_ms, int) and pause_ms >= 0, "pause_ms", f"must be a whole number of ms >= 0, got {pause_ms!r}")
    require(isinstance(starts, int) and starts >= 1, "starts", f"must be a positive whole number, got {starts!r}")
    config = ProtocolConfig(session_timeout_ms=session_timeout_ms, heartbeat_interval_ms=heartbeat_interval_ms).validate()
    removed, rebalances, unowned = 0, 0, 0.0
    for k in range(starts):
        start = at_ms + k * heartbeat_interval_ms // starts
        sim = GroupSimulation({"t": 6}, config, record_heartbeats=False)
        for name in ("c1", "c2", "c3"):
            sim.add_member(name, 0)
        sim.pause("c2", start, pause_ms)
        sim.run(start + pause_ms + session_timeout_ms + 60_000)
        m = sim.metrics(start)
        removed += any(e.kind == "decision" and e.fields.get("what") == "sessionExpired" for e in sim.events)
        rebalances, unowned = max(rebalances, m.rebalances), max(unowned, m.unowned_partition_seconds)
    return {"removed in": f"{removed} of {starts} runs", "rebalances": rebalances,
            "unowned partition-s": round(unowned, 1)}


def poll_timeout_run(batch_ms: int, max_poll_interval_ms: int, group_protocol: str = "classic",
                     until_ms: int = 300_000) -> Row:
    """Three consumers on six partitions, of which ``slow`` spends ``batch_ms`` on every ``poll()``'s records,
    against ``max.poll.interval.ms``; ``group_protocol`` ``classic`` runs the eager protocol (RangeAssignor),
    ``consumer`` KIP-848's.  Measured from 20 s, once the group has formed (a KIP-848 group of three that start
    together is complete at about 10 s: Kafka 4.3's assignment interval makes the second and third wait for the
    heartbeats 5 s later, and their partitions for the first member's revocation)."""
    protocol = {"classic": "eager", "consumer": "consumer"}.get(group_protocol)
    require(protocol is not None, "group_protocol", f"must be 'classic' or 'consumer', got {group_protocol!r}")
    members: List[Dict[str, Any]] = [{"id": "c1"}, {"id": "c2"}, {"id": "slow", "poll_processing_ms": batch_ms}]
    return scenario_row(str(protocol), members, [], {"max_poll_interval_ms": max_poll_interval_ms}, until_ms,
                        measure_from_ms=20_000)


def stall_run(max_poll_interval_ms: int, protocol: str, *, join_at_ms: int = 20_000,
              until_ms: int = 900_000) -> Row:
    """Four consumers on twelve partitions, one of them ``stuck`` (a batch of 20 minutes: a hung call, a
    deadlock); ``c4`` joins at ``join_at_ms``.  ``protocol``: ``eager``, ``cooperative`` (classic) or
    ``consumer`` (KIP-848).  The classic rebalance waits for ``stuck`` until its ``max.poll.interval.ms``
    expires.

    Defined in chapter 17, *Setting the timeouts*."""
    members: List[Dict[str, Any]] = [{"id": "c1"}, {"id": "c2"}, {"id": "c3"},
                                     {"id": "stuck", "poll_processing_ms": 1_200_000}, {"id": "c4"}]
    return scenario_row(protocol, members, [{"at_ms": join_at_ms, "op": "join", "member": "c4"}],
                        {"max_poll_interval_ms": max_poll_interval_ms}, until_ms, partitions=12,
                        measure_from_ms=join_at_ms)


def initial_delay_run(initial_rebalance_delay_ms: int, start_gap_ms: int, members: int = 6) -> Row:
    """An empty classic (eager) group on twelve partitions; ``members`` consumers start ``start_gap_ms`` apart,
    with the broker's ``group.initial.rebalance.delay.ms``.  Measured from the first start: the unowned
    partition-seconds include the wait for the first generation."""
    require(isinstance(members, int) and members > 0, "members", f"must be a positive whole number, got {members!r}")
    names = [f"c{i + 1}" for i in range(members)]
    events = [{"at_ms": start_gap_ms * i, "op": "join", "member": n} for i, n in enumerate(names)]
    row = scenario_row("eager", [{"id": n} for n in names], events,
                       {"initial_rebalance_delay_ms": initial_rebalance_delay_ms},
                       start_gap_ms * members + 120_000, partitions=12)
    return {k: row[k] for k in ("rebalances", "unowned partition-s", "stopped member-s")}


def static_restart_run(session_timeout_ms: int, restart_ms: int, *, protocol: str = "eager") -> Row:
    """Three static consumers (``group.instance.id``) on six partitions; ``c2`` is restarted at 20 s and its new
    process starts ``restart_ms`` after the old one stopped."""
    members = [{"id": f"c{i}", "instance_id": f"pod-{i}"} for i in (1, 2, 3)]
    row = scenario_row(protocol, members, [{"at_ms": 20_000, "op": "restart", "member": "c2", "down_ms": restart_ms}],
                       {"session_timeout_ms": session_timeout_ms}, 20_000 + restart_ms + session_timeout_ms + 120_000,
                       measure_from_ms=15_000)
    return {k: row[k] for k in ("rebalances", "unowned partition-s", "stopped member-s")}


def grace_run(termination_grace_period_ms: int, close_ms: int, *, start_ms: int = 10_000,
              session_timeout_ms: int = 45_000) -> Row:
    """A Kubernetes Deployment's pod replaced: three dynamic consumers (cooperative-sticky) on six partitions;
    ``c2`` gets SIGTERM at 20 s and needs ``close_ms`` to close.  Within the grace period it closes (revoke,
    LeaveGroup) and its replacement starts ``start_ms`` later; past it the kubelet kills it at the end of the
    grace period (a crash: no LeaveGroup) and the replacement starts ``start_ms`` after that."""
    at = 20_000
    killed = close_ms >= termination_grace_period_ms
    if killed:
        events = [{"at_ms": at + termination_grace_period_ms, "op": "crash", "member": "c2"},
                  {"at_ms": at + termination_grace_period_ms + start_ms, "op": "restart", "member": "c2"}]
    else:
        events = [{"at_ms": at + close_ms, "op": "restart", "member": "c2", "down_ms": start_ms}]
    members = [{"id": f"c{i}"} for i in (1, 2, 3)]
    row = scenario_row("cooperative", members, events, {"session_timeout_ms": session_timeout_ms},
                       at + termination_grace_period_ms + start_ms + session_timeout_ms + 60_000,
                       measure_from_ms=at)
    return {"killed": killed, **{k: row[k] for k in ("rebalances", "unowned partition-s")}}


def session_bounds_run(session_timeout_ms: int, group_min_session_timeout_ms: int = 6_000,
                       group_max_session_timeout_ms: int = 1_800_000) -> Row:
    """One consumer joins a broker with the given bounds: the error of its last JoinGroup response and whether
    it got its partitions."""
    sim = GroupSimulation({"t": 2}, ProtocolConfig(group_min_session_timeout_ms=group_min_session_timeout_ms,
                                                   group_max_session_timeout_ms=group_max_session_timeout_ms))
    sim.add_member("c1", 0, session_timeout_ms=session_timeout_ms)
    sim.run(10_000)
    errors = [m.fields.get("error", "NONE") for m in sim.messages
              if m.dst == "c1" and m.api == "JoinGroup" and m.kind == "response"]
    last: Optional[str] = str(errors[-1]) if errors else None
    return {"JoinGroup answer": last, "partitions owned": len(sim.assignment().get("c1", []))}
