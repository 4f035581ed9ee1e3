"""Two owners of one partition: simulator bugs (regressions) versus Kafka's zombie window.

Chapter 13's first stored Monte Carlo run (2,000 disturbances x 3 set-ups, seed 2026) reported 14 runs,
all rolling restarts under ``eager`` or ``static`` with ``revoke_ms`` 200 or 1,000, in which a partition
had two owners at once.  Replayed with the simulator of that time, every one of the 104 overlaps was the
same defect: a consumer whose ``close()`` started while it was inside a rebalance (eager revocation before
JoinGroup, or a JoinGroup/SyncGroup in flight) still sent its JoinGroup and took up the partitions of a
late SyncGroup response, after it had sent LeaveGroup, while the coordinator gave them to others.  Kafka
cannot do that: ``KafkaConsumer.close`` runs on the application thread, after ``poll()`` returned
(``AbstractCoordinator.close``: ``onLeavePrepare`` then ``maybeLeaveGroup``), and the consumer never polls
again, so no JoinGroup or assignment can follow it.  They are simulator bugs, fixed; the runs' parameters
are replayed below as regression tests.

A real overlap does exist in Kafka: a member dropped by the coordinator while its application thread is
still processing (poll timeout, fenced static member) keeps processing until its next ``poll()`` /
heartbeat.  The ledger counts it as ``zombie_overlap``, never as ``double_ownership``.
"""
import pytest

from rebalance.protocol.config import ProtocolConfig
from rebalance.protocol.ledger import OwnershipLedger
from rebalance.protocol.scenarios import rolling_restart
from rebalance.protocol.simulation import GroupSimulation

from .standin import cooperative_standin, range_standin

STANDINS = {"range": range_standin, "cooperative-sticky": cooperative_standin}
START_MS, SETTLE_MS = 60_000, 150_000  # the Monte Carlo job's rolling-restart timing

#: (simulation, set-up, members, topics, down_ms, gap_ms, revoke_ms, network_ms, overlaps the old simulator reported):
#: the 14 runs of chapter 13's first Monte Carlo store (members = c1..cN bounced in name order)
MONTECARLO_RUNS = [
    (63, "eager", 5, {"t0": 22, "t1": 6}, 37897, 40394, 1000, 1, 6),
    (251, "eager", 6, {"t0": 22, "t1": 18}, 59854, 62992, 1000, 2, 2),
    (251, "static", 6, {"t0": 22, "t1": 18}, 59854, 62992, 1000, 2, 2),
    (375, "eager", 6, {"t0": 12, "t1": 15}, 41716, 22325, 1000, 1, 42),
    (713, "eager", 7, {"t0": 10}, 54692, 57488, 1000, 2, 2),
    (713, "static", 7, {"t0": 10}, 54692, 57488, 1000, 2, 2),
    (1183, "static", 11, {"t0": 21, "t1": 17}, 54662, 45260, 1000, 2, 24),
    (1466, "eager", 6, {"t0": 1, "t1": 23}, 39784, 41585, 200, 2, 1),
    (1491, "eager", 8, {"t0": 19, "t1": 19}, 37780, 40925, 200, 5, 8),
    (1500, "eager", 3, {"t0": 15}, 59465, 61507, 1000, 1, 2),
    (1500, "static", 3, {"t0": 15}, 59465, 61507, 1000, 1, 2),
    (1764, "eager", 9, {"t0": 13}, 22661, 23265, 200, 1, 2),
    (1964, "eager", 9, {"t0": 21}, 55116, 56169, 1000, 2, 3),
    (1964, "static", 9, {"t0": 21}, 55116, 56169, 1000, 2, 6),
]


def run_until_revoke(sim, name, limit=20_000):
    """Advance until ``name`` starts onPartitionsRevoked; its start time."""
    while sim.clock.now_ms < limit:
        times = [e.time_ms for e in sim.events if e.actor == name and e.kind == "revoke"]
        if times:
            return times[0]
        sim.run(sim.clock.now_ms + 1)
    raise AssertionError(f"{name} never revoked")


def closes_then_acquires(sim):
    """(member, close time, acquire time) for every process that took up a partition after its close()."""
    out = []
    closed_at = {}
    for e in sim.events:
        if e.kind == "member" and e.fields.get("what") == "start":
            closed_at.pop(e.actor, None)
        elif e.kind == "member" and e.fields.get("what") == "close":
            closed_at[e.actor] = e.time_ms
        elif e.kind == "assigned" and e.actor in closed_at:
            out.append((e.actor, closed_at[e.actor], e.time_ms))
    return out


