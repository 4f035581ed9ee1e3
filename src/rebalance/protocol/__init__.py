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
* :mod:`.ledger`      -- the ownership ledger and ``RebalanceMetrics`` (shared with the KIP-848 model);
* :mod:`.driver`      -- :class:`~.driver.ConsumerGroupDriver`: join, leave, crash, restart, run, metrics
  and the event hooks, the one interface of this simulator and the KIP-848 one;
* :mod:`.scenarios`   -- the p1/p2/p3 example, rolling restarts, random fault schedules.

The public names are in ``__all__``: ``from rebalance.protocol import GroupSimulation, ProtocolConfig``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

# The public names, loaded on first use (``from rebalance.protocol import GroupSimulation``): the submodules
# import one another and the KIP-848 model imports some of them, so nothing is imported before it is asked for.
_EXPORTS = {
    "GroupSimulation": ".simulation", "ProtocolConfig": ".config", "MemberSpec": ".config",
    "ConsumerGroupDriver": ".driver", "CompletedRebalance": ".driver", "format_assignment": ".driver",
    "VirtualClock": ".clock", "OwnershipLedger": ".ledger", "RebalanceMetrics": ".ledger",
    "Message": ".trace", "TraceEvent": ".trace", "format_messages": ".trace", "format_events": ".trace",
    "partition_for": ".coordinator", "find_coordinator": ".coordinator", "simple_leaders": ".coordinator",
    "coordinator_table": ".coordinator", "state_transitions": ".group", "ClassicGroupCoordinator": ".group",
    "ClassicGroupState": ".group", "Errors": ".group", "MemberState": ".member",
    "consumer_assignor": ".assignors", "rebalance_protocol_for": ".assignors",
    "listener_calls": ".listener", "listener_rows": ".listener", "callback_totals": ".listener",
    "cooperative_example": ".scenarios", "rolling_restart": ".scenarios", "random_schedule": ".scenarios",
}
__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from .assignors import consumer_assignor, rebalance_protocol_for
    from .clock import VirtualClock
    from .config import MemberSpec, ProtocolConfig
    from .coordinator import coordinator_table, find_coordinator, partition_for, simple_leaders
    from .driver import CompletedRebalance, ConsumerGroupDriver, format_assignment
    from .group import ClassicGroupCoordinator, ClassicGroupState, Errors, state_transitions
    from .member import MemberState
    from .ledger import OwnershipLedger, RebalanceMetrics
    from .listener import callback_totals, listener_calls, listener_rows
    from .scenarios import cooperative_example, random_schedule, rolling_restart
    from .simulation import GroupSimulation
    from .trace import Message, TraceEvent, format_events, format_messages
