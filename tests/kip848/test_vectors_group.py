"""UniformAssignor and the server-side RangeAssignor against Kafka's own results (group_*.jsonl)."""
import pytest

from rebalance.errors import InputError
from rebalance.kip848 import vectors as adapter
from rebalance.vectors import compare_output, run_input

from .conftest import GROUP_FILES
from vector_files import VECTORS, load_vectors


def test_vector_matches_kafka(group_vector):
    actual = run_input(group_vector["input"])
    assert compare_output("group", group_vector["output"], actual) == []
    # the materialized inputs (carried assignments in Java iteration order) agree list by list
    for expected, mine in zip(group_vector["output"]["steps"], actual["steps"]):
        assert expected["input"] == mine["input"]


@pytest.mark.skipif(not VECTORS.is_dir(), reason="Kafka conformance vectors not found beside the repository")
def test_all_files_present():
    lines = load_vectors(*GROUP_FILES)
    assert len(lines) == 90
    builders = {s.get("builder") for line in lines for s in line["output"]["steps"]}
    assert {"UniformHomogeneousAssignmentBuilder", "UniformHeterogeneousAssignmentBuilder",
            "RangeAssignor.assignHomogeneousGroup", "RangeAssignor.assignHeterogeneousGroup"} <= builders


def _line(**kw):
    base = {"kind": "group", "assignor": "uniform", "topics": [{"name": "t", "partitions": 3}],
            "members": [{"id": "A", "subscriptions": ["t"]}]}
    base.update(kw)
    return base


def test_compare_reports_a_moved_partition():
    out = adapter.run(_line())
    other = adapter.run(_line())
    other["steps"][0]["assignment"] = {"A": {"t": [0, 1]}}
    assert adapter.compare(out, other) != []
    assert adapter.compare(out, adapter.run(_line())) == []


def test_expectations_are_checked():
    ok = adapter.run(_line(expect={"assignment": {"A": {"t": [0, 1, 2]}}, "valid_and_balanced": True}))
    assert ok["ok"] is True
    bad = adapter.run(_line(expect={"assignment": {"A": {"t": [0]}}}))
    assert bad["ok"] is False and bad["steps"][0]["expect_failures"]


@pytest.mark.parametrize("change, field", [
    ({"assignor": "sticky"}, "assignor"),
    ({"members_map": "random"}, "members_map"),
    ({"topics": [{"name": "t", "partitions": -1}]}, "topics[0].partitions"),
    ({"members": [{"id": "A", "subscriptions": "t"}]}, "members[0].subscriptions"),
    ({"members": [{"id": "A", "subscriptions": ["nope"]}]}, "members[0].subscriptions[0]"),
    ({"members": [{"id": "A", "subscriptions": ["t"]}, {"id": "A", "subscriptions": ["t"]}]}, "members[1].id"),
    ({"members": [{"id": "A", "subscriptions": ["t"], "assignment": {"t": ["0"]}}]}, "members[0].assignment.t"),
    ({"steps": []}, "steps"),
])
def test_bad_input_names_the_field(change, field):
    with pytest.raises(InputError) as err:
        adapter.run(_line(**change))
    assert err.value.field == field


def test_kafka_errors_are_step_errors_not_exceptions():
    out = adapter.run(_line(members=[{"id": "A", "subscriptions": ["AAAAAAAAAAAAAAAAAAAAAQ"]}]))
    step = out["steps"][0]
    assert step["error"].startswith("PartitionAssignorException: Members are subscribed to topic AAAAAAAAAAAAAAAAAAAAAQ")
    assert "assignment" not in step


def test_out_of_range_current_partition_fails_like_kafka():
    # homogeneous: the partition counts towards the quota and a real one is left over
    homo = adapter.run(_line(members=[{"id": "A", "subscriptions": ["t"], "assignment": {"t": [0, 1, 7]}}]))
    assert homo["steps"][0]["error"] == "PartitionAssignorException: Partitions were left unassigned"
    hetero = adapter.run(_line(topics=[{"name": "t", "partitions": 3}, {"name": "u", "partitions": 1}],
                               members=[{"id": "A", "subscriptions": ["t"], "assignment": {"t": [5]}},
                                        {"id": "B", "subscriptions": ["u"]}]))
    assert hetero["steps"][0]["error"].startswith("ArrayIndexOutOfBoundsException")


def test_a_step_switch_set_to_null_means_the_lines_value():
    """As the Java harness reads it (GroupKind.value: a JSON null is no value): a step's ``"members_map": null``
    keeps the line's ``"tree"``, and a bad line value is named at the line's field."""
    members = [{"id": m, "subscriptions": ["t"]} for m in ("C", "A", "B")]
    line = _line(members=members, members_map="tree", topics=[{"name": "t", "partitions": 7}])
    with_null = adapter.run({**line, "steps": [{"members_map": None}]})
    explicit = adapter.run({**line, "steps": [{"members_map": "tree"}]})
    assert with_null["steps"] == explicit["steps"]
    assert with_null["steps"] != adapter.run({**line, "steps": [{"members_map": "linked"}]})["steps"]
    with pytest.raises(InputError) as err:
        adapter.run({**line, "members_map": "bad", "steps": [{"members_map": None}]})
    assert err.value.field == "members_map"
