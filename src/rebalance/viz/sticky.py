"""Figures and tables for the Sticky and CooperativeSticky chapters (Kafka 3.8/3.9 logic).

Built on :mod:`rebalance.viz.assignment` (partition grids coloured by owner):

* :func:`trace_table` -- the steps a sticky builder took (``StickyAssignor(trace=True)``);
* :func:`walk_figure` -- the general path's reassignment walk, one grid per move;
* :func:`rounds_figure` -- the cooperative protocol's rounds, partitions in flight framed;
* :func:`paused_figure` -- partitions that stop being consumed during a rebalance, eager vs cooperative.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Mapping, Optional, Sequence, Tuple

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from .assignment import partition_grid_figure
from .style import PALETTE, apply

if TYPE_CHECKING:
    from ..consumer.model import AssignorResult

TopicPartition = Tuple[str, int]


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
    frames = [("start", {m: list(v) for m, v in current.items()}, [])]
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
            panels.append((f"round {i}: plan", result.full_assignment, list(result.withheld)))
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
