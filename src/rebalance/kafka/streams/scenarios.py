"""Chapter 15's scenario on a real broker: :func:`scale_out_and_in`.

Two instances with state, a third joining (warm-ups, a probing rebalance scheduled), optionally the probing
rebalance ``probing.rebalance.interval.ms`` (at least 60 s, ``StreamsConfig``) later, and one instance leaving;
every rebalance the leader logged replayed through the book's ``HighAvailabilityTaskAssignor``
(:mod:`rebalance.kafka.streams.replay`).  Optionally the same scale-out and scale-in of a second application
with ``group.protocol=streams`` (KIP-1071), set against the book's ``StickyTaskAssignor``.  The instances run
on a broker of :class:`rebalance.kafka.cluster.KafkaCluster` with :data:`STREAMS_BROKER_CONFIG`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Tuple, Union

from ...streams import AssignmentConfigs
from .assignor_log import StreamsRebalance
from .instances import STREAMS_SETTINGS, StreamsInstances
from .replay import compare_rebalance, next_group_spec, predict_rebalance, sticky_prediction, streams_configs

__all__ = ["StreamsScenario", "scale_out_and_in", "STREAMS_BROKER_CONFIG", "STREAMS_GROUP_SETTINGS"]

#: a new group's first rebalance is not held back (``group.initial.rebalance.delay.ms``, default 3000, and for
#: streams groups ``group.streams.initial.rebalance.delay.ms``, default 3000); streams group members heartbeat
#: every 500 ms instead of 5 s (``group.streams.heartbeat.interval.ms`` and its minimum, ``GroupCoordinatorConfig``),
#: so that a revocation and the assignment after it take well under a second
STREAMS_BROKER_CONFIG: Dict[str, Union[str, int, float, bool]] = {
    "group.initial.rebalance.delay.ms": 0, "group.streams.initial.rebalance.delay.ms": 0,
    "group.streams.min.heartbeat.interval.ms": 500, "group.streams.heartbeat.interval.ms": 500}
#: the streams group protocol's application settings (KIP-1071): no warm-ups exist there (Kafka warns that
#: ``max.warmup.replicas`` is ignored), the assignment is the broker's
STREAMS_GROUP_SETTINGS: Dict[str, object] = {"group.protocol": "streams", "num.stream.threads": 1,
                                             "statestore.cache.max.bytes": 0, "commit.interval.ms": 500}


@dataclass
class StreamsScenario:
    """What :func:`scale_out_and_in` saw: the phases' rebalances and the instances' own task views."""

    configs: AssignmentConfigs
    phases: List[Tuple[str, List[StreamsRebalance]]] = field(default_factory=list)
    views: Dict[str, Dict[str, Tuple[List[str], List[str], str]]] = field(default_factory=dict)
    records_counted: int = 0
    records_produced: int = 0
    #: with ``streams_group``: the KIP-1071 run, per phase and instance (the instance's tasks, the coordinator's
    #: target assignment and the book's StickyTaskAssignor)
    streams_group_rows: List[Dict[str, object]] = field(default_factory=list)

    def table(self) -> List[Dict[str, object]]:
        """One row per (phase, rebalance, instance): :func:`compare_rebalance`'s row and the probing flags."""
        rows: List[Dict[str, object]] = []
        for phase, rebalances in self.phases:
            for k, r in enumerate(rebalances, 1):
                probing = predict_rebalance(r, self.configs).probing_rebalance_needed
                for row in compare_rebalance(r, self.configs):
                    rows.append({"phase": phase, "rebalance": k, **row, "probing_logged": r.probing_scheduled,
                                 "probing_predicted": probing,
                                 "followup_as_predicted": r.followup_as_predicted(probing)})
        return rows

    def summary(self) -> List[Dict[str, object]]:
        """One row per rebalance: clients, whether every instance's tasks equal the book's, warm-ups, probing."""
        rows: List[Dict[str, object]] = []
        for phase, rebalances in self.phases:
            for k, r in enumerate(rebalances, 1):
                result = predict_rebalance(r, self.configs)
                cmp = compare_rebalance(r, self.configs)
                rows.append({"phase": phase, "rebalance": k, "clients": len(r.clients),
                             "actives_per_instance": " ".join(str(len(r.assignment[p][0])) for p in sorted(
                                 r.assignment, key=lambda p: r.instances.get(p, "?"))),
                             "book_warmups": result.warmup_count(), "all_equal": all(c["equal"] for c in cmp),
                             "probing_logged": r.probing_scheduled,
                             "probing_predicted": result.probing_rebalance_needed,
                             "immediate_followup": r.immediate_followup,
                             "followup_as_predicted": r.followup_as_predicted(result.probing_rebalance_needed)})
        return rows



