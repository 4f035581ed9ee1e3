"""Coordinator and member rules of the classic protocol, one behaviour per test."""
import pytest

from rebalance.errors import InputError, KafkaError
from rebalance.protocol.assignors import rebalance_protocol_for, validate_cooperative_assignment, consumer_assignor
from rebalance.protocol.config import ProtocolConfig
from rebalance.protocol.ledger import OwnershipLedger
from rebalance.protocol.scenarios import rolling_restart
from rebalance.protocol.simulation import GroupSimulation

from .standin import cooperative_standin, range_standin

STANDINS = {"range": range_standin, "cooperative-sticky": cooperative_standin}


def states(sim, since=0):
    return [(e.time_ms, e.fields["state"]) for e in sim.events if e.kind == "state" and e.time_ms >= since]


def test_initial_rebalance_delay_extends_while_members_arrive():
    sim = GroupSimulation({"t": 6}, ProtocolConfig.instant(initial_rebalance_delay_ms=3000), assignors=STANDINS)
    for name, at in (("c1", 0), ("c2", 2000), ("c3", 4000), ("c4", 8000)):
        sim.add_member(name, at)
    sim.run(20_000)
    # first JoinGroup with a member id reaches the coordinator at 5 ms; every 3 s the delay is extended
    # while a member arrived meanwhile: 3005, 6005, 9005 saw new members, 12005 did not
    assert states(sim) == [(5, "PreparingRebalance"), (12005, "CompletingRebalance"), (12007, "Stable")]
    assert sim.coordinator.generation == 1 and len(sim.coordinator.members) == 4


def test_without_delay_each_arrival_is_a_rebalance():
    sim = GroupSimulation({"t": 6}, ProtocolConfig.instant(initial_rebalance_delay_ms=0), assignors=STANDINS)
    for name, at in (("c1", 0), ("c2", 2000), ("c3", 4000)):
        sim.add_member(name, at)
    sim.run(20_000)
    assert sim.coordinator.generation == 3
    assert sim.is_settled()


def test_leader_is_first_member_and_hashmap_order_picks_successor():
    sim = GroupSimulation({"t": 4}, ProtocolConfig.instant(initial_rebalance_delay_ms=0), assignors=STANDINS)
    sim.start_stable({"c1": [("t", 0)], "c2": [("t", 1)], "c3": [("t", 2), ("t", 3)]})
    assert sim.coordinator.leader_id == "c1-1"
    sim.crash("c1", 1000)
    sim.run(60_000)
    # ClassicGroup.remove: the new leader is the first key of the members HashMap
    assert sim.coordinator.leader_id == sim.coordinator.member_ids()[0]
    assert sim.is_settled() and sorted(sim.assignment()) == ["c2", "c3"]


def test_session_timeout_removes_crashed_member():
    cfg = ProtocolConfig.instant(initial_rebalance_delay_ms=0, session_timeout_ms=10_000)
    sim = GroupSimulation({"t": 4}, cfg, assignors=STANDINS)
    sim.start_stable({"c1": [("t", 0), ("t", 1)], "c2": [("t", 2), ("t", 3)]})
    sim.crash("c2", 5000)
    sim.run(40_000)
    expiry = [e for e in sim.events if e.kind == "decision" and e.fields.get("what") == "sessionExpired"]
    assert len(expiry) == 1 and expiry[0].fields["member"] == "c2-2"
    # c2 heartbeats at 2000, 5000, ...; the crash at 5000 was scheduled first, so the last heartbeat
    # reached the coordinator at 2001 and the session expires 10 s later
    assert expiry[0].time_ms == 2001 + 10_000
    assert sim.assignment() == {"c1": [("t", 0), ("t", 1), ("t", 2), ("t", 3)]}


def test_static_member_bounce_within_session_timeout_keeps_assignment_without_rebalance():
    sim = rolling_restart(3, {"t": 6}, static=True, down_ms=5000, gap_ms=20_000, start_ms=10_000,
                          settle_ms=30_000, config=ProtocolConfig.instant(initial_rebalance_delay_ms=0),
                          assignors=STANDINS)
    m = sim.metrics(sim.measure_from)
    assert m.rebalances == 0 and m.group_epoch == 1
    assert m.partitions_moved == 0 and m.partitions_restarted == m.partitions_stopped == 6
    replaced = [e.fields for e in sim.events if e.fields.get("what") == "replaceStaticMember"]
    assert [r["instance"] for r in replaced] == ["instance-c1", "instance-c2", "instance-c3"]
    # each member was away 5 s (plus a few ms of network): 2 partitions x ~5 s each
    assert 6 * 5.0 <= m.unowned_partition_seconds < 6 * 5.1


