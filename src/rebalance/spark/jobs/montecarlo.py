"""Rebalance Monte Carlo: thousands of rolling restarts and failures under eager, cooperative and static.

Each scenario of :func:`rebalance.spark.generators.restart_scenario` (a group of 3 to 12 consumers, one or
two topics, and one disturbance: a rolling restart of every member, one member crashing and coming back,
or one member crashing for good) is replayed by the classic group protocol simulator
(:class:`rebalance.protocol.simulation.GroupSimulation`, which drives ``ClassicGroupCoordinator`` and
``ConsumerCoordinator`` behaviour of Kafka 3.8/3.9 on a virtual clock) under three set-ups:

* ``eager`` -- ``range`` assignor, eager protocol, dynamic members (every rebalance stops every partition);
* ``cooperative`` -- ``cooperative-sticky`` assignor, cooperative protocol (KIP-429): only partitions that
  move are revoked, in a second rebalance;
* ``static`` -- ``range`` with ``group.instance.id`` on every member (KIP-345): a member back within
  ``session.timeout.ms`` gets its old assignment without a rebalance.

Per run the simulator's own metrics are kept: whether the group settled, the time from the first fault to
the last change (``time_to_stable_ms``; for a rolling restart this includes the restarts themselves, so
``after_last_fault_ms`` also measures from the last member's return), partition-seconds with no owner, rebalances, partitions stopped
and moved, double ownership (two live members of the group owning a partition at once: always 0 if the
protocol is right) and zombie overlap (a partition given to a new owner while a process the coordinator
has already dropped still works on it, which Kafka allows until that process notices).  Summaries are distributions per
event and set-up.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Iterable, Iterator, Optional, Tuple, Union

import numpy as np
import pandas as pd

from ...errors import require
from ..generators import RestartParams, RestartScenario, check_params, restart_scenario
from .common import JobResult, ship_package, check_scale, check_seed, stage_rows, write_outputs

if TYPE_CHECKING:
    from pyspark.sql import DataFrame as SparkDataFrame, SparkSession

    from ...protocol.simulation import GroupSimulation

#: set-up name -> (assignor, rebalance protocol, static membership)
MODES = {
    "eager": ("range", "eager", False),
    "cooperative": ("cooperative-sticky", "cooperative", False),
    "static": ("range", "eager", True),
}
START_MS = 60_000     # the group has been stable for a minute when the first fault happens
SETTLE_MS = 150_000   # time after the last fault to let the group settle (> session timeout + rebalances)

ROW_SCHEMA = ("simulation long, event string, mode string, members int, partitions int, down_ms int, "
              "gap_ms int, revoke_ms int, network_ms int, settled boolean, time_to_stable_ms long, "
              "after_last_fault_ms long, "
              "unowned_partition_seconds double, rebalances int, partitions_stopped int, "
              "partitions_moved int, double_ownership int, zombie_overlap int")
ROW_COLUMNS = [c.strip().split(" ")[0] for c in ROW_SCHEMA.split(",")]


@dataclass(frozen=True)
class MonteCarloParams:
    modes: Tuple[str, ...] = ("eager", "cooperative", "static")
    min_members: int = 3
    max_members: int = 12
    max_partitions: int = 24
    events: Tuple[str, ...] = ("rolling-restart", "crash-restart", "crash")
    min_down_ms: int = 5_000
    max_down_ms: int = 60_000

    def restart_params(self) -> RestartParams:
        return RestartParams(min_members=self.min_members, max_members=self.max_members,
                             max_partitions=self.max_partitions, events=self.events,
                             min_down_ms=self.min_down_ms, max_down_ms=self.max_down_ms)

    def check(self) -> "MonteCarloParams":
        require(len(self.modes) > 0 and all(m in MODES for m in self.modes), "params.modes",
                f"must be a non-empty subset of {', '.join(MODES)}")
        require(len(self.events) > 0 and all(e in ("rolling-restart", "crash-restart", "crash")
                                             for e in self.events),
                "params.events", "must be a non-empty subset of rolling-restart, crash-restart, crash")
        require(isinstance(self.min_members, int) and 1 <= self.min_members <= self.max_members, "params.min_members",
                "must be a whole number between 1 and max_members")
        require(isinstance(self.max_partitions, int) and self.max_partitions >= 1, "params.max_partitions",
                "must be a whole number >= 1")
        require(isinstance(self.min_down_ms, int) and 0 < self.min_down_ms <= self.max_down_ms, "params.min_down_ms",
                "must be a whole number of milliseconds, > 0 and <= max_down_ms")
        return self


def build_simulation(scenario: RestartScenario, mode: str) -> Tuple["GroupSimulation", int]:
    """The protocol simulation of ``scenario`` under set-up ``mode`` (not yet run) and its end time.

    Calls the protocol area's ``GroupSimulation`` (and its ``rolling_restart`` helper) only; the event
    times are the scenario's."""
    from ...protocol.config import ProtocolConfig
    from ...protocol.scenarios import rolling_restart
    from ...protocol.simulation import GroupSimulation

    require(mode in MODES, "mode", f"must be one of {', '.join(MODES)}, got {mode!r}")
    assignor, protocol, static = MODES[mode]
    config = ProtocolConfig(revoke_ms=scenario.revoke_ms, network_ms=scenario.network_ms)
    if scenario.event == "rolling-restart":
        sim = rolling_restart(scenario.members, scenario.topics, protocol=protocol, static=static,
                              assignor=assignor, down_ms=scenario.down_ms, gap_ms=scenario.gap_ms,
                              start_ms=START_MS, settle_ms=SETTLE_MS, config=config, run=False)
        # rolling_restart bounces c1, c2, ... in name order; the scenario's order only matters for crashes
        end = START_MS + (scenario.members - 1) * scenario.gap_ms + scenario.down_ms + SETTLE_MS
        return sim, end
    sim = GroupSimulation(scenario.topics, config, record_heartbeats=False)
    for i in range(scenario.members):
        name = f"c{i + 1}"
        sim.add_member(name, 0, assignors=(assignor,), protocol=protocol,
                       instance_id=f"instance-{name}" if static else None)
    victim = scenario.order[0]
    sim.crash(victim, START_MS)
    end = START_MS + config.session_timeout_ms + SETTLE_MS
    if scenario.event == "crash-restart":
        sim.restart(victim, START_MS + scenario.down_ms)
        end += scenario.down_ms
    return sim, end


