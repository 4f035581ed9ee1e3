"""A run kept for its summary only (``GroupSimulation(summary_from=...)``) reports the full run's figures.

The summary mode drops the message trace, every event but the group's state changes, and the ownership
ledger's history (:class:`rebalance.protocol.ledger.OwnershipLedger` with ``summary_from`` adds up the
unowned time and the churn as partitions change hands).  The same scenarios run both ways must give equal
:class:`~rebalance.protocol.ledger.RebalanceMetrics` (unowned partition-seconds, stopped, restarted and
moved partitions, revocations, double ownership and zombie overlaps, settled and stable time), equal
assignments and equal message counts: on hypothesis schedules of joins, leaves, crashes and restarts, on
the seeded fault schedules (slow members make zombies), and on rolling restarts.
"""
import pytest
from hypothesis import given, settings

from rebalance.errors import InputError
from rebalance.protocol.ledger import OwnershipLedger
from rebalance.protocol.scenarios import random_schedule, rolling_restart
from rebalance.protocol.simulation import GroupSimulation

from .test_fastpath import build, scenarios


def outcome(sim: GroupSimulation, measure_from: int) -> tuple:
    return (sim.metrics(measure_from), sim.assignment(), sorted(sim.message_counts.items()),
            sim.coordinator.generation, sim.last_change_ms(), sim.is_settled(),
            len(sim.ownership.violations), len(sim.ownership.zombie_overlaps))


@settings(max_examples=25, deadline=None)
@given(scenarios())
def test_summary_equals_full_run_on_random_schedules(scenario):
    runs = []
    for summary_from in (None, 30_000):
        sim = build(*scenario, fast=True, summary_from=summary_from)
        sim.run(200_000)
        runs.append(outcome(sim, 30_000))
    assert runs[0] == runs[1]


def test_summary_equals_full_run_on_seeded_fault_schedules():
    moved = zombies = 0
    for seed in list(range(40)) + [264]:  # seed 264: a slow member's partitions overlap as a zombie
        runs = []
        for summary_from in (None, 8_000):
            sched = random_schedule(seed, summary_from=summary_from)
            sched.sim.run(sched.end_ms)
            runs.append(outcome(sched.sim, 8_000))
        assert runs[0] == runs[1], seed
        moved += runs[0][0].partitions_moved
        zombies += runs[0][0].zombie_overlap
    assert moved > 0 and zombies > 0  # the schedules do exercise the churn and the overlap bookkeeping


@pytest.mark.parametrize("protocol,assignor,static", [("eager", "range", False),
                                                      ("cooperative", "cooperative-sticky", False),
                                                      ("eager", "range", True)])
def test_summary_equals_full_run_on_rolling_restarts(protocol, assignor, static):
    runs = []
    for summary_only in (False, True):
        sim = rolling_restart(12, {"t": 40}, protocol=protocol, assignor=assignor, static=static, gap_ms=20_000,
                              summary_only=summary_only)
        runs.append(outcome(sim, sim.measure_from))
        if summary_only:
            assert sim.messages == [] and sim.ownership.intervals == []
            assert {e.kind for e in sim.events} <= {"state"}
    assert runs[0] == runs[1]
    assert runs[0][0].partitions_moved > 0 or static


def test_summary_ledger_answers_only_what_it_summed_up():
    ledger = OwnershipLedger([("t", 0), ("t", 1)], summary_from=1_000)
    ledger.acquire("a", [("t", 0)], 500)
    ledger.release("a", [("t", 0)], 1_500, "revoked")
    ledger.acquire("b", [("t", 0), ("t", 1)], 2_000)
    assert ledger.unowned_ms(1_000, 3_000) == 500 + 1_000   # t-0 from 1.5 s to 2 s, t-1 from 1 s to 2 s
    assert ledger.churn(1_000) == (1, 1, 1, 1)
    for call, field in [(lambda: ledger.unowned_ms(0, 3_000), "measure_from"),
                        (lambda: ledger.unowned_ms(1_000, 1_800), "until"),
                        (lambda: ledger.churn(0), "measure_from"),
                        (lambda: ledger.changes(), "changes"),
                        (lambda: ledger.unowned_ms(1_000, 3_000, [("t", 0)]), "partitions")]:
        with pytest.raises(InputError) as e:
            call()
        assert e.value.field == field


def test_summary_from_is_checked():
    with pytest.raises(InputError) as e:
        GroupSimulation({"t": 1}, summary_from=-5)
    assert e.value.field == "summary_from"
