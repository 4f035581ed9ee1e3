"""Rebalance Monte Carlo: thousands of rolling restarts and failures under eager, cooperative, static and
KIP-848.

Each scenario of :func:`rebalance.spark.generators.restart_scenario` (a group of 3 to 12 consumers, one or
two topics, and one disturbance: a rolling restart of every member, one member crashing and coming back,
or one member crashing for good) is replayed under each set-up of :data:`MODES`:

* ``eager`` -- ``range`` assignor, eager protocol, dynamic members (every rebalance stops every partition);
* ``cooperative`` -- ``cooperative-sticky`` assignor, cooperative protocol (KIP-429): only partitions that
  move are revoked, in a second rebalance;
* ``static`` -- ``range`` with ``group.instance.id`` on every member (KIP-345): a member back within
  ``session.timeout.ms`` gets its old assignment without a rebalance;
* ``kip848`` -- ``group.protocol=consumer`` (KIP-848) with the ``uniform`` server-side assignor: no
  barrier, each member reconciles on its own heartbeats.

The first three run in the classic group protocol simulator (:class:`rebalance.protocol.simulation.GroupSimulation`,
``ClassicGroupCoordinator`` and ``ConsumerCoordinator`` on a virtual clock), the last in
:class:`rebalance.kip848.simulation.KIP848Simulation` (``GroupMetadataManager.consumerGroupHeartbeat`` and
the ``AsyncKafkaConsumer`` membership manager), both modelled on Kafka's source at commit 1eb7644 (trunk
before 4.0), on the same schedule of events; both report
the same :class:`~rebalance.protocol.ledger.RebalanceMetrics`.  ``kip848`` is not in the default set-ups:
ask for it with ``modes``.

Timings: each scenario draws its ``revoke_ms`` and ``network_ms``; every other timing is the simulators'
own default (:class:`~rebalance.protocol.config.ProtocolConfig`,
:class:`~rebalance.kip848.config.KIP848Config`).  ``params.config`` overrides any field of either by name
(``{"session_timeout_ms": 30000}`` sets it in both; ``"classic.x"`` or ``"kip848.x"`` in one only), so
fields the simulators gain work here without a change.

Per run the simulator's own metrics are kept: whether the group settled, the time from the first fault to
the last change (``time_to_stable_ms``; for a rolling restart this includes the restarts themselves, so
``after_last_fault_ms`` also measures from the last member's return), partition-seconds with no owner,
rebalances, partitions stopped and moved, double ownership (two live members of the group owning a
partition at once: always 0 if the protocol is right) and zombie overlap (a partition given to a new owner
while a process the coordinator has already dropped still works on it, which Kafka allows until that
process notices).  Summaries are distributions per event and set-up.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Dict, Iterable, Mapping, Optional, Tuple, Union, cast

import pandas as pd

from ...common import JsonRecord
from ...kip848.config import KIP848Config
from ...protocol.config import ProtocolConfig
from ...protocol.ledger import RebalanceMetrics
from ...validation import require
from ..generators import (RESTART_EVENTS, RestartParams, RestartScenario, check_params, require_subset, require_whole,
                          restart_scenario)
from .common import (JobResult, check_overrides, columns_of, lower_quantile, run_rows_job, scenario_rows_df,
                     with_overrides)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame as SparkDataFrame, SparkSession

    from ...kip848.simulation import KIP848Simulation
    from ...protocol.simulation import GroupSimulation

#: set-up name -> (assignor, rebalance protocol, static membership); ``kip848`` is ``group.protocol=consumer``
#: with the server-side assignor of ``KIP848Config.assignor`` (``uniform`` by default)
MODES = {
    "eager": ("range", "eager", False),
    "cooperative": ("cooperative-sticky", "cooperative", False),
    "static": ("range", "eager", True),
    "kip848": ("uniform", "consumer", False),
}
#: the set-ups run unless ``params.modes`` says otherwise
DEFAULT_MODES = ("eager", "cooperative", "static")
#: which simulator config each ``params.config`` prefix overrides
SIMULATOR_CONFIGS = {"classic": ProtocolConfig, "kip848": KIP848Config}
START_MS = 60_000     # the group has been stable for a minute when the first fault happens
SETTLE_MS = 150_000   # time after the last fault to let the group settle (> session timeout + rebalances)

ROW_SCHEMA = ("simulation long, event string, mode string, members int, partitions int, down_ms int, "
              "gap_ms int, revoke_ms int, network_ms int, settled boolean, time_to_stable_ms long, "
              "after_last_fault_ms long, "
              "unowned_partition_seconds double, rebalances int, partitions_stopped int, "
              "partitions_moved int, double_ownership int, zombie_overlap int")
ROW_COLUMNS = columns_of(ROW_SCHEMA)


@dataclass(frozen=True)
class MonteCarloParams(RestartParams):
    """The scenario ranges of :class:`~rebalance.spark.generators.RestartParams`, the set-ups to replay
    them under, and overrides of the simulators' configs (see the module docstring)."""

    modes: Tuple[str, ...] = DEFAULT_MODES
    #: ``{field: value}`` overrides of ``ProtocolConfig`` / ``KIP848Config`` (prefix ``classic.``/``kip848.``
    #: for one of them only)
    config: Mapping[str, object] = field(default_factory=dict)

    def check(self) -> "MonteCarloParams":
        require_subset(self, "modes", MODES)
        require_subset(self, "events", RESTART_EVENTS)
        require(isinstance(self.min_members, int) and 1 <= self.min_members <= self.max_members, "params.min_members",
                "must be a whole number between 1 and max_members")
        require_whole(self, ("max_partitions", "max_topics"))
        require(isinstance(self.min_down_ms, int) and 0 < self.min_down_ms <= self.max_down_ms, "params.min_down_ms",
                "must be a whole number of milliseconds, > 0 and <= max_down_ms")
        config = check_overrides(self.config, SIMULATOR_CONFIGS)
        for prefix in SIMULATOR_CONFIGS:  # every override is validated on the driver, before any Spark work
            simulator_config(prefix, config)
        return self


