"""One scenario, the book's simulator and a real broker side by side (the chapters' "check on the real cluster").

:func:`side_by_side` runs a ``simulate`` scenario twice: through the simulator
(:func:`rebalance.simulate.simulate_scenario`, virtual clock) and through real Java consumers on a one-broker
cluster (:func:`rebalance.kafka.consumers.run_scenario`, wall clock).  It lines up the completed rebalances by
generation and keeps only what does not depend on the wall clock: which generations there were, each one's
assignment, whether the book's assignor replays the real leader's assignment (``replayed``), and the counts of
the summary lines that both define the same way (``rebalances``, ``moved_partitions``).  The real ``at_ms``
values vary from run to run with the machine's load, so they are returned apart (``at_ms``), for a caller that
wants to state a bound rather than a value.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..common import JsonRecord

__all__ = ["side_by_side", "assignment_text"]


def assignment_text(assignment: Mapping[str, Sequence[str]]) -> str:
    """``{"c1": ["t-0", "t-1"], "c2": ["t-2"]}`` as ``"c1: t-0 t-1 | c2: t-2"`` (members in order)."""
    return " | ".join(f"{m}: {' '.join(ps)}" for m, ps in sorted(assignment.items()))


def side_by_side(scenario: Mapping[str, Any], real_rows: Optional[List[JsonRecord]] = None
                 ) -> Tuple[Any, Dict[str, Tuple[Any, Any]], Dict[int, Tuple[Optional[int], Optional[int]]]]:
    """``(table, counts, at_ms)`` for one scenario: ``table`` a pandas frame with one row per generation that
    either side completed (``generation``, ``simulator``, ``real broker``, ``same``, ``replayed``; a side that
    did not complete that generation shows ``None``), ``counts`` ``{name: (simulator, real broker)}`` for
    ``rebalances``, ``moved_partitions`` and the last ``generation``, ``at_ms`` ``{generation: (simulator,
    real)}``.  ``real_rows``: the real run's lines if already computed (else :func:`run_scenario` runs it)."""
    import pandas as pd

    from ..simulate import simulate_scenario

    if real_rows is None:
        from .consumers import run_scenario

        real_rows = run_scenario(scenario)
    sim = simulate_scenario(scenario)
    sim_by_gen = {r.generation: r for r in sim.rebalances}
    real = [r for r in real_rows if "assignment" in r]
    real_by_gen = {r["generation"]: r for r in real}
    rows = []
    for g in sorted(set(sim_by_gen) | set(real_by_gen)):
        s, k = sim_by_gen.get(g), real_by_gen.get(g)
        rows.append({"generation": g,
                     "simulator": assignment_text(s.assignment) if s else None,
                     "real broker": assignment_text(k["assignment"]) if k else None,
                     "same": bool(s and k and s.assignment == k["assignment"]),
                     "replayed": k.get("replayed") if k else None})
    real_summary: Dict[str, Any] = next((r["summary"] for r in real_rows if "summary" in r), {})
    sim_summary = sim.summary()
    counts = {name: (sim_summary.get(name), real_summary.get(name))
              for name in ("rebalances", "moved_partitions", "generation")}
    at_ms = {g: (sim_by_gen[g].at_ms if g in sim_by_gen else None,
                 real_by_gen[g]["at_ms"] if g in real_by_gen else None) for g in sorted(set(sim_by_gen) | set(real_by_gen))}
    return pd.DataFrame(rows), counts, at_ms
