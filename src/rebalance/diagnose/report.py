"""Read Kafka logs and say what started each rebalance: :func:`diagnose` (``python -m rebalance diagnose LOG...``).

Every file is read as bytes, line by line, decoded as UTF-8 with undecodable bytes replaced, so no input stops it:
binary data, a truncated last line, another program's log, an empty file.  Each line is one of: a record of
Kafka's log layout (:mod:`~rebalance.diagnose.layout`) that a pattern recognises (:mod:`~rebalance.diagnose.patterns`:
a broker's group line, or a consumer's), another record (other loggers' news), the continuation of a record, or
**not recognised** (not in the layout, or a line of the group coordinator's own loggers that no pattern reads:
a release whose text differs).  A file that cannot be opened is a ``{"log": {"file", "error"}}`` line.

The broker's lines drive one history per group (:mod:`~rebalance.diagnose.groups`), in the order of the files
(give a broker's rotated logs oldest first); the clients' lines, from any file, name the members and add their
reasons and their partitions' unowned time (:mod:`~rebalance.diagnose.clients`).

>>> log = '''[2026-11-29 03:51:16,618] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=0] Pending dynamic member with id c3-d147fbd8-0275-4da7-ad5b-24ee4b48e267 joins group g in Stable state. Adding to the group now. (org.apache.kafka.coordinator.group.GroupMetadataManager)
... [2026-11-29 03:51:16,623] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=0] Preparing to rebalance group g in state PreparingRebalance with old generation 2 (reason: Adding new member c3-d147fbd8-0275-4da7-ad5b-24ee4b48e267 with group instance id null; client reason: need to re-join with the given member-id: c3-d147fbd8-0275-4da7-ad5b-24ee4b48e267). (org.apache.kafka.coordinator.group.GroupMetadataManager)
... [2026-11-29 03:51:16,997] INFO [GroupCoordinator id=1 topic=__consumer_offsets partition=0] Stabilized group g generation 3 with 1 members. (org.apache.kafka.coordinator.group.GroupMetadataManager)
... '''
>>> d = diagnose_text(log)
>>> line = d.rebalances[0]
>>> line["generation"], line["trigger"]["kind"], line["trigger"]["name"], line["ended"]
(3, 'join', 'c3', 'open')
"""
from __future__ import annotations

import io
import sys
from dataclasses import dataclass, field
from typing import IO, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from ..common import JsonRecord
from .clients import ClientLogs
from .groups import ClassicGroupHistory, ConsumerGroupHistory, Rebalance, member_name
from .layout import MAX_LINE, ends_message, is_continuation, split_record
from .output import GroupSummary, LogLine, RebalanceLine, UnrecognisedLine
from .patterns import GROUP_LOGGERS, LineEvent, match_record
from .summary import summarize

__all__ = ["Diagnosis", "diagnose", "diagnose_text", "read_lines", "MAX_UNRECOGNISED"]

#: at most this many not-recognised lines are kept for ``-v`` (all are counted)
MAX_UNRECOGNISED = 10_000
_TEXT = 300

History = Union[ClassicGroupHistory, ConsumerGroupHistory]


def read_lines(stream: IO[bytes]) -> Iterator[str]:
    """The lines of a byte stream as text: UTF-8 with undecodable bytes replaced; a line longer than
    :data:`~rebalance.diagnose.layout.MAX_LINE` bytes is cut there (its rest is skipped)."""
    while True:
        chunk = stream.readline(MAX_LINE)
        if not chunk:
            return
        if len(chunk) == MAX_LINE and not chunk.endswith(b"\n"):
            while True:  # skip the rest of an over-long line
                rest = stream.readline(MAX_LINE)
                if not rest or rest.endswith(b"\n"):
                    break
        yield chunk.decode("utf-8", "replace").rstrip("\r\n")


