"""Types every area shares, after Kafka's ``org.apache.kafka.common`` package (Kafka 4.3.1).

* :data:`TopicPartition` -- Kafka's ``TopicPartition``, a ``(topic, partition)`` pair: the one spelling of a
  partition in the package (assignors, both group simulators, the live clients, the figures);
* :func:`tp_str` -- ``TopicPartition.toString``, ``"topic-partition"``.
"""
from __future__ import annotations

from typing import Tuple

__all__ = ["TopicPartition", "tp_str"]

#: Kafka's ``org.apache.kafka.common.TopicPartition``: ``(topic, partition)``
TopicPartition = Tuple[str, int]


def tp_str(tp: TopicPartition) -> str:
    """Kafka's ``TopicPartition.toString``: ``topic-partition``."""
    return f"{tp[0]}-{tp[1]}"
