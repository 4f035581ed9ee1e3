"""Chapter 4's flowchart of the sticky general path is annotated from the traced call."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from rebalance.errors import InputError  # noqa: E402
from rebalance.viz.sticky import general_path_counts, general_path_flowchart  # noqa: E402
from rebalance.widgets.sticky import sticky_walk  # noqa: E402


def test_counts_match_the_trace_and_the_assignments():
    first, second = sticky_walk()
    c = general_path_counts(second)
    assert c == {"owned": 9, "kept": 9, "assigned": 0, "moves": 2, "undone": 0, "reverted": 0, "changed owner": 2}
    moved = sum(1 for m, tps in first.assignment.items() for tp in tps if tp not in second.assignment.get(m, []))
    assert c["changed owner"] == moved
    texts = " ".join(t.get_text() for t in general_path_flowchart(second).axes[0].texts)
    assert "kept 9" in texts and "moves 2" in texts and "2 partition(s) changed owner" in texts


def test_a_member_leaving_assigns_its_partitions_at_step_2():
    first, second = sticky_walk(left=["consumer2"])
    c = general_path_counts(second)
    assert c["assigned"] == len(first.assignment["consumer2"]) and c["kept"] == c["owned"]


def test_needs_a_traced_general_path_result():
    first, _ = sticky_walk()
    with pytest.raises(InputError, match="result"):
        general_path_flowchart(first)
