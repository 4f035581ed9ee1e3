"""Kafka's own outputs for the ``connect`` kind: every scenario line, compared exactly."""
import json
from pathlib import Path

import pytest

from rebalance.connect import vectors as adapter
from rebalance.vectors import compare_output, run_input
from rebalance.vectors import vectors_dir as kafka_vectors_dir

ROOT = Path(__file__).resolve().parents[2]
VECTORS = kafka_vectors_dir()
FILES = sorted(VECTORS.glob("connect_*.jsonl")) if VECTORS.exists() else []


def _lines():
    out = []
    for path in FILES:
        for text in path.read_text(encoding="utf-8").splitlines():
            if text.strip():
                out.append(pytest.param(json.loads(text), id=f"{path.stem}:{json.loads(text)['input']['id']}"))
    return out


@pytest.mark.skipif(not FILES, reason="shared vectors not present")
@pytest.mark.parametrize("line", _lines())
def test_vector_passes(line):
    assert compare_output("connect", line["output"], run_input(line["input"])) == []


@pytest.mark.skipif(not FILES, reason="shared vectors not present")
@pytest.mark.parametrize("line", _lines())
def test_vector_reproduces_java_orders(line):
    # not only as sets: every list in Kafka's order (HashMap/HashSet/TreeSet/wire orders reproduced)
    assert adapter.run(line["input"]) == line["output"]


def test_compare_treats_hash_ordered_lists_as_sets():
    a = {"steps": [{"workers": {"w": {"assigned_tasks": ["c-1", "c-0"]}}}]}
    b = {"steps": [{"workers": {"w": {"assigned_tasks": ["c-0", "c-1"]}}}]}
    assert adapter.compare(a, b) == []
    c = {"steps": [{"workers": {"w": {"assigned_tasks": ["c-0", "c-2"]}}}]}
    assert adapter.compare(a, c) != []


def test_detail_totals_strings():
    out = adapter.run({"kind": "connect", "assignor": "incremental", "detail": "totals",
                       "connectors": {"a": 2}, "steps": [{"members": ["w1", "w2"]}]})
    step = out["steps"][0]
    assert step["input"]["members"] == {"w1": "0/0", "w2": "0/0"}
    assert sorted(step["workers"].values()) == ["+0/1 -0/0 =0/1", "+1/1 -0/0 =1/1"]
    assert "state" not in step


def test_members_map_linked_decides_who_keeps_the_extra_task():
    def revoked_from(order):
        members = {w: {"connectors": [], "tasks": tasks} for w, tasks in
                   (("w1", ["c-0", "c-1"]), ("w2", ["c-2", "c-3"]), ("w3", []))}
        out = adapter.run({"kind": "connect", "members_map": "linked", "connectors": {"c": 4},
                           "steps": [{"members": {w: members[w] for w in order}}]})
        return {w: v["revoked_tasks"] for w, v in out["steps"][0]["workers"].items() if v["revoked_tasks"]}

    # 4 tasks over 3 workers: floor 1, one "+1" slot, given to the first worker visited
    assert revoked_from(["w1", "w2", "w3"]) == {"w2": ["c-2"]}
    assert revoked_from(["w2", "w1", "w3"]) == {"w1": ["c-0"]}
