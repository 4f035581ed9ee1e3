"""The book's data pipeline on Apache Spark (PySpark): local mode by default, any cluster by URL.

``get_spark()`` starts a quiet session (``local[*]`` unless ``SPARK_MASTER`` or ``master=`` names a
cluster).  The jobs (scenario sweeps, coordinator hot spots, rebalance Monte Carlo, placement audit)
call the package's own assignors, placers and simulator inside ``mapInPandas``/``applyInPandas``.
``exercise(job, **params)`` runs one at a small scale for a chapter; ``python -m rebalance.spark JOB
--scale N`` runs one from the command line.
"""
from .session import get_spark, spark_master, stop_spark


def exercise(job, **params):
    """Run a Spark job at a small scale and return its summary table (see :mod:`rebalance.spark.exercise`)."""
    from .exercise import exercise as _exercise

    return _exercise(job, **params)


__all__ = ["get_spark", "spark_master", "stop_spark", "exercise"]
