"""The book's data pipeline on Apache Spark (PySpark): local mode by default, any cluster by URL.

``get_spark()`` starts a quiet session (``local[*]`` unless ``SPARK_MASTER`` or ``master=`` names a
cluster).  The jobs (scenario sweeps, coordinator hot spots, rebalance Monte Carlo, placement audit)
call the package's own assignors, placers and simulator inside ``mapInPandas``/``applyInPandas``.
``exercise(job, **params)`` runs one at a small scale for a chapter; ``python -m rebalance.spark JOB
--scale N`` runs one from the command line.
"""
from .session import get_spark, spark_master, stop_spark

# Imported eagerly: the name ``exercise`` must stay bound to the function.  A lazy wrapper was replaced by
# the submodule object as soon as anything imported ``rebalance.spark.exercise`` (Python sets a package
# attribute when it first loads a submodule), so a second run of a chapter's import cell got a module.
from .exercise import exercise  # noqa: E402


__all__ = ["get_spark", "spark_master", "stop_spark", "exercise"]
