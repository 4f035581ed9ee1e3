"""Scenario sweep: every consumer assignor on many generated consumer groups.

For each scenario of :func:`rebalance.spark.generators.sweep_scenario` and each assignor (``range``,
``roundrobin``, ``sticky``, ``cooperative-sticky``: Kafka 4.3.1's ``RangeAssignor``,
``RoundRobinAssignor``, ``StickyAssignor`` and ``CooperativeStickyAssignor``, called through
:func:`rebalance.consumer.assign`) the job records:

* the first assignment's balance: largest and smallest member load, their difference (``spread``), the
  sticky assignors' balance score (``GeneralAssignmentBuilder.getBalanceScore``: the sum of pairwise load
  differences) and the number of idle members (members that got no partition);
* rack locality (KIP-881): how many assigned partitions have a replica in their consumer's rack;
* churn: one member leaves; the survivors rejoin with their owned partitions and generation 1.  Eager
  assignors finish in one rebalance; for cooperative-sticky, partitions that change owner are first
  revoked and only handed out in a follow-up rebalance, so the job keeps rebalancing (owned = the last
  assignment, generation + 1) until every partition is assigned, and counts the rounds.  ``moved`` is the
  number of partitions whose owner differs after the churn; ``orphaned`` the leaver's partitions (which must
  move; a partition of a topic only the leaver subscribed to is dropped and counts in neither);
  ``extra_moves = moved - orphaned`` the partitions taken from members that stayed.

The summaries answer "how often does Range leave a consumer idle?" and "how many partitions does each
assignor move when one member leaves?"; ``moves_histogram`` and ``rounds_histogram`` count groups by
partitions taken from members that stayed and by rebalances needed after the departure.  The per-group
rows (one per scenario and assignor) are returned as ``rows`` up to :data:`KEEP_ROWS` of them (or as
``keep_rows`` says), and are always in Parquet under ``out/sweep/rows`` when the job writes its tables.
"""
from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Dict, Iterable, List, Optional, Sequence, Tuple

import pandas as pd

if TYPE_CHECKING:  # pyspark is the Spark extra; imported where a session is used
    from pyspark.sql import DataFrame, SparkSession

from ...common import JsonRecord, TopicPartition
from ...consumer import ASSIGNORS as CONSUMER_ASSIGNORS
from ...consumer import assign as consumer_assign
from ...consumer.abstract_sticky import balance_score
from ...consumer.api import build_scenario
from ...consumer.rounds import rebalance_rounds
from ...validation import require
from ..generators import GroupScenario, SweepParams, check_params, sweep_scenario
from .common import JobResult, check_seed, columns_of, scenario_rows_df, stage_rows, write_outputs

#: every built-in consumer assignor, from the consumer registry
ASSIGNORS: Tuple[str, ...] = tuple(CONSUMER_ASSIGNORS)
#: at most this many rebalances after the churn.  Cooperative-sticky usually needs 2, but with racks Kafka's
#: own assignor (checked at commit 1eb7644) can need more or never settle (see
#: tests/consumer/test_cooperative_cycle.py); such groups are reported as incomplete.
MAX_ROUNDS = 5
#: ``run`` returns the per-group rows when there are at most this many (unless ``keep_rows`` says otherwise)
KEEP_ROWS = 100_000

ROW_SCHEMA = ("scenario long, assignor string, members int, topics int, partitions int, identical boolean, "
              "racks int, max_load int, min_load int, spread int, idle_members int, balance_score long, "
              "rack_local int, orphaned int, moved int, extra_moves int, rounds int, unowned_between int, "
              "spread_after int, idle_after int, complete boolean")
ROW_COLUMNS = columns_of(ROW_SCHEMA)


def _loads(assignment: Dict[str, List[TopicPartition]]) -> List[int]:
    return [len(tps) for tps in assignment.values()]


def _complete(scenario: GroupScenario, members: Dict[str, JsonRecord], assignment: Dict[str, List[TopicPartition]]) -> bool:
    """Every partition of a subscribed topic assigned exactly once, and only to a subscriber."""
    seen = set()
    for member, tps in assignment.items():
        topics = set(members[member]["topics"])
        for tp in tps:
            if tp in seen or tp[0] not in topics:
                return False
            seen.add(tp)
    wanted = {t for m in members.values() for t in m["topics"]}
    return len(seen) == sum(scenario.partitions[t] for t in wanted)


