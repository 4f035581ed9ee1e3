"""``run_scenario(value, cluster=...)``: a scenario on a running cluster must find its broker settings there.

The chapters run several scenarios on one broker (a cluster start costs seconds); a scenario whose broker
settings the cluster does not have is refused before anything starts, naming the scenario's field.  These
checks need no Kafka: the refusal comes first.  Running on a shared cluster is exercised by chapters 7, 8, 9
and 10 under nbval.
"""
from __future__ import annotations

import pytest

from rebalance.errors import InputError
from rebalance.kafka.consumers import run_scenario


class _Cluster:
    def __init__(self, config, running=True):
        self.broker_config = {k: str(v) for k, v in config.items()}
        self.running = running
        self.bootstrap_servers = "127.0.0.1:1"


CLASSIC_BROKER = {"group.initial.rebalance.delay.ms": 1000, "group.min.session.timeout.ms": 1000,
                  "group.max.session.timeout.ms": 1800000, "offsets.topic.num.partitions": 1}
SCENARIO = {"protocol": "eager", "topics": {"t": 2}, "members": [{"id": "c1"}], "until_ms": 1000,
            "config": {"initial_rebalance_delay_ms": 1000, "group_min_session_timeout_ms": 1000,
                       "session_timeout_ms": 3000, "heartbeat_interval_ms": 500}}


def test_a_different_broker_setting_is_named_by_the_scenario_field():
    cluster = _Cluster({**CLASSIC_BROKER, "group.initial.rebalance.delay.ms": 0})
    with pytest.raises(InputError) as e:
        run_scenario(SCENARIO, cluster=cluster)
    assert e.value.field == "config.initial_rebalance_delay_ms"
    assert "group.initial.rebalance.delay.ms=0" in str(e.value)


def test_a_setting_the_cluster_lacks_is_refused():
    cluster = _Cluster({k: v for k, v in CLASSIC_BROKER.items() if k != "offsets.topic.num.partitions"})
    with pytest.raises(InputError) as e:
        run_scenario(SCENARIO, cluster=cluster)
    assert e.value.field == "cluster" and "Kafka default" in str(e.value)


def test_a_stopped_cluster_is_refused():
    with pytest.raises(InputError) as e:
        run_scenario(SCENARIO, cluster=_Cluster(CLASSIC_BROKER, running=False))
    assert e.value.field == "cluster"


def test_a_consumer_scenario_ignores_the_classic_initial_delay():
    kip848 = {"protocol": "consumer", "topics": {"t": 2}, "members": [{"id": "c1"}], "until_ms": 1000,
              "config": {"session_timeout_ms": 3000, "heartbeat_interval_ms": 500}}
    # every group.consumer.* setting matches, the classic initial delay does not: only the running check is left
    cluster = _Cluster({"group.initial.rebalance.delay.ms": 3000, "offsets.topic.num.partitions": 1,
                        "group.consumer.session.timeout.ms": 3000, "group.consumer.min.session.timeout.ms": 3000,
                        "group.consumer.heartbeat.interval.ms": 500, "group.consumer.min.heartbeat.interval.ms": 500},
                       running=False)
    with pytest.raises(InputError) as e:
        run_scenario(kip848, cluster=cluster)
    assert e.value.field == "cluster" and "not running" in str(e.value)
