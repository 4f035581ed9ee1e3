"""Kafka Connect at scale: worker bounces and connector additions under eager and incremental cooperative.

Each scenario of :func:`rebalance.spark.generators.connect_scenario` is a steady Connect cluster (3 to 20
workers, 1 to 60 connectors with the same ``tasks.max``) and one change, replayed round by round by
:class:`rebalance.connect.cluster.ConnectCluster` (the leader's ``EagerAssignor`` or
``IncrementalCooperativeAssignor`` of Kafka 4.3.1 and the ``DistributedHerder`` follow-ups modelled on
Kafka's source at commit 1eb7644, trunk before 4.0), through the
connect area's own experiment functions:

* ``worker-bounce`` -- ``worker-01`` leaves and comes back empty ``away_ms`` later
  (:func:`rebalance.connect.experiment.bounce_rounds`).  Eager rebalances twice and stops every task
  each time.  Incremental cooperative holds the departed worker's work back for
  ``scheduled.rebalance.max.delay.ms`` (``max_delay_ms``, 5 min by default): back in time, the worker gets
  it again without a stop elsewhere; away longer, the work goes to the others when the delay expires;
* ``connector-added`` -- a new connector is written to the config topic, then its task configs, so two
  rebalances as ``DistributedHerder`` runs them (the ``rebalances_per_addition=2`` reading of
  :func:`rebalance.connect.experiment.start_stop`), each settled with the herder's follow-ups.

Per (scenario, assignor) the rows hold the rounds (and follow-ups), task and connector stops and starts
(:class:`rebalance.connect.experiment.PhaseCounts`), the largest stop in one round, the task-seconds in which
a configured task ran on no worker (between rounds, on the herder's clock), the time from the change to the
last round, and whether every task ended up running exactly once.

``params.config`` overrides the cluster settings by name: any keyword of
:func:`rebalance.connect.experiment.steady_cluster` the scenario does not draw (``max_delay_ms``), so a
setting added there works here without a change.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

import pandas as pd

from ...common import JsonRecord
from ...connect.assignor import ASSIGNOR_NAMES
from ...connect.cluster import RoundResult
from ...connect.experiment import PhaseCounts, bounce_rounds, steady_cluster
from ...connect.incremental import DEFAULT_MAX_DELAY_MS
from ...errors import InputError
from ...validation import require
from ..generators import ConnectParams, ConnectScenario, check_params, connect_scenario, require_subset
from .common import JobResult, columns_of, lower_quantile, run_rows_job, scenario_rows_df

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

#: the leader's assignors compared: ``eager`` (``connect.protocol=eager``) and ``incremental`` (KIP-415)
ASSIGNORS: Tuple[str, ...] = tuple(ASSIGNOR_NAMES)
#: the scenario's own keywords of ``steady_cluster``; every other keyword is a setting ``config`` may override
_DRAWN = ("assignor", "n_workers", "n_connectors", "tasks_per_connector")

ROW_SCHEMA = ("scenario long, event string, assignor string, workers int, connectors int, tasks int, "
              "away_ms long, new_tasks int, max_delay_ms long, back_within_delay boolean, rebalances int, "
              "follow_ups int, task_stops int, connector_stops int, task_starts int, connector_starts int, "
              "max_task_stops_in_round int, unassigned_task_seconds double, time_to_settle_ms long, "
              "complete boolean")
ROW_COLUMNS = columns_of(ROW_SCHEMA)


def setting_names() -> Tuple[str, ...]:
    """The cluster settings ``params.config`` may override (keywords of ``steady_cluster`` not drawn)."""
    return tuple(n for n in inspect.signature(steady_cluster).parameters if n not in _DRAWN)


@dataclass(frozen=True)
class ConnectJobParams(ConnectParams):
    """The scenario ranges of :class:`~rebalance.spark.generators.ConnectParams`, the assignors compared and
    overrides of the cluster settings."""

    assignors: Tuple[str, ...] = ASSIGNORS
    #: ``{setting: value}``, e.g. ``{"max_delay_ms": 60000}`` (``scheduled.rebalance.max.delay.ms``)
    config: Mapping[str, Any] = field(default_factory=dict)

    def check(self) -> "ConnectJobParams":
        super().check()
        require_subset(self, "assignors", ASSIGNORS)
        require(isinstance(self.config, Mapping), "params.config", "must be a mapping of setting names to values")
        known = setting_names()
        for key in self.config:
            require(key in known, f"params.config.{key}", f"unknown setting (known: {', '.join(known)})")
        try:  # the cluster validates every value, naming the setting
            steady_cluster("incremental", n_workers=1, n_connectors=0, **self.config)
        except InputError as exc:
            raise InputError(f"params.config.{exc.field}", exc.message) from None
        return self

    def max_delay_ms(self) -> int:
        return int(self.config.get("max_delay_ms", DEFAULT_MAX_DELAY_MS))


def replay(scenario: ConnectScenario, assignor: str, config: Optional[Mapping[str, Any]] = None
           ) -> List[RoundResult]:
    """Every rebalance round from the change until the cluster is quiet again."""
    kw: Dict[str, Any] = dict(n_workers=len(scenario.workers), n_connectors=len(scenario.connectors),
              tasks_per_connector=next(iter(scenario.connectors.values())), **(config or {}))
    if scenario.event == "worker-bounce":
        return bounce_rounds(assignor, scenario.away_ms, **kw)[0]
    cluster = steady_cluster(assignor, **kw)
    workers = list(cluster.running)
    rounds: List[RoundResult] = []
    for tasks in (0, scenario.new_tasks):  # the connector's config, then its task configs
        cluster.connectors[scenario.new_connector] = tasks
        r = cluster.rebalance(cluster.carried_members(workers))
        rounds += [r] + cluster.settle(r)
    return rounds


def unassigned_task_seconds(rounds: List[RoundResult]) -> float:
    """Task-seconds, from the first round to the last, in which a configured task ran on no worker."""
    total = 0
    for r, nxt in zip(rounds, rounds[1:]):
        running = sum(len(w.all_tasks) for w in r.workers.values())
        total += (sum(r.connectors.values()) - running) * (nxt.time_ms - r.time_ms)
    return total / 1000.0


def _complete(last: RoundResult) -> bool:
    tasks = [t for w in last.workers.values() for t in w.all_tasks]
    return len(tasks) == len(set(tasks)) == sum(last.connectors.values())


def evaluate(scenario: ConnectScenario, assignor: str, config: Optional[Mapping[str, Any]] = None,
             max_delay_ms: int = DEFAULT_MAX_DELAY_MS) -> JsonRecord:
    """One row of the job: ``scenario`` replayed under ``assignor``."""
    rounds = replay(scenario, assignor, config)
    counts = PhaseCounts()
    for r in rounds:
        counts.add(r)
    c = counts.summary()
    return {
        "scenario": scenario.index, "event": scenario.event, "assignor": assignor,
        "workers": len(scenario.workers), "connectors": len(scenario.connectors), "tasks": scenario.tasks,
        "away_ms": scenario.away_ms, "new_tasks": scenario.new_tasks, "max_delay_ms": max_delay_ms,
        "back_within_delay": scenario.away_ms <= max_delay_ms, "rebalances": c["rebalances"],
        "follow_ups": c["follow_ups"], "task_stops": c["task_stops"], "connector_stops": c["connector_stops"],
        "task_starts": c["task_starts"], "connector_starts": c["connector_starts"],
        "max_task_stops_in_round": c["max_task_stops_in_round"],
        "unassigned_task_seconds": unassigned_task_seconds(rounds),
        "time_to_settle_ms": rounds[-1].time_ms - rounds[0].time_ms, "complete": _complete(rounds[-1]),
    }


def rows_frame(rows: Iterable[JsonRecord]) -> pd.DataFrame:
    frame = pd.DataFrame(list(rows), columns=ROW_COLUMNS)
    for c in ROW_COLUMNS:
        if c in ("event", "assignor"):
            continue
        kind = "bool" if c in ("back_within_delay", "complete") else (
            "float64" if c == "unassigned_task_seconds" else "int64")
        frame[c] = frame[c].astype(kind)
    return frame


def evaluate_range(seed: int, indexes: Iterable[int], params: ConnectJobParams) -> pd.DataFrame:
    """The rows of scenarios ``indexes``, every assignor each (runs on an executor; also the plain local
    implementation)."""
    rows = []
    for i in indexes:
        sc = connect_scenario(seed, int(i), params)
        for assignor in params.assignors:
            rows.append(evaluate(sc, assignor, params.config, params.max_delay_ms()))
    return rows_frame(rows)


def rows_df(spark: "SparkSession", n: int, seed: int = 0, params: Optional[Union[ConnectJobParams, JsonRecord]] = None
            ) -> "DataFrame":
    """The per-(scenario, assignor) rows as a Spark DataFrame (scenarios ``0..n-1``)."""
    return scenario_rows_df(spark, n, seed, check_params(params, ConnectJobParams).check(), evaluate_range,
                            ROW_SCHEMA)


def _summary(rows: pd.DataFrame, keys: List[str]) -> pd.DataFrame:
    order = {"event": ("worker-bounce", "connector-added"), "assignor": ASSIGNORS, "back_within_delay": (True, False)}
    out = []
    groups = sorted(rows.groupby(keys), key=lambda kv: tuple(order[k].index(v) for k, v in zip(keys, kv[0])))
    for key, g in groups:
        n = len(g)
        out.append({
            **dict(zip(keys, key)), "scenarios": n, "mean_tasks": g["tasks"].sum() / n,
            "mean_rebalances": g["rebalances"].sum() / n, "mean_follow_ups": g["follow_ups"].sum() / n,
            "mean_task_stops": g["task_stops"].sum() / n, "p90_task_stops": lower_quantile(g["task_stops"], 0.9),
            "share_of_tasks_stopped": g["task_stops"].sum() / g["tasks"].sum(),
            "mean_max_stops_in_round": g["max_task_stops_in_round"].sum() / n,
            "mean_unassigned_task_s": g["unassigned_task_seconds"].sum() / n,
            "p90_unassigned_task_s": lower_quantile(g["unassigned_task_seconds"], 0.9),
            "mean_time_to_settle_s": g["time_to_settle_ms"].sum() / n / 1000.0,
            "incomplete": int((~g["complete"]).sum()),
        })
    return pd.DataFrame(out)


def tables_from_rows(rows: pd.DataFrame) -> Dict[str, pd.DataFrame]:
    """``summary`` per (event, assignor); ``bounces`` per (assignor, back within the delay or not); the
    rows in (scenario, assignor) order.  The same for Spark and the local loop."""
    rows = rows_frame(rows.to_dict("records")).sort_values(
        ["scenario", "assignor"], key=lambda s: s.map(ASSIGNORS.index) if s.name == "assignor" else s
    ).reset_index(drop=True)
    bounces = rows[rows["event"] == "worker-bounce"]
    return {"summary": _summary(rows, ["event", "assignor"]),
            "bounces": _summary(bounces, ["assignor", "back_within_delay"]), "rows": rows}


def run(spark: "SparkSession", scale: int, seed: int = 0, out: Optional[str] = None,
        params: Optional[Union[ConnectJobParams, JsonRecord]] = None) -> JobResult:
    """Replay ``scale`` Connect clusters' changes under every assignor; rows and summaries returned (and
    written)."""
    params = check_params(params, ConnectJobParams).check()
    return run_rows_job(spark, "connect", scale, seed, out, params, rows_df(spark, scale, seed, params),
                        tables_from_rows)
