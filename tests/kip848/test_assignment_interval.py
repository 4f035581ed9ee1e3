"""Kafka 4.3's assignment interval (``group.consumer.assignment.interval.ms``): the coordinator model computes a new
target assignment only when there is none yet, when the interval is 0, or when the interval has passed since the
last one (``GroupMetadataManager.canComputeNextTargetAssignment``, 4.3.1 lines 3824-3845); a heartbeat before that
is answered from the last target."""
import pytest
from hypothesis import given, settings, strategies as st

from rebalance.errors import InputError
from rebalance.kip848.config import KIP848Config, group_config
from rebalance.kip848.coordinator import GroupCoordinatorModel
from rebalance.kip848.group import TopicCatalog
from rebalance.kip848.scenarios import simulate
from rebalance.kip848.simulation import KIP848Simulation
from rebalance.protocol.clock import VirtualClock


def _coordinator(interval_ms):
    clock = VirtualClock()
    catalog = TopicCatalog.parse({"t": 4})
    model = GroupCoordinatorModel(catalog, KIP848Config(assignment_interval_ms=interval_ms), clock, lambda *a: None)
    return model, clock


def _advance(clock, ms):
    clock.run_until(clock.now_ms + ms)   # the session timers (45 s) never fire within these steps


def test_a_second_member_within_the_interval_waits_for_a_heartbeat_after_it():
    model, clock = _coordinator(1000)
    _advance(clock, 5)
    first = model.heartbeat("a", 0, ["t"], set())
    assert first.assignment == {"t": {0, 1, 2, 3}} and model.assignment_epoch == 1
    _advance(clock, 10)
    second = model.heartbeat("b", 0, ["t"], set())
    assert model.group_epoch == 2 and model.assignment_epoch == 1   # not computed: 10 ms after the last
    assert second.assignment == {} and model.assignments_computed == 1
    _advance(clock, 989)                                                # 999 ms after the first target
    model.heartbeat("a", first.member_epoch, ["t"], {("t", p) for p in range(4)})
    assert model.assignment_epoch == 1
    _advance(clock, 1)                                                  # 1000 ms: the interval has passed
    model.heartbeat("a", first.member_epoch, ["t"], {("t", p) for p in range(4)})
    assert model.assignment_epoch == 2 and model.assignments_computed == 2


def test_an_interval_of_zero_computes_at_every_bump():
    model, clock = _coordinator(0)
    _advance(clock, 5)
    model.heartbeat("a", 0, ["t"], set())
    _advance(clock, 10)
    model.heartbeat("b", 0, ["t"], set())
    assert model.assignment_epoch == model.group_epoch == 2 and model.assignments_computed == 2


@settings(max_examples=30, deadline=None)
@given(starts=st.lists(st.integers(0, 4_000), min_size=2, max_size=5), interval=st.sampled_from([0, 1000, 3000]))
def test_targets_are_at_least_the_interval_apart(starts, interval):
    """Members joining at any times: two target computations are never closer than the interval, and every
    member ends with partitions of the final target (the interval delays, it does not lose a change)."""
    sim = KIP848Simulation({"t": 6}, KIP848Config(assignment_interval_ms=interval))
    for k, at in enumerate(starts):
        sim.join(f"m{k}", at)
    sim.run(60_000)
    times = [e.time_ms for e in sim.trace if e.kind == "target-assignment"]
    assert all(b - a >= interval for a, b in zip(times, times[1:])), times
    if interval:   # members that joined within the interval of a computation are batched into fewer
        assert len(times) <= len(starts)
    owners = {m for m in (f"m{k}" for k in range(len(starts))) if sim.ownership.acquired_ms(m, 0, 60_000)}
    assert owners == {f"m{k}" for k in range(min(len(starts), 6))}


def test_members_that_start_together_form_a_heartbeat_later_than_before_4_3():
    def first_owns(interval):
        run = simulate("join", 2, {"t": 3}, names=["c1", "c2", "c3"], config=KIP848Config(assignment_interval_ms=interval))
        firsts = {}
        for t, member, kind, _ in run.ownership.changes():
            if kind == "add":
                firsts.setdefault(member, t)
        return firsts

    before, now = first_owns(0), first_owns(1000)
    assert before["c1"] == now["c1"]
    assert now["c2"] - before["c2"] == KIP848Config().heartbeat_interval_ms


def test_the_group_config_and_its_bounds():
    assert group_config({"consumer.assignment.interval.ms": 0}).assignment_interval_ms == 0
    assert group_config({"consumer.assignment.interval.ms": 15_000}).assignment_interval_ms == 15_000
    with pytest.raises(InputError, match="less than or equal to group.consumer.max.assignment.interval.ms"):
        group_config({"consumer.assignment.interval.ms": 15_001})
    with pytest.raises(InputError, match="config.assignment_interval_ms"):
        KIP848Config(assignment_interval_ms=-1).validate()
