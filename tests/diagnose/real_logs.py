"""Real broker logs under each of 34 injected causes: the causes (``CASES``) and their table.

The machinery -- the :class:`~rebalance.diagnose.InjectedCause` scenarios, running them on one cluster
(:func:`~rebalance.diagnose.run_injected`) and checking what ``diagnose`` read (:func:`~rebalance.diagnose.check_injected`)
-- is :mod:`rebalance.diagnose.injected` (chapter 16 runs some of them); this file holds the 34 causes the test
runs.  ``python tests/diagnose/real_logs.py`` runs them all and prints the table (scenario, expected, what diagnose
said).
"""
from __future__ import annotations

import tempfile
from pathlib import Path
from typing import List

from rebalance.diagnose import InjectedCause as Case, InjectedRun as Run, check_injected as check
from rebalance.diagnose import run_injected as run_all

PROTOCOL_TAG = {"eager": "e", "cooperative": "c", "consumer": "k"}

__all__ = ["CASES", "Case", "Run", "check", "run_all", "table"]


def _cases() -> List[Case]:
    cases: List[Case] = []
    calm = {"session_timeout_ms": 10000}   # a classic static member's restart, with room for a slow JVM start
    for p in ("eager", "cooperative", "consumer"):
        allowed = ("join", "cooperative rejoin") if p == "cooperative" else ("join",)
        tag = PROTOCOL_TAG[p]
        cases += [
            Case(f"join{tag}", p, "join", ["a", "b", "c"], [(5000, "join", "c", 0)], [("join", "c")], allowed=allowed),
            Case(f"leave{tag}", p, "leave", ["a", "b", "c"], [(5000, "leave", "b", 0)], [("leave", "b")],
                 allowed=allowed),
            Case(f"crash{tag}", p, "crash past the session timeout", ["a", "b", "c"], [(5000, "crash", "b", 0)],
                 [("session timeout", "b")], until_ms=12000, allowed=allowed),
            Case(f"poll{tag}", p, "poll timeout (a batch longer than max.poll.interval.ms)", ["a"], [],
                 [("join", "a"), ("poll timeout", "a"), ("join", "a"), ("poll timeout", "a")], until_ms=13000,
                 config={"max_poll_interval_ms": 2000, "poll_processing_ms": 3500}, allowed=allowed + ("poll timeout",),
                 pattern="repeated poll timeouts"),
            Case(f"roll{tag}", p, "rolling restart of dynamic members", ["a", "b", "c"],
                 [(4000, "restart", "a", 0), (7000, "restart", "b", 0), (10000, "restart", "c", 0)],
                 [("leave", "a"), ("join", "a"), ("leave", "b"), ("join", "b"), ("leave", "c"), ("join", "c")],
                 until_ms=15000, allowed=allowed + ("leave",),
                 pattern="rolling restart" if p != "consumer" else None),
            Case(f"static{tag}", p, "static member restart within the session timeout (a replacement)", ["a", "b"],
                 [(5000, "restart", "b", 500)], [], static=["b"], until_ms=9000, allowed=allowed, static_restarts=1,
                 config=calm if p != "consumer" else {}),
            Case(f"storm{tag}", p, "join storm (one member a second)", ["a", "b", "c", "d", "e"],
                 [(1000 * i + 1000, "join", m, 0) for i, m in enumerate("bcde", 1)],
                 [("join", m) for m in "bcde"], until_ms=9000, allowed=allowed, ordered=False,
                 pattern="join storm" if p != "consumer" else None),
        ]
    for p in ("eager", "consumer"):
        tag = PROTOCOL_TAG[p]
        cases += [
            Case(f"beyond{tag}", p, "static member restart beyond the session timeout", ["a", "b"],
                 [(5000, "restart", "b", 6000)], [("session timeout", "b"), ("join", "b")], static=["b"],
                 until_ms=16000, pattern="static member restart beyond session timeout"),
            Case(f"srolling{tag}", p, "rolling restart of static members (within the session timeout)",
                 ["a", "b", "c"], [(5000, "restart", "a", 300), (7000, "restart", "b", 300), (9000, "restart", "c", 300)],
                 [], static=["a", "b", "c"], until_ms=12000, static_restarts=3, config=calm if p != "consumer" else {}),
            Case(f"leavecrash{tag}", p, "a leave and a crash at once", ["a", "b", "c", "d"],
                 [(5000, "leave", "b", 0), (5000, "crash", "c", 0)], [("leave", "b"), ("session timeout", "c")],
                 until_ms=12000),
            Case(f"crashback{tag}", p, "crash, then the same client starts again", ["a", "b"],
                 [(5000, "crash", "b", 0), (11000, "restart", "b", 0)], [("session timeout", "b"), ("join", "b")],
                 until_ms=14000, pattern="restart" if p != "consumer" else None),
        ]
    for p in ("eager", "cooperative"):   # a 4.3.1 broker logs a consumer group's subscription changes at DEBUG only
        cases.append(Case(f"sub{PROTOCOL_TAG[p]}", p, "subscription change (a member subscribes to a second topic)",
                          ["a", "b"], [(5000, "subscribe", "b", 0)], [("subscription change", "b")], until_ms=9000,
                          new_topic=True, allowed=("join", "cooperative rejoin") if p == "cooperative" else ("join",)))
    cases.append(Case("coop2c", "cooperative", "two joins at once, cooperative", ["a", "b", "c", "d"],
                      [(5000, "join", "c", 0), (5000, "join", "d", 0)], [("join", "c|d"), ("join", "c|d")],
                      allowed=("join", "cooperative rejoin")))
    cases.append(Case("revokek", "consumer", "revocation longer than the rebalance timeout (consumer protocol)",
                      ["a", "b", "c"], [(5000, "join", "c", 0)], [("join", "c"), ("rebalance timeout|poll timeout", "*")],
                      until_ms=12000, config={"max_poll_interval_ms": 2000, "revoke_ms": 3500},
                      allowed=("join", "rebalance timeout", "poll timeout", "leave")))
    cases.append(Case("revokee", "eager", "onPartitionsRevoked longer than max.poll.interval.ms (eager)",
                      ["a", "b", "c"], [(5000, "join", "c", 0)], [("join", "c"), ("rebalance timeout|poll timeout", "*")],
                      until_ms=12000, config={"max_poll_interval_ms": 2000, "revoke_ms": 3500},
                      allowed=("join", "poll timeout", "leave", "rejoin", "sync timeout")))
    return cases


