"""Assignor objects live as long as the consumer (Kafka 3.8/3.9 ``ConsumerCoordinator`` builds them once).

An eager ``StickyAssignor`` member revokes everything before JoinGroup, so its ``ownedPartitions`` field is
empty; the leader learns what it had only from the user data that ``onAssignment`` kept
(``StickyAssignor.memberAssignment`` + ``generation``, ``STICKY_ASSIGNOR_USER_DATA_V1``).  These tests check
that the simulator sends exactly that, so its eager Sticky moves what ``rebalance.consumer.assign("sticky")``
moves when given the previous assignment.
"""
from hypothesis import given, settings, strategies as st

from rebalance import consumer
from rebalance.consumer.sticky_userdata import ByteBuffer, decode_sticky
from rebalance.protocol.config import ProtocolConfig
from rebalance.protocol.simulation import GroupSimulation

CONFIG = ProtocolConfig.instant(initial_rebalance_delay_ms=0, session_timeout_ms=6_000, heartbeat_interval_ms=1_000,
                        max_poll_interval_ms=20_000)
STEP_MS = 20_000


def moved(before, after):
    return sum(1 for m, tps in before.items() for tp in tps if tp not in after.get(m, []))


def test_fourth_member_under_eager_sticky_moves_one_partition():
    """6 partitions, 3 members, a 4th joins: Kafka's StickyAssignor moves exactly one partition."""
    sim = GroupSimulation({"t": 6}, CONFIG, record_heartbeats=False)
    for name in ("c1", "c2", "c3"):
        sim.add_member(name, 0, assignors=("sticky",))
    sim.add_member("c4", STEP_MS, assignors=("sticky",))
    sim.run(STEP_MS - 1)
    assert sim.is_settled()
    before = sim.assignment()
    sim.run(2 * STEP_MS)
    assert sim.is_settled()
    after = sim.assignment()
    assert moved(before, after) == 1
    assert len(after["c4"]) == 1 and sorted(len(v) for v in after.values()) == [1, 1, 2, 2]


def test_eager_sticky_join_carries_the_kept_assignment_as_user_data():
    """The JoinGroup after a revocation: ``owned`` is empty, the user data holds the previous assignment
    and its generation; the leader's assignor object keeps ``maxGeneration`` across rebalances."""
    sim = GroupSimulation({"t": 4}, CONFIG, record_heartbeats=False)
    sim.add_member("c1", 0, assignors=("sticky",))
    sim.add_member("c2", 0, assignors=("sticky",))
    sim.add_member("c3", STEP_MS, assignors=("sticky",))
    sim.run(STEP_MS - 1)
    c1 = sim.members["c1"]
    had, gen = sorted(c1.owned), c1.generation
    sim.run(2 * STEP_MS)
    stored = sim.coordinator.members[c1.member_id].metadata("sticky")
    assert stored["owned"] == [] and stored["generation"] == gen
    data = decode_sticky(ByteBuffer(stored["user_data"]))
    assert sorted(data.partitions) == had and data.generation == gen
    leader = next(m for m in sim.live_members() if m.is_leader)
    assert leader.client_assignors["sticky"].kafka_assignor.max_generation == gen
    # a new consumer has nothing to report: no user data at all (StickyAssignor.subscriptionUserData)
    new = sim.coordinator.members[sim.members["c3"].member_id]
    assert new.metadata("sticky")["user_data"] is None
    assert sim.members["c3"].client_assignors["sticky"].kafka_assignor.member_assignment == list(sim.members["c3"].owned)


def _history(ops, two_topics):
    """Resolve drawn operations into a valid schedule: (time, kind, name, topics)."""
    topics_all = ("a", "b") if two_topics else ("a",)
    live, next_id, out = [], 0, []
    for i, (kind, pick, sub) in enumerate(ops):
        t = (i + 1) * STEP_MS
        if kind == "join" or len(live) <= 1:
            next_id += 1
            name = f"c{next_id}"
            topics = topics_all if not two_topics or sub == 0 else (topics_all[sub - 1],)
            live.append(name)
            out.append((t, "join", name, topics))
        else:
            name = live.pop(pick % len(live))
            out.append((t, kind, name, None))
    return out


