"""Widgets of the first chapter: which ``__consumer_offsets`` partition (and so which coordinator)
a group id maps to.  Mirrors ``GroupCoordinatorService.partitionFor`` (Kafka 4.3.1; the same expression
since the old coordinator)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

import pandas as pd

from ..java import java_abs, string_hash
from ..protocol.coordinator import partition_for

if TYPE_CHECKING:  # ipywidgets is imported when a widget is built (the book's extra)
    import ipywidgets


def coordinator_lookup_table(group_ids: Iterable[str], num_partitions: int = 50) -> pd.DataFrame:
    """One row per group id: Java's ``String.hashCode``, Kafka's ``Utils.abs`` of it, and the partition."""
    rows = []
    for group_id in group_ids:
        h = string_hash(group_id)
        rows.append({
            "group.id": group_id,
            "String.hashCode": h,
            "Utils.abs": java_abs(h),
            f"partition (of {num_partitions})": partition_for(group_id, num_partitions),
        })
    return pd.DataFrame(rows)


def coordinator_widget(default_group: str = "orders-service", num_partitions: int = 50) -> ipywidgets.VBox:
    """Type a group id and choose ``offsets.topic.num.partitions``; see the partition it maps to."""
    import ipywidgets as w

    text = w.Text(value=default_group, description="group.id")
    parts = w.IntSlider(value=num_partitions, min=1, max=200, description="partitions")
    out = w.HTML()

    def update(*_: object) -> None:
        table = coordinator_lookup_table([text.value], parts.value)
        out.value = table.to_html(index=False)

    text.observe(update, "value")
    parts.observe(update, "value")
    update()
    return w.VBox([text, parts, out])
