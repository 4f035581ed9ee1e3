"""The conformance commands: `conform` compares with Kafka, `run` writes outputs; both keep going past bad lines."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from rebalance.vectors import vectors_dir as kafka_vectors_dir

ROOT = Path(__file__).resolve().parents[1]
VECTORS = kafka_vectors_dir()
GOOD = {"id": "good", "kind": "coordinator_partition",
        "input": {"kind": "coordinator_partition", "numPartitions": 50, "groupIds": ["my-group", "polygenelubricants"]},
        "output": {"partitions": [None, 0], "javaHashCodes": [None, -2147483648]}}


def _cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "rebalance", *args], capture_output=True, text=True,
                          input=stdin, cwd=ROOT, timeout=600)


def _expected_good():
    from rebalance.java import java_abs, string_hash

    h = string_hash("my-group")
    good = json.loads(json.dumps(GOOD))
    good["output"] = {"partitions": [java_abs(h) % 50, 0], "javaHashCodes": [h, -2147483648]}
    return good


def test_conform_reports_bad_lines_and_keeps_going(tmp_path):
    good = _expected_good()
    wrong = json.loads(json.dumps(good))
    wrong["id"] = "wrong"
    wrong["output"]["partitions"][1] = 7
    lines = [json.dumps(good), "{not json", json.dumps({"id": "nokind", "input": {"numPartitions": 3}, "output": {}}),
             json.dumps(wrong), json.dumps(good)]
    f = tmp_path / "v.jsonl"
    f.write_text("\n".join(lines) + "\n")
    res = _cli("conform", str(f))
    assert res.returncode == 1
    out = res.stdout
    assert out.strip().splitlines()[-1] == "2 passed, 3 failed"
    assert "line: not valid JSON" in out
    assert "nokind" in out and "kind:" in out
    assert "FAIL wrong" in out
    assert "Traceback" not in res.stdout + res.stderr


def test_run_writes_every_good_line_and_names_bad_fields(tmp_path):
    good = _expected_good()
    bad = {"id": "bad", "kind": "coordinator_partition", "numPartitions": "five", "groupIds": ["x"]}
    f = tmp_path / "in.jsonl"
    f.write_text(json.dumps(good["input"] | {"id": "a"}) + "\n" + json.dumps(bad) + "\n{oops\n"
                 + json.dumps(good) + "\n")
    res = _cli("run", str(f))
    rows = [json.loads(x) for x in res.stdout.splitlines()]
    assert [r["id"] for r in rows] == ["a", "bad", f"{f}:3", "good"]
    assert rows[0]["output"] == good["output"]
    assert rows[3]["output"] == good["output"]
    assert rows[1]["error"]["field"] == "numPartitions"
    assert rows[2]["error"]["field"] == "line"
    assert res.returncode == 1
    assert "Traceback" not in res.stderr


def test_conform_missing_file_is_reported():
    res = _cli("conform", "/nonexistent/file.jsonl")
    assert res.returncode == 1
    assert res.stdout.strip().splitlines()[-1] == "0 passed, 1 failed"


@pytest.mark.skipif(not VECTORS.is_dir(), reason="Kafka conformance vectors not found beside the repository")
def test_every_kafka_vector_passes():
    files = sorted(str(p) for p in VECTORS.glob("*.jsonl"))
    assert files
    res = _cli("conform", *files)
    last = res.stdout.strip().splitlines()[-1]
    failures = [l for l in res.stdout.splitlines() if l.startswith("FAIL")]
    assert last.endswith(" 0 failed"), f"{last}\n" + "\n".join(failures[:30])
    assert res.returncode == 0


@pytest.mark.skipif(not VECTORS.is_dir(), reason="Kafka conformance vectors not found beside the repository")
def test_run_output_matches_vectors_for_a_whole_file(tmp_path):
    """`run` over a vectors file gives, line for line, Kafka's outputs (checked here independently of `conform`)."""
    src = VECTORS / "coordinator_partition.jsonl"
    res = _cli("run", str(src))
    expected = [json.loads(l) for l in src.read_text().splitlines() if l.strip()]
    got = [json.loads(l) for l in res.stdout.splitlines()]
    assert [g["id"] for g in got] == [e["id"] for e in expected]
    for e, g in zip(expected, got):
        assert g.get("output") == e["output"], e["id"]