@settings(max_examples=50, deadline=None)
@given(ops=st.lists(st.tuples(st.sampled_from(["join", "join", "leave", "crash"]), st.integers(0, 20),
                              st.integers(0, 2)), min_size=1, max_size=6),
       first=st.integers(1, 3), partitions=st.integers(1, 7), two_topics=st.booleans())
def test_simulated_eager_sticky_matches_assign_with_previous_assignment(ops, first, partitions, two_topics):
    """Over random join/leave/crash histories, every rebalance of the simulator's eager Sticky gives what
    ``consumer.assign("sticky", ...)`` gives for the same members (in the leader's order), each with its
    previous assignment and generation as owned partitions -- so both move the same partitions."""
    topics = {"a": partitions, "b": max(1, partitions - 2)} if two_topics else {"a": partitions}
    sim = GroupSimulation(topics, CONFIG, record_heartbeats=False)
    subs = {}
    for k in range(first):
        name = f"s{k + 1}"
        subs[name] = tuple(sorted(topics))
        sim.add_member(name, 0, assignors=("sticky",))
    schedule = _history(ops, two_topics)
    for t, kind, name, member_topics in schedule:
        if kind == "join":
            subs[name] = member_topics
            sim.add_member(name, t, assignors=("sticky",), topics=member_topics)
        elif kind == "leave":
            sim.shutdown(name, t)
        else:
            sim.crash(name, t)
    for t, *_ in schedule:
        sim.run(t - 1)
        assert sim.is_settled()
    sim.run(schedule[-1][0] + STEP_MS)
    assert sim.is_settled()

    names = {}  # member id -> process name, from the JoinGroup responses
    for m in sim.messages:
        if m.api == "JoinGroup" and m.kind == "response" and m.fields.get("memberId"):
            names[m.fields["memberId"]] = m.dst
    history = {}  # member id -> (generation, partitions) it last received
    rebalances = [e for e in sim.events if e.kind == "assign"]
    assert rebalances
    for e in rebalances:
        got = {mid: [tuple(tp) for tp in tps] for mid, tps in e.fields["assignment"].items()}
        members = {}
        for mid in got:
            spec = {"topics": list(subs[names[mid]])}
            if mid in history:
                spec["generation"], spec["owned"] = history[mid]
            members[mid] = spec
        expected = consumer.assign("sticky", topics, members)
        assert got == expected
        for mid, tps in got.items():
            history[mid] = (e.fields["generation"], tps)
    final = {names[mid]: sorted(tps) for mid, (_, tps) in history.items() if names[mid] in sim.assignment()}
    assert final == sim.assignment()


def test_a_restarted_process_has_a_new_assignor_object():
    """One object per consumer *process*: a restart starts with nothing kept (no user data), and a plain
    callable given to the simulation overrides the built-in assignor for every member."""
    sim = GroupSimulation({"t": 4}, CONFIG, record_heartbeats=False)
    sim.add_member("c1", 0, assignors=("sticky",))
    sim.add_member("c2", 0, assignors=("sticky",))
    sim.run(STEP_MS - 1)
    old = sim.members["c2"].client_assignors["sticky"]
    assert old.kafka_assignor.member_assignment == sim.members["c2"].owned
    sim.bounce("c2", STEP_MS, 1_000)
    sim.run(2 * STEP_MS)
    new = sim.members["c2"].client_assignors["sticky"]
    assert new is not old and new.kafka_assignor.generation == sim.members["c2"].generation
    joins = [m for m in sim.messages if m.api == "JoinGroup" and m.kind == "request" and m.src == "c2"
             and m.sent_ms > STEP_MS]
    assert joins and joins[0].fields["generation"] == -1
    plain = GroupSimulation({"t": 4}, CONFIG, assignors={"sticky": lambda members, parts: {m: [] for m in members}})
    plain.add_member("c1", 0, assignors=("sticky",))
    assert plain.client_assignors(["sticky", "range"]).keys() == {"range"}
