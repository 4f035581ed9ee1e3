"""java.util.Random, MockRandom and Collections.shuffle against the JVM (java_random vectors) and their
documented algorithms."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rebalance.errors import InputError, KafkaError
from rebalance.replicas.java_random import (MASK48, JavaRandom, MockRandom, make_random, replay_ops,
                                            shuffle)
from rebalance.replicas.vectors import run
from rebalance.vectors import compare_output, run_input

longs = st.integers(min_value=-(1 << 63), max_value=(1 << 63) - 1)
bounds = st.integers(min_value=1, max_value=(1 << 31) - 1)


def test_vector_matches_jvm(java_random_vector):
    actual = run_input(java_random_vector["input"])
    assert compare_output("java_random", java_random_vector["output"], actual) == []
    assert actual == java_random_vector["output"]


def test_seed_is_scrambled_with_the_multiplier():
    # new Random(seed) stores (seed ^ 0x5DEECE66D) masked to 48 bits; seed 0x5DEECE66D gives state 0
    assert JavaRandom(0x5DEECE66D).state == 0
    assert JavaRandom(0).state == 0x5DEECE66D
    assert JavaRandom(-1).state == (~0x5DEECE66D) & MASK48


def test_well_known_jdk_values():
    # values printed by any JVM: new Random(42).nextInt() and .nextLong()
    assert JavaRandom(42).next_int() == -1170105035
    assert JavaRandom(42).next_long() == -5025562857975149833


@given(longs, bounds)
@settings(max_examples=200, deadline=None)
def test_next_int_is_in_range_and_consumes_whole_draws(seed, bound):
    r = JavaRandom(seed)
    value = r.next_int(bound)
    assert 0 <= value < bound
    # the state moved by a whole number of next(31) draws: replay them one by one
    probe = JavaRandom(seed)
    for _ in range(64):
        probe.next(31)
        if probe.state == r.state:
            break
    assert probe.state == r.state


@given(longs, st.integers(min_value=0, max_value=30))
@settings(max_examples=100, deadline=None)
def test_power_of_two_bound_takes_the_high_bits(seed, exponent):
    bound = 1 << exponent
    expected = JavaRandom(seed).next(31) >> (31 - exponent)
    assert JavaRandom(seed).next_int(bound) == expected


def test_rejection_loop_redraws_from_the_incomplete_last_block():
    bound = (1 << 30) + 1  # about half of all next(31) values fall in the incomplete last block

    def rejected(u):  # Java: u - (u % bound) + (bound - 1) overflows a signed int
        return u - u % bound + bound - 1 >= 1 << 31

    seed = next(s for s in range(1000) if rejected(JavaRandom(s).next(31)))
    probe = JavaRandom(seed)
    draws = [probe.next(31) for _ in range(5)]
    accepted = next(i for i, u in enumerate(draws) if not rejected(u))
    r = JavaRandom(seed)
    assert r.next_int(bound) == draws[accepted] % bound
    assert accepted >= 1 and r.state == _after_draws(seed, accepted + 1)


def _after_draws(seed, n):
    r = JavaRandom(seed)
    for _ in range(n):
        r.next(31)
    return r.state


@given(longs, st.lists(st.integers(), max_size=30))
@settings(max_examples=200, deadline=None)
def test_shuffle_is_a_permutation_drawing_size_minus_one_numbers(seed, items):
    r = JavaRandom(seed)
    out = shuffle(list(items), r)
    assert sorted(out) == sorted(items)
    assert r.state == _after_bounded_draws(seed, len(items))


def _after_bounded_draws(seed, size):
    probe = JavaRandom(seed)
    for i in range(size - 1, 0, -1):
        probe.next_int(i + 1)
    return probe.state


def test_shuffle_of_short_lists_draws_nothing():
    r = JavaRandom(5)
    before = r.state
    assert shuffle([], r) == [] and shuffle([7], r) == [7]
    assert r.state == before


def test_mock_random_runs_its_own_64_bit_lcg():
    def signed64(x):
        x %= 1 << 64
        return x - (1 << 64) if x >= 1 << 63 else x

    m = MockRandom()
    assert m.state == 17
    expected = 17
    for _ in range(3):  # state * 2862933555777941757 + 3037000493, wrapping like a Java long
        m.next(31)
        expected = signed64(expected * 2862933555777941757 + 3037000493)
        assert m.state == expected
    # the derived methods are Random's, on top of MockRandom.next: a power-of-two bound takes high bits
    assert MockRandom(99).next_int(8) == MockRandom(99).next(31) >> 28
    assert make_random("MockRandom", None).state == 17


def test_bad_arguments():
    with pytest.raises(KafkaError) as exc:
        JavaRandom(1).next_int(0)
    assert exc.value.type == "java.lang.IllegalArgumentException"
    with pytest.raises(InputError) as err:
        JavaRandom("x")
    assert err.value.field == "seed"
    with pytest.raises(InputError) as err:
        replay_ops(1, [["nextInt", "five"]])
    assert err.value.field == "ops[0][1]"
    with pytest.raises(InputError) as err:
        run({"kind": "java_random", "seed": 1, "ops": [["coinFlip"]]})
    assert err.value.field == "ops[0]"
    with pytest.raises(InputError) as err:
        run({"kind": "java_random", "ops": []})
    assert err.value.field == "seed"
    with pytest.raises(InputError) as err:
        make_random("SecureRandom", 1)
    assert err.value.field == "random"
