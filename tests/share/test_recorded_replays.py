"""Two share groups recorded on a real Kafka 4.3.1 broker whose targets the replay first could not reproduce
(``recorded/``): in both, two keys fell into one bucket of a ``HashMap`` the coordinator fills, so the order it
filled them in decided the target.  Each needs one rule of the real coordinator that Kafka's unit tests (and so the
vectors) do not exercise:

* ``collision-of-member-ids``: ``TargetAssignmentBuilder`` fills its member ``HashMap`` by iterating the group's
  ``TimelineHashMap`` of members (:class:`rebalance.jcollections.TimelineHashOrder`), not in member-id order;
* ``collision-of-partitions``: a member's subscribed topic ids iterate in the order of a ``HashSet`` of topic
  *names* (``TopicIds``; ``ReplayOptions.subscription_set == "names"``, the coordinator's), not of topic ids.
"""
import json
from pathlib import Path

import pytest

from rebalance.jcollections import TimelineHashOrder
from rebalance.kafka import share_scenarios
from rebalance.kip848 import group as kip848_group
from rebalance.kip848.assignor import ReplayOptions
from rebalance.share.simulate import parse_share_scenario

HERE = Path(__file__).resolve().parent / "recorded"


class _Player:
    def __init__(self, recorded):
        self.descriptions = [(t, g) for t, g in recorded["descriptions"]]
        self.topic_ids = recorded["topic_ids"]


def _changes(name):
    recorded = json.loads((HERE / f"{name}.json").read_text())
    return share_scenarios._changes(parse_share_scenario(recorded["scenario"]), _Player(recorded)), recorded


@pytest.mark.parametrize("name", ["collision-of-member-ids", "collision-of-partitions"])
def test_every_recorded_target_is_replayed(name):
    rows, _ = _changes(name)
    assert rows and all(r["replayed"] for r in rows)


def test_member_ids_in_one_bucket_follow_the_timeline_map():
    rows, recorded = _changes("collision-of-member-ids")
    last = recorded["descriptions"][-1][1]
    s = parse_share_scenario(recorded["scenario"])
    by_id = {}  # every member started empty: the target was computed from nothing
    assert not share_scenarios.replays(s, recorded["topic_ids"], last, by_id)  # in the description's order
    order = TimelineHashOrder()
    for m in ["03glXupOQyuz6xWkJbw7aQ", "HRVbhB0wRQ6Q2M6qG712sg", "W9J2Fz4HTBu6iEtqF96h3A"]:  # join order (m1, m3, m2)
        order.put(m)
    assert order.keys() == ["W9J2Fz4HTBu6iEtqF96h3A", "03glXupOQyuz6xWkJbw7aQ", "HRVbhB0wRQ6Q2M6qG712sg"]
    assert share_scenarios.replays(s, recorded["topic_ids"], last, by_id, order.keys())


def test_partitions_in_one_bucket_follow_the_names_hash_set(monkeypatch):
    monkeypatch.setattr(kip848_group, "COORDINATOR", ReplayOptions(subscription_set="hash"))  # as before
    rows, _ = _changes("collision-of-partitions")
    assert not all(r["replayed"] for r in rows)


def test_the_timeline_order_grows_and_forgets_as_kafka_s_table_does():
    order = TimelineHashOrder()
    keys = [f"member-{i}" for i in range(40)]
    for k in keys:
        order.put(k)
    order.put(keys[0])  # a key put again keeps its place
    for k in keys[::3]:
        order.remove(k)
    left = order.keys()
    assert sorted(left) == sorted(set(keys) - set(keys[::3]))
    assert order.capacity == 32  # doubled from 2 whenever (size + 1) * 0.75 > capacity; removals never shrink it


def test_following_a_group_removes_the_gone_and_puts_the_new_in_order():
    """``TimelineHashOrder.follow``: the same map as removing the members that left, then putting the new ones."""
    keys = [f"member-{i}" for i in range(12)]
    by_hand, followed = TimelineHashOrder(), TimelineHashOrder()
    for k in keys:
        by_hand.put(k)
        followed.put(k)
    now = keys[3:9] + ["member-20", "member-21"]
    for k in keys:
        if k not in now:
            by_hand.remove(k)
    kept = by_hand.keys()
    for k in now[6:]:
        by_hand.put(k)
    assert followed.follow(now) == kept
    assert followed.keys() == by_hand.keys()
