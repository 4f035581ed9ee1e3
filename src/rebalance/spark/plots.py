"""Figures of the Spark jobs' results (matplotlib), for the *Lab at scale* chapter.

Each function takes the tables a job returned (or :func:`rebalance.spark.lab.load_or_run` read back) and
returns a ``Figure``; nothing here computes an experiment.
"""
from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Tuple

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from ..viz import style

ASSIGNOR_ORDER = ("range", "roundrobin", "sticky", "cooperative-sticky")
MODE_ORDER = ("eager", "cooperative", "static")
EVENT_ORDER = ("rolling-restart", "crash-restart", "crash")


def _colors(n: int) -> List[str]:
    return [style.PALETTE[i % len(style.PALETTE)] for i in range(n)]


def sweep_figure(tables: Dict[str, pd.DataFrame]) -> Figure:
    """Left: share of groups with an idle member (identical subscriptions, at least as many partitions as
    members) per assignor.  Right: cumulative share of groups by partitions taken from members that
    stayed when one member left."""
    style.apply()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    subs = tables["by_subscriptions"]
    same = subs[subs["identical"]].set_index("assignor").reindex(ASSIGNOR_ORDER)
    ax1.bar(range(len(ASSIGNOR_ORDER)), 100 * same["p_idle_despite_enough"], color=_colors(4))
    ax1.set_xticks(range(len(ASSIGNOR_ORDER)), ASSIGNOR_ORDER, rotation=15)
    ax1.set_ylabel("groups with an idle member (%)")
    ax1.set_title("Idle members although partitions >= members\n(every member subscribes to every topic)",
                  fontsize=10)
    hist = tables["moves_histogram"]
    for color, a in zip(_colors(4), ASSIGNOR_ORDER):
        h = hist[hist["assignor"] == a].sort_values("extra_moves")
        if len(h):
            ax2.step(h["extra_moves"], 100 * h["scenarios"].cumsum() / h["scenarios"].sum(), where="post",
                     label=a, color=color, ls="--" if a == "cooperative-sticky" else "-")
    ax2.set_xscale("symlog", linthresh=1)
    ax2.set_xlabel("partitions moved away from members that stayed")
    ax2.set_ylabel("groups (cumulative %)")
    ax2.set_title("One member leaves", fontsize=10)
    ax2.legend(fontsize=8)
    fig.tight_layout()
    return fig


def coordinator_figure(summary: pd.DataFrame, real: Optional[Mapping[str, Tuple[int, float]]] = None) -> Figure:
    """The busiest coordinator relative to an even share, by ``offsets.topic.num.partitions``, one line
    per cluster size: counting groups (left) and weighting each group by its offset-commit rate (right).
    ``real``: points measured on a real cluster, ``{label: (num_partitions, busiest broker's groups vs even)}``,
    drawn as stars on the left panel."""
    style.apply()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), sharey=True)
    for ax, col, title in ((axes[0], "max_broker_groups_vs_even", "groups per coordinator"),
                           (axes[1], "max_broker_commits_vs_even", "offset commits per coordinator")):
        for color, (b, g) in zip(_colors(8), summary.groupby("brokers", sort=True)):
            g = g.sort_values("num_partitions")
            ax.plot(g["num_partitions"], g[col], marker="o", color=color, label=f"{b} brokers")
        ax.axhline(1.0, color="grey", lw=0.8, ls="--")
        ax.set_xscale("log")
        ticks = sorted(summary["num_partitions"].unique())
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.set_xlabel("offsets.topic.num.partitions")
        ax.set_title(title, fontsize=10)
    for label, (num_partitions, value) in (real or {}).items():
        axes[0].plot([num_partitions], [value], marker="*", markersize=13, color="black", linestyle="none",
                     label=label)
    axes[0].set_ylabel("busiest broker / even share")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def montecarlo_figure(rows: pd.DataFrame) -> Figure:
    """Cumulative distributions of partition-seconds without an owner, one panel per kind of
    disturbance, one line per set-up (eager, cooperative, static)."""
    style.apply()
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.6), sharey=True)
    for ax, event in zip(axes, EVENT_ORDER):
        ev = rows[rows["event"] == event]
        for color, mode in zip(_colors(3), MODE_ORDER):
            x = np.sort(ev.loc[ev["mode"] == mode, "unowned_partition_seconds"].to_numpy(dtype=float))
            if len(x):
                ax.step(x, 100 * np.arange(1, len(x) + 1) / len(x), where="post", color=color, label=mode)
        ax.set_xscale("symlog", linthresh=1)
        ax.set_title(f"{event} ({ev['simulation'].nunique()} groups)", fontsize=10)
        ax.set_xlabel("partition-seconds with no owner")
    axes[0].set_ylabel("simulations (cumulative %)")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def placement_figure(brokers: pd.DataFrame) -> Figure:
    """Replicas held by each broker relative to its cluster's even share, per placer and rack set-up."""
    style.apply()
    setups = ("no racks", "even racks", "uneven racks")
    placers = ("AdminUtils", "StripedReplicaPlacer")
    fig, ax = plt.subplots(figsize=(9, 3.6))
    data, labels, colors = [], [], []
    for i, setup in enumerate(setups):
        for j, placer in enumerate(placers):
            v = brokers.loc[(brokers["setup"] == setup) & (brokers["placer"] == placer), "replicas_vs_even"]
            data.append(v.to_numpy(dtype=float))
            labels.append(f"{setup}\n{placer.replace('ReplicaPlacer', '')}")
            colors.append(style.PALETTE[j])
    parts = ax.boxplot(data, whis=(1, 99), showfliers=False, patch_artist=True)
    for patch, color in zip(parts["boxes"], colors):
        patch.set_facecolor(color)
        patch.set_alpha(0.6)
    ax.set_xticks(range(1, len(labels) + 1), labels, fontsize=8)
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.set_ylabel("replicas / even share")
    ax.set_title("Replicas per broker after all topic creations (boxes: quartiles, whiskers: 1st-99th pct)",
                 fontsize=10)
    fig.tight_layout()
    return fig
