"""The streams group's broker-side task assignor (KIP-1071, ``group.protocol=streams``, first shipped as early
access in Kafka 4.1), as Kafka 4.3.1 has it in ``org.apache.kafka.coordinator.group.streams.assignor``
(``group-coordinator/src/main/java/.../streams/assignor``): the group coordinator on the broker assigns the tasks
to the members (stream threads), grouped by process.

* :class:`StickyTaskAssignor` -- the default assignor (``group.streams.assignors``, ``"sticky"``): active tasks
  sticky to their previous owners and balanced by process capacity, standby replicas never on a process that runs
  the task, with Java's tie-breaking reproduced exactly;
* its inputs and outputs -- :class:`GroupSpec`, :class:`AssignmentMemberSpec`, :class:`TopologyDescriber`
  (:class:`Topology` of :class:`Subtopology`), :class:`ProcessState`, :class:`MemberAssignment`,
  :class:`GroupAssignment`; :class:`TaskAssignor` the interface and :data:`TASK_ASSIGNORS` /
  :func:`task_assignor_for` its registry;
* :class:`TaskId` -- the coordinator's record ``TaskId(String subtopologyId, int partition)``: a *string*
  subtopology id, ordered as ``String.compareTo`` orders it.  Kafka has a second class of that name on the client
  (``org.apache.kafka.streams.processor.TaskId``, an ``int`` subtopology, :class:`rebalance.streams.client.TaskId`);
  so does this package, each in the subpackage of its side, and the area :mod:`rebalance.streams` exports the
  client's.

The book's own pieces on this side: the vectors ``streams_group`` (``kafka-vectors/streams_group_*.jsonl``,
adapter :mod:`.vectors`, generator :mod:`.scenarios`).  Where Kafka throws ``TaskAssignorException`` the port
raises :class:`rebalance.errors.TaskAssignorException`.

Nothing here imports :mod:`rebalance.streams.client`: the two protocols share only the JDK's priority queue.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import lazy_exports

#: every public name and the module that defines it, imported on first use (:mod:`rebalance._lazy`)
_EXPORTS = {
    "GroupAssignment": ".assignment", "MemberAssignment": ".assignment", "ProcessState": ".process_state",
    "AssignmentMemberSpec": ".spec", "GroupSpec": ".spec", "Subtopology": ".spec", "Topology": ".spec",
    "TopologyDescriber": ".spec", "StickyTaskAssignor": ".sticky_task_assignor", "TASK_ASSIGNORS": ".task_assignor",
    "TaskAssignor": ".task_assignor", "task_assignor_for": ".task_assignor", "TaskId": ".task_id",
}
__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # what type checkers and IDEs see: the same names, from the same modules
    from .assignment import (GroupAssignment as GroupAssignment, MemberAssignment as MemberAssignment)
    from .process_state import ProcessState as ProcessState
    from .spec import (AssignmentMemberSpec as AssignmentMemberSpec, GroupSpec as GroupSpec, Subtopology as Subtopology,
                       Topology as Topology, TopologyDescriber as TopologyDescriber)
    from .sticky_task_assignor import StickyTaskAssignor as StickyTaskAssignor
    from .task_assignor import (TASK_ASSIGNORS as TASK_ASSIGNORS, TaskAssignor as TaskAssignor,
                                task_assignor_for as task_assignor_for)
    from .task_id import TaskId as TaskId
else:
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
