"""The consumer's poll loop in the classic simulator (``rebalance.protocol.pollloop``, KIP-62).

* a member whose batch takes longer than ``max.poll.interval.ms`` is removed (its heartbeat thread sends
  LeaveGroup, ``AbstractCoordinator.handlePollTimeoutExpiry``) and the group rebalances; it keeps processing
  as a zombie until its next ``poll()``, loses its partitions there and joins again;
* a member that hears of a rebalance rejoins at its next ``poll()``, not at once;
* eager members, which commit on revoke before they rejoin, stop partitions longer than cooperative ones.
"""
import pytest

from rebalance.errors import InputError
from rebalance.kip848 import KIP848Config
from rebalance.kip848.scenarios import simulate
from rebalance.protocol.config import ProtocolConfig
from rebalance.protocol.pollloop import next_poll_delay
from rebalance.protocol.simulation import GroupSimulation


def test_defaults_are_kafkas():
    c = ProtocolConfig()
    assert (c.max_poll_interval_ms, c.max_poll_records, c.session_timeout_ms, c.heartbeat_interval_ms) == \
        (300_000, 500, 45_000, 3_000)
    assert c.rebalance_timeout_ms == c.max_poll_interval_ms
    assert c.batch_ms == 500 and ProtocolConfig(max_poll_records=100, record_processing_ms=2.5).batch_ms == 250
    assert ProtocolConfig(poll_processing_ms=1234).batch_ms == 1234
    k = KIP848Config()
    assert (k.max_poll_interval_ms, k.max_poll_records, k.batch_ms, k.revoke_ms) == (300_000, 500, 500, c.revoke_ms)


@pytest.mark.parametrize("field,value", [("max_poll_records", 0), ("poll_processing_ms", -1),
                                         ("record_processing_ms", -0.5), ("max_poll_interval_ms", 0)])
def test_bad_poll_loop_settings_name_the_field(field, value):
    with pytest.raises(InputError) as e:
        GroupSimulation({"t": 1}, ProtocolConfig(**{field: value}))
    assert e.value.field == field


def slow_member_group():
    cfg = ProtocolConfig(initial_rebalance_delay_ms=0, max_poll_interval_ms=10_000)
    sim = GroupSimulation({"t": 6}, cfg)
    sim.add_member("c1", 0)
    sim.add_member("c2", 0)
    sim.add_member("slow", 0, poll_processing_ms=15_000)  # each batch: 15 s > max.poll.interval.ms
    return sim.run(60_000)


def test_member_whose_batch_exceeds_max_poll_interval_is_removed_and_the_group_rebalances():
    sim = slow_member_group()
    assigned = [e for e in sim.events if e.kind == "assigned" and e.actor == "slow"]
    timeouts = [e for e in sim.events if e.kind == "member" and e.fields.get("what") == "pollTimeout"]
    first = assigned[0].time_ms
    # the poll timer runs out max.poll.interval.ms after the poll() that returned the batch
    assert timeouts[0].actor == "slow" and timeouts[0].time_ms == first + 10_000
    leaves = [m for m in sim.messages if m.api == "LeaveGroup" and m.kind == "request"]
    assert leaves[0].src == "slow" and leaves[0].sent_ms == first + 10_000
    reasons = [e.fields["reason"] for e in sim.events if e.kind == "rebalance" and e.time_ms > first]
    assert reasons and "left" in reasons[0]
    # it processes its partitions as a zombie until its batch ends, then loses them and joins again
    lost = [e for e in sim.events if e.kind == "lost" and e.actor == "slow"]
    assert lost[0].time_ms == first + 15_000
    assert sim.ownership.zombie_overlaps and not [v for v in sim.ownership.violations
                                                   if v not in sim.ownership.zombie_overlaps]
    # ... and the cycle repeats: the group never settles while the slow member keeps its batch size
    assert len(timeouts) >= 2 and sim.metrics().rebalances >= 4


