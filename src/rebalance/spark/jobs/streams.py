"""Kafka Streams at scale: how many probing rebalances a scale-out needs, by ``max.warmup.replicas``.

Each scenario (:func:`streams_scenario`) is a settled Kafka Streams application -- 2 to ``max_clients`` clients
(random process ids, 1 to ``max_threads`` stream threads each), 1 to 3 subtopologies over 2 to
``max_partitions`` input partitions (every task stateful), ``num.standby.replicas`` 0 or 1 -- and a scale-out:
1 to ``max_new`` new clients with no state join.  The rebalance this causes and every probing rebalance after it
are computed by the book's :class:`rebalance.streams.HighAvailabilityTaskAssignor` (Kafka 4.3.1, exact) through
:func:`rebalance.streams.client.experiment.probing_rounds`, once per ``max.warmup.replicas`` of ``params.warmups``,
assuming every warm-up has caught up by the next probing rebalance.

Per (scenario, max.warmup.replicas) a row: clients, new clients, tasks, standbys, the probing rebalances until the
assignor needs none (the assignment is then the balanced one), warm-ups handed out, active tasks moved, and
whether it settled within 100 rebalances.  ``summary``: per ``max.warmup.replicas``, the mean, 90th percentile
and largest number of probing rebalances, and the time until balanced at the default
``probing.rebalance.interval.ms`` (10 minutes).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, Iterable, List, Optional, Tuple, Union

import pandas as pd

from ...common import JsonRecord
from ...streams.client import AssignmentConfigs, probing_rounds, random_process_ids, tasks_of
from ...validation import require
from ..generators import check_params, require_choices, require_whole, scenario_rng
from .common import JobResult, columns_of, lower_quantile, run_rows_job, scenario_rows_df

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

#: the random stream of this job's scenarios (the generators' streams are 1 to 5)
STREAM_STREAMS = 6
#: ``probing.rebalance.interval.ms``'s default (``StreamsConfig``): 10 minutes
DEFAULT_PROBING_INTERVAL_MS = 600_000

ROW_SCHEMA = ("scenario long, max_warmup_replicas int, clients int, new_clients int, tasks int, standbys int, "
              "probing_rebalances int, warmups int, moved_actives int, settled boolean")
ROW_COLUMNS = columns_of(ROW_SCHEMA)


@dataclass(frozen=True)
class StreamsParams:
    """The ranges the scenarios are drawn from (bounds inclusive) and the ``max.warmup.replicas`` compared."""

    max_clients: int = 8  #: clients (Streams instances) running before the scale-out, from 2
    max_new: int = 3  #: clients that join, from 1
    max_threads: int = 2  #: stream threads of a client (its capacity), from 1
    max_partitions: int = 24  #: input partitions of a subtopology (its tasks), from 2
    warmups: Tuple[int, ...] = (1, 2, 4, 8)  #: the max.warmup.replicas settings each scenario is run with

    def check(self) -> "StreamsParams":
        require_whole(self, ("max_clients", "max_new", "max_threads", "max_partitions"))
        require(self.max_clients >= 2, "params.max_clients", "must be >= 2")
        require(self.max_partitions >= 2, "params.max_partitions", "must be >= 2")
        require_choices(self, ("warmups",))  # max.warmup.replicas values
        return self


@dataclass
class StreamsScenario:
    index: int
    clients: int
    new_clients: int
    threads: List[int]
    subtopologies: int
    partitions: int
    standbys: int


def streams_scenario(seed: int, index: int, params: StreamsParams = StreamsParams()) -> StreamsScenario:
    """Scenario ``index`` of ``seed``."""
    rng = scenario_rng(seed, STREAM_STREAMS, index)
    clients = rng.randint(2, params.max_clients)
    new = rng.randint(1, params.max_new)
    return StreamsScenario(index, clients, new, [rng.randint(1, params.max_threads) for _ in range(clients + new)],
                           rng.randint(1, 3), rng.randint(2, params.max_partitions), rng.randint(0, 1))


def evaluate(seed: int, scenario: StreamsScenario, max_warmup_replicas: int) -> JsonRecord:
    """One row: ``scenario``'s scale-out under ``max_warmup_replicas``."""
    pids = random_process_ids(scenario.clients + scenario.new_clients, seed * 1_000_003 + scenario.index)
    caps = dict(zip(pids, scenario.threads))
    tasks = tasks_of(scenario.subtopologies, scenario.partitions)
    configs = AssignmentConfigs(acceptable_recovery_lag=10_000, max_warmup_replicas=max_warmup_replicas,
                                num_standby_replicas=scenario.standbys)
    rounds = probing_rounds(pids[:scenario.clients], pids, tasks, configs, caps)
    return {"scenario": scenario.index, "max_warmup_replicas": max_warmup_replicas, "clients": scenario.clients,
            "new_clients": scenario.new_clients, "tasks": len(tasks), "standbys": scenario.standbys,
            "probing_rebalances": len(rounds) - 1 if not rounds[-1].probing_rebalance_needed else len(rounds),
            "warmups": sum(r.warmup_count() for r in rounds), "moved_actives": sum(r.moved_actives for r in rounds),
            "settled": not rounds[-1].probing_rebalance_needed}


