"""The common consumer call ``assign(assignor, partitions, members)``: input forms, validation, dispatch."""
import pytest

from rebalance.consumer import Subscription, assign, assignor_for, build_scenario
from rebalance.consumer.api import assignor_name
from rebalance.errors import InputError


def test_plain_dicts_and_subscriptions_give_the_same_result():
    as_dicts = assign("range", {"t": 5}, {"A": {"topics": ["t"]}, "B": {"topics": ["t"]}})
    as_subs = assign("range", {"t": 5}, {"A": Subscription(topics=["t"]), "B": Subscription(topics=["t"])})
    assert as_dicts == as_subs == {"A": [("t", 0), ("t", 1), ("t", 2)], "B": [("t", 3), ("t", 4)]}


def test_every_member_is_in_the_result_in_input_order():
    out = assign("roundrobin", {"t": 1}, {"z": {"topics": ["t"]}, "idle": {"topics": []}, "a": {"topics": ["t"]}})
    assert list(out) == ["z", "idle", "a"]
    assert out == {"z": [], "idle": [], "a": [("t", 0)]}


@pytest.mark.parametrize("name,expected", [("range", "range"), ("RoundRobin", "roundrobin"),
                                           ("round-robin", "roundrobin"),
                                           ("org.apache.kafka.clients.consumer.RangeAssignor", "range"),
                                           ("CooperativeStickyAssignor", "cooperative-sticky")])
def test_assignor_names(name, expected):
    assert assignor_name(name) == expected


def test_owned_partitions_accept_tuples_and_strings():
    sc = build_scenario("range", {"t-x": 3}, {"A": {"topics": ["t-x"], "owned": [("t-x", 0), "t-x-2"],
                                                   "generation": 4, "instance_id": "i", "rack": "r"}})
    sub = sc.members["A"]
    assert sub.owned_partitions == [("t-x", 0), ("t-x", 2)]
    assert (sub.generation_id, sub.group_instance_id, sub.rack_id) == (4, "i", "r")


def test_zombie_claims_in_different_generations_are_allowed():
    members = {"A": {"topics": ["t"], "owned": [("t", 0)], "generation": 3},
               "B": {"topics": ["t"], "owned": [("t", 0)], "generation": 2}}
    out = assign("range", {"t": 2}, members)
    assert sorted(tp for v in out.values() for tp in v) == [("t", 0), ("t", 1)]


@pytest.mark.parametrize("partitions,members,field", [
    ({"t": 2}, {"A": {"topics": ["nope"]}}, "members.A.topics"),
    ({"t": -1}, {"A": {"topics": ["t"]}}, "partitions.t"),
    ({"t": 2}, {"A": {"topics": ["t"], "owned": [("t", 0)], "generation": 1},
                "B": {"topics": ["t"], "owned": [("t", 0)], "generation": 1}}, "members.B.ownedPartitions"),
    ({"t": 2}, {"A": {"topics": ["t"], "owned": [("t", 5)]}}, "members.A.ownedPartitions"),
    ({"t": 2}, {"A": {"topics": ["t"], "owned": ["t0"]}}, "members.A.owned[0]"),
    ({"t": 2}, {"A": {"topic": ["t"]}}, "members.A.topic"),
    ({"t": 2}, {"A": {"owned": []}}, "members.A.topics"),
    ({"t": 2}, {"": {"topics": ["t"]}}, "members"),
    ({"t": 2}, {"A": {"topics": "t"}}, "members.A.topics"),
    ({"t": 2}, {"A": {"topics": ["t"], "generation": "1"}}, "members.A.generation"),
    ({"t": 2}, {"A": ["t"]}, "members.A"),
    ({"t": 2.5}, {"A": {"topics": ["t"]}}, "partitions.t"),
])
def test_bad_input_names_the_field(partitions, members, field):
    with pytest.raises(InputError) as info:
        assign("range", partitions, members)
    assert info.value.field == field


def test_bad_assignor_and_racks_name_the_field():
    with pytest.raises(InputError) as info:
        assign("fair", {"t": 1}, {"A": {"topics": ["t"]}})
    assert info.value.field == "assignor"
    with pytest.raises(InputError) as info:
        assign("range", {"t": 2}, {"A": {"topics": ["t"]}}, partition_racks={"t": [{"a"}]})
    assert info.value.field == "partition_racks.t"
    with pytest.raises(InputError) as info:
        assign("range", {"t": 1}, {"A": {"topics": ["t"]}}, partition_racks={"u": [{"a"}]})
    assert info.value.field == "partition_racks.u"


def test_assignor_for_returns_fresh_instances():
    assert assignor_for("range") is not assignor_for("range")
    assert assignor_for("roundrobin").name() == "roundrobin"


@pytest.mark.parametrize("name", ["sticky", "cooperative-sticky"])
def test_sticky_assignors_dispatch_when_present(name):
    module = "sticky" if name == "sticky" else "cooperative_sticky"
    pytest.importorskip(f"rebalance.consumer.{module}")
    out = assign(name, {"t": 4}, {"A": {"topics": ["t"]}, "B": {"topics": ["t"]}})
    assert sorted(len(v) for v in out.values()) == [2, 2]
    assert sorted(tp for v in out.values() for tp in v) == [("t", p) for p in range(4)]
