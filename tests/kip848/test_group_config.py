"""Per-group overrides of the KIP-848 timings (GroupConfig.validateNames/validateValues, Kafka 4.0 branch)."""
from __future__ import annotations

import pytest

from rebalance.errors import InputError
from rebalance.kip848.config import BROKER_BOUNDS_MS, GROUP_CONFIGS, KIP848Config, group_config


def test_an_override_within_the_bounds_changes_only_its_field():
    cfg = group_config({"consumer.session.timeout.ms": 50_000})
    assert cfg == KIP848Config(session_timeout_ms=50_000)
    cfg = group_config({"consumer.heartbeat.interval.ms": 15_000}, base=KIP848Config(session_timeout_ms=60_000))
    assert (cfg.heartbeat_interval_ms, cfg.session_timeout_ms) == (15_000, 60_000)
    assert group_config({}) == KIP848Config()


@pytest.mark.parametrize("name", sorted(GROUP_CONFIGS))
def test_each_bound_is_enforced_at_its_edge(name):
    low, high = BROKER_BOUNDS_MS["group." + name]
    base = KIP848Config(heartbeat_interval_ms=5_000, session_timeout_ms=60_000)
    assert getattr(group_config({name: low}, base), GROUP_CONFIGS[name]) == low
    assert getattr(group_config({name: high}, base), GROUP_CONFIGS[name]) == high
    # below the least a GroupConfig takes (atLeast(0) for the assignment interval, whose broker minimum is 0 too;
    # atLeast(1) for the others) ConfigDef refuses it before the broker's bounds are looked at
    below = "greater than or equal to group.consumer.min" if low > 0 else r"must be an integer >= 0 \(ms\), got -1"
    with pytest.raises(InputError, match=below):
        group_config({name: low - 1}, base)
    with pytest.raises(InputError, match="less than or equal to group.consumer.max"):
        group_config({name: high + 1}, base)


def test_unknown_names_bad_values_and_session_not_above_heartbeat():
    with pytest.raises(InputError, match="Unknown group config name: session.timeout.ms"):
        group_config({"session.timeout.ms": 45_000})
    with pytest.raises(InputError, match=r"overrides\['consumer.session.timeout.ms'\]"):
        group_config({"consumer.session.timeout.ms": "45000"})
    wide = {"group.consumer.heartbeat.interval.ms": (1, 100_000), "group.consumer.session.timeout.ms": (1, 100_000)}
    with pytest.raises(InputError, match="must be greater than consumer.heartbeat.interval.ms"):
        group_config({"consumer.heartbeat.interval.ms": 30_000, "consumer.session.timeout.ms": 30_000}, bounds=wide)