def last_fault_ms(scenario: RestartScenario) -> int:
    """When the scenario's last fault happens: the last member back (rolling restart), the crashed member
    back (crash-restart), or the crash itself."""
    if scenario.event == "rolling-restart":
        return START_MS + (scenario.members - 1) * scenario.gap_ms + scenario.down_ms
    if scenario.event == "crash-restart":
        return START_MS + scenario.down_ms
    return START_MS


def simulate(scenario: RestartScenario, mode: str) -> dict:
    """Run one scenario under one set-up; one row of the job's output."""
    sim, end = build_simulation(scenario, mode)
    sim.run(end)
    m = sim.metrics(measure_from=START_MS)
    after = None if m.stable_ms is None else max(0, m.stable_ms - last_fault_ms(scenario))
    return {
        "simulation": scenario.index, "event": scenario.event, "mode": mode, "members": scenario.members,
        "partitions": scenario.partitions, "down_ms": scenario.down_ms, "gap_ms": scenario.gap_ms,
        "revoke_ms": scenario.revoke_ms, "network_ms": scenario.network_ms, "settled": bool(m.settled),
        "time_to_stable_ms": m.time_to_stable_ms, "after_last_fault_ms": after, "unowned_partition_seconds": float(m.unowned_partition_seconds),
        "rebalances": m.rebalances, "partitions_stopped": m.partitions_stopped,
        "partitions_moved": m.partitions_moved, "double_ownership": m.double_ownership,
        "zombie_overlap": m.zombie_overlap,
    }


