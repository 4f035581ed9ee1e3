"""UniformAssignor (both builders) and the server-side RangeAssignor: worked examples and properties."""
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from rebalance.errors import InputError
from rebalance.kip848.group import assign_group
from rebalance.jcollections import HashJMap, HashJSet
from rebalance.kip848.uuid import uuid_hash
from rebalance.kip848.vectors import valid_and_balanced


def test_three_partitions_third_member_joins():
    # p1, p2, p3 = t-0, t-1, t-2; c1 owns p1 and p2, c2 owns p3, then c3 joins (the classic-protocol
    # example of the cooperative/static-membership article).  The uniform assignor takes exactly one partition away from c1.
    r = assign_group("uniform", {"t": 3}, [
        {"id": "c1", "subscriptions": ["t"], "assignment": {"t": [0, 1]}},
        {"id": "c2", "subscriptions": ["t"], "assignment": {"t": [2]}},
        {"id": "c3", "subscriptions": ["t"]}])
    assert r.builder == "UniformHomogeneousAssignmentBuilder"
    assert r.by_name() == {"c1": {"t": [0]}, "c2": {"t": [2]}, "c3": {"t": [1]}}


def test_homogeneous_extra_partition_stays_with_a_member_that_holds_it():
    # 7 partitions, 3 members: minimum quota 2, one "+1" slot.  Since KAFKA-18688 (Kafka 4.0.1) a member
    # visited while the slot is free takes it only if it already fills it, or if it is among the last members
    # that must take the remaining slots; otherwise it gives the "+1" up for a later member.
    members = [{"id": "a", "subscriptions": ["t"], "assignment": {"t": [0, 1, 2]}},
               {"id": "b", "subscriptions": ["t"], "assignment": {"t": [3, 4, 5]}},
               {"id": "c", "subscriptions": ["t"], "assignment": {"t": [6]}}]
    in_tree_order = assign_group("uniform", {"t": 7}, members, members_map="tree").by_name()
    # TreeMap order a, b, c: "a" holds 3 and keeps the "+1"; "b" gives one back to "c"
    assert in_tree_order == {"a": {"t": [0, 1, 2]}, "b": {"t": [3, 4]}, "c": {"t": [5, 6]}}
    reversed_ids = [dict(m, id=n) for m, n in zip(members, ["z", "y", "x"])]
    tree = assign_group("uniform", {"t": 7}, reversed_ids, members_map="tree").by_name()
    # TreeMap order x, y, z: "x" (1 partition) gives the "+1" up, "y" (3 partitions) keeps it, and only
    # "z" gives one back.  Up to Kafka 4.0 "x" took the "+1" and both "y" and "z" gave one back.
    assert tree == {"z": {"t": [0, 1]}, "y": {"t": [3, 4, 5]}, "x": {"t": [2, 6]}}


def test_homogeneous_fresh_assignment_puts_the_extras_on_the_last_members():
    # KAFKA-18688 (Kafka 4.0.1): with nobody holding anything, every member but the last total % members
    # gives its "+1" up, so the extras go to the last members in memberIds() order (the first ones up to 4.0.0)
    members = [{"id": m, "subscriptions": ["t"]} for m in ("a", "b", "c", "d")]
    counts = {m: sum(len(p) for p in a.values())
              for m, a in assign_group("uniform", {"t": 10}, members, members_map="tree").by_name().items()}
    assert counts == {"a": 2, "b": 2, "c": 3, "d": 3}


