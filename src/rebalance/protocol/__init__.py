"""protocol area of the Rebalance package."""
