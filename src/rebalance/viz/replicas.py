"""Figures of the replica-placement chapter: broker x partition grids and per-broker load bars."""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Optional

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.patches import Patch, Rectangle

from ..replicas.brokers import parse_brokers
from ..replicas.measures import Assignment, as_mapping, leaders_per_broker, replicas_per_broker
from .style import PALETTE, apply


def _rack_label(rack: Optional[str]) -> str:
    return "no rack" if rack is None else str(rack)


def placement_grid_figure(assignment: Assignment, brokers: Iterable[Any], title: str = "", *,
                          max_partitions: int = 60) -> Figure:
    """Brokers (rows, grouped by rack) x partitions (columns).  A filled cell holds a replica; the leader
    is dark with an ``L``, followers are light with their position (2 = second replica, ...)."""
    apply()
    parsed = parse_brokers(brokers, with_fenced=True)
    mapping = as_mapping(assignment)
    parts = sorted(mapping)[:max_partitions]
    rows = sorted(parsed, key=lambda b: ((b.rack is not None, b.rack or ""), b.id))
    row_of = {b.id: i for i, b in enumerate(rows)}
    width = min(12.0, 2.2 + 0.32 * len(parts))
    height = min(9.0, 1.2 + 0.32 * len(rows))
    fig, ax = plt.subplots(figsize=(width, height))
    for x, p in enumerate(parts):
        for pos, b in enumerate(mapping[p]):
            y = row_of[b]
            leader = pos == 0
            ax.add_patch(Rectangle((x - 0.45, y - 0.45), 0.9, 0.9,
                                       color=PALETTE[0] if leader else PALETTE[4], alpha=1.0 if leader else 0.55))
            ax.text(x, y, "L" if leader else str(pos + 1), ha="center", va="center", fontsize=7,
                    color="white" if leader else "black")
    ax.set_xlim(-0.6, len(parts) - 0.4)
    ax.set_ylim(len(rows) - 0.4, -0.6)
    ax.set_xticks(range(len(parts)))
    ax.set_xticklabels([str(p) for p in parts], fontsize=7)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{b.id} ({_rack_label(b.rack)}){' fenced' if b.fenced else ''}" for b in rows],
                       fontsize=8)
    ax.set_xlabel("partition")
    ax.set_ylabel("broker (rack)")
    ax.grid(False)
    for i in range(1, len(rows)):  # a line between racks
        if rows[i].rack != rows[i - 1].rack:
            ax.axhline(i - 0.5, color="grey", linewidth=0.8)
    ax.legend(handles=[Patch(color=PALETTE[0], label="leader"), Patch(color=PALETTE[4], alpha=0.55,
                                                                      label="follower")],
              loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    ax.set_title(title or f"{len(mapping)} partitions on {len(rows)} brokers")
    fig.tight_layout()
    return fig


def load_bars_figure(assignments: Mapping[str, Assignment], brokers: Iterable[Any], title: str = "",
                     what: str = "replicas") -> Figure:
    """Grouped bars: replicas (or leaders) per broker for several placements of the same cluster."""
    apply()
    parsed = parse_brokers(brokers, with_fenced=True)
    ids = [b.id for b in sorted(parsed, key=lambda b: ((b.rack is not None, b.rack or ""), b.id))]
    count = replicas_per_broker if what == "replicas" else leaders_per_broker
    fig, ax = plt.subplots(figsize=(7.5, 3.2))
    k = len(assignments)
    w = 0.8 / max(k, 1)
    for i, (name, a) in enumerate(assignments.items()):
        c = count(a, parsed)
        ax.bar([x + (i - (k - 1) / 2) * w for x in range(len(ids))], [c[b] for b in ids], width=w,
               color=PALETTE[i % len(PALETTE)], label=name)
    ax.set_xticks(range(len(ids)))
    ax.set_xticklabels([f"{b}\n{_rack_label(next(p.rack for p in parsed if p.id == b))}" for b in ids],
                       fontsize=7)
    ax.set_xlabel("broker / rack")
    ax.set_ylabel(what)
    ax.set_title(title or f"{what} per broker")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