def rows_frame(rows: Iterable[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(list(rows), columns=ROW_COLUMNS)
    frame["time_to_stable_ms"] = frame["time_to_stable_ms"].astype("Int64")
    frame["after_last_fault_ms"] = frame["after_last_fault_ms"].astype("Int64")
    for c in ("simulation", "members", "partitions", "down_ms", "gap_ms", "revoke_ms", "network_ms", "rebalances",
              "partitions_stopped", "partitions_moved", "double_ownership", "zombie_overlap"):
        frame[c] = frame[c].astype("int64")
    frame["unowned_partition_seconds"] = frame["unowned_partition_seconds"].astype("float64")
    return frame


def simulate_range(seed: int, indexes: Iterable[int], params: MonteCarloParams) -> pd.DataFrame:
    rp = params.restart_params()
    rows = []
    for i in indexes:
        sc = restart_scenario(seed, int(i), rp)
        for mode in params.modes:
            rows.append(simulate(sc, mode))
    return rows_frame(rows)


def rows_df(spark: "SparkSession", n: int, seed: int = 0, params: Optional[Union[MonteCarloParams, dict]] = None,
            slices: Optional[int] = None) -> "SparkDataFrame":
    """The per-(simulation, set-up) rows as a Spark DataFrame (simulations ``0..n-1``)."""
    params = check_params(params, MonteCarloParams).check()
    n, seed = check_scale(n), check_seed(seed)
    ship_package(spark)
    if slices is None:
        slices = max(2, min(400, n // 25))

    def run(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for batch in batches:
            yield simulate_range(seed, batch["id"].tolist(), params)

    return spark.range(0, n, numPartitions=slices).mapInPandas(run, ROW_SCHEMA)


def _q(values: pd.Series, q: float) -> float:
    values = values.dropna()
    return float(np.quantile(values.to_numpy(dtype=float), q, method="lower")) if len(values) else float("nan")


def summarize(rows: pd.DataFrame) -> pd.DataFrame:
    """Distributions per ``(event, mode)``: settled share, time to stable (s) and unowned partition-seconds
    quantiles (``lower`` method: always an observed value), mean rebalances and moved partitions."""
    out = []
    event_order = {e: i for i, e in enumerate(("rolling-restart", "crash-restart", "crash"))}
    mode_order = {m: i for i, m in enumerate(MODES)}
    for (event, mode), g in sorted(rows.groupby(["event", "mode"]),
                                   key=lambda kv: (event_order.get(kv[0][0], 9), mode_order.get(kv[0][1], 9))):
        tts = g["time_to_stable_ms"].astype("float64") / 1000.0
        after = g["after_last_fault_ms"].astype("float64") / 1000.0
        un = g["unowned_partition_seconds"]
        out.append({
            "event": event, "mode": mode, "simulations": len(g), "settled": float(g["settled"].mean()),
            "time_to_stable_p50_s": _q(tts, 0.5), "time_to_stable_p90_s": _q(tts, 0.9),
            "time_to_stable_max_s": _q(tts, 1.0), "after_last_fault_p50_s": _q(after, 0.5),
            "after_last_fault_p90_s": _q(after, 0.9),
            "unowned_p50_partition_s": _q(un, 0.5), "unowned_p90_partition_s": _q(un, 0.9),
            "unowned_mean_partition_s": float(un.sum() / len(un)),
            "mean_rebalances": float(g["rebalances"].sum() / len(g)),
            "mean_partitions_stopped": float(g["partitions_stopped"].sum() / len(g)),
            "mean_partitions_moved": float(g["partitions_moved"].sum() / len(g)),
            "double_ownership": int(g["double_ownership"].sum()),
            "zombie_overlap": int(g["zombie_overlap"].sum()),
        })
    return pd.DataFrame(out)


def run(spark: "SparkSession", scale: int, seed: int = 0, out: Optional[str] = None,
        params: Optional[Union[MonteCarloParams, dict]] = None) -> JobResult:
    """Simulate ``scale`` disturbances under every set-up; rows and summary returned (and written)."""
    params = check_params(params, MonteCarloParams).check()
    df = rows_df(spark, scale, seed, params)
    df = stage_rows(spark, df, out, "montecarlo")
    rows = df.toPandas()
    rows = rows_frame(rows.to_dict("records")).sort_values(
        ["simulation", "mode"], key=lambda s: s.map(list(MODES).index) if s.name == "mode" else s
    ).reset_index(drop=True)
    result = JobResult("montecarlo", scale, seed, asdict(params), {"summary": summarize(rows), "rows": rows})
    if out:  # the rows are already in Parquet
        result_to_write = JobResult("montecarlo", scale, seed, asdict(params), {"summary": result["summary"]})
        write_outputs(spark, result_to_write, out)
    return result