def simulator_config(prefix: str, config: Mapping[str, object], scenario: Optional[RestartScenario] = None
                     ) -> Union[ProtocolConfig, KIP848Config]:
    """The config of simulator ``prefix`` (``"classic"`` or ``"kip848"``) for ``scenario``: the defaults,
    the scenario's drawn ``revoke_ms`` and ``network_ms``, then the overrides of ``config``."""
    base: Union[ProtocolConfig, KIP848Config] = SIMULATOR_CONFIGS[prefix]()
    if scenario is not None:
        base = with_overrides(base, prefix, {"revoke_ms": scenario.revoke_ms, "network_ms": scenario.network_ms})
    return with_overrides(base, prefix, config)


def end_ms(scenario: RestartScenario, session_timeout_ms: int) -> int:
    """When a replay of ``scenario`` stops: ``SETTLE_MS`` after the last fault (after the session timeout
    for a crash, which the coordinator only notices then)."""
    if scenario.event == "rolling-restart":
        return last_fault_ms(scenario) + SETTLE_MS
    return last_fault_ms(scenario) + session_timeout_ms + SETTLE_MS


def build_simulation(scenario: RestartScenario, mode: str, config: Optional[Mapping[str, object]] = None
                     ) -> Tuple["GroupSimulation", int]:
    """The classic protocol simulation of ``scenario`` under set-up ``mode`` (not yet run) and its end time.

    Calls the protocol area's ``GroupSimulation`` (and its ``rolling_restart`` helper) only; the event
    times are the scenario's."""
    from ...protocol.scenarios import rolling_restart
    from ...protocol.simulation import GroupSimulation

    require(mode in MODES and mode != "kip848", "mode",
            f"must be one of {', '.join(m for m in MODES if m != 'kip848')}, got {mode!r}")
    assignor, protocol, static = MODES[mode]
    cfg = cast(ProtocolConfig, simulator_config("classic", config or {}, scenario))  # "classic": the protocol's
    end = end_ms(scenario, cfg.session_timeout_ms)
    if scenario.event == "rolling-restart":
        sim = rolling_restart(scenario.members, scenario.topics, protocol=protocol, static=static,
                              assignor=assignor, down_ms=scenario.down_ms, gap_ms=scenario.gap_ms,
                              start_ms=START_MS, settle_ms=SETTLE_MS, config=cfg, run=False)
        # rolling_restart bounces c1, c2, ... in name order; the scenario's order only matters for crashes
        return sim, end
    sim = GroupSimulation(scenario.topics, cfg, record_heartbeats=False)
    for i in range(scenario.members):
        name = f"c{i + 1}"
        sim.add_member(name, 0, assignors=(assignor,), protocol=protocol,
                       instance_id=f"instance-{name}" if static else None)
    victim = scenario.order[0]
    sim.crash(victim, START_MS)
    if scenario.event == "crash-restart":
        sim.restart(victim, START_MS + scenario.down_ms)
    return sim, end


