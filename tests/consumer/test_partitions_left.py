"""``getUnassignedPartitions``'s fast paths: the difference by partition number gives exactly what the tuple set
difference gives (including ``None`` for every input where only Kafka's two-pointer walk is right)."""
import random

from rebalance.consumer.abstract_sticky import (all_partitions, partitions_left, partitions_left_by_number,
                                                unassigned_partitions)


def test_all_partitions_layout():
    assert all_partitions(["b", "a"], {"a": 2, "b": 3, "c": 1}) == [("b", 0), ("b", 1), ("b", 2), ("a", 0), ("a", 1)]
    assert all_partitions([], {}) == []


def test_by_number_matches_the_set_difference():
    rng = random.Random(7)
    irregular = 0
    for _ in range(3000):
        topics = [f"t{i}" for i in rng.sample(range(8), rng.randint(1, 5))]
        counts = {t: rng.randint(0, 6) for t in topics}
        everything = all_partitions(topics, counts)
        assigned = rng.sample(everything, rng.randint(0, len(everything)))
        r = rng.random()
        if r < 0.1 and assigned:
            assigned.append(rng.choice(assigned))          # claimed twice
        elif r < 0.2:
            assigned.append(("unknown", 0))                # a topic not in the layout
        elif r < 0.3:
            assigned.append((topics[0], counts[topics[0]]))  # past the topic's last partition
        elif r < 0.35:
            assigned.append((topics[0], -1))
        rng.shuffle(assigned)
        expected = partitions_left(everything, assigned)
        assert partitions_left_by_number(topics, counts, assigned) == expected
        irregular += expected is None
        if expected is not None:
            assert unassigned_partitions(everything, list(assigned), lambda tp: tp) == expected
    assert 500 < irregular < 1500  # both kinds of input were exercised


def test_by_number_rejects_what_is_not_a_pair():
    assert partitions_left_by_number(["t"], {"t": 2}, [("t", "0")]) is None
    assert partitions_left_by_number(["t"], {"t": 2}, [(["t"], 0)]) is None
