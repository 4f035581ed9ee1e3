"""Kafka Streams' client-side task assignment of the classic protocol (KIP-441, KIP-708), as Kafka 4.3.1 has it in
``org.apache.kafka.streams.processor.internals.assignment`` (with ``ProcessId`` and ``AssignmentConfigs`` of
``org.apache.kafka.streams.processor.assignment`` and ``org.apache.kafka.streams.processor.TaskId``).

With ``group.protocol=classic`` the group leader's ``StreamsPartitionAssignor`` runs
:class:`HighAvailabilityTaskAssignor` over the clients (processes) -- active tasks balanced over the clients'
capacity and kept on caught-up clients (lag <= ``acceptable.recovery.lag``), warm-up replicas (at most
``max.warmup.replicas``) on the clients a task should move to, a probing rebalance
(``probing.rebalance.interval.ms``) until they have caught up, and ``num.standby.replicas`` standbys, placed by
client tags (KIP-708) when ``rack.aware.assignment.tags`` is set.

* :class:`HighAvailabilityTaskAssignor` -- ``assign`` / ``assign_detailed`` (also reports the warm-ups);
  :class:`LegacyTaskAssignor` the interface, :data:`ASSIGNORS` / :func:`assignor_for` the registry;
* :class:`ClientState`, :class:`AssignmentConfigs`, :class:`TaskId` (Kafka's ``processor.TaskId``: an ``int``
  subtopology; the streams group's is :class:`rebalance.streams.coordinator.TaskId`), :class:`ProcessId` (signed
  UUID order);
* :class:`ConstrainedPrioritySet` (over the area's exact :class:`~rebalance.streams.priority_queue.JavaPriorityQueue`),
  :mod:`.task_movement`, :class:`DefaultStandbyTaskAssignor`, :class:`ClientTagAwareStandbyTaskAssignor`,
  :func:`create_standby_task_assignor` (``StandbyTaskAssignorFactory``).

A client's lags are given, or computed from the offset sums its subscription reports
(:meth:`ClientState.from_offset_sums`: ``computeTaskLags``).  Not ported: KIP-925 rack-aware task assignment
(``RackAwareTaskAssignor``; strategy ``none`` only), the other legacy assignors (``LegacyStickyTaskAssignor``,
``FallbackPriorTaskAssignor``), named topologies, and previous tasks from owned partitions
(``ClientState.initializePrevTasks`` with a partition -> task map).

The book's own pieces on this side: the vectors ``streams`` (``kafka-vectors/streams_high_availability*.jsonl``,
adapter :mod:`.vectors`, generator :mod:`.scenarios`) and the experiment of chapter 15 and the Spark job
``streams`` (:mod:`.experiment`): :func:`probing_rounds` -- a settled application scaled out or in, rebalance
after probing rebalance until the assignor needs none; :func:`steady_clients`, :func:`random_process_ids`,
:func:`tasks_of`.

Nothing here imports :mod:`rebalance.streams.coordinator`: the two protocols share only the JDK's priority queue.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import lazy_exports

#: every public name and the module that defines it, imported on first use (:mod:`rebalance._lazy`)
_EXPORTS = {
    "AssignmentConfigs": ".assignment_configs", "ClientState": ".client_state", "LATEST_OFFSET": ".client_state",
    "UNKNOWN_OFFSET_SUM": ".client_state",
    "ClientTagAwareStandbyTaskAssignor": ".client_tag_aware_standby_task_assignor",
    "ConstrainedPrioritySet": ".constrained_priority_set",
    "DefaultStandbyTaskAssignor": ".default_standby_task_assignor", "BEHIND": ".experiment",
    "ProbingRound": ".experiment", "assign_round": ".experiment", "probing_rounds": ".experiment", "random_process_ids": ".experiment",
    "steady_clients": ".experiment", "tasks_of": ".experiment",
    "AssignmentResult": ".high_availability_task_assignor",
    "HighAvailabilityTaskAssignor": ".high_availability_task_assignor", "ASSIGNORS": ".legacy_task_assignor",
    "LegacyTaskAssignor": ".legacy_task_assignor", "assignor_for": ".legacy_task_assignor",
    "ProcessId": ".process_id", "StandbyTaskAssignor": ".standby_task_assignor",
    "create_standby_task_assignor": ".standby_task_assignor_factory", "TaskId": ".task_id",
    "TaskMovement": ".task_movement",
}
__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # what type checkers and IDEs see: the same names, from the same modules
    from .assignment_configs import AssignmentConfigs as AssignmentConfigs
    from .client_state import (ClientState as ClientState, LATEST_OFFSET as LATEST_OFFSET,
                               UNKNOWN_OFFSET_SUM as UNKNOWN_OFFSET_SUM)
    from .client_tag_aware_standby_task_assignor import (
                                                         ClientTagAwareStandbyTaskAssignor as ClientTagAwareStandbyTaskAssignor)
    from .constrained_priority_set import ConstrainedPrioritySet as ConstrainedPrioritySet
    from .default_standby_task_assignor import DefaultStandbyTaskAssignor as DefaultStandbyTaskAssignor
    from .experiment import (BEHIND as BEHIND, ProbingRound as ProbingRound, assign_round as assign_round,
                             probing_rounds as probing_rounds,
                             random_process_ids as random_process_ids, steady_clients as steady_clients,
                             tasks_of as tasks_of)
    from .high_availability_task_assignor import (AssignmentResult as AssignmentResult,
                                                  HighAvailabilityTaskAssignor as HighAvailabilityTaskAssignor)
    from .legacy_task_assignor import (ASSIGNORS as ASSIGNORS, LegacyTaskAssignor as LegacyTaskAssignor,
                                       assignor_for as assignor_for)
    from .process_id import ProcessId as ProcessId
    from .standby_task_assignor import StandbyTaskAssignor as StandbyTaskAssignor
    from .standby_task_assignor_factory import create_standby_task_assignor as create_standby_task_assignor
    from .task_id import TaskId as TaskId
    from .task_movement import TaskMovement as TaskMovement
else:
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
