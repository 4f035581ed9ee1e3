"""StickyAssignor (Kafka 3.8/3.9): worked examples from the consumer-assignors article, the partition-movement
bookkeeping, the balance score, user data encodings, generations and input errors."""
import base64
import itertools

import pytest

from rebalance.consumer.abstract_sticky import RackInfo, balance_score
from rebalance.consumer.api import build_scenario
from rebalance.consumer.model import parse_consumer_input
from rebalance.consumer.sticky import StickyAssignor
from rebalance.consumer.sticky_general import PartitionMovements
from rebalance.jcollections import JavaHashSet
from rebalance.consumer.sticky_userdata import (ByteBuffer, decode_cooperative, decode_sticky,
                                                encode_cooperative_v0, encode_sticky_v0, encode_sticky_v1,
                                                user_data_from_spec)
from rebalance.consumer.vectors import run
from rebalance.errors import InputError, KafkaError
from rebalance.java import hashmap_order

# the consumer-assignors article, example 3: t0/t1/t2 with 4/3/2 partitions; consumer0 reads all three, consumer1 t0+t1, consumer2 t2
PARTITIONS = {"t0": 4, "t1": 3, "t2": 2}
SUBSCRIPTIONS = {"consumer0": ["t0", "t1", "t2"], "consumer1": ["t0", "t1"], "consumer2": ["t2"]}


def _scenario(members, partitions=PARTITIONS, assignor="sticky"):
    return build_scenario(assignor, partitions, members)


def test_article_first_assignment_is_balanced_unlike_roundrobin():
    result = StickyAssignor().assign(_scenario({m: {"topics": t} for m, t in SUBSCRIPTIONS.items()}))
    assert result.path == "general"
    assert result.assignment == {
        "consumer0": [("t0", 0), ("t0", 2), ("t1", 0), ("t1", 2)],
        "consumer1": [("t0", 1), ("t0", 3), ("t1", 1)],
        "consumer2": [("t2", 0), ("t2", 1)],
    }
    assert result.partitions_transferring_ownership is None
    assert result.max_generation == -1


def test_article_walk_when_consumer3_joins():
    owned = {"consumer0": [("t0", 0), ("t0", 2), ("t1", 0), ("t1", 2)],
             "consumer1": [("t0", 1), ("t0", 3), ("t1", 1)],
             "consumer2": [("t2", 0), ("t2", 1)]}
    members = {m: {"topics": SUBSCRIPTIONS[m], "owned": owned[m], "generation": 1} for m in owned}
    members["consumer3"] = {"topics": ["t0"]}
    result = StickyAssignor().assign(_scenario(members))
    assert result.path == "general"
    # t0p0 moves from consumer0 and t0p1 from consumer1; everything else stays where it was
    assert result.assignment == {
        "consumer0": [("t0", 2), ("t1", 0), ("t1", 2)],
        "consumer1": [("t0", 3), ("t1", 1)],
        "consumer2": [("t2", 0), ("t2", 1)],
        "consumer3": [("t0", 0), ("t0", 1)],
    }
    assert result.movements == {("t0", 0): ("consumer0", "consumer3"), ("t0", 1): ("consumer1", "consumer3")}
    assert result.max_generation == 1
    assert balance_score(result.assignment) == 3  # sizes 3, 2, 2, 2: three pairs differ by one


def test_javadoc_example_constrained_path():
    # StickyAssignor's javadoc: C0, C1 on t0, t1 with 3 partitions each, then C1 leaves... and C2 joins
    result = StickyAssignor().assign(_scenario({"C0": {"topics": ["t0", "t1"]}, "C1": {"topics": ["t0", "t1"]}},
                                               {"t0": 3, "t1": 3}))
    assert result.path == "constrained"
    assert result.assignment == {"C0": [("t0", 0), ("t0", 2), ("t1", 1)], "C1": [("t0", 1), ("t1", 0), ("t1", 2)]}
    assert result.partitions_transferring_ownership == {}


