"""viz area of the Rebalance package."""
