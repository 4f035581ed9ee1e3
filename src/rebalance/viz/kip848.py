"""Figures for the KIP-848 chapter: who owns which partition over time, and the protocol comparison."""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter

from ..common import JsonRecord
from ..kip848.simulation import SimulationResult, process_of
from .style import PALETTE, apply

__all__ = ["ownership_intervals", "ownership_timeline", "comparison_bars"]


def ownership_intervals(result: SimulationResult, end_ms: Optional[int] = None
                        ) -> Dict[str, List[Tuple[str, int, int]]]:
    """``{partition: [(consumer, start_ms, end_ms)]}`` from a simulation's ownership ledger (an interval
    still open ends at ``end_ms``); restarted consumers (``name~n``) are drawn as the same process."""
    ledger = result.ownership
    if end_ms is None:
        end_ms = result.metrics.stable_ms or max(
            (t for iv in ledger.intervals for t in (iv.start_ms, iv.end_ms) if t is not None), default=0)
    out: Dict[str, List[Tuple[str, int, int]]] = {}
    for iv in ledger.intervals:
        topic, p = iv.partition
        out.setdefault(f"{topic}-{p}", []).append(
            (process_of(iv.member), iv.start_ms, iv.end_ms if iv.end_ms is not None else end_ms))
    return out


def _partition_key(tp: str) -> Tuple[str, int]:
    topic, _, p = tp.rpartition("-")
    return (topic, int(p))


def ownership_timeline(result: SimulationResult, window: Optional[Tuple[int, int]] = None, title: Optional[str] = None,
                       ax: Optional[Axes] = None) -> Axes:
    """One row per partition, one coloured bar per owner; white gaps are time with no owner.  Dashed lines
    mark group-epoch bumps, dotted ones the scenario start and the stable point."""
    apply()
    m = result.metrics
    start = window[0] if window else m.start_ms - 1000
    end = window[1] if window else (m.stable_ms or m.start_ms) + 1000
    intervals = ownership_intervals(result, end)
    partitions = sorted(intervals, key=_partition_key)
    members = sorted({m for ivs in intervals.values() for m, _, _ in ivs})
    colour = {m: PALETTE[i % len(PALETTE)] for i, m in enumerate(members)}
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 0.28 * len(partitions) + 1.4))
    for row, tp in enumerate(partitions):
        for member, s, e in intervals[tp]:
            s, e = max(s, start), min(e, end)
            if e > s:
                ax.barh(row, (e - s) / 1000, left=(s - start) / 1000, color=colour[member], height=0.8)
    for t, epoch in result.group_epochs:
        if start <= t <= end:
            ax.axvline((t - start) / 1000, color="grey", ls="--", lw=0.8)
            ax.text((t - start) / 1000, len(partitions) - 0.3, f"epoch {epoch}", fontsize=7, rotation=90, va="top")
    for mark in (m.start_ms, m.stable_ms):
        if mark is not None and start <= mark <= end:
            ax.axvline((mark - start) / 1000, color="black", ls=":", lw=1)
    ax.set_yticks(range(len(partitions)))
    ax.set_yticklabels(partitions, fontsize=7)
    ax.set_xlabel(f"seconds after t = {start / 1000:g} s")
    ax.set_xlim(0, (end - start) / 1000)
    handles = [Rectangle((0, 0), 1, 1, color=colour[m]) for m in members]
    ax.legend(handles, members, fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.set_title(title or f"{result.scenario}: partition owners over time")
    ax.grid(False)
    plt.tight_layout()
    return ax


def _scenario_label(scenario: str) -> str:
    """``rolling_restart-static`` reads "rolling restart (static)" on an axis."""
    name, _, variant = scenario.partition("-")
    name = name.replace("_", " ")
    return f"{name} ({variant})" if variant else name


def comparison_bars(rows: Sequence[JsonRecord],
                    metrics: Sequence[str] = ("time_to_stable_ms", "unowned_partition_seconds", "partitions_stopped"),
                    labels: Sequence[str] = ("time to stable\n(s, log scale)", "unowned partition-seconds\n(log scale)",
                                             "partitions stopped"),
                    log: Sequence[bool] = (True, True, False)) -> Figure:
    """Grouped horizontal bars, laid out for a printed page (7.5 inches wide): one panel per metric side by side,
    one group per scenario (named once, on the left), one bar per protocol, the protocols' legend below."""
    apply()
    scenarios = list(dict.fromkeys(r["scenario"] for r in rows))
    protocols = list(dict.fromkeys(r["protocol"] for r in rows))
    fig, axes = plt.subplots(1, len(metrics), figsize=(7.5, 0.62 * len(scenarios) + 1.6), sharey=True,
                             squeeze=False)
    height = 0.8 / len(protocols)
    for ax, metric, label, logscale in zip(axes[0], metrics, labels, log):
        for j, proto in enumerate(protocols):
            values = []
            for sc in scenarios:
                row = next((r for r in rows if r["scenario"] == sc and r["protocol"] == proto), None)
                v = row.get(metric) if row else None
                v = 0 if v is None else v
                values.append(v / 1000 if metric.endswith("_ms") else v)
            ax.barh([i + j * height for i in range(len(scenarios))], values, height, label=proto,
                    color=PALETTE[j % len(PALETTE)])
        if logscale:
            ax.set_xscale("log")
            ax.set_xlim(left=1)  # every bar starts at 1, so lengths compare across the panel
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            ax.xaxis.set_minor_formatter(NullFormatter())
        else:
            ax.xaxis.set_major_locator(MaxNLocator(nbins=4, integer=True))
        ax.tick_params(labelsize=9)
        ax.set_title(label, fontsize=10)
        ax.grid(axis="y", visible=False)
    first = axes[0][0]
    first.set_yticks([i + height * (len(protocols) - 1) / 2 for i in range(len(scenarios))])
    first.set_yticklabels([_scenario_label(sc) for sc in scenarios], fontsize=9)
    first.invert_yaxis()  # the first scenario on top, each group's bars in the legend's order
    handles, names = first.get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=len(protocols), fontsize=9, frameon=False,
               handlelength=1.2, columnspacing=1.2)
    plt.tight_layout(rect=(0, 0.07, 1, 1))
    return fig
