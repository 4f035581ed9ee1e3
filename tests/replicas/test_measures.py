"""Balance measures of a placement: per broker, per rack, racks per partition, skew."""
import pytest

from rebalance.errors import InputError
from rebalance.replicas.adminutils import assign_replicas_to_brokers
from rebalance.replicas.measures import (as_mapping, balance, leaders_per_broker, leaders_per_rack,
                                         racks_per_partition, replicas_per_broker, replicas_per_rack, skew)

BROKERS = [(0, "a"), (1, "a"), (2, "b"), (3, None)]
ASSIGNMENT = {0: [0, 2], 1: [0, 1], 2: [2, 0]}


def test_counts_per_broker_include_idle_brokers():
    assert leaders_per_broker(ASSIGNMENT, BROKERS) == {0: 2, 1: 0, 2: 1, 3: 0}
    assert replicas_per_broker(ASSIGNMENT, BROKERS) == {0: 3, 1: 1, 2: 2, 3: 0}
    assert leaders_per_broker(ASSIGNMENT) == {0: 2, 2: 1}


def test_counts_per_rack_and_racks_per_partition():
    assert leaders_per_rack(ASSIGNMENT, BROKERS) == {None: 0, "a": 2, "b": 1}
    assert replicas_per_rack(ASSIGNMENT, BROKERS) == {None: 0, "a": 4, "b": 2}
    assert racks_per_partition(ASSIGNMENT, BROKERS) == {0: 2, 1: 1, 2: 2}


def test_list_form_and_skew():
    assert as_mapping([[1, 2], [2, 1]]) == {0: [1, 2], 1: [2, 1]}
    assert skew({0: 3, 1: 1, 2: 2}) == 2 and skew([]) == 0 and skew([4, 4]) == 0


def test_balance_of_the_article_example_is_perfect():
    brokers = [(0, "rack1"), (1, "rack3"), (2, "rack3"), (3, "rack2"), (4, "rack2"), (5, "rack1")]
    b = balance(assign_replicas_to_brokers(brokers, 6, 3, 0, 0), brokers)
    assert (b.leader_skew, b.replica_skew, b.leader_rack_skew, b.replica_rack_skew) == (0, 0, 0, 0)
    assert (b.partitions, b.min_racks_per_partition, b.max_leaders, b.max_replicas) == (6, 3, 1, 3)


def test_unknown_broker_and_bad_assignment():
    with pytest.raises(InputError) as exc:
        replicas_per_rack({0: [9]}, BROKERS)
    assert exc.value.field == "brokers"
    with pytest.raises(InputError) as exc:
        as_mapping("0:1")
    assert exc.value.field == "assignment"
