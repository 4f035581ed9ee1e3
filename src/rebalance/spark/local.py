"""The same experiments as a plain single-process Python loop: the benchmark's baseline, and a
reference the tests compare Spark's numbers with.

Each function builds the same scenarios from ``(seed, index)`` and calls the same per-scenario code as
the Spark job, one scenario after another, then summarises with pandas.
"""
from __future__ import annotations

from typing import Dict, Optional, Sequence

import pandas as pd

from .generators import SweepParams, check_params
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
    """The sweep's summary tables, computed in this process."""
    return sweep_job.summaries_from_pandas(sweep_rows(scale, seed, params, assignors))


def coordinator_partition_load(scale: int, seed: int = 0, params: Optional[dict] = None) -> pd.DataFrame:
    """``num_partitions, partition, groups, commits_per_s`` for ``scale`` group ids, in this process."""
    params = coordinator_job._check(check_params(params, coordinator_job.CoordinatorParams))
    scale, seed = check_scale(scale), check_seed(seed)
    total = None
    for start in range(0, scale, params.chunk):
        part = coordinator_job.count_chunk(seed, start, min(scale, start + params.chunk), params)
        if total is None:
            total = part
        else:
            total[["groups", "commits_per_s"]] += part[["groups", "commits_per_s"]].values
    total["num_partitions"] = total["num_partitions"].astype("int64")
    total["partition"] = total["partition"].astype("int64")
    return total.sort_values(["num_partitions", "partition"]).reset_index(drop=True)