def _owners(assignment: Dict[str, List[TopicPartition]]) -> Dict[TopicPartition, str]:
    return {tp: m for m, tps in assignment.items() for tp in tps}


def churn_steps(scenario: GroupScenario, assignor: str, first: Dict[str, List[TopicPartition]],
                max_rounds: int = MAX_ROUNDS) -> List[JsonRecord]:
    """The rebalances after ``scenario.leaver`` leaves a group that holds ``first``: the survivors rejoin
    owning what they had (generation 1, then 2, ...; :func:`rebalance.consumer.rounds.rebalance_rounds`) until
    every partition they subscribe to is assigned, or ``max_rounds`` rebalances.  One dict per rebalance:
    ``round``, ``assignment``, ``assigned``, ``expected``, and the partitions each member ``revoked``/``gained``
    compared with what it owned."""
    survivors = {m: {**spec, "owned": list(first[m]), "generation": 1}
                 for m, spec in scenario.members.items() if m != scenario.leaver}
    still_wanted = {t for spec in survivors.values() for t in spec["topics"]}
    expected = sum(scenario.partitions[t] for t in still_wanted)
    results = rebalance_rounds(build_scenario(assignor, scenario.partitions, survivors,
                                              partition_racks=scenario.partition_racks or None),
                               max_rounds=max_rounds)
    current = {m: spec["owned"] for m, spec in survivors.items()}
    steps: List[JsonRecord] = []
    for number, result in enumerate(results, 1):
        nxt = {m: list(result.assignment.get(m, [])) for m in survivors}
        steps.append({
            "round": number, "assignment": nxt, "assigned": sum(_loads(nxt)), "expected": expected,
            "revoked": {m: sorted(set(current[m]) - set(nxt[m])) for m in nxt if set(current[m]) - set(nxt[m])},
            "gained": {m: sorted(set(nxt[m]) - set(current[m])) for m in nxt if set(nxt[m]) - set(current[m])},
        })
        current = nxt
    return steps


def churn_table(seed: int, index: int, assignor: str, params: Optional[SweepParams | Dict[str, object]] = None,
                max_rounds: int = MAX_ROUNDS) -> pd.DataFrame:
    """Scenario ``index`` of the sweep replayed one rebalance at a time after its member leaves: per round,
    partitions assigned out of those wanted, and what each member gave up and received."""
    params = check_params(params, SweepParams).check()
    sc = sweep_scenario(check_seed(seed), index, params)
    first = consumer_assign(assignor, sc.partitions, sc.members, partition_racks=sc.partition_racks or None)
    short = {m: m.rsplit("-", 1)[0] for m in sc.members}

    def fmt(changes: Dict[str, List[TopicPartition]]) -> str:
        return "; ".join(f"{short[m]}: " + " ".join(f"{t}-{p}" for t, p in tps) for m, tps in sorted(changes.items()))

    return pd.DataFrame([{"rebalance": st["round"], "assigned": f"{st['assigned']}/{st['expected']}",
                          "revoked": fmt(st["revoked"]), "gained": fmt(st["gained"])}
                         for st in churn_steps(sc, assignor, first, max_rounds)])


