"""consumer area of the Rebalance package."""
