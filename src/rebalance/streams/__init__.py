"""Kafka Streams' task assignment (issue 27), both of Kafka 4.3.1's answers to "which instance runs which task".

A Streams application's *tasks* (one per subtopology and input partition) run on its clients (processes) and
their stream threads.  Who decides depends on the group protocol, and Kafka keeps the two apart; so does this
area, one subpackage for each:

* :mod:`rebalance.streams.client` -- **the classic protocol** (KIP-441, KIP-708), client side, as
  ``org.apache.kafka.streams.processor.internals.assignment``: the group leader's ``StreamsPartitionAssignor``
  runs :class:`HighAvailabilityTaskAssignor` over the clients -- active tasks balanced over capacity and kept on
  caught-up clients, warm-up replicas and probing rebalances until they have caught up, standbys placed by client
  tags; with :class:`ClientState`, :class:`AssignmentConfigs`, :class:`ProcessId`, :class:`TaskId`, the standby
  assignors, the vectors ``streams`` and the scale-out experiment of chapter 15 (:func:`probing_rounds`).
* :mod:`rebalance.streams.coordinator` -- **the streams group protocol** (KIP-1071, ``group.protocol=streams``),
  broker side, as ``org.apache.kafka.coordinator.group.streams.assignor``: the group coordinator's
  :class:`StickyTaskAssignor` over a :class:`GroupSpec` and a :class:`TopologyDescriber`, answering a
  :class:`GroupAssignment`; :class:`TaskAssignor` the interface, :func:`task_assignor_for` its registry; the
  vectors ``streams_group``.
* :mod:`rebalance.streams.priority_queue` -- what both sides share: ``java.util.PriorityQueue`` element for
  element (:class:`JavaPriorityQueue`), whose array decides ties in both assignors.

Kafka has two ``TaskId`` classes, one per side, of different shapes: the client's
``org.apache.kafka.streams.processor.TaskId`` (an ``int`` subtopology, ``Integer.compare`` order) and the
coordinator's record ``TaskId(String subtopologyId, int partition)`` (``String.compareTo`` order).  So has this
package: :class:`rebalance.streams.client.TaskId` and :class:`rebalance.streams.coordinator.TaskId`.  The area
exports the names of both subpackages, and ``TaskId`` is the client's; the coordinator's is reached through
:mod:`rebalance.streams.coordinator`.
"""
from .client import (ASSIGNORS, BEHIND, LATEST_OFFSET, UNKNOWN_OFFSET_SUM, AssignmentConfigs, AssignmentResult,
                     ClientState, ClientTagAwareStandbyTaskAssignor, ConstrainedPrioritySet,
                     DefaultStandbyTaskAssignor, HighAvailabilityTaskAssignor, LegacyTaskAssignor, ProbingRound,
                     ProcessId, StandbyTaskAssignor, TaskId, TaskMovement, assignor_for, create_standby_task_assignor,
                     probing_rounds, random_process_ids, steady_clients, tasks_of)
from .coordinator import (TASK_ASSIGNORS, AssignmentMemberSpec, GroupAssignment, GroupSpec, MemberAssignment,
                          ProcessState, StickyTaskAssignor, Subtopology, TaskAssignor, Topology, TopologyDescriber,
                          task_assignor_for)
from .priority_queue import JavaPriorityQueue

__all__ = [
    "ASSIGNORS", "AssignmentConfigs", "AssignmentResult", "ClientState", "ClientTagAwareStandbyTaskAssignor",
    "ConstrainedPrioritySet", "DefaultStandbyTaskAssignor", "HighAvailabilityTaskAssignor", "JavaPriorityQueue",
    "LATEST_OFFSET", "LegacyTaskAssignor", "ProcessId", "StandbyTaskAssignor", "TaskId", "TaskMovement",
    "UNKNOWN_OFFSET_SUM", "assignor_for", "create_standby_task_assignor",
    "AssignmentMemberSpec", "GroupAssignment", "GroupSpec", "MemberAssignment", "ProcessState", "StickyTaskAssignor",
    "Subtopology", "TASK_ASSIGNORS", "TaskAssignor", "Topology", "TopologyDescriber", "task_assignor_for",
    "BEHIND", "ProbingRound", "probing_rounds", "random_process_ids", "steady_clients", "tasks_of",
]
