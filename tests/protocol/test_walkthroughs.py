"""The source articles' walkthroughs, replayed exactly in virtual time.

The KIP-429/KIP-345 article's example (``article-cooperative-static``): topic with partitions p1, p2, p3 (``t-0``, ``t-1``, ``t-2``), c1 owns p1 and p2, c2 owns p3, c3
joins.  Eager: everybody revokes everything, one rebalance.  Cooperative: c1 gives up only p2 in a first
rebalance, p2 goes to c3 in a second one, nobody else stops.
The Eager-vs-Incremental-Cooperative article's case (``article-eager-vs-incremental``): the leader is lost between JoinGroup and SyncGroup; the followers wait, the coordinator drops the
leader and a new generation with a new leader finishes the rebalance; a stale leader coming back with the
old generation cannot install its assignment.
"""
from rebalance.protocol.config import ProtocolConfig
from rebalance.protocol.simulation import GroupSimulation
from rebalance.widgets import protocol as widgets

P1, P2, P3 = ("t", 0), ("t", 1), ("t", 2)


def third_member_joins(protocol):
    sim = GroupSimulation({"t": 3}, ProtocolConfig.instant(initial_rebalance_delay_ms=0))
    names = ("cooperative-sticky",) if protocol == "cooperative" else ("range",)
    sim.start_stable({"c1": [P1, P2], "c2": [P3]}, assignors=names)
    sim.add_member("c3", 1000, assignors=names)
    return sim.run(20_000)


def test_third_member_joins_cooperative_two_rounds():
    sim = third_member_joins("cooperative")
    assert sim.format_messages(apis=["JoinGroup", "SyncGroup"]) == [
        "   1002 c3 -> coordinator: JoinGroup(generation=-1)",
        "   1003 coordinator -> c3: JoinGroupResponse(MEMBER_ID_REQUIRED memberId=c3-3)",
        "   1004 c3 -> coordinator: JoinGroup(memberId=c3-3, generation=-1)",
        # c1 and c2 hear REBALANCE_IN_PROGRESS on their next heartbeat and rejoin *keeping* their partitions
        "   2002 c2 -> coordinator: JoinGroup(memberId=c2-2, generation=1, owned=1)",
        "   4002 c1 -> coordinator: JoinGroup(memberId=c1-1, generation=1, owned=2)",
        "   4003 coordinator -> c2: JoinGroupResponse(NONE gen=2 leader=c1-1)",
        "   4003 coordinator -> c3: JoinGroupResponse(NONE gen=2 leader=c1-1)",
        "   4003 coordinator -> c1: JoinGroupResponse(NONE gen=2 leader=c1-1)",
        "   4004 c2 -> coordinator: SyncGroup(memberId=c2-2, generation=2)",
        "   4004 c3 -> coordinator: SyncGroup(memberId=c3-3, generation=2)",
        "   4004 c1 -> coordinator: SyncGroup(memberId=c1-1, generation=2, leader=True)",
        "   4005 coordinator -> c2: SyncGroupResponse(NONE 1 partitions)",
        "   4005 coordinator -> c3: SyncGroupResponse(NONE 0 partitions)",
        "   4005 coordinator -> c1: SyncGroupResponse(NONE 1 partitions)",
        # c1 revoked p2, so it rejoins at once: the second round
        "   4006 c1 -> coordinator: JoinGroup(memberId=c1-1, generation=2, owned=1)",
        "   7006 c2 -> coordinator: JoinGroup(memberId=c2-2, generation=2, owned=1)",
        "   7006 c3 -> coordinator: JoinGroup(memberId=c3-3, generation=2)",
        "   7007 coordinator -> c2: JoinGroupResponse(NONE gen=3 leader=c1-1)",
        "   7007 coordinator -> c3: JoinGroupResponse(NONE gen=3 leader=c1-1)",
        "   7007 coordinator -> c1: JoinGroupResponse(NONE gen=3 leader=c1-1)",
        "   7008 c2 -> coordinator: SyncGroup(memberId=c2-2, generation=3)",
        "   7008 c3 -> coordinator: SyncGroup(memberId=c3-3, generation=3)",
        "   7008 c1 -> coordinator: SyncGroup(memberId=c1-1, generation=3, leader=True)",
        "   7009 coordinator -> c2: SyncGroupResponse(NONE 1 partitions)",
        "   7009 coordinator -> c3: SyncGroupResponse(NONE 1 partitions)",
        "   7009 coordinator -> c1: SyncGroupResponse(NONE 1 partitions)",
    ]
    assert sim.format_events(kinds=("assign", "revoke", "assigned")) == [
        "   4004 c1 assign generation=2 assignor=cooperative-sticky assignment={'c2-2': 't-2', 'c3-3': '', 'c1-1': 't-0'}",
        "   4006 c1 revoke partitions=t-1 protocol=cooperative",
        "   7008 c1 assign generation=3 assignor=cooperative-sticky assignment={'c2-2': 't-2', 'c3-3': 't-1', 'c1-1': 't-0'}",
        "   7010 c3 assigned partitions=t-1 generation=3",
    ]
    assert sim.assignment() == {"c1": [P1], "c2": [P3], "c3": [P2]}
    m = sim.metrics()
    # only p2 ever stopped; p1 and p3 were processed throughout
    assert (m.rebalances, m.group_epoch, m.partitions_stopped, m.partitions_moved) == (2, 3, 1, 1)
    assert m.unowned_partition_seconds == (7010 - 4006) / 1000
    assert m.double_ownership == 0 and m.settled


