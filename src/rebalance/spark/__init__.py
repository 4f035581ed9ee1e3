"""The book's data pipeline on Apache Spark (PySpark): local mode by default, any cluster by URL.

``get_spark()`` starts a quiet session (``local[*]`` unless ``SPARK_MASTER`` or ``master=`` names a
cluster).  The jobs (scenario sweeps, coordinator hot spots, rebalance Monte Carlo, placement audit)
call the package's own assignors, placers and simulator inside ``mapInPandas``/``applyInPandas``.
``exercise(job, **params)`` runs one at a small scale for a chapter; ``python -m rebalance.spark JOB
--scale N`` runs one from the command line.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

#: every public name and the module that defines it, imported on first use (:mod:`rebalance._lazy`)
_EXPORTS = {
    "exercise": ".exercises",
    "ConnectParams": ".generators", "SweepParams": ".generators", "group_ids": ".generators",
    "sweep_scenario": ".generators",
    "groups_per_partition": ".intro",
    "connect_job": ".jobs.connect:",
    "coordinator_job": ".jobs.coordinator:",
    "MonteCarloParams": ".jobs.montecarlo",
    "montecarlo_job": ".jobs.montecarlo:",
    "placement_job": ".jobs.placement:",
    "StreamsParams": ".jobs.streams",
    "streams_job": ".jobs.streams:",
    "churn_table": ".jobs.sweep",
    "sweep_job": ".jobs.sweep:",
    "lab": ".lab:",
    "plots": ".plots:",
    "get_spark": ".session", "spark_master": ".session", "stop_spark": ".session",
    "single_process": ".single_process:",
}
__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # what type checkers and IDEs see: the same names, from the same modules
    from . import lab as lab, plots as plots, single_process as single_process
    from .exercises import exercise as exercise
    from .generators import (ConnectParams as ConnectParams, SweepParams as SweepParams, group_ids as group_ids,
                             sweep_scenario as sweep_scenario)
    from .intro import groups_per_partition as groups_per_partition
    from .jobs import (connect as connect_job, coordinator as coordinator_job, montecarlo as montecarlo_job,
                       placement as placement_job, streams as streams_job, sweep as sweep_job)
    from .jobs.montecarlo import MonteCarloParams as MonteCarloParams
    from .jobs.streams import StreamsParams as StreamsParams
    from .jobs.sweep import churn_table as churn_table
    from .session import get_spark as get_spark, spark_master as spark_master, stop_spark as stop_spark
else:
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
