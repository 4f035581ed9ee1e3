"""Restarts through the one driver interface of both group simulators (issue 24, item 0).

A ``restart`` of a running consumer closes it (``KafkaConsumer.close``: revoke, then LeaveGroup for a dynamic
member; none for a static one, ``AbstractCoordinator.shouldSendLeaveGroupRequest``, Kafka 4.3.1 line 1190) and
starts a new process once the close has finished.  Before the fix the new process was due in the same
millisecond as the close, found the old one still alive and never started: a rolling restart drained the
group.  Kafka rejoins a restarted dynamic member, and replaces a static one that is back within its session
timeout without a rebalance: classic ``GroupMetadataManager.updateStaticMemberThenRebalanceOrCompleteJoin``
(line 7438) with ``ClassicGroup.replaceStaticMember`` (line 550) while the group is ``Stable``; KIP-848
``getOrMaybeSubscribeStaticConsumerGroupMember`` (line 3146), the new member id taking over the assignment of
the member that left with epoch -2 (``consumerGroupStaticMemberGroupLeave``, line 4244).
"""
import json

import pytest

import rebalance.simulate
from rebalance.errors import EventLimitError, IllegalStateError, SimulationError
from rebalance.kip848.simulation import KIP848Simulation
from rebalance.protocol.config import ProtocolConfig
from rebalance.protocol.driver import CompletedRebalance, ConsumerGroupDriver
from rebalance.protocol.group import STABLE, ClassicGroupCoordinator
from rebalance.protocol.simulation import GroupSimulation
from rebalance.simulate import driver_for, parse_scenario, simulate_lines, simulate_scenario
from rebalance.vectors import Line

#: the group has formed by then (classic: ~3 s initial delay; KIP-848: a few heartbeats)
FORMED_MS = 20_000


def rolling_restart(protocol, static):
    """Four dynamic members over 8 partitions, or five static ones over 10, restarted one by one 20 s apart
    from 30 s; measured from 20 s, when the group has formed."""
    n, partitions = (5, 10) if static else (4, 8)
    members = [{"id": f"c{i}", **({"instance_id": f"i{i}"} if static else {})} for i in range(1, n + 1)]
    events = [{"at_ms": 30_000 + k * 20_000, "op": "restart", "member": f"c{k + 1}"} for k in range(n)]
    return {"id": f"{protocol}-rolling", "protocol": protocol, "topics": {"t": partitions}, "members": members,
            "events": events, "until_ms": 150_000, "measure_from_ms": FORMED_MS}


@pytest.mark.parametrize("protocol", ["eager", "cooperative", "consumer"])
def test_a_dynamic_rolling_restart_keeps_every_member(protocol):
    out = simulate_scenario(rolling_restart(protocol, static=False))
    summary = out.summary()
    last = out.rebalances[-1]
    assert sorted(last.assignment) == ["c1", "c2", "c3", "c4"]  # before the fix: ["c4"], then nobody
    assert sorted(tp for tps in last.assignment.values() for tp in tps) == sorted(f"t-{p}" for p in range(8))
    assert summary["settled"] and summary["double_ownership"] == 0
    # each restart rejoins (a rebalance, as Kafka); none stops a partition for more than ~2 s
    assert summary["rebalances"] >= 4
    assert summary["unowned_partition_seconds"] < 4 * 8 * 2.0  # before the fix: ~500


@pytest.mark.parametrize("protocol", ["eager", "cooperative", "consumer"])
def test_a_static_rolling_restart_is_no_rebalance_and_moves_nothing(protocol):
    out = simulate_scenario(rolling_restart(protocol, static=True))
    summary = out.summary()
    assert summary["rebalances"] == 0 and summary["moved_partitions"] == 0  # after the group formed
    assert summary["rebalances_started"] == 0
    formed = [r for r in out.rebalances if r.at_ms < FORMED_MS][-1]
    assert out.rebalances[-1] == formed  # the formation's assignment is still the group's
    assert sorted(formed.assignment) == ["c1", "c2", "c3", "c4", "c5"]
    assert summary["settled"] and summary["double_ownership"] == 0
    # each member's two partitions wait only for its close and its new process's join: well under 1 s each
    assert summary["unowned_partition_seconds"] < 5 * 2 * 1.0  # before the fix (eager): 550


def test_the_classic_static_restart_replaces_the_member_id_in_stable():
    """Every member, the leader included, is replaced by ``replaceStaticMember``; the group never leaves
    ``Stable`` and keeps generation 1."""
    s = parse_scenario(rolling_restart("eager", static=True))
    sim = driver_for(s)
    for m in s.members:
        sim.join(m.id, 0, topics=m.topics, instance_id=m.instance_id)
    for e in s.events:
        sim.restart(e.member, e.at_ms)
    sim.run(s.until_ms)
    replaced = [e for e in sim.events if e.kind == "decision" and e.fields.get("what") == "replaceStaticMember"]
    assert [e.fields["instance"] for e in replaced] == ["i1", "i2", "i3", "i4", "i5"]
    states = [e.fields["state"] for e in sim.events if e.kind == "state" and e.time_ms >= FORMED_MS]
    assert states == [] and sim.coordinator.state == STABLE and sim.coordinator.generation == 1
    # no LeaveGroup from a static member's close: the only LeaveGroups would have been dynamic ones
    assert sim.message_counts["LeaveGroup"] == 0
    assert sorted(m.incarnation for m in sim.members.values()) == [2] * 5