def test_member_within_max_poll_interval_stays():
    cfg = ProtocolConfig(initial_rebalance_delay_ms=0, max_poll_interval_ms=10_000)
    sim = GroupSimulation({"t": 6}, cfg)
    for name in ("c1", "c2"):
        sim.add_member(name, 0)
    sim.add_member("slow", 0, poll_processing_ms=9_000)
    sim.run(60_000)
    assert not [e for e in sim.events if e.fields.get("what") == "pollTimeout"]
    assert sim.is_settled() and sim.metrics().rebalances == 1


def rejoin_delays(poll_processing_ms):
    """c3 joins a stable group of c1, c2 (eager, range): for each of c1, c2 the time from the Heartbeat
    response that says REBALANCE_IN_PROGRESS to its JoinGroup, and the poll() it should wait for."""
    sim = GroupSimulation({"t": 6}, ProtocolConfig(initial_rebalance_delay_ms=0, revoke_ms=0,
                                                   poll_processing_ms=poll_processing_ms))
    sim.start_stable({"c1": [("t", p) for p in range(3)], "c2": [("t", p) for p in range(3, 6)]})
    anchors = {name: m._batch_anchor for name, m in sim.members.items()}
    sim.add_member("c3", 10_000)
    sim.run(40_000)
    out = {}
    for name in ("c1", "c2"):
        told = next(m.recv_ms for m in sim.messages if m.api == "Heartbeat" and m.dst == name
                    and m.fields.get("error") == "REBALANCE_IN_PROGRESS")
        join = next(m.sent_ms for m in sim.messages if m.api == "JoinGroup" and m.src == name and m.sent_ms >= told)
        out[name] = (join - told, next_poll_delay(told, anchors[name], poll_processing_ms))
    return out


def test_rejoin_waits_for_the_next_poll():
    for name, (waited, next_poll) in rejoin_delays(2_000).items():
        assert waited == next_poll and 0 < waited <= 2_000, name
    assert all(waited == 0 for waited, _ in rejoin_delays(0).values())


def third_member_joins(protocol, revoke_ms):
    assignor = "cooperative-sticky" if protocol == "cooperative" else "range"
    sim = GroupSimulation({"t": 12}, ProtocolConfig(initial_rebalance_delay_ms=0, revoke_ms=revoke_ms))
    sim.start_stable({"c1": [("t", p) for p in range(6)], "c2": [("t", p) for p in range(6, 12)]},
                     assignors=(assignor,))
    sim.add_member("c3", 10_000, assignors=(assignor,))
    sim.run(60_000)
    assert sim.is_settled()
    return sim.metrics(10_000)


def test_eager_with_commit_on_revoke_stops_partitions_longer_than_cooperative():
    eager, coop = third_member_joins("eager", 1_000), third_member_joins("cooperative", 1_000)
    assert eager.partitions_stopped == 12 and coop.partitions_stopped == coop.partitions_moved == 4
    assert eager.unowned_partition_seconds > 2 * coop.unowned_partition_seconds
    # the commit time costs eager every partition, cooperative only the moved ones
    eager_cost = eager.unowned_partition_seconds - third_member_joins("eager", 0).unowned_partition_seconds
    coop_cost = coop.unowned_partition_seconds - third_member_joins("cooperative", 0).unowned_partition_seconds
    assert eager_cost >= 12 * 1.0 - 1e-9 and coop_cost < eager_cost / 2


def test_kip848_member_whose_batch_exceeds_max_poll_interval_leaves_and_rejoins():
    config = KIP848Config(max_poll_interval_ms=10_000, poll_processing_ms=15_000, assignor="range")
    r = simulate("join", 2, {"t": 4}, config=config, max_ms=120_000)
    timeouts = [e for e in r.trace if e.kind == "poll-timeout"]
    assert timeouts
    who, at = timeouts[0].actor, timeouts[0].time_ms
    # it leaves with epoch -1 at once and heartbeats again with epoch 0 when its batch ends
    beats = [(e.time_ms, e.fields["epoch"]) for e in r.trace if e.kind == "heartbeat" and e.actor == who
             and e.time_ms >= at]
    assert beats[0] == (at, -1) and (at + 5_000, 0) in beats


