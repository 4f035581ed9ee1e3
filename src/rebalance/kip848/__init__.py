"""KIP-848, the next-generation consumer group protocol (``group.protocol=consumer``).

Early access in Kafka 3.7, preview in 3.8 and 3.9, generally available in 4.0.  The server-side assignors
match Kafka 4.3.1; the reconciliation simulator is modelled on Kafka's source at commit 1eb7644 (trunk
before 4.0) and not yet checked against a running Kafka.

* :class:`ConsumerGroupPartitionAssignor` -- the server-side assignor interface; :data:`ASSIGNORS` its registry
  (``uniform``, ``range``), :class:`ReplayOptions` the switches only the vectors adapter passes;
* :func:`assign_group` -- the group coordinator's server-side assignors: ``UniformAssignor`` (homogeneous and
  heterogeneous builders) and ``RangeAssignor``, with Java's iteration orders reproduced exactly;
* :func:`simulate` -- heartbeat-driven reconciliation (epochs, target assignment, revocation before
  release) on the shared virtual clock, for the join / leave / crash / rolling-restart scenarios
  (:mod:`.config` timings, :mod:`.coordinator` ``GroupMetadataManager``, :mod:`.reconciliation`
  ``CurrentAssignmentBuilder``, :mod:`.simulation` the consumers' heartbeat loop, :mod:`.scenarios`), with
  the ownership ledger and ``RebalanceMetrics`` of :mod:`rebalance.protocol.ledger`;
* :func:`compare_protocols` -- the same scenarios under classic eager, classic cooperative and KIP-848.
"""
from .assignor import (ASSIGNORS, ConsumerGroupPartitionAssignor, RangeAssignor, ReplayOptions,
                       SubscribedTopicDescriber, UniformAssignor, assignor_for)
from .compare import compare_protocols, phase_sweep
from .config import KIP848Config
from .group import GroupResult, TopicCatalog, assign_group
from .scenarios import simulate
from .simulation import KIP848Simulation, SimulationResult
from .uuid import Uuid, topic_id_for_name

from .._lazy import lazy_exports  # noqa: E402

# More public names, loaded on first use (the chapters' helpers and the classes they show).
_EXPORTS = {
    "BROKER_BOUNDS_MS": ".config", "ModernMemberState": ".reconciliation", "group_config": ".config", "join_at_scale": ".compare",
    "moved_partitions": ".group", "processing_sensitivity": ".compare",
}

__all__ = [
    "ASSIGNORS", "ConsumerGroupPartitionAssignor", "GroupResult", "KIP848Config", "KIP848Simulation", "RangeAssignor",
    "ReplayOptions", "SimulationResult", "SubscribedTopicDescriber", "TopicCatalog", "UniformAssignor", "Uuid",
    "assign_group", "assignor_for", "compare_protocols", "phase_sweep", "simulate", "topic_id_for_name",
]
__all__ += [
    "BROKER_BOUNDS_MS", "ModernMemberState", "group_config", "join_at_scale", "moved_partitions", "processing_sensitivity",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
