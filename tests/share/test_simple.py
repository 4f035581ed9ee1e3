"""SimpleAssignor (Kafka 4.3.1, KIP-932 share groups): what its source guarantees, as properties, and the rules
of its two builders on small cases."""
import math
from collections import defaultdict

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from rebalance.errors import InputError, KafkaError, PartitionAssignorException
from rebalance.kip848.uuid import Uuid
from rebalance.share import SHARE_ASSIGNORS, SimpleAssignor, assign_share_group
from rebalance.share.assignor_helpers import new_hash_capacity, topic_id_partition_hash
from rebalance.share.simple_homogeneous import desired_assignment_counts


def test_name_and_registry():
    assert SimpleAssignor().name() == "simple"
    assert list(SHARE_ASSIGNORS) == ["simple"]


def test_assignor_helpers_capacity_is_float_arithmetic():
    # (int) (((n + 1) / 0.75f) + 1)
    # values printed by Java 17
    assert [new_hash_capacity(n) for n in (0, 1, 2, 4, 101, 1000, 12345, 999999)] == \
        [2, 3, 5, 7, 137, 1335, 16462, 1333334]


def test_topic_id_partition_hash_is_the_records():
    # new TopicIdPartition-like record (UUID(123456789L, 987654321L), 7).hashCode() on Java 17: Kafka's Uuid hashes
    # as java.util.UUID does
    assert topic_id_partition_hash((Uuid(123456789, 987654321), 7)) == 1932463843


def test_desired_counts_put_the_extra_on_the_later_members():
    # 6 members, 4 partitions: desiredSharing 2, 8 slots, p = 4/3
    assert desired_assignment_counts(2, 4, 6) == [2, 1, 1, 2, 1, 1]
    assert desired_assignment_counts(1, 5, 2) == [3, 2]
    assert sum(desired_assignment_counts(3, 24, 101)) == 72


def test_empty_group_and_no_subscription():
    assert assign_share_group({"t": 3}, []).by_name() == {}
    result = assign_share_group({"t": 3}, [{"id": "A", "subscriptions": []}])
    assert result.by_name() == {} and result.builder == "SimpleHomogeneousAssignmentBuilder"


def test_missing_topic_throws_like_kafka():
    with pytest.raises(PartitionAssignorException, match="doesn't exist in the topic metadata"):
        assign_share_group({"t": 3}, [{"id": "A", "subscriptions": ["AAAAAAAAAAAAAAAAAAAAAQ"]}])


def test_more_members_than_partitions_share_them():
    result = assign_share_group({"t": 2}, [{"id": f"m{i}", "subscriptions": ["t"]} for i in range(5)]).by_name()
    holders = defaultdict(list)
    for member, topics in result.items():
        assert topics["t"], member  # everyone gets one: desiredSharing = 3 covers 5 members
        for p in topics["t"]:
            holders[p].append(member)
    assert sorted(len(h) for h in holders.values()) == [3, 3]


def test_simple_assignor_test_non_assignable_topic_exact_result():
    # SimpleAssignorTest.testAssignWithThreeMembersThreeTopicsHeterogeneousWithNonAssignableTopic (4.3.1)
    members = [{"id": "A", "subscriptions": ["topic1", "topic2"]}, {"id": "B", "subscriptions": ["topic3"]},
               {"id": "C", "subscriptions": ["topic2", "topic3"]}]
    result = assign_share_group({"topic1": 3, "topic2": 3, "topic3": 2}, members,
                                assignable={"topic1": [0, 1, 2], "topic2": [0, 1, 2]})
    assert result.builder == "SimpleHeterogeneousAssignmentBuilder"
    assert result.by_name() == {"A": {"topic1": [0, 1, 2], "topic2": [0, 2]}, "B": {}, "C": {"topic2": [1]}}


def test_heterogeneous_keeps_partitions_of_a_topic_nobody_subscribes_to():
    members = [{"id": "A", "subscriptions": ["a"], "assignment": {"a": [0], "gone": [1]}},
               {"id": "B", "subscriptions": ["b"]}]
    hetero = assign_share_group({"a": 1, "b": 1, "gone": 2}, members).by_name()
    assert hetero["A"] == {"a": [0], "gone": [1]}
    members[1]["subscriptions"] = ["a"]  # now homogeneous: the builder drops the topic
    assert assign_share_group({"a": 1, "b": 1, "gone": 2}, members).by_name()["A"] == {"a": [0]}


