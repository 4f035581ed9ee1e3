"""Shared helpers for the consumer assignor tests: where the Kafka vectors live, and small builders."""
import json
from pathlib import Path

import pytest
from rebalance.vectors import vectors_dir as kafka_vectors_dir

ROOT = Path(__file__).resolve().parents[2]
VECTORS = kafka_vectors_dir()
CONSUMER_FILES = ("consumer_range.jsonl", "consumer_roundrobin.jsonl", "consumer_unit_tests.jsonl")


def consumer_vectors(assignors):
    """All vectors lines of kind ``consumer`` whose assignor is in ``assignors`` (empty if absent)."""
    lines = []
    for name in CONSUMER_FILES:
        path = VECTORS / name
        if not path.exists():
            continue
        with open(path, encoding="utf-8") as stream:
            for text in stream:
                if text.strip():
                    line = json.loads(text)
                    if line["input"].get("assignor") in assignors:
                        lines.append(line)
    return lines


def pytest_generate_tests(metafunc):
    """Parametrize ``basic_vector`` with every range / roundrobin vector, by id."""
    if "basic_vector" in metafunc.fixturenames:
        lines = consumer_vectors({"range", "roundrobin"})
        metafunc.parametrize("basic_vector", lines, ids=[line["id"] for line in lines])


@pytest.fixture
def vectors_dir():
    if not VECTORS.exists():
        pytest.skip(f"Kafka vectors not found at {VECTORS}")
    return VECTORS


@pytest.fixture
def basic_vector_lines(vectors_dir):
    """Every range / roundrobin vectors line."""
    return consumer_vectors({"range", "roundrobin"})
