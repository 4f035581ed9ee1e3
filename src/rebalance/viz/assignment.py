"""Figures and tables for the consumer-assignor chapters (Range, RoundRobin, Sticky, CooperativeSticky,
choosing an assignor).  Every function takes a plain assignment ``{member: [(topic, partition), ...]}`` as
returned by :func:`rebalance.consumer.assign`, so it works for any assignor.

* :func:`assignment_table` -- one row per member: count, partitions per topic, partitions;
* :func:`count_matrix` / :func:`heatmap_figure` -- member x topic partition counts;
* :func:`partition_grid_figure` -- topic x partition grid coloured by owner (how ranges and the
  round-robin walk look);
* :func:`moves_table` / :func:`moves_figure` -- before/after a rebalance: what each member keeps, loses,
  gains, and which partitions changed owner;
* :func:`compare_counts_figure` -- partitions per member under several assignors.
"""
from __future__ import annotations

from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from .style import PALETTE, apply, figure_of

from ..common import TopicPartition
Assignment = Mapping[str, Sequence[TopicPartition]]


def _java_key(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")


def _topics_of(assignment: Assignment, topics: Optional[Iterable[str]] = None) -> List[str]:
    if topics is not None:
        return list(topics)
    return sorted({t for tps in assignment.values() for t, _ in tps}, key=_java_key)


def _compact(partitions: Sequence[TopicPartition]) -> str:
    from ..consumer.cli import compact

    return compact(partitions)


def owners(assignment: Assignment) -> Dict[TopicPartition, str]:
    """``{(topic, partition): member}`` for an assignment."""
    return {tp: m for m, tps in assignment.items() for tp in tps}


def assignment_table(assignment: Assignment, topics: Optional[Iterable[str]] = None) -> pd.DataFrame:
    """One row per member (in the assignment's order): partition count, count per topic, and the
    partitions written compactly (``t0[0-2] t1[1]``)."""
    topics = _topics_of(assignment, topics)
    rows = []
    for member, tps in assignment.items():
        row = {"member": member, "partitions": len(tps)}
        for t in topics:
            row[t] = sum(1 for topic, _ in tps if topic == t)
        row["assigned"] = _compact(tps)
        rows.append(row)
    return pd.DataFrame(rows, columns=["member", "partitions", *topics, "assigned"]).set_index("member")


def count_matrix(assignment: Assignment, topics: Optional[Iterable[str]] = None) -> pd.DataFrame:
    """Member x topic partition counts (rows in the assignment's member order)."""
    topics = _topics_of(assignment, topics)
    data = [[sum(1 for topic, _ in tps if topic == t) for t in topics] for tps in assignment.values()]
    return pd.DataFrame(data, index=pd.Index(list(assignment), name="member"),
                        columns=pd.Index(topics, name="topic"))


def heatmap_figure(assignment: Assignment, topics: Optional[Iterable[str]] = None, title: str = "",
                   ax: Optional[Axes] = None) -> Figure:
    """Heat map of :func:`count_matrix`, each cell annotated with its count; a last column gives totals."""
    apply()
    matrix = count_matrix(assignment, topics)
    values = matrix.to_numpy(dtype=float)
    totals = values.sum(axis=1) if values.size else np.zeros(len(matrix))
    created = ax is None
    if ax is None:
        fig, ax = plt.subplots(figsize=(max(4.0, 0.9 * (len(matrix.columns) + 2) + 1.5),
                                        max(2.2, 0.45 * len(matrix) + 1.2)))
    else:
        fig = figure_of(ax)
    ax.grid(False)
    shown = values if values.size else np.zeros((len(matrix), 1))
    ax.imshow(shown, cmap="Blues", aspect="auto", vmin=0, vmax=max(1.0, float(shown.max()) if shown.size else 1.0))
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            v = int(values[i, j])
            ax.text(j, i, str(v), ha="center", va="center",
                    color="white" if v > 0.6 * max(1.0, values.max()) else "black", fontsize=9)
        ax.text(values.shape[1] - 0.5 + 0.15, i, f"= {int(totals[i])}", ha="left", va="center", fontsize=9)
    ax.set_xticks(range(len(matrix.columns)))
    ax.set_xticklabels(matrix.columns, rotation=0)
    ax.set_yticks(range(len(matrix)))
    ax.set_yticklabels(matrix.index)
    ax.set_xlim(-0.5, max(values.shape[1], 1) - 0.5 + 1.0)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.tick_params(length=0)
    ax.set_xlabel("topic (last column: total per member)")
    ax.set_title(title or "Partitions per member and topic")
    if created:
        fig.tight_layout()
    return fig


def _member_colours(members: Sequence[str]) -> Dict[str, str]:
    return {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(members)}


def partition_grid_figure(assignment: Assignment, partitions: Mapping[str, int], title: str = "",
                          members: Optional[Sequence[str]] = None, ax: Optional[Axes] = None,
                          highlight: Iterable[TopicPartition] = (), show_legend: bool = True) -> Figure:
    """One row per topic, one cell per partition, coloured by the member that owns it (white: nobody).
    Cells in ``highlight`` get a thick black frame (used to mark partitions that moved)."""
    apply()
    members = list(members if members is not None else assignment)
    colours = _member_colours(members)
    index: Dict[Optional[str], int] = {m: i + 1 for i, m in enumerate(members)}
    owner = owners(assignment)
    topics = list(partitions)
    width = max([partitions[t] for t in topics] + [1])
    grid = np.zeros((len(topics), width))
    for r, t in enumerate(topics):
        for p in range(width):
            if p >= partitions[t]:
                grid[r, p] = np.nan
            else:
                grid[r, p] = index.get(owner.get((t, p)), 0)
    cmap = ListedColormap(["#ffffff"] + [colours[m] for m in members]).with_extremes(bad="#f3f3f3")
    created = ax is None
    if ax is None:
        fig, ax = plt.subplots(figsize=(min(12.0, max(4.5, 0.45 * width + 2.5)), max(1.6, 0.5 * len(topics) + 1.2)))
    else:
        fig = figure_of(ax)
    ax.grid(False)
    ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=0, vmax=len(members), aspect="auto")
    marked = set(highlight)
    for r, t in enumerate(topics):
        for p in range(partitions[t]):
            if (t, p) in marked:
                ax.add_patch(Rectangle((p - 0.42, r - 0.4), 0.84, 0.8, fill=False, edgecolor="black",
                                           linewidth=2.0, zorder=5))
            if width <= 24:
                ax.text(p, r, str(p), ha="center", va="center", fontsize=8, color="black")
    ax.set_yticks(range(len(topics)))
    ax.set_yticklabels(topics)
    ax.set_xticks([])
    ax.set_xlabel("partition")
    for x in np.arange(-0.5, width, 1):
        ax.axvline(x, color="white", linewidth=1)
    for y in np.arange(-0.5, len(topics), 1):
        ax.axhline(y, color="white", linewidth=2)
    ax.set_title(title or "Owner of each partition")
    if show_legend:
        handles = [Patch(facecolor=colours[m], label=m) for m in members]
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False, fontsize=8)
    if created:
        fig.tight_layout()
    return fig


