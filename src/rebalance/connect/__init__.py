"""connect area of the Rebalance package."""
