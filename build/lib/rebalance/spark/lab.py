"""Run a job once at full scale, keep its summary tables, and read them back afterwards.

The *Lab at scale* chapter runs jobs that take minutes.  ``load_or_run`` stores a job's tables (and the
scale, seed and parameters that produced them) as Parquet under a folder; when the chapter is executed
again with the same settings, the stored tables are read instead of recomputed, so the chapter's numbers
and figures are identical on every execution.  Change the scale, the seed or a parameter (or pass
``recompute=True``) and the job runs again and replaces what was stored.
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict
from typing import Optional

import pandas as pd

from ..errors import require
from .generators import check_params
from .jobs import JOBS, get_job
from .jobs.common import JobResult, table_path, write_outputs

_PARAM_CLASSES = {"sweep": "SweepParams", "coordinator": "CoordinatorParams", "montecarlo": "MonteCarloParams",
                  "placement": "PlacementAuditParams"}


def _normalised_params(job: str, params, extra: dict) -> dict:
    module = get_job(job)
    if job == "sweep":
        from .generators import SweepParams

        cls = SweepParams
    else:
        cls = getattr(module, _PARAM_CLASSES[job])
    out = asdict(check_params(params, cls))
    if job == "sweep":
        out["assignors"] = list(extra.get("assignors", module.ASSIGNORS))
    return json.loads(json.dumps(out, sort_keys=True, default=list))


def stored(store: str, job: str) -> Optional[JobResult]:
    """The tables stored for ``job`` under ``store``, or ``None``."""
    meta_path = table_path(store, job, "_meta")
    if not os.path.isdir(meta_path):
        return None
    meta = pd.read_parquet(meta_path).iloc[0]
    tables = {}
    folder = os.path.join(store, job)
    for name in sorted(os.listdir(folder)):
        if name.startswith("_") or not os.path.isdir(os.path.join(folder, name)):
            continue
        tables[name] = pd.read_parquet(os.path.join(folder, name))
    return JobResult(job, int(meta["scale"]), int(meta["seed"]), json.loads(meta["params"]), tables)


def load_or_run(job: str, scale: int, seed: int = 0, store: str = "lab-results", params=None, spark=None,
                recompute: bool = False, **kwargs) -> JobResult:
    """The job's tables at ``scale``/``seed``/``params``: read from ``store`` if they are there, otherwise
    computed with Spark, written to ``store`` and read back (so both paths return identical frames)."""
    require(job in JOBS, "job", f"must be one of {', '.join(JOBS)}, got {job!r}")
    wanted = _normalised_params(job, params, kwargs)
    old = None if recompute else stored(store, job)
    if old is not None and old.scale == scale and old.seed == seed and \
            json.loads(json.dumps(old.params, sort_keys=True)) == wanted:
        return old
    if spark is None:
        from .session import get_spark

        spark = get_spark()
    result = get_job(job).run(spark, scale, seed=seed, out=None, params=params, **kwargs)
    result.params = wanted
    folder = os.path.join(store, job)
    if os.path.isdir(folder):
        for name in os.listdir(folder):
            sub = os.path.join(folder, name)
            if os.path.isdir(sub):
                for f in os.listdir(sub):
                    os.remove(os.path.join(sub, f))
                os.rmdir(sub)
    write_outputs(spark, result, store)
    return stored(store, job)


def store_path(name: str) -> str:
    """``name`` if that folder exists here, else ``chapters/name`` (a chapter runs from ``chapters/`` under
    Jupyter and nbval, but from the repository root in some tools); ``name`` if neither exists yet."""
    if os.path.isdir(name):
        return name
    alt = os.path.join("chapters", name)
    return alt if os.path.isdir(alt) else name
