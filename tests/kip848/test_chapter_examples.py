"""The chapter's demonstrations, locked in: the hash and tree member maps really give different answers,
the exercise asks about one member giving up a partition, and the at-scale figures."""
from rebalance.kip848 import KIP848Config, assign_group
from rebalance.kip848.compare import join_at_scale, scale_group
from rebalance.kip848.group import moved_partitions
from rebalance.kip848.config import BROKER_BOUNDS_MS


def _moves(held, kind):
    members = [{"id": m, "subscriptions": ["t"], "assignment": {"t": p}} for m, p in held.items()]
    result = assign_group("uniform", {"t": sum(len(p) for p in held.values())}, members, members_map=kind)
    return list(result.by_name()), moved_partitions({m: {"t": p} for m, p in held.items()}, result.by_name())


def test_hash_and_tree_orders_differ_in_the_chapters_example():
    held = {"consumer-1": [0, 1, 2], "consumer-2": [3, 4, 5], "consumer-3": [6]}
    hash_order, hash_moves = _moves(held, "hash")
    tree_order, tree_moves = _moves(held, "tree")
    assert hash_order == ["consumer-3", "consumer-2", "consumer-1"]
    assert tree_order == ["consumer-1", "consumer-2", "consumer-3"]
    # Kafka 4.0.1+ (KAFKA-18688): consumer-3, visited first by the HashMap, gives its "+1" up and consumer-2
    # keeps its three, so one partition moves in either order; only the member that gives it differs.
    # (Up to 4.0.0 consumer-3 took the "+1" and the HashMap order moved two partitions.)
    assert hash_moves == [{"partition": "t-2", "from": "consumer-1", "to": "consumer-3"}]
    assert tree_moves == [{"partition": "t-5", "from": "consumer-2", "to": "consumer-3"}]


def test_the_exercise_has_exactly_one_member_giving_up_in_either_order():
    held = {"consumer-1": [6], "consumer-2": [3, 4, 5], "consumer-3": [0, 1, 2]}
    assert _moves(held, "hash")[1] == [{"partition": "t-5", "from": "consumer-2", "to": "consumer-1"}]
    # sorted: consumer-1 gives its "+1" up (KAFKA-18688, Kafka 4.0.1+), consumer-2 keeps its three and only
    # consumer-3 gives one back (up to 4.0.0 both consumer-2 and consumer-3 did)
    assert _moves(held, "tree")[1] == [{"partition": "t-2", "from": "consumer-3", "to": "consumer-1"}]


def test_moved_partitions_lists_each_change_of_owner():
    before = {"a": {"t": [0, 1]}, "b": {"t": [2]}}
    after = {"a": {"t": [0]}, "b": {"t": [2, 1]}, "c": {"u": [0]}}
    assert moved_partitions(before, after) == [{"partition": "t-1", "from": "a", "to": "b"},
                                               {"partition": "u-0", "from": None, "to": "c"}]


def test_join_at_scale_figures():
    rows = {(r["subscriptions"], r["assignor"]): r for r in join_at_scale(members=100, topics=20, partitions=50)}
    assert rows[("homogeneous", "range")]["max_minus_min"] == 20
    assert rows[("homogeneous", "range")]["idle_members"] == 51
    assert rows[("heterogeneous", "range")]["moved_on_join"] == 207
    assert rows[("heterogeneous", "uniform")]["moved_on_join"] == 9
    topics, members = scale_group(4, 6, 2, heterogeneous=True)
    assert len(topics) == 6 and all(len(m["subscriptions"]) == 3 for m in members)


def test_defaults_and_bounds_are_kafkas():
    # GroupCoordinatorConfig (Kafka 3.8/3.9) lines 95-115; the assignment interval's (4.3.0 and later) lines 240-250
    config = KIP848Config()
    assert (config.heartbeat_interval_ms, config.session_timeout_ms) == (5_000, 45_000)
    assert config.assignment_interval_ms == 1_000
    assert BROKER_BOUNDS_MS == {"group.consumer.heartbeat.interval.ms": (5_000, 15_000),
                                "group.consumer.session.timeout.ms": (45_000, 60_000),
                                "group.consumer.assignment.interval.ms": (0, 15_000)}
