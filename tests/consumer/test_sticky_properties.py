"""Hypothesis properties of StickyAssignor and CooperativeStickyAssignor (Kafka 3.8/3.9 logic)."""
import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rebalance.consumer.abstract_sticky import balance_score
from rebalance.consumer.api import build_scenario
from rebalance.consumer.cooperative_sticky import CooperativeStickyAssignor
from rebalance.consumer.sticky import StickyAssignor

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TOPICS = ["t0", "t1", "t2", "topic-3"]


@st.composite
def groups(draw, equal_subscriptions=False, with_owned=True):
    """A group: topic sizes, members with subscriptions and (valid, non-overlapping) owned partitions."""
    partitions = {t: draw(st.integers(0, 7)) for t in TOPICS[:draw(st.integers(1, 4))]}
    topics = list(partitions)
    n = draw(st.integers(1, 6))
    names = draw(st.lists(st.text("abcxyz0123-", min_size=1, max_size=6), min_size=n, max_size=n, unique=True))
    common = draw(st.lists(st.sampled_from(topics), min_size=1, unique=True))
    members = {}
    free = [(t, p) for t in topics for p in range(partitions[t])]
    for name in names:
        subscribed = common if equal_subscriptions else draw(st.lists(st.sampled_from(topics), min_size=1, unique=True))
        owned = []
        # a member reports partitions of topics it still subscribes to (see test_sticky.py for what Kafka
        # does with an older-generation claim on a topic the member dropped)
        mine = [tp for tp in free if tp[0] in subscribed]
        if with_owned and mine:
            owned = draw(st.lists(st.sampled_from(mine), unique=True, max_size=4))
            free = [tp for tp in free if tp not in owned]
        spec = {"topics": subscribed, "owned": owned}
        if owned or draw(st.booleans()):
            spec["generation"] = draw(st.integers(1, 3))
        members[name] = spec
    return partitions, members


def _check_complete(partitions, members, assignment):
    """Every partition of a subscribed topic is assigned exactly once, and only to a subscriber."""
    seen = {}
    for member, tps in assignment.items():
        for tp in tps:
            assert tp not in seen, f"{tp} assigned twice"
            seen[tp] = member
            assert tp[0] in members[member]["topics"]
    subscribed = {t for spec in members.values() for t in spec["topics"]}
    expected = {(t, p) for t in subscribed for p in range(partitions[t])}
    assert set(seen) == expected


@SETTINGS
@given(groups(), st.sampled_from(["sticky", "cooperative-sticky"]))
def test_every_partition_assigned_exactly_once_to_a_subscriber(group, assignor):
    partitions, members = group
    cls = StickyAssignor if assignor == "sticky" else CooperativeStickyAssignor
    result = cls().assign(build_scenario(assignor, partitions, members))
    plan = result.full_assignment if assignor == "cooperative-sticky" else result.assignment
    _check_complete(partitions, members, plan)
    assert set(result.assignment) == set(members)


@SETTINGS
@given(groups(equal_subscriptions=True))
def test_balanced_within_one_when_subscriptions_are_equal(group):
    partitions, members = group
    result = StickyAssignor().assign(build_scenario("sticky", partitions, members))
    assert result.path == "constrained"
    sizes = [len(tps) for tps in result.assignment.values()]
    assert max(sizes) - min(sizes) <= 1


@SETTINGS
@given(groups(equal_subscriptions=True, with_owned=False), st.data())
def test_members_that_stay_keep_their_partitions_when_one_leaves(group, data):
    partitions, members = group
    assignor = StickyAssignor()
    first = assignor.assign(build_scenario("sticky", partitions, members)).assignment
    if len(members) < 2:
        return
    leaving = data.draw(st.sampled_from(sorted(members)))
    survivors = {m: {"topics": spec["topics"], "owned": first[m], "generation": 1}
                 for m, spec in members.items() if m != leaving}
    second = assignor.assign(build_scenario("sticky", partitions, survivors)).assignment
    for member in survivors:
        assert set(first[member]) <= set(second[member]), member
    _check_complete(partitions, survivors, second)


@SETTINGS
@given(groups())
def test_cooperative_never_hands_a_revoked_partition_to_its_new_owner_in_the_same_round(group):
    partitions, members = group
    result = CooperativeStickyAssignor().assign(build_scenario("cooperative-sticky", partitions, members))
    owner = {tp: m for m, spec in members.items() for tp in spec["owned"]}
    given_now = {tp for tps in result.assignment.values() for tp in tps}
    for member, tps in result.full_assignment.items():
        for tp in tps:
            if tp in owner and owner[tp] != member:
                # owned by someone else and planned for `member`: absent from everyone's round-1 assignment
                assert tp not in given_now
    # nothing else is withheld: the round-1 assignment is the plan minus exactly those partitions
    for member, tps in result.assignment.items():
        assert set(tps) <= set(result.full_assignment[member])


@SETTINGS
@given(st.lists(st.integers(0, 50), max_size=12))
def test_balance_score_matches_the_pairwise_definition(sizes):
    assert balance_score(sizes) == sum(abs(a - b) for a, b in itertools.combinations(sizes, 2))
    assert (balance_score(sizes) == 0) == (len(set(sizes)) <= 1)
