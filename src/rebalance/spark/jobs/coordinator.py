"""Coordinator hot spots: millions of group ids hashed to ``__consumer_offsets`` partitions and brokers.

A consumer group's coordinator is the leader of partition ``Utils.abs(groupId.hashCode()) %
offsets.topic.num.partitions`` of ``__consumer_offsets`` (``GroupCoordinatorService.partitionFor``,
Kafka 4.3.1).  This job generates ``n`` realistic group ids inside Spark
(:func:`rebalance.spark.generators.group_ids`), hashes them with the vectorised ``String.hashCode``
(:mod:`rebalance.spark.hashing`), and counts groups and offset commits per partition for several
partition counts at once.  The driver then maps partitions to their leader brokers for several cluster
sizes and reports how uneven the coordinators' load is.

Outputs (pandas, and Parquet under ``out``):

* ``partition_load``: ``num_partitions, partition, groups, commits_per_s``;
* ``broker_load``: ``num_partitions, brokers, broker, offsets_partitions, groups, commits_per_s``;
* ``summary``: per ``(num_partitions, brokers)``: the hottest broker's share of groups and of commits
  relative to a perfectly even spread (1.0 = even), and the same for partitions.

With racks (``rack_counts`` other than ``(0,)``, and a real placer), broker ``i`` sits in rack
``r{i mod racks}``, the offsets topic is placed rack-aware, and both tables gain a ``racks`` key (and
``broker_load`` a ``rack`` column; ``summary`` the hottest rack's commits per broker relative to an even
spread, ``max_rack_commits_vs_even``).  Without racks the tables keep their rack-free shape.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Dict, Iterable, Iterator, List, Optional, Tuple

import numpy as np
import pandas as pd

if TYPE_CHECKING:  # pyspark is the Spark extra; imported where a session is used
    from pyspark.sql import DataFrame, SparkSession

from ...common import JsonRecord
from ...validation import require
from ..generators import check_params, group_ids, require_choices, require_whole
from ..hashing import java_abs_array, string_hash_array
from .common import JobResult, ship_package, check_scale, write_outputs

PARTITION_SCHEMA = "num_partitions int, partition int, groups long, commits_per_s double"


@dataclass(frozen=True)
class CoordinatorParams:
    #: values of ``offsets.topic.num.partitions`` to compare (Kafka's default is 50)
    partition_counts: Tuple[int, ...] = (10, 25, 50, 100, 200)
    #: cluster sizes (number of brokers leading ``__consumer_offsets`` partitions)
    broker_counts: Tuple[int, ...] = (3, 6, 12)
    #: Pareto shape of the per-group offset-commit rate (smaller = heavier tail)
    commit_alpha: float = 1.2
    #: group ids generated per Spark row (one Arrow batch of work)
    chunk: int = 200_000
    #: who leads each ``__consumer_offsets`` partition: ``"simple"`` (partition p on broker p mod n, the
    #: preferred leader AdminUtils gives with start index 0), or the replicas area's placement of the
    #: offsets topic at creation with ``"AdminUtils"`` (random start) or ``"StripedReplicaPlacer"`` (KRaft)
    placer: str = "simple"
    #: seeds the placer's ``java.util.Random`` (ignored by ``"simple"``)
    placer_seed: int = 0
    #: numbers of racks to spread the brokers over (0 = no rack ids); each is compared on every cluster size
    rack_counts: Tuple[int, ...] = (0,)


def _check(params: CoordinatorParams) -> CoordinatorParams:
    require_choices(params, ("partition_counts", "broker_counts"))
    require(params.commit_alpha > 0, "params.commit_alpha", "must be > 0")
    require_whole(params, ("chunk",))
    require(params.placer in PLACERS, "params.placer", f"must be one of {', '.join(PLACERS)}, got {params.placer!r}")
    require_choices(params, ("rack_counts",), minimum=0)
    require(params.placer != "simple" or set(params.rack_counts) == {0}, "params.rack_counts",
            "racks need a rack-aware placer: set params.placer to 'AdminUtils' or 'StripedReplicaPlacer'")
    return params


PLACERS = ("simple", "AdminUtils", "StripedReplicaPlacer")


def count_chunk(seed: int, start: int, stop: int, params: CoordinatorParams) -> pd.DataFrame:
    """Groups and commits per ``(num_partitions, partition)`` for group ids ``start..stop-1`` (runs on an
    executor; also the plain-Python reference for tests)."""
    ids, commits = group_ids(seed, start, stop, params.commit_alpha)
    positive = java_abs_array(string_hash_array(ids))
    frames = []
    for p in params.partition_counts:
        part = positive % p
        frames.append(pd.DataFrame({
            "num_partitions": np.full(p, p, dtype=np.int32),
            "partition": np.arange(p, dtype=np.int32),
            "groups": np.bincount(part, minlength=p).astype(np.int64),
            "commits_per_s": np.bincount(part, weights=commits, minlength=p),
        }))
    return pd.concat(frames, ignore_index=True)


def partition_load_df(spark: SparkSession, n: int, seed: int = 0, params: Optional[CoordinatorParams] = None
                      ) -> DataFrame:
    """A Spark DataFrame ``num_partitions, partition, groups, commits_per_s`` for ``n`` group ids."""
    params = _check(check_params(params, CoordinatorParams))
    n = check_scale(n)
    ship_package(spark)
    chunk = params.chunk
    n_chunks = max(1, -(-n // chunk))
    slices = min(n_chunks, 64)

    def run(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for batch in batches:
            for c in batch["id"].tolist():
                yield count_chunk(seed, c * chunk, min(n, (c + 1) * chunk), params)

    counts = spark.range(0, n_chunks, numPartitions=slices).mapInPandas(run, PARTITION_SCHEMA)
    return (counts.groupBy("num_partitions", "partition")
            .agg({"groups": "sum", "commits_per_s": "sum"})
            .withColumnRenamed("sum(groups)", "groups")
            .withColumnRenamed("sum(commits_per_s)", "commits_per_s"))


def cluster_brokers(brokers: int, racks: int = 0) -> List[JsonRecord]:
    """Brokers ``0..brokers-1``, broker ``i`` in rack ``r{i mod racks}`` (no rack ids when ``racks`` is 0)."""
    return [{"id": i, "rack": f"r{i % racks}" if racks else None} for i in range(brokers)]


def offsets_leaders(num_partitions: int, brokers: int, placer: str = "simple", seed: int = 0, racks: int = 0
                    ) -> Dict[int, int]:
    """Leader broker of every ``__consumer_offsets`` partition on a cluster of brokers ``0..brokers-1``
    (in ``racks`` racks, see :func:`cluster_brokers`).

    ``"simple"`` uses the coordinator module's documented placement
    (:func:`rebalance.protocol.coordinator.simple_leaders`: partition ``p`` led by broker ``p mod brokers``),
    which is also where ``AdminUtils.assignReplicasToBrokers`` puts the first replica (the preferred
    leader) of partition ``p`` for a rack-unaware cluster with start index 0.  ``"AdminUtils"`` and
    ``"StripedReplicaPlacer"`` place the offsets topic (replication factor ``min(3, brokers)``) with
    :func:`rebalance.replicas.coordinators.place_offsets_topic`, rack-aware when there are racks, and take
    each partition's first replica.
    """
    if placer == "simple":
        from ...protocol.coordinator import simple_leaders

        return simple_leaders(num_partitions, list(range(brokers)))
    from ...replicas.coordinators import place_offsets_topic

    placed = place_offsets_topic(cluster_brokers(brokers, racks), placer, seed=seed, num_partitions=num_partitions,
                                 replication_factor=min(3, brokers))
    return {int(p): reps[0] for p, reps in placed.items()}


def broker_load(partition_load: pd.DataFrame, broker_counts: Iterable[int], placer: str = "simple", seed: int = 0,
                rack_counts: Iterable[int] = (0,)) -> pd.DataFrame:
    """Offsets partitions led, groups and commits per broker, per ``(num_partitions, brokers[, racks])``."""
    rack_counts = tuple(rack_counts)
    racked = set(rack_counts) != {0}
    rows = []
    for p, part in partition_load.groupby("num_partitions", sort=True):
        for b in broker_counts:
            for r in rack_counts:
                leaders = offsets_leaders(int(p), int(b), placer, seed, int(r))
                frame = part.assign(broker=part["partition"].map(leaders))
                agg = frame.groupby("broker").agg(offsets_partitions=("partition", "size"), groups=("groups", "sum"),
                                                  commits_per_s=("commits_per_s", "sum"))
                agg = agg.reindex(range(b), fill_value=0).reset_index()
                if racked:
                    agg.insert(1, "rack", [x["rack"] for x in cluster_brokers(int(b), int(r))])
                    agg.insert(0, "racks", int(r))
                agg.insert(0, "brokers", int(b))
                agg.insert(0, "num_partitions", int(p))
                rows.append(agg)
    return pd.concat(rows, ignore_index=True)


def summarize(partition_load: pd.DataFrame, brokers: pd.DataFrame) -> pd.DataFrame:
    """Per ``(num_partitions, brokers[, racks])``: the busiest broker, partition (and rack) against an even
    spread."""
    keys = ["num_partitions", "brokers"] + (["racks"] if "racks" in brokers else [])
    out = []
    for key, frame in brokers.groupby(keys, sort=True):
        part = partition_load[partition_load["num_partitions"] == key[0]]
        row: Dict[str, float] = dict(zip(keys, (int(k) for k in key)))
        row.update({
            "groups": int(frame["groups"].sum()),
            "max_broker_groups_vs_even": frame["groups"].max() / frame["groups"].mean(),
            "max_broker_commits_vs_even": frame["commits_per_s"].max() / frame["commits_per_s"].mean(),
            "max_partition_groups_vs_even": part["groups"].max() / part["groups"].mean(),
            "max_partition_commits_vs_even": part["commits_per_s"].max() / part["commits_per_s"].mean(),
            "empty_partitions": int((part["groups"] == 0).sum()),
        })
        if "racks" in keys and not row["racks"]:
            row["max_rack_commits_vs_even"] = float("nan")
        elif "racks" in keys:
            per_rack = frame.groupby(frame["rack"].fillna("-"))["commits_per_s"].agg(["sum", "size"])
            per_broker = per_rack["sum"] / per_rack["size"]
            row["max_rack_commits_vs_even"] = per_broker.max() / frame["commits_per_s"].mean()
        out.append(row)
    return pd.DataFrame(out)


def tables(partition_load: pd.DataFrame, params: CoordinatorParams) -> Dict[str, pd.DataFrame]:
    """Every table of the job from the per-partition counts (the same for Spark and the local loop)."""
    partition_load["num_partitions"] = partition_load["num_partitions"].astype("int64")
    partition_load["partition"] = partition_load["partition"].astype("int64")
    brokers = broker_load(partition_load, params.broker_counts, params.placer, params.placer_seed, params.rack_counts)
    return {"partition_load": partition_load, "broker_load": brokers, "summary": summarize(partition_load, brokers)}


def run(spark: SparkSession, scale: int, seed: int = 0, out: Optional[str] = None,
        params: Optional[CoordinatorParams | Dict[str, object]] = None) -> JobResult:
    """Hash ``scale`` group ids; return (and write) ``partition_load``, ``broker_load`` and ``summary``."""
    params = _check(check_params(params, CoordinatorParams))
    collected: pd.DataFrame = partition_load_df(spark, scale, seed, params).toPandas()
    partition_load = collected.sort_values(["num_partitions", "partition"]).reset_index(drop=True)
    result = JobResult("coordinator", scale, seed, asdict(params), tables(partition_load, params))
    write_outputs(spark, result, out)
    return result