def moves_table(before: Assignment, after: Assignment) -> pd.DataFrame:
    """Per member: partitions before and after, how many it keeps, gives up (revoked) and gains.
    A member present on only one side counts as owning nothing on the other."""
    members = list(dict.fromkeys([*before, *after]))
    rows = []
    for m in members:
        b, a = set(before.get(m, ())), set(after.get(m, ()))
        rows.append({"member": m, "before": len(b), "after": len(a), "kept": len(a & b),
                     "revoked": len(b - a), "gained": len(a - b)})
    table = pd.DataFrame(rows).set_index("member")
    return table


def moved_partitions(before: Assignment, after: Assignment) -> List[TopicPartition]:
    """Partitions whose owner changed (including ones that were unowned before), in topic/partition order."""
    old, new = owners(before), owners(after)
    changed = [tp for tp, m in new.items() if old.get(tp) != m]
    return sorted(changed, key=lambda tp: (_java_key(tp[0]), tp[1]))


def moves_figure(before: Assignment, after: Assignment, partitions: Mapping[str, int], title: str = "") -> Figure:
    """Before/after grids side by side; in the 'after' grid, partitions that changed owner are framed."""
    apply()
    members = list(dict.fromkeys([*before, *after]))
    moved = moved_partitions(before, after)
    width = max(list(partitions.values()) + [1])
    fig, axes = plt.subplots(1, 2, figsize=(min(13.0, max(7.5, 0.8 * width + 4)), max(1.8, 0.5 * len(partitions) + 1.4)))
    partition_grid_figure(before, partitions, "before", members=members, ax=axes[0], show_legend=False)
    partition_grid_figure(after, partitions, f"after: {len(moved)} partition(s) change owner", members=members,
                          ax=axes[1], highlight=moved)
    fig.suptitle(title or "What moves in the rebalance")
    fig.tight_layout()
    return fig