def evaluate_scenario(scenario: GroupScenario, assignors: Sequence[str] = ASSIGNORS) -> List[JsonRecord]:
    """The sweep's rows for one scenario (one row per assignor).  Runs on an executor; the plain-Python
    benchmark baseline (:mod:`rebalance.spark.single_process`) calls it too."""
    racks = scenario.partition_racks or None
    rows = []
    for assignor in assignors:
        members = scenario.members
        first = consumer_assign(assignor, scenario.partitions, members, partition_racks=racks)
        loads = _loads(first)
        complete = _complete(scenario, members, first)
        rack_local = 0
        if racks:
            for m, tps in first.items():
                rack = members[m]["rack"]
                rack_local += sum(1 for t, p in tps if rack in racks[t][p])

        # churn: the leaver is gone, the others rejoin owning what they had (generation 1, 2, ...)
        before = _owners(first)
        survivors_specs = {m: spec for m, spec in members.items() if m != scenario.leaver}
        steps = churn_steps(scenario, assignor, first)
        current, expected = steps[-1]["assignment"], steps[-1]["expected"]
        assigned, rounds = steps[-1]["assigned"], len(steps)
        unowned_between = sum(st["expected"] - st["assigned"] for st in steps[:-1])
        after = _owners(current)
        complete = complete and assigned == expected and _complete(scenario, survivors_specs, current)
        # a partition of a topic nobody subscribes to any more is dropped, not moved
        moved = sum(1 for tp, m in before.items() if tp in after and after[tp] != m)
        orphaned = sum(1 for tp in first[scenario.leaver] if tp in after)
        loads_after = _loads(current)
        rows.append({
            "scenario": scenario.index, "assignor": assignor, "members": len(members),
            "topics": len(scenario.partitions), "partitions": scenario.total_partitions,
            "identical": scenario.identical_subscriptions, "racks": scenario.racks,
            "max_load": max(loads), "min_load": min(loads), "spread": max(loads) - min(loads),
            "idle_members": sum(1 for x in loads if x == 0), "balance_score": balance_score(loads),
            "rack_local": rack_local, "orphaned": orphaned, "moved": moved, "extra_moves": moved - orphaned,
            "rounds": rounds, "unowned_between": unowned_between,
            "spread_after": max(loads_after) - min(loads_after),
            "idle_after": sum(1 for x in loads_after if x == 0), "complete": complete,
        })
    return rows


def check_assignors(assignors: Iterable[str]) -> Tuple[str, ...]:
    """``assignors`` as a tuple, each one of :data:`ASSIGNORS` (an ``InputError`` naming ``assignors`` otherwise)."""
    assignors = tuple(assignors)
    for a in assignors:
        require(a in ASSIGNORS, "assignors", f"unknown assignor {a!r} (known: {', '.join(ASSIGNORS)})")
    return assignors


def rows_frame(rows: Iterable[JsonRecord]) -> pd.DataFrame:
    frame = pd.DataFrame(list(rows), columns=ROW_COLUMNS)
    ints = [c for c in ROW_COLUMNS if c not in ("assignor", "identical", "complete")]
    frame[ints] = frame[ints].astype("int64")
    return frame


def evaluate_range(seed: int, indexes: Iterable[int], params: SweepParams,
                   assignors: Sequence[str] = ASSIGNORS) -> pd.DataFrame:
    rows: List[JsonRecord] = []
    for i in indexes:
        rows.extend(evaluate_scenario(sweep_scenario(seed, int(i), params), assignors))
    return rows_frame(rows)


def rows_df(spark: SparkSession, n: int, seed: int = 0, params: Optional[SweepParams | Dict[str, object]] = None,
            assignors: Sequence[str] = ASSIGNORS, slices: Optional[int] = None) -> DataFrame:
    """The per-(scenario, assignor) rows as a Spark DataFrame (scenarios ``0..n-1``)."""
    return scenario_rows_df(spark, n, seed, check_params(params, SweepParams).check(), evaluate_range, ROW_SCHEMA,
                            per_slice=250, slices=slices, assignors=check_assignors(assignors))


# ---- summaries (computed in Spark as exact integer sums, finished in pandas) -------------------------

def _aggregate(df: "DataFrame", keys: List[str]) -> "DataFrame":
    from pyspark.sql import functions as F

    return df.groupBy(*keys).agg(
        F.count("*").alias("scenarios"),
        F.sum((F.col("idle_members") > 0).cast("long")).alias("with_idle"),
        F.sum((F.col("partitions") >= F.col("members")).cast("long")).alias("enough_partitions"),
        F.sum(((F.col("idle_members") > 0) & (F.col("partitions") >= F.col("members"))).cast("long"))
        .alias("idle_despite_enough"),
        F.sum("spread").alias("sum_spread"),
        F.sum("balance_score").alias("sum_balance_score"),
        F.sum((F.col("spread") <= 1).cast("long")).alias("balanced"),
        F.sum("moved").alias("sum_moved"),
        F.sum("orphaned").alias("sum_orphaned"),
        F.sum("extra_moves").alias("sum_extra_moves"),
        F.sum((F.col("extra_moves") == 0).cast("long")).alias("no_extra_moves"),
        F.sum("rounds").alias("sum_rounds"),
        F.sum("unowned_between").alias("sum_unowned_between"),
        F.sum(F.when(F.col("racks") > 0, F.col("rack_local")).otherwise(0)).alias("rack_local"),
        F.sum(F.when(F.col("racks") > 0, F.col("partitions")).otherwise(0)).alias("rack_partitions"),
        F.sum((~F.col("complete")).cast("long")).alias("incomplete"),
    )


