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
from .assignment import GroupAssignment, MemberAssignment
from .process_state import ProcessState
from .spec import AssignmentMemberSpec, GroupSpec, Subtopology, Topology, TopologyDescriber
from .sticky_task_assignor import StickyTaskAssignor
from .task_assignor import TASK_ASSIGNORS, TaskAssignor, task_assignor_for
from .task_id import TaskId

__all__ = [
    "AssignmentMemberSpec", "GroupAssignment", "GroupSpec", "MemberAssignment", "ProcessState", "StickyTaskAssignor",
    "Subtopology", "TASK_ASSIGNORS", "TaskAssignor", "TaskId", "Topology", "TopologyDescriber", "task_assignor_for",
]
