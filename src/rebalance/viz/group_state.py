"""The classic group's state machine (``ClassicGroupState``) drawn from the simulator's table.

The simulator's coordinator is modelled on Kafka's source at commit 1eb7644 (trunk before 4.0).

The arrows are :func:`rebalance.protocol.group.state_transitions` -- the valid-previous-state table the
simulated coordinator enforces on every transition -- and their labels count how often a given run took
each one, read from the run's ``state`` events.  Nothing about the machine is typed in here except where
the five states sit on the page.
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from matplotlib.figure import Figure

from ..protocol.group import COMPLETING_REBALANCE, DEAD, EMPTY, PREPARING_REBALANCE, STABLE, state_transitions
from .diagrams import Edge, Node, draw_diagram
from .style import PALETTE

if TYPE_CHECKING:
    from ..protocol.simulation import GroupSimulation

__all__ = ["transition_counts", "transition_rows", "state_machine_figure", "state_tour_example"]

#: where each state is drawn (layout only)
_LAYOUT: Dict[str, Tuple[float, float]] = {EMPTY: (0.0, 2.4), PREPARING_REBALANCE: (4.0, 2.4),
                                           COMPLETING_REBALANCE: (8.0, 2.4), STABLE: (6.0, 4.6), DEAD: (4.0, 0.0)}
#: arrows that would cross a box are curved around it (layout only)
_BEND: Dict[Tuple[str, str], float] = {(STABLE, DEAD): -0.55}


def transition_counts(sim: "GroupSimulation") -> "Counter[Tuple[str, str]]":
    """``(previous, next) -> times taken`` in a run (a coordinator loading the group after a failover
    counts as ``("(loaded)", state)``)."""
    return Counter((e.fields["previous"], e.fields["state"]) for e in sim.events
                   if e.kind == "state" and e.actor == sim.coordinator_name)


def transition_rows(sim: "GroupSimulation") -> List[Dict[str, object]]:
    """Each transition of a run with its time, generation and -- for a new rebalance -- the coordinator's
    stated reason (the ``rebalance`` event logged just before it)."""
    rows, reason = [], None
    for e in sim.events:
        if e.actor != sim.coordinator_name:
            continue
        if e.kind == "rebalance":
            reason = e.fields.get("reason")
        elif e.kind == "state":
            rows.append({"t (ms)": e.time_ms, "from": e.fields["previous"], "to": e.fields["state"],
                         "generation": e.fields["generation"],
                         "reason": reason if e.fields["state"] == PREPARING_REBALANCE else ""})
            reason = None
    return rows


def state_tour_example(session_timeout_ms: int = 10_000, crash_at: int = 20_000, failover_at: int = 50_000,
                       shutdowns: Tuple[int, int] = (70_000, 71_000), until: int = 100_000) -> "GroupSimulation":
    """A run that visits every state: three consumers form a group, ``c2`` crashes at ``crash_at``, the
    coordinator fails over at ``failover_at`` (2 s down), ``c1`` and ``c3`` shut down at ``shutdowns``."""
    from ..protocol.simulation import GroupSimulation, ProtocolConfig

    sim = GroupSimulation({"orders": 6}, ProtocolConfig(session_timeout_ms=session_timeout_ms))
    for i, name in enumerate(("c1", "c2", "c3")):
        sim.add_member(name, i * 1_000)
    sim.crash("c2", crash_at)
    sim.coordinator_failover(failover_at, 2_000)
    sim.shutdown("c1", shutdowns[0])
    sim.shutdown("c3", shutdowns[1])
    return sim.run(until)


def state_machine_figure(sim: Optional["GroupSimulation"] = None, title: str = "") -> Figure:
    """The five states and every allowed transition; with ``sim``, each arrow says how often the run took
    it (arrows into ``Dead``, the group unloaded or deleted, are dashed)."""
    counts = transition_counts(sim) if sim is not None else Counter()
    colours: Dict[str, str] = {EMPTY: "#EEEEEE", PREPARING_REBALANCE: "#FBE3C0", COMPLETING_REBALANCE: "#FCEFD9",
                               STABLE: "#CFE8DA", DEAD: "#DDDDDD"}
    nodes = {s: Node(x, y, s, shape="state", face=colours[s], width=2.6, height=0.8) for s, (x, y) in _LAYOUT.items()}
    pairs = state_transitions()
    pair_set = set(pairs)
    edges = []
    for prev, new in pairs:
        if prev == new:  # Dead -> Dead: an unload of a dead group; drawn as a note, not a loop
            continue
        n = counts.get((prev, new), 0)
        label = f"{n}×" if sim is not None else ""
        back = (new, prev) in pair_set
        bend = _BEND.get((prev, new), 0.35 if back else 0.0)
        edges.append(Edge(prev, new, label, bend=bend, dashed=new == DEAD,
                          color="#777777" if new == DEAD else (PALETTE[0] if n else "#333333")))
    loaded = sum(n for (prev, _), n in counts.items() if prev == "(loaded)")
    note = "Dead -> Dead is allowed too (unloading a dead group)."
    if sim is not None:
        note += f"  A new coordinator loaded the group {loaded}× (not a transition: a new ClassicGroup)."
    return draw_diagram(nodes, edges, title=title or "ClassicGroupState: the valid transitions", note=note,
                        figsize=(8.5, 5.4))
