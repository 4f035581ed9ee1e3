"""Kafka Streams task assignment (issue 27): KIP-1071, the streams group protocol (``group.protocol=streams``).

With KIP-1071 (first shipped, as early access, in Kafka 4.1) the group coordinator on the broker
assigns a Streams application's *tasks* (one per subtopology and input partition) to its members (stream
threads), grouped by process (application instance): active tasks, standby replicas of the stateful tasks
(``num.standby.replicas``) and warm-up tasks.  This area ports, at Kafka 4.3.1:

* :class:`StickyTaskAssignor` -- the broker-side default assignor (``group-coordinator/.../streams/assignor``):
  active tasks sticky to their previous owners and balanced by process capacity, standby replicas never on a
  process that runs the task, with Java's tie-breaking reproduced exactly;
* its inputs and outputs -- :class:`GroupSpec`, :class:`AssignmentMemberSpec`, :class:`TopologyDescriber`
  (:class:`Topology` of :class:`Subtopology`), :class:`ProcessState`, :class:`MemberAssignment`,
  :class:`GroupAssignment`; :class:`TaskAssignor` the interface and :func:`task_assignor_for` its registry;
  the coordinator's ``TaskId`` is :class:`rebalance.streams.group_task_id.TaskId` (not exported here: the
  Streams client has a ``TaskId`` class of its own);
* the ``streams_group`` conformance vectors (:mod:`rebalance.streams.vectors`) and their seeded scenario
  generator (:mod:`rebalance.streams.scenarios`).
"""
from .assignment import GroupAssignment, MemberAssignment
from .process_state import ProcessState
from .spec import AssignmentMemberSpec, GroupSpec, Subtopology, Topology, TopologyDescriber
from .sticky_task_assignor import StickyTaskAssignor
from .task_assignor import TASK_ASSIGNORS, TaskAssignor, task_assignor_for

__all__ = [
    "AssignmentMemberSpec", "GroupAssignment", "GroupSpec", "MemberAssignment", "ProcessState", "StickyTaskAssignor",
    "Subtopology", "TASK_ASSIGNORS", "TaskAssignor", "Topology", "TopologyDescriber", "task_assignor_for",
]
