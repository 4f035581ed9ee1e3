"""KIP-848, the next-generation consumer group protocol (``group.protocol=consumer``).

Early access in Kafka 3.7, preview in 3.8 and 3.9, generally available in 4.0.  The server-side assignors
match Kafka 4.3.1; the reconciliation simulator is modelled on Kafka's source at commit 1eb7644 (trunk
before 4.0), read again against 4.3.1's: the coordinator's assignment interval of Kafka 4.3 is modelled
(:mod:`.coordinator`), the client's 4.3.1 changes listed in :mod:`.simulation` are not yet.  Its runs are compared
with a real 4.3.1 broker's by ``benchmarks/bench_kafka_peer.py``.

* :class:`ConsumerGroupPartitionAssignor` -- the server-side assignor interface; :data:`ASSIGNORS` its registry
  (``uniform``, ``range``), :class:`ReplayOptions` the switches only the vectors adapter passes;
* :func:`assign_group` -- the group coordinator's server-side assignors: ``UniformAssignor`` (homogeneous and
  heterogeneous builders) and ``RangeAssignor``, with Java's iteration orders reproduced exactly;
* :func:`simulate` -- heartbeat-driven reconciliation (epochs, target assignment, revocation before
  release) on the shared virtual clock, for the join / leave / crash / rolling-restart scenarios
  (:mod:`.config` timings, :mod:`.coordinator` ``GroupMetadataManager``, :mod:`.reconciliation`
  ``CurrentAssignmentBuilder``, :mod:`.simulation` the consumers' heartbeat loop, :mod:`.scenarios`), with
  the ownership ledger and ``RebalanceMetrics`` of :mod:`rebalance.protocol.ledger`;
* :func:`compare_protocols` -- the same scenarios under classic eager, classic cooperative and KIP-848;
  :func:`slow_member` one slow member while another joins, on the simulators and on a real broker;
  :func:`join_storm` many members joining within seconds, :func:`rolling_restart` a rolling restart of
  dynamic members, each on the simulators and, if asked, on a real broker;
* :mod:`.migration` -- moving a running group between the protocols: :class:`ConsumerGroupMigrationPolicy`,
  :func:`online_migration_scenario` and :func:`migration_steps`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

#: every public name and the module that defines it, imported on first use (:mod:`rebalance._lazy`)
_EXPORTS = {
    "ASSIGNORS": ".assignor", "ConsumerGroupPartitionAssignor": ".assignor", "RangeAssignor": ".assignor",
    "ReplayOptions": ".assignor", "SubscribedTopicDescriber": ".assignor", "UniformAssignor": ".assignor",
    "assignor_for": ".assignor",
    "compare_protocols": ".compare", "join_at_scale": ".compare", "phase_sweep": ".compare",
    "processing_sensitivity": ".compare", "slow_member": ".compare", "slow_member_scenarios": ".compare",
    "slow_member_sweep": ".compare", "join_storm": ".compare", "join_storm_scenarios": ".compare", "restart_and_storm": ".compare", "rolling_restart": ".compare",
    "rolling_restart_scenarios": ".compare", "rebuild_ranking": ".compare", "rebuild_break_even": ".compare",
    "REBUILD_PROTOCOLS": ".compare",
    "SLOW_MEMBER_PROTOCOLS": ".compare",
    "BROKER_BOUNDS_MS": ".config", "KIP848Config": ".config", "group_config": ".config",
    "GroupResult": ".group", "TopicCatalog": ".group", "assign_group": ".group", "moved_partitions": ".group",
    "ModernMemberState": ".reconciliation",
    "ConsumerGroupMigrationPolicy": ".migration", "migration_steps": ".migration",
    "online_migration_scenario": ".migration",
    "simulate": ".scenarios",
    "KIP848Simulation": ".simulation", "SimulationResult": ".simulation",
    "Uuid": ".uuid", "topic_id_for_name": ".uuid",
}
__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # what type checkers and IDEs see: the same names, from the same modules
    from .assignor import (ASSIGNORS as ASSIGNORS, ConsumerGroupPartitionAssignor as ConsumerGroupPartitionAssignor,
                           RangeAssignor as RangeAssignor, ReplayOptions as ReplayOptions,
                           SubscribedTopicDescriber as SubscribedTopicDescriber, UniformAssignor as UniformAssignor,
                           assignor_for as assignor_for)
    from .compare import (compare_protocols as compare_protocols, join_at_scale as join_at_scale,
                          phase_sweep as phase_sweep, processing_sensitivity as processing_sensitivity,
                          SLOW_MEMBER_PROTOCOLS as SLOW_MEMBER_PROTOCOLS, slow_member as slow_member,
                          slow_member_scenarios as slow_member_scenarios, slow_member_sweep as slow_member_sweep,
                          rebuild_ranking as rebuild_ranking, rebuild_break_even as rebuild_break_even,
                          REBUILD_PROTOCOLS as REBUILD_PROTOCOLS, join_storm as join_storm,
                          join_storm_scenarios as join_storm_scenarios, restart_and_storm as restart_and_storm,
                          rolling_restart as rolling_restart,
                          rolling_restart_scenarios as rolling_restart_scenarios)
    from .config import (BROKER_BOUNDS_MS as BROKER_BOUNDS_MS, KIP848Config as KIP848Config,
                         group_config as group_config)
    from .group import (GroupResult as GroupResult, TopicCatalog as TopicCatalog, assign_group as assign_group,
                        moved_partitions as moved_partitions)
    from .migration import (ConsumerGroupMigrationPolicy as ConsumerGroupMigrationPolicy,
                            migration_steps as migration_steps, online_migration_scenario as online_migration_scenario)
    from .reconciliation import ModernMemberState as ModernMemberState
    from .scenarios import simulate as simulate
    from .simulation import KIP848Simulation as KIP848Simulation, SimulationResult as SimulationResult
    from .uuid import Uuid as Uuid, topic_id_for_name as topic_id_for_name
else:
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
