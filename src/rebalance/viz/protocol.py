"""Figures of the group-protocol chapters: sequence diagrams of the classic protocol's messages and
timelines of who owns which partition, drawn from a :class:`rebalance.protocol.simulation.GroupSimulation`."""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ..common import JsonRecord
from .style import PALETTE, apply, figure_of

if TYPE_CHECKING:
    from ..protocol.simulation import GroupSimulation
    from ..protocol.trace import Message

_API_COLOURS = {
    "FindCoordinator": "#7f7f7f",
    "JoinGroup": PALETTE[0],
    "SyncGroup": PALETTE[2],
    "Heartbeat": PALETTE[1],
    "LeaveGroup": PALETTE[5],
}


def _lanes(sim: "GroupSimulation", messages: Sequence["Message"]) -> List[str]:
    members = sorted(sim.specs, key=lambda n: (len(n), n))
    used = {m.src for m in messages} | {m.dst for m in messages}
    lanes = [sim.coordinator_name]
    if "broker" in used:
        lanes.insert(0, "broker")
    lanes += [n for n in members if n in used or not messages]
    return lanes


def select_messages(sim: "GroupSimulation", apis: Optional[Sequence[str]] = None, since: int = 0, until: Optional[int] = None,
                    limit: Optional[int] = None) -> List["Message"]:
    """The recorded messages of ``sim`` with ``api`` in ``apis`` sent in ``[since, until]``."""
    out = [m for m in sim.messages if m.sent_ms >= since and (until is None or m.sent_ms <= until)
           and (apis is None or m.api in apis)]
    return out[:limit] if limit is not None else out


def sequence_diagram(sim: "GroupSimulation", apis: Optional[Sequence[str]] = ("JoinGroup", "SyncGroup", "LeaveGroup"),
                     since: int = 0, until: Optional[int] = None, limit: Optional[int] = 60,
                     highlight: Optional[int] = None, title: str = "", ax: Optional[Axes] = None) -> Figure:
    """A sequence diagram: one vertical lane per member and one for the coordinator, one arrow per
    message in the order they were sent (time runs down; the virtual send time is printed on the left).
    ``highlight`` is the index of a message to draw in bold (for step-by-step widgets)."""
    apply()
    msgs = select_messages(sim, apis, since, until, limit)
    lanes = _lanes(sim, msgs)
    x = {name: i for i, name in enumerate(lanes)}
    n = max(len(msgs), 1)
    if ax is None:
        fig, ax = plt.subplots(figsize=(max(6.0, 1.6 * len(lanes) + 1.5), 0.32 * n + 1.4))
    else:
        fig = figure_of(ax)
    ax.grid(False)
    for name, i in x.items():
        ax.plot([i, i], [-0.6, n - 0.4], color="#bbbbbb", linewidth=1, zorder=0)
        ax.text(i, -0.9, name, ha="center", va="bottom", fontsize=9, fontweight="bold")
    for k, m in enumerate(msgs):
        if m.src not in x or m.dst not in x:
            continue
        colour = _API_COLOURS.get(m.api, "#333333")
        bold = highlight is not None and k == highlight
        dashed = m.kind == "response"
        ax.annotate("", xy=(x[m.dst], k), xytext=(x[m.src], k),
                    arrowprops=dict(arrowstyle="-|>", color=colour, lw=2.4 if bold else 1.1,
                                    linestyle="--" if dashed else "-", shrinkA=2, shrinkB=2))
        mid = (x[m.src] + x[m.dst]) / 2
        ax.text(mid, k - 0.12, m.label(), ha="center", va="bottom", fontsize=7.2,
                color=colour, fontweight="bold" if bold else "normal")
        ax.text(-0.55, k, f"{m.sent_ms / 1000:.3f}s", ha="right", va="center", fontsize=7, color="#555555")
    ax.set_xlim(-1.4, len(lanes) - 0.4)
    ax.set_ylim(n - 0.3, -1.3)
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)
    handles = [Patch(color=c, label=a) for a, c in _API_COLOURS.items() if any(m.api == a for m in msgs)]
    if handles:
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=len(handles),
                  fontsize=8, frameon=False)
    if title:
        ax.set_title(title, pad=18)
    fig.tight_layout()
    return fig


