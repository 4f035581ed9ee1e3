"""The vector counts the replica placement chapter quotes (``VECTOR_CASES``) are the files' counts."""
import pytest

from rebalance.replicas.vectors import VECTOR_CASES, VECTOR_FILES

from .conftest import FILES
from vector_files import VECTORS, load_vectors


def test_the_conftest_parametrizes_the_same_files():
    assert {names for names in FILES.values()} == set(VECTOR_FILES.values())


@pytest.mark.parametrize("kind", sorted(VECTOR_CASES))
def test_vector_cases_match_the_files(kind):
    if not all((VECTORS / name).exists() for name in VECTOR_FILES[kind]):
        pytest.skip("vectors not installed")
    lines = load_vectors(*VECTOR_FILES[kind])
    assert {line["input"]["kind"] for line in lines} == {kind}
    assert len(lines) == VECTOR_CASES[kind]
