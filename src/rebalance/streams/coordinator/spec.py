"""What a streams group's broker-side task assignor sees (KIP-1071): the group spec and the topology describer.

Mirrors, in Kafka 4.3.1's ``group-coordinator/.../streams/assignor``:

* ``AssignmentMemberSpec`` (record): a member's process, its current active / standby / warm-up tasks
  (``Map<String, Set<Integer>>``: subtopology id -> partitions), and fields the sticky assignor does not read
  (instance id, rack, client tags, task offsets);
* ``GroupSpec`` / ``GroupSpecImpl``: the members by member id and the assignment configs
  (``Map<String, String>``; ``num.standby.replicas`` is the one ``StickyTaskAssignor`` reads);
* ``TopologyDescriber``: the subtopology ids (a ``List``), each one's task count
  (``maxNumInputPartitions``) and whether it is stateful (has a changelog topic).

The coordinator (``TargetAssignmentBuilder.build``, lines 250-293 at 4.3.1) fills the member map as a
``HashMap`` and describes the topology with ``TopologyMetadata``, whose subtopology list is sorted (a
``SortedMap``'s keys).  The member map's iteration order decides ties in the assignor (which member's previous
active task counts when two claim one, the order of previous standby owners, the order processes enter the
heaps), so :class:`GroupSpec` keeps its members in the Java map's iteration order: :meth:`GroupSpec.of` builds
it as a ``HashMap`` (``"hash"``, the coordinator) or a ``LinkedHashMap`` (``"linked"``, Kafka's unit tests'
``Utils.mkMap``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterable, Iterator, List, Mapping, Optional, Protocol, Sequence, Tuple, runtime_checkable

from ...errors import InputError
from ...java import hashmap_order
from .task_id import TaskId

__all__ = ["AssignmentMemberSpec", "GroupSpec", "MEMBER_MAPS", "NUM_STANDBY_REPLICAS_CONFIG", "Subtopology",
           "Topology", "TopologyDescriber"]

#: the assignment config ``StickyTaskAssignor.initialize`` reads (line 89 at 4.3.1)
NUM_STANDBY_REPLICAS_CONFIG = "num.standby.replicas"

#: the ``Map`` implementations the member map may be: the coordinator's ``HashMap``, the tests' ``LinkedHashMap``
MEMBER_MAPS: Tuple[str, ...] = ("hash", "linked")

#: ``Map<String, Set<Integer>>``: subtopology id -> partitions
Tasks = Mapping[str, FrozenSet[int]]


@dataclass(frozen=True)
class AssignmentMemberSpec:
    """``AssignmentMemberSpec`` (Kafka 4.3.1): what the assignor knows of one member.  ``active_tasks``,
    ``standby_tasks`` and ``warmup_tasks`` are the member's current (target) assignment; the sticky assignor
    reads only ``process_id``, ``active_tasks`` and ``standby_tasks``."""

    process_id: str
    active_tasks: Tasks = field(default_factory=dict)
    standby_tasks: Tasks = field(default_factory=dict)
    warmup_tasks: Tasks = field(default_factory=dict)
    instance_id: Optional[str] = None
    rack_id: Optional[str] = None
    client_tags: Mapping[str, str] = field(default_factory=dict)
    task_offsets: Mapping[TaskId, int] = field(default_factory=dict)
    task_end_offsets: Mapping[TaskId, int] = field(default_factory=dict)


@dataclass(frozen=True)
class GroupSpec:
    """``GroupSpecImpl(members, assignmentConfigs)`` (Kafka 4.3.1).  ``members`` is in the iteration order of
    the Java map Kafka was given (see the module docstring; :meth:`of` builds it)."""

    members: Mapping[str, AssignmentMemberSpec]
    assignment_configs: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, members: Iterable[Tuple[str, AssignmentMemberSpec]], assignment_configs: Optional[Mapping[str, str]] = None,
           members_map: str = "hash") -> "GroupSpec":
        """The spec of ``members`` put in this order into a ``HashMap`` (``members_map="hash"``, what the
        coordinator does) or a ``LinkedHashMap`` (``"linked"``); a member id given twice keeps its last spec at
        its first place, as ``Map.put`` does."""
        if members_map not in MEMBER_MAPS:
            raise InputError("members_map", f"must be one of {', '.join(MEMBER_MAPS)}, got {members_map!r}")
        by_id: Dict[str, AssignmentMemberSpec] = {}
        for member_id, spec in members:
            by_id[member_id] = spec
        order: Sequence[str] = list(by_id) if members_map == "linked" else hashmap_order(list(by_id))
        return cls({m: by_id[m] for m in order}, dict(assignment_configs or {}))


@runtime_checkable
class TopologyDescriber(Protocol):
    """``TopologyDescriber`` (Kafka 4.3.1): the subtopologies, each one's task count and statefulness."""

    def subtopologies(self) -> List[str]: ...

    def max_num_input_partitions(self, subtopology_id: str) -> int: ...

    def is_stateful(self, subtopology_id: str) -> bool: ...


@dataclass(frozen=True)
class Subtopology:
    """One subtopology as the describer reports it: id, task count (its source topics' largest partition
    count) and whether it has state (a changelog topic)."""

    id: str
    partitions: int
    stateful: bool = False


class Topology:
    """A :class:`TopologyDescriber` over a list of :class:`Subtopology` (in the order ``subtopologies()``
    returns; the coordinator's ``TopologyMetadata`` gives them sorted by id).  An unknown id raises
    ``KeyError``, where Kafka's ``TopologyMetadata`` throws ``NoSuchElementException``."""

    def __init__(self, subtopologies: Iterable[Subtopology]):
        self._list = list(subtopologies)
        self._by_id = {s.id: s for s in self._list}
        if len(self._by_id) != len(self._list):
            raise InputError("subtopologies", "a subtopology id is listed twice")

    def subtopologies(self) -> List[str]:
        """``subtopologies()``: the ids, in list order."""
        return [s.id for s in self._list]

    def max_num_input_partitions(self, subtopology_id: str) -> int:
        """``maxNumInputPartitions(id)``: the subtopology's task count."""
        return self._by_id[subtopology_id].partitions

    def is_stateful(self, subtopology_id: str) -> bool:
        """``isStateful(id)``: whether the subtopology has a changelog topic (and so standby tasks)."""
        return self._by_id[subtopology_id].stateful

    def __iter__(self) -> Iterator[Subtopology]:
        return iter(self._list)
