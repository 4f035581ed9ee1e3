"""spark area of the Rebalance package."""
