"""RangeAssignor: the consumer-assignors article's worked examples, Kafka's documented behaviour, and properties."""
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rebalance.consumer import assign
from rebalance.consumer.abstract import member_sort_key, use_rack_aware_assignment
from rebalance.consumer.range import RangeAssignor
from rebalance.consumer.api import build_scenario


def subs(**topics_by_member):
    return {m: {"topics": list(t)} for m, t in topics_by_member.items()}


# -- worked examples from the consumer-assignors article (Kafka's result, exactly, list order included) -------------

def test_article_one_topic_seven_partitions_three_consumers():
    out = assign("range", {"t0": 7}, subs(C0=["t0"], C1=["t0"], C2=["t0"]))
    assert out == {"C0": [("t0", 0), ("t0", 1), ("t0", 2)],
                   "C1": [("t0", 3), ("t0", 4)],
                   "C2": [("t0", 5), ("t0", 6)]}


def test_article_three_topics_uneven_subscriptions_idles_a_consumer():
    # consumer0: topic0..2, consumer1: topic0..1, consumer2: topic2; partitions 3, 2, 1
    members = {"consumer0": {"topics": ["topic0", "topic1", "topic2"]},
               "consumer1": {"topics": ["topic0", "topic1"]},
               "consumer2": {"topics": ["topic2"]}}
    out = assign("range", {"topic0": 3, "topic1": 2, "topic2": 1}, members)
    assert {m: sorted(v) for m, v in out.items()} == {
        "consumer0": [("topic0", 0), ("topic0", 1), ("topic1", 0), ("topic2", 0)],
        "consumer1": [("topic0", 2), ("topic1", 1)],
        "consumer2": [],
    }


def test_javadoc_two_consumers_two_topics_three_partitions():
    out = assign("range", {"t0": 3, "t1": 3}, subs(C0=["t0", "t1"], C1=["t0", "t1"]))
    assert out == {"C0": [("t0", 0), ("t0", 1), ("t1", 0), ("t1", 1)], "C1": [("t0", 2), ("t1", 2)]}


def test_list_order_follows_topic_hashmap_order_not_name_order():
    # HashMap buckets (16): payments -> 7, clicks -> 9, orders -> 10 (String.hashCode, spread, & 15)
    out = assign("range", {"orders": 2, "payments": 2, "clicks": 2}, subs(M=["orders", "payments", "clicks"]))
    assert out["M"] == [("payments", 0), ("payments", 1), ("clicks", 0), ("clicks", 1), ("orders", 0), ("orders", 1)]
    # bucket order, not input order, whichever order the member lists its topics in
    again = assign("range", {"clicks": 2, "orders": 2, "payments": 2}, subs(M=["clicks", "orders", "payments"]))
    assert again == out


# -- MemberInfo order: static members first, by group.instance.id ------------------------------------

def test_static_members_come_first_by_instance_id():
    members = {"a-dynamic": {"topics": ["t0"]},
               "z-static": {"topics": ["t0"], "instance_id": "i-1"},
               "m-static": {"topics": ["t0"], "instance_id": "i-0"}}
    out = assign("range", {"t0": 5}, members)
    assert out == {"a-dynamic": [("t0", 4)], "z-static": [("t0", 2), ("t0", 3)],
                   "m-static": [("t0", 0), ("t0", 1)]}


def test_member_sort_key_uses_java_string_order():
    sc = build_scenario("range", {"t": 1}, {"\U0001d11e": {"topics": ["t"]}, "\uffff": {"topics": ["t"]}})
    keys = {m: member_sort_key(m, s) for m, s in sc.members.items()}
    # Java compares UTF-16 units: the surrogate 0xD834 sorts before 0xFFFF (Python would say the opposite)
    assert keys["\U0001d11e"] < keys["\uffff"]


# -- KIP-881 rack awareness ---------------------------------------------------------------------------

RACKS_ABC = [{"a"}, {"b"}, {"c"}]


def test_rack_aware_range_balances_each_topic_and_matches_racks():
    members = {"c0": {"topics": ["t"], "rack": "c"}, "c1": {"topics": ["t"], "rack": "b"},
               "c2": {"topics": ["t"], "rack": "a"}}
    out = assign("range", {"t": 3}, members, partition_racks={"t": RACKS_ABC})
    assert out == {"c0": [("t", 2)], "c1": [("t", 1)], "c2": [("t", 0)]}
    # without racks the same group gets the plain ranges
    plain = assign("range", {"t": 3}, {m: {"topics": ["t"]} for m in members})
    assert plain == {"c0": [("t", 0)], "c1": [("t", 1)], "c2": [("t", 2)]}


def test_rack_pass_can_give_the_extra_partition_to_a_later_member():
    """RangeAssignor.TopicAssignmentState.maxAssignable is P // N + 1 while an extra partition is unclaimed, so
    the rack pass lets c1 (rack b, matching two partitions) take the extra one that the plain rule gives to
    c0: Kafka keeps per-topic balance, not the plain rule's per-member counts."""
    members = {"c0": {"topics": ["t"], "rack": "a"}, "c1": {"topics": ["t"], "rack": "b"}}
    out = assign("range", {"t": 3}, members, partition_racks={"t": [{"a"}, {"b"}, {"b"}]})
    assert out == {"c0": [("t", 0)], "c1": [("t", 1), ("t", 2)]}
    plain = assign("range", {"t": 3}, {m: {"topics": ["t"]} for m in members})
    assert plain == {"c0": [("t", 0), ("t", 1)], "c1": [("t", 2)]}


