"""Shared helpers for the Kafka Streams tests: the ``streams`` conformance vectors."""
from rebalance.streams.client.vectors import STREAMS_FILES
from vector_files import parametrize


def pytest_generate_tests(metafunc):
    parametrize(metafunc, "streams_vector", STREAMS_FILES, lambda line: line["id"])
