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
* :mod:`rebalance.streams.simulate` -- ``simulate``'s ``kind: streams`` (:func:`simulate_streams`): an
  application's rebalances on a virtual clock, through either side.

Kafka has two ``TaskId`` classes, one per side, of different shapes: the client's
``org.apache.kafka.streams.processor.TaskId`` (an ``int`` subtopology, ``Integer.compare`` order) and the
coordinator's record ``TaskId(String subtopologyId, int partition)`` (``String.compareTo`` order).  So has this
package: :class:`rebalance.streams.client.TaskId` and :class:`rebalance.streams.coordinator.TaskId`.  The area
exports the names of both subpackages, and ``TaskId`` is the client's; the coordinator's is reached through
:mod:`rebalance.streams.coordinator`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

#: every public name and the module that defines it, imported on first use (:mod:`rebalance._lazy`)
_EXPORTS = {
    "ASSIGNORS": ".client", "AssignmentConfigs": ".client", "AssignmentResult": ".client", "BEHIND": ".client",
    "ClientState": ".client", "ClientTagAwareStandbyTaskAssignor": ".client", "ConstrainedPrioritySet": ".client",
    "DefaultStandbyTaskAssignor": ".client", "HighAvailabilityTaskAssignor": ".client", "LATEST_OFFSET": ".client",
    "LegacyTaskAssignor": ".client", "ProbingRound": ".client", "ProcessId": ".client",
    "StandbyTaskAssignor": ".client", "TaskId": ".client", "TaskMovement": ".client", "UNKNOWN_OFFSET_SUM": ".client",
    "assign_round": ".client", "assignor_for": ".client", "create_standby_task_assignor": ".client", "probing_rounds": ".client",
    "random_process_ids": ".client", "steady_clients": ".client", "tasks_of": ".client",
    "AssignmentMemberSpec": ".coordinator", "GroupAssignment": ".coordinator", "GroupSpec": ".coordinator",
    "MemberAssignment": ".coordinator", "ProcessState": ".coordinator", "StickyTaskAssignor": ".coordinator",
    "Subtopology": ".coordinator", "TASK_ASSIGNORS": ".coordinator", "TaskAssignor": ".coordinator",
    "Topology": ".coordinator", "TopologyDescriber": ".coordinator", "task_assignor_for": ".coordinator",
    "JavaPriorityQueue": ".priority_queue", "simulate_streams": ".simulate",
}
__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # what type checkers and IDEs see: the same names, from the same modules
    from .client import (ASSIGNORS as ASSIGNORS, AssignmentConfigs as AssignmentConfigs,
                         AssignmentResult as AssignmentResult, BEHIND as BEHIND, ClientState as ClientState,
                         ClientTagAwareStandbyTaskAssignor as ClientTagAwareStandbyTaskAssignor,
                         ConstrainedPrioritySet as ConstrainedPrioritySet,
                         DefaultStandbyTaskAssignor as DefaultStandbyTaskAssignor,
                         HighAvailabilityTaskAssignor as HighAvailabilityTaskAssignor, LATEST_OFFSET as LATEST_OFFSET,
                         LegacyTaskAssignor as LegacyTaskAssignor, ProbingRound as ProbingRound, ProcessId as ProcessId,
                         StandbyTaskAssignor as StandbyTaskAssignor, TaskId as TaskId, TaskMovement as TaskMovement,
                         UNKNOWN_OFFSET_SUM as UNKNOWN_OFFSET_SUM, assign_round as assign_round, assignor_for as assignor_for,
                         create_standby_task_assignor as create_standby_task_assignor, probing_rounds as probing_rounds,
                         random_process_ids as random_process_ids, steady_clients as steady_clients,
                         tasks_of as tasks_of)
    from .coordinator import (AssignmentMemberSpec as AssignmentMemberSpec, GroupAssignment as GroupAssignment,
                              GroupSpec as GroupSpec, MemberAssignment as MemberAssignment,
                              ProcessState as ProcessState, StickyTaskAssignor as StickyTaskAssignor,
                              Subtopology as Subtopology, TASK_ASSIGNORS as TASK_ASSIGNORS,
                              TaskAssignor as TaskAssignor, Topology as Topology,
                              TopologyDescriber as TopologyDescriber, task_assignor_for as task_assignor_for)
    from .priority_queue import JavaPriorityQueue as JavaPriorityQueue
    from .simulate import simulate_streams as simulate_streams
else:
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