CASES = _cases()


def table(run: Run, lines: List[dict]) -> str:
    """The Markdown table: scenario, cause injected, expected triggers, what diagnose said, verdict."""
    out = ["| scenario | protocol | cause injected | expected (kind, member) | diagnose said (before the end) | ok |",
           "|---|---|---|---|---|---|"]
    for case in CASES:
        problems, said = check(case, run, lines)
        expected = ", ".join(f"{k} {m}" for k, m in case.expect) or "no rebalance but the first joins"
        if case.static_restarts:
            expected += f"; {case.static_restarts} static restart(s) without rebalance"
        if case.pattern:
            expected += f"; pattern: {case.pattern}"
        got = ", ".join(f"{k} {m}" for k, m in said)
        out.append(f"| {case.id} | {case.protocol} | {case.cause} | {expected} | {got} | "
                   f"{'yes' if not problems else 'NO: ' + '; '.join(problems)} |")
    return "\n".join(out)


if __name__ == "__main__":
    from rebalance.diagnose import diagnose

    folder = Path(tempfile.mkdtemp(prefix="diagnose-real-"))
    run = run_all(CASES, folder)
    result = diagnose([str(run.log)])
    lines = list(result.lines())
    print(f"{len(CASES)} scenarios in {run.seconds:.0f} s; errors: {run.errors}; log kept in {folder}")
    print(table(run, lines))
