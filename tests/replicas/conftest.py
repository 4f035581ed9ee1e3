"""Shared helpers for the replica placement tests: the Kafka vectors of kinds adminutils, striped and
java_random, parametrized by id."""
import json
from pathlib import Path
from rebalance.vectors import vectors_dir as kafka_vectors_dir

ROOT = Path(__file__).resolve().parents[2]
VECTORS = kafka_vectors_dir()
FILES = {
    "adminutils_vector": ("adminutils.jsonl", "adminutils_unit_tests.jsonl"),
    "striped_vector": ("striped.jsonl", "striped_unit_tests.jsonl"),
    "java_random_vector": ("java_random.jsonl",),
}


def load_vectors(*names):
    """Every line of the named vector files (an empty list when the vectors are not installed)."""
    lines = []
    for name in names:
        path = VECTORS / name
        if path.exists():
            with open(path, encoding="utf-8") as stream:
                lines.extend(json.loads(t) for t in stream if t.strip())
    return lines


def pytest_generate_tests(metafunc):
    for fixture, names in FILES.items():
        if fixture in metafunc.fixturenames:
            lines = load_vectors(*names)
            metafunc.parametrize(fixture, lines, ids=[line["id"] for line in lines])