@pytest.mark.parametrize("run", MONTECARLO_RUNS, ids=lambda r: f"{r[0]}-{r[1]}")
def test_montecarlo_runs_with_two_owners_are_fixed(run):
    index, mode, members, topics, down, gap, revoke, network, _old = run
    cfg = ProtocolConfig.instant(revoke_ms=revoke, network_ms=network)
    sim = rolling_restart(members, topics, protocol="eager", static=mode == "static",
                          assignor="range", down_ms=down, gap_ms=gap, start_ms=START_MS, settle_ms=SETTLE_MS,
                          config=cfg)
    m = sim.metrics(measure_from=START_MS)
    assert closes_then_acquires(sim) == []
    assert sim.ownership.violations == [] and m.double_ownership == 0 and m.zombie_overlap == 0
    assert m.settled


def test_run_1466_closing_member_does_not_rejoin_after_its_eager_revocation():
    """Run 1466 (eager): c5 starts its eager revocation at 226,264 for a rebalance, is closed at 226,340
    (the next rolling-restart step), and used to send its JoinGroup at 226,464 and take t1-16..t1-19 at
    226,472 although it left the group; c6 then got t1-19 too.  (The run had ``down_ms`` 39,784 when a bounced
    member's new process started ``down_ms`` after the shutdown event; since it starts ``down_ms`` after the old
    process has stopped, 39,016 gives the same schedule.)"""
    cfg = ProtocolConfig.instant(revoke_ms=200, network_ms=2)
    sim = rolling_restart(6, {"t0": 1, "t1": 23}, protocol="eager", assignor="range", down_ms=39016,
                          gap_ms=41585, start_ms=START_MS, settle_ms=SETTLE_MS, config=cfg)
    revoke = [e.time_ms for e in sim.events if e.actor == "c5" and e.kind == "revoke" and 226_000 < e.time_ms < 227_000]
    close = [e.time_ms for e in sim.events if e.actor == "c5" and e.fields.get("what") == "close"]
    assert revoke[0] == 226_264 and 226_340 in close  # the schedule still hits the revocation window
    joins = [m for m in sim.messages if m.src == "c5" and m.api == "JoinGroup" and 226_340 <= m.sent_ms < 260_000]
    assert joins == []
    assert closes_then_acquires(sim) == [] and sim.ownership.violations == []


def test_close_during_eager_revocation_sends_no_joingroup():
    cfg = ProtocolConfig.instant(initial_rebalance_delay_ms=0, revoke_ms=1000)
    sim = GroupSimulation({"t": 4}, cfg, assignors=STANDINS)
    sim.start_stable({"c1": [("t", 0), ("t", 1)], "c2": [("t", 2), ("t", 3)]})
    sim.add_member("c3", 1000)
    t = run_until_revoke(sim, "c1")
    c1 = sim.members["c1"]
    assert c1.joining and c1.owned == []  # inside onPartitionsRevoked, JoinGroup not sent yet
    sim.shutdown("c1", t + 500)
    sim.run(40_000)
    late = [m for m in sim.messages if m.src == "c1" and m.api == "JoinGroup" and m.sent_ms >= t]
    assert late == [] and closes_then_acquires(sim) == [] and sim.ownership.violations == []
    assert sim.is_settled() and sorted(sim.assignment()) == ["c2", "c3"]


def swap_assignor(partitions, members):
    """A KIP-429-valid assignor for the test below: the first member owning two or more partitions gives up
    its lowest one and, in the same round, gains every unowned partition; otherwise the sticky stand-in."""
    owned = {m: sorted(tuple(tp) for tp in meta["owned"]) for m, meta in members.items()}
    taken = {tp for v in owned.values() for tp in v}
    free = [(t, p) for t in sorted(partitions) for p in range(partitions[t]) if (t, p) not in taken]
    rich = [m for m in sorted(owned) if len(owned[m]) >= 2]
    if free and rich:
        out = {m: list(v) for m, v in owned.items()}
        out[rich[0]] = owned[rich[0]][1:] + free
        return out
    return cooperative_standin(partitions, members)


swap_assignor.rebalance_protocols = ("cooperative", "eager")