def ownership_timeline(sim: "GroupSimulation", since: int = 0, until: Optional[int] = None, title: str = "",
                       events: bool = True, ax: Optional[Axes] = None, max_partitions: int = 40) -> Figure:
    """Who owns which partition over virtual time: one row per partition, a coloured bar per owner, white
    where nobody processes the partition.  Thin vertical lines mark rebalances (PreparingRebalance)."""
    apply()
    until = sim.clock.now_ms if until is None else until
    parts = sim.partitions[:max_partitions]
    row = {tp: i for i, tp in enumerate(parts)}
    names = sorted(sim.specs, key=lambda n: (len(n), n))
    colour = {n: PALETTE[i % len(PALETTE)] for i, n in enumerate(names)}
    if ax is None:
        fig, ax = plt.subplots(figsize=(7.5, 0.28 * len(parts) + 1.6))
    else:
        fig = figure_of(ax)
    for iv in sim.ownership.intervals:
        if iv.partition not in row:
            continue
        s, e = max(iv.start_ms, since), min(iv.end_ms if iv.end_ms is not None else until, until)
        if e <= s:
            continue
        ax.broken_barh([(s / 1000, (e - s) / 1000)], (row[iv.partition] - 0.4, 0.8),
                       facecolors=colour.get(iv.member, "#333333"))
    if events:
        for ev in sim.events:
            if ev.kind == "state" and ev.fields.get("state") == "PreparingRebalance" and since <= ev.time_ms <= until:
                ax.axvline(ev.time_ms / 1000, color="#444444", linewidth=0.8, linestyle=":")
    ax.set_yticks(range(len(parts)))
    ax.set_yticklabels([f"{t}-{p}" for t, p in parts], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(since / 1000, until / 1000)
    ax.set_xlabel("virtual time (s)")
    ax.grid(axis="y", visible=False)
    used = {iv.member for iv in sim.ownership.intervals if iv.partition in row}
    ax.legend(handles=[Patch(color=colour[n], label=n) for n in names if n in used], loc="upper left",
              bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    ax.set_title(title or "Partition ownership (white = nobody processing; dotted = rebalance starts)")
    fig.tight_layout()
    return fig


def unowned_curve(sim: "GroupSimulation", since: int = 0, until: Optional[int] = None) -> Tuple[List[float], List[int]]:
    """Step curve of the number of partitions with no owner, as (times in s, counts)."""
    until = sim.clock.now_ms if until is None else until
    changes: Dict[int, int] = {}
    for iv in sim.ownership.intervals:
        changes[iv.start_ms] = changes.get(iv.start_ms, 0) - 1
        if iv.end_ms is not None:
            changes[iv.end_ms] = changes.get(iv.end_ms, 0) + 1
    count = len(sim.partitions)
    xs, ys = [since / 1000], []
    for t in sorted(changes):
        if t < since:
            count += changes[t]
            continue
        if t > until:
            break
        ys.append(count)
        count += changes[t]
        xs.append(t / 1000)
    ys.append(count)
    xs.append(until / 1000)
    ys.append(count)
    return xs, ys


def unowned_figure(sims: Dict[str, "GroupSimulation"], since: int = 0, until: Optional[int] = None,
                   title: str = "") -> Figure:
    """Partitions nobody processes, over time, for several runs (e.g. eager vs cooperative)."""
    apply()
    fig, ax = plt.subplots(figsize=(7.5, 3.2))
    for i, (label, sim) in enumerate(sims.items()):
        xs, ys = unowned_curve(sim, since, until)
        ax.step(xs, ys, where="post", label=label, color=PALETTE[i % len(PALETTE)], linewidth=1.6)
    ax.set_xlabel("virtual time (s)")
    ax.set_ylabel("partitions with no owner")
    ax.legend(loc="upper right", fontsize=8)
    ax.set_title(title or "Partitions nobody is processing")
    fig.tight_layout()
    return fig


def comparison_bars(rows: Sequence[JsonRecord], metrics: Sequence[str] = ("rebalances", "unowned_partition_seconds"),
                    label_key: str = "variant", title: str = "") -> Figure:
    """Side-by-side bars of a few metrics for several scenario variants (one row dict per variant)."""
    apply()
    fig, axes = plt.subplots(1, len(metrics), figsize=(3.8 * len(metrics), 3.0))
    if len(metrics) == 1:
        axes = [axes]
    labels = [r[label_key] for r in rows]
    for ax, metric in zip(axes, metrics):
        values = [r[metric] for r in rows]
        ax.bar(labels, values, color=[PALETTE[i % len(PALETTE)] for i in range(len(rows))])
        ax.set_title(metric.replace("_", " "), fontsize=10)
        for i, v in enumerate(values):
            ax.text(i, v, f"{v:,.0f}" if isinstance(v, (int, float)) else str(v), ha="center", va="bottom", fontsize=8)
        ax.tick_params(axis="x", labelsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def sensitivity_figure(rows: Sequence[JsonRecord], metric: str = "unowned_partition_seconds",
                       x: str = "poll_processing_ms", series: str = "protocol", title: str = "") -> Figure:
    """One line per ``series`` value (e.g. eager, cooperative, static, KIP-848): ``metric`` against ``x``
    (the rows of :func:`rebalance.kip848.compare.processing_sensitivity`); the x axis is symmetric-log so
    that 0 ms sits next to 100 ms and 10 s."""
    apply()
    fig, ax = plt.subplots(figsize=(7.5, 3.4))
    labels = list(dict.fromkeys(r[series] for r in rows))
    for i, label in enumerate(labels):
        pts = sorted((r[x], r[metric]) for r in rows if r[series] == label)
        ax.plot([p[0] / 1000 for p in pts], [p[1] for p in pts], marker="o", label=label,
                color=PALETTE[i % len(PALETTE)], linewidth=1.6)
    ax.set_xscale("symlog", linthresh=0.1)
    ax.set_xlabel("processing time per poll() batch (s)")
    ax.set_ylabel(metric.replace("_", " "))
    ax.legend(fontsize=8)
    ax.set_title(title or f"{metric.replace('_', ' ')} against processing time")
    fig.tight_layout()
    return fig
