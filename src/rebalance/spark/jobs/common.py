"""What every job returns and writes: named pandas tables plus the parameters that produced them."""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields, replace
from functools import partial
from typing import TYPE_CHECKING, Callable, Dict, Iterator, List, Mapping, Optional, Set, TypeVar

import pandas as pd

if TYPE_CHECKING:  # pyspark is the Spark extra; imported where a session is used
    from _typeshed import DataclassInstance
    from pyspark.sql import DataFrame, SparkSession

from ...common import JsonRecord
from ...errors import InputError
from ...validation import require

T = TypeVar("T", bound="DataclassInstance")  # a simulator's config dataclass


@dataclass
class JobResult:
    """The small summary tables of one job run (the large per-scenario tables stay in Spark/Parquet)."""

    job: str
    scale: int
    seed: int
    params: JsonRecord
    tables: Dict[str, pd.DataFrame] = field(default_factory=dict)

    def __getitem__(self, name: str) -> pd.DataFrame:
        return self.tables[name]

    def meta(self) -> pd.DataFrame:
        return pd.DataFrame([{"job": self.job, "scale": self.scale, "seed": self.seed,
                              "params": json.dumps(self.params, sort_keys=True, default=list)}])


def check_scale(scale: object) -> int:
    if not isinstance(scale, int) or isinstance(scale, bool) or scale < 1:
        raise InputError("scale", f"must be a whole number >= 1, got {scale!r}")
    return scale


def check_seed(seed: object) -> int:
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise InputError("seed", f"must be a whole number >= 0, got {seed!r}")
    return seed


def columns_of(schema: str) -> List[str]:
    """The column names of a Spark DDL schema string (``"a long, b string"`` -> ``["a", "b"]``)."""
    return [c.strip().split(" ")[0] for c in schema.split(",")]


