"""Shared helpers for the KIP-848 tests: the group conformance vectors."""
from vector_files import parametrize

GROUP_FILES = ("group_unit.jsonl", "group_uniform.jsonl", "group_range.jsonl", "group_rules.jsonl")


def pytest_generate_tests(metafunc):
    parametrize(metafunc, "group_vector", GROUP_FILES, lambda line: line["input"]["id"])
