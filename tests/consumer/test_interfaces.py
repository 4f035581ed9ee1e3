"""The consumer assignor interface: one Protocol (Kafka's ``ConsumerPartitionAssignor``), one registry used
by every caller, one result type, and harness switches that only the vectors adapter passes."""
import inspect

import pytest

from rebalance.consumer import (ASSIGNORS, COOPERATIVE, EAGER, AssignorResult, ConsumerPartitionAssignor, assign,
                                assignor_for, build_scenario)
from rebalance.consumer.sticky_userdata import ByteBuffer, decode_cooperative, decode_sticky
from rebalance.errors import InputError


@pytest.mark.parametrize("name", list(ASSIGNORS))
def test_every_builtin_assignor_implements_the_interface(name):
    assignor = assignor_for(name)
    assert isinstance(assignor, ConsumerPartitionAssignor)
    assert assignor.name() == assignor.NAME == name
    for method in ("assign", "subscription_user_data", "on_assignment"):
        assert callable(getattr(assignor, method))
    result = assignor.assign(build_scenario(name, {"t": 3}, {"a": {"topics": ["t"]}, "b": {"topics": ["t"]}}))
    assert isinstance(result, AssignorResult)
    assert sorted(tp for tps in result.assignment.values() for tp in tps) == [("t", 0), ("t", 1), ("t", 2)]


def test_supported_protocols_are_kafkas():
    # RangeAssignor, RoundRobinAssignor, StickyAssignor: EAGER only; CooperativeStickyAssignor: both
    assert {n: set(assignor_for(n).supported_protocols()) for n in ASSIGNORS} == {
        "range": {EAGER}, "roundrobin": {EAGER}, "sticky": {EAGER}, "cooperative-sticky": {EAGER, COOPERATIVE}}


def test_the_sticky_assignors_remember_what_on_assignment_gave_them():
    sticky = assignor_for("sticky")
    assert sticky.subscription_user_data() is None          # nothing before the first assignment
    sticky.on_assignment([("t", 2), ("t", 0)], 7)
    data = decode_sticky(ByteBuffer(sticky.subscription_user_data()))
    assert sorted(data.partitions) == [("t", 0), ("t", 2)] and data.generation == 7
    coop = assignor_for("cooperative-sticky")
    assert decode_cooperative(ByteBuffer(coop.subscription_user_data())) == -1
    coop.on_assignment([("t", 1)], 4)
    assert decode_cooperative(ByteBuffer(coop.subscription_user_data())) == 4
    assert assignor_for("range").subscription_user_data() is None


def test_one_registry_serves_every_caller():
    from rebalance.protocol.assignors import BUILTIN_PROTOCOLS
    from rebalance.spark.jobs.sweep import ASSIGNORS as SWEEP_ASSIGNORS

    assert tuple(SWEEP_ASSIGNORS) == tuple(ASSIGNORS)
    assert BUILTIN_PROTOCOLS == {n: c.SUPPORTED_PROTOCOLS for n, c in ASSIGNORS.items()}


def test_the_domain_scenario_has_no_harness_switches():
    from rebalance.consumer.model import ConsumerScenario

    fields = set(inspect.signature(ConsumerScenario).parameters)
    assert fields == {"assignor", "partitions", "members", "partition_racks"}


def test_names_and_class_names_resolve_and_bad_names_are_named():
    assert assignor_for("org.apache.kafka.clients.consumer.CooperativeStickyAssignor").name() == "cooperative-sticky"
    with pytest.raises(InputError) as err:
        assign("stiky", {"t": 1}, {"a": {"topics": ["t"]}})
    assert err.value.field == "assignor"