def map_range(spark: SparkSession, n: int, slices: int, evaluate: Callable[[List[int]], pd.DataFrame],
              schema: str) -> DataFrame:
    """``spark.range(n)`` in ``slices`` partitions, each Arrow batch of row numbers turned into rows by
    ``evaluate`` (a picklable function of a list of indexes) on the executors, with the package shipped to a
    cluster first."""
    ship_package(spark)

    def run(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for batch in batches:
            yield evaluate(batch["id"].tolist())

    return spark.range(0, n, numPartitions=slices).mapInPandas(run, schema)


def scenario_rows_df(spark: SparkSession, n: int, seed: int, params: DataclassInstance,
                     evaluate_range: Callable[..., pd.DataFrame], schema: str, per_slice: int = 25,
                     slices: Optional[int] = None, **options: object) -> DataFrame:
    """The rows of scenarios ``0..n-1`` of ``seed`` as a Spark DataFrame: ``evaluate_range(seed, indexes,
    params=params, **options)`` on the executors, over ``slices`` partitions (by default one per ``per_slice``
    scenarios, 2 to 400).  ``params`` is already checked; ``n`` and ``seed`` are checked here."""
    n, seed = check_scale(n), check_seed(seed)
    slices = max(2, min(400, n // per_slice)) if slices is None else slices
    return map_range(spark, n, slices, partial(evaluate_range, seed, params=params, **options), schema)


def lower_quantile(values: pd.Series, q: float) -> float:
    """The ``q`` quantile of ``values`` without interpolation (numpy's ``method="lower"``: always a value that
    occurred), missing values left out; NaN when none is left."""
    import numpy as np

    values = values.dropna()
    return float(np.quantile(values.to_numpy(dtype=float), q, method="lower")) if len(values) else float("nan")


def run_rows_job(spark: SparkSession, job: str, scale: int, seed: int, out: Optional[str], params: DataclassInstance,
                 rows: DataFrame, tables_from_rows: Callable[[pd.DataFrame], Dict[str, pd.DataFrame]]) -> JobResult:
    """The end of a job whose tables all come from its rows: the rows staged as Parquet under ``out`` (if
    given), collected, turned into tables, and every table but the rows written."""
    tables = tables_from_rows(stage_rows(spark, rows, out, job).toPandas())
    meta = asdict(params)
    write_outputs(spark, JobResult(job, scale, seed, meta, {k: v for k, v in tables.items() if k != "rows"}), out)
    return JobResult(job, scale, seed, meta, tables)


def table_path(out: str, job: str, name: str) -> str:
    return f"{out.rstrip('/')}/{job}/{name}"


def stage_rows(spark: SparkSession, df: DataFrame, out: Optional[str], job: str) -> DataFrame:
    """With ``out``: write the job's rows as Parquet and return them read back, so every later action reads
    the file instead of recomputing the rows.  Without ``out``: ``df`` unchanged."""
    if not out:
        return df
    path = table_path(out, job, "rows")
    df.write.mode("overwrite").parquet(path)
    return spark.read.parquet(path)


def _is_local(out: str) -> bool:
    return "://" not in out or out.startswith("file://")


def write_outputs(spark: SparkSession, result: JobResult, out: Optional[str]) -> None:
    """Write every summary table (and ``_meta``) as Parquet under ``out/<job>/<table>/``.

    A local folder is written directly with pandas (the tables are small); a cluster file system URL
    (``hdfs://``, ``s3a://``) is written through Spark.  Either way each table is a folder that
    ``pandas.read_parquet`` and ``spark.read.parquet`` both read."""
    if not out:
        return
    for name, frame in list(result.tables.items()) + [("_meta", result.meta())]:
        path = table_path(out, result.job, name)
        if _is_local(out):
            local = path[len("file://"):] if path.startswith("file://") else path
            if os.path.isdir(local):
                for old in os.listdir(local):
                    if old.endswith(".parquet") or old.startswith(("_SUCCESS", ".")):
                        os.remove(os.path.join(local, old))
            os.makedirs(local, exist_ok=True)
            frame.to_parquet(os.path.join(local, "part-00000.parquet"), index=False)
        else:
            spark.createDataFrame(frame).coalesce(1).write.mode("overwrite").parquet(path)


def read_table(out: str, job: str, name: str) -> pd.DataFrame:
    """Read back one table written by a job (local folders only; pandas reads Spark's part files)."""
    path = table_path(out, job, name)
    require(os.path.isdir(path), "out", f"no table {name!r} of job {job!r} under {out!r}")
    return pd.read_parquet(path)


_SHIPPED: Set[int] = set()


def ship_package(spark: SparkSession) -> None:
    """On a cluster, make the ``rebalance`` package importable on the executors: zip the package the
    driver runs and ``addPyFile`` it once per SparkContext.  Local mode shares the driver's interpreter
    environment and needs nothing."""
    sc = spark.sparkContext
    if (sc.master or "").startswith("local") or id(sc) in _SHIPPED:
        return
    import tempfile
    import zipfile

    import rebalance

    root = os.path.dirname(os.path.abspath(rebalance.__file__))
    target = os.path.join(tempfile.mkdtemp(prefix="rebalance-pkg-"), "rebalance.zip")
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for name in files:
                if name.endswith((".py", ".properties", ".typed", ".json")):
                    full = os.path.join(folder, name)
                    zf.write(full, os.path.join("rebalance", os.path.relpath(full, root)))
    sc.addPyFile(target)
    _SHIPPED.add(id(sc))


def check_overrides(config: object, targets: Mapping[str, type], field: str = "params.config") -> Dict[str, object]:
    """``config`` as a dict of overrides of the dataclasses ``targets`` (``{prefix: class}``): each key is a
    field name of at least one of them, or ``"<prefix>.<field>"`` for one only.  An unknown key raises
    ``InputError`` naming it and listing the fields there are, so a field a simulator gains is accepted
    here without a change."""
    if config is None:
        return {}
    if not isinstance(config, Mapping):
        raise InputError(field, f"must be a mapping of field names to values, got {config!r}")
    known = {prefix: {f.name for f in fields(cls)} for prefix, cls in targets.items()}
    for key in config:
        require(isinstance(key, str) and key != "", field, f"keys must be field names, got {key!r}")
        prefix, _, name = key.rpartition(".")
        if prefix:
            require(prefix in known, f"{field}.{key}", f"unknown prefix {prefix!r} (known: {', '.join(known)})")
            require(name in known[prefix], f"{field}.{key}",
                    f"{targets[prefix].__name__} has no field {name!r} (fields: {', '.join(sorted(known[prefix]))})")
        else:
            require(any(name in names for names in known.values()), f"{field}.{key}",
                    "no such field in " + "; ".join(f"{targets[p].__name__} ({', '.join(sorted(n))})"
                                                   for p, n in known.items()))
    return dict(config)


def with_overrides(base: T, prefix: str, config: Mapping[str, object], field: str = "params.config") -> T:
    """The dataclass instance ``base`` with the fields ``config`` names for it replaced
    (``dataclasses.replace``): plain keys that are fields of ``base``, and ``"<prefix>.<field>"`` keys; a
    ``validate()`` method, if there is one, runs on the result and its ``InputError`` names the key."""
    names = {f.name for f in fields(base)}
    changes: Dict[str, object] = {}
    for key, value in config.items():
        scope, _, name = key.rpartition(".")
        if (scope == prefix or not scope) and name in names:
            changes[name] = value
    result = replace(base, **changes) if changes else base
    validate = getattr(result, "validate", None)
    if callable(validate):
        try:
            validate()
        except InputError as exc:
            name = exc.field.rpartition(".")[2]
            raise InputError(f"{field}.{name}", exc.message) from None
    return result
