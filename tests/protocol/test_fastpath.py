"""The heartbeat fast path gives the step-by-step run exactly (``rebalance.protocol.fastpath``).

Hypothesis draws a group (2-5 members, some static, eager or cooperative), a timing (poll processing time,
commit on revoke, network latency, session timeout) and a schedule of joins, graceful leaves, crashes and
restarts; the same scenario runs with ``fast_heartbeats`` on and off, and every recorded event, message,
message count (Heartbeats included), ownership interval and the metrics must be equal.  A second test does
the same for the seeded random fault schedules of ``test_invariants.py`` (leader lost, coordinator failover,
slow members, late joiners), and a third checks that the fast path really skips work in a quiet group.
"""
from hypothesis import given, settings, strategies as st

from rebalance.protocol.config import ProtocolConfig
from rebalance.protocol.scenarios import random_schedule, rolling_restart
from rebalance.protocol.simulation import GroupSimulation


def record(sim: GroupSimulation) -> tuple:
    """Everything a run produces that a reader or a test can see."""
    return ([(e.time_ms, e.actor, e.kind, repr(e.fields)) for e in sim.events],
            [(m.api, m.kind, m.src, m.dst, m.sent_ms, repr(m.fields)) for m in sim.messages],
            sorted(sim.message_counts.items()), repr(sim.ownership.intervals), sim.metrics(),
            sim.assignment(), sim.coordinator.generation, sim.clock.now_ms)


OPS = ("join", "leave", "crash", "restart")


@st.composite
def scenarios(draw):
    protocol = draw(st.sampled_from(["eager", "cooperative"]))
    n = draw(st.integers(2, 5))
    static = [draw(st.booleans()) for _ in range(n)]
    config = ProtocolConfig(session_timeout_ms=draw(st.sampled_from([6_000, 10_000, 45_000])),
                            heartbeat_interval_ms=draw(st.sampled_from([1_000, 3_000])),
                            poll_processing_ms=draw(st.sampled_from([0, 300, 500, 2_000])),
                            revoke_ms=draw(st.sampled_from([0, 100, 1_000])),
                            network_ms=draw(st.sampled_from([1, 2, 7])),
                            initial_rebalance_delay_ms=draw(st.sampled_from([0, 3_000])),
                            max_poll_interval_ms=60_000)
    events = draw(st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, n), st.integers(5_000, 120_000)),
                           max_size=8))
    return protocol, static, config, events


def build(protocol, static, config, events, fast, summary_from=None):
    """The drawn group and schedule, in a simulation with or without the fast path (and, for
    ``test_summary_mode``, kept for its summary only from ``summary_from`` on)."""
    sim = GroupSimulation({"t": 6, "u": 3}, config, record_heartbeats=False, fast_heartbeats=fast,
                          summary_from=summary_from)
    assignor = "cooperative-sticky" if protocol == "cooperative" else "range"
    n = len(static)
    for i, s in enumerate(static):
        sim.add_member(f"c{i + 1}", 0, assignors=(assignor,), protocol=protocol, instance_id=f"i{i + 1}" if s else None)
    for k, (op, who, at) in enumerate(sorted(events, key=lambda e: e[2])):
        name = f"c{who + 1}" if who < n else f"late{k}"
        if op == "join" or who >= n:  # a new consumer, static half of the time
            sim.add_member(f"late{k}", at, assignors=(assignor,), protocol=protocol,
                           instance_id=f"j{k}" if who % 2 else None)
        elif op == "leave":
            sim.shutdown(name, at)
        elif op == "crash":
            sim.crash(name, at)
        else:
            sim.restart(name, at)
    return sim


@settings(max_examples=30, deadline=None)
@given(scenarios())
def test_fast_path_equals_step_by_step_on_random_schedules(scenario):
    runs = []
    for fast in (True, False):
        sim = build(*scenario, fast=fast)
        sim.run(60_000)          # two run() calls: the fast path must also stop and resume cleanly
        sim.run(200_000)
        runs.append(record(sim))
    assert runs[0] == runs[1]


def test_fast_path_equals_step_by_step_on_seeded_fault_schedules():
    for seed in range(40):
        runs = []
        for fast in (True, False):
            rs = random_schedule(seed, fast_heartbeats=fast)
            rs.sim.run(rs.end_ms)
            runs.append(record(rs.sim))
        assert runs[0] == runs[1], seed


def test_fast_path_skips_the_heartbeats_of_a_quiet_group():
    """A static rolling restart (no rebalance at all): step by step, almost every event is a heartbeat;
    the fast path runs a small fraction of them and counts the same Heartbeats."""
    events, heartbeats = {}, {}
    for fast in (True, False):
        sim = rolling_restart(20, {"t": 60}, static=True, gap_ms=20_000, run=False, fast_heartbeats=fast)
        events[fast] = sim.run_clock(600_000)
        heartbeats[fast] = sim.message_counts["Heartbeat"]
    assert heartbeats[True] == heartbeats[False] > 0
    assert events[True] * 10 < events[False]
