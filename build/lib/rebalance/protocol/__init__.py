"""protocol area: coordinator lookup and Kafka's classic group protocol as a deterministic simulator.

* :mod:`.coordinator` -- ``GroupCoordinatorService.partitionFor`` and FindCoordinator;
* :mod:`.vectors`     -- the ``coordinator_partition`` conformance adapter;
* :mod:`.clock`       -- the shared :class:`~.clock.VirtualClock`;
* :mod:`.group`       -- the coordinator's classic-group state machine (``GroupMetadataManager``,
  ``ClassicGroup``);
* :mod:`.member`      -- the client (``AbstractCoordinator``, ``ConsumerCoordinator``): eager, cooperative
  and static members;
* :mod:`.assignors`   -- pluggable assignors (``rebalance.consumer`` by default);
* :mod:`.simulation`  -- scenarios, faults, traces and metrics.
"""