def test_dynamic_rolling_restart_rebalances_twice_per_member():
    sim = rolling_restart(3, {"t": 6}, static=False, down_ms=5000, gap_ms=20_000, start_ms=10_000,
                          settle_ms=30_000, config=ProtocolConfig.instant(initial_rebalance_delay_ms=0),
                          assignors=STANDINS)
    m = sim.metrics(sim.measure_from)
    assert m.rebalances == 6  # LeaveGroup, then the new member's JoinGroup
    assert m.settled


def test_static_member_away_longer_than_session_timeout_triggers_rebalance():
    cfg = ProtocolConfig.instant(initial_rebalance_delay_ms=0, session_timeout_ms=10_000)
    sim = GroupSimulation({"t": 4}, cfg, assignors=STANDINS)
    sim.start_stable({"c1": [("t", 0), ("t", 1)], "c2": [("t", 2), ("t", 3)]}, instance_ids={"c1": "a", "c2": "b"})
    sim.shutdown("c2", 5000)  # static: no LeaveGroup
    sim.restart("c2", 30_000)
    sim.run(60_000)
    msgs = sim.format_messages(apis=["LeaveGroup"])
    assert msgs == []
    assert [s for _, s in states(sim, 1)].count("PreparingRebalance") == 2  # expiry, then the return
    assert sim.is_settled()


def test_fenced_instance_id_stops_the_zombie():
    """Two processes with one group.instance.id: the newer replaces the member id, the older one is
    answered FENCED_INSTANCE_ID on its next heartbeat and stops (KIP-345)."""
    cfg = ProtocolConfig.instant(initial_rebalance_delay_ms=0)
    sim = GroupSimulation({"t": 2}, cfg, assignors=STANDINS)
    sim.start_stable({"c1": [("t", 0)], "c2": [("t", 1)]}, instance_ids={"c1": "a", "c2": "b"})
    assert sim.start_duplicate("c2", 4500, "c2-copy") == "c2-copy"
    sim.run(20_000)
    fenced = [m for m in sim.messages if m.fields.get("error") == "FENCED_INSTANCE_ID"]
    assert len(fenced) == 1 and fenced[0].dst == "c2"
    assert not sim.members["c2"].alive and sim.members["c2-copy"].alive
    # the window in which both processed t-1 is bounded by one heartbeat interval
    (t, tp, owners), = sim.ownership.violations
    assert tp == ("t", 1) and owners == ("c2", "c2-copy")
    end = [iv.end_ms for iv in sim.ownership.intervals if iv.member == "c2"][0]
    assert end - t <= cfg.heartbeat_interval_ms + 2 * cfg.network_ms


def test_pending_sync_expiry_when_rebalance_timeout_is_shorter_than_session():
    cfg = ProtocolConfig.instant(initial_rebalance_delay_ms=0, session_timeout_ms=60_000, max_poll_interval_ms=20_000)
    sim = GroupSimulation({"t": 3}, cfg, assignors=STANDINS)
    sim.start_stable({"c1": [("t", 0), ("t", 1)], "c2": [("t", 2)]})
    sim.add_member("c3", 1000)
    sim.lose_leader_before_sync(2)
    sim.run(60_000)
    decisions = [(e.time_ms, e.fields["what"]) for e in sim.events if e.kind == "decision"]
    assert decisions[0] == (4003 + 20_000, "pendingSyncExpired")
    assert sim.is_settled() and sim.coordinator.generation == 3


