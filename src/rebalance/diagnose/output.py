"""The JSON lines ``python -m rebalance diagnose`` writes, as TypedDicts.

* one :class:`RebalanceLine` per rebalance of each group, in the order of the log;
* one ``{"summary": GroupSummary}`` per group after its rebalances: the likely cause and the setting that would
  have prevented it (:class:`CauseLine`);
* one ``{"log": LogLine}`` per file read: how many lines, records, recognised group lines, other records, and
  lines not recognised (``error`` names a file that could not be read);
* with ``-v``, one ``{"not_recognised": UnrecognisedLine}`` per line it could not read.
"""
from __future__ import annotations

from typing import Dict, List, Optional, TypedDict

__all__ = ["TriggerLine", "RemovedMember", "RebalanceLine", "CauseLine", "GroupSummary", "LogLine",
           "UnrecognisedLine"]


class TriggerLine(TypedDict):
    """What started a rebalance: ``kind`` (a key of :data:`~rebalance.diagnose.causes.CAUSES`), the ``member`` id,
    its ``name`` (the client id when a client's log or a classic member id gives it, else the
    ``group.instance.id``), ``client_id``, ``instance_id``, the coordinator's and the client's reason texts and a
    ``note``."""

    kind: str
    member: Optional[str]
    name: Optional[str]
    client_id: Optional[str]
    instance_id: Optional[str]
    broker_reason: Optional[str]
    client_reason: Optional[str]
    note: Optional[str]


class RemovedMember(TypedDict):
    """A member removed while the group was already rebalancing: its id and ``why`` (a kind)."""

    member: str
    why: str


class RebalanceLine(TypedDict):
    """One rebalance: the ``group`` and its ``protocol`` (``classic`` or ``consumer``); the new ``generation``
    (classic) or group ``epoch`` (consumer); ``at`` (the trigger's time as the log prints it), ``completed_at``
    (classic: the leader's assignment received; consumer: the new target assignment computed) and
    ``duration_ms`` between them; ``ended`` (``completed``, ``empty``, ``superseded`` by the next rebalance,
    ``target`` computed, or ``open`` when the log ends first); the ``trigger``; the members of the generation (or
    epoch) before and after, and the coordinator's count after; members ``removed`` during it; how many
    partitions stood unowned and for how long, summed (from clients' logs; ``None`` without them);
    ``notes``; ``source``: ``file:line`` of the trigger's line."""

    group: str
    protocol: str
    generation: Optional[int]
    epoch: Optional[int]
    at: str
    completed_at: Optional[str]
    duration_ms: Optional[int]
    ended: str
    trigger: TriggerLine
    members_before: List[str]
    members_after: Optional[List[str]]
    member_count: Optional[int]
    removed: List[RemovedMember]
    unowned_partitions: Optional[int]
    unowned_partition_ms: Optional[int]
    notes: List[str]
    source: str


class CauseLine(TypedDict):
    """A cause found: its ``kind`` (a trigger kind or a pattern of :data:`~rebalance.diagnose.causes.SERIES_CAUSES`),
    how many rebalances it started (``count``), the members involved (names where known), ``what`` it means, the
    ``settings`` involved and how to ``prevent`` it."""

    kind: str
    count: int
    members: List[str]
    what: str
    settings: List[str]
    prevent: str


class GroupSummary(TypedDict):
    """A group's summary: its rebalances (count, first and last time), counts ``by_kind``, every member id seen
    with its name, the static members' restarts that caused no rebalance, the ``likely_cause``, every
    ``pattern`` found, and notes."""

    group: str
    protocol: str
    rebalances: int
    first: Optional[str]
    last: Optional[str]
    by_kind: Dict[str, int]
    members: Dict[str, Optional[str]]
    static_restarts_without_rebalance: int
    likely_cause: Optional[CauseLine]
    patterns: List[CauseLine]
    notes: List[str]


class LogLine(TypedDict):
    """One file read: ``lines``, ``records`` (lines in Kafka's log layout), ``continuation`` lines (stack traces,
    settings), ``recognised`` group lines (``broker`` and ``client``), ``other`` records (other loggers' news),
    ``not_recognised`` lines; ``error`` when the file could not be read (``None`` otherwise)."""

    file: str
    lines: int
    records: int
    continuation: int
    recognised: int
    broker: int
    client: int
    other: int
    not_recognised: int
    error: Optional[str]


class UnrecognisedLine(TypedDict):
    """A line not recognised: where, and its text (cut at 300 characters, undecodable bytes shown as U+FFFD)."""

    file: str
    line: int
    text: str
