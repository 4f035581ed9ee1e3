"""Shared helpers for the Kafka Streams tests: the ``streams`` conformance vectors."""
import json

from rebalance.streams.client_vectors import STREAMS_FILES
from rebalance.vectors import vectors_dir

VECTORS = vectors_dir()


def streams_vectors(name=None):
    lines = []
    for file_name in STREAMS_FILES if name is None else (name,):
        path = VECTORS / file_name
        if path.exists():
            with open(path, encoding="utf-8") as stream:
                lines.extend(json.loads(t) for t in stream if t.strip())
    return lines


def pytest_generate_tests(metafunc):
    if "streams_vector" in metafunc.fixturenames:
        lines = streams_vectors()
        metafunc.parametrize("streams_vector", lines, ids=[line["id"] for line in lines])