def finish_summary(agg: pd.DataFrame, keys: List[str]) -> pd.DataFrame:
    """Turn the integer sums into the reported rates and means (same code for Spark and plain Python)."""
    agg = agg.sort_values(keys, key=lambda s: s.map(_order_key) if s.name == "assignor" else s).reset_index(drop=True)
    out = agg[keys + ["scenarios"]].copy()
    n = agg["scenarios"].astype(float)
    out["p_idle"] = agg["with_idle"] / n
    out["p_idle_despite_enough"] = agg["idle_despite_enough"] / agg["enough_partitions"].where(agg["enough_partitions"] > 0)
    out["p_balanced"] = agg["balanced"] / n
    out["mean_spread"] = agg["sum_spread"] / n
    out["mean_balance_score"] = agg["sum_balance_score"].astype(float) / n
    out["mean_moved"] = agg["sum_moved"] / n
    out["mean_orphaned"] = agg["sum_orphaned"] / n
    out["mean_extra_moves"] = agg["sum_extra_moves"] / n
    out["p_no_extra_moves"] = agg["no_extra_moves"] / n
    out["mean_rounds"] = agg["sum_rounds"] / n
    out["mean_unowned_between"] = agg["sum_unowned_between"] / n
    out["rack_local_share"] = agg["rack_local"] / agg["rack_partitions"].where(agg["rack_partitions"] > 0)
    out["incomplete"] = agg["incomplete"].astype("int64")
    return out


def _order_key(assignor: str) -> int:
    return ASSIGNORS.index(assignor) if assignor in ASSIGNORS else len(ASSIGNORS)


SUMMARIES = {"by_assignor": ["assignor"], "by_subscriptions": ["assignor", "identical"]}


def summaries_from_pandas(rows: pd.DataFrame) -> Dict[str, pd.DataFrame]:
    """The same summaries from a pandas frame of rows (the plain-Python path)."""
    out = {}
    for name, keys in SUMMARIES.items():
        g = rows.assign(with_idle=rows.idle_members > 0, enough_partitions=rows.partitions >= rows.members,
                        balanced=rows.spread <= 1, no_extra_moves=rows.extra_moves == 0,
                        incomplete=~rows.complete.astype(bool),
                        rack_local_r=rows.rack_local.where(rows.racks > 0, 0),
                        rack_partitions=rows.partitions.where(rows.racks > 0, 0))
        g["idle_despite_enough"] = g.with_idle & g.enough_partitions
        agg = g.groupby(keys).agg(
            scenarios=("scenario", "size"), with_idle=("with_idle", "sum"),
            enough_partitions=("enough_partitions", "sum"), idle_despite_enough=("idle_despite_enough", "sum"),
            sum_spread=("spread", "sum"), sum_balance_score=("balance_score", "sum"), balanced=("balanced", "sum"), sum_moved=("moved", "sum"),
            sum_orphaned=("orphaned", "sum"), sum_extra_moves=("extra_moves", "sum"),
            no_extra_moves=("no_extra_moves", "sum"), sum_rounds=("rounds", "sum"),
            sum_unowned_between=("unowned_between", "sum"), rack_local=("rack_local_r", "sum"),
            rack_partitions=("rack_partitions", "sum"), incomplete=("incomplete", "sum")).reset_index()
        out[name] = finish_summary(agg, keys)
    out.update(histograms(rows.assign(scenarios=1)))
    return out


def histograms(counts: pd.DataFrame) -> Dict[str, pd.DataFrame]:
    """``moves_histogram`` (groups per assignor and partitions taken from members that stayed) and
    ``rounds_histogram`` (groups per assignor and rebalances needed after the departure) from a frame with
    those columns and a ``scenarios`` count per row."""
    out = {}
    for name, column in (("moves_histogram", "extra_moves"), ("rounds_histogram", "rounds")):
        hist = counts.groupby(["assignor", column])["scenarios"].sum().reset_index()
        hist[column] = hist[column].astype("int64")
        hist["scenarios"] = hist["scenarios"].astype("int64")
        out[name] = hist.sort_values(["assignor", column], key=lambda s: s.map(_order_key)
                                     if s.name == "assignor" else s).reset_index(drop=True)
    return out


