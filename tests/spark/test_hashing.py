"""The vectorised String.hashCode / partitionFor against the scalar package functions and Kafka's vectors."""
import json
import os

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rebalance.errors import InputError
from rebalance.java import java_abs, string_hash
from rebalance.protocol.coordinator import partition_for
from rebalance.spark.generators import group_ids
from rebalance.spark.hashing import java_abs_array, partition_for_array, string_hash_array
from rebalance.vectors import vectors_dir as kafka_vectors_dir

VECTORS = str(kafka_vectors_dir())


def _coordinator_vectors():
    path = os.path.join(VECTORS, "coordinator_partition.jsonl")
    if not os.path.exists(path):
        pytest.skip(f"no vectors at {path}")
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def test_kafka_coordinator_vectors():
    """Every coordinator_partition vector: Java hash codes and partitions, including non-ASCII ids,
    'polygenelubricants' (hashCode Integer.MIN_VALUE) and the empty string."""
    checked = 0
    for case in _coordinator_vectors():
        ids, out = case["input"]["groupIds"], case["output"]
        if "error" in out:
            with pytest.raises(InputError):
                partition_for_array(ids, case["input"]["numPartitions"])
            continue
        assert string_hash_array(ids).tolist() == out["javaHashCodes"], case["id"]
        assert partition_for_array(ids, case["input"]["numPartitions"]).tolist() == out["partitions"], case["id"]
        checked += 1
    assert checked >= 10


def test_worked_examples():
    h = string_hash_array(["my-group", "polygenelubricants", "", "Aa", "BB"])
    assert h.dtype == np.int32
    assert h.tolist() == [-1906497762, -(2 ** 31), 0, 2112, 2112]
    assert partition_for_array(["my-group", "polygenelubricants"], 50).tolist() == [12, 0]
    assert java_abs_array(np.array([-(2 ** 31), -5, 7])).tolist() == [0, 5, 7]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=40), max_size=30), st.integers(min_value=1, max_value=500))
def test_matches_scalar_definition(texts, num_partitions):
    assert string_hash_array(texts).tolist() == [string_hash(t) for t in texts]
    assert partition_for_array(texts, num_partitions).tolist() == [partition_for(t, num_partitions) for t in texts]


def test_arrow_slices_and_long_ids():
    texts = ["x" * 300, "a", "group-" * 20, "é-grüppe", "😀", "b"] * 3
    arr = pa.array(texts).slice(2, 12)  # a non-zero Arrow offset, as in a batch slice
    assert string_hash_array(arr).tolist() == [string_hash(t) for t in texts[2:14]]
    assert string_hash_array(pa.chunked_array([texts[:5], texts[5:]])).tolist() == [string_hash(t) for t in texts]


def test_generated_group_ids_agree_with_partition_for():
    ids, _ = group_ids(3, 0, 5000)
    expected = [java_abs(string_hash(g)) % 50 for g in ids]
    assert partition_for_array(ids, 50).tolist() == expected
    assert expected == [partition_for(g) for g in ids]


def test_bad_input_names_the_field():
    with pytest.raises(InputError) as err:
        string_hash_array(["ok", 3])
    assert err.value.field == "groupIds"
    with pytest.raises(InputError) as err:
        string_hash_array(pa.array(["a", None]))
    assert err.value.field == "groupIds"
    with pytest.raises(InputError) as err:
        partition_for_array(["a"], 0)
    assert err.value.field == "numPartitions"