def build_kip848(scenario: RestartScenario, config: Optional[Mapping[str, object]] = None
                 ) -> Tuple["KIP848Simulation", int]:
    """The KIP-848 simulation of ``scenario`` (members ``c1..cN`` started at 0, the same faults at the same
    times as :func:`build_simulation`; not yet run) and its end time.  A bounced member shuts down
    gracefully (revoke, then epoch -1) and its new process starts ``down_ms`` after the shutdown began;
    a crashed member's new process (crash-restart) starts ``down_ms`` after the crash, with a new member id."""
    from ...kip848.simulation import KIP848Simulation, process_of

    cfg = cast(KIP848Config, simulator_config("kip848", config or {}, scenario))  # "kip848": KIP-848's
    sim = KIP848Simulation(dict(scenario.topics), cfg)
    topics = sorted(scenario.topics)
    names = [f"c{i + 1}" for i in range(scenario.members)]
    for name in names:
        sim.clock.schedule_at(0, partial(sim.start_member, name, topics), f"start {name}")

    def current(name: str) -> str:
        return [c for c in sim.clients if process_of(c) == name][-1]

    if scenario.event == "rolling-restart":
        def bounce(name: str) -> None:  # the member's current process, when the bounce comes
            sim.stop_member(current(name), restart_after_ms=max(0, scenario.down_ms - cfg.revoke_ms))

        for i, name in enumerate(names):
            sim.clock.schedule_at(START_MS + i * scenario.gap_ms, partial(bounce, name), f"bounce {name}")
    else:
        victim = scenario.order[0]
        sim.clock.schedule_at(START_MS, lambda: sim.crash_member(victim), f"crash {victim}")
        if scenario.event == "crash-restart":
            sim.clock.schedule_at(START_MS + scenario.down_ms,
                                  lambda: sim.start_member(f"{victim}~1", topics), f"restart {victim}")
    return sim, end_ms(scenario, cfg.session_timeout_ms)


def run_kip848(scenario: RestartScenario, config: Optional[Mapping[str, object]] = None) -> RebalanceMetrics:
    """Replay ``scenario`` under KIP-848 to its end time; the metrics from ``START_MS``.  The group counts as
    stable at the first instant after the last fault at which every process that should run is back and
    :meth:`~rebalance.kip848.simulation.KIP848Simulation.is_stable` holds."""
    from ...kip848.simulation import process_of

    sim, end = build_kip848(scenario, config)
    expected = {f"c{i + 1}" for i in range(scenario.members)}
    if scenario.event == "crash":
        expected.discard(scenario.order[0])

    def all_back() -> bool:
        running = {process_of(c.member_id) for c in sim.clients.values() if c.running and not c.leaving}
        return running == expected and all(sim.clients[m].running for m in sim.coordinator.members
                                           if m in sim.clients and sim.coordinator.members[m].member_epoch >= 0)

    sim.clock.run_until(START_MS)
    stable = sim.run_until_stable(max_ms=end - START_MS, min_time_ms=last_fault_ms(scenario), idle=all_back)
    sim.clock.run_until(end)
    return sim.metrics(START_MS, end, stable)


def last_fault_ms(scenario: RestartScenario) -> int:
    """When the scenario's last fault happens: the last member back (rolling restart), the crashed member
    back (crash-restart), or the crash itself."""
    if scenario.event == "rolling-restart":
        return START_MS + (scenario.members - 1) * scenario.gap_ms + scenario.down_ms
    if scenario.event == "crash-restart":
        return START_MS + scenario.down_ms
    return START_MS


