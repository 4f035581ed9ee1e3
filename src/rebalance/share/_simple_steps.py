"""The two steps both simple-assignor builders run alike: ``revokeOversharedPartitions`` and the pass of
``assignRemainingPartitions``.

Kafka 4.3.1 writes them twice, as private methods of ``SimpleHomogeneousAssignmentBuilder`` (lines 301 and 343,
keyed by ``TopicIdPartition``) and of the heterogeneous builder's ``TopicAssignmentPartialBuilder`` (lines 370
and 411, keyed by the partition index of its one topic); the bodies are the same but for that key.  Here they
are written once: ``split`` turns a key of ``by_partition`` into its topic id and partition (the homogeneous
builder's keys already are that pair; the heterogeneous builder pairs its topic id with the index), and
``member_set`` makes a member's new ``finalAssignmentByMember`` set (``new HashSet<>()`` of the key type).
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence, Tuple, TypeVar

from ..jcollections import HashJMap, HashJSet, JSet
from ..kip848.uuid import Uuid
from .assignor_helpers import no_such_element

K = TypeVar("K")

__all__ = ["assign_remaining_partitions", "revoke_overshared_partitions"]


def revoke_overshared_partitions(by_partition: HashJMap[K, JSet[int]], by_member: HashJMap[int, JSet[K]],
                                 desired_sharing: int,
                                 new_assignment: Callable[[int], HashJMap[Uuid, JSet[int]]],
                                 split: Callable[[K], Tuple[Uuid, int]],
                                 unfilled: Optional[JSet[int]] = None) -> None:
    """``revokeOversharedPartitions`` (homogeneous line 301, heterogeneous line 370): a partition held by more
    than ``desired_sharing`` members loses members, in the iteration order of its set, until it is not
    over-shared; with ``unfilled`` (the homogeneous builder's ``unfilledMembers``) each of them joins it."""
    for key, members in by_partition.items():
        count = len(members)
        if count > desired_sharing:
            topic_id, partition = split(key)
            for i in members.to_list():
                partitions = new_assignment(i).get(topic_id)
                if partitions is not None and partition in partitions:
                    partitions.remove(partition)
                    count -= 1
                    members.remove(i)
                    by_member[i].remove(key)
                    if unfilled is not None:
                        unfilled.add(i)
                if count <= desired_sharing:
                    break


def assign_remaining_partitions(by_partition: HashJMap[K, JSet[int]], by_member: HashJMap[int, JSet[K]],
                                desired: Sequence[int], desired_sharing: int, unfilled: JSet[int],
                                new_assignment: Callable[[int], HashJMap[Uuid, JSet[int]]],
                                split: Callable[[K], Tuple[Uuid, int]],
                                member_set: Callable[[], JSet[K]]) -> None:
    """The pass of ``assignRemainingPartitions`` (homogeneous lines 347-384, heterogeneous lines 421-458): one
    run through the partitions (``by_partition`` order), handing each partition short of ``desired_sharing`` to
    the next member of ``unfilled`` that does not have it yet, cycling through ``unfilled``; a member leaves
    ``unfilled`` once it holds ``desired[i]``.  A restarted cycle that finds ``unfilled`` empty throws, as the
    Java iterator's ``next()`` does (:func:`~rebalance.share.assignor_helpers.no_such_element`)."""
    cycle = unfilled.to_list()
    position = 0
    assigned_this_cycle = False
    for key, members in by_partition.items():
        if len(members) < desired_sharing:
            to_make = desired_sharing - len(members)
            topic_id, partition = split(key)
            while to_make > 0:
                if position >= len(cycle):
                    if not assigned_this_cycle:
                        break
                    cycle, position, assigned_this_cycle = unfilled.to_list(), 0, False
                    if not cycle:
                        raise no_such_element()
                i = cycle[position]
                position += 1
                if i not in members:
                    new_assignment(i).setdefault(topic_id, HashJSet).add(partition)
                    held = by_member.setdefault(i, member_set)
                    held.add(key)
                    to_make -= 1
                    assigned_this_cycle = True
                    if len(held) >= desired[i]:
                        unfilled.remove(i)  # memberIterator.remove()
        if len(unfilled) == 0:
            break
