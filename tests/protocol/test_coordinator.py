"""Coordinator lookup: Kafka's vectors, the examples of the article on the Kafka 0.9 coordinator, and bad input."""
import json

import pytest
from hypothesis import given, strategies as st

from rebalance.errors import InputError, KafkaError
from rebalance.protocol.coordinator import find_coordinator, partition_for, simple_leaders, coordinator_table
from rebalance.protocol import vectors as adapter
from rebalance.vectors import run_input, compare_output
from rebalance.vectors import vectors_dir as kafka_vectors_dir

VECTORS = kafka_vectors_dir() / "coordinator_partition.jsonl"


def _lines():
    if not VECTORS.exists():
        return []
    return [json.loads(l) for l in VECTORS.read_text(encoding="utf-8").splitlines() if l.strip()]


@pytest.mark.skipif(not VECTORS.exists(), reason="shared vectors not present")
@pytest.mark.parametrize("line", _lines(), ids=lambda l: l["id"])
def test_kafka_vectors(line):
    assert compare_output("coordinator_partition", line["output"], run_input(line["input"])) == []


def test_known_values():
    # Utils.abs(Integer.MIN_VALUE) == 0: these three strings all hash to -2^31
    for g in ("polygenelubricants", "GydZG_", "DESIGNING WORKHOUSES"):
        assert partition_for(g) == 0
    assert partition_for("my-group") == 12
    assert partition_for("") == 0
    # "Aa" and "BB" collide in String.hashCode, so they share a coordinator
    assert partition_for("Aa") == partition_for("BB") == 2112 % 50
    # astral characters count as two UTF-16 units
    assert adapter.run({"numPartitions": 50, "groupIds": ["😀"]})["javaHashCodes"] == [1772899]


def test_find_coordinator_and_failover():
    leaders = simple_leaders(50, [1, 2, 3])
    res = find_coordinator("my-group", leaders)
    assert res == {"groupId": "my-group", "partition": 12, "coordinator": leaders[12]}
    assert leaders[12] == 1  # 12 % 3 == 0 -> first broker
    moved = {**leaders, 12: 3}
    assert find_coordinator("my-group", moved)["coordinator"] == 3
    gone = {**leaders, 12: None}
    assert find_coordinator("my-group", gone)["error"] == "COORDINATOR_NOT_AVAILABLE"
    rows = coordinator_table(["my-group"], 50, [1, 2, 3])
    assert rows[0]["partition"] == 12 and rows[0]["hashCode"] == -1906497762


@given(st.text(max_size=40), st.integers(min_value=1, max_value=5000))
def test_partition_in_range(group_id, n):
    p = partition_for(group_id, n)
    assert 0 <= p < n
    # the same group always lands on the same partition, and a 1-partition topic holds every group
    assert partition_for(group_id, 1) == 0


@pytest.mark.parametrize("bad, field", [
    ({"numPartitions": "50", "groupIds": ["a"]}, "numPartitions"),
    ({"numPartitions": 50, "groupIds": "a"}, "groupIds"),
    ({"numPartitions": 50, "groupIds": ["a", 3]}, "groupIds[1]"),
    ({"numPartitions": 2**31, "groupIds": ["a"]}, "numPartitions"),
])
def test_bad_input_names_field(bad, field):
    with pytest.raises(InputError) as exc:
        adapter.run(bad)
    assert exc.value.field == field


def test_zero_partitions_is_kafka_config_error():
    out = run_input({"kind": "coordinator_partition", "numPartitions": 0, "groupIds": ["a"]})
    assert out["error"]["type"].endswith("ConfigException")
    with pytest.raises(KafkaError):
        partition_for("a", 0)
    with pytest.raises(InputError):
        partition_for(None)