def test_homogeneous_revokes_in_hashset_iteration_order():
    # partition 16 and 0 share bucket 0 of a 16-bucket HashSet: iteration is 16, 0, ... not sorted
    r = assign_group("uniform", {"t": 17}, [
        {"id": "a", "subscriptions": ["t"], "assignment": {"t": [16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}},
        {"id": "b", "subscriptions": ["t"]}])
    # quotas: 9 for the first member in map order ("a", which holds 11 and so keeps the "+1"), 8 for "b";
    # "a" keeps the first 9 it iterates
    assert r.by_name()["a"] == {"t": [0, 1, 2, 3, 4, 5, 6, 7, 16]}
    assert r.by_name()["b"] == {"t": [8, 9, 10, 11, 12, 13, 14, 15]}


def test_heterogeneous_gives_unshared_topic_priority_by_partitions_per_subscriber():
    r = assign_group("uniform", {"t1": 6, "t2": 2}, [
        {"id": "A", "subscriptions": ["t1", "t2"]},
        {"id": "B", "subscriptions": ["t1"]}])
    assert r.subscription_type == "HETEROGENEOUS"
    assert r.builder == "UniformHeterogeneousAssignmentBuilder"
    # t1 (6 partitions / 2 subscribers = 3) goes first: A gets 0, 2, 4 and B 1, 3, 5; t2 then goes to A;
    # balancing t1 moves one partition from A (5 partitions) to B (3): A's highest, 4
    assert r.by_name() == {"A": {"t1": [0, 2], "t2": [0, 1]}, "B": {"t1": [1, 3, 4, 5]}}


def test_range_is_not_sticky_and_lines_up_co_partitioned_topics():
    current = [{"id": "m1", "subscriptions": ["a", "b"], "assignment": {"a": [2], "b": [2]}},
               {"id": "m2", "subscriptions": ["a", "b"], "assignment": {"a": [0, 1], "b": [0, 1]}}]
    r = assign_group("range", {"a": 3, "b": 3}, current)
    assert r.builder == "RangeAssignor.assignHomogeneousGroup"
    assert r.by_name() == {"m1": {"a": [0, 1], "b": [0, 1]}, "m2": {"a": [2], "b": [2]}}


def test_range_static_members_first_and_empty_ranges_left_out():
    r = assign_group("range", {"t": 2}, [
        {"id": "a", "subscriptions": ["t"]},
        {"id": "b", "subscriptions": ["t"], "instance_id": "z-instance"},
        {"id": "c", "subscriptions": ["t"]}])
    assert r.by_name() == {"b": {"t": [0]}, "a": {"t": [1]}, "c": {}}


def test_uniform_errors_and_empty_groups():
    assert assign_group("uniform", {"t": 3}, []).by_name() == {}
    assert assign_group("uniform", {"t": 3}, [{"id": "A", "subscriptions": []}]).by_name() == {}
    with pytest.raises(InputError) as err:
        assign_group("roundrobin", {"t": 1}, [])
    assert err.value.field == "assignor"


def test_compute_if_absent_puts_new_topics_at_the_bucket_head():
    from rebalance.kip848.uuid import Uuid
    a, b = Uuid(0, 1), Uuid(0, 1 + (1 << 40))  # hashCodes 1 and 257: same bucket of a 16-bucket table
    assert uuid_hash(a) == 1 and uuid_hash(b) == 257
    put = HashJMap(uuid_hash, 16)
    put.put(a, 1)
    put.put(b, 2)
    assert put.keys() == [a, b]  # HashMap.put appends to the bucket
    computed = HashJMap(uuid_hash, 16)
    computed.put(a, 1)
    computed.setdefault(b, lambda: 2)
    assert computed.keys() == [b, a]  # HashMap.computeIfAbsent links the new node first
    assert list(HashJSet(None, 16, [0, 16, 1])) == [0, 16, 1]
    assert list(HashJSet(None, 16, [16, 1, 0])) == [16, 0, 1]


# ---------------------------------------------------------------------------------------------
# properties


@st.composite
def groups(draw, same_subscriptions=None):
    n_topics = draw(st.integers(1, 4))
    topics = {f"t{i}": draw(st.integers(0, 9)) for i in range(n_topics)}
    n_members = draw(st.integers(1, 6))
    homogeneous = draw(st.booleans()) if same_subscriptions is None else same_subscriptions
    shared = sorted(draw(st.sets(st.sampled_from(sorted(topics)), min_size=1)))
    members = []
    for i in range(n_members):
        subs = shared if homogeneous else sorted(draw(st.sets(st.sampled_from(sorted(topics)), min_size=1)))
        members.append({"id": f"member-{draw(st.integers(0, 10**6))}-{i}", "subscriptions": subs})
    return topics, members


def _subscriptions(members):
    return {m["id"]: m["subscriptions"] for m in members}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(groups(), st.sampled_from(["hash", "tree", "linked"]))
def test_uniform_is_valid_and_balanced_and_stable_on_rerun(group, members_map):
    topics, members = group
    first = assign_group("uniform", topics, members, members_map=members_map)
    result = first.by_name()
    problems = valid_and_balanced(topics, _subscriptions(members), result)
    if first.builder == "UniformHomogeneousAssignmentBuilder":
        assert problems == []
        counts = [sum(len(p) for p in a.values()) for a in result.values()]
        assert not counts or max(counts) - min(counts) <= 1
    else:
        # the heterogeneous builder guarantees validity; balance is best effort across overlapping topics
        assert [p for p in problems if "could take one" not in p] == []
    # running the assignor again on its own output moves nothing (stickiness)
    again = assign_group("uniform", topics, members, members_map=members_map, previous=first).by_name()
    assert again == result


@settings(max_examples=60, deadline=None)
@given(groups())
def test_range_ignores_the_current_assignment_and_balances_each_topic(group):
    topics, members = group
    fresh = assign_group("range", topics, members).by_name()
    # whatever the members currently hold, the result is the same (no stickiness at all)
    holding = [dict(m, assignment={t: list(range(topics[t]))[::-1] for t in m["subscriptions"]}) for m in members]
    assert assign_group("range", topics, holding).by_name() == fresh
    for t, count in topics.items():
        subscribers = [m["id"] for m in members if t in m["subscriptions"]]
        sizes = [len(fresh.get(m, {}).get(t, [])) for m in subscribers]
        if subscribers:
            assert sum(sizes) == count and max(sizes) - min(sizes) <= 1
            for m in subscribers:  # each range is contiguous
                parts = fresh.get(m, {}).get(t, [])
                assert parts == sorted(parts) and (not parts or parts[-1] - parts[0] == len(parts) - 1)


@settings(max_examples=40, deadline=None)
@given(groups(same_subscriptions=True), st.integers(0, 5))
def test_uniform_homogeneous_moves_at_most_what_balance_requires_when_a_member_leaves(group, leaver):
    topics, members = group
    if len(members) < 2:
        return
    first = assign_group("uniform", topics, members)
    gone = members[leaver % len(members)]["id"]
    rest = [m for m in members if m["id"] != gone]
    second = assign_group("uniform", topics, rest, previous=first).by_name()
    before = first.by_name()
    total = sum(topics[t] for t in members[0]["subscriptions"])
    new_min = total // len(rest)
    for m in rest:
        kept = {(t, p) for t, ps in before[m["id"]].items() for p in ps}
        now = {(t, p) for t, ps in second[m["id"]].items() for p in ps}
        # a remaining member only gives up what lies above its new quota (at least total // members)
        assert len(kept - now) <= max(0, len(kept) - new_min)
