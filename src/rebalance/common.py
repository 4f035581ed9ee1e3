"""Types every area shares, after Kafka's ``org.apache.kafka.common`` package (Kafka 4.3.1).

* :data:`TopicPartition` -- Kafka's ``TopicPartition``, a ``(topic, partition)`` pair: the one spelling of a
  partition in the package (assignors, both group simulators, the live clients, the figures);
* :func:`tp_str` -- ``TopicPartition.toString``, ``"topic-partition"``;
* :class:`KafkaName` -- the base of the package's enums of Kafka's names (group and member states, error
  codes): each member *is* the string Kafka prints (``ClassicGroupState.STABLE == "Stable"``), so traces, JSON
  and tables show exactly what they showed as plain strings, while two concepts spelled alike stay apart
  (``ClassicGroupState.STABLE`` is ``"Stable"``, the client's ``MemberState.STABLE`` is ``"STABLE"``).
"""
from __future__ import annotations

from enum import Enum
from typing import Any, List, Tuple

__all__ = ["KafkaName", "TopicPartition", "tp_str"]

#: Kafka's ``org.apache.kafka.common.TopicPartition``: ``(topic, partition)``
TopicPartition = Tuple[str, int]


def tp_str(tp: TopicPartition) -> str:
    """Kafka's ``TopicPartition.toString``: ``topic-partition``."""
    return f"{tp[0]}-{tp[1]}"


class KafkaName(str, Enum):
    """An enum whose members are Kafka's own names as strings: equal to, hashed, printed, formatted and
    written to JSON exactly as the plain string (``str``, ``format``, ``repr`` and ``hash`` are the string's,
    where a plain ``Enum`` would hash and print its Python name).

    >>> class Colour(KafkaName):
    ...     RED = "Red"
    >>> Colour.RED == "Red", f"{Colour.RED}", repr(Colour.RED), {"Red": 1}[Colour.RED], Colour("Red") is Colour.RED
    (True, 'Red', "'Red'", 1, True)
    """

    @staticmethod
    def _generate_next_value_(name: str, start: int, count: int, last_values: List[Any]) -> str:
        """``auto()`` gives a member its own name: ``NONE = auto()`` is ``"NONE"``, as Kafka's Java names."""
        return name

    __str__ = str.__str__
    __format__ = str.__format__  # type: ignore[assignment]
    __repr__ = str.__repr__
    __hash__ = str.__hash__