def _streams_group_phases(bootstrap_servers: str, records: int, keys: int, partitions: int) -> List[Dict[str, object]]:
    """The same scale-out and scale-in with ``group.protocol=streams``: per phase and instance, the tasks the
    instance reports, the coordinator's target assignment (``describeStreamsGroups``) and the book's
    ``StickyTaskAssignor`` given the members, process ids and target tasks the coordinator described just before
    the change (:func:`sticky_prediction`)."""
    rows: List[Dict[str, object]] = []
    with StreamsInstances(bootstrap_servers, topic="words-sg", partitions=partitions,
                          application_id="counts-app-sg", settings=STREAMS_GROUP_SETTINGS) as app:
        app.start_instance("i1")
        app.start_instance("i2")
        app.wait_settled(timeout=60, quiet_s=3.0)
        app.produce(records, keys)
        app.wait_settled(timeout=60, quiet_s=3.0, total=records)
        before = app.describe_group()
        for phase, change in (("i3 joins", "i3"), ("i1 leaves", "i1")):
            if phase == "i3 joins":
                app.start_instance(change)
            else:
                app.stop_instance(change)
            app.pause(2.0)
            app.wait_settled(timeout=60, quiet_s=3.0)      # six heartbeats without a change
            after = app.describe_group()
            book = sticky_prediction(next_group_spec(before, after), partitions)
            ran = {m["instance"]: m["target_assignment"]["active"] for m in before["members"]}
            views = app.tasks()
            for m in sorted(after["members"], key=lambda m: m["instance"]):
                inst, broker = m["instance"], m["target_assignment"]["active"]
                real = views[inst][0] if inst in views else []
                rows.append({"phase": phase, "instance": inst, "real_active": " ".join(real),
                             "broker_target": " ".join(broker), "book_active": " ".join(book.get(m["member_id"], [])),
                             "equal": real == broker == book.get(m["member_id"]),
                             "kept": len(set(real) & set(ran.get(inst, [])))})
            before = after
        rows_total = app.count()
    for row in rows:
        row["records_counted"] = rows_total
    return rows


def _phase(app: StreamsInstances, scenario: StreamsScenario, name: str, seen: int, timeout: float = 60.0,
           follow_up_s: float = 0.0) -> int:
    """One phase of :func:`scale_out_and_in`: wait for a rebalance after the first ``seen`` (and ``follow_up_s``
    more seconds), then until the instances settle; record the phase's rebalances and the instances' own view of
    their tasks under ``name``.  Returns the rebalances seen so far."""
    app.wait_rebalances(seen + 1, timeout=timeout)
    if follow_up_s:
        app.pause(follow_up_s)
    app.wait_settled(timeout=60)
    rebalances = app.rebalances()
    scenario.phases.append((name, rebalances[seen:]))
    scenario.views[name] = app.tasks()
    return len(rebalances)


def scale_out_and_in(records: int = 6000, keys: int = 600, partitions: int = 6, wait_for_probe: bool = True,
                     settings: Optional[Mapping[str, object]] = None, probe_timeout: float = 90.0,
                     streams_group: bool = False) -> StreamsScenario:
    """Chapter 15's scenario on a one-broker cluster: ``i1`` and ``i2`` count ``records`` records (so every task
    has state: about ``records / partitions`` changelog records each); ``i3`` joins (scale-out); with
    ``wait_for_probe``, the probing rebalance ``probing.rebalance.interval.ms`` later and what follows it; then
    ``i1`` leaves (scale-in).  With ``streams_group``, the same scale-out and scale-in of a second application
    with ``group.protocol=streams`` (KIP-1071) on the same broker, while the first waits for its probing
    rebalance, into ``streams_group_rows``.  Every
    process is stopped on return or failure.

    Defined in chapter 15, *Kafka Streams: who runs which task*."""
    from ..cluster import KafkaCluster

    app_settings = dict(STREAMS_SETTINGS if settings is None else settings)
    scenario = StreamsScenario(streams_configs(app_settings), records_produced=records)
    with KafkaCluster(broker_config=STREAMS_BROKER_CONFIG) as kafka:
        with StreamsInstances(kafka.bootstrap_servers, partitions=partitions, settings=app_settings) as app:
            app.start_instance("i1")
            app.start_instance("i2")
            app.wait_settled(timeout=60)
            app.produce(records, keys)
            app.wait_settled(timeout=60, total=records)
            seen = len(app.rebalances())
            scenario.views["start"] = app.tasks()
            scenario.phases.append(("start", app.rebalances()))
            app.start_instance("i3")                       # scale-out
            seen = _phase(app, scenario, "i3 joins", seen)
            probe_due = scenario.phases[-1][1][-1].probing_scheduled  # the join's last rebalance
            if streams_group:  # meanwhile (the probing rebalance is a minute away), on the same broker
                scenario.streams_group_rows = _streams_group_phases(kafka.bootstrap_servers, records, keys,
                                                                    partitions)
            if wait_for_probe and probe_due:
                # the follow-up rebalance(s) the probe's moves need come within 1.5 s of it
                seen = _phase(app, scenario, "probing rebalance", seen, timeout=probe_timeout, follow_up_s=1.5)
            else:
                app.pause(2.0)                             # the warm-ups restore their tasks' changelogs
            app.stop_instance("i1")                        # scale-in
            _phase(app, scenario, "i1 leaves", seen)
            scenario.records_counted = app.count()
    return scenario
