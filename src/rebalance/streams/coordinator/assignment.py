"""``MemberAssignment`` and ``GroupAssignment`` (Kafka 4.3.1, ``group-coordinator/.../streams/assignor``): what a
streams group's task assignor returns, per member its active, standby and warm-up tasks as
``Map<String, Set<Integer>>`` (subtopology id -> partitions)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, FrozenSet, List, Mapping

from ...java import java_string_key

__all__ = ["GroupAssignment", "MemberAssignment"]


def _json(tasks: Mapping[str, FrozenSet[int]]) -> Dict[str, List[int]]:
    return {s: sorted(tasks[s]) for s in sorted(tasks, key=java_string_key)}


@dataclass(frozen=True)
class MemberAssignment:
    """``MemberAssignment(activeTasks, standbyTasks, warmupTasks)``; a subtopology appears only with tasks."""

    active_tasks: Mapping[str, FrozenSet[int]] = field(default_factory=dict)
    standby_tasks: Mapping[str, FrozenSet[int]] = field(default_factory=dict)
    warmup_tasks: Mapping[str, FrozenSet[int]] = field(default_factory=dict)

    def to_json(self) -> Dict[str, Dict[str, List[int]]]:
        """``{"active", "standby", "warmup"}``, each ``{subtopology: [partitions]}`` sorted (the vectors' form)."""
        return {"active": _json(self.active_tasks), "standby": _json(self.standby_tasks),
                "warmup": _json(self.warmup_tasks)}


@dataclass(frozen=True)
class GroupAssignment:
    """``GroupAssignment(members)``: member id -> :class:`MemberAssignment`."""

    members: Mapping[str, MemberAssignment]

    def to_json(self) -> Dict[str, Any]:
        """Members sorted as ``String.compareTo`` sorts them, each as :meth:`MemberAssignment.to_json`."""
        return {m: self.members[m].to_json() for m in sorted(self.members, key=java_string_key)}
