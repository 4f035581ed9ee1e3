"""Chapter 13's coordinator-load widget reads the coordinator job's broker_load table."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from rebalance.errors import InputError  # noqa: E402
from rebalance.spark.jobs.coordinator import broker_load  # noqa: E402
from rebalance.widgets.lab import coordinator_load_table, coordinator_load_view, coordinator_load_widget  # noqa: E402


def _load():
    # 10 offsets partitions, partition p holds p + 1 groups and twice as many commits
    part = pd.DataFrame({"num_partitions": 10, "partition": range(10), "groups": range(1, 11),
                         "commits_per_s": [2.0 * (p + 1) for p in range(10)]})
    return broker_load(part, [3, 5])


def test_table_is_relative_to_an_even_share():
    table = coordinator_load_table(_load(), 10, 3)
    assert list(table["offsets_partitions"]) == [4, 3, 3]       # broker p % 3 leads partition p
    assert table["groups"].sum() == 55
    assert table["groups vs even"].round(3).tolist() == [round(g / (55 / 3), 3) for g in table["groups"]]
    assert (coordinator_load_table(_load(), 10, 5)["offsets_partitions"] == 2).all()


def test_view_widget_and_missing_run():
    table, fig = coordinator_load_view(_load(), 10, 5)
    assert len(table) == 5 and fig.axes
    widget = coordinator_load_widget(_load(), 10, 3)
    widget.children[0].children[1].value = 5
    assert widget.children[-1].value.count("<tr>") == 1 + 5   # the index-name header row + 5 brokers
    with pytest.raises(InputError, match="num_partitions"):
        coordinator_load_table(_load(), 50, 6)
