"""Real Apache Kafka, from its released jars on Maven Central.

The book pins one Kafka release, :data:`rebalance.KAFKA_VERSION` (the ``kafka.version`` of ``java/pom.xml``).
This area runs Kafka's own classes from those jars through the book's Java module (``java/``):

* :mod:`rebalance.kafka.oracle` -- the oracle: any scenario line of the vectors' kinds answered by Kafka's
  classes (``python -m rebalance run FILE --oracle kafka``), ``make vectors`` and ``make vectors-check``.

Names are loaded on first use, so ``python -m rebalance.kafka.oracle`` runs the module cleanly.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "Oracle": "rebalance.kafka.oracle", "OracleAnswer": "rebalance.kafka.oracle",
    "answer_all": "rebalance.kafka.oracle", "check_files": "rebalance.kafka.oracle",
    "rewrite_files": "rebalance.kafka.oracle", "java_module": "rebalance.kafka.oracle",
}
__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from .oracle import Oracle, OracleAnswer, answer_all, check_files, java_module, rewrite_files


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rebalance.kafka' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__
