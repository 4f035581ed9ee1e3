"""Kafka ``Uuid``: base64url text, signed ordering, ``hashCode``; the default id of a named topic."""
import pytest
from hypothesis import given, strategies as st

from rebalance.errors import InputError
from rebalance.java import to_int32
from rebalance.kip848.uuid import Uuid, topic_id_for_name


def test_reserved_ids_print_like_kafka():
    # Uuid.ZERO_UUID and Uuid.ONE_UUID (= METADATA_TOPIC_ID)
    assert str(Uuid(0, 0)) == "AAAAAAAAAAAAAAAAAAAAAA"
    assert str(Uuid(0, 1)) == "AAAAAAAAAAAAAAAAAAAAAQ"
    assert Uuid.from_string("AAAAAAAAAAAAAAAAAAAAAQ") == Uuid(0, 1)


def test_hash_code_folds_msb_xor_lsb():
    assert Uuid(0, 1).hash_code() == 1
    assert Uuid(1 << 32, 0).hash_code() == 1
    assert Uuid(-1, 0).hash_code() == 0  # (int)(-1 >> 32) ^ (int)-1 = -1 ^ -1
    assert Uuid(0, 0x1_0000_0002).hash_code() == 3


def test_compare_is_signed():
    # a negative most-significant half sorts first, unlike an unsigned byte comparison
    negative = Uuid.from_string("_____________________w")  # all bits set = (-1, -1)
    assert negative.msb == -1 and negative.lsb == -1
    assert negative.compare_to(Uuid(0, 0)) == -1
    assert sorted([Uuid(0, 5), negative, Uuid(0, -1)]) == [negative, Uuid(0, -1), Uuid(0, 5)]


def test_name_based_default_id_is_java_name_uuid():
    # java.util.UUID.nameUUIDFromBytes("test".getBytes(UTF_8)) = 098f6bcd-4621-3373-8ade-4e832627b4f6
    tid = topic_id_for_name("test")
    assert tid.to_bytes().hex() == "098f6bcd462133738ade4e832627b4f6"


@pytest.mark.parametrize("text", ["", "abc", "AAAAAAAAAAAAAAAAAAAAAAAAAAAA", "!!!!!!!!!!!!!!!!!!!!!!", 7])
def test_bad_ids_name_the_field(text):
    with pytest.raises(InputError) as err:
        Uuid.from_string(text, "topics[0].id")
    assert err.value.field == "topics[0].id"


@given(st.binary(min_size=16, max_size=16))
def test_round_trip_and_hash(raw):
    u = Uuid.from_bytes(raw)
    assert len(str(u)) == 22 and "=" not in str(u)
    assert Uuid.from_string(str(u)) == u
    x = u.msb ^ u.lsb
    assert u.hash_code() == to_int32((x >> 32) ^ (x & 0xFFFFFFFF))
