"""A pause of Python's cyclic garbage collector around allocation-heavy work.

An assignment at Kafka's scale (1,000,000 partitions) creates millions of small objects that never form
reference cycles: ``(topic, partition)`` tuples and the lists holding them.  Each few hundred allocations
the collector walks the young objects, and every so often the whole heap, which costs a third of such
a call.  Inside :func:`paused_gc` it does not run; reference counting still frees everything, and the
previous state is restored on the way out (a caller that had the collector off keeps it off).
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def paused_gc() -> Iterator[None]:
    """Run the ``with`` body with the cyclic garbage collector off, then restore its previous state."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
