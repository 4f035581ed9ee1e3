"""replicas area of the Rebalance package."""
