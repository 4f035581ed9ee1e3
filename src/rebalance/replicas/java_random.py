"""``java.util.Random``, Kafka's ``MockRandom`` and ``Collections.shuffle``, bit for bit.

Kafka's KRaft controller places replicas with ``StripedReplicaPlacer``, whose starting offsets and
reshuffles come from a ``java.util.Random``; ``AdminUtils`` draws its random start index from one too.
To reproduce their placements exactly the random stream itself must be reproduced, so this module
mirrors the JDK's public algorithm (unchanged from JDK 1.0 to JDK 21):

* state: 48 bits; ``new Random(seed)`` stores ``(seed ^ 0x5DEECE66D) & (2**48 - 1)``;
* ``next(bits)``: ``state = (state * 0x5DEECE66D + 0xB) & (2**48 - 1)``, return the top ``bits`` bits
  of the 48 as a signed Java ``int``;
* ``nextInt(bound)``: a power-of-two bound takes the high bits (``(bound * next(31)) >> 31``); any other
  bound takes ``next(31) % bound`` and *rejects* draws from the incomplete last block
  (``u - r + (bound - 1) < 0`` in 32-bit arithmetic), drawing again;
* ``Collections.shuffle(list, rnd)``: for ``i`` from ``size - 1`` down to ``1`` swap ``i`` with
  ``rnd.nextInt(i + 1)`` (the same for every list size, since Kafka's lists are ``ArrayList``).

``MockRandom`` (``org.apache.kafka.server.util.MockRandom``, Kafka's test RNG) keeps a 64-bit state
(default 17) and overrides only ``next(bits)``: ``state = state * 2862933555777941757 + 3037000493``
(64-bit wrap), return ``state >>> (64 - bits)`` cast to ``int``; every other method is ``Random``'s.
"""
from __future__ import annotations

import os
import time
from typing import List, MutableSequence, Optional, TypeVar

from ..errors import InputError, KafkaError
from ..java import INT_MAX, INT_MIN, LONG_MAX, LONG_MIN, to_int32, to_int64

T = TypeVar("T")

MULTIPLIER = 0x5DEECE66D
ADDEND = 0xB
MASK48 = (1 << 48) - 1
_MASK64 = (1 << 64) - 1
DOUBLE_UNIT = 1.0 / (1 << 53)

#: ``MockRandom``'s LCG constants and default state.
MOCK_MULTIPLIER = 2862933555777941757
MOCK_ADDEND = 3037000493
MOCK_DEFAULT_STATE = 17

_seed_uniquifier = 8682522807148012


