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
from .assignment_configs import AssignmentConfigs
from .client_state import LATEST_OFFSET, UNKNOWN_OFFSET_SUM, ClientState
from .client_tag_aware_standby_task_assignor import ClientTagAwareStandbyTaskAssignor
from .constrained_priority_set import ConstrainedPrioritySet
from .default_standby_task_assignor import DefaultStandbyTaskAssignor
from .experiment import BEHIND, ProbingRound, probing_rounds, random_process_ids, steady_clients, tasks_of
from .high_availability_task_assignor import AssignmentResult, HighAvailabilityTaskAssignor
from .legacy_task_assignor import ASSIGNORS, LegacyTaskAssignor, assignor_for
from .process_id import ProcessId
from .standby_task_assignor import StandbyTaskAssignor
from .standby_task_assignor_factory import create_standby_task_assignor
from .task_id import TaskId
from .task_movement import TaskMovement

__all__ = [
    "ASSIGNORS", "AssignmentConfigs", "AssignmentResult", "ClientState", "ClientTagAwareStandbyTaskAssignor",
    "ConstrainedPrioritySet", "DefaultStandbyTaskAssignor", "HighAvailabilityTaskAssignor", "LATEST_OFFSET",
    "LegacyTaskAssignor", "ProcessId", "StandbyTaskAssignor", "TaskId", "TaskMovement", "UNKNOWN_OFFSET_SUM",
    "assignor_for", "create_standby_task_assignor",
    "BEHIND", "ProbingRound", "probing_rounds", "random_process_ids", "steady_clients", "tasks_of",
]
