"""How balanced is a replica placement?  Counts per broker and per rack, racks per partition, skew.

An *assignment* is what the placers return: ``{partition: [replicas, leader first]}`` (``AdminUtils``)
or a list of replica lists indexed by partition (``StripedReplicaPlacer``).  The leader of a new partition
is its first replica (the preferred leader).  ``brokers`` gives the broker ids to report (brokers that
got nothing count 0) and their racks; it accepts the same forms as the placers.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from ..errors import InputError
from .brokers import parse_brokers
from .placement import TopicAssignment

Assignment = Union[Mapping[int, Sequence[int]], Sequence[Sequence[int]], TopicAssignment]

NO_RACK = None


def as_mapping(assignment: Assignment) -> Dict[int, List[int]]:
    """``{partition: replicas}`` for any form of assignment (a :class:`~.placement.TopicAssignment` too)."""
    if isinstance(assignment, TopicAssignment):
        return assignment.as_mapping()
    if isinstance(assignment, Mapping):
        return {int(p): list(r) for p, r in assignment.items()}
    if isinstance(assignment, (list, tuple)):
        return {p: list(r) for p, r in enumerate(assignment)}
    raise InputError("assignment", f"must map partition -> replicas or be a list of replica lists, "
                                   f"got {type(assignment).__name__}")


def _racks(brokers: Optional[Iterable[Any]]) -> Dict[int, Optional[str]]:
    return {b.id: b.rack for b in parse_brokers(brokers, with_fenced=True)} if brokers is not None else {}


def leaders_per_broker(assignment: Assignment, brokers: Optional[Iterable[Any]] = None) -> Dict[int, int]:
    """Number of partitions each broker leads (first replica), in ascending broker id."""
    counts = Counter(r[0] for r in as_mapping(assignment).values() if r)
    for b in _racks(brokers):
        counts.setdefault(b, 0)
    return dict(sorted(counts.items()))


def replicas_per_broker(assignment: Assignment, brokers: Optional[Iterable[Any]] = None) -> Dict[int, int]:
    """Number of replicas (leaders and followers) each broker holds, in ascending broker id."""
    counts = Counter(b for r in as_mapping(assignment).values() for b in r)
    for b in _racks(brokers):
        counts.setdefault(b, 0)
    return dict(sorted(counts.items()))


def _rack_key(rack: Optional[str]) -> Tuple[str, str]:
    return ("", "") if rack is None else ("1", rack)


def _per_rack(per_broker: Mapping[int, int], racks: Mapping[int, Optional[str]]) -> Dict[Optional[str], int]:
    out: Dict[Optional[str], int] = {}
    for b in sorted(racks, key=lambda x: (_rack_key(racks[x]), x)):
        out.setdefault(racks[b], 0)
    for b, n in per_broker.items():
        if b not in racks:
            raise InputError("brokers", f"broker {b} of the assignment is not in the broker list")
        out[racks[b]] = out.get(racks[b], 0) + n
    return out


def leaders_per_rack(assignment: Assignment, brokers: Iterable[Any]) -> Dict[Optional[str], int]:
    """Partitions led from each rack (``None`` = brokers without a rack)."""
    return _per_rack(leaders_per_broker(assignment), _racks(brokers))


def replicas_per_rack(assignment: Assignment, brokers: Iterable[Any]) -> Dict[Optional[str], int]:
    """Replicas held in each rack."""
    return _per_rack(replicas_per_broker(assignment), _racks(brokers))


def racks_per_partition(assignment: Assignment, brokers: Iterable[Any]) -> Dict[int, int]:
    """How many distinct racks hold a replica of each partition."""
    racks = _racks(brokers)
    return {p: len({racks[b] for b in r}) for p, r in sorted(as_mapping(assignment).items())}


def skew(counts: Union[Mapping[Any, Any], Iterable[int]]) -> int:
    """``max - min`` of a set of counts (0 for none): 0 is perfect balance."""
    values = list(counts.values()) if isinstance(counts, Mapping) else list(counts)
    return max(values) - min(values) if values else 0


@dataclass(frozen=True)
class Balance:
    """The balance figures of one placement."""

    partitions: int
    leader_skew: int
    replica_skew: int
    leader_rack_skew: int
    replica_rack_skew: int
    min_racks_per_partition: int
    max_leaders: int
    max_replicas: int

    def as_dict(self) -> Dict[str, Any]:
        return dict(self.__dict__)


def balance(assignment: Assignment, brokers: Iterable[Any]) -> Balance:
    """Every measure at once: leader and replica skew over brokers and over racks, the fewest racks any
    partition spans, and the busiest broker's leader and replica counts."""
    lead = leaders_per_broker(assignment, brokers)
    reps = replicas_per_broker(assignment, brokers)
    rpp = racks_per_partition(assignment, brokers)
    return Balance(
        partitions=len(rpp),
        leader_skew=skew(lead),
        replica_skew=skew(reps),
        leader_rack_skew=skew(leaders_per_rack(assignment, brokers)),
        replica_rack_skew=skew(replicas_per_rack(assignment, brokers)),
        min_racks_per_partition=min(rpp.values()) if rpp else 0,
        max_leaders=max(lead.values()) if lead else 0,
        max_replicas=max(reps.values()) if reps else 0,
    )
