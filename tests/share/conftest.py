"""Shared helpers for the share-group tests: the share conformance vectors."""
from vector_files import parametrize

SHARE_FILES = ("share_unit.jsonl", "share_simple.jsonl")


def pytest_generate_tests(metafunc):
    parametrize(metafunc, "share_vector", SHARE_FILES, lambda line: line["input"]["id"])
