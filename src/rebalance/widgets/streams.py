"""Widget and table of the Kafka Streams chapter: a scale-out, rebalance by rebalance.

:func:`probing_table` is the static twin of :func:`probing_widget` (the book's website cannot run widgets).  All
numbers come from :func:`rebalance.streams.client.experiment.probing_rounds` (the book's ``HighAvailabilityTaskAssignor``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from ipywidgets import Widget

from ..streams.client import AssignmentConfigs, probing_rounds, random_process_ids, tasks_of


def probing_table(clients: int = 2, new_clients: int = 1, partitions: int = 6, max_warmup_replicas: int = 2,
                  num_standby_replicas: int = 0, seed: int = 0) -> pd.DataFrame:
    """``clients`` settled instances (one thread each, process ids drawn from ``seed``), ``new_clients`` join:
    one row per rebalance -- active tasks per instance (``i1``... in join order), the warm-ups, and whether the
    assignor asks for a probing rebalance."""
    pids = random_process_ids(clients + new_clients, seed)
    names = {p: f"i{k + 1}" for k, p in enumerate(pids)}
    rounds = probing_rounds(pids[:clients], pids, tasks_of(1, partitions),
                            AssignmentConfigs(acceptable_recovery_lag=100, max_warmup_replicas=max_warmup_replicas,
                                              num_standby_replicas=num_standby_replicas))
    return pd.DataFrame([{
        "rebalance": "scale-out" if r.number == 1 else f"probing {r.number - 1}",
        "actives per instance": " ".join(str(n) for n in r.active_counts(pids)),
        "warm-ups": ", ".join(f"{t}→{names[p]}" for p, ts in sorted(r.warmups.items(), key=lambda kv: names[kv[0]])
                              for t in ts) or "-",
        "actives moved": r.moved_actives, "probing rebalance next": r.probing_rebalance_needed,
    } for r in rounds])


def probing_widget() -> "Widget":
    """Sliders for the instances, the newcomers, the partitions, ``max.warmup.replicas`` and standbys."""
    import ipywidgets as w

    clients = w.IntSlider(value=2, min=1, max=10, description="instances")
    new = w.IntSlider(value=1, min=1, max=5, description="joining")
    partitions = w.IntSlider(value=6, min=1, max=48, description="partitions")
    warmups = w.IntSlider(value=2, min=1, max=10, description="max.warmup")
    standbys = w.IntSlider(value=0, min=0, max=2, description="standbys")
    out = w.HTML()

    def update(*_: object) -> None:
        out.value = probing_table(clients.value, new.value, partitions.value, warmups.value,
                                  standbys.value).to_html(index=False)

    for control in (clients, new, partitions, warmups, standbys):
        control.observe(update, "value")
    update()
    return w.VBox([w.HBox([clients, new, partitions]), w.HBox([warmups, standbys]), out])


__all__ = ["probing_table", "probing_widget"]
