"""Share groups at scale: ``SimpleAssignor`` (KIP-932, Kafka 4.3.1) over thousands of random share groups.

Each scenario ``(seed, index)`` draws a share group: 1 to ``max_members`` members, 1 to ``max_topics`` topics of
1 to ``max_partitions`` partitions, and, with probability ``heterogeneous``, per-member subscriptions (each
member a random non-empty subset of the topics) instead of every member subscribing to every topic.  The
group's first target assignment is computed by :func:`rebalance.share.assign_share_group` (``SimpleAssignor``,
Kafka's ``HashMap`` member order, every partition initialized).  Per scenario the row holds the sizes, the
subscription type, the partitions per member (min, max), the members per partition (min, max), the
partitions no member got, the members that got nothing, and whether every partition's sharing is within one of
``desiredSharing = ceil(members / partitions)`` of the homogeneous builder (the heterogeneous builder sets it
per topic).
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, Iterable, List, Optional, Union

import pandas as pd

from ...common import JsonRecord, TopicPartition
from ...validation import require
from ..generators import check_params, require_whole
from .common import JobResult, columns_of, run_rows_job, scenario_rows_df

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

ROW_SCHEMA = ("scenario long, subscription string, members int, topics int, partitions int, "
              "min_partitions_per_member int, max_partitions_per_member int, min_members_per_partition int, "
              "max_members_per_partition int, unassigned_partitions int, idle_members int, "
              "shared_partitions int, within_one_of_desired boolean")
ROW_COLUMNS = columns_of(ROW_SCHEMA)
SUBSCRIPTIONS = ("homogeneous", "heterogeneous")


@dataclass(frozen=True)
class ShareJobParams:
    """The ranges the share groups are drawn from: each bound is inclusive, from 1 up."""

    max_members: int = 20  #: members of a group
    max_topics: int = 3  #: topics of a group
    max_partitions: int = 12  #: partitions of a topic
    heterogeneous: float = 0.5  #: the chance that the members subscribe to different topics (with 2+ topics)

    def check(self) -> "ShareJobParams":
        require_whole(self, ("max_members", "max_topics", "max_partitions"), maximum=1000)
        require(isinstance(self.heterogeneous, (int, float)) and 0 <= self.heterogeneous <= 1,
                "params.heterogeneous", f"must be a probability in [0, 1], got {self.heterogeneous!r}")
        return self


def share_scenario(seed: int, index: int, params: ShareJobParams) -> JsonRecord:
    """Scenario ``index`` of ``seed``: ``{"topics": {name: partitions}, "members": [{id, subscriptions}],
    "heterogeneous": bool}`` (its own ``random.Random``, so any executor draws the same)."""
    rng = random.Random(f"share:{seed}:{index}")
    topics = {f"t{i}": rng.randint(1, params.max_partitions) for i in range(rng.randint(1, params.max_topics))}
    n = rng.randint(1, params.max_members)
    hetero = len(topics) > 1 and rng.random() < params.heterogeneous
    names = sorted(topics)
    members = []
    for m in range(n):
        subs = sorted(rng.sample(names, rng.randint(1, len(names)))) if hetero else names
        members.append({"id": f"member-{m:03d}", "subscriptions": subs})
    return {"topics": topics, "members": members, "heterogeneous": hetero}


def evaluate(index: int, scenario: JsonRecord) -> JsonRecord:
    """One row: the scenario's first target assignment and its balance."""
    from ...share.group import assign_share_group

    topics, members = scenario["topics"], scenario["members"]
    result = assign_share_group(topics, members).by_name()
    per_member = {m["id"]: sum(len(ps) for ps in result.get(m["id"], {}).values()) for m in members}
    sharing: Dict[TopicPartition, int] = {(t, p): 0 for t in topics for p in range(topics[t])}
    for a in result.values():
        for t, ps in a.items():
            for p in ps:
                sharing[(t, p)] += 1
    subscribed = {(t, p) for (t, p) in sharing if any(t in m["subscriptions"] for m in members)}
    counts = [sharing[k] for k in subscribed]
    within = True
    for t in topics:
        subs = sum(1 for m in members if t in m["subscriptions"])
        if subs == 0:
            continue
        if not scenario["heterogeneous"]:
            desired = math.ceil(len(members) / sum(topics.values()))
        else:
            desired = math.ceil(subs / topics[t])
        within = within and all(abs(sharing[(t, p)] - desired) <= 1 for p in range(topics[t]))
    return {
        "scenario": index, "subscription": "heterogeneous" if scenario["heterogeneous"] else "homogeneous",
        "members": len(members), "topics": len(topics), "partitions": sum(topics.values()),
        "min_partitions_per_member": min(per_member.values()), "max_partitions_per_member": max(per_member.values()),
        "min_members_per_partition": min(counts) if counts else 0,
        "max_members_per_partition": max(counts) if counts else 0,
        "unassigned_partitions": sum(1 for c in counts if c == 0),
        "idle_members": sum(1 for v in per_member.values() if v == 0),
        "shared_partitions": sum(1 for c in counts if c > 1), "within_one_of_desired": within,
    }


