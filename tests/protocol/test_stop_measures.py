"""What a rebalance costs the application: processing-stopped member-seconds and the rebuild cost.

``OwnershipLedger.stopped_ms`` / ``StopMeasures`` on hand-made timelines and on the p1/p2/p3 walkthrough of
chapter 7, whose trace gives every number; the ``simulate`` summary adds the figures only for a scenario that
asks (``rebuild_ms_per_partition``), so every summary printed before stays as it was; a property: a join into
a group where every member keeps a share stops no member under the cooperative protocol or KIP-848, and every
member that held partitions under eager.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from rebalance.errors import InputError
from rebalance.protocol import OwnershipLedger, StopMeasures
from rebalance.simulate import driver_for, parse_scenario, simulate_scenario
from rebalance.widgets.protocol import third_member_joins_example

A, B, C = ("t", 0), ("t", 1), ("t", 2)


def test_a_member_stopped_from_losing_its_last_partition_to_taking_one_up():
    ledger = OwnershipLedger([A, B, C])
    ledger.acquire("c1", [A, B], 0)
    ledger.acquire("c2", [C], 0)
    ledger.release("c1", [A], 1_000, "revoked")      # c1 still processes B: not stopped
    ledger.release("c1", [B], 2_000, "revoked")      # now nothing: stopped from 2 s
    ledger.acquire("c1", [A], 5_000)                 # ... to 5 s: 3 s
    ledger.release("c2", [C], 6_000, "lost")         # c2 stopped from 6 s
    ledger.acquire("c2", [B, C], 6_500)              # ... to 6.5 s
    ledger.acquire("c3", [], 7_000)                  # a member that never held anything is not listed
    assert ledger.stopped_ms(0, 10_000) == {"c1": 3_000, "c2": 500}
    # clipped to the window
    assert ledger.stopped_ms(3_000, 10_000) == {"c1": 2_000, "c2": 500}
    assert ledger.stopped_ms(0, 4_000) == {"c1": 2_000, "c2": 0}
    assert ledger.stopped_ms(5_000, 6_000) == {"c1": 0, "c2": 0}
    assert ledger.acquired_ms("c2", 0, 10_000) == [0, 6_500, 6_500]


def test_a_member_that_never_resumes_has_no_stop_and_a_restart_is_the_same_process():
    ledger = OwnershipLedger([A, B], process_of=lambda name: name.split("~")[0])
    ledger.acquire("c1", [A], 0)
    ledger.acquire("c2", [B], 0)
    ledger.release("c2", [B], 1_000, "revoked")      # c2 closes for good: it was not waiting
    ledger.release("c1", [A], 2_000, "revoked")      # c1 closes ...
    ledger.acquire("c1~1", [A, B], 4_500)            # ... and its restarted process takes up A and B
    assert ledger.stopped_ms(0, 10_000) == {"c1": 2_500, "c2": 0}
    assert ledger.acquired_ms("c1", 0, 10_000) == [0, 4_500, 4_500]


def test_stop_measures_charge_each_moved_partition_the_rebuild_time():
    ledger = OwnershipLedger([A, B])
    ledger.acquire("c1", [A, B], 0)
    ledger.release("c1", [A, B], 1_000, "revoked")
    ledger.acquire("c1", [A], 1_500)                 # A back to its owner: restarted, not moved
    ledger.acquire("c2", [B], 1_500)                 # B moved
    stops = ledger.stop_measures(0, 10_000, rebuild_ms_per_partition=2_500)
    assert stops == StopMeasures(0, 10_000, {"c1": 500, "c2": 0}, 1, 2_500)
    assert stops.processing_stopped_member_seconds == 0.5
    assert stops.rebuild_cost == 2.5                 # 1 moved partition x 2.5 s
    assert stops.with_rebuild(0).rebuild_cost == 0.0
    assert ledger.stop_measures(2_000, 10_000).partitions_moved == 0
    with pytest.raises(InputError) as e:
        stops.with_rebuild(-1)
    assert e.value.field == "rebuild_ms_per_partition"


def test_a_summary_only_ledger_refuses_the_stop_measures():
    ledger = OwnershipLedger([A], summary_from=0)
    with pytest.raises(InputError) as e:
        ledger.stopped_ms(0, 10)
    assert e.value.field == "stopped_ms"


def test_the_p1_p2_p3_walkthrough():
    """Chapter 7's running example (instant timing): under eager c2 revokes t-2 at 2002 ms (its heartbeat),
    c1 revokes t-0 and t-1 at 4002 ms, and all three get their partitions at 4006 ms; t-1 moves to c2 and
    t-2 to c3.  Under cooperative nobody stops; only t-1 moves (c1 -> c3, second round at 7010 ms)."""
    eager = third_member_joins_example("eager").ownership.stop_measures(1_000, 20_000, 500)
    assert eager.stopped_ms == {"c1": 4006 - 4002, "c2": 4006 - 2002, "c3": 0}
    assert eager.processing_stopped_member_seconds == 2.008
    assert (eager.partitions_moved, eager.rebuild_cost) == (2, 1.0)
    cooperative = third_member_joins_example("cooperative").ownership.stop_measures(1_000, 20_000, 500)
    assert cooperative.stopped_ms == {"c1": 0, "c2": 0, "c3": 0}
    assert (cooperative.partitions_moved, cooperative.rebuild_cost) == (1, 0.5)


JOIN = {"id": "j", "protocol": "eager", "assignor": "range", "topics": {"t": 3},
        "members": [{"id": "c1"}, {"id": "c2"}, {"id": "c3"}],
        "config": {"poll_processing_ms": 0, "revoke_ms": 0, "initial_rebalance_delay_ms": 0},
        "events": [{"at_ms": 20_000, "op": "join", "member": "c3"}], "until_ms": 40_000, "measure_from_ms": 19_000}
BEFORE = ["rebalances", "moved_partitions", "unowned_partition_seconds", "double_ownership", "zombie_overlap",
          "rebalances_started", "revocations", "partitions_stopped", "generation", "settled", "messages"]


def test_the_summary_adds_the_stop_measures_only_when_the_scenario_asks():
    plain = simulate_scenario(JOIN).summary()
    asked = simulate_scenario({**JOIN, "rebuild_ms_per_partition": 1_000}).summary()
    assert list(plain) == BEFORE
    assert list(asked) == BEFORE + ["processing_stopped_member_seconds", "members_stopped", "rebuild_cost",
                                    "join_waits_ms"]
    assert {k: asked[k] for k in BEFORE} == plain  # nothing else changes
    assert asked["rebuild_cost"] == asked["moved_partitions"] * 1.0
    wait = asked["join_waits_ms"]["c3"]
    assert wait is not None and 0 < wait < 20_000
    assert asked["processing_stopped_member_seconds"] > 0 and asked["members_stopped"] == 2  # eager: c1, c2 stop


def test_bad_stop_fields_are_named():
    with pytest.raises(InputError) as e:
        parse_scenario({**JOIN, "rebuild_ms_per_partition": -5})
    assert e.value.field == "rebuild_ms_per_partition"
    with pytest.raises(InputError) as e:
        parse_scenario({**JOIN, "members": [{"id": "c1"}, {"id": "c2", "poll_processing_ms": "slow"}, {"id": "c3"}]})
    assert e.value.field == "members[1].poll_processing_ms"
    slow = parse_scenario({**JOIN, "members": [{"id": "c1", "poll_processing_ms": 7_000}, {"id": "c3"}]})
    assert [m.poll_processing_ms for m in slow.members] == [7_000, None]


def test_a_members_own_batch_time_reaches_both_simulators():
    """c2's 8 s batches: the eager barrier waits for it (c1 stops longer); a KIP-848 c2, whose batches run
    from its first partitions at 10014 ms (it joined within the broker's 1 s assignment interval of c1's target,
    so its share waits for the heartbeats 5 s later and c1's revocation 5 s after that), gives up its partition
    for the joiner at its poll() at 26014 ms, plus the 100 ms its onPartitionsRevoked takes."""
    base = {**JOIN, "topics": {"t": 6}, "config": {"max_poll_interval_ms": 10_000}, "rebuild_ms_per_partition": 0}
    slow_members = [{"id": "c1"}, {"id": "c2", "poll_processing_ms": 8_000}, {"id": "c3"}]
    fast, slow = simulate_scenario(base), simulate_scenario({**base, "members": slow_members})
    assert slow.stops.stopped_ms["c1"] > fast.stops.stopped_ms["c1"]
    s = parse_scenario({**base, "protocol": "consumer", "assignor": "uniform", "members": slow_members})
    sim = driver_for(s)
    for m in s.members:
        sim.join(m.id, 20_000 if m.id == "c3" else 0, poll_processing_ms=m.poll_processing_ms)
    sim.run(s.until_ms)
    assert sim.ownership.acquired_ms("c2", 0, 20_000) == [10_014] * 3
    assert [t for t, member, kind, _ in sim.ownership.changes() if member == "c2" and kind == "remove"] == [26_114]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(members=st.integers(1, 4), extra=st.integers(1, 8), join_at=st.integers(10_000, 20_000),
       slow_batch=st.sampled_from([None, 2_000, 6_000]))
def test_a_join_stops_every_eager_member_and_no_incremental_one(members, extra, join_at, slow_batch):
    """A join into a group where every member keeps at least one partition (more partitions than members
    after the join): the cooperative protocol and KIP-848 never take a member's last partition, so no member
    stops, except under the cooperative protocol a slow member whose two batches exceed the rebalance timeout
    (``max.poll.interval.ms``): it reads its JoinGroup response and then the SyncGroup's REBALANCE_IN_PROGRESS a
    batch late each, and the coordinator drops it from the second round (unless it leads the group, whose first
    round ends with its own SyncGroup); eager revokes everything, so every member that held partitions stops for
    a while."""
    names = [{"id": f"c{i}"} for i in range(members)]
    if slow_batch is not None:
        names[-1] = {"id": names[-1]["id"], "poll_processing_ms": slow_batch}
    scenario = {"id": "p", "topics": {"t": members + 1 + extra}, "members": names + [{"id": "new"}],
                "config": {"max_poll_interval_ms": 10_000},
                "events": [{"at_ms": join_at, "op": "join", "member": "new"}], "until_ms": join_at + 60_000,
                "measure_from_ms": join_at - 1_000, "rebuild_ms_per_partition": 0}
    stops = {}
    for protocol in ("eager", "cooperative", "consumer"):
        out = simulate_scenario({**scenario, "protocol": protocol})
        assert out.summary()["settled"]
        stops[protocol] = out.stops
    assert all(stops["eager"].stopped_ms[m["id"]] > 0 for m in names)
    if slow_batch is None or 2 * slow_batch <= scenario["config"]["max_poll_interval_ms"]:
        assert stops["cooperative"].processing_stopped_member_seconds == 0
    else:
        assert {m for m, ms in stops["cooperative"].stopped_ms.items() if ms > 0} <= {names[-1]["id"]}
    assert stops["consumer"].processing_stopped_member_seconds == 0
