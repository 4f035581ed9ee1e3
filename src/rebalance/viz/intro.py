"""Figures of the first chapter."""
from __future__ import annotations

from typing import Mapping

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from .style import PALETTE, apply


def partition_load_figure(groups_per_partition: Mapping[int, int], num_partitions: int, title: str = ""
                          ) -> Figure:
    """Bar chart: how many group ids land on each ``__consumer_offsets`` partition."""
    apply()
    fig, ax = plt.subplots(figsize=(7.5, 3.0))
    xs = list(range(num_partitions))
    ys = [groups_per_partition.get(p, 0) for p in xs]
    ax.bar(xs, ys, color=PALETTE[0], width=0.8)
    mean = sum(ys) / num_partitions if num_partitions else 0
    ax.axhline(mean, color=PALETTE[5], linestyle="--", linewidth=1, label=f"mean {mean:.1f}")
    ax.set_xlabel("__consumer_offsets partition")
    ax.set_ylabel("group ids")
    ax.set_title(title or "Group ids per __consumer_offsets partition")
    ax.legend(loc="upper right")
    fig.tight_layout()
    return fig
