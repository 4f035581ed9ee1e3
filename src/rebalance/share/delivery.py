"""A share partition's deliveries under a rule of acknowledgement (KIP-932), on a virtual clock.

The members of a share group take turns fetching from one share partition (at most ``max_records`` each, as
``max.poll.records`` bounds a ``KafkaShareConsumer``'s poll) and acknowledge every record they get by a
:class:`ShareRule` of the record's offset -- the same at every delivery, whoever gets it: ``RELEASE``, ``REJECT``,
``ACCEPT``, or hold it past the acquisition lock (``SLOW``: the late ``ACCEPT`` of a consumer that stalls).  When
nobody can fetch, the clock jumps one lock duration and the held records' locks expire.  The partition is
:class:`~rebalance.share.SharePartitionModel` (Kafka 4.3.1's ``SharePartition``), so a release or an expiry at
``group.share.delivery.count.limit`` archives the record.

:func:`deliveries` is that loop, written once: the chapter's delivery log
(:func:`rebalance.widgets.share.delivery_log`) and the prediction set against a real broker's share consumers
(:func:`rebalance.kafka.share.predict_outcomes`) are both read from it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterator, Sequence, Tuple

from ..validation import require
from .share_partition import (DEFAULT_RECORD_LOCK_DURATION_MS, AcknowledgeType, InFlightState, RecordState,
                              SharePartitionModel)

__all__ = ["ShareRule", "share_rule", "Delivery", "deliveries", "outcomes"]

_ACK_TYPES = {"ACCEPT": AcknowledgeType.ACCEPT, "RELEASE": AcknowledgeType.RELEASE, "REJECT": AcknowledgeType.REJECT}


@dataclass(frozen=True)
class ShareRule:
    """How every member acknowledges a record, by its offset (the same at each delivery): ``RELEASE`` for the
    offsets in ``release``, ``REJECT`` for ``reject``, ``ACCEPT`` after the lock has expired for ``slow``,
    ``ACCEPT`` for the others.

    Defined in chapter 14, *Share groups: queues for Kafka*."""

    release: Tuple[int, ...] = ()
    reject: Tuple[int, ...] = ()
    slow: Tuple[int, ...] = ()

    def __post_init__(self) -> None:
        seen: Dict[int, str] = {}
        for name in ("release", "reject", "slow"):
            for o in getattr(self, name):
                require(isinstance(o, int) and not isinstance(o, bool) and o >= 0, name,
                        f"offsets are whole numbers >= 0, got {o!r}")
                require(o not in seen, name, f"offset {o} is already in {seen.get(o)}")
                seen[o] = name

    def action(self, offset: int) -> str:
        """``"RELEASE"``, ``"REJECT"``, ``"SLOW"`` or ``"ACCEPT"``."""
        for name in ("release", "reject", "slow"):
            if offset in getattr(self, name):
                return name.upper()
        return "ACCEPT"


def share_rule(records: int, release_every: int = 0, reject_every: int = 0, slow: int = 0) -> ShareRule:
    """A :class:`ShareRule` over offsets ``0..records-1``: the last ``slow`` offsets acknowledged too late;
    before them every ``release_every``-th offset released (from ``release_every - 1``) and every
    ``reject_every``-th rejected (from ``reject_every // 2``, where not released); 0 for none.

    >>> share_rule(6, release_every=2, reject_every=3, slow=1)
    ShareRule(release=(1, 3), reject=(4,), slow=(5,))
    """
    require(isinstance(slow, int) and 0 <= slow <= records, "slow", f"between 0 and {records}")
    head = records - slow
    release = [o for o in range(head) if release_every and o % release_every == release_every - 1]
    reject = [o for o in range(head) if reject_every and o % reject_every == reject_every // 2 and o not in release]
    return ShareRule(tuple(release), tuple(reject), tuple(range(head, records)))


@dataclass(frozen=True)
class Delivery:
    """One delivery of a record and how it ended: ``at_ms`` (virtual, when it was acquired), ``member``,
    ``offset``, ``delivery_count`` (after the acquisition), ``rule`` (the offset's action), ``outcome``
    (``accepted``, ``rejected``, ``released``, ``lock expired``, or ``archived (limit)`` when a release or an
    expiry happened at the delivery limit) and ``state``, the record's :class:`RecordState` name after it."""

    at_ms: int
    member: str
    offset: int
    delivery_count: int
    rule: str
    outcome: str
    state: str


def deliveries(records: int, rule: ShareRule, members: Sequence[str], *, delivery_count_limit: int,
               max_records: int = 500,
               record_lock_duration_ms: int = DEFAULT_RECORD_LOCK_DURATION_MS) -> Iterator[Delivery]:
    """Every delivery of ``records`` records of one share partition, in the order each one ends (see the module
    docstring): the members fetch in turn, a ``SLOW`` record's delivery ends when its lock expires.  Stops when
    the share-partition start offset reaches the log end: every record acknowledged or archived.

    >>> [(d.offset, d.outcome) for d in deliveries(2, share_rule(2, release_every=1, slow=1), ["m1"],
    ...                                            delivery_count_limit=2)]
    [(0, 'released'), (0, 'archived (limit)'), (1, 'lock expired'), (1, 'archived (limit)')]
    """
    model = SharePartitionModel(delivery_count_limit=delivery_count_limit,
                                record_lock_duration_ms=record_lock_duration_ms)
    model.append(records)
    # offset -> (at_ms, member, record) of a SLOW delivery; an expiry leaves the delivery count as it is
    held: Dict[int, Tuple[int, str, InFlightState]] = {}
    now = 0
    while model.start_offset < model.log_end_offset:
        progressed = False
        for member in members:
            got = model.acquire(member, max_records, now)
            progressed = progressed or bool(got)
            for offset in got:
                record = model.records[offset]
                action = rule.action(offset)
                if action == "SLOW":
                    held[offset] = (now, member, record)
                    continue
                model.acknowledge(member, [offset], _ACK_TYPES[action], now)
                at_limit = record.delivery_count >= delivery_count_limit
                outcome = {"ACCEPT": "accepted", "REJECT": "rejected",
                           "RELEASE": "archived (limit)" if at_limit else "released"}[action]
                yield Delivery(now, member, offset, record.delivery_count, action, outcome, record.state.name)
        if progressed:
            now += 1
            continue
        now += model.record_lock_duration_ms
        model.expire_locks(now)
        for offset, (at_ms, member, record) in sorted(held.items()):
            archived = record.state is RecordState.ARCHIVED
            yield Delivery(at_ms, member, offset, record.delivery_count, "SLOW",
                           "archived (limit)" if archived else "lock expired", record.state.name)
        held.clear()


def outcomes(records: int, rule: ShareRule, members: Sequence[str], *, delivery_count_limit: int,
             max_records: int = 500) -> Dict[int, Dict[str, Any]]:
    """Each record's deliveries, highest delivery count and final state, read from :func:`deliveries`:
    ``{offset: {"deliveries", "max_delivery_count", "state"}}``.

    >>> outcomes(2, share_rule(2, reject_every=1), ["m1", "m2"], delivery_count_limit=3)[0]
    {'deliveries': 1, 'max_delivery_count': 1, 'state': 'ARCHIVED'}
    """
    count: Dict[int, int] = {}
    highest: Dict[int, int] = {}
    final: Dict[int, str] = {}
    for d in deliveries(records, rule, members, delivery_count_limit=delivery_count_limit, max_records=max_records):
        count[d.offset] = count.get(d.offset, 0) + 1
        highest[d.offset] = max(highest.get(d.offset, 0), d.delivery_count)
        final[d.offset] = d.state
    return {o: {"deliveries": count[o], "max_delivery_count": highest[o], "state": final[o]} for o in sorted(count)}
