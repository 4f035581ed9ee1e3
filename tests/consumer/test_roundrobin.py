"""RoundRobinAssignor: the consumer-assignors article's worked examples, a literal replay of Kafka's CircularIterator walk,
and properties."""
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rebalance.consumer import assign
from rebalance.consumer.api import build_scenario
from rebalance.consumer.abstract import sorted_members
from rebalance.java import java_string_key
from rebalance.consumer.roundrobin import RoundRobinAssignor
from rebalance.errors import InputError

UNEVEN_MEMBERS = {"consumer0": {"topics": ["topic0", "topic1", "topic2"]},
                "consumer1": {"topics": ["topic0", "topic1"]},
                "consumer2": {"topics": ["topic2"]}}


def tps(*names):
    return [(n.split("p")[0].replace("t", "topic"), int(n.split("p")[1])) for n in names]


def test_article_three_two_one_partitions():
    out = assign("roundrobin", {"topic0": 3, "topic1": 2, "topic2": 1}, UNEVEN_MEMBERS)
    assert out == {"consumer0": tps("t0p0", "t0p2", "t1p1"),
                   "consumer1": tps("t0p1", "t1p0"),
                   "consumer2": tps("t2p0")}


def test_article_four_three_two_partitions_is_unbalanced():
    out = assign("roundrobin", {"topic0": 4, "topic1": 3, "topic2": 2}, UNEVEN_MEMBERS)
    assert out == {"consumer0": tps("t0p0", "t0p2", "t1p0", "t1p2", "t2p1"),
                   "consumer1": tps("t0p1", "t0p3", "t1p1"),
                   "consumer2": tps("t2p0")}
    # 5 / 3 / 1: giving topic2-1 to consumer2 instead would have been 4 / 3 / 2
    assert sorted(len(v) for v in out.values()) == [1, 3, 5]


def test_javadoc_two_consumers_two_topics_three_partitions():
    out = assign("roundrobin", {"t0": 3, "t1": 3}, {"C0": {"topics": ["t0", "t1"]}, "C1": {"topics": ["t0", "t1"]}})
    assert out == {"C0": [("t0", 0), ("t0", 2), ("t1", 1)], "C1": [("t0", 1), ("t1", 0), ("t1", 2)]}


def test_topics_walk_in_string_compare_order():
    # TreeSet<String>: "B" < "a"; the walk continues across topics instead of restarting
    out = assign("roundrobin", {"a": 1, "B": 1}, {"m1": {"topics": ["a", "B"]}, "m2": {"topics": ["a", "B"]}})
    assert out == {"m1": [("B", 0)], "m2": [("a", 0)]}


def test_static_members_lead_the_ring():
    members = {"A": {"topics": ["t"]}, "B": {"topics": ["t"], "instance_id": "z"}}
    assert assign("roundrobin", {"t": 3}, members) == {"A": [("t", 1)], "B": [("t", 0), ("t", 2)]}


def test_no_members_is_an_input_error_and_the_class_keeps_kafkas_illegal_argument():
    # one rule for every assignor at the public API (see api.require_members); the class, driven directly
    # as the conformance vectors do, still throws what Kafka's CircularIterator throws
    with pytest.raises(InputError) as info:
        assign("roundrobin", {"t": 1}, {})
    assert info.value.field == "members"
    from rebalance.vectors import run_input
    out = run_input({"kind": "consumer", "assignor": "roundrobin", "topics": {"t": 1}, "members": []})
    assert out["error"]["type"] == "IllegalArgumentException"


def literal_walk(topics, members):
    """Kafka's loop, one peek at a time (slow but obviously the same as the Java)."""
    sc = build_scenario("roundrobin", topics, members)
    ring = sorted_members(sc)
    out = {m: [] for m in members}
    i = 0
    for topic in sorted({t for s in members.values() for t in s["topics"]}, key=java_string_key):
        for p in range(topics.get(topic, 0)):
            while topic not in members[ring[i]]["topics"]:
                i = (i + 1) % len(ring)
            out[ring[i]].append((topic, p))
            i = (i + 1) % len(ring)
    return out


@st.composite
def groups(draw, equal=False):
    topics = {f"t{i}": draw(st.integers(0, 12)) for i in range(draw(st.integers(1, 4)))}
    ids = draw(st.lists(st.text(alphabet="abAB0\U0001d11e", min_size=1, max_size=3), min_size=1, max_size=7,
                        unique=True))
    shared = draw(st.lists(st.sampled_from(sorted(topics)), unique=True, min_size=1))
    members = {}
    for i, m in enumerate(ids):
        chosen = shared if equal else draw(st.lists(st.sampled_from(sorted(topics)), unique=True))
        members[m] = {"topics": list(chosen)}
        if draw(st.booleans()):
            members[m]["instance_id"] = f"s{draw(st.integers(0, 9))}-{i}"
    return topics, members


@settings(max_examples=150, deadline=None)
@given(groups())
def test_same_as_the_literal_circular_walk(group):
    topics, members = group
    out = assign("roundrobin", topics, members)
    assert out == literal_walk(topics, members)
    owners = Counter(tp for lst in out.values() for tp in lst)
    subscribed = {t for s in members.values() for t in s["topics"]}
    assert set(owners) == {(t, p) for t in subscribed for p in range(topics[t])}
    assert all(c == 1 for c in owners.values())
    for m, lst in out.items():
        assert all(t in members[m]["topics"] for t, _ in lst)


@settings(max_examples=100, deadline=None)
@given(groups(equal=True))
def test_equal_subscriptions_balance_within_one(group):
    topics, members = group
    counts = [len(v) for v in assign("roundrobin", topics, members).values()]
    assert max(counts) - min(counts) <= 1


def test_skipped_peeks_are_counted():
    sc = build_scenario("roundrobin", {"topic0": 4, "topic1": 3, "topic2": 2}, UNEVEN_MEMBERS)
    result = RoundRobinAssignor().assign(sc)
    # ring consumer0, consumer1, consumer2: topic0 (4) and topic1 (3) skip consumer2 three times in all;
    # topic2 starts at consumer1 (skipped), then consumer2 and consumer0 take one each
    assert result.counters["partitions"] == 9
    assert result.counters["skipped_peeks"] == count_skips({"topic0": 4, "topic1": 3, "topic2": 2}, UNEVEN_MEMBERS) == 4


def count_skips(topics, members):
    sc = build_scenario("roundrobin", topics, members)
    ring = sorted_members(sc)
    i = skips = 0
    for topic in sorted({t for s in members.values() for t in s["topics"]}, key=java_string_key):
        for p in range(topics.get(topic, 0)):
            while topic not in members[ring[i]]["topics"]:
                i = (i + 1) % len(ring)
                skips += 1
            i = (i + 1) % len(ring)
    return skips


@settings(max_examples=60, deadline=None)
@given(groups())
def test_skip_counter_matches_literal_walk(group):
    topics, members = group
    sc = build_scenario("roundrobin", topics, members)
    assert RoundRobinAssignor().assign(sc).counters["skipped_peeks"] == count_skips(topics, members)
