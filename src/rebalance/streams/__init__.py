"""Kafka Streams' task assignment.

The client-side assignor of KIP-441 (Kafka 4.3.1, ``org.apache.kafka.streams.processor.internals.assignment``),
which the group leader's ``StreamsPartitionAssignor`` runs over the clients of a classic-protocol Streams group:
active tasks balanced over the clients' capacity and kept on caught-up clients (lag <= ``acceptable.recovery.lag``),
warm-up replicas (at most ``max.warmup.replicas``) on the clients a task should move to, a probing rebalance
(``probing.rebalance.interval.ms``) until they have caught up, and ``num.standby.replicas`` standbys -- placed by
client tags (KIP-708) when ``rack.aware.assignment.tags`` is set.  Exact to Kafka's classes: the ``streams`` vectors
(``kafka-vectors/streams_high_availability*.jsonl``) are answered by Kafka's jar and replayed here.

* :class:`HighAvailabilityTaskAssignor` -- ``assign`` / ``assign_detailed`` (also reports the warm-ups);
  :class:`LegacyTaskAssignor` the interface, :data:`ASSIGNORS` / :func:`assignor_for` the registry;
* :class:`ClientState`, :class:`AssignmentConfigs`, :class:`TaskId`, :class:`ProcessId` (signed UUID order);
* :class:`ConstrainedPrioritySet` (over an exact :class:`JavaPriorityQueue`), :mod:`.task_movement`,
  :class:`DefaultStandbyTaskAssignor`, :class:`ClientTagAwareStandbyTaskAssignor`,
  :func:`create_standby_task_assignor` (``StandbyTaskAssignorFactory``).

A client's lags are given, or computed from the offset sums its subscription reports
(:meth:`ClientState.from_offset_sums`: ``computeTaskLags``).  Not ported: KIP-925 rack-aware task assignment
(``RackAwareTaskAssignor``; strategy ``none`` only), the other legacy assignors (``LegacyStickyTaskAssignor``,
``FallbackPriorTaskAssignor``), named topologies, and previous tasks from owned partitions
(``ClientState.initializePrevTasks`` with a partition -> task map).
"""
from .assignment_configs import AssignmentConfigs
from .client_state import LATEST_OFFSET, UNKNOWN_OFFSET_SUM, ClientState
from .client_tag_aware_standby_task_assignor import ClientTagAwareStandbyTaskAssignor
from .constrained_priority_set import ConstrainedPrioritySet
from .default_standby_task_assignor import DefaultStandbyTaskAssignor
from .high_availability_task_assignor import AssignmentResult, HighAvailabilityTaskAssignor
from .legacy_task_assignor import ASSIGNORS, LegacyTaskAssignor, assignor_for
from .priority_queue import JavaPriorityQueue
from .process_id import ProcessId
from .standby_task_assignor import StandbyTaskAssignor
from .standby_task_assignor_factory import create_standby_task_assignor
from .task_id import TaskId
from .task_movement import TaskMovement

__all__ = [
    "ASSIGNORS", "AssignmentConfigs", "AssignmentResult", "ClientState", "ClientTagAwareStandbyTaskAssignor",
    "ConstrainedPrioritySet", "DefaultStandbyTaskAssignor", "HighAvailabilityTaskAssignor", "JavaPriorityQueue",
    "LATEST_OFFSET", "LegacyTaskAssignor", "ProcessId", "StandbyTaskAssignor", "TaskId", "TaskMovement",
    "UNKNOWN_OFFSET_SUM", "assignor_for", "create_standby_task_assignor",
]
