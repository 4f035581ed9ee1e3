"""Real Apache Kafka, from its released jars on Maven Central.

The book pins one Kafka release, :data:`rebalance.KAFKA_VERSION` (the ``kafka.version`` of ``java/pom.xml``).
This area runs Kafka's own classes from those jars through the book's Java module (``java/``):

* :mod:`rebalance.kafka.oracle` -- the oracle: any scenario line of the vectors' kinds answered by Kafka's
  classes (``python -m rebalance run FILE --oracle kafka``), ``make vectors`` / ``make vectors-check``.
"""
from __future__ import annotations

from .oracle import Oracle, OracleAnswer, check_files, java_module, rewrite_files

__all__ = ["Oracle", "OracleAnswer", "check_files", "java_module", "rewrite_files"]