def test_slow_member_past_rebalance_timeout_is_removed_and_rejoins():
    cfg = ProtocolConfig.instant(initial_rebalance_delay_ms=0, max_poll_interval_ms=10_000, session_timeout_ms=6000,
                         heartbeat_interval_ms=1000)
    sim = GroupSimulation({"t": 4}, cfg, assignors=STANDINS)
    sim.start_stable({"c1": [("t", 0), ("t", 1)], "c2": [("t", 2), ("t", 3)]})
    sim.slow("c2", 500, 15_000)      # c2 stops polling before the rebalance starts
    sim.add_member("c3", 1000)
    sim.run(60_000)
    timeouts = [e.time_ms for e in sim.events if e.actor == "c2" and e.fields.get("what") == "pollTimeout"]
    assert timeouts == [500 + 10_000]  # max.poll.interval.ms after its last poll
    leaves = sim.format_messages(apis=["LeaveGroup"])
    assert leaves[0].startswith("  10500 c2 -> coordinator: LeaveGroup(memberId=c2-2")
    # the coordinator reassigned c2's partitions while c2 was still in its batch: Kafka's zombie window,
    # counted apart from double assignment (see test_overlaps.py)
    assert sim.metrics().double_ownership == 0 and sim.metrics().zombie_overlap == 2
    assert sim.is_settled() and sorted(sim.assignment()) == ["c1", "c2", "c3"]


def test_coordinator_failover_resumes_from_last_group_record():
    cfg = ProtocolConfig.instant(initial_rebalance_delay_ms=0)
    sim = GroupSimulation({"t": 4}, cfg, assignors=STANDINS, brokers=(0, 1, 2))
    sim.start_stable({"c1": [("t", 0), ("t", 1)], "c2": [("t", 2), ("t", 3)]}, generation=5)
    assert sim.coordinator.broker == sim.leaders[sim.offsets_partition]
    old = sim.coordinator.broker
    sim.coordinator_failover(2000, 1500)
    sim.run(30_000)
    assert sim.coordinator.broker == (old + 1) % 3
    # members kept their partitions the whole time; the group came back Stable in generation 5
    m = sim.metrics()
    assert m.rebalances == 0 and m.group_epoch == 5 and m.partitions_stopped == 0
    assert any(msg.fields.get("error") == "NOT_COORDINATOR" for msg in sim.messages)
    assert sim.is_settled()


def test_failover_during_rebalance_finishes_the_rebalance():
    cfg = ProtocolConfig.instant(initial_rebalance_delay_ms=0)
    sim = GroupSimulation({"t": 4}, cfg, assignors=STANDINS)
    sim.start_stable({"c1": [("t", 0), ("t", 1)], "c2": [("t", 2), ("t", 3)]}, assignors=("cooperative-sticky",))
    sim.add_member("c3", 1000, assignors=("cooperative-sticky",))
    sim.coordinator_failover(1500, 2000)
    sim.run(40_000)
    assert sim.is_settled() and len(sim.assignment()) == 3
    assert sim.metrics().double_ownership == 0


def test_a_joingroup_error_is_read_at_the_next_poll_like_a_success():
    """While its JoinGroup is in flight a member's heartbeat thread is disabled (``AbstractCoordinator``'s
    ``HeartbeatThread``: ``state.hasNotJoinedGroup()``, 4.3.1 line 1495), so the application thread reads the
    response, an error as much as a success, at its next ``poll()``: a member in a 2 s batch looks for the new
    coordinator after the batch, not when ``NOT_COORDINATOR`` arrives."""
    cfg = ProtocolConfig(initial_rebalance_delay_ms=0, poll_processing_ms=2000, revoke_ms=0, session_timeout_ms=10_000,
                         heartbeat_interval_ms=1000, max_poll_interval_ms=30_000)
    sim = GroupSimulation({"t": 4}, cfg, assignors=STANDINS)
    sim.start_stable({"c1": [("t", 0), ("t", 1)], "c2": [("t", 2), ("t", 3)]}, assignors=("cooperative-sticky",))
    sim.add_member("c3", 1000, assignors=("cooperative-sticky",))
    sim.coordinator_failover(1500, 2000)
    sim.run(40_000)
    c1 = [line.split() for line in sim.format_messages(apis=["JoinGroup", "FindCoordinator"]) if " c1" in line]
    refused = next(int(t) for t, *rest in c1 if "JoinGroupResponse(NOT_COORDINATOR)" in rest)
    sent = next(int(t) for t, *rest in c1 if int(t) < refused and rest[0] == "c1" and rest[3].startswith("JoinGroup("))
    looked = next(int(t) for t, *rest in c1 if int(t) > refused and rest[0] == "c1" and rest[3].startswith("FindCoordinator("))
    assert looked == sent + 2000  # the JoinGroup went out with the poll that began a 2 s batch
    assert sim.is_settled() and len(sim.assignment()) == 3


