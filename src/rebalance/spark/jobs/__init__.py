"""The Spark jobs: ``sweep``, ``coordinator``, ``montecarlo``, ``placement``, ``connect``, ``share``, ``streams``.

Each module has ``run(spark, scale, seed=0, out=None, params=None) -> JobResult``; :mod:`rebalance.spark.single_process`
computes the same tables without Spark.
"""
from __future__ import annotations

from types import ModuleType

JOBS = ("sweep", "coordinator", "montecarlo", "placement", "connect", "share", "streams")
#: the command line's scale when none is given: a minute or two each on two idle local cores (estimated
#: from the plain local loop's speed)
DEFAULT_SCALE = {"sweep": 5_000, "coordinator": 10_000_000, "montecarlo": 1_000, "placement": 20_000,
                 "connect": 5_000, "share": 20_000, "streams": 500}


def get_job(name: str) -> ModuleType:
    """The job module called ``name``."""
    import importlib

    from ...validation import require

    require(name in JOBS, "job", f"must be one of {', '.join(JOBS)}, got {name!r}")
    return importlib.import_module(f"{__name__}.{name}")