def simulate(scenario: RestartScenario, mode: str, config: Optional[Mapping[str, object]] = None) -> JsonRecord:
    """Run one scenario under one set-up; one row of the job's output."""
    if mode == "kip848":
        m = run_kip848(scenario, config)
        cfg = simulator_config("kip848", config or {}, scenario)
        last = last_fault_ms(scenario)
    else:
        sim, end = build_simulation(scenario, mode, config)
        sim.run(end)
        m = sim.metrics(measure_from=START_MS)
        cfg = sim.config
        # a rolling restart's last member is back once its close (after its batch in hand) and its down time
        last = max(last_fault_ms(scenario), sim.last_fault_ms() or 0)
    after = None if m.stable_ms is None else max(0, m.stable_ms - last)
    return {
        "simulation": scenario.index, "event": scenario.event, "mode": mode, "members": scenario.members,
        "partitions": scenario.partitions, "down_ms": scenario.down_ms, "gap_ms": scenario.gap_ms,
        "revoke_ms": cfg.revoke_ms, "network_ms": cfg.network_ms, "settled": bool(m.settled),
        "time_to_stable_ms": m.time_to_stable_ms, "after_last_fault_ms": after,
        "unowned_partition_seconds": float(m.unowned_partition_seconds),
        "rebalances": m.rebalances, "partitions_stopped": m.partitions_stopped,
        "partitions_moved": m.partitions_moved, "double_ownership": m.double_ownership,
        "zombie_overlap": m.zombie_overlap,
    }


def rows_frame(rows: Iterable[JsonRecord]) -> pd.DataFrame:
    frame = pd.DataFrame(list(rows), columns=ROW_COLUMNS)
    frame["time_to_stable_ms"] = frame["time_to_stable_ms"].astype("Int64")
    frame["after_last_fault_ms"] = frame["after_last_fault_ms"].astype("Int64")
    for c in ("simulation", "members", "partitions", "down_ms", "gap_ms", "revoke_ms", "network_ms", "rebalances",
              "partitions_stopped", "partitions_moved", "double_ownership", "zombie_overlap"):
        frame[c] = frame[c].astype("int64")
    frame["unowned_partition_seconds"] = frame["unowned_partition_seconds"].astype("float64")
    return frame


def simulate_range(seed: int, indexes: Iterable[int], params: MonteCarloParams) -> pd.DataFrame:
    """The rows of simulations ``indexes``, every set-up of ``params.modes`` each (runs on an executor;
    also the plain local implementation)."""
    rows = []
    for i in indexes:
        sc = restart_scenario(seed, int(i), params)
        for mode in params.modes:
            rows.append(simulate(sc, mode, params.config))
    return rows_frame(rows)


def rows_df(spark: "SparkSession", n: int, seed: int = 0, params: Optional[Union[MonteCarloParams, JsonRecord]] = None,
            slices: Optional[int] = None) -> "SparkDataFrame":
    """The per-(simulation, set-up) rows as a Spark DataFrame (simulations ``0..n-1``)."""
    return scenario_rows_df(spark, n, seed, check_params(params, MonteCarloParams).check(), simulate_range,
                            ROW_SCHEMA, slices=slices)


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
            "time_to_stable_p50_s": lower_quantile(tts, 0.5), "time_to_stable_p90_s": lower_quantile(tts, 0.9),
            "time_to_stable_max_s": lower_quantile(tts, 1.0), "after_last_fault_p50_s": lower_quantile(after, 0.5),
            "after_last_fault_p90_s": lower_quantile(after, 0.9),
            "unowned_p50_partition_s": lower_quantile(un, 0.5), "unowned_p90_partition_s": lower_quantile(un, 0.9),
            "unowned_mean_partition_s": float(un.sum() / len(un)),
            "mean_rebalances": float(g["rebalances"].sum() / len(g)),
            "mean_partitions_stopped": float(g["partitions_stopped"].sum() / len(g)),
            "mean_partitions_moved": float(g["partitions_moved"].sum() / len(g)),
            "double_ownership": int(g["double_ownership"].sum()),
            "zombie_overlap": int(g["zombie_overlap"].sum()),
        })
    return pd.DataFrame(out)


def tables_from_rows(rows: pd.DataFrame) -> Dict[str, pd.DataFrame]:
    """The job's tables from its rows, in (simulation, set-up) order (the same for Spark and the local loop)."""
    rows = rows_frame(rows.to_dict("records")).sort_values(
        ["simulation", "mode"], key=lambda s: s.map(list(MODES).index) if s.name == "mode" else s
    ).reset_index(drop=True)
    return {"summary": summarize(rows), "rows": rows}


def run(spark: "SparkSession", scale: int, seed: int = 0, out: Optional[str] = None,
        params: Optional[Union[MonteCarloParams, JsonRecord]] = None) -> JobResult:
    """Simulate ``scale`` disturbances under every set-up; rows and summary returned (and written)."""
    params = check_params(params, MonteCarloParams).check()
    return run_rows_job(spark, "montecarlo", scale, seed, out, params, rows_df(spark, scale, seed, params),
                        tables_from_rows)
