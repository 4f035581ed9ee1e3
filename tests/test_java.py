"""The JDK emulations every area relies on."""
import functools

from hypothesis import given, strategies as st

from rebalance.java import (JavaHashOrder, compare_strings, compute_if_absent_order, hashmap_order, java_abs, java_string_key,
                            string_hash, topic_partition_hash)


def test_string_hash_known_values():
    assert string_hash("") == 0
    assert string_hash("a") == 97
    assert string_hash("polygenelubricants") == -(1 << 31)
    assert string_hash("😀") == 31 * 0xD83D + 0xDE00  # two UTF-16 code units


def test_utils_abs_maps_min_value_to_zero():
    assert java_abs(-(1 << 31)) == 0
    assert java_abs(-5) == 5


def test_topic_partition_hash_formula():
    assert topic_partition_hash("t", 0) == 31 * 31 + string_hash("t")


@given(st.lists(st.text(max_size=6), max_size=12))
def test_string_key_orders_like_compare_to(words):
    """Mixed ASCII and non-ASCII names sort together, in String.compareTo order."""
    by_key = sorted(words, key=java_string_key)
    by_cmp = sorted(words, key=functools.cmp_to_key(compare_strings))
    assert by_key == by_cmp


def test_hash_order_follows_buckets_then_insertion():
    # "Aa" and "BB" share a hash code, so they share a bucket and keep insertion order
    assert string_hash("Aa") == string_hash("BB")
    assert hashmap_order(["BB", "Aa"]) == ["BB", "Aa"]
    assert hashmap_order(["Aa", "BB"]) == ["Aa", "BB"]
    # a key in a lower bucket comes first whatever the insertion order ("a" is bucket 1, "b" bucket 2)
    assert hashmap_order(["b", "a"]) == ["a", "b"]


def test_hash_order_resizes_past_load_factor():
    keys = [f"k{i}" for i in range(13)]  # the 13th key passes 0.75 * 16 and doubles the table
    h = JavaHashOrder()
    h.put_all(keys)
    assert h.size == 32
    assert sorted(h.keys()) == sorted(keys)


def test_put_head_links_before_existing_keys_of_a_bucket():
    h = JavaHashOrder()
    h.put("Aa")
    h.put_head("BB")
    assert h.keys() == ["BB", "Aa"]


def test_put_head_resizes_before_linking_not_after():
    # HashMap.computeIfAbsent checks ``size > threshold`` before it links the new key and never after: a map of
    # table 2 (threshold 1) holding one key takes a second without growing; a third grows it to 4 first
    h = JavaHashOrder(None, 2)
    h.put_head(0)
    h.put_head(1)
    assert h.size == 2
    h.put_head(2)
    assert h.size == 4
    # put (putVal) grows after linking: the second key already doubles the table
    p = JavaHashOrder(None, 2)
    p.put(0)
    p.put(1)
    assert p.size == 4


def test_compute_if_absent_of_a_present_key_still_resizes_first():
    # table 8 (threshold 6) holding 7 keys, linked by computeIfAbsent; computeIfAbsent of a key already there
    # resizes to 16 before it finds the key (Java 17 HashMap.computeIfAbsent)
    h = JavaHashOrder(None, 8)
    for k in range(7):
        h.put_head(k)
    assert h.size == 8
    h.put_head(3)
    assert h.size == 16


def test_compute_if_absent_order_puts_the_newest_key_of_a_bucket_first():
    # CollectionUtils.groupPartitionsByTopic fills its HashMap with computeIfAbsent: a tie comes newest first
    assert compute_if_absent_order(["Aa", "BB"]) == ["BB", "Aa"]
    assert compute_if_absent_order(["Aa", "BB", "Aa"]) == ["BB", "Aa"]
    assert hashmap_order(["Aa", "BB"]) == ["Aa", "BB"]


def test_compute_if_absent_order_grows_only_when_a_call_follows():
    # 13 keys pass 16 buckets' threshold (12): put grows at once, computeIfAbsent at the next call only
    keys = [f"t{i}" for i in range(13)]  # (t0..t12 are not in the same order in 16 and 32 buckets)
    in_16 = sorted(keys, key=lambda k: (hash_bucket(k, 16), -keys.index(k)))
    assert compute_if_absent_order(keys) == in_16
    assert compute_if_absent_order(keys + ["t0"]) != in_16
    assert compute_if_absent_order(keys + ["t0"]) == sorted(keys, key=lambda k: (hash_bucket(k, 32), -keys.index(k)))


def hash_bucket(key, size):
    from rebalance.java import spread

    return spread(string_hash(key)) & (size - 1)


@given(st.lists(st.sampled_from(["Aa", "BB", "C#", "a", "b", "t1", "t17", "t33"] + [f"k{i}" for i in range(40)]),
                max_size=80))
def test_compute_if_absent_order_is_put_head_call_by_call(keys):
    """The one-sort form agrees with JavaHashOrder.put_head called once per key (checked against the JVM's
    HashMap.computeIfAbsent on 3,000 random key lists when it was written)."""
    h = JavaHashOrder()
    for key in keys:
        h.put_head(key)
    assert compute_if_absent_order(keys) == h.keys()
