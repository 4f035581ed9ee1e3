"""SimpleAssignor against Kafka 4.3.1's own results (share_unit.jsonl, share_simple.jsonl), and the adapter's input
checks."""
import json

import pytest

from rebalance.errors import InputError
from rebalance.share import vectors as adapter
from rebalance.share.scenarios import write_files
from rebalance.vectors import compare_output, run_input

from vector_files import VECTORS, load_vectors, oracle_or_skip


def test_vector_matches_kafka(share_vector):
    actual = run_input(share_vector["input"])
    assert compare_output("share", share_vector["output"], actual) == []


@pytest.mark.skipif(not VECTORS.is_dir(), reason="Kafka conformance vectors not found beside the repository")
def test_files_cover_what_the_brief_asks():
    unit = load_vectors("share_unit.jsonl")
    simple = load_vectors("share_simple.jsonl")
    assert len(unit) == 15 and len(simple) >= 100
    # every assertion of SimpleAssignorTest holds in Kafka's own answer
    assert all(line["output"]["ok"] for line in unit)
    steps = [s for line in simple for s in line["output"]["steps"]]
    assert {"SimpleHomogeneousAssignmentBuilder", "SimpleHeterogeneousAssignmentBuilder"} <= {s.get("builder") for s in steps}
    errors = {s["error"].split(":")[0] for s in steps if "error" in s}
    assert {"PartitionAssignorException", "NoSuchElementException"} <= errors
    assert any(s.get("stats", {}).get("max_sharing", 0) > 1 for s in steps)  # more members than partitions
    assert any(s.get("stats", {}).get("kept", 0) > 0 for s in steps)  # current assignments used
    assert any("assignable" in line["input"] for line in simple)


@pytest.mark.skipif(not VECTORS.is_dir(), reason="Kafka conformance vectors not found beside the repository")
def test_committed_inputs_are_the_generators(tmp_path):
    for path in write_files(tmp_path):
        generated = [json.loads(t)["input"] for t in path.read_text(encoding="utf-8").splitlines()]
        committed = [line["input"] for line in load_vectors(path.name)]
        assert generated == committed, path.name


def _line(**kw):
    base = {"kind": "share", "topics": [{"name": "t", "partitions": 3}],
            "members": [{"id": "A", "subscriptions": ["t"]}, {"id": "B", "subscriptions": ["t"]}]}
    base.update(kw)
    return base


def test_expectations_are_checked():
    ok = adapter.run(_line(expect={"partitions_assigned": 3}))
    assert ok["ok"] is True and "expect_failures" not in ok["steps"][0]
    bad = adapter.run(_line(expect={"partitions_assigned": 2}))
    assert bad["ok"] is False and bad["steps"][0]["expect_failures"] == ["expected 2 partitions assigned, got 3"]
    wrong = adapter.run(_line(expect={"assignment": {"A": {"t": [0, 1, 2]}}}))
    assert wrong["ok"] is False


def test_assignable_restricts_the_targets_and_a_null_step_value_is_the_lines():
    out = adapter.run(_line(assignable={"t": [1]}, steps=[{}, {"assignable": None}, {"assignable": {}}]))
    assigned = [s["stats"]["partitions_assigned"] for s in out["steps"]]
    assert assigned == [1, 1, 0]
    assert out["steps"][0]["assignment"] == {"A": {"t": [1]}, "B": {"t": [1]}}  # two members share partition 1


BAD_INPUTS = [
    ({"assignor": "uniform"}, "assignor"),
    ({"assignable": [1]}, "assignable"),
    ({"assignable": {"t": [0, "1"]}}, "assignable.t"),
    ({"assignable": {"nope": [0]}}, "assignable.nope"),
    ({"expect": {"balanced": True}}, "expect.balanced"),
    ({"expect": {"partitions_assigned": -1}}, "expect.partitions_assigned"),
    ({"members_map": "random"}, "members_map"),
    ({"topics": [{"name": "t", "partitions": -1}]}, "topics[0].partitions"),
    ({"members": [{"id": "A", "subscriptions": ["nope"]}]}, "members[0].subscriptions[0]"),
    ({"members": [{"id": "A", "subscriptions": ["t"], "assignment": {"t": ["0"]}}]}, "members[0].assignment.t"),
    ({"steps": []}, "steps"),
    ({"steps": [{}, {"assignable": {"t": "0"}}]}, "steps[1].assignable.t"),
    ({"steps": [{}, {"members": [{"id": "A", "subscriptions": ["x"]}]}]}, "steps[1].members[0].subscriptions[0]"),
    # the line's member list, in force at every step that gives none, is named where it is
    ({"steps": [{}, {}], "members": [{"id": "A", "subscriptions": ["x"]}]}, "members[0].subscriptions[0]"),
]


@pytest.mark.parametrize("change, field", BAD_INPUTS)
def test_bad_input_names_the_field(change, field):
    with pytest.raises(InputError) as info:
        adapter.run(_line(**change))
    assert info.value.field == field


@pytest.mark.kafka
def test_kafkas_harness_names_the_same_fields():
    with oracle_or_skip() as kafka:
        answers = list(kafka.answers([_line(**change) for change, _ in BAD_INPUTS]))
    assert [(a.fault or {}).get("field") for a in answers] == [field for _, field in BAD_INPUTS]