def _check_long(value: object, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(field, f"must be a whole number (a Java long), got {value!r}")
    if not LONG_MIN <= value <= LONG_MAX:
        raise InputError(field, f"{value} does not fit a Java long")
    return value


def _check_bound(bound: object) -> int:
    if isinstance(bound, bool) or not isinstance(bound, int):
        raise InputError("bound", f"must be a whole number (a Java int), got {bound!r}")
    if not INT_MIN <= bound <= INT_MAX:
        raise InputError("bound", f"{bound} does not fit a Java int")
    if bound <= 0:
        # Random.nextInt(int): "bound must be positive" (IllegalArgumentException)
        raise KafkaError("java.lang.IllegalArgumentException", "bound must be positive")
    return bound


class JavaRandom:
    """``java.util.Random``: the same numbers as the JVM for the same seed.

    ``JavaRandom(seed)`` is ``new Random(seed)``; ``JavaRandom()`` (no seed) is ``new Random()``, seeded
    from the clock and the OS like the JDK, so it is not reproducible -- pass a seed for that.

    >>> r = JavaRandom(42)
    >>> r.next_int(2147483647)
    1562431130
    >>> JavaRandom(0).next_int(10)
    0
    """

    __slots__ = ("_seed",)

    def __init__(self, seed: Optional[int] = None):
        if seed is None:
            global _seed_uniquifier
            _seed_uniquifier = (_seed_uniquifier * 1181783497276652981) & _MASK64
            seed = to_int64(_seed_uniquifier ^ time.perf_counter_ns() ^ int.from_bytes(os.urandom(8), "big"))
        self.set_seed(seed)

    # -- core ----------------------------------------------------------------------------------------
    def set_seed(self, seed: int) -> None:
        """``Random.setSeed``: scramble ``seed`` into the 48-bit state."""
        seed = _check_long(seed, "seed")
        self._seed = (seed ^ MULTIPLIER) & MASK48

    @property
    def state(self) -> int:
        """The current 48-bit internal state (for tests and teaching)."""
        return self._seed

    def next(self, bits: int) -> int:
        """``Random.next(bits)``: advance the LCG, return its top ``bits`` bits as a Java ``int``."""
        self._seed = (self._seed * MULTIPLIER + ADDEND) & MASK48
        return to_int32(self._seed >> (48 - bits))

    # -- derived methods (shared with MockRandom, which overrides next only) -------------------------
    def next_int(self, bound: Optional[int] = None) -> int:
        """``nextInt()`` (no bound: 32 random bits) or ``nextInt(bound)``: uniform in ``[0, bound)``.

        A power-of-two bound uses the high bits; otherwise ``next(31) % bound`` with Java's rejection
        loop, which discards values from the last, incomplete block of ``bound`` numbers."""
        if bound is None:
            return self.next(32)
        bound = _check_bound(bound)
        r = self.next(31)
        m = bound - 1
        if bound & m == 0:  # a power of two
            return (bound * r) >> 31
        u = r
        while True:
            r = u % bound  # u >= 0, so Python's % equals Java's here
            if to_int32(u - r + m) >= 0:
                return r
            u = self.next(31)

    def next_long(self) -> int:
        """``nextLong()``: ``((long) next(32) << 32) + next(32)``."""
        hi = self.next(32)
        lo = self.next(32)
        return to_int64((hi << 32) + lo)

    def next_boolean(self) -> bool:
        """``nextBoolean()``: ``next(1) != 0``."""
        return self.next(1) != 0

    def next_double(self) -> float:
        """``nextDouble()``: 53 random bits scaled to ``[0, 1)``."""
        return ((self.next(26) << 27) + self.next(27)) * DOUBLE_UNIT

    # Java spelling, so code read next to Kafka's looks alike
    nextInt = next_int
    nextLong = next_long
    nextBoolean = next_boolean
    nextDouble = next_double
    setSeed = set_seed

    def __repr__(self) -> str:
        return f"{type(self).__name__}(state={self.state:#x})"


class MockRandom(JavaRandom):
    """Kafka's ``org.apache.kafka.server.util.MockRandom`` (server-common test code): a ``Random``
    whose ``next(bits)`` runs its own 64-bit LCG from an explicit state (default 17).

    The unit tests of ``StripedReplicaPlacer`` use it; the ``striped`` vectors replay them.

    >>> MockRandom().next_int(4)
    2
    """

    __slots__ = ("_state",)

    def __init__(self, state: int = MOCK_DEFAULT_STATE):
        self._state = _check_long(state, "seed") & _MASK64

    def set_seed(self, seed: int) -> None:  # pragma: no cover - Kafka never calls it on MockRandom
        # Random's constructor calls setSeed before MockRandom's field exists; afterwards the scrambled
        # seed is unused because next() is overridden, so setSeed has no effect on MockRandom's output.
        _check_long(seed, "seed")

    @property
    def state(self) -> int:
        return to_int64(self._state)

    def next(self, bits: int) -> int:
        self._state = (self._state * MOCK_MULTIPLIER + MOCK_ADDEND) & _MASK64
        return to_int32(self._state >> (64 - bits))


def shuffle(items: MutableSequence[T], rnd: JavaRandom) -> MutableSequence[T]:
    """``Collections.shuffle(list, rnd)`` in place (and returned): for ``i`` from ``size-1`` down to 1,
    swap positions ``i`` and ``rnd.nextInt(i + 1)``.  Lists of fewer than two elements draw nothing.

    >>> rnd = JavaRandom(9282439781115247)
    >>> rnd.next_int(3), shuffle([0, 1, 2, 3], rnd)      # vector java-random-0002
    (0, [3, 2, 0, 1])
    """
    for i in range(len(items) - 1, 0, -1):
        j = rnd.next_int(i + 1)
        items[i], items[j] = items[j], items[i]
    return items


def make_random(kind: str = "java.util.Random", seed: Optional[int] = None) -> JavaRandom:
    """The random source named as in the ``striped`` vectors: ``"java.util.Random"`` seeded with
    ``seed`` (unseeded if ``None``), or ``"MockRandom"`` with initial state ``seed`` (default 17)."""
    if kind in ("java.util.Random", "Random", "java"):
        return JavaRandom(seed)
    if kind in ("MockRandom", "org.apache.kafka.server.util.MockRandom", "mock"):
        return MockRandom(MOCK_DEFAULT_STATE if seed is None else seed)
    raise InputError("random", f"must be 'java.util.Random' or 'MockRandom', got {kind!r}")


def replay_ops(seed: int, ops: object) -> List[object]:
    """Run a list of operations against one ``new Random(seed)``, as the ``java_random`` vectors do:
    ``["nextInt", bound]``, ``["nextInt"]``, ``["nextLong"]``, ``["nextBoolean"]``, ``["nextDouble"]``,
    ``["shuffle", [items...]]`` (the shuffled copy is the output)."""
    rnd = JavaRandom(_check_long(seed, "seed"))
    if not isinstance(ops, list):
        raise InputError("ops", f"must be a list of operations, got {type(ops).__name__}")
    out: List[object] = []
    for i, op in enumerate(ops):
        field = f"ops[{i}]"
        if not isinstance(op, list) or not op or not isinstance(op[0], str):
            raise InputError(field, f"must be a list [name, argument...], got {op!r}")
        name, args = op[0], op[1:]
        if name == "nextInt" and len(args) == 1:
            try:
                out.append(rnd.next_int(args[0]))
            except InputError as exc:
                raise InputError(f"{field}[1]", exc.message) from None
        elif name == "nextInt" and not args:
            out.append(rnd.next_int())
        elif name == "nextLong" and not args:
            out.append(rnd.next_long())
        elif name == "nextBoolean" and not args:
            out.append(rnd.next_boolean())
        elif name == "nextDouble" and not args:
            out.append(rnd.next_double())
        elif name == "shuffle" and len(args) == 1:
            if not isinstance(args[0], list):
                raise InputError(f"{field}[1]", f"must be a list to shuffle, got {args[0]!r}")
            out.append(shuffle(list(args[0]), rnd))
        else:
            raise InputError(field, f"unknown operation {op!r}; expected nextInt [bound], nextLong, "
                                    "nextBoolean, nextDouble or shuffle [list]")
    return out
