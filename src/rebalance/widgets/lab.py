"""Chapter 13's widget: how evenly the group coordinators' work spreads over the brokers.

Reads the ``broker_load`` table of the coordinator job (:mod:`rebalance.spark.jobs.coordinator`: millions
of group ids hashed with ``String.hashCode`` to ``__consumer_offsets`` partitions, ``Utils.abs(hash) %
offsets.topic.num.partitions`` as ``GroupCoordinatorService.partitionFor`` does in Kafka 4.3.1, each
partition mapped to its leader).  :func:`coordinator_load_view` is the static counterpart of
:func:`coordinator_load_widget` (same defaults), for the book's site.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Tuple

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from ..validation import require
from ..viz.style import PALETTE, apply

if TYPE_CHECKING:  # ipywidgets is imported when a widget is built (the book's extra)
    import ipywidgets

__all__ = ["coordinator_load_table", "coordinator_load_view", "coordinator_load_widget"]


def coordinator_load_table(broker_load: pd.DataFrame, num_partitions: int = 50, brokers: int = 6) -> pd.DataFrame:
    """One row per broker of a ``(offsets.topic.num.partitions, brokers)`` cluster: the offsets partitions it
    leads, its groups and offset commits, each relative to a perfectly even share (1.0 = even)."""
    require({"num_partitions", "brokers", "broker", "offsets_partitions", "groups", "commits_per_s"}
            <= set(broker_load.columns), "broker_load", "needs the coordinator job's broker_load table")
    frame = broker_load[(broker_load.num_partitions == num_partitions) & (broker_load.brokers == brokers)]
    require(len(frame) > 0, "num_partitions",
            f"no run for {num_partitions} partitions on {brokers} brokers; the table has "
            f"{sorted(set(zip(broker_load.num_partitions, broker_load.brokers)))}")
    out = frame[["broker", "offsets_partitions", "groups", "commits_per_s"]].reset_index(drop=True)
    out["groups vs even"] = (out["groups"] / out["groups"].mean()).round(3)
    out["commits vs even"] = (out["commits_per_s"] / out["commits_per_s"].mean()).round(3)
    return out.set_index("broker")


def coordinator_load_view(broker_load: pd.DataFrame, num_partitions: int = 50, brokers: int = 6
                          ) -> Tuple[pd.DataFrame, Figure]:
    """The table and a bar chart of each broker's groups and commits relative to an even share."""
    table = coordinator_load_table(broker_load, num_partitions, brokers)
    apply()
    fig, ax = plt.subplots(figsize=(7.5, 3.2))
    x = range(len(table))
    ax.bar([i - 0.2 for i in x], table["groups vs even"], width=0.4, color=PALETTE[0], label="groups")
    ax.bar([i + 0.2 for i in x], table["commits vs even"], width=0.4, color=PALETTE[1], label="offset commits")
    ax.axhline(1.0, color="#333333", linewidth=0.8, linestyle="--")
    ax.set_xticks(list(x))
    ax.set_xticklabels([f"broker {b}\n({n} partitions)" for b, n in zip(table.index, table["offsets_partitions"])],
                       fontsize=8)
    ax.set_ylabel("load / even share")
    low = min(table["groups vs even"].min(), table["commits vs even"].min())
    ax.set_ylim(max(0.0, low - 0.1), max(table["groups vs even"].max(), table["commits vs even"].max()) + 0.1)
    ax.set_title(f"Coordinator load: {num_partitions} offsets partitions on {brokers} brokers")
    ax.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    return table, fig


def coordinator_load_widget(broker_load: pd.DataFrame, num_partitions: int = 50, brokers: int = 6
                            ) -> "ipywidgets.VBox":
    """Choose ``offsets.topic.num.partitions`` and the number of brokers among the stored run's; see each
    broker's share of the groups and commits."""
    import io

    import ipywidgets as w

    parts = w.Dropdown(options=sorted(int(p) for p in set(broker_load.num_partitions)), value=num_partitions,
                       description="partitions")
    nodes = w.Dropdown(options=sorted(int(b) for b in set(broker_load.brokers)), value=brokers, description="brokers")
    image = w.Image(format="png")
    html = w.HTML()

    def update(*_: object) -> None:
        table, fig = coordinator_load_view(broker_load, parts.value, nodes.value)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", bbox_inches="tight")
        plt.close(fig)
        image.value = buffer.getvalue()
        html.value = table.to_html()

    parts.observe(update, "value")
    nodes.observe(update, "value")
    update()
    return w.VBox([w.HBox([parts, nodes]), image, html])
