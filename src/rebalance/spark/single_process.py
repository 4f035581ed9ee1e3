"""The same experiments as a plain single-process Python loop: the benchmark's baseline, the reference the
tests compare Spark's numbers with, and what the chapters' executed exercise solutions run.

Each job builds the same scenarios from ``(seed, index)`` and calls the same per-scenario code as its Spark
job, one scenario after another, then builds its tables with the same function the Spark job uses
(``tables_from_rows``; the sweep's summaries, which Spark aggregates itself, with pandas), so
:func:`run` returns the tables ``rebalance.spark.jobs.<job>.run`` returns, equal to the last digit.
"""
from __future__ import annotations

from typing import Dict, Optional, Sequence, cast

import pandas as pd

from ..validation import require
from .generators import SweepParams, check_params
from .jobs import JOBS, get_job
from .jobs import coordinator as coordinator_job
from .jobs import sweep as sweep_job
from .jobs.common import check_scale, check_seed


def sweep_rows(scale: int, seed: int = 0, params: Optional[SweepParams | Dict[str, object]] = None,
               assignors: Sequence[str] = sweep_job.ASSIGNORS) -> pd.DataFrame:
    """Per-(scenario, assignor) rows for scenarios ``0..scale-1``, computed in this process."""
    params = check_params(params, SweepParams).check()
    assignors = sweep_job.check_assignors(assignors)
    return sweep_job.evaluate_range(check_seed(seed), range(check_scale(scale)), params, assignors)


def sweep(scale: int, seed: int = 0, params: Optional[SweepParams | Dict[str, object]] = None,
          assignors: Sequence[str] = sweep_job.ASSIGNORS) -> Dict[str, pd.DataFrame]:
    """The sweep's tables (summaries, histograms, incomplete groups, rows), computed in this process."""
    return sweep_job.tables_from_rows(sweep_rows(scale, seed, params, assignors))


def coordinator_partition_load(scale: int, seed: int = 0, params: Optional[Dict[str, object]] = None) -> pd.DataFrame:
    """``num_partitions, partition, groups, commits_per_s`` for ``scale`` group ids, in this process."""
    checked = coordinator_job._check(check_params(params, coordinator_job.CoordinatorParams))
    scale, seed = check_scale(scale), check_seed(seed)
    found: Optional[pd.DataFrame] = None
    for start in range(0, scale, checked.chunk):
        part = coordinator_job.count_chunk(seed, start, min(scale, start + checked.chunk), checked)
        if found is None:
            found = part
        else:
            found[["groups", "commits_per_s"]] += part[["groups", "commits_per_s"]].values
    total = cast(pd.DataFrame, found)  # scale >= 1 (check_scale): at least one chunk was counted
    total["num_partitions"] = total["num_partitions"].astype("int64")
    total["partition"] = total["partition"].astype("int64")
    return total.sort_values(["num_partitions", "partition"]).reset_index(drop=True)


#: the jobs of scenarios 0..scale-1: their parameters' class and the function of a range of scenarios
_SCENARIO_JOBS = {"montecarlo": ("MonteCarloParams", "simulate_range"),
                  "connect": ("ConnectJobParams", "evaluate_range"), "share": ("ShareJobParams", "evaluate_range"), "streams": ("StreamsParams", "evaluate_range")}


def run(job: str, scale: int, seed: int = 0, assignors: Optional[Sequence[str]] = None,
        **params: object) -> Dict[str, pd.DataFrame]:
    """Job ``job``'s tables computed in this process, without Spark (``assignors``: the sweep's only)."""
    require(job in JOBS, "job", f"must be one of {', '.join(JOBS)}, got {job!r}")
    require(assignors is None or job == "sweep", "assignors", "only the sweep job takes assignors")
    module = get_job(job)
    scale, seed = check_scale(scale), check_seed(seed)
    if job == "sweep":
        return sweep(scale, seed, check_params(params or None, SweepParams),
                     sweep_job.ASSIGNORS if assignors is None else tuple(assignors))
    if job == "coordinator":
        p = module._check(check_params(params or None, module.CoordinatorParams))
        tables: Dict[str, pd.DataFrame] = module.tables(coordinator_partition_load(scale, seed, p), p)
        return tables
    if job in _SCENARIO_JOBS:  # a row per scenario (and set-up), tables from the rows
        params_class, evaluate_range = _SCENARIO_JOBS[job]
        p = check_params(params or None, getattr(module, params_class)).check()
        tables = module.tables_from_rows(getattr(module, evaluate_range)(seed, range(scale), p))
        return tables
    p = check_params(params or None, module.PlacementAuditParams).check()
    clusters = [i for i, _ in module.clusters_for(scale, p.topics_per_cluster)]
    tables = module.tables_from_rows(module.audit_range(seed, scale, clusters, p))
    return tables
