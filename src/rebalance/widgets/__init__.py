"""widgets area of the Rebalance package."""
