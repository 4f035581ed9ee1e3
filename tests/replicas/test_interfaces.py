"""Issue 13, item 1 for replicas: one interface (ReplicaPlacer), one registry, one result type, one validation path."""
import inspect

import pytest

from rebalance.errors import InputError, KafkaError
from rebalance.replicas import (PLACERS, AdminUtilsPlacer, Broker, BrokerCluster, ClusterDescriber, JavaRandom,
                                PlacementSpec, ReplicaPlacer, StripedReplicaPlacer, TopicAssignment,
                                assign_replicas_to_brokers, placer_for)
from rebalance.replicas.vectors import run
from rebalance.spark.jobs import placement as placement_job
from rebalance.widgets import replicas as widgets

BROKERS = [Broker(i, f"r{i % 3}") for i in range(6)]


def test_the_registry_names_kafkas_two_placers():
    assert list(PLACERS) == ["AdminUtils", "StripedReplicaPlacer"]
    assert isinstance(placer_for("AdminUtils"), AdminUtilsPlacer)
    assert isinstance(placer_for("StripedReplicaPlacer"), StripedReplicaPlacer)
    # every caller lists the registry, not a copy of it
    assert placement_job.PLACERS == tuple(PLACERS)
    assert widgets.PLACERS is PLACERS
    with pytest.raises(InputError) as info:
        placer_for("RackAwareReplicaPlacer")
    assert info.value.field == "placer"


@pytest.mark.parametrize("name", list(PLACERS))
def test_every_registered_placer_satisfies_the_protocol(name):
    placer = placer_for(name, JavaRandom(0))
    assert isinstance(placer, ReplicaPlacer)
    want = list(inspect.signature(ReplicaPlacer.place).parameters)[1:]
    assert list(inspect.signature(placer.place).parameters) == want
    result = placer.place(PlacementSpec(0, 4, 3), BrokerCluster(BROKERS))
    assert isinstance(result, TopicAssignment) and len(result) == 4
    assert all(len(set(a.replicas)) == 3 for a in result.assignments)


def test_a_broker_cluster_is_a_cluster_describer():
    cluster = BrokerCluster([0, (1, "r1"), {"id": 2, "rack": "r2", "fenced": True}])
    assert isinstance(cluster, ClusterDescriber)
    assert [b.id for b in cluster.usable_brokers()] == [0, 1, 2]


def test_the_adminutils_adapter_is_assign_replicas_to_brokers():
    direct = assign_replicas_to_brokers(BROKERS, 7, 3, 2, 5)
    adapted = AdminUtilsPlacer(fixed_start_index=2).place(PlacementSpec(5, 7, 3), BROKERS)
    assert adapted.as_mapping() == direct
    shared = JavaRandom(11)
    placer = AdminUtilsPlacer(JavaRandom(11))  # one stream for every call, like Kafka's static RAND
    first, second = (placer.place(PlacementSpec(0, 5, 2), BROKERS) for _ in range(2))
    assert first.as_mapping() == assign_replicas_to_brokers(BROKERS, 5, 2, random=shared)
    assert second.as_mapping() == assign_replicas_to_brokers(BROKERS, 5, 2, random=shared)


def test_a_kafka_error_is_the_same_from_both_placers():
    for name in PLACERS:
        with pytest.raises(KafkaError) as info:
            placer_for(name).place(PlacementSpec(0, 3, 7), BROKERS)
        assert info.value.type.endswith("InvalidReplicationFactorException")


@pytest.mark.parametrize("placement, field", [
    ({"numPartitions": 3, "numReplicas": "x"}, "numReplicas"),
    ({"numPartitions": 3, "numReplicas": 1 << 15}, "numReplicas"),
    ({"numPartitions": -1, "numReplicas": 2}, "numPartitions"),
    ({"numReplicas": 2}, "numPartitions"),
    ({"numPartitions": 3, "numReplicas": 2, "startPartition": None}, "startPartition"),
    ({"numPartitions": 3, "numReplica": 2}, "numReplica"),
])
def test_dict_input_and_vectors_input_share_one_validation_of_a_placement(placement, field):
    with pytest.raises(InputError) as direct:
        StripedReplicaPlacer(JavaRandom(0)).place(placement, BROKERS)
    with pytest.raises(InputError) as replayed:
        run({"kind": "striped", "seed": 0, "brokers": [b.to_json() for b in BROKERS], "placements": [placement]})
    assert direct.value.field == field and replayed.value.field == f"placements[0].{field}"
    assert direct.value.message == replayed.value.message


@pytest.mark.parametrize("brokers, field", [
    ([{"id": -1}], "brokers[0].id"),
    ([{"id": 0, "rack": 3}], "brokers[0].rack"),
    ([{"id": 0}, {"id": 0}], "brokers[1].id"),
    ([{"id": 0, "fenced": True}], "brokers[0].fenced"),
    ("0,1", "brokers"),
])
def test_dict_input_and_vectors_input_share_one_validation_of_the_brokers(brokers, field):
    with pytest.raises(InputError) as direct:
        AdminUtilsPlacer().place({"numPartitions": 1, "numReplicas": 1}, brokers)
    with pytest.raises(InputError) as replayed:
        run({"kind": "adminutils", "brokers": brokers, "partitions": 1, "replicationFactor": 1})
    assert (direct.value.field, direct.value.message) == (replayed.value.field, replayed.value.message) \
        == (field, direct.value.message)


@pytest.mark.parametrize("args, field", [
    ({"partitions": -4}, "partitions"),
    ({"replicationFactor": "3"}, "replicationFactor"),
    ({"fixedStartIndex": 1.0}, "fixedStartIndex"),
    ({"startPartitionId": 1 << 31}, "startPartitionId"),
])
def test_adminutils_arguments_are_validated_once(args, field):
    call = {"partitions": 3, "replicationFactor": 2, "fixedStartIndex": 0, "startPartitionId": -1, **args}
    with pytest.raises(InputError) as direct:
        assign_replicas_to_brokers(BROKERS, call["partitions"], call["replicationFactor"], call["fixedStartIndex"],
                                   call["startPartitionId"])
    with pytest.raises(InputError) as replayed:
        run({"kind": "adminutils", "brokers": [b.to_json() for b in BROKERS], **call})
    assert (direct.value.field, direct.value.message) == (replayed.value.field, replayed.value.message)
    assert direct.value.field == field
