"""Range and RoundRobin against Kafka's own results (conformance vectors, Kafka 3.8/3.9 logic).

The sticky kinds are tested by the sticky assignors' own tests; here only the adapter's handling of them
(``compare`` with the sticky fields) is checked.
"""
import pytest

from rebalance.consumer import vectors as adapter
from rebalance.vectors import compare_output, run_input


def test_vector_matches_kafka(basic_vector):
    actual = run_input(basic_vector["input"])
    assert compare_output("consumer", basic_vector["output"], actual) == []
    # the lists are in exactly the order Kafka's List<TopicPartition> had, not only the same members
    assert adapter.exact_order_matches(basic_vector["output"], actual)


def test_vectors_present_and_counted(basic_vector_lines):
    lines = basic_vector_lines
    assert len(lines) >= 200  # 66 + 66 random/handpicked + the unit-test lines
    assert {line["input"]["assignor"] for line in lines} == {"range", "roundrobin"}


def test_sorted_assignment_uses_java_string_order():
    # "B" < "a" in String.compareTo; partitions compare as numbers, so t-10 comes after t-9
    data = {"kind": "consumer", "assignor": "range", "topics": {"a": 1, "B": 1, "t": 11},
            "members": [{"memberId": "m", "topics": ["t", "a", "B"]}]}
    out = adapter.run(data)
    assert out["sortedAssignment"]["m"] == ["B-0", "a-0"] + [f"t-{i}" for i in range(11)]
    assert sorted(out["assignment"]["m"]) == sorted(out["sortedAssignment"]["m"])


def test_compare_checks_list_order_and_membership():
    expected = {"assignment": {"A": ["t-1", "t-0"]}, "sortedAssignment": {"A": ["t-0", "t-1"]}}
    reordered = {"assignment": {"A": ["t-0", "t-1"]}, "sortedAssignment": {"A": ["t-0", "t-1"]}}
    moved = {"assignment": {"A": ["t-0"], "B": ["t-1"]}, "sortedAssignment": {"A": ["t-0"], "B": ["t-1"]}}
    assert adapter.compare(expected, dict(expected)) == []
    assert not adapter.exact_order_matches(expected, reordered)
    # Kafka's List<TopicPartition> order is part of its answer: the same partitions in another order fail
    problems = adapter.compare(expected, reordered)
    assert problems == ["member A: Kafka's partitions in another order (first at position 0: expected t-1, got t-0)"]
    problems = adapter.compare(expected, moved)
    assert problems and "A" in problems[0]


def test_compare_checks_sticky_fields():
    base = {"assignment": {"A": ["t-0"]}, "sortedAssignment": {"A": ["t-0"]}, "stickyPath": "general",
            "partitionsTransferringOwnership": None, "maxGeneration": 3}
    assert adapter.compare(base, dict(base)) == []
    for key, value in (("stickyPath", "constrained"), ("partitionsTransferringOwnership", {"t-0": "A"}),
                       ("maxGeneration", 2)):
        other = dict(base, **{key: value})
        assert any(key in p for p in adapter.compare(base, other))


def test_sticky_lines_report_the_sticky_fields():
    """The one adapter gives a sticky line its path, transfers and maxGeneration; a Range line has none."""
    data = {"kind": "consumer", "assignor": "sticky", "topics": {"t": 2},
            "members": [{"memberId": "A", "topics": ["t"]}]}
    out = adapter.run(data)
    assert out["sortedAssignment"] == {"A": ["t-0", "t-1"]}
    assert out["stickyPath"] == "constrained" and "partitionsTransferringOwnership" in out and "maxGeneration" in out
    assert "stickyPath" not in adapter.run(dict(data, assignor="range"))


@pytest.mark.parametrize("data,field", [
    ({"kind": "consumer", "assignor": "range", "topics": {"t": 1}, "members": [{"topics": ["t"]}]},
     "members[0].memberId"),
    ({"kind": "consumer", "assignor": "fair", "topics": {"t": 1}, "members": []}, "assignor"),
    ({"kind": "consumer", "assignor": "range", "topics": {"t": -1}, "members": []}, "topics.t"),
    ({"kind": "consumer", "assignor": "range", "topics": {"t": 1},
      "members": [{"memberId": "A", "topics": ["t"], "ownedPartitions": ["t-x"]}]}, "members[0].ownedPartitions[0]"),
    ({"kind": "consumer", "assignor": "range", "topics": {"t": 1}, "subscriptionMapType": "java.util.TreeMap",
      "members": [{"memberId": "A", "topics": ["t"]}]}, "subscriptionMapType"),
])
def test_adapter_bad_input_names_the_field(data, field):
    from rebalance.errors import InputError

    with pytest.raises(InputError) as info:
        adapter.run(data)
    assert info.value.field == field


def test_singleton_map_subscriptions_replay_in_input_order():
    data = {"kind": "consumer", "assignor": "range", "entry": "assignPartitions",
            "subscriptionMapType": "java.util.Collections$SingletonMap", "topics": {"t": 2},
            "members": [{"memberId": "only", "topics": ["t"]}]}
    assert adapter.run(data)["assignment"] == {"only": ["t-0", "t-1"]}


def test_exact_order_counts(vectors_dir):
    counts = adapter.exact_order_counts(str(vectors_dir / "consumer_roundrobin.jsonl"))
    assert counts["roundrobin cases"] == counts["roundrobin passed"] == counts["roundrobin exact order"] >= 60