def cooperative_join(poll_timeout_ms):
    """c3 joins a stable cooperative group of c1, c2 whose members process 500 ms batches; the generations'
    completion times and the member that leads (ClassicKafkaConsumer.poll with ``poll_timeout_ms``)."""
    cfg = ProtocolConfig(initial_rebalance_delay_ms=0, revoke_ms=0, poll_processing_ms=500,
                         poll_timeout_ms=poll_timeout_ms)
    sim = GroupSimulation({"t": 6}, cfg)
    sim.start_stable({"c1": [("t", p) for p in range(3)], "c2": [("t", p) for p in range(3, 6)]},
                     assignors=("cooperative-sticky",), protocol="cooperative")
    sim.add_member("c3", 10_000, assignors=("cooperative-sticky",), protocol="cooperative")
    sim.run(40_000)
    assert sim.is_settled()
    stable = [e.time_ms for e in sim.events if e.kind == "state" and e.fields.get("state") == "Stable"
              and e.time_ms >= 10_000]
    return sim, stable


def test_a_poll_that_lasts_handles_every_response_that_arrives_within_it():
    """With a 100 ms poll a busy member answers the JoinGroup response, sends its SyncGroup and runs
    onJoinComplete in the poll in which they arrive, where a poll that returns at once takes a batch for each
    step.  Here the leader's poll is under way when the JoinGroup responses arrive: it assigns, syncs, revokes
    and rejoins for the second round at once (13.375 s), before the other member, in its batch, has synced --
    whose late SyncGroup then gets REBALANCE_IN_PROGRESS and which revokes a round later, as a real group with
    those timings does.  The end is the same assignment."""
    quick, at_quick = cooperative_join(100)
    slow, at_slow = cooperative_join(0)
    assert at_quick == [13_375, 16_379, 19_383] and at_slow == [13_519, 16_519], (at_quick, at_slow)
    late = [m for m in quick.messages if m.api == "SyncGroup" and m.dst == "c2"]
    assert late[0].fields.get("error") == "REBALANCE_IN_PROGRESS"
    assert quick.assignment() == slow.assignment()
    # the cycle of a member that owns partitions: its poll, then its batch
    member = quick.members["c1"]
    assert member.cycle_ms == 600 and slow.members["c1"].cycle_ms == 500


def test_a_rebalance_heard_between_the_sync_response_and_the_next_poll_is_joined_after_it():
    """The SyncGroup response makes a member STABLE as it arrives (``SyncGroupResponseHandler``): a
    REBALANCE_IN_PROGRESS its heartbeat thread hears before the application's next poll() is a rejoin after
    onJoinComplete.  Drawn by hypothesis (with 100 ms polls): a member with 6 s batches, whose onJoinComplete waits for its next
    poll while the leader's second cooperative round starts; it must join that round, not be removed from it."""
    from rebalance.simulate import simulate_scenario

    scenario = {"id": "p", "protocol": "cooperative", "topics": {"t": 5},
                "members": [{"id": "c0"}, {"id": "c1", "poll_processing_ms": 6000}, {"id": "new"}],
                "config": {"max_poll_interval_ms": 10_000, "poll_timeout_ms": 100},
                "events": [{"at_ms": 10_000, "op": "join", "member": "new"}], "until_ms": 70_000,
                "measure_from_ms": 9_000, "rebuild_ms_per_partition": 0}
    out = simulate_scenario(scenario)
    assert out.stops.stopped_ms == {"c0": 0, "c1": 0, "new": 0}
    assert all("c1" in r.assignment for r in out.rebalances)
    assert [r.assignment for r in out.rebalances][-1] == {"c0": ["t-0", "t-2"], "c1": ["t-1", "t-3"], "new": ["t-4"]}
