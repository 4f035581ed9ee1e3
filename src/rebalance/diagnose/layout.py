"""One line of a Kafka log, split by the log4j layout Kafka ships.

Kafka's broker and its clients log through log4j2 with the pattern layout ``[%d] %p %m (%c)%n`` (the
distribution's ``config/log4j2.yaml``, 4.x; ``config/log4j.properties`` in 3.9 has the same ``[%d] %p %m (%c)%n``):
the time in brackets (``2026-11-29 03:51:14,480``), the level, the message, the logger's class name in
parentheses.  :class:`~rebalance.kafka.cluster.KafkaCluster` writes its nodes' ``server.log`` with the same
layout.  :func:`split_record` also reads the close variants seen in the field: no brackets around the time, an
ISO ``T`` or a ``.`` before the milliseconds, a ``[thread]`` before the level, no logger at the end.

A line that does not start with a time and a level is not a record: either the continuation of the record
above (a stack trace's ``\\tat ...``, the tab-indented settings a broker prints at start, ``Caused by: ...``, the
rest of a message of several lines), or a line this layout cannot read (:func:`is_continuation` and
:func:`ends_message` tell which).

>>> r = split_record("[2026-11-29 03:51:14,480] INFO Stabilized group g generation 1 with 1 members. "
...                  "(org.apache.kafka.coordinator.group.GroupMetadataManager)")
>>> r.level, r.logger, r.message
('INFO', 'org.apache.kafka.coordinator.group.GroupMetadataManager', 'Stabilized group g generation 1 with 1 members.')
>>> r.at_ms - split_record("[2026-11-29 03:51:14,000] INFO x").at_ms
480
"""
from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from typing import Optional

__all__ = ["LogRecord", "split_record", "is_continuation", "ends_message", "MAX_LINE"]

#: the longest line read whole; a longer one is cut there (a record's message is never that long in Kafka's
#: group lines: a cut line still yields its start)
MAX_LINE = 20_000

_RECORD = re.compile(
    r"^\[?(?P<time>\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[,.]\d{1,9})?)(?:Z|[+-]\d{2}:?\d{2})?\]?\s+"
    r"(?:\[[^\]]{0,200}\]\s+)?(?P<level>TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL)\s+(?P<rest>.*)$")
_LOGGER = re.compile(r"\s\((?P<logger>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)\)\s*$")
_CONTINUATION = re.compile(r"^(?:[ \t]+\S|Caused by: |\.\.\. \d+ more)")


@dataclass(frozen=True)
class LogRecord:
    """One record: ``time`` as printed, ``at_ms`` (milliseconds since 1970 of that wall-clock time, read as UTC:
    only differences between records are used), ``level``, ``message`` (without the logger) and ``logger``
    (the class in parentheses at the end, or ``None``)."""

    time: str
    at_ms: int
    level: str
    message: str
    logger: Optional[str]


def _millis(text: str) -> Optional[int]:
    date, _, clock = text.replace("T", " ").partition(" ")
    whole, _, fraction = clock.replace(",", ".").partition(".")
    try:
        moment = datetime.datetime.strptime(f"{date} {whole}", "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None
    millis = int((fraction + "000")[:3]) if fraction else 0
    return int(moment.replace(tzinfo=datetime.timezone.utc).timestamp()) * 1000 + millis


def split_record(line: str) -> Optional[LogRecord]:
    """The record of one log line, or ``None`` when the line does not start with a time and a level (see the
    module docstring).  Never raises: any text is accepted, a line longer than :data:`MAX_LINE` is read up to
    there."""
    match = _RECORD.match(line[:MAX_LINE].rstrip("\r\n"))
    if match is None:
        return None
    at_ms = _millis(match.group("time"))
    if at_ms is None:  # a date that does not exist (2026-13-45): not a record
        return None
    rest = match.group("rest")
    logger_match = _LOGGER.search(rest)
    logger = logger_match.group("logger") if logger_match else None
    message = rest[:logger_match.start()] if logger_match else rest
    level = "WARN" if match.group("level") == "WARNING" else match.group("level")
    return LogRecord(match.group("time"), at_ms, level, message.strip(), logger)


_EXCEPTION = re.compile(r"^(?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error|Throwable)\b")
_ENDS_WITH_LOGGER = re.compile(r"\s\([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+\)\s*$")


def is_continuation(line: str) -> bool:
    """A line that belongs to the record above it: indented (a stack frame, a setting of the broker's start-up
    dump), ``Caused by: ...``, ``... N more``, or an exception's first line (``java.util.concurrent.Completion
    Exception: ...``, printed after its record)."""
    return bool(_CONTINUATION.match(line) or _EXCEPTION.match(line))


def ends_message(line: str) -> bool:
    """The line ends with the layout's ``(logger)``: the last line of a record's message.  A record whose first
    line does not end so has a message of several lines (a banner, a multi-line text), and the lines up to the one
    that does belong to it."""
    return bool(_ENDS_WITH_LOGGER.search(line))
