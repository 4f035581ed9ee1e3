"""What changed in Kafka 4: every committed vector input answered by two releases' own classes.

The book pins :data:`~rebalance.versions.KAFKA_VERSION`.  Readers still run 3.9 brokers and clients, and the
vectors were first recorded before 4.0, so the book shows where the pinned release answers differently from
the last 3.x release (:data:`OLD_RELEASE`): :func:`compare_releases` runs every input of ``kafka-vectors/``
through both releases' jars (one JVM each) and counts, per vectors file, the lines both answer alike, the
lines they answer differently (with the output fields that differ) and the lines the older release cannot
run (a class or API it lacks).  ``make vectors`` writes the table to ``kafka-vectors/releases.json`` and
``make vectors-check`` recomputes it and fails if it changed; chapters read it with :func:`load`.
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional

from ..common import JsonRecord
from ..versions import KAFKA_3_RELEASE, KAFKA_VERSION

#: the last 3.x release, the one the 4.x answers are set against
OLD_RELEASE = KAFKA_3_RELEASE
TABLE = "releases.json"


@dataclass
class ReleaseDifference:
    """One vectors file's inputs answered by ``old`` and ``new``."""

    file: str
    kind: str
    lines: int
    same: int = 0
    different: int = 0
    only_new: int = 0    #: lines the old release cannot run (a class or method it lacks)
    only_old: int = 0    #: lines the new release cannot run (AdminUtils: removed after 4.0)
    neither: int = 0     #: lines neither release can run (bad input kept as a test of the error path)
    fields: List[str] = field(default_factory=list)  #: output fields that differ, list indices as [*]
    examples: List[str] = field(default_factory=list)  #: ids of up to three differing lines
    #: KIP-848 ``group`` and KIP-932 ``share`` lines: differing lines counted by the builder of their first
    #: differing step
    builders: Dict[str, int] = field(default_factory=dict)


def _field(path: str) -> str:
    return re.sub(r"\[\d+\]", "[*]", path)


#: output fields whose keys and items are data (members, workers, topics, partitions): a difference inside one
#: is named by the field itself
_DATA_FIELDS = {"assignment", "sortedAssignment", "partitionsTransferringOwnership", "input", "partition_counts",
                "workers", "running_after", "worker_loads", "outputs", "partitions"}


def _generalize(paths: Iterable[str]) -> List[str]:
    """The output fields where ``paths`` lie: list indices written ``[*]``, paths cut at a data field."""
    out = set()
    for path in paths:
        kept = []
        for segment in _field(path).split("."):
            kept.append(segment)
            if segment.split("[")[0] in _DATA_FIELDS:
                break
        out.add(".".join(kept))
    return sorted(out)


def _first_differing_builder(old: JsonRecord, new: JsonRecord) -> Optional[str]:
    """A KIP-848 ``group`` or KIP-932 ``share`` line: the builder that ran at the first step whose outputs differ
    (the new release's name for it)."""
    for a, b in zip(old.get("steps", []), new.get("steps", [])):
        if a != b:
            builder = b.get("builder") or a.get("builder")
            return builder if isinstance(builder, str) else None
    return None


def compare_releases(paths: Iterable[Path], old: str = OLD_RELEASE, new: str = KAFKA_VERSION) -> List[JsonRecord]:
    """The table of :mod:`rebalance.kafka.releases` for the vectors files ``paths``."""
    from .oracle import answer_files, differences

    rows = []
    paths = sorted(map(Path, paths))
    for (path, lines, old_answers), (_, _, new_answers) in zip(answer_files(paths, old), answer_files(paths, new)):
        inputs = [line.get("input") for line in lines]
        kind = next((i["kind"] for i in inputs if isinstance(i, dict) and isinstance(i.get("kind"), str)), "")
        row = ReleaseDifference(path.name, kind, len(lines))
        fields: List[str] = []
        for line, a, b in zip(lines, old_answers, new_answers):
            if a.fault is not None and b.fault is not None:
                row.neither += 1
            elif a.fault is not None:
                row.only_new += 1
            elif b.fault is not None:
                row.only_old += 1
            elif a.output == b.output:
                row.same += 1
            else:
                row.different += 1
                fields.extend(path for path, _, _ in differences(a.output, b.output))
                if kind in ("group", "share"):
                    builder = _first_differing_builder(a.output or {}, b.output or {}) or "none"
                    row.builders[builder] = row.builders.get(builder, 0) + 1
                if len(row.examples) < 3:
                    given = line.get("input")
                    row.examples.append(str(line.get("id", given.get("id") if isinstance(given, dict) else None)))
        row.fields = _generalize(fields)
        rows.append(asdict(row))
    return rows


def table(vectors: Path, old: str = OLD_RELEASE, new: str = KAFKA_VERSION) -> JsonRecord:
    return {"old": old, "new": new, "files": compare_releases(sorted(vectors.glob("*.jsonl")), old, new)}


def load(vectors: Optional[Path] = None) -> JsonRecord:
    """The committed table (``kafka-vectors/releases.json``), as :func:`table` computed it."""
    from ..vectors import vectors_dir

    committed: JsonRecord = json.loads(((vectors or vectors_dir()) / TABLE).read_text(encoding="utf-8"))
    return committed


def write(vectors: Path) -> JsonRecord:
    result = table(vectors)
    (vectors / TABLE).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return result


def check(vectors: Path) -> List[str]:
    """The rows of the committed table that Kafka's jars no longer give (empty: it is current)."""
    committed = load(vectors)
    fresh = table(vectors)
    if committed == fresh:
        return []
    old_rows = {r["file"]: r for r in committed.get("files", [])}
    problems = [f"{r['file']}: committed {old_rows.get(r['file'])}, Kafka now {r}"
                for r in fresh["files"] if old_rows.get(r["file"]) != r]
    return problems or [f"releases differ: committed {committed.get('old')}/{committed.get('new')}, "
                        f"now {fresh['old']}/{fresh['new']}"]


__all__ = ["OLD_RELEASE", "ReleaseDifference", "check", "compare_releases", "load", "table", "write"]


def main(argv: Optional[List[str]] = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m rebalance.kafka.releases",
                                     description=f"where Kafka {OLD_RELEASE} answers the vectors differently from {KAFKA_VERSION}")
    parser.add_argument("command", choices=("write", "check"))
    parser.add_argument("vectors", type=Path)
    args = parser.parse_args(argv)
    if args.command == "write":
        for row in write(args.vectors)["files"]:
            print(f"{row['file']}: {row['same']} same, {row['different']} different, {row['only_new']} only on "
                  f"{KAFKA_VERSION}, {row['only_old']} only on {OLD_RELEASE}")
        return 0
    problems = check(args.vectors)
    for problem in problems:
        print(f"DIFF {problem}")
    print(f"{args.vectors / TABLE}: {'current' if not problems else 'out of date (make vectors)'}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
