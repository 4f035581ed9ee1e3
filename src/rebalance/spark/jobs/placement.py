"""Replica placement audit: many thousands of topic creations, per-broker and per-rack skew.

The ``scale`` topic creations are spread over clusters of :func:`rebalance.spark.generators.placement_cluster`
(``topics_per_cluster`` each: 3 to 12 brokers, no racks or 2-3 racks, sometimes one rack with an extra
broker).  Every cluster creates its topics in order twice, once with each of Kafka's placers from the
replicas area:

* ``AdminUtils`` -- ``AdminUtils.assignReplicasToBrokers`` (ZooKeeper-mode topic creation up to
  Kafka 3.9; gone from 4.1) with a random start index and shift, drawn from one ``java.util.Random`` per cluster;
* ``StripedReplicaPlacer`` -- the KRaft controller's placer, one instance and one ``java.util.Random``
  per cluster serving every creation in turn.

Per (cluster, placer) the job records the cluster-wide leader and replica counts of every broker after all
creations (skew = max - min; and the busiest broker relative to an even spread), the same per rack
normalised by the rack's broker count, and per-topic figures from the replicas area's ``balance``: mean
leader/replica skew within a topic and the topics with a partition on fewer racks than it could span.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Dict, Iterable, List, Optional, Tuple

import pandas as pd

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

from ...common import JsonRecord
from ...replicas.java_random import JavaRandom
from ...replicas.measures import balance
from ...replicas.placement import PlacementSpec
from ...replicas.placer import PLACERS as PLACER_REGISTRY, placer_for
from ..generators import (PlacementCluster, PlacementParams, check_params, placement_cluster, require_choices,
                          require_subset, require_whole)
from .common import JobResult, check_scale, check_seed, columns_of, map_range, run_rows_job

#: the placers the audit compares: every one of the registry (:data:`rebalance.replicas.placer.PLACERS`)
PLACERS: Tuple[str, ...] = tuple(PLACER_REGISTRY)

ROW_SCHEMA = ("cluster long, placer string, brokers int, racks int, uneven boolean, topics int, partitions long, "
              "replicas long, leader_skew int, replica_skew int, leader_max_vs_even double, "
              "replica_max_vs_even double, rack_replicas_per_broker_ratio double, mean_topic_leader_skew double, "
              "mean_topic_replica_skew double, topics_rack_short int, "
              "broker_leaders array<long>, broker_replicas array<long>")
ROW_COLUMNS = columns_of(ROW_SCHEMA)


@dataclass(frozen=True)
class PlacementAuditParams(PlacementParams):
    """The cluster ranges of :class:`~rebalance.spark.generators.PlacementParams`, the topics each cluster
    creates and the placers compared."""

    topics_per_cluster: int = 100
    placers: Tuple[str, ...] = PLACERS

    def check(self) -> "PlacementAuditParams":
        require_whole(self, ("topics_per_cluster", "max_partitions"))
        require_subset(self, "placers", PLACERS)
        require_choices(self, ("broker_choices", "replication_choices"))
        require_choices(self, ("rack_choices",), minimum=0)
        return self


def place_cluster(cluster: PlacementCluster, placer: str) -> List[Dict[int, List[int]]]:
    """Every topic of ``cluster`` placed in creation order by ``placer`` (a name of
    :data:`~rebalance.replicas.placer.PLACERS`; one placer and one ``JavaRandom(cluster.seed)`` for all the
    cluster's topics, as Kafka's static ``RAND`` and the controller's placer): one assignment
    (``{partition: [replicas, leader first]}``) per topic."""
    instance = placer_for(placer, JavaRandom(cluster.seed))
    brokers = [{"id": b["id"], "rack": b["rack"]} for b in cluster.brokers]
    return [instance.place(PlacementSpec(0, partitions, rf), brokers).as_mapping()
            for partitions, rf in cluster.topics]


def audit_cluster(cluster: PlacementCluster, placer: str) -> JsonRecord:
    """The audit row of one cluster under one placer."""
    placed = place_cluster(cluster, placer)
    broker_ids = [b["id"] for b in cluster.brokers]
    racks = {b["id"]: b["rack"] for b in cluster.brokers}
    leaders: Counter[int] = Counter()
    replicas: Counter[int] = Counter()
    leader_skews = replica_skews = 0
    rack_short = 0
    n_racks = cluster.racks
    for (partitions, rf), assignment in zip(cluster.topics, placed):
        for reps in assignment.values():
            leaders[reps[0]] += 1
            replicas.update(reps)
        b = balance(assignment, cluster.brokers)
        leader_skews += b.leader_skew
        replica_skews += b.replica_skew
        if n_racks and b.min_racks_per_partition < min(rf, n_racks):
            rack_short += 1
    lead = [leaders.get(i, 0) for i in broker_ids]
    reps = [replicas.get(i, 0) for i in broker_ids]
    n = len(broker_ids)
    ratio = float("nan")
    if n_racks:
        per_rack: Dict[Optional[str], Tuple[int, int]] = {}
        for i in broker_ids:
            total, count = per_rack.get(racks[i], (0, 0))
            per_rack[racks[i]] = (total + replicas.get(i, 0), count + 1)
        per_broker = [t / c for t, c in per_rack.values()]
        ratio = max(per_broker) / min(per_broker) if min(per_broker) > 0 else float("inf")
    sizes = Counter(r for r in racks.values() if r is not None)
    return {
        "cluster": cluster.index, "placer": placer, "brokers": n, "racks": n_racks,
        "uneven": bool(n_racks) and len(set(sizes.values())) > 1, "topics": len(cluster.topics),
        "partitions": sum(lead), "replicas": sum(reps),
        "leader_skew": max(lead) - min(lead), "replica_skew": max(reps) - min(reps),
        "leader_max_vs_even": max(lead) / (sum(lead) / n), "replica_max_vs_even": max(reps) / (sum(reps) / n),
        "rack_replicas_per_broker_ratio": ratio,
        "mean_topic_leader_skew": leader_skews / len(cluster.topics),
        "mean_topic_replica_skew": replica_skews / len(cluster.topics),
        "topics_rack_short": rack_short, "broker_leaders": lead, "broker_replicas": reps,
    }


def clusters_for(scale: int, topics_per_cluster: int) -> List[Tuple[int, int]]:
    """``(cluster index, topics)`` so that the clusters create ``scale`` topics in all."""
    full, rest = divmod(scale, topics_per_cluster)
    out = [(i, topics_per_cluster) for i in range(full)]
    if rest:
        out.append((full, rest))
    return out


def audit_range(seed: int, scale: int, cluster_indexes: Iterable[int], params: PlacementAuditParams
                ) -> pd.DataFrame:
    """The audit rows of the clusters ``cluster_indexes``, every placer of ``params.placers`` each."""
    plan = dict(clusters_for(scale, params.topics_per_cluster))
    rows = []
    for i in cluster_indexes:
        cluster = placement_cluster(seed, int(i), plan[int(i)], params)
        for placer in params.placers:
            rows.append(audit_cluster(cluster, placer))
    return pd.DataFrame(rows, columns=ROW_COLUMNS)


def rows_df(spark: "SparkSession", scale: int, seed: int = 0, params: object = None) -> "DataFrame":
    """Per-(cluster, placer) audit rows as a Spark DataFrame, for ``scale`` topic creations in all."""
    checked = check_params(params, PlacementAuditParams).check()
    scale, seed = check_scale(scale), check_seed(seed)
    n_clusters = len(clusters_for(scale, checked.topics_per_cluster))
    return map_range(spark, n_clusters, max(1, min(400, n_clusters // 2)),
                     partial(audit_range, seed, scale, params=checked), ROW_SCHEMA)


def setup_name(racks: int, uneven: bool) -> str:
    return "no racks" if racks == 0 else ("uneven racks" if uneven else "even racks")


def summarize(rows: pd.DataFrame) -> pd.DataFrame:
    """Means per (placer, rack set-up) over clusters."""
    frame = rows.assign(setup=[setup_name(r, u) for r, u in zip(rows["racks"], rows["uneven"])])
    order = {"no racks": 0, "even racks": 1, "uneven racks": 2}
    out = []
    for (placer, setup), g in sorted(frame.groupby(["placer", "setup"]),
                                     key=lambda kv: (PLACERS.index(kv[0][0]), order[kv[0][1]])):
        out.append({
            "placer": placer, "setup": setup, "clusters": len(g), "topics": int(g["topics"].sum()),
            "mean_leader_skew": g["leader_skew"].sum() / len(g),
            "mean_replica_skew": g["replica_skew"].sum() / len(g),
            "mean_leader_max_vs_even": g["leader_max_vs_even"].sum() / len(g),
            "mean_replica_max_vs_even": g["replica_max_vs_even"].sum() / len(g),
            "mean_rack_ratio": (g["rack_replicas_per_broker_ratio"].sum() / len(g)) if setup != "no racks"
            else float("nan"),
            "mean_topic_replica_skew": g["mean_topic_replica_skew"].sum() / len(g),
            "topics_rack_short": int(g["topics_rack_short"].sum()),
        })
    return pd.DataFrame(out)


def broker_table(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per (cluster, placer, broker): leaders and replicas, and the replicas relative to the
    cluster's even share."""
    recs = []
    for r in rows.itertuples(index=False):
        even = r.replicas / r.brokers
        for b, (lead, rep) in enumerate(zip(r.broker_leaders, r.broker_replicas)):
            recs.append({"cluster": r.cluster, "placer": r.placer, "setup": setup_name(r.racks, r.uneven),
                         "broker": b, "leaders": int(lead), "replicas": int(rep), "replicas_vs_even": rep / even})
    return pd.DataFrame(recs)


def tables_from_rows(rows: pd.DataFrame) -> Dict[str, pd.DataFrame]:
    """The job's tables from its cluster rows, in (cluster, placer) order (the same for Spark and the local
    loop)."""
    rows = rows.sort_values(["cluster", "placer"], key=lambda s: s.map(PLACERS.index)
                            if s.name == "placer" else s).reset_index(drop=True)
    rows["broker_leaders"] = rows["broker_leaders"].map(list)
    rows["broker_replicas"] = rows["broker_replicas"].map(list)
    return {"summary": summarize(rows), "brokers": broker_table(rows), "rows": rows}


def run(spark: "SparkSession", scale: int, seed: int = 0, out: Optional[str] = None, params: object = None
        ) -> JobResult:
    """Audit ``scale`` topic creations; cluster rows, per-broker table and summary returned (and written)."""
    checked = check_params(params, PlacementAuditParams).check()
    return run_rows_job(spark, "placement", scale, seed, out, checked, rows_df(spark, scale, seed, checked),
                        tables_from_rows)
