"""__consumer_offsets placement -> group coordinators, and the chapter's tables and widget."""
import pytest

from rebalance.errors import InputError
from rebalance.replicas.coordinators import (coordinator_for, coordinator_load, coordinators,
                                             offsets_partition_for, place_offsets_topic)
from rebalance.replicas.measures import leaders_per_broker, skew
from rebalance.widgets.replicas import (broker_table, cluster, cluster_from_rack_sizes, placement_table,
                                        placement_widget, seed_sweep_table, trace_table, uneven_racks_table,
                                        add_partitions_table)
from rebalance.replicas.adminutils import explain

from vector_files import load_vectors


def test_offsets_partition_matches_kafka_vectors():
    lines = load_vectors("coordinator_partition.jsonl")
    if not lines:
        pytest.skip("vectors not installed")
    for line in lines:
        inp, out = line["input"], line["output"]
        n = inp.get("numPartitions", 50)
        if "error" in out or not isinstance(n, int) or n < 1:
            continue
        assert [offsets_partition_for(g, n) for g in inp["groupIds"]] == out["partitions"]


def test_coordinator_is_the_leader_of_the_groups_offsets_partition():
    brokers = cluster(9, 3)
    offsets = place_offsets_topic(brokers, "StripedReplicaPlacer", seed=0)
    assert sorted(offsets) == list(range(50)) and all(len(r) == 3 for r in offsets.values())
    p = offsets_partition_for("polygenelubricants")  # hashCode is Integer.MIN_VALUE; Utils.abs gives 0
    assert p == 0
    assert coordinator_for("polygenelubricants", offsets) == offsets[0][0]
    row = coordinators(["my-group"], offsets)[0]
    assert row["coordinator"] == offsets[row["partition"]][0]


def test_adminutils_offsets_topic_spreads_leaders_within_one():
    for n, r in [(3, 0), (6, 3), (9, 3)]:
        brokers = cluster(n, r)
        for seed in range(5):
            offsets = place_offsets_topic(brokers, "AdminUtils", seed=seed)
            assert skew(leaders_per_broker(offsets, brokers)) <= 1


def test_coordinator_load_counts_every_group_once():
    brokers = cluster(6, 3)
    offsets = place_offsets_topic(brokers, "AdminUtils", seed=1)
    groups = [f"group-{i}" for i in range(200)]
    load = coordinator_load(groups, offsets, [b.id for b in brokers])
    assert sum(load.values()) == 200 and set(load) == {b.id for b in brokers}


def test_bad_arguments_name_the_field():
    with pytest.raises(InputError) as exc:
        offsets_partition_for(42)
    assert exc.value.field == "groupId"
    with pytest.raises(InputError) as exc:
        place_offsets_topic(cluster(3), "Greedy")
    assert exc.value.field == "placer"


def test_tables_and_widget():
    article_cluster = [(0, "rack1"), (1, "rack3"), (2, "rack3"), (3, "rack2"), (4, "rack2"), (5, "rack1")]
    trace = explain(article_cluster, 7, 3, 0, 0)
    assert list(trace_table(trace, 6)["broker"]) == [4, 2]
    table = placement_table({p: t.replicas for p, t in enumerate(trace)}, article_cluster)
    assert table.loc[6, "replicas"] == "0, 4, 2" and set(table["distinct racks"]) == {3}
    assert [b.rack for b in cluster_from_rack_sizes((2, 1))] == ["rack1", "rack1", "rack2"]
    uneven = uneven_racks_table([(3, 2, 1)], 60, 3)
    assert uneven.loc[("3 / 2 / 1", "AdminUtils"), "replicas/broker max"] == 60  # the lone broker: every partition
    grown = add_partitions_table(article_cluster, 3, [(6, 0), (7, 0), (6, 1), (10, ("random", 3))])
    assert list(grown["same"]) == ["yes", "no", "no", "no"]
    assert list(grown["added later"]) == ["0, 4, 2", "3, 1, 5", "5, 3, 1", "2, 5, 4"]
    assert grown.iloc[2]["addPartitions start index and shift"] == 3  # broker 3 is fourth by id
    sweep = seed_sweep_table(cluster(9, 3), 50, 3, range(3))
    assert list(sweep.index) == ["AdminUtils", "StripedReplicaPlacer"]
    widget = placement_widget()
    assert "leaders" in widget.children[-1].value
    widget.children[1].children[1].value = 6  # RF 6 on 6 brokers works; then more replicas than brokers
    widget.children[0].children[0].value = 5
    assert "InvalidReplicationFactorException" in widget.children[-1].value
    assert set(broker_table({0: [0, 1]}, cluster(2)).columns) == {"rack", "leaders", "replicas"}
