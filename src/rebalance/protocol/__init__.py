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
"""