@dataclass
class Diagnosis:
    """What :func:`diagnose` found: the rebalance lines, the groups' summaries, a line per file and the lines not
    recognised (up to :data:`MAX_UNRECOGNISED`)."""

    rebalances: List[RebalanceLine] = field(default_factory=list)
    summaries: List[GroupSummary] = field(default_factory=list)
    logs: List[LogLine] = field(default_factory=list)
    unrecognised: List[UnrecognisedLine] = field(default_factory=list)

    @property
    def unreadable(self) -> int:
        """How many files could not be read."""
        return sum(1 for log in self.logs if log["error"] is not None)

    def lines(self, verbose: bool = False) -> Iterator[JsonRecord]:
        """The output lines: per group its rebalances then its summary, then one line per file, then (``verbose``)
        the lines not recognised."""
        by_group: Dict[Tuple[str, str], List[RebalanceLine]] = {}
        for line in self.rebalances:
            by_group.setdefault((line["group"], line["protocol"]), []).append(line)
        for s in self.summaries:
            for line in by_group.get((s["group"], s["protocol"]), []):
                yield dict(line)
            yield {"summary": dict(s)}
        for log in self.logs:
            yield {"log": dict(log)}
        if verbose:
            for u in self.unrecognised:
                yield {"not_recognised": dict(u)}


def _open(path: str) -> IO[bytes]:
    if path == "-":
        return sys.stdin.buffer
    return open(path, "rb")


def _log_line(path: str, error: Optional[str] = None) -> LogLine:
    return {"file": path, "lines": 0, "records": 0, "continuation": 0, "recognised": 0, "broker": 0, "client": 0,
            "other": 0, "not_recognised": 0, "error": error}


