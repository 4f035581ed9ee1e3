"""StickyAssignor / CooperativeStickyAssignor against Kafka's own results (conformance vectors recorded with
Kafka's classes at commit 1eb7644 = 3.8/3.9 logic): every sticky and cooperative-sticky line must give the
same partition sets, path, partitions transferring ownership and maxGeneration."""
import json
from pathlib import Path

import pytest

from rebalance.consumer import vectors as sticky_vectors
from rebalance.vectors import compare_output, run_input
from rebalance.vectors import vectors_dir as kafka_vectors_dir

ROOT = Path(__file__).resolve().parents[2]
VECTORS = kafka_vectors_dir()
FILES = ("consumer_sticky.jsonl", "consumer_cooperative_sticky.jsonl", "consumer_unit_tests.jsonl")
KINDS = ("sticky", "cooperative-sticky")

#: round-2 scenarios whose list order depends on the order of the owned partitions in StickyAssignor's user
#: data: two of a member's topics share a bucket of CollectionUtils.groupPartitionsByTopic's HashMap, filled by
#: computeIfAbsent, which links a new key at the head of its bucket (the port followed put's tail order before)
BUCKET_TIES = {"sticky-0000-r2", "sticky-0008-r2", "sticky-0010-r2", "sticky-0042-r2", "sticky-0056-r2"}


def _lines():
    lines = []
    for name in FILES:
        path = VECTORS / name
        if not path.exists():
            continue
        with open(path, encoding="utf-8") as stream:
            for text in stream:
                if text.strip():
                    line = json.loads(text)
                    if line["input"].get("assignor") in KINDS:
                        lines.append(line)
    return lines


LINES = _lines()


@pytest.mark.skipif(not LINES, reason="Kafka vectors not found")
def test_all_sticky_vectors_are_present():
    assert len(LINES) == 717
    assert {line["input"]["assignor"] for line in LINES} == set(KINDS)


@pytest.mark.parametrize("line", LINES, ids=[line["id"] for line in LINES])
def test_vector(line):
    actual = sticky_vectors.run(line["input"])
    assert sticky_vectors.compare(line["output"], actual) == []
    # the shared runner (rebalance.consumer.vectors delegates here) agrees
    assert compare_output("consumer", line["output"], run_input(line["input"])) == []
    assert actual["assignment"] == line["output"]["assignment"]


@pytest.mark.skipif(not LINES, reason="Kafka vectors not found")
def test_bucket_ties_decide_the_order_of_the_lists(monkeypatch):
    """The five lines' lists follow the owned partitions in groupPartitionsByTopic's order: with put's order
    (a new key at the tail of its bucket) the same partitions come in another order, which compare reports."""
    from rebalance.consumer import sticky_userdata
    from rebalance.java import hashmap_order

    lines = [line for line in LINES if line["id"] in BUCKET_TIES]
    assert len(lines) == len(BUCKET_TIES)
    sticky_userdata._topic_map.cache_clear()
    monkeypatch.setattr(sticky_userdata, "compute_if_absent_order", hashmap_order)
    try:
        for line in lines:
            problems = sticky_vectors.compare(line["output"], sticky_vectors.run(line["input"]))
            assert problems and all("another order" in p for p in problems if p != "..."), line["id"]
    finally:
        sticky_userdata._topic_map.cache_clear()