def test_movement_back_to_original_owner_cancels_the_record():
    moves = PartitionMovements()
    moves.move_partition(("t", 0), "A", "B")
    assert moves.snapshot() == {("t", 0): ("A", "B")}
    moves.move_partition(("t", 0), "B", "C")
    assert moves.snapshot() == {("t", 0): ("A", "C")}   # one record from the original owner
    moves.move_partition(("t", 0), "C", "A")
    assert moves.snapshot() == {}                      # back home: no movement at all
    assert moves.by_topic == {}


def test_reverse_move_is_replaced_by_undoing_the_earlier_move():
    moves = PartitionMovements()
    moves.move_partition(("t", 1), "B", "A")            # earlier: t-1 went B -> A
    # now t-0 (at A) is to move to B: Kafka moves t-1 back instead, which undoes the first move
    assert moves.actual_partition_to_move(("t", 0), "A", "B") == ("t", 1)
    # partitions of another topic are not affected
    assert moves.actual_partition_to_move(("u", 0), "A", "B") == ("u", 0)


def test_java_hash_set_first_element_follows_buckets():
    s = JavaHashSet()
    keys = [("t", p) for p in range(30)]
    for k in keys:
        s.add(k)
    assert s.size == 64
    assert s.first() == hashmap_order(keys)[0]
    s.remove(s.first())
    assert s.first() == [k for k in hashmap_order(keys) if k != hashmap_order(keys)[0]][0]


@pytest.mark.parametrize("sizes", [[], [5], [4, 3, 2], [0, 0, 7, 1], [3, 3, 3, 3], list(range(12))])
def test_balance_score_is_the_sum_of_pairwise_differences(sizes):
    expected = sum(abs(a - b) for a, b in itertools.combinations(sizes, 2))
    assert balance_score(sizes) == expected
    assert balance_score({f"m{i}": [None] * s for i, s in enumerate(sizes)}) == expected


def test_user_data_round_trip_v1_v0_and_cooperative():
    parts = [("t1", 2), ("t0", 0), ("t1", 0)]
    v1 = decode_sticky(ByteBuffer(encode_sticky_v1(parts, 7)))
    assert v1.generation == 7 and sorted(v1.partitions) == sorted(parts)
    v0 = decode_sticky(ByteBuffer(encode_sticky_v0(parts)))
    assert v0.generation is None and sorted(v0.partitions) == sorted(parts)
    assert decode_sticky(ByteBuffer(b"\x00\x01")).generation == -1      # unreadable: owned nothing, gen -1
    assert decode_sticky(ByteBuffer(encode_sticky_v1(parts, 7), position=10**6)).partitions == []
    assert decode_cooperative(ByteBuffer(encode_cooperative_v0(4))) == 4
    assert decode_cooperative(ByteBuffer(b"")) == -1
    assert decode_cooperative(None) is None


def test_user_data_topics_follow_hashmap_order():
    # groupPartitionsByTopic fills a HashMap with computeIfAbsent: "t10" and "topic-8" share bucket 2, and the
    # topic seen last is linked at the head of the bucket (the JVM gives topic-8,t10 and t10,topic-8)
    first = decode_sticky(ByteBuffer(encode_sticky_v1([("t10", 1), ("topic-8", 0)], 1))).partitions
    second = decode_sticky(ByteBuffer(encode_sticky_v1([("topic-8", 0), ("t10", 1)], 1))).partitions
    assert first == [("topic-8", 0), ("t10", 1)] and second == [("t10", 1), ("topic-8", 0)]


def test_user_data_map_grows_only_when_a_partition_follows_the_last_new_topic():
    # 13 topics pass the threshold of 16 buckets; computeIfAbsent grows the map at the start of the next call
    # only: the lazy buffer and the bytes agree with each other in both cases (t0..t12 order differently in 16
    # and 32 buckets)
    from rebalance.consumer.sticky_userdata import sticky_v1_buffer

    owned = [(f"t{i}", 0) for i in range(13)]
    orders = []
    for parts in (owned, owned + [("t0", 1)]):
        lazy = decode_sticky(sticky_v1_buffer(parts, 1)).partitions
        assert lazy == decode_sticky(ByteBuffer(encode_sticky_v1(parts, 1))).partitions
        orders.append(list(dict.fromkeys(t for t, _ in lazy)))
    assert orders[0] != orders[1] and sorted(orders[0]) == sorted(orders[1])


