"""The Kafka conformance vectors are committed in ``kafka-vectors/``, so a fresh clone re-runs every exactness
check with nothing beside it.

Their outputs are Kafka's: ``make vectors`` recomputes them with the pinned release's own classes and
``make vectors-check`` (part of ``make test``) fails on any difference, so Kafka's jars, not a copy, are the
reference for outputs.  The scenarios themselves (every line's id and input, in order) are the ones recorded
in the project's shared copy (``../shared/kafka-vectors``) when it is present: recomputing changes answers,
never questions.
"""
import json
from pathlib import Path

import pytest

from rebalance.vectors import vectors_dir

REPO = Path(__file__).resolve().parents[1]
COMMITTED = REPO / "kafka-vectors"
SHARED = REPO.parent / "shared" / "kafka-vectors"
#: the vector files recorded at commit 1eb7644, which the shared copy holds
RECORDED = ("adminutils.jsonl", "adminutils_unit_tests.jsonl", "connect_eager.jsonl", "connect_incremental.jsonl",
            "connect_incremental_protocol.jsonl", "connect_unit.jsonl", "consumer_cooperative_sticky.jsonl",
            "consumer_range.jsonl", "consumer_roundrobin.jsonl", "consumer_sticky.jsonl",
            "consumer_unit_tests.jsonl", "coordinator_partition.jsonl", "group_range.jsonl", "group_uniform.jsonl",
            "group_unit.jsonl", "java_random.jsonl", "striped.jsonl", "striped_unit_tests.jsonl")
FILES = RECORDED
#: vector files first written by the book's own oracle and seeded generators, answered by Kafka 4.3.1 from the
#: start, after the shared copy was recorded (none there to compare)
BOOK_FILES = ("group_rules.jsonl", "share_simple.jsonl", "share_unit.jsonl", "streams_group_sticky.jsonl",
              "streams_group_unit.jsonl", "streams_high_availability.jsonl", "streams_high_availability_unit.jsonl")


def test_the_vectors_are_in_the_repository():
    missing = [name for name in FILES + BOOK_FILES + ("README.md",) if not (COMMITTED / name).is_file()]
    assert not missing, f"kafka-vectors/ lacks {missing}"
    assert sorted(p.name for p in COMMITTED.glob("*.jsonl")) == sorted(FILES + BOOK_FILES)


def test_the_package_finds_the_committed_vectors(monkeypatch):
    monkeypatch.delenv("REBALANCE_VECTORS", raising=False)
    assert vectors_dir() == COMMITTED


def _scenarios(path: Path) -> list:
    lines = [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines() if text.strip()]
    return [{k: v for k, v in line.items() if k != "output"} for line in lines]


@pytest.mark.skipif(not SHARED.is_dir(), reason="no shared copy of the vectors beside the repository")
@pytest.mark.parametrize("name", RECORDED)
def test_the_committed_scenarios_are_the_shared_copy_s(name):
    assert _scenarios(COMMITTED / name) == _scenarios(SHARED / name), f"kafka-vectors/{name}: scenarios differ from {SHARED / name}"


def _outputs_changed(name: str) -> int:
    committed = [json.loads(t) for t in (COMMITTED / name).read_text(encoding="utf-8").splitlines() if t.strip()]
    shared = [json.loads(t) for t in (SHARED / name).read_text(encoding="utf-8").splitlines() if t.strip()]
    return sum(a["output"] != b["output"] for a, b in zip(committed, shared))


@pytest.mark.skipif(not SHARED.is_dir(), reason="no shared copy of the vectors beside the repository")
def test_the_readme_counts_the_outputs_that_recomputing_changed():
    """kafka-vectors/README.md says how many outputs Kafka 4.3.1 changed, per file; those counts are computed here."""
    readme = (COMMITTED / "README.md").read_text(encoding="utf-8")
    changed = {name: _outputs_changed(name) for name in RECORDED}
    total = sum(changed.values())
    assert f"Recomputing changed {total} of the {sum(len((COMMITTED / n).read_text().splitlines()) for n in RECORDED):,} outputs" in readme
    group = changed["group_uniform.jsonl"] + changed["group_unit.jsonl"]
    assert (f"{group} `group` lines ({changed['group_uniform.jsonl']} of `group_uniform.jsonl`, "
            f"{changed['group_unit.jsonl']} of `group_unit.jsonl`)") in readme
    striped = changed["striped.jsonl"] + changed["striped_unit_tests.jsonl"]
    assert f"{striped} `striped` lines" in readme
    connect = changed["connect_incremental_protocol.jsonl"]
    assert f"{connect} `connect` lines (all of `connect_incremental_protocol.jsonl`)" in readme
    assert total == group + striped + connect
    unit_not_ok = [json.loads(t)["input"]["id"] for t in (COMMITTED / "group_unit.jsonl").read_text().splitlines()
                   if json.loads(t)["output"].get("ok") is False]
    assert len(unit_not_ok) == changed["group_unit.jsonl"]
