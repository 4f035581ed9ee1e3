"""The book's data pipeline on Apache Spark (PySpark): local mode by default, any cluster by URL.

``get_spark()`` starts a quiet session (``local[*]`` unless ``SPARK_MASTER`` or ``master=`` names a
cluster).  The jobs (scenario sweeps, coordinator hot spots, rebalance Monte Carlo, placement audit)
call the package's own assignors, placers and simulator inside ``mapInPandas``/``applyInPandas``.
"""
from .session import get_spark, spark_master, stop_spark

__all__ = ["get_spark", "spark_master", "stop_spark"]
