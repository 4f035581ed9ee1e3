"""Rebalance: the executable textbook's package.

Every algorithm of the book lives here and mirrors a named Kafka class:

* ``rebalance.consumer``  -- client-side consumer partition assignors (Range, RoundRobin, Sticky,
  CooperativeSticky), Kafka 3.8/3.9;
* ``rebalance.protocol``  -- coordinator lookup and the classic group protocol as a simulator;
* ``rebalance.connect``   -- Kafka Connect's eager and incremental cooperative assignors;
* ``rebalance.replicas``  -- replica placement (AdminUtils, StripedReplicaPlacer);
* ``rebalance.kip848``    -- the KIP-848 consumer group protocol and its server-side assignors;
* ``rebalance.spark``     -- the PySpark data pipeline used by the Spark-scale exercises;
* ``rebalance.widgets`` / ``rebalance.viz`` -- the chapters' widgets and figures.

``python -m rebalance conform FILE...`` replays Kafka's conformance vectors.
"""
__version__ = "0.1.0"
