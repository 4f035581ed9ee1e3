"""Shared helpers for the KIP-848 tests: the group conformance vectors."""
import json
from pathlib import Path
from rebalance.vectors import vectors_dir as kafka_vectors_dir

ROOT = Path(__file__).resolve().parents[2]
VECTORS = kafka_vectors_dir()
GROUP_FILES = ("group_unit.jsonl", "group_uniform.jsonl", "group_range.jsonl")


def group_vectors():
    lines = []
    for name in GROUP_FILES:
        path = VECTORS / name
        if path.exists():
            with open(path, encoding="utf-8") as stream:
                lines.extend(json.loads(t) for t in stream if t.strip())
    return lines


def pytest_generate_tests(metafunc):
    if "group_vector" in metafunc.fixturenames:
        lines = group_vectors()
        metafunc.parametrize("group_vector", lines, ids=[line["input"]["id"] for line in lines])
