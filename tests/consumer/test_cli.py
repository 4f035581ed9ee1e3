"""``python -m rebalance assign``: tables, JSON, both file shapes, and clean errors naming the field."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rebalance.__main__ import main
from rebalance.consumer.cli import compact

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_table_for_the_uneven_example(capsys):
    code, out, _ = run(capsys, "assign", str(EXAMPLES / "consumer_uneven.json"), "--assignor", "roundrobin")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["member", "count", "partitions"]
    assert lines[2].split() == ["consumer0", "5", "topic0[0,2]", "topic1[0,2]", "topic2[1]"]
    assert lines[3].split() == ["consumer1", "3", "topic0[1,3]", "topic1[1]"]
    assert lines[4].split() == ["consumer2", "1", "topic2[0]"]
    assert lines[-1] == "roundrobin: 9 partitions over 3 members (max - min = 4)"


def test_json_output_keeps_kafka_list_order(capsys):
    code, out, _ = run(capsys, "assign", str(EXAMPLES / "consumer_uneven.json"), "--assignor", "range", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["assignor"] == "range"
    assert data["assignment"]["consumer2"] == ["topic2-1"]
    assert sorted(data["assignment"]["consumer0"]) == ["topic0-0", "topic0-1", "topic1-0", "topic1-1", "topic2-0"]


def test_owned_partitions_show_what_moves(capsys):
    code, out, _ = run(capsys, "assign", str(EXAMPLES / "consumer_rebalance.json"), "--assignor", "range")
    assert code == 0
    assert out.splitlines()[0].split() == ["member", "count", "partitions", "kept", "revoked", "new"]
    c3 = [line for line in out.splitlines() if line.startswith("C3")][0]
    assert c3.split() == ["C3", "0", "-", "0", "0", "0"]  # Range gives the newcomer nothing here


def test_vectors_shape_is_accepted(tmp_path, capsys):
    scenario = {"kind": "consumer", "assignor": "range", "topics": {"t0": 3, "t1": 3},
                "members": [{"memberId": "C0", "topics": ["t0", "t1"]}, {"memberId": "C1", "topics": ["t0", "t1"]}]}
    path = tmp_path / "v.json"
    path.write_text(json.dumps({"id": "x", "input": scenario, "output": {}}))
    code, out, _ = run(capsys, "assign", str(path), "--assignor", "roundrobin", "--json")
    assert code == 0
    assert json.loads(out)["assignment"] == {"C0": ["t0-0", "t0-2", "t1-1"], "C1": ["t0-1", "t1-0", "t1-2"]}


@pytest.mark.parametrize("content,field", [
    ("{not json", "scenario"),
    ('{"members": {}}', "topics"),
    ('{"topics": {"t": 1}}', "members"),
    ('{"topics": {"t": -2}, "members": {"A": {"topics": ["t"]}}}', "partitions.t"),
    ('{"topics": {"t": 1}, "members": {"A": {"topics": ["u"]}}}', "members.A.topics"),
    ('{"topics": {"t": 1}, "members": {"A": {"topics": ["t"]}}, "extra": 1}', "extra"),
    ('{"topics": {"t": 1}, "members": [{"topics": ["t"]}]}', "members[0].memberId"),
])
def test_bad_file_names_the_field(tmp_path, capsys, content, field):
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, out, err = run(capsys, "assign", str(path))
    assert code == 2
    assert err.startswith(f"error: {field}:")
    assert "Traceback" not in err


def test_bad_assignor_and_missing_file(tmp_path, capsys):
    code, _, err = run(capsys, "assign", str(EXAMPLES / "consumer_uneven.json"), "--assignor", "fair")
    assert (code, err.split(":")[0]) == (2, "error")
    assert "assignor" in err
    code, _, err = run(capsys, "assign", str(tmp_path / "missing.json"))
    assert code == 2 and err.startswith("error: scenario:")


def test_subprocess_exit_code_and_no_traceback(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text('{"topics": {"t": 1}, "members": {"A": {"topics": ["t"], "owned": ["t-7"]}}}')
    res = subprocess.run([sys.executable, "-m", "rebalance", "assign", str(path)], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert res.returncode == 2
    assert "members.A.ownedPartitions" in res.stderr and "Traceback" not in res.stderr


def test_compact_ranges():
    assert compact([("b", 3), ("a", 0), ("b", 1), ("b", 2), ("b", 7)]) == "a[0] b[1-3,7]"
    assert compact([]) == "-"


def test_partition_racks_in_the_book_shape(tmp_path, capsys):
    scenario = {"topics": {"t": 3}, "partition_racks": {"t": [["a"], ["b"], ["c"]]},
                "members": {"c0": {"topics": ["t"], "rack": "c"}, "c1": {"topics": ["t"], "rack": "b"},
                            "c2": {"topics": ["t"], "rack": "a"}}}
    path = tmp_path / "racks.json"
    path.write_text(json.dumps(scenario))
    code, out, _ = run(capsys, "assign", str(path), "--json")
    assert code == 0
    assert json.loads(out)["assignment"] == {"c0": ["t-2"], "c1": ["t-1"], "c2": ["t-0"]}
    path.write_text(json.dumps(dict(scenario, partition_racks={"t": "abc"})))
    code, _, err = run(capsys, "assign", str(path))
    assert code == 2 and err.startswith("error: partition_racks.t:")


@pytest.mark.parametrize("assignor", ["range", "roundrobin", "sticky", "cooperative-sticky"])
def test_an_empty_group_is_one_named_error_for_every_assignor(tmp_path, capsys, assignor):
    path = tmp_path / "empty.json"
    path.write_text('{"topics": {"t": 1}, "members": {}}')
    code, out, err = run(capsys, "assign", str(path), "--assignor", assignor)
    assert code == 2 and out == ""
    assert err.startswith("error: members: a group needs at least one member")


def test_kafka_exception_is_reported_not_raised(tmp_path, capsys, monkeypatch):
    from rebalance.consumer import cli
    from rebalance.errors import KafkaError

    def throws(scenario):
        raise KafkaError("IllegalStateException", "thrown by the assignor")

    monkeypatch.setattr(cli, "run_assignor", throws)
    code, out, err = run(capsys, "assign", str(EXAMPLES / "consumer_uneven.json"))
    assert code == 1 and out == ""
    assert "IllegalStateException" in err


# -- which assignor runs: the flag, else the file's "assignor", else range (issue 12, item 3) ---------

SCENARIO = {"assignor": "roundrobin", "topics": {"t": 3}, "members": {"A": {"topics": ["t"]}, "B": {"topics": ["t"]}}}


def test_the_files_assignor_is_used_without_the_flag(tmp_path, capsys):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCENARIO))
    code, out, err = run(capsys, "assign", str(path), "--json")
    assert code == 0 and err == ""
    assert json.loads(out) == {"assignor": "roundrobin", "assignment": {"A": ["t-0", "t-2"], "B": ["t-1"]}}


def test_without_flag_or_field_range_runs(tmp_path, capsys):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({k: v for k, v in SCENARIO.items() if k != "assignor"}))
    code, out, _ = run(capsys, "assign", str(path), "--json")
    assert code == 0 and json.loads(out)["assignor"] == "range"


def test_the_flag_overrides_a_different_file_value_with_a_note(tmp_path, capsys):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(SCENARIO))
    code, out, err = run(capsys, "assign", str(path), "--assignor", "range", "--json")
    assert code == 0 and json.loads(out)["assignment"] == {"A": ["t-0", "t-1"], "B": ["t-2"]}
    assert err.strip() == 'note: --assignor range overrides the file\'s "assignor": "roundrobin"'
    code, _, err = run(capsys, "assign", str(path), "--assignor", "RoundRobinAssignor")  # same assignor: no note
    assert code == 0 and err == ""


def test_the_vectors_shape_uses_its_assignor_too(tmp_path, capsys):
    line = {"kind": "consumer", "assignor": "roundrobin", "topics": {"t": 3},
            "members": [{"memberId": "A", "topics": ["t"]}, {"memberId": "B", "topics": ["t"]}]}
    path = tmp_path / "v.json"
    path.write_text(json.dumps({"id": "x", "input": line, "output": {}}))
    code, out, _ = run(capsys, "assign", str(path), "--json")
    assert code == 0 and json.loads(out)["assignment"] == {"A": ["t-0", "t-2"], "B": ["t-1"]}


@pytest.mark.parametrize("file_value,flag,field", [("fair", None, "assignor"), ("range", "fair", "--assignor"),
                                                     (3, None, "assignor")])
def test_a_bad_assignor_names_where_it_came_from(tmp_path, capsys, file_value, flag, field):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(dict(SCENARIO, assignor=file_value)))
    code, _, err = run(capsys, "assign", str(path), *(["--assignor", flag] if flag else []))
    assert code == 2 and err.startswith(f"error: {field}:")
