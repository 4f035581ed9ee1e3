"""A share partition's records, one by one (KIP-932): who may consume a record, and how often it is redelivered.

In a share group the broker, not the consumer, tracks delivery: the leader of each partition keeps a
``SharePartition`` (``kafka.server.share.SharePartition``, ``core/src/main/java/kafka/server/share/SharePartition.java``
in the kafka_2.13 jar, Kafka 4.3.1) whose in-flight records each have an ``InFlightState``
(``org.apache.kafka.server.share.fetch.InFlightState``, kafka-server jar, 4.3.1): a :class:`RecordState`, a delivery
count and the member holding it.  The states and their moves::

    AVAILABLE --acquire (delivery count + 1, lock for group.share.record.lock.duration.ms)--> ACQUIRED
    ACQUIRED  --ACCEPT--> ACKNOWLEDGED                                    (terminal)
    ACQUIRED  --REJECT--> ARCHIVED                                        (terminal)
    ACQUIRED  --RELEASE, lock timeout, member gone--> AVAILABLE, or ARCHIVED once the delivery count has reached
                                                      group.share.delivery.count.limit

* :class:`InFlightState` is a port of Kafka's class (exact: tests/share/test_share_partition.py drives Kafka's own
  ``InFlightState`` through the oracle's ``share_record_state`` kind and compares every step);
* :class:`SharePartitionModel` is a *model* of ``SharePartition`` built on it: one state per offset (Kafka keeps
  whole fetched batches in one state until their records diverge), no persister (every state write succeeds at
  once), no log (records exist up to :attr:`~SharePartitionModel.log_end_offset`), a virtual clock in place of
  the acquisition-lock timer.  What it keeps of Kafka's rules is cited by line in each method.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Dict, List, Optional, Sequence, Tuple

from ..errors import InputError, KafkaError

__all__ = ["ACK_TYPE_TO_RECORD_STATE", "AcknowledgeType", "DEFAULT_DELIVERY_COUNT_LIMIT",
           "DEFAULT_PARTITION_MAX_RECORD_LOCKS", "DEFAULT_RECORD_LOCK_DURATION_MS", "DeliveryCountOps",
           "EMPTY_MEMBER_ID", "InFlightState", "RecordState", "SharePartitionModel"]

#: ``ShareGroupConfig`` (group coordinator, Kafka 4.3.1): ``group.share.delivery.count.limit`` default (line 49)
DEFAULT_DELIVERY_COUNT_LIMIT = 5
#: ``group.share.record.lock.duration.ms`` default (line 61)
DEFAULT_RECORD_LOCK_DURATION_MS = 30_000
#: ``group.share.partition.max.record.locks`` default (line 37): in-flight records per share partition
DEFAULT_PARTITION_MAX_RECORD_LOCKS = 2000

#: ``InFlightState.EMPTY_MEMBER_ID`` (line 40): a record nobody holds
EMPTY_MEMBER_ID = ""


class RecordState(Enum):
    """``org.apache.kafka.server.share.fetch.RecordState`` (kafka-server, 4.3.1), with its persisted ids.
    ``ARCHIVING`` (KIP-1191) exists in the enum but no transition of this release reaches it."""

    AVAILABLE = 0
    ACQUIRED = 1
    ACKNOWLEDGED = 2
    ARCHIVING = 3
    ARCHIVED = 4

    def validate_transition(self, new_state: "RecordState") -> "RecordState":
        """``RecordState.validateTransition``: not to the same state; nothing out of ``ACKNOWLEDGED`` or
        ``ARCHIVED``; out of ``AVAILABLE`` only to ``ACQUIRED``; out of ``ACQUIRED`` anywhere else.  Kafka throws
        ``IllegalStateException``; here it is :class:`~rebalance.errors.KafkaError` of that type."""
        if self is new_state:
            raise KafkaError("IllegalStateException",
                             "The state transition is invalid as the new state is the same as the current state")
        if self in (RecordState.ACKNOWLEDGED, RecordState.ARCHIVED):
            raise KafkaError("IllegalStateException", f"The state transition is invalid from the current state: {self.name}")
        if self is RecordState.AVAILABLE and new_state is not RecordState.ACQUIRED:
            raise KafkaError("IllegalStateException", "The state can only be transitioned to ACQUIRED from AVAILABLE")
        return new_state

    @property
    def terminal(self) -> bool:
        """``SharePartition.isStateTerminal`` (line 2704): ``ACKNOWLEDGED`` or ``ARCHIVED``."""
        return self in (RecordState.ACKNOWLEDGED, RecordState.ARCHIVED)


class DeliveryCountOps(Enum):
    """``org.apache.kafka.server.share.fetch.DeliveryCountOps``: what a transition does to the delivery count."""

    INCREASE = "INCREASE"
    DECREASE = "DECREASE"
    NO_OP = "NO_OP"


class AcknowledgeType(Enum):
    """``org.apache.kafka.clients.consumer.AcknowledgeType`` (kafka-clients, 4.3.1) and its wire ids; 0 is a gap
    (an offset the client reports as absent from the log)."""

    GAP = 0
    ACCEPT = 1
    RELEASE = 2
    REJECT = 3
    RENEW = 4


#: ``SharePartition.ACK_TYPE_TO_RECORD_STATE`` (lines 151-156); ``RENEW`` keeps the record acquired and renews its
#: lock instead (lines 2307-2322, only when the group enables it)
ACK_TYPE_TO_RECORD_STATE: Dict[AcknowledgeType, RecordState] = {
    AcknowledgeType.GAP: RecordState.ARCHIVED,
    AcknowledgeType.ACCEPT: RecordState.ACKNOWLEDGED,
    AcknowledgeType.RELEASE: RecordState.AVAILABLE,
    AcknowledgeType.REJECT: RecordState.ARCHIVED,
}


@dataclass
class InFlightState:
    """``InFlightState`` (kafka-server, ``org/apache/kafka/server/share/fetch/InFlightState.java``, Kafka 4.3.1):
    one record's (or one batch's) state, delivery count and holder, with the rollback state of a transition that
    waits for the persister.  The acquisition-lock timer is not kept here: :meth:`complete_state_transition` is told
    whether it has expired."""

    state: RecordState = RecordState.AVAILABLE
    delivery_count: int = 0
    member_id: str = EMPTY_MEMBER_ID
    #: ``rollbackState`` (line 50): the (state, delivery count, member) before a started transition, and the
    #: delivery limit it was started with
    rollback: Optional[Tuple[RecordState, int, str, int]] = None
    #: ``isTerminalState`` (line 55): set by :meth:`archive`, a rollback then keeps ``ARCHIVED``
    is_terminal_state: bool = False

    def has_ongoing_state_transition(self) -> bool:
        """``hasOngoingStateTransition`` (line 131): a started transition not yet completed."""
        return self.rollback is not None

    def try_update_state(self, new_state: RecordState, ops: DeliveryCountOps, max_delivery_count: int,
                         new_member_id: str) -> Optional["InFlightState"]:
        """``tryUpdateState`` (lines 150-176): ``None`` (Kafka's ``null``) while a transition is ongoing or when
        :meth:`RecordState.validate_transition` refuses it; a record going back to ``AVAILABLE`` whose delivery
        count has reached ``max_delivery_count`` is ``ARCHIVED`` instead (line 163, unless the count is being
        decreased); the count changes by ``ops`` except on the way to ``ARCHIVED`` (line 167)."""
        if self.has_ongoing_state_transition():
            return None
        if new_state is RecordState.AVAILABLE and ops is not DeliveryCountOps.DECREASE \
                and self.delivery_count >= max_delivery_count:
            new_state = RecordState.ARCHIVED
        try:
            self.state = self.state.validate_transition(new_state)
        except KafkaError:
            return None
        if new_state is not RecordState.ARCHIVED:
            self.delivery_count += {DeliveryCountOps.INCREASE: 1, DeliveryCountOps.DECREASE: -1,
                                    DeliveryCountOps.NO_OP: 0}[ops]
        self.member_id = new_member_id
        return self

    def archive(self) -> None:
        """``archive`` (lines 183-188): ``ARCHIVED`` for good (log start offset moved past it), nobody's."""
        self.is_terminal_state = True
        self.state = RecordState.ARCHIVED
        self.member_id = EMPTY_MEMBER_ID

    def start_state_transition(self, new_state: RecordState, ops: DeliveryCountOps, max_delivery_count: int,
                               new_member_id: str) -> Optional["InFlightState"]:
        """``startStateTransition`` (lines 203-210): :meth:`try_update_state`, remembering the state before it
        until :meth:`complete_state_transition` (Kafka waits for the share-group state persister)."""
        before = (self.state, self.delivery_count, self.member_id)
        updated = self.try_update_state(new_state, ops, max_delivery_count, new_member_id)
        if updated is not None:
            self.rollback = (*before, max_delivery_count)
        return updated

    def complete_state_transition(self, commit: bool, lock_expired: bool = False) -> None:
        """``completeStateTransition`` (lines 219-244): keep the new state (``commit``, or an archived record), or
        roll back to the state before; a rolled-back record whose acquisition lock has expired meanwhile becomes
        ``AVAILABLE`` (``ARCHIVED`` at the delivery limit) and nobody's.  The delivery count is never rolled back."""
        if commit or self.is_terminal_state:
            self.rollback = None
            return
        if self.rollback is None:
            raise InputError("commit", "complete_state_transition(False) needs a started transition")
        state, count, member, max_delivery_count = self.rollback
        if lock_expired:
            self.state = RecordState.ARCHIVED if count >= max_delivery_count else RecordState.AVAILABLE
            self.member_id = EMPTY_MEMBER_ID
        else:
            self.state, self.member_id = state, member
        self.rollback = None


@dataclass
class SharePartitionModel:
    """A model of one share partition's records (see the module docstring for what it leaves out).

    ``start_offset`` is the share-partition start offset (SPSO): every record before it is done with;
    ``records`` holds the in-flight records from there (Kafka's ``cachedState``), each an :class:`InFlightState`;
    ``locks`` the acquisition-lock deadline of each acquired record (virtual ms).

    Defined in chapter 14, *Share groups: queues for Kafka*."""

    delivery_count_limit: int = DEFAULT_DELIVERY_COUNT_LIMIT
    record_lock_duration_ms: int = DEFAULT_RECORD_LOCK_DURATION_MS
    max_record_locks: int = DEFAULT_PARTITION_MAX_RECORD_LOCKS
    log_end_offset: int = 0
    start_offset: int = 0
    records: Dict[int, InFlightState] = field(default_factory=dict)
    locks: Dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("delivery_count_limit", "record_lock_duration_ms", "max_record_locks"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InputError(name, f"must be a whole number >= 1, got {value!r}")

    # --- the log ---------------------------------------------------------------------------------------------

    def append(self, count: int = 1) -> None:
        """``count`` more records in the partition's log."""
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise InputError("count", f"must be a whole number >= 0, got {count!r}")
        self.log_end_offset += count

    @property
    def end_offset(self) -> int:
        """The offset after the last in-flight record (Kafka's ``endOffset() + 1``), or the start offset."""
        return max(self.records, default=self.start_offset - 1) + 1

    @property
    def next_fetch_offset(self) -> int:
        """``SharePartition.nextFetchOffset``: the first ``AVAILABLE`` in-flight record without an ongoing
        transition (records released or whose lock expired), else the offset after the in-flight records."""
        return min((o for o, r in self.records.items()
                    if r.state is RecordState.AVAILABLE and not r.has_ongoing_state_transition()),
                   default=self.end_offset)

    def state_of(self, offset: int) -> RecordState:
        """A record's state: an in-flight record's own; ``AVAILABLE`` for a record of the log not fetched yet.
        Before the start offset nothing is tracked any more (``InputError``)."""
        if offset in self.records:
            return self.records[offset].state
        if offset >= self.end_offset and offset < self.log_end_offset:
            return RecordState.AVAILABLE  # not fetched yet
        raise InputError("offset", f"offset {offset} is not tracked (start offset {self.start_offset}, "
                                   f"log end {self.log_end_offset})")

    # --- the operations --------------------------------------------------------------------------------------

    def acquire(self, member_id: str, max_records: int, now_ms: int) -> List[int]:
        """A share fetch by ``member_id`` (``SharePartition.acquire``, line 719): from the start offset up, the
        ``AVAILABLE`` records without an ongoing transition, then records never fetched, at most ``max_records``
        and at most ``max_record_locks`` in flight (``lastOffsetAndMaxRecordsToAcquire``, lines 1678-1689); each
        goes ``ACQUIRED`` with its delivery count + 1 (``tryUpdateState(ACQUIRED, INCREASE, ...)``, lines 932 and
        1984) under a lock until ``now_ms + record_lock_duration_ms`` (line 2854).  Returns the offsets."""
        if not isinstance(member_id, str) or not member_id:
            raise InputError("member_id", f"must be a non-empty member id, got {member_id!r}")
        if not isinstance(max_records, int) or isinstance(max_records, bool) or max_records < 0:
            raise InputError("max_records", f"must be a whole number >= 0, got {max_records!r}")
        self.expire_locks(now_ms)
        acquired: List[int] = []
        for offset in sorted(self.records):
            if len(acquired) >= max_records:
                break
            state = self.records[offset]
            if state.state is RecordState.AVAILABLE and not state.has_ongoing_state_transition():
                if state.try_update_state(RecordState.ACQUIRED, DeliveryCountOps.INCREASE, self.delivery_count_limit,
                                          member_id) is not None:
                    acquired.append(offset)
        offset = self.end_offset
        while len(acquired) < max_records and offset < self.log_end_offset \
                and offset - self.start_offset < self.max_record_locks:
            state = InFlightState()
            state.try_update_state(RecordState.ACQUIRED, DeliveryCountOps.INCREASE, self.delivery_count_limit, member_id)
            self.records[offset] = state
            acquired.append(offset)
            offset += 1
        for offset in acquired:
            self.locks[offset] = now_ms + self.record_lock_duration_ms
        return acquired

    def acknowledge(self, member_id: str, offsets: Sequence[int], ack_type: AcknowledgeType, now_ms: int) -> None:
        """``SharePartition.acknowledge`` (line 980) for ``offsets``: each must be ``ACQUIRED``, without an ongoing
        transition and held by ``member_id`` (lines 2279-2301), else ``InvalidRecordStateException`` and none of
        them changes (the started transitions roll back, ``rollbackOrProcessStateUpdates``); then each goes to
        :data:`ACK_TYPE_TO_RECORD_STATE` with its delivery count unchanged (``NO_OP``, lines 2333-2338), so a
        ``RELEASE`` at the delivery limit archives it.  A ``RENEW`` extends the locks instead (lines 2307-2322; Kafka
        only accepts it when the group enables lock renewal, the model always does).  Locks that expired
        before ``now_ms`` are released first, so a late acknowledgement fails -- unless the record has meanwhile
        been archived and the start offset has moved past it: offsets before the start offset are skipped
        (lines 1006-1010), and the acknowledgement succeeds."""
        if not isinstance(ack_type, AcknowledgeType):
            raise InputError("ack_type", f"must be an AcknowledgeType, got {ack_type!r}")
        self.expire_locks(now_ms)
        # an offset before the start offset is already done with: Kafka skips it and reports success ("already
        # archived", line 1006), so a too-late acknowledgement of a record archived meanwhile does not fail
        offsets = [offset for offset in offsets if offset >= self.start_offset]
        for offset in offsets:
            state = self.records.get(offset)
            if state is None or state.state is not RecordState.ACQUIRED:
                raise KafkaError("InvalidRecordStateException", "The offset cannot be acknowledged. The offset is not acquired.")
            if state.has_ongoing_state_transition():
                raise KafkaError("InvalidRecordStateException",
                                 "The record state is invalid. The acknowledgement of delivery could not be completed.")
            if state.member_id != member_id:
                raise KafkaError("InvalidRecordStateException", "Member is not the owner of offset")
        if ack_type is AcknowledgeType.RENEW:
            for offset in offsets:
                self.locks[offset] = now_ms + self.record_lock_duration_ms
            return
        target = ACK_TYPE_TO_RECORD_STATE[ack_type]
        for offset in offsets:
            self.records[offset].start_state_transition(target, DeliveryCountOps.NO_OP, self.delivery_count_limit,
                                                        EMPTY_MEMBER_ID)
        self._commit(offsets)

    def release_acquired_records(self, member_id: str) -> List[int]:
        """``SharePartition.releaseAcquiredRecords`` (line 1052), when a member leaves the group: its ``ACQUIRED``
        records go back to ``AVAILABLE`` (``ARCHIVED`` at the delivery limit), count unchanged (lines 1117-1122).
        Returns the offsets released."""
        released = [o for o, s in sorted(self.records.items())
                    if s.state is RecordState.ACQUIRED and s.member_id == member_id]
        for offset in released:
            self.records[offset].start_state_transition(RecordState.AVAILABLE, DeliveryCountOps.NO_OP,
                                                        self.delivery_count_limit, EMPTY_MEMBER_ID)
        self._commit(released)
        return released

    def expire_locks(self, now_ms: int) -> List[int]:
        """The acquisition-lock timeouts due by ``now_ms`` (``releaseAcquisitionLockOnTimeout``, lines 3000-3011):
        each ``ACQUIRED`` record goes back to ``AVAILABLE``, or ``ARCHIVED`` at the delivery limit, nobody's.
        Returns the offsets released."""
        if not isinstance(now_ms, int) or isinstance(now_ms, bool):
            raise InputError("now_ms", f"must be a whole number of ms, got {now_ms!r}")
        due = sorted(o for o, deadline in self.locks.items() if deadline <= now_ms)
        for offset in due:
            state = self.records.get(offset)
            if state is not None and state.state is RecordState.ACQUIRED:
                state.try_update_state(RecordState.AVAILABLE, DeliveryCountOps.NO_OP, self.delivery_count_limit,
                                       EMPTY_MEMBER_ID)
        self._commit(due)
        return due

    def _commit(self, offsets: Sequence[int]) -> None:
        """The persister wrote the new states (``completeStateTransition(true)``); locks of records no longer
        acquired are cancelled; the start offset moves past the terminal records at its head
        (``canMoveStartOffset``, line 2653: the record at the start offset is terminal, with no ongoing
        transition), and those leave the cache."""
        for offset in offsets:
            state = self.records.get(offset)
            if state is None:
                continue
            state.complete_state_transition(True)
            if state.state is not RecordState.ACQUIRED:
                self.locks.pop(offset, None)
        while self.start_offset in self.records and self.records[self.start_offset].state.terminal \
                and not self.records[self.start_offset].has_ongoing_state_transition():
            del self.records[self.start_offset]
            self.start_offset += 1
