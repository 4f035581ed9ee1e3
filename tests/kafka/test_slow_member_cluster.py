"""One slow member on a real broker: the eager barrier holds every member while the slow one finishes its batch.

The eager scenario of ``examples/slow_member.jsonl`` (``rebalance.kip848.slow_member_scenarios``), shortened to
15 s after the join, played by Kafka's own consumers on a one-broker cluster of the pinned release (about a minute):
``slow`` sleeps 8 s after each ``poll()`` against a ``max.poll.interval.ms`` of 10 s, and ``new`` joins at 30 s; the
run goes on 25 s after the join (the rebalance may take up to the 10 s rebalance timeout plus a heartbeat interval, and a
stop the run's end cuts off is not counted: 15 s once left CI's loaded machine a member short).
The join takes one rebalance, as in the simulator; every member that held partitions stops processing (from its
``onPartitionsRevoked`` to its ``onPartitionsAssigned``), the new member gets its share, and every assignment the
leader made is the book's Range assignor's on the same inputs.  Chapter 7 runs all three protocols.
"""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from .built import needs_class
from .processes import our_processes_mentioning

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.kafka, needs_class("consumers/ScenarioMembers")]


def test_the_eager_barrier_holds_every_member_behind_the_slow_one():
    from rebalance.kafka import run_scenario
    from rebalance.kip848 import slow_member_scenarios
    from rebalance.simulate import simulate_scenario

    eager = next(s for s in slow_member_scenarios(run_ms=25_000) if s["protocol"] == "eager")
    try:
        lines = run_scenario(eager)
    finally:
        deadline = time.monotonic() + 10
        while our_processes_mentioning(str(REPO / "java"), "ScenarioMembers", "kafka.Kafka") and \
                time.monotonic() < deadline:
            time.sleep(0.2)
    assert our_processes_mentioning(str(REPO / "java"), "ScenarioMembers", "kafka.Kafka") == []
    real = lines[-1]["summary"]
    predicted = simulate_scenario(eager).summary()
    assert real["errors"] == []
    assert all(line["replayed"] for line in lines[:-1])
    assert real["rebalances"] == predicted["rebalances"] == 1
    assert real["moved_partitions"] == predicted["moved_partitions"] == 4
    # c1, c2 and slow all stopped; the new member, which held nothing before, is not counted
    assert real["members_stopped"] == predicted["members_stopped"] == 3, lines
    assert real["processing_stopped_member_seconds"] > 0
    assert real["join_waits_ms"]["new"] is not None