def test_third_member_joins_eager_stop_the_world():
    sim = third_member_joins("eager")
    assert sim.format_messages(apis=["JoinGroup", "SyncGroup"]) == [
        "   1002 c3 -> coordinator: JoinGroup(generation=-1)",
        "   1003 coordinator -> c3: JoinGroupResponse(MEMBER_ID_REQUIRED memberId=c3-3)",
        "   1004 c3 -> coordinator: JoinGroup(memberId=c3-3, generation=-1)",
        "   2002 c2 -> coordinator: JoinGroup(memberId=c2-2, generation=1)",
        "   4002 c1 -> coordinator: JoinGroup(memberId=c1-1, generation=1)",
        "   4003 coordinator -> c2: JoinGroupResponse(NONE gen=2 leader=c1-1)",
        "   4003 coordinator -> c3: JoinGroupResponse(NONE gen=2 leader=c1-1)",
        "   4003 coordinator -> c1: JoinGroupResponse(NONE gen=2 leader=c1-1)",
        "   4004 c2 -> coordinator: SyncGroup(memberId=c2-2, generation=2)",
        "   4004 c3 -> coordinator: SyncGroup(memberId=c3-3, generation=2)",
        "   4004 c1 -> coordinator: SyncGroup(memberId=c1-1, generation=2, leader=True)",
        "   4005 coordinator -> c2: SyncGroupResponse(NONE 1 partitions)",
        "   4005 coordinator -> c3: SyncGroupResponse(NONE 1 partitions)",
        "   4005 coordinator -> c1: SyncGroupResponse(NONE 1 partitions)",
    ]
    assert sim.format_events(kinds=("assign", "revoke", "assigned")) == [
        "   2002 c2 revoke partitions=t-2 protocol=eager",
        "   4002 c1 revoke partitions=t-0 t-1 protocol=eager",
        "   4004 c1 assign generation=2 assignor=range assignment={'c2-2': 't-1', 'c3-3': 't-2', 'c1-1': 't-0'}",
        "   4006 c2 assigned partitions=t-1 generation=2",
        "   4006 c3 assigned partitions=t-2 generation=2",
        "   4006 c1 assigned partitions=t-0 generation=2",
    ]
    m = sim.metrics()
    assert (m.rebalances, m.group_epoch, m.partitions_stopped, m.partitions_restarted) == (1, 2, 3, 3)
    # p3 stopped at 2002, p1 and p2 at 4002; all three restart at 4006
    assert m.unowned_partition_seconds == (4006 - 2002 + 2 * (4006 - 4002)) / 1000


def leader_lost(partition_ms=None):
    sim = GroupSimulation({"t": 3}, ProtocolConfig.instant(initial_rebalance_delay_ms=0, session_timeout_ms=10_000))
    sim.start_stable({"c1": [P1, P2], "c2": [P3]}, assignors=("range",))
    sim.add_member("c3", 1000, assignors=("range",))
    sim.lose_leader_before_sync(2, partition_ms=partition_ms)
    return sim.run(40_000)


