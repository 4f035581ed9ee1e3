"""The "what changed in Kafka 4" table of the opening chapter (:mod:`rebalance.kafka.releases`).

Defined for chapter 00: every committed vector input answered by Kafka 3.9.2's and Kafka 4.3.1's own classes,
one row per vectors file.
"""
from __future__ import annotations

from typing import Optional

import pandas as pd

from ..common import JsonRecord
from ..kafka.releases import load

#: how the output fields that differ are named for a reader
_FIELD_WORDS = {"error.message": "error message", "assignment": "assignment", "ok": "unit-test expectation met",
                "stats": "partitions kept, moved and revoked"}


def _where(row: JsonRecord) -> str:
    words = []
    for path in row["fields"]:
        leaf = path.split("].", 1)[-1] if "]." in path else path.split(".", 1)[-1]
        for key, word in _FIELD_WORDS.items():
            if leaf.startswith(key) and word not in words:
                words.append(word)
    builders = "; ".join(f"{n} in {b}" for b, n in sorted(row.get("builders", {}).items()))
    return ", ".join(words) + (f" ({builders})" if builders else "")


def release_differences_table(table: Optional[JsonRecord] = None) -> pd.DataFrame:
    """One row per vectors file: its lines, how many both releases answer alike, how many differently, how many
    only one release can run, and where the answers differ (KIP-848 lines: by the builder that ran)."""
    table = table or load()
    old, new = table["old"], table["new"]
    rows = [{"vectors": r["file"].removesuffix(".jsonl"), "lines": r["lines"], "same": r["same"],
             "different": r["different"], f"only {old}": r["only_old"], f"only {new}": r["only_new"],
             "where they differ": _where(r) if r["different"] else ""} for r in table["files"]]
    return pd.DataFrame(rows).set_index("vectors")


__all__ = ["release_differences_table"]