def test_auto_user_data_for_sticky_members():
    assert user_data_from_spec("auto", "sticky", [], None) == (None, 0)
    data, _ = user_data_from_spec("auto", "sticky", [("t", 1)], 3)
    assert decode_sticky(ByteBuffer(data)).generation == 3
    data, _ = user_data_from_spec("auto", "cooperative-sticky", [], None)
    assert decode_cooperative(ByteBuffer(data)) == -1
    raw = base64.b64encode(encode_sticky_v1([("t", 0)], 2)).decode()
    assert user_data_from_spec({"base64": raw, "position": 3}, "sticky", [], None)[1] == 3


def test_sticky_ignores_the_protocol_owned_partitions_field():
    # an eager member revoked everything before rejoining; only its user data counts
    data = {"kind": "consumer", "assignor": "sticky", "topics": {"t": 4},
            "members": [{"memberId": "A", "topics": ["t"], "ownedPartitions": ["t-2", "t-3"], "generationId": 1,
                         "userData": None},
                        {"memberId": "B", "topics": ["t"], "ownedPartitions": ["t-0", "t-1"], "generationId": 1,
                         "userData": {"stickyV1": {"partitions": ["t-0", "t-1"], "generation": 1}}}]}
    out = run(data)
    assert out["sortedAssignment"] == {"A": ["t-2", "t-3"], "B": ["t-0", "t-1"]}
    assert out["maxGeneration"] == 1


def test_higher_generation_wins_a_double_claim_and_equal_generations_lose_it():
    def claim(gen_a, gen_b):
        members = [{"memberId": m, "topics": ["t"], "ownedPartitions": ["t-0"], "generationId": g}
                   for m, g in (("A", gen_a), ("B", gen_b))]
        return run({"kind": "consumer", "assignor": "sticky", "topics": {"t": 1},
                    "subscriptionMapType": "java.util.LinkedHashMap", "members": members})

    newer = claim(3, 5)
    assert newer["sortedAssignment"]["B"] == ["t-0"] and newer["partitionsTransferringOwnership"] == {}
    same = claim(4, 4)
    # neither keeps it: it is re-assigned from scratch and recorded as transferring ownership
    assert same["partitionsTransferringOwnership"] == {"t-0": "A"}
    assert same["maxGeneration"] == 4


def test_max_generation_is_instance_state():
    assignor = StickyAssignor()
    assignor.assign(_scenario({"A": {"topics": ["t0"], "owned": [("t0", 0)], "generation": 9}}))
    assert assignor.max_generation == 9
    result = assignor.assign(_scenario({"A": {"topics": ["t0"], "owned": [("t0", 0)], "generation": 2}}))
    assert result.max_generation == 9            # never reset, as in Kafka
    assert StickyAssignor().assign(_scenario({"A": {"topics": ["t0"]}})).max_generation == -1


def test_rack_info_uses_racks_only_when_some_partition_is_not_on_every_rack():
    subs = list(_scenario({"A": {"topics": ["t"], "rack": "r1"}, "B": {"topics": ["t"], "rack": "r2"}},
                          {"t": 2}).members.items())
    everywhere = RackInfo({"t": 2}, {"t": [frozenset({"r1", "r2"})] * 2}, subs, False)
    assert not everywhere.use_rack_aware and everywhere.consumer_racks == {}
    assert RackInfo({"t": 2}, {"t": [frozenset({"r1", "r2"})] * 2}, subs, True).use_rack_aware
    partial = RackInfo({"t": 2}, {"t": [frozenset({"r1"}), frozenset({"r2"})]}, subs, False)
    assert partial.use_rack_aware and partial.racks_mismatch("A", ("t", 1))


