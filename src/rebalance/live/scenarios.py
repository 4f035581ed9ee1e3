"""The chapter's live runs and, for each, the book's prediction for the same group.

* :func:`join_and_leave` -- ``c1`` starts, ``c2`` joins, ``c3`` joins, ``c1`` leaves, each step waited on until the
  group settles, with one assignor (eager Range/RoundRobin or cooperative-sticky);
* :func:`static_restart` -- three static members (``group.instance.id``, KIP-345) and a restart of ``c1``;
* :func:`simulate_steps` -- the same schedule in the classic-protocol simulator
  (:class:`rebalance.protocol.simulation.GroupSimulation`, ``ConsumerCoordinator`` and ``ClassicGroup``
  modelled on Kafka's source at commit 1eb7644, trunk before 4.0), with the simulator's default timings;
* :func:`step_rows` / :func:`simulated_rows` -- per step, the figures that do not depend on timing: rebalances
  (generations the members joined), partitions revoked, lost and assigned.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Set, Tuple

from ..protocol.config import ProtocolConfig
from ..protocol.group import COMPLETING_REBALANCE
from ..protocol.simulation import GroupSimulation
from ..validation import require
from .config import MemberConfig
from ..protocol.trace import TraceEvent
from .group import LiveGroup
from .mock import MockCluster

__all__ = ["Step", "join_and_leave", "static_restart", "step_rows", "failed_generations", "simulate_steps",
           "simulated_rows",
           "JOIN_AND_LEAVE", "STATIC_RESTART"]

#: a step of a schedule: (label, action, member); action is "join", "leave", "restart" or "crash"
Step = Tuple[str, str, str]

JOIN_AND_LEAVE: Tuple[Step, ...] = (("c1 starts", "join", "c1"), ("c2 joins", "join", "c2"),
                                    ("c3 joins", "join", "c3"), ("c1 leaves", "leave", "c1"))
STATIC_RESTART: Tuple[Step, ...] = (("c1 starts", "join", "c1"), ("c2 joins", "join", "c2"),
                                    ("c3 joins", "join", "c3"), ("c1 restarts", "restart", "c1"))


def run_steps(group: LiveGroup, steps: Sequence[Step], config: MemberConfig, *, static: bool = False,
              timeout_s: float = 90.0) -> List[int]:
    """Run ``steps`` on ``group``, each waited on until the group settles; returns the trace mark before each
    step (:meth:`LiveGroup.mark`) and after the last."""
    marks = []
    for label, action, name in steps:
        require(action in ("join", "leave", "restart", "crash"), "steps", f"unknown action {action!r} ({label})")
        marks.append(group.mark())
        member_config = config
        if static:
            member_config = MemberConfig(**{**config.__dict__, "instance_id": f"instance-{name}"})
        if action == "join":
            group.join(name, member_config)
        elif action == "leave":
            group.leave(name)
        elif action == "restart":
            group.restart(name)
        else:
            group.crash(name)
        group.wait_settled(timeout_s=timeout_s, quiet_ms=max(1500, config.session_timeout_ms + 500))
    marks.append(group.mark())
    return marks


def join_and_leave(cluster: MockCluster, group_id: str, topic: str, strategy: str,
                   **config: object) -> Tuple[LiveGroup, List[int]]:
    """Run :data:`JOIN_AND_LEAVE` live with ``strategy``; the group is closed on return (its trace kept)."""
    member = MemberConfig(topics=(topic,), strategy=strategy, **config)  # type: ignore[arg-type]
    with LiveGroup(cluster, group_id) as group:
        marks = run_steps(group, JOIN_AND_LEAVE, member)
    return group, marks


def static_restart(cluster: MockCluster, group_id: str, topic: str, strategy: str = "range",
                   **config: object) -> Tuple[LiveGroup, List[int]]:
    """Run :data:`STATIC_RESTART` live, every member with ``group.instance.id`` ``instance-<name>``."""
    member = MemberConfig(topics=(topic,), strategy=strategy, **config)  # type: ignore[arg-type]
    with LiveGroup(cluster, group_id) as group:
        marks = run_steps(group, STATIC_RESTART, member, static=True)
    return group, marks


def step_rows(group: LiveGroup, steps: Sequence[Step], marks: Sequence[int]) -> List[Dict[str, object]]:
    """Per step of a live run: ``revoked``, ``lost`` and ``assigned`` -- distinct partitions that went through
    those callbacks, which do not depend on timing; ``rebalances`` -- generations every member that joined them
    completed (received its assignment: ``on_assign``), which does.

    The mock refuses a follower's SyncGroup that arrives after the leader's (its group is already ``UP``:
    ``rd_kafka_mock_cgrp_classic_check_state``, ``src/rdkafka_mock_cgrp.c``, librdkafka 2.15.0), the follower
    rejoins and the group goes through one more generation, depending on which request wins the race.  Such a
    generation is not counted here (it is in :func:`failed_generations`), but in an eager group it is a real
    extra rebalance and in a cooperative one it can take the place of the second round, so ``rebalances`` varies
    from run to run, more often on a loaded machine (chapter 10 compares only the partition counts)."""
    rows = []
    for (label, _, _), lo, hi in zip(steps, marks, marks[1:]):
        events = group.events[lo:hi]
        count = {k: len({tp for e in events if e.kind == k for tp in e.fields["partitions"]})
                 for k in ("revoke", "lost", "assigned")}
        rows.append({"step": label, "rebalances": len(_completed(events)), "revoked": count["revoke"],
                     "lost": count["lost"], "assigned": count["assigned"]})
    return rows


def _completed(events: Sequence[TraceEvent]) -> List[int]:
    joined: Dict[int, Set[str]] = {}
    assigned: Dict[int, Set[str]] = {}
    for e in events:
        if e.kind == "joined":
            joined.setdefault(e.fields["generation"], set()).add(e.actor)
        elif e.kind == "assigned" and e.fields.get("generation") is not None:
            assigned.setdefault(e.fields["generation"], set()).add(e.actor)
    return sorted(g for g, names in joined.items() if names <= assigned.get(g, set()))


def failed_generations(group: LiveGroup, lo: int = 0, hi: Optional[int] = None) -> List[int]:
    """Generations between trace marks ``lo`` and ``hi`` that some member joined but never completed."""
    events = group.events[lo:hi]
    joined = {e.fields["generation"] for e in events if e.kind == "joined"}
    return sorted(joined - set(_completed(events)))


def simulate_steps(topic: str, partitions: int, steps: Sequence[Step], assignor: str, *, static: bool = False,
                   gap_ms: int = 60_000, down_ms: int = 5_000, config: Optional[ProtocolConfig] = None
                   ) -> Tuple[GroupSimulation, List[int]]:
    """The same schedule in the classic-protocol simulator, one step every ``gap_ms`` (a restarted member is
    away ``down_ms``); returns the simulation and each step's start time (and the end)."""
    require(isinstance(down_ms, int) and 0 < down_ms < gap_ms, "down_ms", f"must be between 0 and gap_ms ({gap_ms})")
    sim = GroupSimulation({topic: partitions}, config or ProtocolConfig(initial_rebalance_delay_ms=0))
    times = []
    for k, (_, action, name) in enumerate(steps):
        at = k * gap_ms
        times.append(at)
        if action == "join":
            sim.add_member(name, at, assignors=(assignor,), instance_id=f"instance-{name}" if static else None)
        elif action == "leave":
            sim.shutdown(name, at)
        elif action == "restart":
            sim.bounce(name, at, down_ms)
        else:
            sim.crash(name, at)
    end = len(steps) * gap_ms
    times.append(end)
    sim.run(end)
    return sim, times


def simulated_rows(sim: GroupSimulation, steps: Sequence[Step], times: Sequence[int]) -> List[Dict[str, object]]:
    """:func:`step_rows` for a simulated run: rebalances the coordinator completed, distinct partitions
    revoked, lost and assigned through the simulated callbacks."""
    rows = []
    for (label, _, _), lo, hi in zip(steps, times, times[1:]):
        events = [e for e in sim.events if lo <= e.time_ms < hi]
        count = {k: len({tp for e in events if e.kind == k for tp in e.fields.get("partitions", ())})
                 for k in ("revoke", "lost", "assigned")}
        completed = sum(1 for e in events if e.kind == "state" and e.fields.get("state") == COMPLETING_REBALANCE)
        rows.append({"step": label, "rebalances": completed,
                     "revoked": count["revoke"], "lost": count["lost"], "assigned": count["assigned"]})
    return rows