FINEST = ["assignor", "identical", "extra_moves", "rounds"]


def summaries_from_sums(fine: pd.DataFrame) -> Dict[str, pd.DataFrame]:
    """Every summary from integer sums at the finest key (assignor, identical, extra_moves, rounds): sums
    of sums are exact, so this equals :func:`summaries_from_pandas` on the rows."""
    sums = [c for c in fine.columns if c not in FINEST]
    out = {}
    for name, keys in SUMMARIES.items():
        agg = fine.groupby(keys)[sums].sum().reset_index()
        out[name] = finish_summary(agg, keys)
    out.update(histograms(fine))
    return out


def summaries_from_spark(df: DataFrame) -> Dict[str, pd.DataFrame]:
    """The summaries of a Spark DataFrame of rows: one aggregation in Spark, the rest in pandas."""
    return summaries_from_sums(_aggregate(df, FINEST).toPandas())


INCOMPLETE_COLUMNS = ["scenario", "assignor", "members", "partitions", "racks", "identical", "rounds"]


def incomplete_table(rows: pd.DataFrame) -> pd.DataFrame:
    """The groups in which some wanted partition had no owner after :data:`MAX_ROUNDS` rebalances."""
    return (rows.loc[~rows["complete"].astype(bool), INCOMPLETE_COLUMNS]
            .sort_values(["scenario", "assignor"]).reset_index(drop=True))


def sorted_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """The per-group rows in scenario order, assignors in :data:`ASSIGNORS` order."""
    return rows.sort_values(["scenario", "assignor"], key=lambda s: s.map(_order_key) if s.name == "assignor"
                            else s).reset_index(drop=True)


def tables_from_rows(rows: pd.DataFrame) -> Dict[str, pd.DataFrame]:
    """Every table of the job from its per-group rows (the plain local implementation)."""
    rows = sorted_rows(rows_frame(rows.to_dict("records")))
    return {**summaries_from_pandas(rows), "incomplete": incomplete_table(rows), "rows": rows}


def run(spark: SparkSession, scale: int, seed: int = 0, out: Optional[str] = None,
        params: Optional[SweepParams | Dict[str, object]] = None,
        assignors: Sequence[str] = ASSIGNORS, keep_rows: Optional[bool] = None) -> JobResult:
    """Sweep ``scale`` scenarios; rows to ``out/sweep/rows`` (if ``out``), summaries returned and written.
    The per-group rows come back as the ``rows`` table when ``keep_rows`` (default: when there are at most
    :data:`KEEP_ROWS` of them)."""
    params = check_params(params, SweepParams).check()
    assignors = check_assignors(assignors)
    keep = keep_rows if keep_rows is not None else scale * len(assignors) <= KEEP_ROWS
    df = rows_df(spark, scale, seed, params, assignors)
    # Two actions follow (the summaries and the rows or incomplete scenarios): the rows are staged as
    # Parquet, or cached, so that Spark does not evaluate every scenario twice.
    cached = not out
    df = df.persist() if cached else stage_rows(spark, df, out, "sweep")
    tables = summaries_from_spark(df)
    if keep:
        collected: pd.DataFrame = df.toPandas()
        rows = sorted_rows(rows_frame(collected.to_dict("records")))
        tables["incomplete"], tables["rows"] = incomplete_table(rows), rows
    else:
        unfinished: pd.DataFrame = df.filter(~df.complete).toPandas()
        tables["incomplete"] = incomplete_table(rows_frame(unfinished.to_dict("records")))
    for frame in tables.values():
        if "scenarios" in frame:
            frame["scenarios"] = frame["scenarios"].astype("int64")
    if cached:
        df.unpersist()
    params_meta = {**asdict(params), "assignors": list(assignors)}
    result = JobResult("sweep", scale, seed, params_meta, tables)
    # with ``out`` the rows are already in Parquet
    written = {k: v for k, v in tables.items() if not (out and k == "rows")}
    write_outputs(spark, JobResult("sweep", scale, seed, params_meta, written), out)
    return result