def test_close_during_cooperative_revocation_takes_up_nothing():
    """Cooperative: c1 loses t-0 and gains t-2 in one assignment; it revokes t-0 first and takes up t-2
    after the callback.  A close() during that callback must not take up t-2."""
    cfg = ProtocolConfig.instant(initial_rebalance_delay_ms=0, revoke_ms=1000)
    sim = GroupSimulation({"t": 3}, cfg, assignors={"swap": swap_assignor})
    sim.start_stable({"c1": [("t", 0), ("t", 1)], "c2": []}, assignors=("swap",))
    sim.add_member("c3", 1000, assignors=("swap",))
    t = run_until_revoke(sim, "c1")
    assert [e.fields["partitions"] for e in sim.events if e.actor == "c1" and e.kind == "revoke"] == [[("t", 0)]]
    sim.shutdown("c1", t + 500)  # in the middle of onPartitionsRevoked
    sim.run(60_000)
    assert closes_then_acquires(sim) == [] and sim.ownership.violations == []
    assert not any(iv.member == "c1" and iv.partition == ("t", 2) for iv in sim.ownership.intervals)
    assert sim.is_settled() and sorted(sim.assignment()) == ["c2", "c3"]


def test_poll_timeout_zombie_is_classified_apart():
    """Kafka's zombie: c2 stops polling at 0.5 s for 15 s; at 10.5 s (max.poll.interval.ms) its heartbeat
    thread sends LeaveGroup and resets the generation, the rebalance completes and c3 gets t-2 and t-3 at
    10,504 ms -- while c2's application thread is still in its batch.  c2 only calls onPartitionsLost at
    its next poll() (15.5 s).  Both process t-2/t-3 in [10504, 15500): a zombie overlap, not a double
    assignment."""
    cfg = ProtocolConfig.instant(initial_rebalance_delay_ms=0, max_poll_interval_ms=10_000, session_timeout_ms=6000,
                         heartbeat_interval_ms=1000)
    sim = GroupSimulation({"t": 4}, cfg, assignors=STANDINS)
    sim.start_stable({"c1": [("t", 0), ("t", 1)], "c2": [("t", 2), ("t", 3)]})
    sim.slow("c2", 500, 15_000)
    sim.add_member("c3", 1000)
    sim.run(60_000)
    assert sim.ownership.zombie_overlaps == [(10_504, ("t", 2), ("c2", "c3")), (10_504, ("t", 3), ("c2", "c3"))]
    assert sim.ownership.double_assignments == []
    m = sim.metrics()
    assert m.zombie_overlap == 2 and m.double_ownership == 0 and m.settled
    c2_old = [iv for iv in sim.ownership.intervals if iv.member == "c2" and iv.start_ms == 0]
    assert {(iv.end_ms, iv.end_reason) for iv in c2_old} == {(15_500, "lost")}


def test_fenced_static_duplicate_is_a_zombie_overlap():
    """A second process with c2's group.instance.id replaces it; the old one processes t-1 until its next
    heartbeat is answered FENCED_INSTANCE_ID: a zombie overlap (KIP-345), not a double assignment."""
    sim = GroupSimulation({"t": 2}, ProtocolConfig.instant(initial_rebalance_delay_ms=0), assignors=STANDINS)
    sim.start_stable({"c1": [("t", 0)], "c2": [("t", 1)]}, instance_ids={"c1": "a", "c2": "b"})
    sim.start_duplicate("c2", 4500, "c2-copy")
    sim.run(20_000)
    m = sim.metrics()
    assert m.zombie_overlap == 1 and m.double_ownership == 0
    assert sim.ownership.zombie_overlaps == sim.ownership.violations


def test_ledger_classifies_by_group_membership():
    members = {"a", "b"}
    led = OwnershipLedger([("t", 0), ("t", 1)], is_member=lambda n: n in members)
    led.acquire("a", [("t", 0)], 1)
    led.acquire("b", [("t", 0)], 2)          # a still in the group: double assignment
    led.acquire("z", [("t", 1)], 3)
    led.acquire("b", [("t", 1)], 4)          # z is not a member: zombie
    assert led.double_assignments == [(2, ("t", 0), ("a", "b"))]
    assert led.zombie_overlaps == [(4, ("t", 1), ("z", "b"))]
    assert len(led.violations) == 2