def rows_frame(rows: Iterable[JsonRecord]) -> pd.DataFrame:
    frame = pd.DataFrame(list(rows), columns=ROW_COLUMNS)
    for c in ROW_COLUMNS:
        if c == "subscription":
            continue
        frame[c] = frame[c].astype("bool" if c == "within_one_of_desired" else "int64")
    return frame


def evaluate_range(seed: int, indexes: Iterable[int], params: ShareJobParams) -> pd.DataFrame:
    """The rows of scenarios ``indexes`` (runs on an executor; also the plain local implementation)."""
    return rows_frame(evaluate(int(i), share_scenario(seed, int(i), params)) for i in indexes)


def rows_df(spark: "SparkSession", n: int, seed: int = 0, params: Optional[Union[ShareJobParams, JsonRecord]] = None
            ) -> "DataFrame":
    return scenario_rows_df(spark, n, seed, check_params(params, ShareJobParams).check(), evaluate_range, ROW_SCHEMA,
                            per_slice=200)


def tables_from_rows(rows: pd.DataFrame) -> Dict[str, pd.DataFrame]:
    """``summary`` per subscription type and whether the group has more members than partitions; the rows in
    scenario order.  The same for Spark and the local loop."""
    rows = rows_frame(rows.to_dict("records")).sort_values("scenario").reset_index(drop=True)
    rows_more = rows["members"] > rows["partitions"]
    out: List[JsonRecord] = []
    for sub in SUBSCRIPTIONS:
        for more in (False, True):
            g = rows[(rows["subscription"] == sub) & (rows_more == more)]
            if not len(g):
                continue
            n = len(g)
            out.append({
                "subscription": sub, "more_members_than_partitions": more, "groups": n,
                "share_with_shared_partitions": float((g["shared_partitions"] > 0).mean()),
                "mean_max_members_per_partition": float(g["max_members_per_partition"].mean()),
                "mean_spread_partitions_per_member": float((g["max_partitions_per_member"]
                                                            - g["min_partitions_per_member"]).mean()),
                "groups_with_idle_members": int((g["idle_members"] > 0).sum()),
                "groups_with_unassigned_partitions": int((g["unassigned_partitions"] > 0).sum()),
                "share_within_one_of_desired": float(g["within_one_of_desired"].mean()),
            })
    return {"summary": pd.DataFrame(out), "rows": rows}


def run(spark: "SparkSession", scale: int, seed: int = 0, out: Optional[str] = None,
        params: Optional[Union[ShareJobParams, JsonRecord]] = None) -> JobResult:
    """Assign ``scale`` random share groups with ``SimpleAssignor``; rows and summaries returned (and written)."""
    params = check_params(params, ShareJobParams).check()
    return run_rows_job(spark, "share", scale, seed, out, params, rows_df(spark, scale, seed, params),
                        tables_from_rows)
