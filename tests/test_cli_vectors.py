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


# -- the size of a line is estimated before anything is allocated (issue 12, item 3) ------------------

def _consumer_line(ident, partitions, members=1):
    return {"id": ident, "kind": "consumer", "assignor": "range", "topics": {"t0": partitions},
            "members": [{"memberId": f"C{i}", "topics": ["t0"]} for i in range(members)]}


HUGE = [
    (_consumer_line("int-max", 2**31 - 1), "topics.t0"),
    (_consumer_line("ten-to-13", 10**13), "topics.t0"),
    # partitions + subscriptions + owned partitions (never partitions x members: no assignor keeps that)
    ({"id": "two-big-topics", "kind": "consumer", "assignor": "sticky", "topics": {"a": 3_000_000, "b": 7_000_000},
      "members": [{"memberId": f"C{i}", "topics": ["a", "b"]} for i in range(3)]}, "topics.b"),
    ({"id": "admin", "kind": "adminutils", "brokers": [{"id": 0}, {"id": 1}], "partitions": 2**31 - 1,
      "replicationFactor": 2, "fixedStartIndex": 0, "startPartitionId": 0}, "partitions"),
    ({"id": "striped", "kind": "striped", "random": "java.util.Random", "seed": 1,
      "brokers": [{"id": 0, "rack": None, "fenced": False}],
      "placements": [{"startPartition": 0, "numPartitions": 3, "numReplicas": 1},
                     {"startPartition": 0, "numPartitions": 10**13, "numReplicas": 1}]}, "placements[1].numPartitions"),
    ({"id": "group", "kind": "group", "assignor": "uniform", "topics": [{"name": "t", "partitions": 2**31 - 1}],
      "members": [{"id": "A", "subscriptions": ["t"]}]}, "topics[0].partitions"),
    ({"id": "group-steps", "kind": "group", "assignor": "uniform", "topics": {"t": 3},
      "steps": [{"members": [{"id": "A", "subscriptions": ["t"]}]},
                {"add_topics": {"u": 10**13}}]}, "steps[1].add_topics.u"),
    ({"id": "connect", "kind": "connect", "assignor": "eager", "connectors": {"c": 2**31 - 1},
      "steps": [{"members": ["w1"]}]}, "connectors.c"),
]


@pytest.mark.parametrize("line,field", HUGE, ids=[line["id"] for line, _ in HUGE])
def test_an_input_over_the_size_limit_names_the_count_to_reduce(line, field):
    from rebalance.errors import InputError
    from rebalance.validation import MAX_INPUT_CELLS
    from rebalance.vectors import run_input

    with pytest.raises(InputError) as info:
        run_input(line)
    assert info.value.field == field
    assert f"{MAX_INPUT_CELLS:,}" in info.value.message


def test_the_limit_leaves_room_for_every_kafka_vector():
    """Kafka's largest vector uses about 100,000 cells; the limit is twenty times that."""
    from rebalance import vectors
    from rebalance.validation import MAX_INPUT_CELLS

    files = sorted(VECTORS.glob("*.jsonl"))
    if not files:
        pytest.skip("vectors not installed")
    for f in files:
        for text in f.read_text(encoding="utf-8").splitlines():
            vectors.check_input_size(json.loads(text)["input"])  # raises if a real vector were over
    assert MAX_INPUT_CELLS >= 2_000_000


def test_run_and_conform_keep_going_past_huge_lines(tmp_path):
    """Without a limit the 2^31-1 line is killed for memory and every later line is lost; with it each
    huge line reports an InputError naming its field and the next lines are still computed."""
    small = _consumer_line("small", 3, 2)
    lines = [_consumer_line("int-max", 2**31 - 1), _consumer_line("ten-to-13", 10**13), small]
    f = tmp_path / "huge.jsonl"
    f.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    res = _cli("run", str(f))
    out = [json.loads(text) for text in res.stdout.splitlines()]
    assert [o["id"] for o in out] == ["int-max", "ten-to-13", "small"]
    assert [o.get("error", {}).get("field") for o in out] == ["topics.t0", "topics.t0", None]
    assert out[0]["error"]["type"] == "InputError" and "MemoryError" not in res.stdout + res.stderr
    assert out[2]["output"]["assignment"] == {"C0": ["t0-0", "t0-1"], "C1": ["t0-2"]}
    golden = [{"id": line["id"], "input": line, "output": {}} for line in lines]
    golden[2]["output"] = out[2]["output"]
    f.write_text("\n".join(json.dumps(g) for g in golden) + "\n")
    res = _cli("conform", str(f))
    assert res.stdout.splitlines()[-1] == "1 passed, 2 failed"
    assert "bad input: topics.t0: input too large" in res.stdout


def test_kafkas_large_tests_are_under_the_size_limit():
    """1,000,000 partitions over 2,000 consumers, each owning its share (AbstractStickyAssignorTest's large
    tests, step 2) is about 3,000,000 cells: computed, not refused."""
    from rebalance.vectors import check_input_size

    topics = {f"t{i}": 2_000 for i in range(500)}
    per_member = [f"t{i}-{p}" for i in range(500) for p in range(0, 2_000, 2_000)][:500]
    members = [{"memberId": f"c{m}", "topics": list(topics), "ownedPartitions": per_member} for m in range(2_000)]
    check_input_size({"kind": "consumer", "assignor": "sticky", "topics": topics, "members": members})
