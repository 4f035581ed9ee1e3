"""protocol area: coordinator lookup and Kafka's classic group protocol as a deterministic simulator.

* :mod:`.coordinator` -- ``GroupCoordinatorService.partitionFor`` and FindCoordinator;
* :mod:`.vectors`     -- the ``coordinator_partition`` conformance adapter;
* :mod:`.clock`       -- the shared :class:`~.clock.VirtualClock`;
* :mod:`.group`       -- the coordinator's classic-group state machine (``GroupMetadataManager``,
  ``ClassicGroup``);
* :mod:`.member`      -- the client (``AbstractCoordinator``, ``ConsumerCoordinator``): eager, cooperative
  and static members;
* :mod:`.assignors`   -- pluggable assignors (``rebalance.consumer`` by default);
* :mod:`.simulation`  -- :class:`~.simulation.GroupSimulation`, one group and its run;
* :mod:`.config`      -- ``ProtocolConfig``: client and broker settings, the model's time costs;
* :mod:`.network`     -- requests and responses with latency (``ConsumerNetworkClient``);
* :mod:`.faults`      -- crashes, restarts, shutdowns, slow members, coordinator failover;
* :mod:`.trace`       -- wire messages and trace events (shared with the KIP-848 model);
* :mod:`.ledger`      -- the ownership ledger, ``RebalanceMetrics`` and ``StopMeasures`` (shared with the KIP-848 model);
* :mod:`.driver`      -- :class:`~.driver.ConsumerGroupDriver`: join, leave, crash, restart, run, metrics
  and the event hooks, the one interface of this simulator and the KIP-848 one;
* :mod:`.scenarios`   -- the p1/p2/p3 example, rolling restarts, random fault schedules.

The public names are in ``__all__``: ``from rebalance.protocol import GroupSimulation, ProtocolConfig``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

#: every public name and the module that defines it, imported on first use (:mod:`rebalance._lazy`)
_EXPORTS = {
    "consumer_assignor": ".assignors", "rebalance_protocol_for": ".assignors",
    "VirtualClock": ".clock",
    "MemberSpec": ".config", "ProtocolConfig": ".config",
    "coordinator_table": ".coordinator", "find_coordinator": ".coordinator", "partition_for": ".coordinator",
    "simple_leaders": ".coordinator",
    "CompletedRebalance": ".driver", "ConsumerGroupDriver": ".driver", "format_assignment": ".driver",
    "ClassicGroupCoordinator": ".group", "ClassicGroupState": ".group", "Errors": ".group",
    "state_transitions": ".group",
    "OwnershipLedger": ".ledger", "RebalanceMetrics": ".ledger", "StopMeasures": ".ledger",
    "callback_totals": ".listener", "listener_calls": ".listener", "listener_rows": ".listener",
    "MemberState": ".member",
    "cooperative_example": ".scenarios", "random_schedule": ".scenarios", "rolling_restart": ".scenarios",
    "GroupSimulation": ".simulation",
    "Message": ".trace", "TraceEvent": ".trace", "format_events": ".trace", "format_messages": ".trace",
}
__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # what type checkers and IDEs see: the same names, from the same modules
    from .assignors import consumer_assignor as consumer_assignor, rebalance_protocol_for as rebalance_protocol_for
    from .clock import VirtualClock as VirtualClock
    from .config import MemberSpec as MemberSpec, ProtocolConfig as ProtocolConfig
    from .coordinator import (coordinator_table as coordinator_table, find_coordinator as find_coordinator,
                              partition_for as partition_for, simple_leaders as simple_leaders)
    from .driver import (CompletedRebalance as CompletedRebalance, ConsumerGroupDriver as ConsumerGroupDriver,
                         format_assignment as format_assignment)
    from .group import (ClassicGroupCoordinator as ClassicGroupCoordinator, ClassicGroupState as ClassicGroupState,
                        Errors as Errors, state_transitions as state_transitions)
    from .ledger import OwnershipLedger as OwnershipLedger, RebalanceMetrics as RebalanceMetrics
    from .ledger import StopMeasures as StopMeasures
    from .listener import (callback_totals as callback_totals, listener_calls as listener_calls,
                           listener_rows as listener_rows)
    from .member import MemberState as MemberState
    from .scenarios import (cooperative_example as cooperative_example, random_schedule as random_schedule,
                            rolling_restart as rolling_restart)
    from .simulation import GroupSimulation as GroupSimulation
    from .trace import (Message as Message, TraceEvent as TraceEvent, format_events as format_events,
                        format_messages as format_messages)
else:
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
