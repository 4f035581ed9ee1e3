"""The floor/ceil arithmetic of load-balancing revocations, worker by worker.

Two generations of Kafka code are modelled, both from ``IncrementalCooperativeAssignor``:

* :func:`revocation_plan` -- ``loadBalancingRevocations`` (Kafka 3.4+, KAFKA-12495; the code at the
  vectors' commit).  With ``total`` items over ``n`` workers, every worker should hold
  ``floor = total // n`` and exactly ``total % n`` of them ``floor + 1``.  If the current counts already
  fit, nothing moves.  Otherwise the workers are visited in the leader's member-map order: a worker above
  the floor takes one of the remaining "+1" slots (and keeps ``floor + 1``), the rest are cut to
  ``floor``.  It runs whenever the allocation is unbalanced, not only when a worker joins.
* :func:`legacy_revocation_plan` -- ``performTaskRevocation`` (Kafka 2.3 to 3.3): only when there are
  both new (empty) and existing workers, each existing worker gives up ``size - ceil`` items, where
  ``ceil = floor + (1 if total % n else 0)``, but never goes below ``floor``.

Both return one row per worker so that a reader can follow the arithmetic.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union, cast

from ..validation import require

Counts = Union[Mapping[str, int], Sequence[Tuple[str, int]]]


def _pairs(counts: Counts) -> List[Tuple[str, int]]:
    pairs = list(counts.items()) if isinstance(counts, Mapping) else [cast(Tuple[str, int], tuple(p)) for p in counts]
    require(len(pairs) > 0, "counts", "needs at least one worker")
    for w, c in pairs:
        require(isinstance(c, int) and not isinstance(c, bool) and c >= 0, f"counts.{w}",
                f"must be a whole number >= 0, got {c!r}")
    return pairs


def revocation_plan(counts: Counts, total: Optional[int] = None) -> List[Dict[str, Any]]:
    """Kafka 3.4+: rows ``{worker, current, floor, ceil, keeps, revoke}`` in visiting order.

    ``counts`` maps each worker (in the leader's member-map order) to how many connectors -- or tasks --
    it will keep running after deletions and duplicates are removed; ``total`` is the configured number
    (default: the sum of ``counts``).
    """
    pairs = _pairs(counts)
    if total is None:
        total = sum(c for _, c in pairs)
    require(isinstance(total, int) and total >= 0, "total", f"must be a whole number >= 0, got {total!r}")
    n = len(pairs)
    floor, extra = divmod(total, n)
    at_floor = sum(1 for _, c in pairs if c == floor)
    at_extra = sum(1 for _, c in pairs if c == floor + 1)
    balanced = at_extra == extra and at_floor + at_extra == n
    rows = []
    extras_given = 0
    for w, c in pairs:
        target = c
        if not balanced and c > floor:
            if extras_given < extra:
                extras_given += 1
                target = floor + 1
            else:
                target = floor
        rows.append({"worker": w, "current": c, "floor": floor, "ceil": floor + (1 if extra else 0),
                     "keeps": target, "revoke": c - target})
    return rows


def legacy_revocation_plan(counts: Counts, total: Optional[int] = None) -> List[Dict[str, Any]]:
    """Kafka 2.3-3.3 ``performTaskRevocation``: rows ``{worker, current, floor, ceil, keeps, revoke}``."""
    pairs = _pairs(counts)
    if total is None:
        total = sum(c for _, c in pairs)
    n = len(pairs)
    floor = total // n
    ceil = floor + (0 if total % n == 0 else 1)
    existing = [w for w, c in pairs if c > 0]
    new_workers = n - len(existing)
    rows = []
    for w, c in pairs:
        revoke = 0
        if new_workers > 0 and existing and c > 0:
            # for (i = size; i > floor && numToRevoke > 0; --i, --numToRevoke)
            revoke = max(0, min(c - ceil, c - floor))
        rows.append({"worker": w, "current": c, "floor": floor, "ceil": ceil, "keeps": c - revoke, "revoke": revoke})
    return rows


__all__ = ["legacy_revocation_plan", "revocation_plan"]