class _Reader:
    def __init__(self) -> None:
        self.histories: Dict[Tuple[str, str], History] = {}
        self.clients = ClientLogs()
        self.result = Diagnosis()
        self.last_replaced: Optional[LineEvent] = None

    def history(self, group: str, protocol: str) -> History:
        key = (group, protocol)
        if key not in self.histories:
            self.histories[key] = ClassicGroupHistory(group) if protocol == "classic" else ConsumerGroupHistory(group)
        return self.histories[key]

    def read(self, name: str, stream: IO[bytes]) -> LogLine:
        log = _log_line(name)
        in_message = False   # inside a record's message of several lines (its first line had no "(logger)")
        after_record = False
        for number, text in enumerate(read_lines(stream), 1):
            log["lines"] += 1
            record = split_record(text)
            if record is None:
                if text.strip() == "":
                    continue
                if (in_message and "\ufffd" not in text and "\x00" not in text) or (after_record and is_continuation(text)):
                    log["continuation"] += 1
                    in_message = in_message and not ends_message(text)
                    continue
                in_message = after_record = False
                self.unknown(log, name, number, text)
                continue
            in_message, after_record = record.logger is None, True
            log["records"] += 1
            event = match_record(record, name, number)
            if event is None:
                if record.logger in GROUP_LOGGERS:
                    self.unknown(log, name, number, text)
                else:
                    log["other"] += 1
                continue
            log["recognised"] += 1
            if event.side == "broker":
                log["broker"] += 1
            else:
                log["client"] += 1
            try:
                self.dispatch(event)
            except (KeyError, ValueError, IndexError) as exc:  # a line whose fields do not fit: never stop on it
                log["recognised"] -= 1
                self.unknown(log, name, number, f"{text} [not applied: {type(exc).__name__} {exc}]")
        return log

    def unknown(self, log: LogLine, name: str, number: int, text: str) -> None:
        log["not_recognised"] += 1
        if len(self.result.unrecognised) < MAX_UNRECOGNISED:
            self.result.unrecognised.append({"file": name, "line": number, "text": text[:_TEXT]})

    def dispatch(self, e: LineEvent) -> None:
        if e.side == "client":
            self.clients.feed(e)
            return
        if e.event == "static_no_rebalance":  # the line names no group: it follows its replacement line
            if self.last_replaced is None:
                return
            e = LineEvent(e.event, e.side, dict(self.last_replaced.fields), e.record, e.file, e.line, e.pattern)
            self.last_replaced = None
        elif e.event == "static_replaced":
            self.last_replaced = e
        group = e.group
        if group is None or e.event in ("loaded", "unloaded", "other_group_type", "leader_not_joined",
                                        "c_unknown_classic_member", "pending_left", "pending_expired", "no_rejoin"):
            return
        protocol = "consumer" if e.event.startswith("c_") else "classic"
        self.history(group, protocol).feed(e)

    def finish(self) -> Diagnosis:
        for (group, protocol), h in self.histories.items():
            rows = [(r, self.line(r)) for r in h.rebalances]
            members: Dict[str, Optional[str]] = {}
            for r, line in rows:
                for m in line["members_before"] + (line["members_after"] or []) + \
                        ([line["trigger"]["member"]] if line["trigger"]["member"] else []):
                    members[m] = self.name(group, m, None)
            if not rows and not h.static_restarts_without_rebalance:
                continue
            self.result.rebalances.extend(line for _, line in rows)
            self.result.summaries.append(summarize(group, protocol, rows, members,
                                                   len(h.static_restarts_without_rebalance), h.notes))
        return self.result

    def name(self, group: str, member: Optional[str], instance: Optional[str]) -> Optional[str]:
        if member is None:
            return None
        return self.clients.client_of(group, member) or member_name(member) or instance

    def line(self, r: Rebalance) -> RebalanceLine:
        t = r.trigger
        client_id = self.clients.client_of(r.group, t.member)
        if client_id is None and t.member is not None and t.instance_id is None:
            client_id = member_name(t.member)   # a dynamic classic member's id starts with its client id
        near = self.clients.reason_near(r.group, client_id, t.member, r.started_ms)
        client_reason = t.client_reason
        kind = t.kind
        note = t.note
        if near is not None:
            if client_reason is None or client_reason == "not provided":
                client_reason = near.text
            if near.kind == "poll timeout" and kind in ("leave", "poll timeout", "rebalance timeout"):
                if kind != "poll timeout" or (note or "").startswith("inferred"):
                    note = "the client's log says its poll timeout expired"
                kind = "poll timeout"
        end = r.completed_ms if r.completed_ms is not None else r.stabilized_ms
        unowned = self.clients.unowned(r.group, r.started_ms - 1_000, (end if end is not None else r.started_ms) + 1_000)
        return {"group": r.group, "protocol": r.protocol,
                "generation": r.generation if r.protocol == "classic" else None,
                "epoch": r.generation if r.protocol == "consumer" else None,
                "at": r.started, "completed_at": r.completed,
                "duration_ms": (r.completed_ms - r.started_ms) if r.completed_ms is not None else None,
                "ended": r.ended,
                "trigger": {"kind": kind, "member": t.member, "name": self.name(r.group, t.member, t.instance_id),
                            "client_id": client_id, "instance_id": t.instance_id, "broker_reason": t.broker_reason,
                            "client_reason": client_reason, "note": note},
                "members_before": list(r.members_before), "members_after": r.members_after,
                "member_count": r.member_count,
                "removed": [{"member": m, "why": why} for m, why in r.removed],
                "unowned_partitions": unowned[0] if unowned else None,
                "unowned_partition_ms": unowned[1] if unowned else None,
                "notes": list(r.notes), "source": f"{r.file}:{r.line}"}


def diagnose(paths: Sequence[str]) -> Diagnosis:
    """Read every file of ``paths`` (``-``: stdin) and find every group's rebalances (see the module docstring).
    Never raises for a file's content; a file that cannot be read gets a ``LogLine`` with its ``error``."""
    reader = _Reader()
    for path in paths:
        try:
            stream = _open(path)
        except OSError as exc:
            reader.result.logs.append(_log_line(path, f"cannot read file ({exc.strerror or exc})"))
            continue
        try:
            reader.result.logs.append(reader.read(path, stream))
        except OSError as exc:  # a read that fails half-way (a folder, a vanished disk): what was read counts
            reader.result.logs.append(_log_line(path, f"cannot read file ({exc.strerror or exc})"))
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()
    return reader.finish()


def diagnose_text(text: str, name: str = "<text>") -> Diagnosis:
    """:func:`diagnose` of one log given as text."""
    reader = _Reader()
    reader.result.logs.append(reader.read(name, io.BytesIO(text.encode("utf-8"))))
    return reader.finish()
