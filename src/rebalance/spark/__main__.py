"""Command line: ``python -m rebalance.spark JOB [--scale N] [--master URL] [--out DIR] [--seed S]
[--params JSON] [--config JSON]``.

``JOB`` is ``sweep`` (N consumer-group scenarios through every assignor), ``coordinator`` (N group ids
hashed to ``__consumer_offsets`` partitions and brokers), ``montecarlo`` (N simulated rolling restarts and
failures), ``placement`` (N topic creations placed by Kafka's replica placers), ``connect`` (N Kafka
Connect clusters with a worker bounce or a new connector), ``share`` (N share groups assigned by
``SimpleAssignor``) or ``streams`` (N Kafka Streams scale-outs, probing rebalances until balanced per
``max.warmup.replicas``).  Without ``--scale`` each job runs at the size
of :data:`~rebalance.spark.jobs.DEFAULT_SCALE` (about a minute on two local cores).  ``--config`` overrides
the simulators' settings by field name (``montecarlo``: ``ProtocolConfig``/``KIP848Config`` fields;
``connect``: ``max_delay_ms``).  With ``--master`` or ``SPARK_MASTER`` the same job runs on a cluster.  A progress bar over Spark's stages goes to stderr; the
summary tables go to stdout, and every table is written as Parquet under ``--out`` (default
``spark-results``).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from typing import List, Optional

import pandas as pd

from ..errors import InputError
from .jobs import DEFAULT_SCALE, JOBS, get_job


#: the jobs whose parameters take ``config``: settings of the simulators they run
CONFIGURABLE = ("montecarlo", "connect")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m rebalance.spark", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("job", choices=JOBS, help="which experiment to run")
    p.add_argument("--scale", type=int, default=None,
                   help="scenarios (sweep), group ids (coordinator), simulations (montecarlo), topics (placement), "
                        "clusters (connect), share groups (share); default: " + ", ".join(f"{j} {n:,}" for j, n in DEFAULT_SCALE.items()))
    p.add_argument("--master", default=None, help="Spark master URL (default: $SPARK_MASTER, else local[*])")
    p.add_argument("--cores", type=int, default=None, help="local mode only: use local[CORES]")
    p.add_argument("--out", default="spark-results", help="output folder or URL for the Parquet tables")
    p.add_argument("--seed", type=int, default=0, help="experiment seed (same seed, same numbers)")
    p.add_argument("--params", default=None,
                   help='job parameters as JSON, e.g. \'{"partition_counts": [50, 100]}\'')
    p.add_argument("--config", default=None,
                   help='simulator settings as JSON, e.g. \'{"session_timeout_ms": 30000}\' (montecarlo, connect)')
    p.add_argument("--assignors", default=None, help="sweep only: comma-separated assignors to run")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: Optional[List[str]] = None) -> int:
    args = _parser().parse_args(argv)
    loaded = {}
    for name in ("params", "config"):
        text = getattr(args, name)
        try:
            loaded[name] = json.loads(text) if text else None
        except json.JSONDecodeError as exc:
            print(f"error: --{name}: not valid JSON ({exc})", file=sys.stderr)
            return 2
    params = loaded["params"]
    if loaded["config"] is not None:
        if args.job not in CONFIGURABLE:
            print(f"error: --config: only {' and '.join(CONFIGURABLE)} simulate settings", file=sys.stderr)
            return 2
        if not isinstance(params, (dict, type(None))):
            print("error: --params: must be a JSON object", file=sys.stderr)
            return 2
        params = {**(params or {}), "config": loaded["config"]}
    scale = DEFAULT_SCALE[args.job] if args.scale is None else args.scale
    from .progress import stage_progress
    from .session import get_spark

    kwargs = {}
    if args.assignors:
        if args.job != "sweep":
            print("error: --assignors: only the sweep job takes assignors", file=sys.stderr)
            return 2
        kwargs["assignors"] = tuple(a.strip() for a in args.assignors.split(",") if a.strip())
    try:
        job = get_job(args.job)
        spark = get_spark(app_name=f"rebalance-{args.job}", master=args.master, cores=args.cores)
        started = time.perf_counter()
        with stage_progress(spark, args.job, enabled=not args.no_progress):
            result = job.run(spark, scale, seed=args.seed, out=args.out, params=params, **kwargs)
        elapsed = time.perf_counter() - started
    except InputError as exc:
        print(f"error: {exc.field}: {exc.message}", file=sys.stderr)
        return 2
    except NotImplementedError as exc:
        print(f"not available: {exc}", file=sys.stderr)
        return 3
    with pd.option_context("display.width", 200, "display.max_columns", 30, "display.max_rows", 60):
        for name, frame in result.tables.items():
            if len(frame) > 40:  # per-scenario / per-broker tables: only in Parquet
                print(f"== {args.job}/{name}: {len(frame)} rows (Parquet only)")
                continue
            print(f"== {args.job}/{name}")
            print(frame.to_string(index=False))
            print()
    print(f"{args.job}: scale {scale}, seed {args.seed}, {elapsed:.1f} s on {spark.sparkContext.master}; "
          f"tables written under {args.out}/{args.job}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
