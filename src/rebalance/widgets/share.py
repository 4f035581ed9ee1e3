"""Widgets and tables of the share-groups chapter (chapter 14).

A share partition's records under a rule of acknowledgement, replayed by
:class:`~rebalance.share.SharePartitionModel` on a virtual clock: members take turns fetching, acknowledge each
record by its offset's rule (``ACCEPT``, ``RELEASE``, ``REJECT``), or hold it past the acquisition lock
(``SLOW``).  :func:`delivery_log` is every delivery and how it ended; :func:`delivery_figure` draws it;
:func:`delivery_widget` lets a reader change the rule and the delivery limit.  Each widget has its static twin
(the table and the figure) because the book's website cannot run widgets.
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Sequence

import pandas as pd

if TYPE_CHECKING:
    from ipywidgets import Widget
    from matplotlib.figure import Figure

from ..share.delivery import Delivery, ShareRule, deliveries, share_rule

__all__ = ["delivery_log", "delivery_figure", "delivery_widget", "OUTCOME_COLORS"]

_COLUMNS = [f.name for f in dataclasses.fields(Delivery)]
#: how a delivery ended -> colour of its mark
OUTCOME_COLORS = {"accepted": "#2b8a3e", "rejected": "#c92a2a", "released": "#f59f00",
                  "lock expired": "#7048e8", "archived (limit)": "#495057"}


def delivery_log(records: int = 12, rule: ShareRule = share_rule(12, release_every=5, reject_every=7, slow=1),
                 members: Sequence[str] = ("m1", "m2", "m3"), delivery_count_limit: int = 3,
                 max_records: int = 4, record_lock_duration_ms: int = 30_000) -> pd.DataFrame:
    """Every delivery of the partition's records: ``at_ms`` (virtual), ``member``, ``offset``,
    ``delivery_count`` (after the acquisition), ``rule``, ``outcome`` (``accepted``, ``rejected``,
    ``released``, ``lock expired``, or ``archived (limit)`` when a release or an expiry happened at the limit)
    and ``state`` (the record's state after it).  The members fetch in turn, at most ``max_records`` each;
    when nobody can fetch, the clock jumps one lock duration and the held records' locks expire.

    Defined in chapter 14, *Share groups: queues for Kafka*."""
    rows = deliveries(records, rule, members, delivery_count_limit=delivery_count_limit, max_records=max_records,
                      record_lock_duration_ms=record_lock_duration_ms)
    return pd.DataFrame([dataclasses.asdict(d) for d in rows], columns=_COLUMNS)


def delivery_figure(log: pd.DataFrame, title: str = "") -> "Figure":
    """One mark per delivery: offset across, delivery count up, coloured by how the delivery ended."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 2.8))
    for outcome, color in OUTCOME_COLORS.items():
        part = log[log["outcome"] == outcome]
        if len(part):
            ax.scatter(part["offset"], part["delivery_count"], s=90, marker="s", color=color, label=outcome)
    ax.set_xlabel("offset")
    ax.set_ylabel("delivery count")
    if len(log):
        ax.set_xticks(range(int(log["offset"].max()) + 1))
        ax.set_yticks(range(1, int(log["delivery_count"].max()) + 1))
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False, fontsize=8)
    if title:
        ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def delivery_widget(records: int = 12, delivery_count_limit: int = 3) -> "Widget":
    """Sliders for the records, the rule (every n-th released or rejected, the last ones slow) and
    ``group.share.delivery.count.limit``; the figure and the outcome counts follow."""
    import ipywidgets as w
    import matplotlib.pyplot as plt

    n = w.IntSlider(value=records, min=2, max=40, description="records")
    release = w.IntSlider(value=5, min=0, max=10, description="release every")
    reject = w.IntSlider(value=7, min=0, max=10, description="reject every")
    slow = w.IntSlider(value=1, min=0, max=5, description="slow (last)")
    limit = w.IntSlider(value=delivery_count_limit, min=2, max=10, description="delivery limit")
    image = w.Image(format="png")
    text = w.HTML()

    def update(*_: Any) -> None:
        # drawn into an Image widget, not printed or shown: nothing reaches the cell's own outputs
        import io

        rule = share_rule(n.value, release_every=release.value, reject_every=reject.value,
                          slow=min(slow.value, n.value))
        log = delivery_log(n.value, rule, delivery_count_limit=limit.value)
        fig = delivery_figure(log)
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=90)
        plt.close(fig)
        image.value = buffer.getvalue()
        final = log.groupby("offset")["state"].last().value_counts()
        text.value = (f"<p>{len(log)} deliveries of {n.value} records; "
                      + ", ".join(f"{k}: {v}" for k, v in sorted(final.items())) + "</p>")

    for s in (n, release, reject, slow, limit):
        s.observe(update, "value")
    update()
    return w.VBox([w.HBox([n, limit]), w.HBox([release, reject, slow]), image, text])
