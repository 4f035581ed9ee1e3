"""Types every area shares, after Kafka's ``org.apache.kafka.common`` package (Kafka 4.3.1).

* :data:`TopicPartition` -- Kafka's ``TopicPartition``, a ``(topic, partition)`` pair: the one spelling of a
  partition in the package (assignors, both group simulators, the live clients, the figures);
* :func:`tp_str` -- ``TopicPartition.toString``, ``"topic-partition"``;
* :class:`KafkaName` -- the base of the package's enums of Kafka's names (group and member states, error
  codes): each member *is* the string Kafka prints (``ClassicGroupState.STABLE == "Stable"``), so traces, JSON
  and tables show exactly what they showed as plain strings, while two concepts spelled alike stay apart
  (``ClassicGroupState.STABLE`` is ``"Stable"``, the client's ``MemberState.STABLE`` is ``"STABLE"``);
* :data:`JsonRecord` -- a JSON object as the package reads and writes it (a scenario, a vectors line's ``input``
  or ``output``, a row of ``run`` or ``simulate``), and the fixed shapes of its error records:
  :class:`KafkaErrorJson` (``{"type", "message"}``, where Kafka throws) and :class:`FieldErrorJson` (``{"type",
  "field", "message"}``, an error line naming the field).
"""
from __future__ import annotations

from enum import Enum
from typing import Any, Dict, List, Optional, Tuple, TypedDict

__all__ = ["FieldErrorJson", "JsonRecord", "KafkaErrorJson", "KafkaName", "TopicPartition", "tp_str"]

#: A JSON object, named once for the whole package: a line as ``json.loads`` reads it (a scenario, a vectors line
#: and its ``input`` and ``output``) or a record about to be written (a row of ``run``, ``simulate`` or ``conform``,
#: a table row).  Its values are ``Any`` on purpose: the input is untrusted, and every field is checked where it is
#: read (``isinstance``, :mod:`rebalance.validation`) and named in an ``InputError`` when it is wrong; a record
#: whose shape is fixed has a ``TypedDict`` instead (below).
JsonRecord = Dict[str, Any]


class KafkaErrorJson(TypedDict):
    """``{"type", "message"}``: an exception Kafka throws, as the vectors record it (``{"error": {...}}``) and
    :meth:`rebalance.errors.KafkaError.to_json` writes it; ``type`` is the Java class's (simple or full) name."""

    type: str
    message: str


class FieldErrorJson(KafkaErrorJson):
    """``{"type", "field", "message"}``: the ``error`` of a line that ``run``, ``simulate`` or ``conform`` could not
    compute (:meth:`rebalance.errors.FieldError.to_json`); ``field`` names what to change, ``None`` for an
    internal error, whose ``type`` is the Python exception's."""

    field: Optional[str]

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
