"""A scenario's ``subscribe`` event (rebalance.simulate): a running member subscribes to other topics, as
``KafkaConsumer.subscribe`` called again does.  Only a real cluster plays it (``simulate --on kafka``:
``ScenarioMembers``' ``subscribe`` command; chapter 16 and ``tests/diagnose/real_logs.py`` run it); its fields are
checked like every event's, and the simulators, which keep each member's subscription, refuse it naming the event."""
import pytest

from rebalance.errors import InputError
from rebalance.simulate import parse_scenario, simulate_scenario


def scenario(**event):
    e = {"at_ms": 5000, "op": "subscribe", "member": "b", "topics": ["t", "u"], **event}
    return {"protocol": "eager", "topics": {"t": 2, "u": 2},
            "members": [{"id": "a", "topics": ["t"]}, {"id": "b", "topics": ["t"]}],
            "events": [e], "until_ms": 9000}


def test_a_subscribe_event_carries_its_topics():
    s = parse_scenario(scenario())
    assert [(e.op, e.member, e.topics) for e in s.events] == [("subscribe", "b", ("t", "u"))]


@pytest.mark.parametrize("event, field", [
    ({"topics": []}, "events[0].topics"),
    ({"topics": "t"}, "events[0].topics"),
    ({"topics": ["t", "nope"]}, "events[0].topics[1]"),
    ({"topics": ["t", "t"]}, "events[0].topics"),
    ({"topics": None}, "events[0].topics"),
    ({"op": "leave"}, "events[0].topics"),        # only a subscribe has topics
    ({"down_ms": 10}, "events[0].down_ms"),
])
def test_bad_subscribe_events_name_the_field(event, field):
    with pytest.raises(InputError) as e:
        parse_scenario(scenario(**event))
    assert e.value.field == field


def test_a_member_that_is_not_running_cannot_change_its_subscription():
    value = scenario()
    value["events"].insert(0, {"at_ms": 1000, "op": "leave", "member": "b"})
    with pytest.raises(InputError) as e:
        parse_scenario(value)
    assert e.value.field == "events[1].op"


@pytest.mark.parametrize("protocol", ["eager", "cooperative", "consumer"])
def test_the_simulators_refuse_a_subscription_change_naming_the_event(protocol):
    with pytest.raises(InputError, match="only on a real cluster") as e:
        simulate_scenario(dict(scenario(), protocol=protocol))
    assert e.value.field == "events[0].op"
