"""The Spark jobs: ``sweep``, ``coordinator``, ``montecarlo``, ``placement``.

Each module has ``run(spark, scale, seed=0, out=None, params=None) -> JobResult``.
"""
from __future__ import annotations

from types import ModuleType

JOBS = ("sweep", "coordinator", "montecarlo", "placement")


def get_job(name: str) -> ModuleType:
    """The job module called ``name``."""
    import importlib

    from ...errors import require

    require(name in JOBS, "job", f"must be one of {', '.join(JOBS)}, got {name!r}")
    return importlib.import_module(f"{__name__}.{name}")