def test_co_partitioned_topics_stay_together_under_rack_matching():
    members = {"c0": {"topics": ["t1", "t2"], "rack": "c"}, "c1": {"topics": ["t1", "t2"], "rack": "b"},
               "c2": {"topics": ["t1", "t2"], "rack": "a"}}
    out = assign("range", {"t1": 3, "t2": 3}, members, partition_racks={"t1": RACKS_ABC, "t2": RACKS_ABC})
    for member, tps in out.items():
        assert len({p for _, p in tps}) == 1  # partition p of t1 and of t2 go to the same member
    assert out["c2"] == [("t1", 0), ("t2", 0)]  # sorted by TopicPartitionComparator on this path


def test_rack_logic_unused_when_every_partition_is_on_every_rack():
    members = {"c0": {"topics": ["t"], "rack": "b"}, "c1": {"topics": ["t"], "rack": "a"}}
    everywhere = [{"a", "b"}] * 4
    out = assign("range", {"t": 4}, members, partition_racks={"t": everywhere})
    assert out == {"c0": [("t", 0), ("t", 1)], "c1": [("t", 2), ("t", 3)]}
    assert not use_rack_aware_assignment({"a", "b"}, {"a", "b"}, [frozenset("ab")] * 4)
    assert use_rack_aware_assignment({"a", "b"}, {"a", "b"}, [frozenset("ab")] * 4, prefer_rack_aware_logic=True)
    assert not use_rack_aware_assignment({"x"}, {"a", "b"}, [frozenset("a"), frozenset("b")])
    assert not use_rack_aware_assignment(set(), {"a"}, [frozenset("a")])


def test_topics_with_zero_partitions_or_no_subscribers_are_skipped():
    out = assign("range", {"t0": 0, "t1": 2, "unused": 5}, subs(A=["t0", "t1"], B=["t1"]))
    assert out == {"A": [("t1", 0)], "B": [("t1", 1)]}


def test_counters_count_member_topic_pairs():
    sc = build_scenario("range", {"t0": 4, "t1": 2}, subs(A=["t0", "t1"], B=["t0"]))
    result = RangeAssignor().assign(sc)
    assert result.counters == {"topics": 2, "partitions": 6, "member_topic_pairs": 3}


# -- properties ---------------------------------------------------------------------------------------

@st.composite
def groups(draw, with_racks=True):
    n_topics = draw(st.integers(1, 4))
    topics = {f"t{i}": draw(st.integers(0, 9)) for i in range(n_topics)}
    ids = draw(st.lists(st.text(alphabet="abAB0\U0001d11e", min_size=1, max_size=3), min_size=1, max_size=6,
                        unique=True))
    members = {}
    for i, m in enumerate(ids):
        spec = {"topics": draw(st.lists(st.sampled_from(sorted(topics)), unique=True))}
        if draw(st.booleans()):
            spec["instance_id"] = f"i-{draw(st.integers(0, 3))}-{i}"
        if with_racks and draw(st.booleans()):
            spec["rack"] = draw(st.sampled_from("abc"))
        members[m] = spec
    racks = None
    if with_racks and draw(st.booleans()):
        racks = {t: [set(draw(st.lists(st.sampled_from("abc"), max_size=2))) for _ in range(n)]
                 for t, n in topics.items()}
    return topics, members, racks


def check_complete(topics, members, out):
    owners = Counter(tp for tps in out.values() for tp in tps)
    subscribed = {t for spec in members.values() for t in spec["topics"]}
    expected = {(t, p) for t in subscribed for p in range(topics[t])}
    assert set(owners) == expected
    assert all(c == 1 for c in owners.values())
    for member, tps in out.items():
        assert all(t in members[member]["topics"] for t, _ in tps)


@settings(max_examples=150, deadline=None)
@given(groups())
def test_range_properties(group):
    topics, members, racks = group
    out = assign("range", topics, members, partition_racks=racks)
    assert list(out) == list(members)
    check_complete(topics, members, out)
    for t, n in topics.items():
        per_member = [sum(1 for tp in out[m] if tp[0] == t) for m, s in members.items() if t in s["topics"]]
        if per_member:
            assert max(per_member) - min(per_member) <= 1


@settings(max_examples=100, deadline=None)
@given(groups(with_racks=False), st.randoms(use_true_random=False))
def test_range_without_racks_is_contiguous_and_order_independent(group, rnd):
    topics, members, _ = group
    out = assign("range", topics, members)
    sc = build_scenario("range", topics, members)
    from rebalance.consumer.abstract import sorted_members

    order = sorted_members(sc)
    for t, n in topics.items():
        subscribers = [m for m in order if t in members[m]["topics"]]
        start = 0
        for i, m in enumerate(subscribers):
            mine = [p for topic, p in out[m] if topic == t]
            assert mine == list(range(start, start + len(mine)))  # one contiguous range
            assert len(mine) == n // len(subscribers) + (1 if i < n % len(subscribers) else 0)
            start += len(mine)
    shuffled = list(members.items())
    rnd.shuffle(shuffled)
    again = assign("range", topics, dict(shuffled))
    assert {m: sorted(v) for m, v in again.items()} == {m: sorted(v) for m, v in out.items()}


@settings(max_examples=80, deadline=None)
@given(groups(with_racks=True))
def test_member_racks_without_replica_racks_change_nothing(group):
    """Member racks but no partition racks: the general (rack-capable) code path must give exactly the
    plain split that the rack-free fast path gives."""
    topics, members, _ = group
    with_racks = assign("range", topics, members)
    without = assign("range", topics, {m: {k: v for k, v in s.items() if k != "rack"} for m, s in members.items()})
    assert with_racks == without
