"""Classic eager, classic cooperative and KIP-848 side by side, on the same scenarios.

The classic protocol runs in :class:`rebalance.protocol.simulation.GroupSimulation` (JoinGroup/SyncGroup
with a barrier); KIP-848 in :func:`rebalance.kip848.scenarios.simulate`.  Both report the same
:class:`~rebalance.protocol.ledger.RebalanceMetrics`, computed by the same ownership ledger.  Both share the virtual clock
design and the same assumptions where they overlap: one-way network latency, time spent revoking
(commit + ``onPartitionsRevoked``), the restart time of a bounced process, the same schedule of events.
Heartbeat intervals are each protocol's default (``heartbeat.interval.ms`` = 3 s for the classic consumer,
``group.consumer.heartbeat.interval.ms`` = 5 s for KIP-848), as an operator would run them, and both run the
same poll loop (:class:`rebalance.protocol.pollloop.PollLoopConfig`: 500-record batches of 500 ms by
default; ``poll_processing_ms`` changes the time per batch).  :func:`processing_sensitivity` shows how the
ranking of eager, cooperative, static and KIP-848 changes with that time.

The figures depend on where in the heartbeat cycle the event falls; :func:`phase_sweep` shows the spread.

:func:`slow_member` runs the case the classic barrier makes hardest: one member whose batches take nearly
``max.poll.interval.ms`` (in a classic group also the rebalance timeout) while a new member joins, under eager,
cooperative and KIP-848, as ``simulate`` scenarios (:func:`slow_member_scenarios`) on the simulators and, if
asked, with real consumers on a real broker, and measures what the rebalances cost the application
(:class:`~rebalance.protocol.ledger.StopMeasures`).
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..errors import InputError
from ..protocol.ledger import OwnershipLedger, RebalanceMetrics
from .assignor import ASSIGNORS
from .group import assign_group, moved_partitions
from .config import KIP848Config
from .scenarios import simulate

__all__ = ["compare_protocols", "phase_sweep", "processing_sensitivity", "join_at_scale", "scale_group",
           "slow_member_scenarios", "slow_member", "slow_member_sweep", "join_storm_scenarios", "join_storm",
           "rolling_restart_scenarios", "rolling_restart", "restart_and_storm", "side_by_side_on_kafka", "ROLL_START_MS", "rebuild_ranking",
           "rebuild_break_even", "PROTOCOLS", "REBUILD_PROTOCOLS", "SENSITIVITY_PROTOCOLS", "SLOW_MEMBER_PROTOCOLS"]

#: (label, classic rebalance protocol or None for KIP-848, assignor)
PROTOCOLS = (
    ("classic eager (range)", "eager", "range"),
    ("classic cooperative (cooperative-sticky)", "cooperative", "cooperative-sticky"),
    ("KIP-848 consumer (uniform)", None, "uniform"),
)

SCENARIO_NAMES = ("join", "leave", "crash", "rolling_restart")


def _classic(scenario: str, protocol: str, assignor: str, members: int, topics: Mapping[str, int], *,
             static: bool, start_ms: int, gap_ms: int, restart_ms: int, revoke_ms: int, network_ms: int,
             horizon_ms: int, poll_processing_ms: Optional[int] = None) -> Tuple[RebalanceMetrics, OwnershipLedger]:
    from ..protocol.config import ProtocolConfig
    from ..protocol.simulation import GroupSimulation

    sim = GroupSimulation(dict(topics), ProtocolConfig(network_ms=network_ms, revoke_ms=revoke_ms,
                                                       poll_processing_ms=poll_processing_ms),
                          record_heartbeats=False)
    names = [f"consumer-{i + 1}" for i in range(members)]
    for name in names:
        sim.add_member(name, 0, assignors=(assignor,), protocol=protocol,
                       instance_id=f"instance-{name}" if static else None)
    if scenario == "join":
        extra = f"consumer-{members + 1}"
        sim.add_member(extra, start_ms, assignors=(assignor,), protocol=protocol,
                       instance_id=f"instance-{extra}" if static else None)
        end = start_ms
    elif scenario == "leave":
        sim.shutdown(names[-1], start_ms)
        end = start_ms
    elif scenario == "crash":
        sim.crash(names[-1], start_ms)
        end = start_ms
    else:
        for i, name in enumerate(names):
            sim.bounce(name, start_ms + i * gap_ms, restart_ms)
        end = start_ms + (members - 1) * gap_ms + restart_ms
    sim.run(end + horizon_ms)
    return sim.metrics(start_ms, sim.metrics(start_ms).stable_ms or sim.clock.now_ms), sim.ownership


def _kip848(scenario: str, members: int, topics: Mapping[str, int], *, static: bool, start_ms: int, gap_ms: int,
            restart_ms: int, revoke_ms: int, network_ms: int, assignor: str = "uniform",
            heartbeat_interval_ms: int = 5000, poll_processing_ms: Optional[int] = None
            ) -> Tuple[RebalanceMetrics, OwnershipLedger]:
    config = KIP848Config(network_ms=network_ms, revoke_ms=revoke_ms, assignment_ms=0, restart_ms=restart_ms,
                          assignor=assignor, heartbeat_interval_ms=heartbeat_interval_ms,
                          poll_processing_ms=poll_processing_ms)
    result = simulate(scenario, members, dict(topics), static=static, config=config, start_ms=start_ms,
                      gap_ms=gap_ms if scenario == "rolling_restart" else None)
    return result.metrics, result.ownership


def compare_protocols(scenario: str = "join", members: int = 3, topics: Optional[Mapping[str, int]] = None, *,
                      static: bool = False, start_ms: int = 61_500, gap_ms: int = 30_000, restart_ms: int = 5_000,
                      revoke_ms: int = 100, network_ms: int = 1, horizon_ms: int = 240_000,
                      kip848_heartbeat_ms: int = 5000, protocols: Sequence[Tuple[Any, ...]] = PROTOCOLS,
                      poll_processing_ms: Optional[int] = None,
                      rebuild_ms_per_partition: Optional[int] = None) -> List[Dict[str, Any]]:
    """One row per protocol: time to stable, unowned partition-seconds, partitions moved and stopped,
    and the number of rebalances (classic) or group-epoch bumps (KIP-848) after ``start_ms``.  With
    ``rebuild_ms_per_partition`` (ms of state or cache each moved partition rebuilds; ``None``, the default:
    rows as before) each row also has what the rebalances cost the application over the same span
    (:class:`~rebalance.protocol.ledger.StopMeasures`): ``processing_stopped_member_seconds``, ``rebuild_cost``
    and ``unprocessed_partition_seconds``, the unowned partition-seconds plus the rebuild cost.
    ``kip848_heartbeat_ms`` is ``group.consumer.heartbeat.interval.ms`` (the classic consumer keeps its
    3 s ``heartbeat.interval.ms``); ``poll_processing_ms`` is every consumer's time per ``poll()`` batch
    (default: the poll loop's, 500 records at 1 ms each).  A protocol entry may carry a fourth element,
    ``True`` for static members (``group.instance.id``) whatever ``static`` says."""
    if scenario not in SCENARIO_NAMES:
        raise InputError("scenario", f"must be one of {', '.join(SCENARIO_NAMES)}, got {scenario!r}")
    topics = {"orders": 12} if topics is None else dict(topics)
    rows = []
    for entry in protocols:
        label, protocol, assignor = entry[:3]
        common: Dict[str, Any] = dict(static=static or (len(entry) > 3 and bool(entry[3])), start_ms=start_ms,
                                      gap_ms=gap_ms, restart_ms=restart_ms, revoke_ms=revoke_ms,
                                      network_ms=network_ms, poll_processing_ms=poll_processing_ms)
        if protocol is None:
            m, ledger = _kip848(scenario, members, topics, assignor=assignor,
                                heartbeat_interval_ms=kip848_heartbeat_ms, **common)
        else:
            m, ledger = _classic(scenario, protocol, assignor, members, topics, horizon_ms=horizon_ms, **common)
        row: Dict[str, Any] = {"scenario": scenario + ("-static" if static else ""), "protocol": label,
                               "time_to_stable_ms": m.time_to_stable_ms,
                               "unowned_partition_seconds": round(m.unowned_partition_seconds, 3),
                               "partitions_moved": m.partitions_moved, "partitions_stopped": m.partitions_stopped,
                               "rebalances_or_epoch_bumps": m.rebalances}
        if rebuild_ms_per_partition is not None:
            stops = ledger.stop_measures(m.start_ms, m.end_ms, rebuild_ms_per_partition)
            row.update(processing_stopped_member_seconds=stops.processing_stopped_member_seconds,
                       rebuild_cost=stops.rebuild_cost,
                       unprocessed_partition_seconds=round(row["unowned_partition_seconds"] + stops.rebuild_cost, 3))
        rows.append(row)
    return rows


def phase_sweep(scenario: str = "join", offsets_ms: Sequence[int] = range(0, 5000, 500), **kwargs: Any
                ) -> List[Dict[str, Any]]:
    """:func:`compare_protocols` for events that happen ``offset`` ms after 60 s: how much the figures
    depend on the heartbeat phase."""
    rows = []
    for offset in offsets_ms:
        for row in compare_protocols(scenario, start_ms=60_000 + offset, **kwargs):
            rows.append({"offset_ms": offset, **row})
    return rows


#: the four ways of running a consumer group the sensitivity figure ranks
SENSITIVITY_PROTOCOLS = (
    ("eager", "eager", "range"),
    ("cooperative", "cooperative", "cooperative-sticky"),
    ("static (eager)", "eager", "range", True),
    ("KIP-848", None, "uniform"),
)


def processing_sensitivity(processing_ms: Sequence[int] = (0, 100, 500, 2_000, 5_000, 10_000),
                           scenario: str = "rolling_restart", members: int = 4,
                           topics: Optional[Mapping[str, int]] = None,
                           offsets_ms: Sequence[int] = (0, 1_500), **kwargs: Any) -> List[Dict[str, Any]]:
    """:func:`compare_protocols` for each time per ``poll()`` batch in ``processing_ms`` and each protocol of
    :data:`SENSITIVITY_PROTOCOLS`, averaged over events that start ``offsets_ms`` after 60 s (the figures
    depend on where in the heartbeat and batch cycles an event falls).  One row per (processing time,
    protocol) with the mean unowned partition-seconds, time to stable and partitions stopped, and the
    protocol's ``rank`` (1 = fewest unowned partition-seconds) at that processing time."""
    for i, p in enumerate(processing_ms):
        if not isinstance(p, int) or isinstance(p, bool) or p < 0:
            raise InputError(f"processing_ms[{i}]", f"must be a whole number of milliseconds >= 0, got {p!r}")
    rows = []
    for p in processing_ms:
        runs = [compare_protocols(scenario, members, topics, start_ms=60_000 + offset, poll_processing_ms=p,
                                  protocols=SENSITIVITY_PROTOCOLS, **kwargs) for offset in offsets_ms]
        block = []
        for k, (label, *_rest) in enumerate(SENSITIVITY_PROTOCOLS):
            per = [run[k] for run in runs]
            stable = [r["time_to_stable_ms"] for r in per if r["time_to_stable_ms"] is not None]
            block.append({"poll_processing_ms": p, "protocol": label,
                          "unowned_partition_seconds": round(
                              sum(r["unowned_partition_seconds"] for r in per) / len(per), 3),
                          "time_to_stable_s": round(sum(stable) / len(stable) / 1000, 3) if stable else None,
                          "partitions_stopped": sum(r["partitions_stopped"] for r in per) / len(per)})
        order = sorted(range(len(block)), key=lambda k: (block[k]["unowned_partition_seconds"], k))
        for rank, k in enumerate(order, start=1):
            block[k]["rank"] = rank
        rows.extend(block)
    return rows


def scale_group(members: int, topics: int, partitions: int, heterogeneous: bool, seed: int = 7
                ) -> Tuple[Dict[str, int], List[Dict[str, Any]]]:
    """A generated group: ``topics`` topics of ``partitions`` partitions; every member subscribes to all of
    them (homogeneous) or to a random half (heterogeneous, ``random.Random(seed)``).  Returns
    ``(topics, members)`` in :func:`assign_group`'s input form."""
    import random

    rng = random.Random(seed)
    by_name = {f"topic-{i:03d}": partitions for i in range(topics)}
    names = sorted(by_name)
    out = []
    for i in range(members):
        subs = sorted(rng.sample(names, max(1, topics // 2))) if heterogeneous else names
        out.append({"id": f"member-{i:04d}", "subscriptions": subs})
    return by_name, out


def join_at_scale(members: int = 100, topics: int = 20, partitions: int = 50, seed: int = 7) -> List[Dict[str, Any]]:
    """For each subscription shape and server-side assignor: a group of ``members`` is assigned, one more
    member (subscribed like the first) joins, and the row gives the builder, the partitions that change
    owner on the join, the spread (max - min partitions per member) and the members left with nothing after
    it.  ``benchmarks/bench_kip848.py`` times the same computation at larger sizes."""
    rows = []
    for heterogeneous in (False, True):
        topic_map, group = scale_group(members, topics, partitions, heterogeneous, seed)
        for assignor in ASSIGNORS:
            first = assign_group(assignor, topic_map, group)
            joined = group + [{"id": "member-new", "subscriptions": group[0]["subscriptions"]}]
            second = assign_group(assignor, topic_map, joined, previous=first)
            counts = [sum(len(p) for p in a.values()) for a in second.by_name().values()]
            rows.append({"subscriptions": "heterogeneous" if heterogeneous else "homogeneous", "assignor": assignor,
                         "builder": second.builder, "members": members, "topics": topics,
                         "partitions_per_topic": partitions,
                         "moved_on_join": sum(1 for m in moved_partitions(first.by_name(), second.by_name())
                                              if m["from"] is not None),
                         "max_minus_min": max(counts) - min(counts),
                         "idle_members": sum(1 for c in counts if c == 0)})
    return rows


#: when the new member joins a slow-member group: after the group has formed (a slow member makes a classic
#: group's first rebalances wait for its polls, on a real broker for up to about 25 s)
SLOW_JOIN_MS = 30_000
#: when the slow member starts: after the others, so that it is not the classic group's leader (a slow leader
#: sends the first round's SyncGroup itself, which completes that round, and is back for the second in time; with
#: members that start together, which one leads varies from run to run on a real broker)
SLOW_START_MS = 600
#: the slow-member runs: (label, the scenario's ``protocol``, its assignor: each protocol's default)
SLOW_MEMBER_PROTOCOLS = (
    ("eager", "eager", "range"),
    ("cooperative", "cooperative", "cooperative-sticky"),
    ("KIP-848", "consumer", "uniform"),
)


def _ms(value: object, field: str, minimum: int = 0) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise InputError(field, f"must be a whole number of milliseconds >= {minimum}, got {value!r}")
    return value


def slow_member_scenarios(batch_ms: int = 8_000, *, max_poll_interval_ms: int = 10_000, members: int = 3,
                          partitions: int = 12, join_ms: int = SLOW_JOIN_MS, run_ms: int = 45_000,
                          rebuild_ms_per_partition: int = 0) -> List[Dict[str, Any]]:
    """The ``simulate`` scenarios of one slow member, one per :data:`SLOW_MEMBER_PROTOCOLS`: ``members``
    consumers read a topic of ``partitions`` partitions (named ``slow-<protocol>``, so that the three can
    share one broker); the last of them, ``slow``, spends ``batch_ms`` on each ``poll()`` batch, the others
    the poll loop's default, and starts :data:`SLOW_START_MS` after them (so that it does not lead the classic
    group); ``max.poll.interval.ms`` is ``max_poll_interval_ms`` for all (shortened from
    Kafka's 300 s so that a run stays short; in a classic group it is also the rebalance timeout, how long the
    coordinator waits for the slow member to rejoin).  A new member, ``new``, joins at ``join_ms``; the
    summaries count from the join to ``run_ms`` after it, with the stop measures at ``rebuild_ms_per_partition``.
    Everything else is Kafka's default.

    Defined in chapter 7, *Eager and incremental cooperative rebalancing*."""
    _ms(batch_ms, "batch_ms")
    _ms(max_poll_interval_ms, "max_poll_interval_ms", 1)
    _ms(join_ms, "join_ms")
    _ms(run_ms, "run_ms", 1)
    _ms(rebuild_ms_per_partition, "rebuild_ms_per_partition")
    if not isinstance(members, int) or isinstance(members, bool) or members < 1:
        raise InputError("members", f"must be a member count >= 1, got {members!r}")
    if not isinstance(partitions, int) or isinstance(partitions, bool) or partitions < 1:
        raise InputError("partitions", f"must be a partition count >= 1, got {partitions!r}")
    group = [{"id": f"c{i + 1}"} for i in range(members - 1)] + [{"id": "slow", "poll_processing_ms": batch_ms}]
    return [{"id": label, "protocol": protocol, "assignor": assignor, "topics": {f"slow-{protocol}": partitions},
             "members": group + [{"id": "new"}], "config": {"max_poll_interval_ms": max_poll_interval_ms},
             "events": [{"at_ms": SLOW_START_MS, "op": "join", "member": "slow"},
                        {"at_ms": join_ms, "op": "join", "member": "new"}], "until_ms": join_ms + run_ms,
             "measure_from_ms": join_ms, "rebuild_ms_per_partition": rebuild_ms_per_partition}
            for label, protocol, assignor in SLOW_MEMBER_PROTOCOLS]


def _slow_row(where: str, label: str, summary: Mapping[str, Any]) -> Dict[str, Any]:
    wait = summary["join_waits_ms"].get("new")
    return {"where": where, "protocol": label, "rebalances": summary["rebalances"],
            "moved_partitions": summary["moved_partitions"],
            "new member waited (s)": None if wait is None else round(wait / 1000, 3),
            "members stopped": summary["members_stopped"],
            "processing_stopped_member_seconds": summary["processing_stopped_member_seconds"],
            "unowned_partition_seconds": summary["unowned_partition_seconds"],
            "rebuild_cost": summary["rebuild_cost"]}


def slow_member(batch_ms: int = 8_000, *, on_kafka: bool = False, cluster: Optional[Any] = None,
                **kwargs: Any) -> List[Dict[str, Any]]:
    """:func:`slow_member_scenarios` (``kwargs`` are its other parameters) run by ``simulate``, and with
    ``on_kafka`` also by real consumers on a real broker (:func:`rebalance.kafka.run_scenario`, side by side,
    each in a group and on a topic of its own, on ``cluster`` if given -- its broker settings must be :func:`rebalance.kafka.broker_config_for` the
    scenarios' -- else on a one-broker cluster started for them).  One row per run and protocol: where it ran,
    the rebalances completed and partitions moved, how long the new member waited from its join to the last
    partition of its share (``None``: none in the run), ``processing_stopped_member_seconds``,
    ``unowned_partition_seconds`` and ``rebuild_cost``.

    Defined in chapter 7, *Eager and incremental cooperative rebalancing*."""
    from ..simulate import simulate_scenario

    scenarios = slow_member_scenarios(batch_ms, **kwargs)
    rows = [_slow_row("simulator", s["id"], simulate_scenario(s).summary()) for s in scenarios]
    if not on_kafka:
        return rows
    real = side_by_side_on_kafka(scenarios, cluster)
    return rows + [_slow_row("Kafka broker", s["id"], summary) for s, summary in zip(scenarios, real)]


def side_by_side_on_kafka(scenarios: Sequence[Mapping[str, Any]], cluster: Optional[Any] = None
                          ) -> List[Dict[str, Any]]:
    """The summary line of each of ``scenarios`` played by real consumers on a real broker
    (:func:`rebalance.kafka.run_scenario`), all at once in threads (each has a group and a topic of its own), on
    ``cluster`` if given -- its broker settings must be :func:`rebalance.kafka.broker_config_for` the scenarios'
    -- else on a one-broker cluster started for them and stopped after."""
    import contextlib
    from concurrent.futures import ThreadPoolExecutor

    from ..kafka import KafkaCluster, broker_config_for, run_scenario

    started = KafkaCluster(brokers=1, broker_config=broker_config_for(scenarios)) if cluster is None else None
    with (started if started is not None else contextlib.nullcontext(cluster)) as kafka:
        with ThreadPoolExecutor(len(scenarios)) as pool:
            real = list(pool.map(lambda s: run_scenario(s, cluster=kafka), scenarios))
    return [lines[-1]["summary"] for lines in real]


def slow_member_sweep(batch_ms: Sequence[int] = (500, 2_000, 5_000, 8_000, 9_500), phases: int = 4,
                      **kwargs: Any) -> List[Dict[str, Any]]:
    """:func:`slow_member` on the simulators for each slow batch time in ``batch_ms``, averaged over ``phases``
    join times: the join falls ``k / phases`` of the way through ``max(batch, 5 s)`` after 30 s (the figures
    depend on where in the slow member's batch and in the heartbeat cycle the join falls; 5 s is KIP-848's
    heartbeat interval).  ``kwargs``: :func:`slow_member_scenarios`' other parameters.  One row per (batch
    time, protocol) with the means of the new member's wait, processing-stopped member-seconds, unowned
    partition-seconds, partitions moved and rebalances, the runs in which the new member got no share in the
    run (``never``) and the most members stopped in one run; then ``fastest join`` and ``fewest stops`` say
    whether the protocol had the shortest mean wait and the fewest stopped member-seconds at that batch time
    (ties: each of them).

    Defined in chapter 7, *Eager and incremental cooperative rebalancing*."""
    if not isinstance(phases, int) or isinstance(phases, bool) or phases < 1:
        raise InputError("phases", f"must be a whole number >= 1, got {phases!r}")
    rows = []
    for i, b in enumerate(batch_ms):
        _ms(b, f"batch_ms[{i}]")
        runs = [slow_member(b, join_ms=SLOW_JOIN_MS + k * max(b, 5_000) // phases, **kwargs)
                for k in range(phases)]
        block = []
        for j, (label, _, _) in enumerate(SLOW_MEMBER_PROTOCOLS):
            per = [run[j] for run in runs]
            waits = [r["new member waited (s)"] for r in per if r["new member waited (s)"] is not None]
            block.append({"slow batch (s)": b / 1000, "protocol": label,
                          "new member waited (s)": round(sum(waits) / len(waits), 3) if waits else None,
                          "never": len(per) - len(waits),
                          "members stopped": max(r["members stopped"] for r in per),
                          "processing_stopped_member_seconds": round(
                              sum(r["processing_stopped_member_seconds"] for r in per) / len(per), 3),
                          "unowned_partition_seconds": round(
                              sum(r["unowned_partition_seconds"] for r in per) / len(per), 3),
                          "moved_partitions": sum(r["moved_partitions"] for r in per) / len(per),
                          "rebalances": sum(r["rebalances"] for r in per) / len(per)})
        waited = [r["new member waited (s)"] for r in block if r["new member waited (s)"] is not None]
        for r in block:
            r["fastest join"] = bool(waited) and r["new member waited (s)"] == min(waited) and r["never"] == 0
            r["fewest stops"] = r["processing_stopped_member_seconds"] == min(
                x["processing_stopped_member_seconds"] for x in block)
        rows.extend(block)
    return rows


#: when a join storm starts: after the first members' group has formed
STORM_START_MS = 20_000


def join_storm_scenarios(joining: int = 9, *, members: int = 3, partitions: int = 24, spread_ms: int = 3_000,
                         run_ms: int = 40_000, start_ms: int = STORM_START_MS) -> List[Dict[str, Any]]:
    """The ``simulate`` scenarios of a join storm, one per :data:`SLOW_MEMBER_PROTOCOLS` (each protocol's default
    assignor): ``members`` consumers read a topic of ``partitions`` partitions (named ``storm-<protocol>``), and
    ``joining`` more join within ``spread_ms``, evenly spaced from ``start_ms`` on (a deployment scaled out at
    once, or every pod of a service started together).  The summaries count from the first join to ``run_ms``
    after it, with the stop measures (no rebuild cost).  Everything else is Kafka's default.

    Defined in chapter 18, *Moving to KIP-848*."""
    _ms(spread_ms, "spread_ms")
    _ms(run_ms, "run_ms", 1)
    _ms(start_ms, "start_ms")
    for value, field in ((joining, "joining"), (members, "members"), (partitions, "partitions")):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise InputError(field, f"must be a whole number >= 1, got {value!r}")
    old = [{"id": f"c{i + 1}"} for i in range(members)]
    new = [{"id": f"n{i + 1}"} for i in range(joining)]
    step = spread_ms // max(1, joining - 1)
    events = [{"at_ms": start_ms + i * step, "op": "join", "member": m["id"]} for i, m in enumerate(new)]
    return [{"id": label, "protocol": protocol, "assignor": assignor, "topics": {f"storm-{protocol}": partitions},
             "members": old + new, "events": events, "until_ms": start_ms + run_ms, "measure_from_ms": start_ms,
             "rebuild_ms_per_partition": 0}
            for label, protocol, assignor in SLOW_MEMBER_PROTOCOLS]


def _storm_row(where: str, s: Mapping[str, Any], summary: Mapping[str, Any]) -> Dict[str, Any]:
    waits = summary["join_waits_ms"]
    first = min(e["at_ms"] for e in s["events"])
    done = (None if any(w is None for w in waits.values()) else
            round(max(e["at_ms"] + waits[e["member"]] for e in s["events"]) / 1000 - first / 1000, 3))
    return {"where": where, "protocol": s["id"], "rebalances": summary["rebalances"],
            "moved_partitions": summary["moved_partitions"], "all new members served after (s)": done,
            "members stopped": summary["members_stopped"],
            "processing_stopped_member_seconds": summary["processing_stopped_member_seconds"],
            "unowned_partition_seconds": summary["unowned_partition_seconds"]}


def join_storm(joining: int = 9, *, on_kafka: bool = False, cluster: Optional[Any] = None,
               **kwargs: Any) -> List[Dict[str, Any]]:
    """:func:`join_storm_scenarios` (``kwargs`` are its other parameters) run by ``simulate``, and with
    ``on_kafka`` also by real consumers on a real broker, side by side (:func:`side_by_side_on_kafka`, on
    ``cluster`` if given).  One row per run and protocol: where it ran, the rebalances completed, the partitions
    moved, how long from the first join until every new member held its last partition (``None``: some new
    member got none in the run), the members whose processing stopped, ``processing_stopped_member_seconds`` and
    ``unowned_partition_seconds``.

    Defined in chapter 18, *Moving to KIP-848*."""
    return restart_and_storm(on_kafka=on_kafka, cluster=cluster, restart=None,
                             storm=dict(kwargs, joining=joining))["join storm"]


#: when a rolling restart starts: after the group has formed
ROLL_START_MS = 8_000


def rolling_restart_scenarios(members: int = 3, *, partitions: int = 12, gap_ms: int = 12_000,
                              down_ms: int = 5_000, settle_ms: int = 12_000, start_ms: int = ROLL_START_MS
                              ) -> List[Dict[str, Any]]:
    """The ``simulate`` scenarios of a rolling restart of dynamic members, one per :data:`SLOW_MEMBER_PROTOCOLS`
    (each protocol's default assignor): ``members`` consumers read a topic of ``partitions`` partitions (named
    ``roll-<protocol>``); from ``start_ms`` on, every ``gap_ms``, one member after the other is closed and its
    new process starts ``down_ms`` after the close (``restart``).  The summaries count from the first restart to
    ``settle_ms`` after the last process came back, with the stop measures (no rebuild cost).  Everything else
    is Kafka's default.  With the defaults each bounce has settled before the next (under eager and KIP-848 the
    simulators give the figures of bounces 30 s apart), and a run on a real broker takes under a minute.

    Defined in chapter 18, *Moving to KIP-848*."""
    for value, field, least in ((gap_ms, "gap_ms", 0), (down_ms, "down_ms", 0), (settle_ms, "settle_ms", 1),
                                (start_ms, "start_ms", 0)):
        _ms(value, field, least)
    for value, field in ((members, "members"), (partitions, "partitions")):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise InputError(field, f"must be a whole number >= 1, got {value!r}")
    group = [{"id": f"c{i + 1}"} for i in range(members)]
    events = [{"at_ms": start_ms + i * gap_ms, "op": "restart", "member": m["id"], "down_ms": down_ms}
              for i, m in enumerate(group)]
    until = start_ms + (members - 1) * gap_ms + down_ms + settle_ms
    return [{"id": label, "protocol": protocol, "assignor": assignor, "topics": {f"roll-{protocol}": partitions},
             "members": group, "events": events, "until_ms": until, "measure_from_ms": start_ms,
             "rebuild_ms_per_partition": 0}
            for label, protocol, assignor in SLOW_MEMBER_PROTOCOLS]


def _roll_row(where: str, s: Mapping[str, Any], summary: Mapping[str, Any]) -> Dict[str, Any]:
    return {"where": where, "protocol": s["id"], "rebalances": summary["rebalances"],
            "moved_partitions": summary["moved_partitions"], "partitions_stopped": summary["partitions_stopped"],
            "unowned_partition_seconds": summary["unowned_partition_seconds"]}


def rolling_restart(members: int = 3, *, on_kafka: bool = False, cluster: Optional[Any] = None,
                    **kwargs: Any) -> List[Dict[str, Any]]:
    """:func:`rolling_restart_scenarios` (``kwargs`` are its other parameters) run by ``simulate``, and with
    ``on_kafka`` also by real consumers on a real broker, side by side (:func:`side_by_side_on_kafka`, on
    ``cluster`` if given).  One row per run and protocol: where it ran, the rebalances completed, the partitions
    moved, the partitions stopped (revoked or lost) and ``unowned_partition_seconds`` (a restarted member's
    partitions stand unowned while its process is down, unless the group hands them on).

    Defined in chapter 18, *Moving to KIP-848*."""
    return restart_and_storm(on_kafka=on_kafka, cluster=cluster, restart=dict(kwargs, members=members),
                             storm=None)["rolling restart"]


def restart_and_storm(*, on_kafka: bool = False, cluster: Optional[Any] = None,
                      restart: Optional[Mapping[str, Any]] = None, storm: Optional[Mapping[str, Any]] = None
                      ) -> Dict[str, List[Dict[str, Any]]]:
    """:func:`rolling_restart` with the parameters ``restart`` and :func:`join_storm` with the parameters
    ``storm`` (``None``: that one is not run; ``{}``: its defaults), under ``"rolling restart"`` and
    ``"join storm"``; with ``on_kafka`` their real runs all at once on one broker (:func:`side_by_side_on_kafka`:
    six groups side by side, on ``cluster`` if given).

    Defined in chapter 18, *Moving to KIP-848*."""
    from ..simulate import simulate_scenario

    parts = []
    if restart is not None:
        parts.append(("rolling restart", rolling_restart_scenarios(**restart), _roll_row))
    if storm is not None:
        parts.append(("join storm", join_storm_scenarios(**storm), _storm_row))
    out = {name: [row("simulator", s, simulate_scenario(s).summary()) for s in scenarios]
           for name, scenarios, row in parts}
    if on_kafka and parts:
        summaries = iter(side_by_side_on_kafka([s for _, scenarios, _ in parts for s in scenarios], cluster))
        for name, scenarios, row in parts:
            out[name] += [row("Kafka broker", s, next(summaries)) for s in scenarios]
    return out


#: the ways of running a group :func:`rebuild_ranking` ranks: :data:`SENSITIVITY_PROTOCOLS` and eager with
#: StickyAssignor (the eager protocol with an assignor that moves as little as cooperative-sticky)
REBUILD_PROTOCOLS = SENSITIVITY_PROTOCOLS[:1] + (("eager (sticky)", "eager", "sticky"),) + SENSITIVITY_PROTOCOLS[1:]


def _mean_costs(poll_processing_ms: int, scenario: str, members: int, topics: Optional[Mapping[str, int]],
                offsets_ms: Sequence[int], protocols: Sequence[Tuple[Any, ...]], **kwargs: Any
                ) -> Dict[str, Dict[str, float]]:
    """Per protocol label: the means over ``offsets_ms`` of :func:`compare_protocols`' unowned
    partition-seconds, partitions moved and processing-stopped member-seconds."""
    runs = [compare_protocols(scenario, members, topics, start_ms=60_000 + offset,
                              poll_processing_ms=poll_processing_ms, protocols=protocols, rebuild_ms_per_partition=0,
                              **kwargs) for offset in offsets_ms]
    out = {}
    for k, entry in enumerate(protocols):
        per = [run[k] for run in runs]
        out[entry[0]] = {name: sum(r[name] for r in per) / len(per) for name in
                         ("unowned_partition_seconds", "partitions_moved", "processing_stopped_member_seconds")}
    return out


def rebuild_ranking(rebuild_ms_per_partition: Sequence[int] = (0, 500, 1_000, 2_000, 5_000), *,
                    poll_processing_ms: int = 500, scenario: str = "rolling_restart", members: int = 4,
                    topics: Optional[Mapping[str, int]] = None, offsets_ms: Sequence[int] = (0, 1_500),
                    protocols: Sequence[Tuple[Any, ...]] = REBUILD_PROTOCOLS, **kwargs: Any) -> List[Dict[str, Any]]:
    """The ranking of :func:`processing_sensitivity` (one rolling restart by default, at one time per
    ``poll()`` batch, averaged over ``offsets_ms``) once each moved partition costs ``rebuild_ms_per_partition``
    ms of restoring state or warming a cache (:class:`~rebalance.protocol.ledger.StopMeasures`; the runs are
    the same for every rebuild time, only the charge changes).  One row per (rebuild time, protocol): the mean
    unowned partition-seconds, partitions moved, the rebuild cost, ``unprocessed_partition_seconds`` (their
    sum), processing-stopped member-seconds, and ``rank`` by unprocessed partition-seconds (1 = fewest).

    Defined in chapter 7, *Eager and incremental cooperative rebalancing*."""
    costs = _mean_costs(_ms(poll_processing_ms, "poll_processing_ms"), scenario, members, topics, offsets_ms,
                        protocols, **kwargs)
    rows = []
    for i, r in enumerate(rebuild_ms_per_partition):
        _ms(r, f"rebuild_ms_per_partition[{i}]")
        block = []
        for label, c in costs.items():
            rebuild = round(c["partitions_moved"] * r / 1000, 3)
            block.append({"rebuild per partition (s)": r / 1000, "protocol": label,
                          "unowned_partition_seconds": round(c["unowned_partition_seconds"], 3),
                          "partitions_moved": c["partitions_moved"], "rebuild_cost": rebuild,
                          "unprocessed_partition_seconds": round(c["unowned_partition_seconds"] + rebuild, 3),
                          "processing_stopped_member_seconds": round(c["processing_stopped_member_seconds"], 3)})
        order = sorted(range(len(block)), key=lambda k: (block[k]["unprocessed_partition_seconds"], k))
        for rank, k in enumerate(order, start=1):
            block[k]["rank"] = rank
        rows.extend(block)
    return rows


def rebuild_break_even(*, poll_processing_ms: int = 500, scenario: str = "rolling_restart", members: int = 4,
                       topics: Optional[Mapping[str, int]] = None, offsets_ms: Sequence[int] = (0, 1_500),
                       protocols: Sequence[Tuple[Any, ...]] = REBUILD_PROTOCOLS, **kwargs: Any) -> List[Dict[str, Any]]:
    """Where :func:`rebuild_ranking` flips: the protocol with the fewest unowned partition-seconds without a
    rebuild (the ``leader``), and for every other protocol the rebuild time per moved partition above which it
    leaves fewer partition-seconds unprocessed than the leader (the unowned partition-seconds plus
    moved partitions x rebuild time are equal there); ``None`` if it never does (it moves as many partitions or
    more).  One row per other protocol, the lowest break-even first.

    Defined in chapter 7, *Eager and incremental cooperative rebalancing*."""
    costs = _mean_costs(_ms(poll_processing_ms, "poll_processing_ms"), scenario, members, topics, offsets_ms,
                        protocols, **kwargs)
    leader = min(costs, key=lambda p: costs[p]["unowned_partition_seconds"])
    lead = costs[leader]
    rows = []
    for label, c in costs.items():
        if label == leader:
            continue
        fewer = lead["partitions_moved"] - c["partitions_moved"]
        at = (c["unowned_partition_seconds"] - lead["unowned_partition_seconds"]) / fewer if fewer > 0 else None
        rows.append({"poll_processing_ms": poll_processing_ms, "leader": leader, "protocol": label,
                     "moves fewer partitions": fewer,
                     "overtakes above (s per partition)": None if at is None else round(at, 3)})
    return sorted(rows, key=lambda r: (r["overtakes above (s per partition)"] is None,
                                       r["overtakes above (s per partition)"] or 0.0))
