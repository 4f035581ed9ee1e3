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


from .._lazy import lazy_exports  # noqa: E402

# More public names, loaded on first use.  The jobs and the helper modules are published as namespaces (a
# trailing colon: the module itself), because each job module has the same entry points (``run``,
# ``summarize``): ``coordinator_job.run(spark, scale)``, ``single_process.sweep(...)``.
_EXPORTS = {
    "single_process": ".single_process:", "lab": ".lab:", "plots": ".plots:",
    "sweep_job": ".jobs.sweep:", "coordinator_job": ".jobs.coordinator:", "montecarlo_job": ".jobs.montecarlo:",
    "placement_job": ".jobs.placement:", "connect_job": ".jobs.connect:",
    "streams_job": ".jobs.streams:",
    "SweepParams": ".generators", "ConnectParams": ".generators", "group_ids": ".generators",
    "sweep_scenario": ".generators", "MonteCarloParams": ".jobs.montecarlo", "StreamsParams": ".jobs.streams", "churn_table": ".jobs.sweep",
    "groups_per_partition": ".intro",
}

__all__ = ["get_spark", "spark_master", "stop_spark", "exercise", *sorted(_EXPORTS)]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
