"""The sticky assignors' conformance entry points, kept under the names chapter 05 and the tests import.

There is one adapter for every consumer assignor, :mod:`rebalance.consumer.vectors`; for ``sticky`` and
``cooperative-sticky`` lines its output also carries ``stickyPath``, ``partitionsTransferringOwnership`` and
``maxGeneration``, and :func:`compare` checks them.
"""
from __future__ import annotations

from .vectors import compare, exact_order_matches as list_order_matches, run

__all__ = ["run", "compare", "list_order_matches"]
