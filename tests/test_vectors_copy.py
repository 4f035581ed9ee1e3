"""The Kafka conformance vectors are committed in ``kafka-vectors/``, so a fresh clone re-runs every exactness
check with nothing beside it.  When the project's shared copy is present (``../shared/kafka-vectors``), the
committed files must be byte-for-byte the same: the vectors are facts recorded from Kafka's classes, never edited.
"""
from pathlib import Path

import pytest

from rebalance.vectors import vectors_dir

REPO = Path(__file__).resolve().parents[1]
COMMITTED = REPO / "kafka-vectors"
SHARED = REPO.parent / "shared" / "kafka-vectors"
#: every vector file the conformance step and the tests replay
FILES = ("adminutils.jsonl", "adminutils_unit_tests.jsonl", "connect_eager.jsonl", "connect_incremental.jsonl",
         "connect_incremental_protocol.jsonl", "connect_unit.jsonl", "consumer_cooperative_sticky.jsonl",
         "consumer_range.jsonl", "consumer_roundrobin.jsonl", "consumer_sticky.jsonl",
         "consumer_unit_tests.jsonl", "coordinator_partition.jsonl", "group_range.jsonl", "group_uniform.jsonl",
         "group_unit.jsonl", "java_random.jsonl", "striped.jsonl", "striped_unit_tests.jsonl")


def test_the_vectors_are_in_the_repository():
    missing = [name for name in FILES + ("README.md",) if not (COMMITTED / name).is_file()]
    assert not missing, f"kafka-vectors/ lacks {missing}"
    assert sorted(p.name for p in COMMITTED.glob("*.jsonl")) == sorted(FILES)


def test_the_package_finds_the_committed_vectors(monkeypatch):
    monkeypatch.delenv("REBALANCE_VECTORS", raising=False)
    assert vectors_dir() == COMMITTED


@pytest.mark.skipif(not SHARED.is_dir(), reason="no shared copy of the vectors beside the repository")
@pytest.mark.parametrize("name", FILES + ("README.md",))
def test_the_committed_vectors_equal_the_shared_copy(name):
    assert (COMMITTED / name).read_bytes() == (SHARED / name).read_bytes(), f"kafka-vectors/{name} differs from {SHARED / name}"
