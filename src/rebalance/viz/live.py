"""Figures of the real-client chapter: what live librdkafka consumers did next to what the book predicts
(:mod:`rebalance.live`, the classic protocol of Kafka's ``ConsumerCoordinator`` as simulated by
:mod:`rebalance.protocol`, modelled on Kafka's source at commit 1eb7644, trunk before 4.0)."""
from __future__ import annotations

from typing import Mapping, Sequence

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from ..errors import InputError
from .style import PALETTE, apply


def live_vs_book_figure(rows: Sequence[Mapping[str, object]], measure: str = "revoked",
                        title: str = "Live clients next to the book's prediction") -> Figure:
    """Bars of ``live <measure>`` and ``book <measure>`` per step, one panel per protocol.

    ``rows`` are records with ``protocol``, ``step``, ``live <measure>`` and ``book <measure>`` keys, as the
    chapter's comparison table has them.
    """
    if not rows:
        raise InputError("rows", "no step to draw")
    protocols = list(dict.fromkeys(str(r["protocol"]) for r in rows))
    apply()
    fig, axes = plt.subplots(1, len(protocols), figsize=(4.2 * len(protocols), 3.4), sharey=True, squeeze=False)
    for ax, protocol in zip(axes[0], protocols):
        mine = [r for r in rows if r["protocol"] == protocol]
        xs = range(len(mine))
        live = [float(r[f"live {measure}"]) for r in mine]  # type: ignore[arg-type]
        book = [float(r[f"book {measure}"]) for r in mine]  # type: ignore[arg-type]
        ax.bar([x - 0.2 for x in xs], live, width=0.4, color=PALETTE[0], label="live (librdkafka)")
        ax.bar([x + 0.2 for x in xs], book, width=0.4, color=PALETTE[2], label="book (simulator)")
        ax.set_xticks(list(xs))
        ax.set_xticklabels([str(r["step"]) for r in mine])
        ax.set_title(protocol)
        ax.set_ylabel(f"partitions {measure}")
    top = max(float(r[f"{side} {measure}"]) for r in rows for side in ("live", "book"))  # type: ignore[arg-type]
    axes[0][0].set_ylim(0, max(top, 1.0) * 1.35)
    axes[0][0].legend(loc="upper right", fontsize="small", ncol=2)
    fig.suptitle(title)
    fig.tight_layout()
    return fig
