"""Shared helpers for the replica placement tests: the Kafka vectors of kinds adminutils, striped and
java_random, parametrized by id."""
from vector_files import parametrize

FILES = {
    "adminutils_vector": ("adminutils.jsonl", "adminutils_unit_tests.jsonl"),
    "striped_vector": ("striped.jsonl", "striped_unit_tests.jsonl"),
    "java_random_vector": ("java_random.jsonl",),
}


def pytest_generate_tests(metafunc):
    for fixture, names in FILES.items():
        parametrize(metafunc, fixture, names, lambda line: line["id"])
