"""``rebalance.kafka.agreement.side_by_side`` and ``rebalance.kafka.coordinators.load_by_leader``, without a
cluster: the real run's lines are given, so what is tested is the lining up, not Kafka (chapter 01 runs the
real thing, and nbval keeps its outputs)."""
from __future__ import annotations

import pandas as pd
import pytest

from rebalance.errors import InputError
from rebalance.kafka.agreement import assignment_text, side_by_side
from rebalance.kafka.coordinators import load_by_leader

SCENARIO = {"id": "t", "protocol": "eager", "assignor": "range", "topics": {"t": 4},
            "members": [{"id": "c1"}, {"id": "c2"}],
            "config": {"initial_rebalance_delay_ms": 0, "session_timeout_ms": 6000, "heartbeat_interval_ms": 1000},
            "events": [{"at_ms": 3000, "op": "join", "member": "c2"}], "until_ms": 8000}


def test_side_by_side_lines_up_generations():
    real = [{"generation": 1, "at_ms": 40, "assignment": {"c1": ["t-0", "t-1", "t-2", "t-3"]}, "replayed": True},
            {"generation": 2, "at_ms": 3900, "assignment": {"c1": ["t-0", "t-1"], "c2": ["t-2", "t-3"]},
             "replayed": True},
            {"summary": {"rebalances": 2, "moved_partitions": 2, "generation": 2}}]
    table, counts, at_ms = side_by_side(SCENARIO, real_rows=real)
    assert table["generation"].tolist() == [1, 2]
    assert table["same"].tolist() == [True, True] and table["replayed"].tolist() == [True, True]
    assert table["real broker"].tolist() == ["c1: t-0 t-1 t-2 t-3", "c1: t-0 t-1 | c2: t-2 t-3"]
    assert counts == {"rebalances": (2, 2), "moved_partitions": (2, 2), "generation": (2, 2)}
    assert at_ms[2][1] == 3900 and 3000 < at_ms[2][0] < 5000


def test_side_by_side_shows_a_difference():
    real = [{"generation": 1, "at_ms": 40, "assignment": {"c1": ["t-0", "t-1", "t-2", "t-3"]}, "replayed": True},
            {"generation": 2, "at_ms": 3900, "assignment": {"c1": ["t-0"], "c2": ["t-1", "t-2", "t-3"]},
             "replayed": False},
            {"generation": 3, "at_ms": 5000, "assignment": {"c2": ["t-0", "t-1", "t-2", "t-3"]}, "replayed": True},
            {"summary": {"rebalances": 3, "moved_partitions": 4, "generation": 3}}]
    table, counts, at_ms = side_by_side(SCENARIO, real_rows=real)
    assert table["same"].tolist() == [True, False, False]
    assert table["simulator"].tolist()[2] is None and at_ms[3] == (None, 5000)
    assert counts["rebalances"] == (2, 3)


def test_assignment_text_sorts_members():
    assert assignment_text({"c2": ["t-1"], "c1": ["t-0", "t-2"]}) == "c1: t-0 t-2 | c2: t-1"


def test_load_by_leader():
    part = pd.DataFrame({"partition": [0, 1, 2, 3], "groups": [10, 20, 30, 40], "commits_per_s": [1.0, 1.0, 1.0, 5.0]})
    out = load_by_leader(part, {0: 7, 1: 8, 2: 8, 3: 7})
    assert out["broker"].tolist() == [7, 8] and out["offsets_partitions"].tolist() == [2, 2]
    assert out["groups"].tolist() == [50, 50] and out["groups_vs_even"].tolist() == [1.0, 1.0]
    assert out["commits_vs_even"].tolist() == pytest.approx([6 / 4, 2 / 4])
    with pytest.raises(InputError, match="leaders"):
        load_by_leader(part, {0: 1, 1: 1})
    with pytest.raises(InputError, match="partition_load"):
        load_by_leader(pd.concat([part, part]), {0: 1, 1: 1, 2: 1, 3: 1})
