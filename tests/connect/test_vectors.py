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


def test_compare_checks_list_order():
    a = {"steps": [{"workers": {"w": {"assigned_tasks": ["c-1", "c-0"]}}}]}
    b = {"steps": [{"workers": {"w": {"assigned_tasks": ["c-0", "c-1"]}}}]}
    assert adapter.compare(a, dict(a)) == []
    problems = adapter.compare(a, b)
    assert len(problems) == 1 and problems[0].startswith("the same connectors and tasks in another order")
    c = {"steps": [{"workers": {"w": {"assigned_tasks": ["c-0", "c-2"]}}}]}
    problems = adapter.compare(a, c)
    assert problems and "another order" not in problems[0]


def test_detail_totals_strings():
    out = adapter.run({"kind": "connect", "assignor": "incremental", "detail": "totals",
                       "connectors": {"a": 2}, "steps": [{"members": ["w1", "w2"]}]})
    step = out["steps"][0]
    # the README's strings exactly: "Nc/Nt" for an input member, "+Ac/At -Rc/Rt =Nc/Nt" for a worker
    assert step["input"]["members"] == {"w1": "0c/0t", "w2": "0c/0t"}
    assert sorted(step["workers"].values()) == ["+0c/1t -0c/0t =0c/1t", "+1c/1t -0c/0t =1c/1t"]
    assert "state" not in step


def test_detail_totals_strings_of_the_readme_example():
    # the README's example: given 2 connectors and 20 tasks, lost none, now runs 9 and 90
    out = adapter.run({"kind": "connect", "detail": "totals", "connectors": {f"c{i}": 10 for i in range(9)},
                       "steps": [{"members": ["w1"]}, {"members": ["w1"], "add_connectors": {"c9": 10, "c10": 10},
                                                       "remove_connectors": ["c0", "c1"]}]})
    last = out["steps"][-1]
    assert last["input"]["members"] == {"w1": "9c/90t"}
    assert last["workers"]["w1"] == "+2c/20t -2c/20t =9c/90t"


def test_detail_totals_strings_from_the_cli(tmp_path, capsys):
    from rebalance.__main__ import main

    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"kind": "connect", "detail": "totals", "connectors": {"a": 1},
                                "steps": [{"members": ["w1"]}]}) + "\n", encoding="utf-8")
    main(["run", str(path)])
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    step = out["steps"][0] if "steps" in out else out["output"]["steps"][0]
    assert step["input"]["members"] == {"w1": "0c/0t"}
    assert step["workers"] == {"w1": "+1c/1t -0c/0t =1c/1t"}


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


def _kafka_output_as_totals(output: dict) -> dict:
    """Kafka's own (compact) output rewritten by the README's rule for ``"detail": "totals"``."""
    def count(c, t):
        return f"{c}c/{t}t"

    steps = []
    for step in output["steps"]:
        step = dict(step)
        if step.get("op") == "rebalance":
            step.pop("state", None)
            step.pop("running_after", None)
            step["input"] = {"connectors": step["input"]["connectors"],
                             "members": {w: count(len(m["connectors"]), len(m["tasks"]))
                                         for w, m in step["input"]["members"].items()}}
            step["workers"] = {w: f"+{count(len(v['assigned_connectors']), len(v['assigned_tasks']))} "
                                  f"-{count(len(v['revoked_connectors']), len(v['revoked_tasks']))} "
                                  f"={count(v['n_connectors'], v['n_tasks'])}"
                               for w, v in step["workers"].items()}
        steps.append(step)
    return {**output, "steps": steps}


@pytest.mark.skipif(not FILES, reason="shared vectors not present")
def test_conform_accepts_kafka_rows_in_the_totals_format():
    # Kafka's rows of one scenario, written in the README's "+Ac/At -Rc/Rt =Nc/Nt" / "Nc/Nt" strings,
    # pass `python -m rebalance conform` (they failed on "0/0" before)
    from rebalance.vectors import Line, conform_lines

    path = VECTORS / "connect_incremental.jsonl"
    golden = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    line = {"input": {**golden["input"], "detail": "totals"}, "output": _kafka_output_as_totals(golden["output"])}
    assert any("0c/0t" in s for step in line["output"]["steps"] if step.get("op") == "rebalance"
               for s in step["input"]["members"].values())
    result = conform_lines([Line("kafka", 1, line)], lambda text: None)
    assert (result.passed, result.failed) == (1, 0), result.failures
