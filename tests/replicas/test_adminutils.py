"""AdminUtils.assignReplicasToBrokers: the replica-assignment article's example, Kafka's vectors, errors,
properties; AdminZkClient's partition addition."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rebalance.errors import InputError, KafkaError
from rebalance.replicas.adminutils import (ADMIN_OPERATION, INVALID_PARTITIONS, INVALID_REPLICATION_FACTOR,
                                           add_partitions, assign_replicas_to_brokers, explain, rack_alternated_broker_list,
                                           replica_index)
from rebalance.replicas.java_random import JavaRandom
from rebalance.replicas.measures import leaders_per_broker, racks_per_partition, replicas_per_broker, skew
from rebalance.replicas.vectors import run
from rebalance.vectors import compare_output, run_input

# The replica-assignment article's example: six brokers in three racks -- rack1: 0, 5; rack2: 3, 4; rack3: 1, 2
ARTICLE_BROKERS = [{"id": 0, "rack": "rack1"}, {"id": 1, "rack": "rack3"}, {"id": 2, "rack": "rack3"},
                {"id": 3, "rack": "rack2"}, {"id": 4, "rack": "rack2"}, {"id": 5, "rack": "rack1"}]
ARTICLE_TABLE = {0: [0, 3, 1], 1: [3, 1, 5], 2: [1, 5, 4], 3: [5, 4, 2], 4: [4, 2, 0], 5: [2, 0, 3]}


def test_vector_matches_kafka(adminutils_vector):
    actual = run_input(adminutils_vector["input"])
    assert compare_output("adminutils", adminutils_vector["output"], actual) == []
    if "error" in actual:  # same exception class and Kafka's exact message
        assert actual == adminutils_vector["output"]


def test_article_rack_alternated_list():
    racks = {b["id"]: b["rack"] for b in ARTICLE_BROKERS}
    assert rack_alternated_broker_list(racks) == [0, 3, 1, 5, 4, 2]


def test_article_six_partitions_rf3_table():
    # the article's table: start index 0 on the rack-alternated list, partitions numbered from 0
    assert assign_replicas_to_brokers(ARTICLE_BROKERS, 6, 3, fixed_start_index=0, start_partition_id=0) == ARTICLE_TABLE
    # every broker leads once and holds three replicas; every partition spans the three racks
    a = ARTICLE_TABLE
    assert set(leaders_per_broker(a).values()) == {1}
    assert set(replicas_per_broker(a).values()) == {3}
    assert set(racks_per_partition(a, ARTICLE_BROKERS).values()) == {3}


def test_article_partition_6_gets_0_4_2_because_the_followers_shift():
    # the seventh partition (id 6) starts a second lap of the 6-broker list: nextReplicaShift becomes 1,
    # so followers start 1 + (1 * 3 racks + k) % 5 = 4, then 5 positions after the leader: brokers 4 and 2
    trace = explain(ARTICLE_BROKERS, 7, 3, fixed_start_index=0, start_partition_id=0)
    assert [t.replicas for t in trace[:6]] == list(ARTICLE_TABLE.values())
    p6 = trace[6]
    assert (p6.partition, p6.first_replica_index, p6.next_replica_shift) == (6, 0, 1)
    assert [t.next_replica_shift for t in trace[:6]] == [0] * 6
    assert p6.replicas == [0, 4, 2]
    assert [(c.index, c.broker, c.accepted) for c in p6.candidates] == [(4, 4, True), (5, 2, True)]
    # without the shift the seventh partition would repeat partition 0's replicas
    assert replica_index(0, 0 * 3, 0, 6) == 1 and replica_index(0, 1 * 3, 0, 6) == 4


def test_adding_partition_6_later_gives_the_same_replicas():
    # AdminZkClient.createNewPartitionsAssignment: startIndex = partition 0's leader's position in the
    # id-sorted list (0), startPartitionId = existing count (6); here that continues the original placement
    assert assign_replicas_to_brokers(ARTICLE_BROKERS, 1, 3, fixed_start_index=0, start_partition_id=6) == {6: [0, 4, 2]}
    assert add_partitions(ARTICLE_BROKERS, ARTICLE_TABLE, 7) == {6: [0, 4, 2]}


def test_adding_partitions_does_not_continue_the_original_placement_in_general():
    """Kafka reuses one index as start and shift, counts laps only over the new partitions and, with
    racks, takes a position in the id-sorted list as a position in the rack-alternated list."""
    # 1. laps of the existing partitions are forgotten: partition 7 of a 7-partition topic
    seven = assign_replicas_to_brokers(ARTICLE_BROKERS, 7, 3, fixed_start_index=0)
    assert assign_replicas_to_brokers(ARTICLE_BROKERS, 8, 3, fixed_start_index=0)[7] == [3, 2, 0]
    assert add_partitions(ARTICLE_BROKERS, seven, 8) == {7: [3, 1, 5]}
    # 2. rack-aware, start index 1: partition 0 is led by broker 3, position 3 in the id-sorted list
    six = assign_replicas_to_brokers(ARTICLE_BROKERS, 6, 3, fixed_start_index=1)
    assert six[0][0] == 3
    assert assign_replicas_to_brokers(ARTICLE_BROKERS, 7, 3, fixed_start_index=1)[6] == [3, 5, 2]
    assert add_partitions(ARTICLE_BROKERS, six, 7) == {6: [5, 3, 1]}
    # 3. no racks, random start: Kafka drew start 4 and shift 0; the addition uses 4 for both
    five = list(range(5))
    ten = assign_replicas_to_brokers(five, 10, 3, random=JavaRandom(3))
    assert assign_replicas_to_brokers(five, 11, 3, random=JavaRandom(3))[10] == [4, 2, 3]
    assert add_partitions(five, ten, 11) == {10: [4, 1, 2]}


def test_add_partitions_sorts_brokers_and_takes_the_first_id_at_or_above_the_leader():
    # partition 0 led by broker 7, which has left: the first broker with an id >= 7 is broker 9
    assert add_partitions([9, 3, 5], {0: [7, 3], 1: [3, 5]}, 3) == \
        assign_replicas_to_brokers([3, 5, 9], 1, 2, fixed_start_index=2, start_partition_id=2)
    # no broker with an id that high: index 0 (math.max(0, -1))
    assert add_partitions([1, 2], {0: [8, 1]}, 2) == assign_replicas_to_brokers([1, 2], 1, 2, 0, 1)


def test_add_partitions_errors_are_kafkas():
    with pytest.raises(KafkaError) as err:
        add_partitions([0, 1], {1: [0, 1]}, 3, topic="t")
    assert err.value.type == ADMIN_OPERATION and "partition id 0 is missing" in err.value.message
    with pytest.raises(KafkaError) as err:
        add_partitions([0, 1], {0: [0, 1], 1: [1, 0]}, 2, topic="t")
    assert err.value.type == INVALID_PARTITIONS
    assert err.value.message == ("The number of partitions for a topic can only be increased. Topic t currently "
                                 "has 2 partitions, 2 would not be an increase.")
    with pytest.raises(InputError) as bad:
        add_partitions([0, 1], [[0, 1]], 2)
    assert bad.value.field == "existingAssignment"


def test_rack_aware_skips_a_broker_whose_rack_already_has_a_replica():
    # racks a: 0, 3, 4; b: 1; c: 2 -> alternated list 0, 1, 2, 3, 4
    brokers = [(0, "a"), (1, "b"), (2, "c"), (3, "a"), (4, "a")]
    trace = explain(brokers, 5, 3, fixed_start_index=0)
    skipped = [c for t in trace for c in t.candidates if not c.accepted]
    assert skipped, "some candidate must be skipped for an uneven rack layout"
    assert all("already has a replica" in c.reason for c in skipped)
    assert all(len({dict(brokers)[b] for b in t.replicas}) == 3 for t in trace)


def test_rack_unaware_uses_the_given_order():
    assert assign_replicas_to_brokers([4, 2, 9], 3, 2, fixed_start_index=0) == {0: [4, 2], 1: [2, 9], 2: [9, 4]}
    assert assign_replicas_to_brokers([2, 4, 9], 3, 2, fixed_start_index=0) == {0: [2, 4], 1: [4, 9], 2: [9, 2]}


def test_random_start_draws_start_index_then_shift_from_java_random():
    seed = 20240601
    draws = JavaRandom(seed)
    start, shift = draws.next_int(6), draws.next_int(6)
    trace = []
    result = assign_replicas_to_brokers(ARTICLE_BROKERS, 6, 3, seed=seed, trace=trace)
    arranged = [0, 3, 1, 5, 4, 2]
    assert [t.first_replica_index for t in trace] == [(p + start) % 6 for p in range(6)]
    assert [t.next_replica_shift for t in trace] == [shift] * 6
    assert result[0][0] == arranged[start]
    shared = JavaRandom(seed)
    assert assign_replicas_to_brokers(ARTICLE_BROKERS, 6, 3, random=shared) == result
    assert shared.state == draws.state  # exactly two numbers drawn


@pytest.mark.parametrize("partitions, rf, brokers, error, message", [
    (0, 3, ARTICLE_BROKERS, INVALID_PARTITIONS, "Number of partitions must be larger than 0."),
    (0, 3, ARTICLE_BROKERS, INVALID_PARTITIONS, "Number of partitions must be larger than 0."),
    (6, 0, ARTICLE_BROKERS, INVALID_REPLICATION_FACTOR, "Replication factor must be larger than 0."),
    (6, 7, ARTICLE_BROKERS, INVALID_REPLICATION_FACTOR, "Replication factor: 7 larger than available brokers: 6."),
    (6, 1, [], INVALID_REPLICATION_FACTOR, "Replication factor: 1 larger than available brokers: 0."),
    (6, 2, [(0, "r1"), (1, None)], ADMIN_OPERATION,
     "Not all brokers have rack information for replica rack aware assignment."),
])
def test_kafka_errors(partitions, rf, brokers, error, message):
    with pytest.raises(KafkaError) as exc:
        assign_replicas_to_brokers(brokers, partitions, rf, 0)
    assert (exc.value.type, exc.value.message) == (error, message)
    assert error.rsplit(".", 1)[1] in ("InvalidPartitionsException", "InvalidReplicationFactorException",
                                       "AdminOperationException")


@pytest.mark.parametrize("scenario, field", [
    ({"brokers": [0, 1], "partitions": 3, "replicationFactor": "three"}, "replicationFactor"),
    ({"brokers": [0, 1], "partitions": 3, "replicationFactor": 2.5}, "replicationFactor"),
    ({"brokers": [0, 1], "partitions": -1, "replicationFactor": 1}, "partitions"),
    ({"brokers": [0, 1], "partitions": True, "replicationFactor": 1}, "partitions"),
    ({"brokers": "0,1", "partitions": 3, "replicationFactor": 1}, "brokers"),
    ({"brokers": [{"rack": "a"}], "partitions": 3, "replicationFactor": 1}, "brokers[0].id"),
    ({"brokers": [{"id": 0, "rack": 7}], "partitions": 3, "replicationFactor": 1}, "brokers[0].rack"),
    ({"brokers": [{"id": 0}, {"id": 0}], "partitions": 3, "replicationFactor": 1}, "brokers[1].id"),
    ({"brokers": [{"id": -2}], "partitions": 3, "replicationFactor": 1}, "brokers[0].id"),
    ({"brokers": [0], "partitions": 1 << 31, "replicationFactor": 1}, "partitions"),
    ({"brokers": [0], "replicationFactor": 1}, "partitions"),
])
def test_bad_input_names_the_field(scenario, field):
    with pytest.raises(InputError) as exc:
        run({"kind": "adminutils", **scenario})
    assert exc.value.field == field


def test_rack_alternated_list_only_on_the_rack_aware_path():
    out = run({"kind": "adminutils", "brokers": [{"id": 1}, {"id": 0}], "partitions": 2, "replicationFactor": 2,
               "fixedStartIndex": 0, "startPartitionId": -1})
    assert out == {"assignment": {"0": [1, 0], "1": [0, 1]}}


def test_int_overflow_of_the_partition_id_is_reproduced():
    # currentPartitionId + startIndex overflows a Java int: Kafka indexes the list with a negative number
    with pytest.raises(KafkaError) as exc:
        assign_replicas_to_brokers([0, 1, 2], 2, 1, fixed_start_index=5, start_partition_id=(1 << 31) - 5)
    assert exc.value.type == "java.lang.IndexOutOfBoundsException"


# ---- properties -------------------------------------------------------------------------------------


@st.composite
def clusters(draw, racks=True):
    n = draw(st.integers(min_value=1, max_value=12))
    ids = draw(st.lists(st.integers(min_value=0, max_value=200), min_size=n, max_size=n, unique=True))
    if not racks:
        return [{"id": i} for i in ids]
    num_racks = draw(st.integers(min_value=1, max_value=n))
    return [{"id": i, "rack": f"r{draw(st.integers(0, num_racks - 1))}"} for i in ids]


def _args(draw_cluster, data):
    brokers = data.draw(draw_cluster)
    rf = data.draw(st.integers(min_value=1, max_value=len(brokers)))
    partitions = data.draw(st.integers(min_value=1, max_value=60))
    start = data.draw(st.integers(min_value=0, max_value=3 * len(brokers)))
    first_id = data.draw(st.integers(min_value=-1, max_value=100))
    return brokers, partitions, rf, start, first_id


@given(st.data(), st.booleans())
@settings(max_examples=150, deadline=None)
def test_property_replicas_of_a_partition_are_distinct_brokers(data, racks):
    brokers, partitions, rf, start, first_id = _args(clusters(racks), data)
    result = assign_replicas_to_brokers(brokers, partitions, rf, start, first_id)
    ids = {b["id"] for b in brokers}
    assert list(result) == list(range(max(0, first_id), max(0, first_id) + partitions))
    for replicas in result.values():
        assert len(replicas) == rf == len(set(replicas)) and set(replicas) <= ids


@given(st.data())
@settings(max_examples=150, deadline=None)
def test_property_one_replica_per_rack_when_rf_at_most_racks(data):
    brokers, partitions, rf, start, first_id = _args(clusters(True), data)
    racks = {b["id"]: b["rack"] for b in brokers}
    num_racks = len(set(racks.values()))
    result = assign_replicas_to_brokers(brokers, partitions, rf, start, first_id)
    for replicas in result.values():
        spanned = len({racks[b] for b in replicas})
        assert spanned == min(rf, num_racks)  # at most one replica per rack, every rack once RF >= racks


@given(st.data(), st.booleans())
@settings(max_examples=150, deadline=None)
def test_property_leaders_within_one_with_fixed_start(data, racks):
    brokers, partitions, rf, start, first_id = _args(clusters(racks), data)
    result = assign_replicas_to_brokers(brokers, partitions, rf, start, first_id)
    assert skew(leaders_per_broker(result, brokers)) <= 1


@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4), st.integers(0, 30))
@settings(max_examples=100, deadline=None)
def test_property_equal_racks_and_rf_equal_racks_is_perfectly_even(num_racks, per_rack, laps, start):
    # Kafka's promise: RF == #racks and equal racks -> replicas even across brokers and racks
    brokers = [{"id": i, "rack": f"rack{i % num_racks}"} for i in range(num_racks * per_rack)]
    n = len(brokers)
    result = assign_replicas_to_brokers(brokers, n * laps, num_racks, start)
    assert skew(replicas_per_broker(result, brokers)) == 0
    assert skew(leaders_per_broker(result, brokers)) == 0


def test_uneven_racks_are_not_even():
    # a one-broker rack next to two three-broker racks: that broker is in every partition
    brokers = [(0, "a"), (1, "a"), (2, "a"), (3, "b"), (4, "b"), (5, "b"), (6, "c")]
    result = assign_replicas_to_brokers(brokers, 14, 3, 0)
    per_broker = replicas_per_broker(result, brokers)
    assert per_broker[6] == 14 and skew(per_broker) > 5