def compare_counts_figure(assignments: Mapping[str, Assignment], title: str = "") -> Figure:
    """Grouped bars: partitions per member (x) for each named assignment (one colour per assignor)."""
    apply()
    names = list(assignments)
    members = list(dict.fromkeys(m for a in assignments.values() for m in a))
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(members) + 3), 3.2))
    width = 0.8 / max(1, len(names))
    xs = np.arange(len(members))
    for i, name in enumerate(names):
        counts = [len(assignments[name].get(m, ())) for m in members]
        ax.bar(xs + (i - (len(names) - 1) / 2) * width, counts, width=width, label=name,
               color=PALETTE[i % len(PALETTE)])
    ax.set_xticks(xs)
    ax.set_xticklabels(members)
    ax.set_ylabel("partitions")
    ax.set_title(title or "Partitions per member")
    ax.legend(frameon=False, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return fig


def spread(assignment: Assignment) -> int:
    """Largest minus smallest partition count over the members (0: perfectly even)."""
    counts = [len(v) for v in assignment.values()]
    return (max(counts) - min(counts)) if counts else 0


def co_partitioned(assignment: Assignment, topics: Sequence[str]) -> bool:
    """True when, for every partition number, all ``topics`` that have it give it to the same member
    (what applications that join topics by key need)."""
    owner = owners(assignment)
    numbers = {p for (t, p) in owner if t in topics}
    for p in numbers:
        holders = {owner.get((t, p)) for t in topics if (t, p) in owner}
        if len(holders) > 1:
            return False
    return True


def compare_moves_figure(results: Mapping[str, Tuple[Assignment, Assignment]], partitions: Mapping[str, int],
                         title: str = "") -> Figure:
    """One row per assignor: its 'before' and 'after' partition grids, partitions that changed owner framed.
    ``results`` maps an assignor name to ``(before, after)``."""
    apply()
    names = list(results)
    members = list(dict.fromkeys(m for b, a in results.values() for m in [*b, *a]))
    width = max(list(partitions.values()) + [1])
    row_height = 0.42 * len(partitions) + 0.75
    fig, axes = plt.subplots(len(names), 2, squeeze=False,
                             figsize=(min(13.0, max(7.5, 0.8 * width + 4)), row_height * len(names) + 0.8))
    for r, name in enumerate(names):
        before, after = results[name]
        moved = moved_partitions(before, after)
        partition_grid_figure(before, partitions, f"{name}: before", members=members, ax=axes[r][0],
                              show_legend=False)
        partition_grid_figure(after, partitions, f"{name}: after, {len(moved)} change owner", members=members,
                              ax=axes[r][1], highlight=moved, show_legend=(r == 0))
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
