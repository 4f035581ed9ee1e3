"""Figures and tables for the Sticky and CooperativeSticky chapters (Kafka 4.3.1).

Built on :mod:`rebalance.viz.assignment` (partition grids coloured by owner):

* :func:`trace_table` -- the steps a sticky builder took (``StickyAssignor(trace=True)``);
* :func:`walk_figure` -- the general path's reassignment walk, one grid per move;
* :func:`rounds_figure` -- the cooperative protocol's rounds, partitions in flight framed;
* :func:`paused_figure` -- partitions that stop being consumed during a rebalance, eager vs cooperative;
* :func:`general_path_flowchart` -- the general path's steps as a flowchart, annotated from a traced call.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Mapping, Optional, Sequence, Tuple, cast

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from ..validation import require
from .assignment import partition_grid_figure
from .style import PALETTE, apply

if TYPE_CHECKING:
    from ..consumer.model import AssignorResult

from ..common import TopicPartition


def _tp(tp: Optional[TopicPartition]) -> str:
    return "" if tp is None else f"{tp[0]}-{tp[1]}"


def trace_table(result: AssignorResult) -> pd.DataFrame:
    """One row per recorded step of a sticky ``assign`` call made with ``trace=True``."""
    rows = []
    for i, step in enumerate(result.trace or [], 1):
        kind = step["step"]
        row = {"step": i, "action": kind}
        if kind == "keep":
            row.update(member=step["member"], partitions=" ".join(map(_tp, step["kept"])) or "-",
                       note=("releases " + " ".join(map(_tp, step["released"]))) if step["released"] else "")
        elif kind == "assign":
            row.update(member=step["member"], partitions=_tp(step["partition"]),
                       note=("transfers ownership" if step.get("transfer") else "") +
                            (f" ({step['phase']})" if step.get("phase") == "rack" else ""))
        elif kind == "move":
            note = step["reason"]
            if step["requested"] != step["partition"]:
                note += f"; undoes an earlier move instead of moving {_tp(step['requested'])}"
            row.update(member=f"{step['from']} -> {step['to']}", partitions=_tp(step["partition"]), note=note)
        elif kind == "revert":
            row.update(member="", partitions="",
                       note=f"balance score {step['score_after']} is not below {step['score_before']}: undo the moves")
        rows.append(row)
    return pd.DataFrame(rows, columns=["step", "action", "member", "partitions", "note"]).set_index("step")


def walk_figure(start: Mapping[str, Sequence[TopicPartition]], result: AssignorResult,
                partitions: Mapping[str, int], title: str = "") -> Figure:
    """Grids of the general path's walk: the assignment before balancing (``start``: what members keep,
    newcomers empty), then after each recorded ``assign``/``move`` step; moved partitions are framed."""
    apply()
    members = list(result.assignment)
    current: Dict[str, List[TopicPartition]] = {m: list(start.get(m, ())) for m in members}
    frames: List[Tuple[str, Dict[str, List[TopicPartition]], List[TopicPartition]]] = [
        ("start", {m: list(v) for m, v in current.items()}, [])]
    for step in result.trace or []:
        if step["step"] == "assign":
            current[step["member"]].append(step["partition"])
            frames.append((f"assign {_tp(step['partition'])} to {step['member']}",
                           {m: list(v) for m, v in current.items()}, [step["partition"]]))
        elif step["step"] == "move":
            current[step["from"]].remove(step["partition"])
            current[step["to"]].append(step["partition"])
            frames.append((f"move {_tp(step['partition'])}: {step['from']} -> {step['to']}",
                           {m: list(v) for m, v in current.items()}, [step["partition"]]))
    width = max(list(partitions.values()) + [1])
    fig, axes = plt.subplots(1, len(frames), figsize=(min(15.0, len(frames) * max(3.2, 0.55 * width + 1.6)),
                                                      max(1.9, 0.5 * len(partitions) + 1.5)), squeeze=False)
    for i, (label, assignment, highlight) in enumerate(frames):
        partition_grid_figure(assignment, partitions, label, members=members, ax=axes[0][i],
                              highlight=highlight, show_legend=(i == len(frames) - 1))
    fig.suptitle(title or "The sticky walk, step by step")
    fig.tight_layout()
    return fig


def rounds_figure(rounds: Sequence[AssignorResult], partitions: Mapping[str, int], title: str = "") -> Figure:
    """One grid per cooperative round: what members hold after the round; partitions withheld because
    their owner must revoke them first are framed in the *plan* panel of that round."""
    apply()
    members = list(rounds[0].assignment) if rounds else []
    width = max(list(partitions.values()) + [1])
    panels = []
    for i, result in enumerate(rounds, 1):
        if result.withheld:
            # withheld partitions come with the plan they were withheld from (the cooperative assignor sets both)
            plan = cast(Dict[str, List[TopicPartition]], result.full_assignment)
            panels.append((f"round {i}: plan", plan, list(result.withheld)))
        panels.append((f"round {i}: assigned now", result.assignment, []))
    fig, axes = plt.subplots(1, len(panels), figsize=(min(15.0, len(panels) * max(3.0, 0.55 * width + 1.6)),
                                                      max(1.9, 0.5 * len(partitions) + 1.5)), squeeze=False)
    for i, (label, assignment, highlight) in enumerate(panels):
        partition_grid_figure(assignment, partitions, label, members=members, ax=axes[0][i], highlight=highlight,
                              show_legend=(i == len(panels) - 1))
    fig.suptitle(title or "Cooperative rebalancing: framed partitions wait for the next round")
    fig.tight_layout()
    return fig


def paused_figure(table: pd.DataFrame, title: str = "") -> Figure:
    """Bars from :func:`rebalance.widgets.sticky.eager_vs_cooperative_table`: partitions revoked (not
    consumed for a while) and rebalances needed, per protocol."""
    apply()
    fig, axes = plt.subplots(1, 2, figsize=(7.5, 2.8))
    names = list(table.index)
    colours = [PALETTE[i % len(PALETTE)] for i in range(len(names))]
    axes[0].bar(names, table["partitions revoked"], color=colours)
    axes[0].set_title("partitions revoked")
    axes[1].bar(names, table["rebalances"], color=colours)
    axes[1].set_title("rebalances until stable")
    for ax in axes:
        ax.grid(axis="x", visible=False)
    fig.suptitle(title or "Eager vs cooperative: the price of one membership change")
    fig.tight_layout()
    return fig


def assignment_text(assignment: Mapping[str, Sequence[TopicPartition]]) -> str:
    """An assignment on one line, Kafka's list order kept: ``C0: t0-0 t1-1 | C1: t1-0``."""
    return " | ".join(f"{m}: {' '.join(_tp(tp) for tp in tps) or '-'}" for m, tps in assignment.items())