def test_no_such_element_where_kafka_throws_it():
    # a member holding a partition past the topic's end fills its desired count, the restarted iterator over the
    # unfilled members is empty and HashSet's iterator throws (checked against Kafka 4.3.1 with the oracle)
    members = [{"id": "m0", "subscriptions": ["t0"], "assignment": {}},
               {"id": "m1", "subscriptions": ["t0"], "assignment": {"t0": [1, 0]}},
               {"id": "m2", "subscriptions": ["t0"], "assignment": {"t0": [1]}}]
    with pytest.raises(KafkaError) as info:
        assign_share_group([{"name": "t0", "id": "AAAAAAAAAAAAAAAAAAAAAQ", "partitions": 1}], members)
    assert info.value.type == "NoSuchElementException"


def test_bad_input_names_the_field():
    with pytest.raises(InputError) as info:
        assign_share_group({"t": 3}, [{"id": "A", "subscriptions": ["t"]}], assignable={"t": "0"})
    assert info.value.field == "assignable.t"
    with pytest.raises(InputError) as info:
        assign_share_group({"t": 3}, [{"id": "A", "subscriptions": ["t"]}], assignor="uniform")
    assert info.value.field == "assignor"


# --- properties -------------------------------------------------------------------------------------------------

@st.composite
def share_groups(draw):
    """Topics, members (homogeneous or not) whose current assignments hold only assignable partitions of topics
    they subscribe to (what the coordinator's own target assignment looks like), and maybe an allowed map."""
    topics = {f"t{i}": draw(st.integers(0, 6)) for i in range(draw(st.integers(1, 3)))}
    names = list(topics)
    assignable = None
    if draw(st.booleans()):
        assignable = {t: sorted(draw(st.sets(st.integers(0, max(c - 1, 0)), max_size=c))) if c else []
                      for t, c in topics.items() if draw(st.integers(0, 5)) > 0}
    homogeneous = draw(st.booleans())
    common = draw(st.lists(st.sampled_from(names), unique=True, min_size=1))
    members = []
    for i in range(draw(st.integers(1, 9))):
        subs = common if homogeneous else draw(st.lists(st.sampled_from(names), unique=True))
        assignment = {}
        for t in subs:
            valid = [p for p in range(topics[t]) if assignable is None or p in assignable.get(t, [])]
            held = draw(st.lists(st.sampled_from(valid), unique=True)) if valid else []
            if held:
                assignment[t] = held
        members.append({"id": f"m{i}", "subscriptions": list(subs), "assignment": assignment})
    return topics, members, assignable


def _allowed(assignable, topic, p):
    return assignable is None or p in assignable.get(topic, [])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(share_groups())
def test_every_assignable_partition_goes_to_subscribers_and_no_more_than_desired_sharing(group):
    topics, members, assignable = group
    result = assign_share_group(topics, members, assignable=assignable).by_name()
    subscriptions = {m["id"]: m["subscriptions"] for m in members}
    holders = defaultdict(list)
    for member, held in result.items():
        for topic, partitions in held.items():
            assert topic in subscriptions[member], (member, topic)
            for p in partitions:
                assert _allowed(assignable, topic, p), (member, topic, p)
                holders[(topic, p)].append(member)
    for topic, count in topics.items():
        subscribers = [m for m, subs in subscriptions.items() if topic in subs]
        targets = [p for p in range(count) if _allowed(assignable, topic, p)]
        if not subscribers or not targets:
            continue
        desired_sharing = math.ceil(len(subscribers) / len(targets))
        for p in targets:
            assert 1 <= len(holders[(topic, p)]) <= desired_sharing, (topic, p, holders[(topic, p)])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(share_groups())
def test_homogeneous_sizes_differ_by_at_most_one(group):
    topics, members, assignable = group
    for m in members:  # everyone subscribes to the first member's topics
        m["subscriptions"] = members[0]["subscriptions"]
        m["assignment"] = {t: p for t, p in m["assignment"].items() if t in m["subscriptions"]}
    result = assign_share_group(topics, members, assignable=assignable)
    targets = sum(1 for t in members[0]["subscriptions"] for p in range(topics[t]) if _allowed(assignable, t, p))
    if not targets:
        return
    sizes = [sum(len(p) for p in result.by_name()[m["id"]].values()) for m in members]
    assert max(sizes) - min(sizes) <= 1
    assert max(sizes) <= math.ceil(math.ceil(len(members) / targets) * targets / len(members))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(share_groups())
def test_deterministic_and_stable_when_nothing_changes(group):
    topics, members, assignable = group
    first = assign_share_group(topics, members, assignable=assignable)
    again = assign_share_group(topics, members, assignable=assignable)
    # the same answer, down to the Java iteration order of every member's collections
    assert {m: [(t, list(p)) for t, p in a.items()] for m, a in first.assignment.members.items()} == \
        {m: [(t, list(p)) for t, p in a.items()] for m, a in again.assignment.members.items()}
    carried = [{"id": m["id"], "subscriptions": m["subscriptions"]} for m in members]
    rerun = assign_share_group(topics, carried, assignable=assignable, previous=first)
    assert rerun.by_name() == first.by_name()
