"""kip848 area of the Rebalance package."""