def general_path_counts(result: AssignorResult) -> Dict[str, int]:
    """What each step of the general path did in a traced ``assign`` call (``StickyAssignor(trace=True)``):
    partitions the members reported owning, kept at step 1, assigned at step 2, moved at step 3 (and how
    many of those moves undid an earlier movement instead), whether step 4 reverted, and how many
    partitions ended with another owner than they started with."""
    trace = result.trace or []
    owned = {tp: m for m, tps in result.owned.items() for tp in tps}
    assigned = [s["partition"] for s in trace if s["step"] == "assign"]
    moves = [s for s in trace if s["step"] == "move"]
    final = {tp: m for m, tps in result.assignment.items() for tp in tps}
    return {"owned": len(owned), "kept": len(owned) - len(set(assigned) & set(owned)), "assigned": len(assigned),
            "moves": len(moves), "undone": sum(1 for s in moves if s["requested"] != s["partition"]),
            "reverted": sum(1 for s in trace if s["step"] == "revert"),
            "changed owner": sum(1 for tp, m in owned.items() if final.get(tp) != m)}


def general_path_flowchart(result: AssignorResult, title: str = "") -> Figure:
    """``AbstractStickyAssignor.GeneralAssignmentBuilder`` as a flowchart, each step annotated with what it
    did in ``result`` (a traced general-path call, see :func:`general_path_counts`)."""
    require(result.path == "general", "result", f"needs a general-path result, got path={result.path!r}")
    require(result.trace is not None, "result", "needs a traced result: StickyAssignor(trace=True)")
    from .diagrams import Edge, Node, draw_diagram

    c = general_path_counts(result)
    w = 4.2
    nodes = {
        "start": Node(0, 8.2, f"members rejoin with their owned partitions\nand generations ({c['owned']} owned)",
                      shape="state", face="#EEEEEE", width=w),
        "keep": Node(0, 6.9, f"1. keep each owned partition whose owner\nstill subscribes to its topic (kept {c['kept']})",
                     width=w),
        "assign": Node(0, 5.6, "2. give each unowned partition to the least-\nloaded subscriber "
                                f"(assigned {c['assigned']})", width=w),
        "balanced": Node(0, 4.2, "balanced?", shape="decision", width=2.6, height=1.0, face="#FCEFD9"),
        "move": Node(5.0, 4.2, "3. move a partition to a subscriber\nwith 2 or more fewer "
                               f"(moves {c['moves']},\n{c['undone']} undoing an earlier move)", width=w, height=1.0),
        "better": Node(0, 2.8, "balance score\nlower?", shape="decision", width=2.6, height=1.0, face="#FCEFD9"),
        "revert": Node(5.0, 2.8, f"4. undo every move\n(reverted {c['reverted']}×)", width=w),
        "fixed": Node(0, 1.5, "5. put back members whose topics\nhave a single subscriber", width=w),
        "end": Node(0, 0.3, f"assignment: {c['changed owner']} partition(s) changed owner", shape="state",
                    face="#CFE8DA", width=w),
    }
    edges = [Edge("start", "keep"), Edge("keep", "assign"), Edge("assign", "balanced"),
             Edge("balanced", "move", f"no ({c['moves']}×)"), Edge("move", "balanced", "again", bend=0.35),
             Edge("balanced", "better", "yes"), Edge("better", "revert", "no"), Edge("better", "fixed", "yes"),
             Edge("revert", "fixed"), Edge("fixed", "end")]
    return draw_diagram(nodes, edges, title=title or "The sticky assignor's general path", figsize=(8.5, 7.6),
                        note="Step 4 never reverts the very first assignment of a group.")