def rows_frame(rows: Iterable[JsonRecord]) -> pd.DataFrame:
    frame = pd.DataFrame(list(rows), columns=ROW_COLUMNS)
    for c in ROW_COLUMNS:
        frame[c] = frame[c].astype("bool" if c == "settled" else "int64")
    return frame


def evaluate_range(seed: int, indexes: Iterable[int], params: StreamsParams) -> pd.DataFrame:
    """The rows of scenarios ``indexes`` (runs on an executor; also the plain local implementation)."""
    rows = []
    for i in indexes:
        sc = streams_scenario(seed, int(i), params)
        for w in params.warmups:
            rows.append(evaluate(seed, sc, w))
    return rows_frame(rows)


def rows_df(spark: "SparkSession", n: int, seed: int = 0, params: Optional[Union[StreamsParams, JsonRecord]] = None
            ) -> "DataFrame":
    return scenario_rows_df(spark, n, seed, check_params(params, StreamsParams).check(), evaluate_range, ROW_SCHEMA)


def tables_from_rows(rows: pd.DataFrame) -> Dict[str, pd.DataFrame]:
    """``summary`` per ``max.warmup.replicas``; the rows in (scenario, max.warmup.replicas) order."""
    rows = rows_frame(rows.to_dict("records")).sort_values(["scenario", "max_warmup_replicas"]).reset_index(drop=True)
    out = []
    for w, g in rows.groupby("max_warmup_replicas", sort=True):
        n = len(g)
        out.append({"max_warmup_replicas": int(w), "scenarios": n,
                    "mean_probing_rebalances": g["probing_rebalances"].sum() / n,
                    "p90_probing_rebalances": lower_quantile(g["probing_rebalances"], 0.9),
                    "max_probing_rebalances": int(g["probing_rebalances"].max()),
                    "no_probing_needed": int((g["probing_rebalances"] == 0).sum()),
                    "mean_minutes_to_balance": g["probing_rebalances"].sum() / n * DEFAULT_PROBING_INTERVAL_MS / 60_000,
                    "mean_warmups": g["warmups"].sum() / n, "mean_moved_actives": g["moved_actives"].sum() / n,
                    "unsettled": int((~g["settled"]).sum())})
    return {"summary": pd.DataFrame(out), "rows": rows}


def run(spark: "SparkSession", scale: int, seed: int = 0, out: Optional[str] = None,
        params: Optional[Union[StreamsParams, JsonRecord]] = None) -> JobResult:
    """``scale`` scale-outs under every ``max.warmup.replicas``; rows and summary returned (and written)."""
    params = check_params(params, StreamsParams).check()
    return run_rows_job(spark, "streams", scale, seed, out, params, rows_df(spark, scale, seed, params),
                        tables_from_rows)