def test_a_graceful_leave_closes_once_the_batch_in_hand_is_done():
    """A shutdown hook's ``wakeup()`` interrupts a waiting ``poll()``, not the processing of a batch: the
    application calls ``close()``, and the member sends its LeaveGroup, when its batch in hand is done."""
    cfg = ProtocolConfig(initial_rebalance_delay_ms=0, poll_processing_ms=2000, revoke_ms=0, session_timeout_ms=10_000,
                         heartbeat_interval_ms=1000, max_poll_interval_ms=30_000)
    sim = GroupSimulation({"t": 4}, cfg, assignors=STANDINS)
    sim.start_stable({"c1": [("t", 0), ("t", 1)], "c2": [("t", 2), ("t", 3)]})
    sim.shutdown("c2", 5300)
    sim.run(20_000)
    stop, = [e.fields["close_at_ms"] for e in sim.events if e.actor == "c2" and e.fields.get("what") == "stopPolling"]
    leave, = [int(line.split()[0]) for line in sim.format_messages(apis=["LeaveGroup"]) if "c2 -> coordinator" in line]
    assert 5300 < stop == leave < 5300 + 2000
    assert sim.is_settled() and sorted(sim.assignment()) == ["c1"]


def test_runs_are_deterministic():
    def once():
        sim = rolling_restart(4, {"a": 5, "b": 3}, protocol="cooperative", assignor="cooperative-sticky",
                              down_ms=2000, gap_ms=7000, start_ms=10_000, settle_ms=20_000,
                              config=ProtocolConfig.instant(), assignors=STANDINS, record_heartbeats=True)
        return sim.format_messages(), sim.format_events(), sim.metrics(10_000)
    assert once() == once()


def test_ownership_ledger_detects_overlap_and_integrates_gaps():
    led = OwnershipLedger([("t", 0), ("t", 1)])
    led.acquire("a", [("t", 0)], 0)
    led.acquire("b", [("t", 0)], 5)
    assert led.violations == [(5, ("t", 0), ("a", "b"))]
    led.release("a", [("t", 0)], 10, "revoked")
    # t-1 never owned: 100 ms; t-0 owned from 0 on
    assert led.unowned_ms(0, 100) == 100


def test_cooperative_validation_and_protocol_choice():
    with pytest.raises(KafkaError):
        validate_cooperative_assignment({"a": [("t", 0)]}, {"b": [("t", 0)]})
    validate_cooperative_assignment({"a": [("t", 0)]}, {"a": [("t", 0)], "b": [("t", 1)]})
    coop, rng = consumer_assignor("cooperative-sticky"), consumer_assignor("range")
    assert rebalance_protocol_for([coop]) == "cooperative"
    assert rebalance_protocol_for([coop, rng]) == "eager"  # the common protocol of the list


@pytest.mark.parametrize("kwargs, field", [
    ({"topics": {}}, "topics"),
    ({"topics": {"t": -1}}, "topics['t']"),
    ({"topics": {"t": 1}, "config": ProtocolConfig.instant(heartbeat_interval_ms=50_000)}, "heartbeat_interval_ms"),
    ({"topics": {"t": 1}, "config": ProtocolConfig.instant(session_timeout_ms=-5)}, "session_timeout_ms"),
])
def test_bad_simulation_input_names_field(kwargs, field):
    with pytest.raises(InputError) as exc:
        GroupSimulation(**kwargs)
    assert exc.value.field == field


def test_bad_member_input_names_field():
    sim = GroupSimulation({"t": 1})
    with pytest.raises(InputError) as exc:
        sim.add_member("c1", assignors=("range",), protocol="cooperative")
    assert exc.value.field == "protocol"
    with pytest.raises(InputError) as exc:
        sim.add_member("c1", assignors=("nope",))
    assert exc.value.field == "assignors"
    with pytest.raises(InputError) as exc:
        sim.add_member("c1", topics=["other"])
    assert exc.value.field == "topics"
    sim.add_member("c1")
    with pytest.raises(InputError) as exc:
        sim.add_member("c1")
    assert exc.value.field == "name"
    with pytest.raises(InputError) as exc:
        sim.crash("ghost", 10)
        sim.run(20)
    assert exc.value.field == "name"


