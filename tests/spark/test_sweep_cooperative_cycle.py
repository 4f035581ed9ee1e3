"""The sweep's cooperative-sticky churn replay (``sweep.churn_steps``) checked against Kafka's own classes.

For the groups the sweep flagged (rack-aware groups needing three or more rebalances, two of them never
completing within ``MAX_ROUNDS``), the per-round number of assigned partitions below was produced by Kafka's
``CooperativeStickyAssignor`` compiled from the vectors' commit 1eb7644 (one assignor instance; each round the
survivors report ``ownedPartitions`` = their last assignment and one common ``generationId``, +1 per round,
as ``ConsumerCoordinator.metadata()`` / ``onJoinComplete`` do).  The full per-member lists matched
``churn_steps`` element for element; see ``tests/consumer/test_cooperative_cycle.py`` for the worked loop.
The same held for every one of seed 0's scenarios 0-499 (all rounds, all members, owned partitions in a real client's order; a one-off local check whose
build recipe is not kept in the repository).  So the sweep chains rounds the
way a real group does, and these figures are Kafka 3.9 behaviour.

No Spark session is needed: ``churn_steps`` is the plain-Python replay the Spark job maps over.
"""
import pytest

from rebalance.spark.generators import SweepParams, sweep_scenario
from rebalance.spark.jobs import sweep

# (seed, scenario) -> (partitions wanted after the churn, assigned partitions per round, from Kafka's classes)
KAFKA_ROUNDS = {
    (2026, 9303): (49, [48, 48, 48, 48, 48, 48, 48, 48]),   # never settles: a two-round loop
    (2026, 5453): (61, [55, 58, 55, 59, 55, 61]),           # settles in the 6th rebalance (sweep stops at 5)
    (0, 25): (67, [62, 66, 67]),
    (0, 68): (52, [50, 51, 52]),
    (0, 120): (53, [49, 52, 53]),
    (0, 217): (36, [34, 32, 36]),
    (0, 807): (77, [75, 75, 77]),
}


def _steps(seed, index, max_rounds):
    scenario = sweep_scenario(seed, index, SweepParams())
    first = sweep.consumer_assign("cooperative-sticky", scenario.partitions, scenario.members,
                                         partition_racks=scenario.partition_racks or None)
    return scenario, sweep.churn_steps(scenario, "cooperative-sticky", first, max_rounds=max_rounds)


@pytest.mark.parametrize("key", sorted(KAFKA_ROUNDS))
def test_churn_rounds_match_kafka(key):
    expected, per_round = KAFKA_ROUNDS[key]
    scenario, steps = _steps(*key, max_rounds=len(per_round))
    assert scenario.racks > 0                       # every such group has racks (KIP-881 paths)
    assert [st["assigned"] for st in steps] == per_round
    assert {st["expected"] for st in steps} == {expected}


def test_the_loop_repeats_every_two_rounds():
    _, steps = _steps(2026, 9303, max_rounds=6)
    assignments = [st["assignment"] for st in steps]
    assert assignments[0] != assignments[1]
    assert assignments[2] == assignments[0] and assignments[4] == assignments[0]
    assert assignments[3] == assignments[1] and assignments[5] == assignments[1]
    # each round consumer-1 revokes the partition it gained in the round before
    gained = [st["gained"] for st in steps]
    revoked = [st["revoked"] for st in steps]
    c1 = next(m for m in scenario_members(2026, 9303) if m.startswith("consumer-1-"))
    for before, after in zip(gained[1:], revoked[2:]):
        assert after[c1] == before[c1]


def scenario_members(seed, index):
    return sweep_scenario(seed, index, SweepParams()).members


def test_sweep_caps_at_max_rounds_so_a_late_settler_counts_as_incomplete():
    """5453 settles in Kafka at the 6th rebalance; with MAX_ROUNDS = 5 the sweep records it as incomplete."""
    assert sweep.MAX_ROUNDS == 5
    scenario, steps = _steps(2026, 5453, max_rounds=sweep.MAX_ROUNDS)
    assert len(steps) == 5 and steps[-1]["assigned"] < steps[-1]["expected"]