def test_bad_user_data_names_the_field():
    data = {"kind": "consumer", "assignor": "sticky", "topics": {"t": 1},
            "members": [{"memberId": "A", "topics": ["t"], "userData": {"base64": "***"}}]}
    with pytest.raises(InputError) as info:
        run(data)
    assert info.value.field == "members[0].userData.base64"
    data["members"][0]["userData"] = {"stickyV9": {}}
    with pytest.raises(InputError) as info:
        run(data)
    assert info.value.field == "members[0].userData"


def test_empty_group_is_kafkas_division_by_zero():
    with pytest.raises(KafkaError) as info:
        StickyAssignor().assign(parse_consumer_input(
            {"kind": "consumer", "assignor": "sticky", "topics": {"t": 1}, "members": []}))
    assert info.value.type == "ArithmeticException"


def test_assign_rejects_something_that_is_not_a_scenario():
    with pytest.raises(InputError) as info:
        StickyAssignor().assign({"t": 1})
    assert info.value.field == "scenario"


def test_older_generation_owner_gets_a_partition_back_even_after_dropping_its_topic():
    # GeneralAssignmentBuilder.performReassignments moves a partition back to its previous owner (a member
    # of an older generation, from prevAssignment) without checking that this member still subscribes to
    # the topic -- a literal consequence of Kafka's code that the port keeps.
    members = {"0": {"topics": ["t0", "t1"], "owned": [("t0", 0)], "generation": 2},
               "1": {"topics": ["t0"], "owned": [("t1", 0)], "generation": 1},
               "00": {"topics": ["t0"]},
               "000": {"topics": ["t0", "t1"]}}
    result = StickyAssignor().assign(_scenario(members, {"t0": 1, "t1": 3}))
    assert result.path == "general"
    assert ("t1", 0) in result.assignment["1"]


def test_previous_owner_outside_the_reassignment_is_kafkas_null_pointer():
    # X (generation 1) still reports t1-0 but reads only t0, of which it is the only reader, so it takes
    # no part in the reassignment; when the walk wants to give t1-0 back to X, Kafka's
    # currentAssignment.get(X) is null.  The port raises the same exception instead of inventing a result.
    data = {"kind": "consumer", "assignor": "sticky", "topics": {"t0": 1, "t1": 4},
            "subscriptionMapType": "java.util.LinkedHashMap",
            "members": [{"memberId": "X", "topics": ["t0"], "ownedPartitions": ["t1-0"], "generationId": 1},
                        {"memberId": "A", "topics": ["t1"], "ownedPartitions": ["t1-0", "t1-1", "t1-2", "t1-3"],
                         "generationId": 2},
                        {"memberId": "B", "topics": ["t1"]}]}
    with pytest.raises(KafkaError) as info:
        run(data)
    assert info.value.type == "NullPointerException"


def test_lazy_v1_buffer_reads_like_the_bytes_it_stands_for():
    """The lazily encoded V1 buffer the sticky assignor builds for ``userData: "auto"`` answers Kafka's
    byte-level reads as a buffer over the encoded bytes does (its length slot once shadowed the
    length-prefix check, so any of these reads raised TypeError)."""
    from rebalance.consumer.sticky_userdata import sticky_v1_buffer

    owned = [("t", 0), ("u", 2), ("t", 1)]
    lazy, plain = sticky_v1_buffer(owned, 3), ByteBuffer(encode_sticky_v1(owned, 3))
    assert type(lazy) is not ByteBuffer  # the lazy kind (not just a buffer over encoded bytes)
    for buf in (lazy, plain):
        assert buf.read_array_size() == 2  # the topics
        assert buf.read_string() == "t"
    assert lazy.position == plain.position and lazy.remaining() == plain.remaining()
    assert lazy.data == plain.data and decode_sticky(sticky_v1_buffer(owned, 3)) == decode_sticky(ByteBuffer(plain.data))
