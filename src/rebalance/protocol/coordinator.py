"""Finding a group's coordinator: which ``__consumer_offsets`` partition, and which broker leads it.

Mirrors ``org.apache.kafka.coordinator.group.GroupCoordinatorService.partitionFor`` (Kafka 4.3.1; the
same expression as the older ``kafka.coordinator.group.GroupMetadataManager.partitionFor`` in core and
``TransactionStateManager.partitionFor`` for transactional ids)::

    Utils.abs(groupId.hashCode()) % numPartitions

``numPartitions`` is the broker setting ``offsets.topic.num.partitions`` (default 50, at least 1).  The
coordinator of a group is the broker that currently leads that partition, so a group moves to another
broker exactly when the leadership of its offsets partition moves (coordinator failover).
"""
from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Sequence, TypedDict

from ..errors import InputError, KafkaError
from ..java import INT_MAX, INT_MIN, java_abs, string_hash
from ..validation import require

#: ``offsets.topic.num.partitions`` default (``GroupCoordinatorConfig.OFFSETS_TOPIC_PARTITIONS_DEFAULT``).
OFFSETS_TOPIC_PARTITIONS_DEFAULT = 50
OFFSETS_TOPIC = "__consumer_offsets"


class _Coordinator(TypedDict):
    groupId: str
    partition: int
    coordinator: Optional[int]


class CoordinatorAnswer(_Coordinator, total=False):
    """:func:`find_coordinator`'s answer: ``{"groupId", "partition", "coordinator"}``, and ``"error":
    "COORDINATOR_NOT_AVAILABLE"`` while the partition has no leader."""

    error: str


class CoordinatorRow(TypedDict):
    """A row of :func:`coordinator_table`."""

    groupId: str
    hashCode: int
    abs: int
    partition: int
    coordinator: int


def check_num_partitions(num_partitions: object, field: str = "numPartitions") -> int:
    """Validate ``offsets.topic.num.partitions`` the way the broker's config does.

    A value that is not a Java ``int`` is bad input (:class:`InputError`); an ``int`` below 1 is refused by
    ``ConfigDef`` with ``atLeast(1)``, i.e. Kafka throws ``ConfigException``."""
    if not isinstance(num_partitions, int) or isinstance(num_partitions, bool):
        raise InputError(field, f"must be a whole number (offsets.topic.num.partitions), got {num_partitions!r}")
    require(INT_MIN <= num_partitions <= INT_MAX, field, f"{num_partitions} does not fit a Java int")
    if num_partitions < 1:
        raise KafkaError("org.apache.kafka.common.config.ConfigException",
                         f"Invalid value {num_partitions} for configuration offsets.topic.num.partitions: "
                         "Value must be at least 1")
    return num_partitions


def partition_for(group_id: str, num_partitions: int = OFFSETS_TOPIC_PARTITIONS_DEFAULT) -> int:
    """The ``__consumer_offsets`` partition that holds ``group_id``'s state
    (``GroupCoordinatorService.partitionFor``).

    >>> partition_for("my-group")
    12
    >>> partition_for("polygenelubricants")   # hashCode is Integer.MIN_VALUE; Utils.abs maps it to 0
    0

    Defined in chapter 1, *Groups, coordinators and generations*."""
    require(isinstance(group_id, str), "groupId", f"must be a string, got {group_id!r}")
    check_num_partitions(num_partitions)
    return java_abs(string_hash(group_id)) % num_partitions


def simple_leaders(num_partitions: int, brokers: Sequence[int]) -> Dict[int, int]:
    """A simple placement of the offsets topic: partition ``p`` is led by ``brokers[p % len(brokers)]``.

    Real clusters place ``__consumer_offsets`` with the replica placer (see the replica-placement chapter);
    any partition -> leader map can be passed to :func:`find_coordinator` instead."""
    check_num_partitions(num_partitions)
    require(len(brokers) > 0, "brokers", "at least one broker is needed")
    for i, b in enumerate(brokers):
        require(isinstance(b, int) and not isinstance(b, bool), f"brokers[{i}]", f"must be a broker id, got {b!r}")
    return {p: brokers[p % len(brokers)] for p in range(num_partitions)}


def find_coordinator(group_id: str, leaders: Optional[Mapping[int, Optional[int]]] = None, *,
                     brokers: Sequence[int] = (0, 1, 2),
                     num_partitions: int = OFFSETS_TOPIC_PARTITIONS_DEFAULT) -> CoordinatorAnswer:
    """What a FindCoordinator request answers for ``group_id``.

    ``leaders`` maps each ``__consumer_offsets`` partition to its leader broker (``None`` while it has
    none); without it :func:`simple_leaders` over ``brokers`` is used.  Returns ``{"groupId",
    "partition", "coordinator"}``; ``coordinator`` is ``None`` with ``"error": "COORDINATOR_NOT_AVAILABLE"``
    when the partition has no leader (the client retries the lookup).

    Defined in chapter 1, *Groups, coordinators and generations*."""
    partition = partition_for(group_id, num_partitions)
    if leaders is None:
        leaders = simple_leaders(num_partitions, list(brokers))
    require(isinstance(leaders, Mapping), "leaders", "must map partition -> broker id")
    leader = leaders.get(partition)
    out: CoordinatorAnswer = {"groupId": group_id, "partition": partition, "coordinator": leader}
    if leader is None:
        out["error"] = "COORDINATOR_NOT_AVAILABLE"
    return out


def coordinator_table(group_ids: Sequence[str], num_partitions: int = OFFSETS_TOPIC_PARTITIONS_DEFAULT,
                      brokers: Sequence[int] = (0, 1, 2)) -> List[CoordinatorRow]:
    """One row per group id: its ``String.hashCode``, the ``Utils.abs`` of it, the partition and the
    coordinator broker under :func:`simple_leaders` (for tables in the book)."""
    leaders = simple_leaders(num_partitions, list(brokers))
    rows: List[CoordinatorRow] = []
    for i, g in enumerate(group_ids):
        require(isinstance(g, str), f"groupIds[{i}]", f"must be a string, got {g!r}")
        h = string_hash(g)
        p = java_abs(h) % num_partitions
        rows.append({"groupId": g, "hashCode": h, "abs": java_abs(h), "partition": p, "coordinator": leaders[p]})
    return rows
