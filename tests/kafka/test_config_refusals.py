"""Chapter 17's refused settings tried on Kafka's jars (:mod:`rebalance.kafka.config_refusals`): each refused rule of
:mod:`rebalance.timeouts.rules` says what Kafka 4.3.1 says, and a consumer whose settings are sound is not refused
(the check that would let a broken driver pass: every answer an exception)."""
from __future__ import annotations

from pathlib import Path

import pytest

from rebalance.errors import InputError
from rebalance.kafka import KafkaCluster, broker_refusal, consumer_refusals, default_of
from rebalance.timeouts import consumer_group_timings, consumer_protocol_client, heartbeat_interval, session_bounds
from .built import needs_class
from .processes import our_processes_mentioning

kafka = pytest.mark.kafka
needs_java = needs_class("consumers/ScenarioMembers")

SESSION = int(default_of("session.timeout.ms"))
JAVA = str(Path(__file__).resolve().parents[2] / "java")


def test_bad_cases_are_refused_before_anything_starts():
    with pytest.raises(InputError) as caught:
        consumer_refusals("127.0.0.1:1", [])
    assert caught.value.field == "cases"
    with pytest.raises(InputError) as caught:
        consumer_refusals("127.0.0.1:1", [{"name": "a", "props": {}}, {"name": "a", "props": {}}])
    assert caught.value.field == "cases"


@kafka
@needs_java
def test_each_refusal_is_the_one_the_rules_quote():
    with KafkaCluster(brokers=1) as cluster:
        said = consumer_refusals(cluster.bootstrap_servers, [
            {"name": "heartbeat", "props": {"session.timeout.ms": str(SESSION), "heartbeat.interval.ms": str(SESSION)}},
            {"name": "session", "props": {"session.timeout.ms": "5000", "heartbeat.interval.ms": "1000"}},
            {"name": "protocol", "props": {"group.protocol": "consumer", "session.timeout.ms": str(SESSION)}},
            {"name": "sound", "props": {"session.timeout.ms": "10000", "heartbeat.interval.ms": "1000"}},
        ])
    rules = {"heartbeat": heartbeat_interval(SESSION, SESSION),
             "session": session_bounds(5000, int(default_of("group.min.session.timeout.ms")),
                                       int(default_of("group.max.session.timeout.ms"))),
             "protocol": consumer_protocol_client("consumer", ["session.timeout.ms"])}
    assert all(r is not None and r.refused for r in rules.values())
    assert said["heartbeat"] == "IllegalArgumentException: Heartbeat must be set lower than the session timeout"
    assert rules["heartbeat"].effect.endswith('"Heartbeat must be set lower than the session timeout"')
    assert said["session"].startswith("InvalidSessionTimeoutException: ")
    assert "INVALID_SESSION_TIMEOUT" in rules["session"].effect
    assert said["protocol"] == "ConfigException: session.timeout.ms cannot be set when group.protocol=CONSUMER"
    assert rules["protocol"].effect.endswith('"session.timeout.ms cannot be set when group.protocol=CONSUMER"')
    assert said["sound"] is None, said
    assert not our_processes_mentioning(JAVA, "ScenarioMembers", "kafka.Kafka")


@kafka
@needs_java
def test_a_broker_with_its_consumer_heartbeat_above_its_maximum_does_not_start():
    bounds = [int(default_of(f"group.consumer.{x}")) for x in ("min.session.timeout.ms", "max.session.timeout.ms",
                                                                "min.heartbeat.interval.ms", "max.heartbeat.interval.ms")]
    rule = consumer_group_timings(int(default_of("group.consumer.session.timeout.ms")), 50_000, *bounds)
    assert rule is not None and rule.refused
    said = broker_refusal({"group.consumer.heartbeat.interval.ms": 50_000})
    assert said == f"IllegalArgumentException: {rule.condition}", said
    assert not our_processes_mentioning(JAVA, "kafka.Kafka")
