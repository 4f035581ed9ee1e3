"""Shared helpers for the share-group tests: the share conformance vectors."""
import json

from rebalance.vectors import vectors_dir

VECTORS = vectors_dir()
SHARE_FILES = ("share_unit.jsonl", "share_simple.jsonl")


def share_vectors(names=SHARE_FILES):
    lines = []
    for name in names:
        path = VECTORS / name
        if path.exists():
            with open(path, encoding="utf-8") as stream:
                lines.extend(json.loads(t) for t in stream if t.strip())
    return lines


def pytest_generate_tests(metafunc):
    if "share_vector" in metafunc.fixturenames:
        lines = share_vectors()
        metafunc.parametrize("share_vector", lines, ids=[line["input"]["id"] for line in lines])
