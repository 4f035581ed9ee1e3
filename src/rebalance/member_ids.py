"""Member ids as a real group draws them: what a scenario shows over many draws.

A real group's member ids are random -- a classic member's is ``clientId-`` plus ``UUID.randomUUID()``
(``ClassicGroup.generateMemberId``, Kafka 4.3.1), a KIP-848 or share member's a random ``Uuid`` it draws itself
(``AsyncKafkaConsumer`` / ``ShareConsumerImpl``), a Connect worker's ``connect-<host:port>-`` plus a UUID -- and
Kafka breaks some ties by them (the ``HashMap`` order of the ids, or their sorted order).  Each simulator that
models this takes a ``member_id_seed``; :func:`distinct_draws` runs one scenario over seeds and keeps the distinct
outcomes, which is what ``simulate --alternatives`` and the peer benches compare a real run with.
"""
from __future__ import annotations

import json
from typing import Any, Callable, List, Optional, TypeVar

from .validation import require

T = TypeVar("T")


def distinct_draws(run: Callable[[Optional[int]], T], draws: int, key: Callable[[T], Any] = lambda r: r) -> List[T]:
    """The distinct results of ``run(seed)`` over the seeds ``None`` (the simulator's own, numbered ids) and ``0`` to
    ``draws - 1``, in that order, two results being the same when ``key`` gives the same JSON.  Each is an
    outcome a real group can show; the set is a sample of ``draws`` draws, not a proof that no other exists."""
    require(isinstance(draws, int) and not isinstance(draws, bool) and draws >= 1, "draws",
            f"must be a whole number >= 1, got {draws!r}")
    out: List[T] = []
    seen = set()
    for seed in [None, *range(draws)]:
        result = run(seed)
        k = json.dumps(key(result), sort_keys=True)
        if k not in seen:
            seen.add(k)
            out.append(result)
    return out
