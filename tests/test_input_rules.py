"""Issue 12, item 3: inputs that used to get a wrong answer or no named error -- one rule each."""
import pytest

from rebalance.consumer import assign
from rebalance.errors import InputError, KafkaError, SimulationError
from rebalance.kip848 import KIP848Config, assign_group, simulate
from rebalance.protocol import coordinator
from rebalance.protocol.simulation import GroupSimulation
from rebalance.replicas import coordinators
from rebalance.vectors import run_input

ASSIGNORS = ("range", "roundrobin", "sticky", "cooperative-sticky")


# -- partition_for: one implementation, one error for zero partitions -------------------------------

def test_partition_for_exists_once():
    assert coordinators.offsets_partition_for is coordinator.partition_for
    assert coordinators.OFFSETS_TOPIC_PARTITIONS == coordinator.OFFSETS_TOPIC_PARTITIONS_DEFAULT


@pytest.mark.parametrize("function", [coordinator.partition_for, coordinators.offsets_partition_for])
def test_zero_partitions_is_kafkas_config_exception(function):
    with pytest.raises(KafkaError) as info:
        function("my-group", 0)
    assert info.value.type.endswith("ConfigException")
    with pytest.raises(InputError) as info:
        function(None)
    assert info.value.field == "groupId"


def test_an_empty_offsets_placement_names_the_assignment():
    with pytest.raises(InputError) as info:
        coordinators.coordinator_for("my-group", {})
    assert info.value.field == "assignment"


# -- empty groups and empty topics: the same answer from every assignor -----------------------------

@pytest.mark.parametrize("assignor", ASSIGNORS)
def test_no_members_is_one_input_error(assignor):
    for partitions in ({}, {"t": 3}):
        with pytest.raises(InputError) as info:
            assign(assignor, partitions, {})
        assert info.value.field == "members"


@pytest.mark.parametrize("assignor", ASSIGNORS)
def test_no_partitions_gives_every_member_an_empty_list(assignor):
    # AbstractStickyAssignor with members and no partitions: minQuota = maxQuota = 0, nothing to divide
    assert assign(assignor, {"t": 0}, {"A": {"topics": ["t"]}, "B": {"topics": ["t"]}}) == {"A": [], "B": []}
    assert assign(assignor, {}, {"A": {"topics": []}}) == {"A": []}


def test_the_classes_driven_directly_still_throw_what_kafka_throws():
    # ConstrainedAssignmentBuilder: totalPartitionsCount % numberOfConsumers (AbstractStickyAssignor line 627)
    for assignor, kafka in (("sticky", "ArithmeticException"), ("cooperative-sticky", "ArithmeticException"),
                            ("roundrobin", "IllegalArgumentException")):
        out = run_input({"kind": "consumer", "assignor": assignor, "topics": {"t": 1}, "members": []})
        assert out["error"]["type"] == kafka
    assert run_input({"kind": "consumer", "assignor": "range", "topics": {"t": 1}, "members": []}) == \
        {"assignment": {}, "sortedAssignment": {}}


# -- KIP-848 members: unknown keys are refused ------------------------------------------------------

@pytest.mark.parametrize("member,field", [
    ({"id": "a", "subscription": ["t"]}, "members[0].subscription"),
    ({"id": "a", "subscriptions": ["t"], "owned": {"t": [0]}}, "members[0].owned"),
    ({"id": "a", "subscriptions": ["t"], "topics": ["t"]}, "members[0].topics"),
    ({"id": "a", "subscriptions": ["t"], "rack": 3}, "members[0].rack"),
])
def test_a_misspelt_member_field_is_named(member, field):
    with pytest.raises(InputError) as info:
        assign_group("uniform", {"t": 3}, [member])
    assert info.value.field == field


def test_the_accepted_spellings_still_work():
    result = assign_group("uniform", {"t": 2}, [{"memberId": "a", "topics": ["t"], "rack": "r1"}])
    assert result.by_name() == {"a": {"t": [0, 1]}}


# -- the classic simulator's assignors: a string is Kafka's comma-separated list --------------------

def test_assignors_as_a_string_is_a_comma_separated_list():
    sim = GroupSimulation({"t": 3})
    sim.add_member("a", 0, assignors="range")
    sim.add_member("b", 0, assignors="cooperative-sticky, range")
    assert sim.specs["a"].assignors == ("range",) and sim.specs["b"].assignors == ("cooperative-sticky", "range")
    with pytest.raises(InputError) as info:
        sim.add_member("c", 0, assignors="rnage")
    assert info.value.field == "assignors" and "'rnage'" in info.value.message
    for bad, field in ((",", "assignors"), ([3], "assignors[0]"), (None, "assignors")):
        with pytest.raises(InputError) as info:
            sim.add_member("d", 0, assignors=bad)
        assert info.value.field == field


# -- the KIP-848 simulation: named errors -----------------------------------------------------------

def test_a_group_that_does_not_stabilise_is_a_simulation_error():
    with pytest.raises(SimulationError) as info:
        simulate("join", 3, max_ms=1)
    assert info.value.field == "max_ms" and isinstance(info.value, RuntimeError)
    with pytest.raises(InputError) as info:
        simulate("join", 3, max_ms=0)
    assert info.value.field == "max_ms"


def test_heartbeat_must_be_shorter_than_the_session():
    # GroupCoordinatorConfig: require(consumerGroupHeartbeatIntervalMs < consumerGroupSessionTimeoutMs)
    with pytest.raises(InputError) as info:
        simulate("join", 2, config=KIP848Config(heartbeat_interval_ms=45_000))
    assert info.value.field == "config.heartbeat_interval_ms"


def test_a_huge_group_is_refused_before_it_is_built():
    with pytest.raises(InputError) as info:
        assign("range", {"small": 1, "big": 2**31 - 1}, {"A": {"topics": ["big"]}})
    assert info.value.field == "partitions.big"
    with pytest.raises(InputError) as info:
        simulate("join", 3, {"orders": 10**13})
    assert info.value.field == "topics.orders"