@pytest.mark.parametrize("protocol", ["eager", "cooperative", "consumer"])
def test_a_restart_while_the_member_is_closing_starts_after_the_close(protocol):
    """``leave`` then ``restart`` in the same millisecond: the close runs its course, then the new process."""
    s = {"id": "x", "protocol": protocol, "topics": {"t": 6}, "members": [{"id": f"c{i}"} for i in range(1, 4)],
         "events": [{"at_ms": 20_000, "op": "leave", "member": "c2"},
                    {"at_ms": 20_000, "op": "restart", "member": "c2"}], "until_ms": 60_000}
    out = simulate_scenario(s)
    assert sorted(out.rebalances[-1].assignment) == ["c1", "c2", "c3"] and out.rebalances[-1].at_ms > 20_000
    assert out.summary()["settled"]


def test_bounce_with_no_downtime_restarts_the_member():
    """``GroupSimulation.bounce(name, at, 0)``: before the fix the revocation (``revoke_ms``) was still running
    when the new process was due, and nothing restarted."""
    sim = GroupSimulation({"t": 4}, ProtocolConfig(revoke_ms=200), record_heartbeats=False)
    for name in ("a", "b"):
        sim.add_member(name, 0)
    sim.bounce("a", 20_000, 0)
    sim.run(60_000)
    assert sim.members["a"].incarnation == 2 and sim.members["a"].alive
    assert sim.is_settled() and sorted(sim.assignment()) == ["a", "b"]


def test_both_simulators_are_drivers_and_report_rebalances_and_events():
    classic = GroupSimulation({"t": 2}, record_heartbeats=False)
    kip848 = KIP848Simulation({"t": 2})
    for sim in (classic, kip848):
        assert isinstance(sim, ConsumerGroupDriver)
        done, events = [], []
        sim.on_rebalance_completed(done.append)
        sim.on_event(events.append)
        sim.join("a", 0)
        sim.join("b", 5_000)
        sim.run(30_000)
        assert all(isinstance(r, CompletedRebalance) for r in done)
        assert sorted(done[-1].assignment) == ["a", "b"] and done[-1].assignment["a"] and done[-1].assignment["b"]
        assert events and events[-1].time_ms <= 30_000
        assert sim.metrics(0, 30_000).settled


def test_the_event_limit_raises_its_own_error_naming_until_ms(monkeypatch):
    s = rolling_restart("eager", static=False)
    for protocol in ("eager", "consumer"):
        sim = driver_for(parse_scenario(dict(s, protocol=protocol)))
        sim.max_events = 50
        for name in ("c1", "c2", "c3", "c4"):
            sim.join(name, 0)
            sim.restart(name, 30_000)
        with pytest.raises(EventLimitError) as err:
            sim.run(s["until_ms"])
        assert err.value.field == "until_ms" and err.value.limit == 50 and err.value.until_ms == 150_000
        assert isinstance(err.value, SimulationError)
    # through `simulate`: an error line naming until_ms
    monkeypatch.setattr(rebalance.simulate, "MAX_EVENTS", 50)
    rows = []
    assert simulate_lines([Line("-", 1, s)], rows.append) == (0, 1)
    assert rows[0]["error"]["type"] == "EventLimitError" and rows[0]["error"]["field"] == "until_ms"
    assert "more than 50 simulated events before 150000 ms" in rows[0]["error"]["message"]


def test_a_simulator_bug_is_not_reported_as_the_event_limit(monkeypatch):
    """An illegal state inside the simulator surfaces as itself (before: any RuntimeError became "more than
    10,000,000 simulated events", field until_ms)."""
    def broken(self, *args):  # the join phase completes straight into Stable: ClassicGroupState forbids it
        self._transition(STABLE)
    monkeypatch.setattr(ClassicGroupCoordinator, "_try_complete_initial_rebalance", broken)
    s = rolling_restart("eager", static=False)
    with pytest.raises(IllegalStateError, match="illegal transition PreparingRebalance -> Stable"):
        simulate_scenario(s)
    rows = []
    assert simulate_lines([Line("-", 1, s)], rows.append) == (0, 1)
    assert rows[0]["error"]["type"] == "IllegalStateError" and rows[0]["error"]["field"] is None
    assert "events" not in rows[0]["error"]["message"]
    json.dumps(rows)  # still one JSON line
