"""CooperativeStickyAssignor (KIP-429, Kafka 3.8/3.9): two-round hand-over, partitions transferring
ownership, generations from the protocol field or user data."""
from rebalance.consumer.api import build_scenario
from rebalance.consumer.cooperative_sticky import CooperativeStickyAssignor, compute_partitions_transferring_ownership
from rebalance.consumer.rounds import rebalance_rounds
from rebalance.consumer.vectors import run


def _c3_joins_group():
    # the cooperative/static-membership article's example: one topic, three partitions; c1 owns two, c2 one, then c3 joins
    return build_scenario("cooperative-sticky", {"t": 3}, {
        "c1": {"topics": ["t"], "owned": [("t", 0), ("t", 1)], "generation": 1},
        "c2": {"topics": ["t"], "owned": [("t", 2)], "generation": 1},
        "c3": {"topics": ["t"]},
    })


def test_new_member_gets_its_partition_in_the_second_round():
    first, second = rebalance_rounds(_c3_joins_group())
    assert first.path == "constrained"
    assert first.full_assignment == {"c1": [("t", 0)], "c2": [("t", 2)], "c3": [("t", 1)]}
    # round 1: t-1 is revoked from c1 but not yet given to c3
    assert first.assignment == {"c1": [("t", 0)], "c2": [("t", 2)], "c3": []}
    assert first.partitions_transferring_ownership == {("t", 1): "c3"}
    # round 2: nobody owns t-1 any more, so c3 gets it at once
    assert second.assignment == {"c1": [("t", 0)], "c2": [("t", 2)], "c3": [("t", 1)]}
    assert second.withheld == {}
    assert second.max_generation == 2


def test_general_path_computes_transfers_itself():
    out = run({"kind": "consumer", "assignor": "cooperative-sticky", "topics": {"a": 4, "b": 2},
               "members": [{"memberId": "A", "topics": ["a", "b"], "ownedPartitions": ["a-0", "a-1", "a-2", "a-3"],
                            "generationId": 3},
                           {"memberId": "B", "topics": ["a"], "generationId": 3},
                           {"memberId": "C", "topics": ["b"], "ownedPartitions": ["b-0", "b-1"], "generationId": 3}]})
    assert out["stickyPath"] == "general"
    assert out["partitionsTransferringOwnership"] is None   # Kafka reports null on this path
    # the reassignment walk starts at a-0, so a-0 and a-1 move from A to B; they come from A, so B gets
    # nothing in this round and A keeps only a-2, a-3
    assert out["sortedAssignment"] == {"A": ["a-2", "a-3"], "B": [], "C": ["b-0", "b-1"]}


def test_compute_partitions_transferring_ownership():
    owned = {"A": [("t", 0), ("t", 1)], "B": []}
    plan = {"A": [("t", 0)], "B": [("t", 1), ("t", 2)]}
    assert compute_partitions_transferring_ownership(owned, plan) == {("t", 1): "B"}


def test_generation_from_user_data_when_the_protocol_has_none():
    data = {"kind": "consumer", "assignor": "cooperative-sticky", "topics": {"t": 2},
            "members": [{"memberId": "A", "topics": ["t"], "ownedPartitions": ["t-0"],
                         "userData": {"cooperativeV0": {"generation": 6}}},
                        {"memberId": "B", "topics": ["t"], "ownedPartitions": ["t-1"]}]}
    assert run(data)["maxGeneration"] == 6


def test_assignor_instance_keeps_max_generation_across_rounds():
    assignor = CooperativeStickyAssignor()
    rebalance_rounds(_c3_joins_group(), assignor=assignor)
    assert assignor.max_generation == 2
