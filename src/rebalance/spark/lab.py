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
from typing import TYPE_CHECKING, Any, Dict, Mapping, Optional, cast

import pandas as pd

if TYPE_CHECKING:  # pyspark is the Spark extra; imported where a session is used
    from pyspark.sql import SparkSession
    from .generators import SweepParams

from ..common import JsonRecord
from ..consumer import assign as consumer_assign
from ..validation import require
from .generators import check_params
from .jobs import JOBS, get_job
from .jobs.common import JobResult, table_path, write_outputs

#: the key of a Monte Carlo run's stored parameters that holds the simulators' default configs
SIMULATORS_KEY = "simulator_defaults"
_PARAM_CLASSES = {"sweep": "SweepParams", "coordinator": "CoordinatorParams", "montecarlo": "MonteCarloParams",
                  "placement": "PlacementAuditParams", "connect": "ConnectJobParams", "share": "ShareJobParams"}


def _normalised_params(job: str, params: object, extra: Mapping[str, Any]) -> JsonRecord:
    module = get_job(job)
    if job == "sweep":
        from .generators import SweepParams

        cls = SweepParams
    else:
        cls = getattr(module, _PARAM_CLASSES[job])
    out = asdict(check_params(params, cls))
    if job == "sweep":
        out["assignors"] = list(extra.get("assignors", module.ASSIGNORS))
    if job == "montecarlo":
        # the simulators' default timings are part of what produced the numbers: a stored run made under
        # other defaults is stale
        out[SIMULATORS_KEY] = {prefix: asdict(c()) for prefix, c in module.SIMULATOR_CONFIGS.items()}
    normalised: JsonRecord = json.loads(json.dumps(out, sort_keys=True, default=list))
    return normalised


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


def load_or_run(job: str, scale: int, seed: int = 0, store: str = "lab-results", params: object = None,
                spark: Optional[SparkSession] = None, recompute: bool = False, **kwargs: object) -> JobResult:
    """The job's tables at ``scale``/``seed``/``params``: read from ``store`` if they are there, otherwise
    computed with Spark, written to ``store`` and read back (so both paths return identical frames)."""
    require(job in JOBS, "job", f"must be one of {', '.join(JOBS)}, got {job!r}")
    wanted = _normalised_params(job, params, kwargs)
    defaults = {k: v for k, v in _normalised_params(job, None, {}).items() if k != SIMULATORS_KEY}
    old = None if recompute else stored(store, job)
    # a parameter added to the job after the run was stored is taken at its default (which reproduces what
    # the job did before it had the parameter)
    if old is not None and old.scale == scale and old.seed == seed and \
            json.loads(json.dumps({**defaults, **old.params}, sort_keys=True)) == wanted:
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
    return cast(JobResult, stored(store, job))  # not None: write_outputs has just stored the job's tables


def store_path(name: str) -> str:
    """``name`` if that folder exists here, else ``chapters/name`` (a chapter runs from ``chapters/`` under
    Jupyter and nbval, but from the repository root in some tools); ``name`` if neither exists yet."""
    if os.path.isdir(name):
        return name
    alt = os.path.join("chapters", name)
    return alt if os.path.isdir(alt) else name


# --------------------------------------------------------------------------------------------------------
# what the chapter reports about its stored runs, and its exercises' small runs without Spark