def test_close_during_a_rebalance_abandons_it():
    """Regression: a consumer closed while its JoinGroup/SyncGroup is in flight must not take up the
    partitions the late response carries (KafkaConsumer.close abandons the rebalance)."""
    cfg = ProtocolConfig.instant(initial_rebalance_delay_ms=0, revoke_ms=200)  # close() takes 200 ms
    sim = GroupSimulation({"t": 4}, cfg, assignors=STANDINS)
    sim.start_stable({"c1": [("t", 0), ("t", 1)], "c2": [("t", 2), ("t", 3)]},
                     assignors=("cooperative-sticky",), instance_ids={"c1": "a", "c2": "b"})
    sim.add_member("c3", 1000, assignors=("cooperative-sticky",))
    sim.run(4002)
    assert sim.members["c1"].joining  # c1's JoinGroup is on its way
    sim.shutdown("c1", 4003)
    sim.run(60_000)
    late = [iv for iv in sim.ownership.intervals if iv.member == "c1" and iv.start_ms >= 4003]
    assert late == [] and sim.ownership.violations == []
    assert all(iv.end_ms is not None for iv in sim.ownership.intervals if iv.member == "c1")


def test_session_timeout_outside_broker_bounds_is_refused():
    """group.min.session.timeout.ms is 6 s by default: a consumer asking for 5 s never joins."""
    sim = GroupSimulation({"t": 2}, ProtocolConfig.instant(session_timeout_ms=5_000, heartbeat_interval_ms=1_000),
                          assignors=STANDINS)
    sim.add_member("c1")
    sim.run(10_000)
    assert [m.label() for m in sim.messages if m.api == "JoinGroup"] == [
        "JoinGroup(generation=-1)", "JoinGroupResponse(INVALID_SESSION_TIMEOUT)"]
    assert not sim.members["c1"].alive and sim.coordinator.state == "Empty"


def test_custom_assignor_is_pluggable_and_sees_the_leaders_view():
    """Any callable can be the group's assignor (e.g. Connect workers later): it receives every member's
    metadata in the order of the leader's JoinGroup response."""
    seen = []

    def everything_to_first(partitions, members):
        seen.append(list(members))
        first = next(iter(members))
        return {m: ([(t, p) for t in sorted(partitions) for p in range(partitions[t])] if m == first else [])
                for m in members}
    everything_to_first.rebalance_protocols = ("eager",)

    sim = GroupSimulation({"t": 3}, ProtocolConfig.instant(initial_rebalance_delay_ms=0),
                          assignors={"first": everything_to_first})
    sim.add_member("c1", 0, assignors=("first",))
    sim.add_member("c2", 0, assignors=("first",))
    sim.run(10_000)
    assert seen[-1] == sim.coordinator.member_ids()  # HashMap order of member ids
    owners = {tuple(v) for v in sim.ownership.current().values()}
    assert len(owners) == 1 and sim.is_settled()


def test_protocol_vote_and_inconsistent_protocol():
    sim = GroupSimulation({"t": 4}, ProtocolConfig.instant(initial_rebalance_delay_ms=0), assignors=STANDINS)
    sim.add_member("c1", 0, assignors=("range", "cooperative-sticky"))
    sim.add_member("c2", 0, assignors=("cooperative-sticky", "range"))
    sim.add_member("c3", 0, assignors=("cooperative-sticky", "range"))
    sim.run(5_000)
    # two of three members prefer cooperative-sticky; every member supports both (all eager here)
    assert sim.coordinator.protocol_name == "cooperative-sticky"
    assert {m.protocol for m in sim.live_members()} == {"eager"}
    sim.add_member("c4", 6_000, assignors=("roundrobin",))
    sim.assignors["roundrobin"] = range_standin
    sim.run(10_000)
    rejected = [m for m in sim.messages if m.fields.get("error") == "INCONSISTENT_GROUP_PROTOCOL"]
    assert [m.dst for m in rejected] == ["c4"] and not sim.members["c4"].alive
