"""Issue 13, item 1 for KIP-848: one interface (ConsumerGroupPartitionAssignor), one registry, replay switches in
an options object, one validation path for assign_group and the group vectors."""
import inspect

import pytest

from rebalance.errors import InputError
from rebalance.kip848 import (ASSIGNORS, ConsumerGroupPartitionAssignor, GroupResult, RangeAssignor, ReplayOptions,
                              SubscribedTopicDescriber, TopicCatalog, UniformAssignor, assign_group, assignor_for)
from rebalance.kip848 import compare, group
from rebalance.kip848.vectors import run


def test_the_registry_is_group_consumer_assignors_default():
    # GroupCoordinatorConfig.CONSUMER_GROUP_ASSIGNORS_DEFAULT: UniformAssignor, RangeAssignor
    assert list(ASSIGNORS) == ["uniform", "range"]
    assert isinstance(ASSIGNORS["uniform"], UniformAssignor) and isinstance(ASSIGNORS["range"], RangeAssignor)
    assert group.ASSIGNORS is ASSIGNORS
    with pytest.raises(InputError) as info:
        assignor_for("sticky")
    assert info.value.field == "assignor"


@pytest.mark.parametrize("name", list(ASSIGNORS))
def test_every_registered_assignor_satisfies_the_protocol(name):
    assignor = ASSIGNORS[name]
    assert isinstance(assignor, ConsumerGroupPartitionAssignor)
    assert assignor.name() == name
    want = list(inspect.signature(ConsumerGroupPartitionAssignor.assign).parameters)[1:]
    assert list(inspect.signature(assignor.assign).parameters) == want


def test_the_topic_describer_satisfies_its_protocol():
    assert isinstance(TopicCatalog.parse({"t": 3}).describer(), SubscribedTopicDescriber)


def test_the_registry_feeds_assign_group_and_compare():
    result = assign_group("range", {"t": 4}, [{"id": "a", "subscriptions": ["t"]}, {"id": "b", "subscriptions": ["t"]}])
    assert isinstance(result, GroupResult) and result.assignor == "range"
    assert result.by_name() == {"a": {"t": [0, 1]}, "b": {"t": [2, 3]}}
    rows = compare.join_at_scale(members=4, topics=2, partitions=4)
    assert [r["assignor"] for r in rows] == list(ASSIGNORS) * 2


def test_the_replay_switches_are_only_an_options_object():
    params = inspect.signature(assign_group).parameters
    for switch in ("assignment_map", "subscription_set", "subscription_type", "inverted_assignment"):
        assert switch not in params
    members = [{"id": "a", "subscriptions": ["t"]}, {"id": "b", "subscriptions": ["u"]}]
    forced = assign_group("uniform", {"t": 2, "u": 2}, members, replay=ReplayOptions(subscription_type="HOMOGENEOUS"))
    assert forced.subscription_type == "HOMOGENEOUS"
    assert assign_group("uniform", {"t": 2, "u": 2}, members).subscription_type == "HETEROGENEOUS"


@pytest.mark.parametrize("members, field", [
    ([{"id": "a", "subscriptions": [5]}], "members[0].subscriptions"),
    ([{"id": "", "subscriptions": ["t"]}], "members[0].id"),
    ([{"id": "a", "subscriptions": ["t"]}, {"id": "a", "subscriptions": ["t"]}], "members[1].id"),
    ([{"id": "a", "subscriptions": ["nope"]}], "members[0].subscriptions[0]"),
    ([{"id": "a", "subscriptions": ["t"], "assignment": {"t": "0"}}], "members[0].assignment.t"),
    ([{"id": "a", "subscription": ["t"]}], "members[0].subscription"),
    ({"id": "a"}, "members"),
])
def test_dict_input_and_vectors_input_share_one_validation(members, field):
    with pytest.raises(InputError) as direct:
        assign_group("uniform", {"t": 3}, members)
    with pytest.raises(InputError) as replayed:
        run({"kind": "group", "assignor": "uniform", "topics": {"t": 3}, "members": members})
    assert (direct.value.field, direct.value.message) == (replayed.value.field, replayed.value.message)
    assert direct.value.field == field
    with pytest.raises(InputError) as stepped:
        run({"kind": "group", "topics": {"t": 3}, "steps": [{"members": members}]})
    assert (stepped.value.field, stepped.value.message) == (f"steps[0].{field}", direct.value.message)


@pytest.mark.parametrize("options, field", [
    ({"assignment_map": "tree"}, "assignment_map"),
    ({"subscription_set": "sorted"}, "subscription_set"),
    ({"subscription_type": "MIXED"}, "subscription_type"),
])
def test_the_replay_options_are_checked_once(options, field):
    members = [{"id": "a", "subscriptions": ["t"]}]
    with pytest.raises(InputError) as direct:
        assign_group("uniform", {"t": 3}, members, replay=ReplayOptions(**options))
    with pytest.raises(InputError) as replayed:
        run({"kind": "group", "topics": {"t": 3}, "members": members, **options})
    assert (direct.value.field, direct.value.message) == (replayed.value.field, replayed.value.message)
    assert direct.value.field == field
