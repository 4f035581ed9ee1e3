"""``exercise(job, **params)``: the one call behind every chapter's "Spark-scale exercise".

It runs a job at a small default scale on the shared local session (no progress bar, nothing written)
and returns a small pandas summary whose printed form is deterministic (floats rounded), so that a
chapter can show it and ``nbval`` can re-execute it.  Readers raise ``scale`` (or point ``SPARK_MASTER``
at a cluster) to run the same experiment for real.  ``local=True`` computes the same table in this
process without Spark (:func:`rebalance.spark.single_process.run`): what executed solutions and tests use.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Optional

import pandas as pd

if TYPE_CHECKING:  # pyspark is the Spark extra; imported where a session is used
    from pyspark.sql import SparkSession

from ..validation import require
from .jobs import JOBS, get_job

#: default scales: scenarios (sweep), group ids (coordinator), simulations (montecarlo), topics (placement),
#: clusters (connect), share groups (share), scale-outs (streams)
DEFAULT_SCALE = {"sweep": 200, "coordinator": 200_000, "montecarlo": 60, "placement": 2_000, "connect": 200,
                 "share": 2_000, "streams": 200}
#: the table each job's exercise returns
SUMMARY_TABLE = {"sweep": "by_assignor", "coordinator": "summary", "montecarlo": "summary",
                 "placement": "summary", "connect": "summary", "share": "summary", "streams": "summary"}


def exercise(job: str, scale: Optional[int] = None, seed: int = 0, table: Optional[str] = None,
             digits: int = 3, spark: Optional[SparkSession] = None, local: bool = False,
             **params: Any) -> pd.DataFrame:
    """Run ``job`` (``sweep``, ``coordinator``, ``montecarlo``, ``placement``, ``connect``, ``share``) at ``scale``
    and return its summary table (or ``table``), floats rounded to ``digits``.  Other keyword arguments are
    the job's parameters (e.g. ``assignors=("range",)`` for the sweep, ``partition_counts=(50,)`` for the
    coordinator job, ``modes=("eager", "kip848")`` for the Monte Carlo).  ``local=True``: the same table
    from the plain local implementation, without Spark.

    >>> exercise("coordinator", scale=10_000, partition_counts=(50,), broker_counts=(3,))  # doctest: +SKIP

    Defined in chapter 13, *Lab at scale*."""
    require(job in JOBS, "job", f"must be one of {', '.join(JOBS)}, got {job!r}")
    module = get_job(job)
    if scale is None:
        scale = DEFAULT_SCALE[job]
    kwargs: Dict[str, Any] = {}
    if job == "sweep" and "assignors" in params:
        kwargs["assignors"] = tuple(params.pop("assignors"))
    if local:
        from .single_process import run as run_local

        tables = run_local(job, scale, seed, **kwargs, **params)
    else:
        if spark is None:
            from .session import get_spark

            spark = get_spark()
        tables = module.run(spark, scale, seed=seed, out=None, params=params or None, **kwargs).tables
    name = table or SUMMARY_TABLE[job]
    require(name in tables, "table", f"job {job!r} has tables {', '.join(tables)}, not {name!r}")
    frame = tables[name].copy()
    floats = frame.select_dtypes("float").columns
    frame[floats] = frame[floats].round(digits)
    return frame
