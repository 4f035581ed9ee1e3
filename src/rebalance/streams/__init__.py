"""Kafka Streams' task assignment (issue 27), both of Kafka 4.3.1's answers to "which instance runs which task".

A Streams application's *tasks* (one per subtopology and input partition) run on its clients (processes) and
their stream threads.  Who decides depends on the group protocol:

**The classic protocol** (KIP-441, ``org.apache.kafka.streams.processor.internals.assignment``): the group
leader's ``StreamsPartitionAssignor`` runs :class:`HighAvailabilityTaskAssignor` over the clients -- active tasks
balanced over the clients' capacity and kept on caught-up clients (lag <= ``acceptable.recovery.lag``), warm-up
replicas (at most ``max.warmup.replicas``) on the clients a task should move to, a probing rebalance
(``probing.rebalance.interval.ms``) until they have caught up, and ``num.standby.replicas`` standbys, placed by
client tags (KIP-708) when ``rack.aware.assignment.tags`` is set.

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
(``ClientState.initializePrevTasks`` with a partition -> task map).  Vectors: ``streams``
(``kafka-vectors/streams_high_availability*.jsonl``, :mod:`.client_vectors`, generator :mod:`.client_scenarios`).

**Experiments** (:mod:`.experiment`, chapter 15 and the Spark job ``streams``): :func:`probing_rounds` -- a
settled application scaled out or in, rebalance after probing rebalance until the assignor needs none;
:func:`steady_clients`, :func:`random_process_ids`, :func:`tasks_of`.

**The streams group protocol** (KIP-1071, ``group.protocol=streams``, first shipped as early access in Kafka
4.1): the group coordinator on the broker assigns the tasks to the members (stream threads), grouped by process:

* :class:`StickyTaskAssignor` -- the broker-side default assignor (``group-coordinator/.../streams/assignor``):
  active tasks sticky to their previous owners and balanced by process capacity, standby replicas never on a
  process that runs the task, with Java's tie-breaking reproduced exactly;
* its inputs and outputs -- :class:`GroupSpec`, :class:`AssignmentMemberSpec`, :class:`TopologyDescriber`
  (:class:`Topology` of :class:`Subtopology`), :class:`ProcessState`, :class:`MemberAssignment`,
  :class:`GroupAssignment`; :class:`TaskAssignor` the interface and :func:`task_assignor_for` its registry;
  the coordinator's ``TaskId`` is :class:`rebalance.streams.group_task_id.TaskId` (not exported here: the
  client's :class:`TaskId` above has the name);
* vectors: ``streams_group`` (:mod:`.vectors`), generator :mod:`.scenarios`.
"""
from .assignment import GroupAssignment, MemberAssignment
from .assignment_configs import AssignmentConfigs
from .client_state import LATEST_OFFSET, UNKNOWN_OFFSET_SUM, ClientState
from .client_tag_aware_standby_task_assignor import ClientTagAwareStandbyTaskAssignor
from .constrained_priority_set import ConstrainedPrioritySet
from .default_standby_task_assignor import DefaultStandbyTaskAssignor
from .experiment import BEHIND, ProbingRound, probing_rounds, random_process_ids, steady_clients, tasks_of
from .high_availability_task_assignor import AssignmentResult, HighAvailabilityTaskAssignor
from .legacy_task_assignor import ASSIGNORS, LegacyTaskAssignor, assignor_for
from .priority_queue import JavaPriorityQueue
from .process_id import ProcessId
from .process_state import ProcessState
from .spec import AssignmentMemberSpec, GroupSpec, Subtopology, Topology, TopologyDescriber
from .standby_task_assignor import StandbyTaskAssignor
from .standby_task_assignor_factory import create_standby_task_assignor
from .sticky_task_assignor import StickyTaskAssignor
from .task_assignor import TASK_ASSIGNORS, TaskAssignor, task_assignor_for
from .task_id import TaskId
from .task_movement import TaskMovement

__all__ = [
    "ASSIGNORS", "AssignmentConfigs", "AssignmentResult", "ClientState", "ClientTagAwareStandbyTaskAssignor",
    "ConstrainedPrioritySet", "DefaultStandbyTaskAssignor", "HighAvailabilityTaskAssignor", "JavaPriorityQueue",
    "LATEST_OFFSET", "LegacyTaskAssignor", "ProcessId", "StandbyTaskAssignor", "TaskId", "TaskMovement",
    "UNKNOWN_OFFSET_SUM", "assignor_for", "create_standby_task_assignor",
    "AssignmentMemberSpec", "GroupAssignment", "GroupSpec", "MemberAssignment", "ProcessState", "StickyTaskAssignor",
    "Subtopology", "TASK_ASSIGNORS", "TaskAssignor", "Topology", "TopologyDescriber", "task_assignor_for",
    "BEHIND", "ProbingRound", "probing_rounds", "random_process_ids", "steady_clients", "tasks_of",
]