def scenario_ranges(results: Mapping[str, JobResult]) -> pd.DataFrame:
    """What the scenarios of each stored run span, read from the run's own parameters and rows (not from
    the current defaults), one row per job: the chapter states these ranges from this table."""
    from ..protocol.simulation import ProtocolConfig

    rows = []
    for job, r in results.items():
        p = r.params
        if job == "sweep":
            text = (f"groups of {p['min_members']}-{p['max_members']} members, 1-{p['max_topics']} topics of "
                    f"1-{p['max_partitions']} partitions, racks drawn from {p['rack_choices']}, identical "
                    f"subscriptions with probability {p['p_identical']}")
        elif job == "coordinator":
            text = (f"{r.scale:,} group ids; offsets.topic.num.partitions {p['partition_counts']}; "
                    f"clusters of {p['broker_counts']} brokers")
        elif job == "montecarlo":
            mc = r.tables["rows"]
            session_ms = p.get(SIMULATORS_KEY, {}).get("classic", {}).get(
                "session_timeout_ms", ProtocolConfig().session_timeout_ms)
            gaps = mc.loc[mc["event"] == "rolling-restart", "gap_ms"] / 1000
            text = (f"groups of {p['min_members']}-{p['max_members']} members; a member is down "
                    f"{p['min_down_ms'] / 1000:.0f}-{p['max_down_ms'] / 1000:.0f} s; rolling restarts "
                    f"{gaps.min():.0f}-{gaps.max():.0f} s apart (in the rows); session.timeout.ms "
                    f"{session_ms / 1000:.0f} s (Kafka's default)")
        elif job == "placement":
            pr = r.tables["rows"]
            clusters = pr.drop_duplicates("cluster")
            racked = clusters[clusters["racks"] > 0]
            text = (f"{p['topics_per_cluster']} topics per cluster; clusters of {clusters['brokers'].min()}-"
                    f"{clusters['brokers'].max()} brokers (drawn from {p['broker_choices']}, one more with "
                    f"probability {p['p_uneven']} when there are racks), racks drawn from {p['rack_choices']}; "
                    f"{racked['uneven'].mean():.0%} of the {len(racked):,} clusters with racks have racks of "
                    f"different sizes")
        elif job == "connect":
            text = (f"Connect clusters of {p['min_workers']}-{p['max_workers']} workers running 1-"
                    f"{p['max_connectors']} connectors of 1-{p['max_tasks']} tasks; a worker away "
                    f"{p['min_away_ms'] / 1000:.0f}-{p['max_away_ms'] / 1000:.0f} s, or a connector added")
        elif job == "share":
            text = (f"share groups of 1-{p['max_members']} members, 1-{p['max_topics']} topics of 1-"
                    f"{p['max_partitions']} partitions; heterogeneous subscriptions with probability "
                    f"{p['heterogeneous']}")
        else:  # pragma: no cover - every job is listed above
            text = ""
        rows.append({"job": job, "scale": f"{r.scale:,}", "seed": r.seed, "scenarios": text})
    return pd.DataFrame(rows).set_index("job")


def replay_incomplete(seed: int, incomplete: pd.DataFrame, max_rounds: int = 12,
                      params: Optional[SweepParams | Dict[str, object]] = None) -> pd.DataFrame:
    """The sweep's incomplete groups replayed past the sweep's cap: per scenario, the rebalance in which
    every wanted partition had an owner (``None`` if none within ``max_rounds``), and, for a group that
    never settles, the period after which the assignments repeat (rebalance ``n`` hands out exactly the
    assignment of rebalance ``n - period``)."""
    from .generators import SweepParams, sweep_scenario
    from .jobs import sweep as sweep_job

    params = check_params(params, SweepParams).check()
    out = []
    for row in incomplete.itertuples(index=False):
        scenario = sweep_scenario(seed, int(row.scenario), params)
        first = consumer_assign(row.assignor, scenario.partitions, scenario.members,
                                       partition_racks=scenario.partition_racks or None)
        steps = sweep_job.churn_steps(scenario, row.assignor, first, max_rounds=max_rounds)
        settled = steps[-1]["round"] if steps[-1]["assigned"] >= steps[-1]["expected"] else None
        period = None
        if settled is None:
            assignments = [st["assignment"] for st in steps]
            period = next((k for k in range(1, len(steps) // 2 + 1)
                           if all(assignments[i] == assignments[i - k] for i in range(len(steps) - k, len(steps)))
                           ), None)
        out.append({"scenario": int(row.scenario), "assignor": row.assignor, "rebalances replayed": len(steps),
                    "settles in rebalance": settled, "repeats every": period,
                    "most partitions assigned": f"{max(st['assigned'] for st in steps)}/{steps[-1]['expected']}"})
    frame = pd.DataFrame(out, columns=["scenario", "assignor", "rebalances replayed", "settles in rebalance",
                                       "repeats every", "most partitions assigned"])
    for column in ("settles in rebalance", "repeats every"):  # whole numbers, <NA> where there is none
        frame[column] = frame[column].astype("Int64")
    return frame.set_index("scenario")
