"""The timeout rules (``rebalance.timeouts.rules``), their runs and the deployments' values."""
from __future__ import annotations

import pytest

from rebalance.errors import InputError
from rebalance.kafka import default_of
from rebalance.kip848 import KIP848Config
from rebalance.protocol import GroupSimulation, ProtocolConfig
from rebalance.timeouts import (DEPLOYMENTS, RULES, consumer_group_timings, consumer_protocol_client,
                                grace_covers_close, grace_run, heartbeat_interval, initial_delay_covers_starts,
                                initial_delay_run, pause_run, pause_within_session, poll_interval_covers_batch,
                                poll_timeout_run, rebalance_timeout_stall, recommend, session_bounds, session_bounds_run,
                                stall_run, static_restart_run, static_session_covers_restart)


def test_the_simulators_defaults_are_the_jars():
    p, k = ProtocolConfig(), KIP848Config()
    assert (p.session_timeout_ms, p.heartbeat_interval_ms, p.max_poll_interval_ms, p.max_poll_records) == (
        default_of("session.timeout.ms"), default_of("heartbeat.interval.ms"), default_of("max.poll.interval.ms"),
        default_of("max.poll.records"))
    assert (p.initial_rebalance_delay_ms, p.group_min_session_timeout_ms, p.group_max_session_timeout_ms) == (
        default_of("group.initial.rebalance.delay.ms"), default_of("group.min.session.timeout.ms"),
        default_of("group.max.session.timeout.ms"))
    assert (k.session_timeout_ms, k.heartbeat_interval_ms) == (
        default_of("group.consumer.session.timeout.ms"), default_of("group.consumer.heartbeat.interval.ms"))


def test_every_rule_holds_for_kafkas_defaults_and_breaks_on_a_planted_case():
    s, h = default_of("session.timeout.ms"), default_of("heartbeat.interval.ms")
    cs, ch = default_of("group.consumer.session.timeout.ms"), default_of("group.consumer.heartbeat.interval.ms")
    bounds = [default_of(f"group.consumer.{x}") for x in ("min.session.timeout.ms", "max.session.timeout.ms",
                                                          "min.heartbeat.interval.ms", "max.heartbeat.interval.ms")]
    low, high = default_of("group.min.session.timeout.ms"), default_of("group.max.session.timeout.ms")
    holds = [heartbeat_interval(s, h), session_bounds(s, low, high), poll_interval_covers_batch(300_000, 500),
             rebalance_timeout_stall(300_000, 300_000), pause_within_session(s, h, 10_000),
             initial_delay_covers_starts(3_000, 1_000), static_session_covers_restart(s, h, 30_000),
             grace_covers_close(30_000, 5_000), consumer_protocol_client("consumer", ["max.poll.interval.ms"]),
             consumer_group_timings(cs, ch, *bounds)]
    assert holds == [None] * len(RULES)
    planted = [heartbeat_interval(s, s), heartbeat_interval(s, 20_000), session_bounds(5_000, low, high),
               session_bounds(2_400_000, low, high), poll_interval_covers_batch(30_000, 40_000),
               rebalance_timeout_stall(300_000, 60_000), pause_within_session(s, h, 42_000),
               initial_delay_covers_starts(3_000, 5_000), static_session_covers_restart(s, h, 42_000),
               grace_covers_close(30_000, 30_000), consumer_protocol_client("consumer", ["session.timeout.ms"]),
               consumer_group_timings(cs, cs, *bounds)]
    assert all(b is not None for b in planted)
    assert {b.rule for b in planted} == set(RULES)  # type: ignore[union-attr]
    assert [b.refused for b in planted] == [True, False, True, True, False, False, False, False, False, False,
                                            True, True]  # type: ignore[union-attr]


