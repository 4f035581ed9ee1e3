"""Issue 25, item 1: the coordinator a real cluster names for a group is the leader of ``__consumer_offsets``
partition ``partition_for(group)`` (``Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions``).

One three-broker cluster with ``offsets.topic.num.partitions=12`` (not the default 50: fewer partitions to
create and lead on two shared cores; 12 still gives every broker several partitions to lead).  300 group ids:
the three whose ``hashCode`` is ``Integer.MIN_VALUE`` and 297 seeded random ones (125 of the 300 have a negative
``hashCode``).  Each is looked up with a ``FindCoordinator`` request, round robin over the brokers; and one group
made real by committing an offset is also described through librdkafka (``describe_consumer_groups``).
"""
from __future__ import annotations


import pytest

from rebalance.java import INT_MIN, string_hash
from rebalance.kafka.cluster import KafkaCluster
from rebalance.kafka.coordinators import (MIN_VALUE_IDS, compare_coordinators, find_coordinators, group_ids,
                                          offsets_leaders, coordinator_summary)
from rebalance.protocol.coordinator import partition_for

from .built import needs_broker

PARTITIONS = 12
kafka = pytest.mark.kafka
needs_java = needs_broker


def test_group_ids_cover_min_value_and_negative_hashes():
    ids = group_ids(300)
    assert len(ids) == len(set(ids)) == 300 and ids == group_ids(300)
    assert [string_hash(g) for g in MIN_VALUE_IDS] == [INT_MIN] * 3
    assert all(partition_for(g, PARTITIONS) == 0 for g in MIN_VALUE_IDS)  # Utils.abs(MIN_VALUE) == 0
    assert sum(string_hash(g) < 0 for g in ids) >= 100
    assert {partition_for(g, PARTITIONS) for g in ids} == set(range(PARTITIONS))


@pytest.fixture(scope="module")
def three():
    pytest.importorskip("confluent_kafka")
    with KafkaCluster(brokers=3, broker_config={"offsets.topic.num.partitions": PARTITIONS,
                                                "group.initial.rebalance.delay.ms": 0}) as c:
        yield c


@kafka
@needs_java
def test_every_coordinator_is_the_leader_of_partition_for(three):
    ids = group_ids(300)
    rows = compare_coordinators(three.bootstrap_servers, ids, PARTITIONS)
    s = coordinator_summary(rows)
    bad = [r.to_json() for r in rows if not r.agree]
    assert not bad, bad[:5]
    assert s["groups"] == s["agree"] == 300 and s["min_value"] == 3 and s["negative"] == 125
    assert s["partitions"] == PARTITIONS and s["coordinators"] == [1, 2, 3]
    # the MIN_VALUE ids are coordinated by partition 0's leader, whichever broker is asked
    ports = [n.port for n in three.broker_nodes]
    leader0 = offsets_leaders(_admin(three))[0]
    for rotate in range(3):
        asked = ports[rotate:] + ports[:rotate]
        assert set(find_coordinators(asked, list(MIN_VALUE_IDS)).values()) == {leader0}


def _admin(c: KafkaCluster):
    from confluent_kafka.admin import AdminClient
    return AdminClient({"bootstrap.servers": c.bootstrap_servers, "log_level": 0})


@kafka
@needs_java
def test_a_real_group_is_described_with_that_coordinator(three):
    from confluent_kafka import Consumer, TopicPartition
    from confluent_kafka.admin import NewTopic

    admin = _admin(three)
    admin.create_topics([NewTopic("t25", 1, 1)])["t25"].result(timeout=30)
    group = "polygenelubricants"
    consumer = Consumer({"bootstrap.servers": three.bootstrap_servers, "group.id": group, "log_level": 0})
    try:
        consumer.commit(offsets=[TopicPartition("t25", 0, 7)], asynchronous=False)
    finally:
        consumer.close()
    desc = admin.describe_consumer_groups([group], request_timeout=30)[group].result(timeout=30)
    assert desc.coordinator.id == offsets_leaders(admin)[partition_for(group, PARTITIONS)]
