"""Widgets and tables of the Kafka Connect chapter.

Each widget has a static counterpart (a table function) computed with the same defaults, because the
book's website cannot run widgets.  All numbers come from :mod:`rebalance.connect`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple

import pandas as pd

if TYPE_CHECKING:
    from ipywidgets import Widget

from ..connect.arithmetic import legacy_revocation_plan, revocation_plan
from ..connect.assignor import ASSIGNOR_NAMES
from ..connect.experiment import start_stop

#: the default allocation of the revocation widget: ten workers running 90 tasks each, and a new one
DEFAULT_COUNTS = [(f"worker-{i:02d}", 90) for i in range(1, 11)] + [("worker-11", 0)]


def parse_counts(text: str) -> List[Tuple[str, int]]:
    """``"w1=5, w2=3, w3=0"`` (or ``"5 3 0"``) -> ``[("w1", 5), ("w2", 3), ("w3", 0)]``."""
    from ..errors import InputError

    pairs: List[Tuple[str, int]] = []
    for i, token in enumerate(t for t in text.replace(",", " ").split() if t):
        name, sep, value = token.rpartition("=")
        if not sep:
            name, value = f"w{i + 1}", token
        try:
            count = int(value)
        except ValueError:
            raise InputError(f"counts[{i}]", f"{token!r} is not 'worker=count' or a whole number") from None
        if count < 0:
            raise InputError(f"counts[{i}]", "counts must be >= 0")
        pairs.append((name, count))
    if not pairs:
        raise InputError("counts", "give at least one worker")
    return pairs


def revocation_table(counts: Sequence[Tuple[str, int]] = DEFAULT_COUNTS, total: Optional[int] = None) -> pd.DataFrame:
    """Kafka 3.4+ next to Kafka 2.3-3.3: per worker, how many it keeps and how many are revoked."""
    now = revocation_plan(counts, total)
    old = legacy_revocation_plan(counts, total)
    return pd.DataFrame([{
        "worker": a["worker"], "running": a["current"], "floor": a["floor"], "ceil": a["ceil"],
        "revoked (3.4+)": a["revoke"], "keeps (3.4+)": a["keeps"],
        "revoked (2.3-3.3)": b["revoke"], "keeps (2.3-3.3)": b["keeps"],
    } for a, b in zip(now, old)])


def revocation_widget(counts: Sequence[Tuple[str, int]] = DEFAULT_COUNTS) -> "Widget":
    """Edit the running counts (``worker=count`` in the leader's member order) and see the revocation."""
    import ipywidgets as w

    text = w.Textarea(value=", ".join(f"{n}={c}" for n, c in counts), description="running",
                      layout=w.Layout(width="95%", height="4em"))
    out = w.HTML()

    def update(*_: object) -> None:
        try:
            table = revocation_table(parse_counts(text.value))
            totals = table[["revoked (3.4+)", "revoked (2.3-3.3)"]].sum()
            out.value = table.to_html(index=False) + (
                f"<p>revoked in all: {int(totals.iloc[0])} (3.4+), {int(totals.iloc[1])} (2.3-3.3)</p>")
        except ValueError as exc:
            out.value = f"<p>{exc}</p>"

    text.observe(update, "value")
    update()
    return w.VBox([text, out])


def experiment_table(n_workers: int = 10, n_connectors: int = 90, tasks_per_connector: int = 10,
                     rebalances_per_addition: int = 1) -> pd.DataFrame:
    """Start-then-stop experiment for both assignors: rebalances and stops per phase."""
    rows = []
    for assignor in ASSIGNOR_NAMES:
        run = start_stop(assignor, rebalances_per_addition, n_workers, n_connectors, tasks_per_connector)
        for phase in ("start", "stop"):
            c = run[phase]
            rows.append({"assignor": assignor, "phase": phase, "rebalances": c.rebalances,
                         "follow-ups": c.follow_ups, "task stops": c.task_stops,
                         "connector stops": c.connector_stops, "task starts": c.task_starts})
    return pd.DataFrame(rows)


def experiment_widget() -> "Widget":
    """Sliders for workers, connectors and tasks per connector; the experiment's counts."""
    import ipywidgets as w

    workers = w.IntSlider(value=10, min=1, max=30, description="workers")
    connectors = w.IntSlider(value=90, min=1, max=120, description="connectors")
    tasks = w.IntSlider(value=10, min=0, max=20, description="tasks each")
    two = w.Checkbox(value=False, description="2 rebalances per addition")
    out = w.HTML()

    def update(*_: object) -> None:
        out.value = experiment_table(workers.value, connectors.value, tasks.value, 2 if two.value else 1).to_html(index=False)

    for control in (workers, connectors, tasks, two):
        control.observe(update, "value")
    update()
    return w.VBox([w.HBox([workers, connectors]), w.HBox([tasks, two]), out])


__all__ = ["DEFAULT_COUNTS", "experiment_table", "experiment_widget", "parse_counts", "revocation_table",
           "revocation_widget"]