def test_rule_details():
    assert rebalance_timeout_stall(300_000, 60_000, "consumer") is None  # no barrier under KIP-848
    b = consumer_protocol_client("consumer", ["session.timeout.ms", "heartbeat.interval.ms"])
    assert b is not None and "heartbeat.interval.ms, session.timeout.ms cannot be set when group.protocol=CONSUMER" in b.effect
    assert consumer_protocol_client("classic", ["session.timeout.ms"]) is None
    b = consumer_group_timings(45_000, 16_000, 45_000, 60_000, 5_000, 15_000)
    assert b is not None and b.setting == "group.consumer.heartbeat.interval.ms" and "less than or equal" in b.condition
    with pytest.raises(InputError) as e:
        heartbeat_interval(-1, 3_000)
    assert e.value.field == "session_timeout_ms"
    with pytest.raises(InputError) as e:
        rebalance_timeout_stall(1, 1, "Classic")
    assert e.value.field == "group_protocol"


def test_a_pause_past_the_session_less_a_heartbeat_removes_the_member():
    assert pause_run(41_000)["removed in"] == "0 of 4 runs"   # 41 s < 45 s - 3 s
    assert pause_run(44_000)["removed in"] != "0 of 4 runs"
    assert pause_run(30_000, heartbeat_interval_ms=20_000)["removed in"] != "0 of 4 runs"  # 30 s >= 45 - 20 s


def test_the_pause_is_the_same_with_and_without_the_heartbeat_fast_path():
    runs = []
    for fast in (True, False):
        sim = GroupSimulation({"t": 6}, ProtocolConfig(), record_heartbeats=False, fast_heartbeats=fast)
        for name in ("c1", "c2", "c3"):
            sim.add_member(name, 0)
        sim.pause("c2", 20_500, 43_500)
        sim.run(150_000)
        runs.append(([(e.time_ms, e.actor, e.kind) for e in sim.events if e.kind != "fault"], sim.metrics(0)))
    assert runs[0] == runs[1]
    with pytest.raises(InputError):
        GroupSimulation({"t": 1}).pause("c1", 0, -1)


def test_the_runs_show_what_breaking_does():
    assert poll_timeout_run(20_000, 30_000)["rebalances"] == 0
    assert poll_timeout_run(40_000, 30_000)["rebalances"] > 5
    long, short = stall_run(300_000, "eager"), stall_run(60_000, "eager")
    assert long["stopped member-s"] > 5 * short["stopped member-s"] > 0
    assert stall_run(300_000, "consumer")["first work after s"] < 10 < long["first work after s"]
    assert initial_delay_run(3_000, 2_000)["rebalances"] == 1 < initial_delay_run(3_000, 5_000)["rebalances"]
    assert static_restart_run(45_000, 30_000)["rebalances"] == 0 < static_restart_run(45_000, 60_000)["rebalances"]
    assert grace_run(30_000, 40_000)["killed"] and not grace_run(30_000, 5_000)["killed"]
    assert grace_run(30_000, 40_000)["unowned partition-s"] > grace_run(30_000, 5_000)["unowned partition-s"]
    assert session_bounds_run(5_000)["JoinGroup answer"] == "INVALID_SESSION_TIMEOUT"
    assert session_bounds_run(45_000) == {"JoinGroup answer": "NONE", "partitions owned": 2}


def test_the_deployments_values_break_no_rule():
    for d in DEPLOYMENTS:
        r = recommend(d)
        s, h = r.settings["session.timeout.ms"], r.settings["heartbeat.interval.ms"]
        assert heartbeat_interval(s, h) is None and pause_within_session(s, h, d.longest_pause_ms) is None
        assert not d.static or static_session_covers_restart(s, h, d.restart_ms) is None
        chosen = next(row for row in r.candidates if row["session.timeout.ms"] == s)
        assert chosen["rule broken"] == ""
        assert all(row["rule broken"] or row["unowned partition-s"] >= chosen["unowned partition-s"]
                   for row in r.candidates)
        assert ("terminationGracePeriodSeconds" in r.settings) == d.kubernetes
