"""The ownership ledger and the rebalance metrics, shared by both group simulators.

Both the classic group protocol simulator (:class:`rebalance.protocol.simulation.GroupSimulation`) and the
KIP-848 reconciliation model (:class:`rebalance.kip848.simulation.KIP848Simulation`) record, on the
client side, who processes which partition when: a partition is *acquired* when the consumer starts
processing it (after ``ConsumerRebalanceListener.onPartitionsAssigned``) and *released* when it stops
(``onPartitionsRevoked``, ``onPartitionsLost``, a crash).  Every figure of :class:`RebalanceMetrics`
that depends on ownership -- unowned partition-seconds, partitions stopped, restarted and moved,
revocations, double ownership and zombie overlaps -- is computed here, once, for both simulators, and so
are the figures of :class:`StopMeasures`, what a rebalance costs the application: the member-seconds in
which a consumer processed nothing, and the state or cache each moved partition must rebuild.

Kafka has no such ledger: the client only knows its own assignment (``SubscriptionState``) and the
coordinator only the assignment it handed out (``ClassicGroup`` / ``ConsumerGroup`` of Kafka's group
coordinator, modelled at commit 1eb7644).
The ledger is the outside observer that Kafka's guarantees are stated against.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ..errors import InputError
from ..validation import require

from ..common import TopicPartition as TopicPartition  # re-exported: the one definition is rebalance.common
Overlap = Tuple[int, TopicPartition, Tuple[str, ...]]

__all__ = ["TopicPartition", "OwnershipInterval", "OwnershipLedger", "RebalanceMetrics", "StopMeasures"]


@dataclass(slots=True)
class OwnershipInterval:
    """``member`` processed ``partition`` during ``[start_ms, end_ms)`` (``end_ms`` ``None``: still does)."""

    partition: TopicPartition
    member: str
    start_ms: int
    end_ms: Optional[int] = None
    end_reason: Optional[str] = None
    #: the ledger's change counter at the acquisition and the release (the order they were recorded in)
    start_seq: int = 0
    end_seq: Optional[int] = None


class OwnershipLedger:
    """Who processes which partition, over virtual time.

    ``is_member(name)`` says whether the coordinator still counts a process as a member of the group;
    ``process_of(name)`` maps a member name to the process it runs in (the KIP-848 model names a restarted
    consumer ``name~k``; a partition taken up again by the same process has not *moved*).

    Each time a partition gets a second concurrent owner the overlap is recorded in ``violations`` and
    classified:

    * ``zombie_overlaps`` -- every earlier holder is a *zombie*: a process the coordinator no longer counts
      as a member (fenced by a newer process with its ``group.instance.id``, removed after
      ``max.poll.interval.ms`` / the rebalance timeout or the session timeout) and which has not yet noticed.
      Kafka allows this: the zombie keeps processing the records it already fetched until its next
      ``poll()`` (``ConsumerCoordinator.onJoinPrepare`` then calls ``onPartitionsLost``) or heartbeat
      (``FENCED_INSTANCE_ID``), and its offset commits are rejected.
    * ``double_assignments`` -- some earlier holder is still a member of the group (or ``is_member`` is not
      given): two members of the group own the partition at once, which neither Kafka protocol allows (a
      simulator bug if it happens).

    With ``summary_from`` set the ledger keeps no history (``intervals`` stays empty, :meth:`changes` is
    unavailable) and adds up, as changes happen, only what :meth:`unowned_ms` and :meth:`churn` report
    from ``summary_from`` on: memory stays proportional to the partitions, not to the run's length (a
    rolling restart of 1,000 members moves 10,000 partitions 2,000 times).  Both queries then answer only
    for ``since`` / ``t0`` equal to ``summary_from`` and for ``t1`` not before the last change.

    Defined in chapter 7, *Eager and incremental cooperative rebalancing*."""

    def __init__(self, partitions: Sequence[TopicPartition], is_member: Optional[Callable[[str], bool]] = None,
                 process_of: Optional[Callable[[str], str]] = None, summary_from: Optional[int] = None):
        self.partitions = list(partitions)
        #: each partition's holders: the open interval of each (summary mode: the time it took the partition)
        self.owners: Dict[TopicPartition, Dict[str, object]] = {tp: {} for tp in self.partitions}
        self.intervals: List[OwnershipInterval] = []
        self.is_member = is_member
        self.process_of = process_of
        #: (time, partition, owners) each time a partition got a second concurrent owner (both kinds)
        self.violations: List[Overlap] = []
        #: the overlaps in which some earlier holder is still a group member (must never happen)
        self.double_assignments: List[Overlap] = []
        #: the overlaps in which every earlier holder is a zombie (a real Kafka behaviour)
        self.zombie_overlaps: List[Overlap] = []
        self._seq = 0
        #: virtual time of the last acquisition or release
        self.last_change_ms = 0
        self.summary_from = summary_from
        # summary mode: the unowned partition-time added up to ``_acc_t``, the partitions owned by nobody
        # now, the counters of :meth:`churn` and the process that last stopped each partition
        self._known = frozenset(self.partitions)
        self._unowned_acc = 0
        self._acc_t = 0 if summary_from is None else summary_from
        self._n_unowned = len(self._known)
        self._churn = [0, 0, 0, 0]
        self._last_stop: Dict[TopicPartition, str] = {}

    # ------------------------------------------------------------------ recording
    def acquire(self, member: str, tps: Iterable[TopicPartition], t: int) -> None:
        """``member`` starts processing ``tps`` at ``t`` (a partition it already processes is skipped)."""
        if self.summary_from is not None:
            self._acquire_summary(member, tps, t, self.summary_from)
            return
        for tp in tps:
            current = self.owners.setdefault(tp, {})
            if member in current:
                continue
            if current:
                self._overlap(member, tp, t, current)
            self._seq += 1
            self.last_change_ms = max(self.last_change_ms, t)
            iv = OwnershipInterval(tp, member, t, start_seq=self._seq)
            self.intervals.append(iv)
            current[member] = iv

    def _overlap(self, member: str, tp: TopicPartition, t: int, current: Mapping[str, object]) -> None:
        """``member`` takes up ``tp`` while ``current`` hold it: record and classify the overlap."""
        record = (t, tp, tuple(sorted(current)) + (member,))
        self.violations.append(record)
        if self.is_member is not None and not any(self.is_member(h) for h in current):
            self.zombie_overlaps.append(record)
        else:
            self.double_assignments.append(record)

    def release(self, member: str, tps: Iterable[TopicPartition], t: int, reason: str) -> None:
        """``member`` stops processing ``tps`` at ``t``; ``reason`` is ``revoked``, ``lost``, ``crash``..."""
        if self.summary_from is not None:
            self._release_summary(member, tps, t, reason, self.summary_from)
            return
        for tp in tps:
            iv = self.owners.get(tp, {}).pop(member, None)
            # history mode (summary_from is None): ``owners`` holds each holder's open interval
            if isinstance(iv, OwnershipInterval):
                self._seq += 1
                self.last_change_ms = max(self.last_change_ms, t)
                iv.end_ms = t
                iv.end_reason = reason
                iv.end_seq = self._seq

    def _process(self, member: str) -> str:
        """The process ``member`` runs in (``process_of``; the member name itself by default)."""
        return member if self.process_of is None else self.process_of(member)

    # ------------------------------------------------------------------ summary mode
    def _add_up_to(self, t: int, t0: int) -> None:
        """Summary mode: add the unowned partition-time from the last change up to ``t`` (``t0``: the
        ledger's ``summary_from``)."""
        if t > t0 and t > self._acc_t:
            self._unowned_acc += self._n_unowned * (t - max(self._acc_t, t0))
            self._acc_t = t

    def _acquire_summary(self, member: str, tps: Iterable[TopicPartition], t: int, since: int) -> None:
        """:meth:`acquire` without history: ``owners`` maps each holder to the time it took the partition
        (``since``: the ledger's ``summary_from``)."""
        self._add_up_to(t, since)
        owners, known = self.owners, self._known
        counting = t >= since
        last_stop = self._last_stop
        process = self._process(member)
        taken = restarted = moved = 0
        for tp in tps:
            current = owners.get(tp)
            if current is None:
                current = owners[tp] = {}
            elif member in current:
                continue
            if current:
                self._overlap(member, tp, t, current)
            elif tp in known:
                taken += 1
            current[member] = t
            if counting:
                previous = last_stop.pop(tp, None)
                if previous is not None:
                    restarted += 1
                    moved += previous != process
        self._n_unowned -= taken
        self._churn[1] += restarted
        self._churn[2] += moved
        self.last_change_ms = max(self.last_change_ms, t)

    def _release_summary(self, member: str, tps: Iterable[TopicPartition], t: int, reason: str,
                         since: int) -> None:
        """:meth:`release` without history (``since``: the ledger's ``summary_from``)."""
        self._add_up_to(t, since)
        owners, known = self.owners, self._known
        released = []
        freed = 0
        for tp in tps:
            current = owners.get(tp)
            if current is None or current.pop(member, None) is None:
                continue
            released.append(tp)
            if not current and tp in known:
                freed += 1
        if not released:
            return
        self._n_unowned += freed
        self.last_change_ms = max(self.last_change_ms, t)
        if t >= since:
            self._churn[0] += len(released)
            if reason == "revoked":
                self._churn[3] += len(released)
            process = self._process(member)
            self._last_stop.update(dict.fromkeys(released, process))

    def _summary_query(self, field_name: str, t0: int, t1: Optional[int] = None) -> None:
        """A summary-mode ledger answers only from ``summary_from`` on and up to now."""
        if t0 != self.summary_from:
            raise InputError(field_name, f"this ledger keeps no history: it sums up from {self.summary_from} ms "
                                         f"on only, not from {t0} ms (summary_from)")
        if t1 is not None and t1 < self.last_change_ms:
            raise InputError("until", f"this ledger keeps no history: it cannot stop at {t1} ms, before its "
                                      f"last change at {self.last_change_ms} ms")

    # ------------------------------------------------------------------ queries
    def current(self) -> Dict[TopicPartition, Tuple[str, ...]]:
        """Each partition's current owners, sorted."""
        return {tp: tuple(sorted(o)) for tp, o in self.owners.items()}

    def holders(self, tp: TopicPartition) -> List[str]:
        """The members processing ``tp`` now."""
        return list(self.owners.get(tp, ()))

    def changes(self) -> List[Tuple[int, str, str, TopicPartition]]:
        """Every acquisition and release as ``(time, member, "add" | "remove", partition)``, in the order
        they happened."""
        if self.summary_from is not None:
            raise InputError("changes", "this ledger keeps no history (summary_from is set)")
        return [(t, member, kind, tp) for _, t, member, kind, tp in self._timeline()]

    def _timeline(self) -> List[Tuple[int, int, str, str, TopicPartition]]:
        timeline = []
        for iv in self.intervals:
            timeline.append((iv.start_seq, iv.start_ms, iv.member, "add", iv.partition))
            if iv.end_seq is not None and iv.end_ms is not None:  # release sets both
                timeline.append((iv.end_seq, iv.end_ms, iv.member, "remove", iv.partition))
        timeline.sort()
        return timeline

    def unowned_ms(self, t0: int, t1: int, partitions: Optional[Iterable[TopicPartition]] = None) -> int:
        """Sum over ``partitions`` (default: all of the ledger's) of the time in ``[t0, t1)`` during which
        nobody owned the partition."""
        if self.summary_from is not None:
            self._summary_query("measure_from", t0, t1)
            if partitions is not None and set(partitions) != self._known:
                raise InputError("partitions", "this ledger keeps no history: it sums up all its partitions only")
            if t1 <= t0:
                return 0
            return self._unowned_acc + self._n_unowned * (t1 - max(self._acc_t, t0))
        if t1 <= t0:
            return 0
        by_tp: Dict[TopicPartition, List[Tuple[int, int]]] = {
            tp: [] for tp in (self.partitions if partitions is None else partitions)}
        for iv in self.intervals:
            s, e = max(iv.start_ms, t0), min(iv.end_ms if iv.end_ms is not None else t1, t1)
            if e > s and iv.partition in by_tp:
                by_tp[iv.partition].append((s, e))
        total = 0
        for spans in by_tp.values():
            covered, cur_s, cur_e = 0, 0, None
            for s, e in sorted(spans):
                if cur_e is None or s > cur_e:
                    if cur_e is not None:
                        covered += cur_e - cur_s
                    cur_s, cur_e = s, e
                else:
                    cur_e = max(cur_e, e)
            if cur_e is not None:
                covered += cur_e - cur_s
            total += (t1 - t0) - covered
        return total

    def stopped_ms(self, t0: int, t1: int) -> Dict[str, int]:
        """Per consumer process (``process_of``; every process that held a partition), the time in
        ``[t0, t1)`` during which it processed nothing because its partitions were taken from it: each
        *stop* runs from the release that leaves the process holding no partition (revoked, lost, or its
        own close or crash) to the next time the same process takes up a partition again.  A stop that never
        ends in the ledger (the process left for good, or the run ended first) is not counted: the consumer
        was not waiting to resume.  Under eager every member stops at each rebalance, from its
        ``onPartitionsRevoked`` until its ``SyncGroup`` response has been handled; under the cooperative
        protocol and KIP-848 a member stops only when every partition it holds moves away.  A newly started
        consumer waiting for its first partition is not stopped (it held nothing).  Needs the history
        (``summary_from`` unset)."""
        if self.summary_from is not None:
            raise InputError("stopped_ms", "this ledger keeps no history (summary_from is set)")
        held: Dict[str, int] = {}
        since: Dict[str, int] = {}
        stopped: Dict[str, int] = {}
        for _, t, member, kind, _tp in self._timeline():
            process = self._process(member)
            stopped.setdefault(process, 0)
            if kind == "add":
                start = since.pop(process, None)
                if start is not None:
                    stopped[process] += max(0, min(t, t1) - max(start, t0))
                held[process] = held.get(process, 0) + 1
            else:
                held[process] -= 1
                if held[process] == 0:
                    since[process] = t
        return dict(sorted(stopped.items()))

    def acquired_ms(self, process: str, t0: int, t1: int) -> List[int]:
        """The times in ``[t0, t1)`` at which consumer process ``process`` (``process_of``) took up a
        partition, in order, once per partition taken.  Needs the history (``summary_from`` unset)."""
        if self.summary_from is not None:
            raise InputError("acquired_ms", "this ledger keeps no history (summary_from is set)")
        return sorted(iv.start_ms for iv in self.intervals
                      if self._process(iv.member) == process and t0 <= iv.start_ms < t1)

    def stop_measures(self, t0: int, t1: int, rebuild_ms_per_partition: int = 0) -> "StopMeasures":
        """:class:`StopMeasures` over ``[t0, t1)``: :meth:`stopped_ms` and the partitions moved from ``t0``
        on (:meth:`churn`), with ``rebuild_ms_per_partition``."""
        return StopMeasures(t0, t1, self.stopped_ms(t0, t1), self.churn(t0)[2], rebuild_ms_per_partition)

    def churn(self, since: int) -> Tuple[int, int, int, int]:
        """``(stopped, restarted, moved, revoked)`` from ``since`` on: partition releases, partitions taken
        up again after a release, of those the ones taken up by another process than the one that released
        them, and the releases that were revocations."""
        if self.summary_from is not None:
            self._summary_query("measure_from", since)
            stopped, restarted, moved, revoked = self._churn
            return stopped, restarted, moved, revoked
        stopped = restarted = moved = revoked = 0
        last_stop: Dict[TopicPartition, str] = {}
        process = self._process
        timeline = []
        for iv in self.intervals:
            timeline.append((iv.start_seq, iv.start_ms, iv))
            if iv.end_seq is not None and iv.end_ms is not None:  # release sets both
                timeline.append((iv.end_seq, iv.end_ms, iv))
        timeline.sort(key=lambda x: x[0])
        for seq, t, iv in timeline:
            if t < since:
                continue
            if seq == iv.end_seq:
                stopped += 1
                if iv.end_reason == "revoked":
                    revoked += 1
                last_stop[iv.partition] = process(iv.member)
            elif iv.partition in last_stop:
                restarted += 1
                if last_stop.pop(iv.partition) != process(iv.member):
                    moved += 1
        return stopped, restarted, moved, revoked


@dataclass(frozen=True)
class RebalanceMetrics:
    """Summary figures of one simulated run between ``start_ms`` and ``end_ms``, the same type for the
    classic group protocol (:meth:`GroupSimulation.metrics <rebalance.protocol.simulation.GroupSimulation.metrics>`)
    and KIP-848 (:attr:`SimulationResult.metrics <rebalance.kip848.simulation.SimulationResult.metrics>`).

    * ``settled`` / ``stable_ms`` -- whether the group ended stable, and when it last changed (``None`` if
      it did not settle); :attr:`time_to_stable_ms` is ``stable_ms - start_ms``;
    * ``rebalances`` -- classic: times the group entered ``PreparingRebalance``; KIP-848: group-epoch bumps
      (each starts a new target assignment);
    * ``completed_rebalances`` -- classic: times the group entered ``CompletingRebalance``; KIP-848: target
      assignments computed;
    * ``group_epoch`` -- at the end: the classic group's generation id (``ClassicGroup.generationId``) or
      the consumer group's epoch (``ConsumerGroup.groupEpoch``), the number Kafka carries over when it
      converts a classic group to a consumer group (``ConsumerGroup.fromClassicGroup``, Kafka 3.8 line 1310, 4.3.1
      line 1222: ``setGroupEpoch(classicGroup.generationId())``);
    * ``unowned_partition_seconds`` -- partition-seconds in ``[start_ms, end_ms)`` with no owner;
    * ``partitions_stopped`` -- partition releases (revoked, lost, crash) from ``start_ms`` on, of which
      ``revocations`` were revocations; ``partitions_restarted`` -- partitions taken up again after a stop,
      ``partitions_moved`` -- of those, taken up by another process than the one that stopped it;
    * ``double_ownership`` -- instants at which a partition got a second owner while an earlier owner was
      still a member of the group (always 0 unless a simulator is wrong);
    * ``zombie_overlap`` -- instants at which a partition got a new owner while the earlier one was a
      *zombie* the coordinator had already dropped (see :class:`OwnershipLedger`);
    * ``messages`` -- requests and responses on the wire over the whole run, by API.
    """

    start_ms: int
    end_ms: int
    settled: bool
    stable_ms: Optional[int]
    rebalances: int
    completed_rebalances: int
    group_epoch: int
    unowned_partition_seconds: float
    partitions_stopped: int
    partitions_restarted: int
    partitions_moved: int
    revocations: int
    double_ownership: int
    zombie_overlap: int
    messages: Mapping[str, int] = field(default_factory=dict)

    @property
    def time_to_stable_ms(self) -> Optional[int]:
        """``stable_ms - start_ms``, ``None`` if the group did not settle."""
        return None if self.stable_ms is None else self.stable_ms - self.start_ms

    def to_dict(self) -> Dict[str, object]:
        """The fields and :attr:`time_to_stable_ms` as a plain dict (one row of a table)."""
        row = asdict(self)
        row["time_to_stable_ms"] = self.time_to_stable_ms
        return row

    @classmethod
    def from_ledger(cls, ledger: OwnershipLedger, start_ms: int, end_ms: int, *, settled: bool,
                    stable_ms: Optional[int], rebalances: int, completed_rebalances: int, group_epoch: int,
                    messages: Mapping[str, int], partitions: Optional[Iterable[TopicPartition]] = None
                    ) -> "RebalanceMetrics":
        """The metrics of a run whose ownership ``ledger`` holds; ``partitions`` limits the unowned time to
        those partitions (default: all of the ledger's)."""
        stopped, restarted, moved, revoked = ledger.churn(start_ms)
        return cls(start_ms=start_ms, end_ms=end_ms, settled=settled, stable_ms=stable_ms if settled else None,
                   rebalances=rebalances, completed_rebalances=completed_rebalances, group_epoch=group_epoch,
                   unowned_partition_seconds=ledger.unowned_ms(start_ms, end_ms, partitions) / 1000.0,
                   partitions_stopped=stopped, partitions_restarted=restarted, partitions_moved=moved,
                   revocations=revoked, double_ownership=len(ledger.double_assignments),
                   zombie_overlap=len(ledger.zombie_overlaps), messages=dict(sorted(messages.items())))


@dataclass(frozen=True)
class StopMeasures:
    """What a rebalance costs the application, between ``start_ms`` and ``end_ms``, beyond the unowned
    partition-seconds of :class:`RebalanceMetrics`: the two things a protocol is chosen for.

    * ``stopped_ms`` -- per consumer process, the time it processed nothing because its partitions had
      been taken from it (:meth:`OwnershipLedger.stopped_ms`); :attr:`processing_stopped_member_seconds`
      is their sum in seconds, :attr:`members_stopped` how many stopped.  Eager stops every member at every
      rebalance, until its ``SyncGroup`` response; the cooperative protocol and KIP-848 stop a member only if
      all it holds moves.
    * ``partitions_moved`` -- partitions taken up by another process than the one that last stopped them
      (:meth:`OwnershipLedger.churn`); :attr:`rebuild_cost` charges each ``rebuild_ms_per_partition`` (a
      parameter, 0 by default: the time a partition's new owner spends restoring its state or warming its
      cache before it processes the partition) and gives the partition-seconds spent rebuilding.  The cost
      is added after the run: the simulators do not delay anything for it.

    Defined in chapter 7, *Eager and incremental cooperative rebalancing*."""

    start_ms: int
    end_ms: int
    stopped_ms: Mapping[str, int]
    partitions_moved: int
    rebuild_ms_per_partition: int = 0

    def __post_init__(self) -> None:
        v = self.rebuild_ms_per_partition
        require(isinstance(v, int) and not isinstance(v, bool) and v >= 0, "rebuild_ms_per_partition",
                f"must be a whole number of milliseconds >= 0, got {v!r}")

    @property
    def processing_stopped_member_seconds(self) -> float:
        """The members' stops added up, in seconds (rounded to the millisecond)."""
        return round(sum(self.stopped_ms.values()) / 1000.0, 3)

    @property
    def members_stopped(self) -> int:
        """How many consumer processes stopped at least once (a ``stopped_ms`` above 0)."""
        return sum(1 for ms in self.stopped_ms.values() if ms > 0)

    @property
    def rebuild_cost(self) -> float:
        """``partitions_moved`` x ``rebuild_ms_per_partition``, in partition-seconds (rounded to the
        millisecond)."""
        return round(self.partitions_moved * self.rebuild_ms_per_partition / 1000.0, 3)

    def with_rebuild(self, rebuild_ms_per_partition: int) -> "StopMeasures":
        """The same run charged ``rebuild_ms_per_partition`` per moved partition."""
        return replace(self, rebuild_ms_per_partition=rebuild_ms_per_partition)
