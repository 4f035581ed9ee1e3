"""Which partition a share fetch takes its records from: the member's share session and the broker's fetch order.

Mirrors Kafka 4.3.1's broker (``SharePartitionManager.fetchMessages``, ``PartitionRotateStrategy.rotateRoundRobin``,
``ShareSessionContext``, ``DelayedShareFetch``, ``ShareFetchUtils.processFetchResponse``) and client
(``ShareSessionHandler``):

* a member's share session lists its partitions: the first ``ShareFetch`` (session epoch 0) creates it in the
  client's order (its assignment, sorted by topic and partition: the caller's order); later requests add newly
  assigned partitions at its end and remove lost ones; and every later ``ShareFetch`` moves each partition whose response carried records
  to the end (``ShareSessionContext.PartitionIterator``: ``remove`` then ``mustAdd``);
* every ``ShareFetch`` and every ``ShareAcknowledge`` answered moves the session epoch on by one
  (``ShareSessionHandler.handleResponse``);
* a fetch with epoch ``e >= 1`` over ``n > 1`` partitions starts at index ``e % n`` (``rotateRoundRobin``: the list
  rotated left by it);
* ``DelayedShareFetch`` reads the log again for the partitions whose cached fetch-offset metadata is not for
  their next fetch offset (``maybeReadFromLog``: a partition something was acquired from, or released, since it
  was last read), and ``combineLogReadResponse`` puts those reads *after* the others: the records are acquired from
  the partitions in that order (:func:`acquire_order`), up to ``max.poll.records`` in all (``processFetchResponse``,
  ``MaxRecords``; the caller counts them).  The
  cached offset belongs to the share partition (``SharePartition.fetchOffsetMetadata``), whoever fetched it.

Checked on a real 4.3.1 broker's request log and ``DelayedShareFetch`` trace (two runs of a member with four and
five partitions: every one of the 22 fetches of each run took the partition and offsets this order gives).
"""
from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar

__all__ = ["rotate_round_robin", "ShareSession", "acquire_order"]

T = TypeVar("T")
#: (topic, partition)
Partition = Tuple[str, int]


def rotate_round_robin(partitions: Sequence[T], session_epoch: int) -> List[T]:
    """``PartitionRotateStrategy.rotateRoundRobin``: ``partitions`` rotated left by ``session_epoch % len``; not
    rotated for fewer than two partitions or an initial (0) or final (-1) epoch."""
    items = list(partitions)
    if len(items) < 2 or session_epoch < 1:
        return items
    at = session_epoch % len(items)
    return items[at:] + items[:at]


def acquire_order(rotated: Sequence[Partition], next_fetch_offset: Mapping[Partition, int],
                  read_offset: Dict[Partition, Optional[int]]) -> List[Partition]:
    """``DelayedShareFetch``: the partitions of ``rotated`` whose cached read offset (``read_offset``, updated here)
    is their next fetch offset, in order, then the others (read again now), in order."""
    stale = [p for p in rotated if read_offset.get(p) != next_fetch_offset[p]]
    for p in stale:
        read_offset[p] = next_fetch_offset[p]
    return [p for p in rotated if p not in stale] + stale


class ShareSession:
    """One member's share session with the (one) broker: its partitions in session order and its next epoch."""

    __slots__ = ("partitions", "epoch")

    def __init__(self) -> None:
        self.partitions: List[Partition] = []
        self.epoch = 0

    def update(self, assigned: Sequence[Partition]) -> None:
        """The client's next request: partitions no longer assigned leave the session, new ones join at its end
        (in ``assigned``'s order)."""
        keep = set(assigned)
        self.partitions = [p for p in self.partitions if p in keep]
        present = set(self.partitions)
        self.partitions += [p for p in assigned if p not in present]

    def fetch_order(self) -> List[Partition]:
        """The partitions of the next ``ShareFetch`` as the broker lists them (then :meth:`fetched`)."""
        return rotate_round_robin(self.partitions, self.epoch)

    def fetched(self, with_records: Sequence[Partition]) -> None:
        """A ``ShareFetch`` answered: ``with_records`` (in response order) move to the end of a session that
        existed before it; the next epoch."""
        if self.epoch >= 1:
            for p in with_records:
                self.partitions.remove(p)
                self.partitions.append(p)
        self.epoch += 1

    def acknowledged(self) -> None:
        """A ``ShareAcknowledge`` answered: the next epoch."""
        self.epoch += 1