def test_leader_lost_leader_lost_between_join_and_sync():
    sim = leader_lost()
    assert sim.format_messages(apis=["JoinGroup", "SyncGroup"], since=4000) == [
        "   4002 c1 -> coordinator: JoinGroup(memberId=c1-1, generation=1)",
        "   4003 coordinator -> c2: JoinGroupResponse(NONE gen=2 leader=c1-1)",
        "   4003 coordinator -> c3: JoinGroupResponse(NONE gen=2 leader=c1-1)",
        "   4003 coordinator -> c1: JoinGroupResponse(NONE gen=2 leader=c1-1)",
        # the followers' SyncGroup is parked: only the leader's SyncGroup carries the assignment
        "   4004 c2 -> coordinator: SyncGroup(memberId=c2-2, generation=2)",
        "   4004 c3 -> coordinator: SyncGroup(memberId=c3-3, generation=2)",
        # the leader's session (reset when the join completed at 4003) expires 10 s later
        "  14003 coordinator -> c2: SyncGroupResponse(REBALANCE_IN_PROGRESS)",
        "  14003 coordinator -> c3: SyncGroupResponse(REBALANCE_IN_PROGRESS)",
        "  14004 c2 -> coordinator: JoinGroup(memberId=c2-2, generation=2)",
        "  14004 c3 -> coordinator: JoinGroup(memberId=c3-3, generation=2)",
        "  14005 coordinator -> c2: JoinGroupResponse(NONE gen=3 leader=c2-2)",
        "  14005 coordinator -> c3: JoinGroupResponse(NONE gen=3 leader=c2-2)",
        "  14006 c2 -> coordinator: SyncGroup(memberId=c2-2, generation=3, leader=True)",
        "  14006 c3 -> coordinator: SyncGroup(memberId=c3-3, generation=3)",
        "  14007 coordinator -> c2: SyncGroupResponse(NONE 2 partitions)",
        "  14007 coordinator -> c3: SyncGroupResponse(NONE 1 partitions)",
    ]
    assert sim.format_events(kinds=("state", "decision", "fault"), since=4000) == [
        "   4003 coordinator state state=CompletingRebalance previous=PreparingRebalance generation=2",
        "   4004 c1 fault what=leaderLostBeforeSync generation=2",
        "  14003 coordinator decision what=sessionExpired member=c1-1",
        "  14003 coordinator state state=PreparingRebalance previous=CompletingRebalance generation=2",
        "  14005 coordinator state state=CompletingRebalance previous=PreparingRebalance generation=3",
        "  14007 coordinator state state=Stable previous=CompletingRebalance generation=3",
    ]
    assert sim.assignment() == {"c2": [P1, P2], "c3": [P3]}
    assert sim.coordinator.generation == 3 and sim.coordinator.leader_id == "c2-2"


def test_leader_lost_stale_leader_is_fenced_by_generation():
    sim = leader_lost(partition_ms=15_000)
    lines = sim.format_messages(apis=["JoinGroup", "SyncGroup"], since=19_000)
    assert lines[:3] == [
        # the old leader finally sends the assignment it computed for generation 2 ...
        "  19004 c1 -> coordinator: SyncGroup(memberId=c1-1, generation=2, leader=True)",
        # ... but it was removed and generation 3 is in place: it must start over as a new member
        "  19005 coordinator -> c1: SyncGroupResponse(UNKNOWN_MEMBER_ID)",
        "  19006 c1 -> coordinator: JoinGroup(generation=-1)",
    ]
    gens = [e.fields["generation"] for e in sim.events if e.kind == "assign"]
    assert gens == [2, 3, 4]  # the generation-2 assignment never reached anyone
    assert sim.coordinator.generation == 4
    assert sim.assignment() == {"c1": [P1], "c2": [P2], "c3": [P3]}
    assert sim.metrics().double_ownership == 0


def test_widget_examples_are_the_walkthroughs():
    """The chapters' ``third_member_joins_example`` and ``leader_lost_example`` replay these runs."""
    for protocol in ("eager", "cooperative"):
        assert (widgets.third_member_joins_example(protocol).format_messages()
                == third_member_joins(protocol).format_messages())
    assert widgets.leader_lost_example().format_messages() == leader_lost().format_messages()
    assert (widgets.leader_lost_example(partition_ms=15_000).format_messages()
            == leader_lost(partition_ms=15_000).format_messages())


def test_crash_detection_is_session_from_last_heartbeat_plus_survivors_next_heartbeat():
    """Chapter 1, ex-groups-3: the crashed member's partitions wait from the crash until the session,
    counted from its last heartbeat, expires, then until the survivors' next heartbeats tell them to
    rejoin: at most one session timeout plus one heartbeat interval (plus network time)."""
    rows = widgets.crash_detection_rows((10_000, 45_000))
    for _, r in rows.iterrows():
        assert r["session expired (s)"] == round(r["last heartbeat (s)"] + r["session (s)"], 3)
        assert 0 <= r["survivors rejoin (s)"] - r["session expired (s)"] <= r["heartbeat (s)"]
        assert r["crash (s)"] - r["heartbeat (s)"] <= r["last heartbeat (s)"] <= r["crash (s)"]
        assert r["wait after crash (s)"] <= r["session (s)"] + r["heartbeat (s)"] + 0.02
    # the 10 s run waits a whole extra heartbeat for the survivors, the 45 s run almost none
    waits = list(rows["survivors rejoin (s)"] - rows["session expired (s)"])
    assert waits[0] > 1.5 and waits[1] < 0.01
    assert list(rows["unowned partition-s"]) == [20.04, 86.04]
