"""The broker's bounds on session.timeout.ms (group.min/max.session.timeout.ms, GroupCoordinatorConfig 3.8/3.9)."""
from __future__ import annotations

import pytest

from rebalance.errors import InputError
from rebalance.protocol.config import ProtocolConfig
from rebalance.protocol.simulation import GroupSimulation


@pytest.mark.parametrize("session_ms, max_ms, joined", [(5_999, 1_800_000, False), (6_000, 1_800_000, True),
                                                        (1_800_000, 1_800_000, True), (1_800_001, 1_800_000, False),
                                                        (1_800_001, 3_600_000, True)])
def test_join_group_checks_the_broker_session_timeout_bounds(session_ms, max_ms, joined):
    """GroupCoordinator.handleJoinGroup (3.8/3.9): group.min/max.session.timeout.ms, both ends inclusive."""
    sim = GroupSimulation({"t": 2}, ProtocolConfig(group_max_session_timeout_ms=max_ms))
    sim.add_member("c1", 0, instance_id="app-1", session_timeout_ms=session_ms)
    sim.run(10_000)
    labels = [m.label() for m in sim.messages if m.dst == "c1" and m.label().startswith("JoinGroupResponse")]
    assert ("INVALID_SESSION_TIMEOUT" in labels[-1]) != joined
    assert sorted(sim.assignment().get("c1", [])) == ([("t", 0), ("t", 1)] if joined else [])


def test_broker_bounds_are_validated():
    with pytest.raises(InputError, match="group_min_session_timeout_ms"):
        ProtocolConfig(group_min_session_timeout_ms=60_000, group_max_session_timeout_ms=30_000).validate()
    with pytest.raises(InputError, match="group_max_session_timeout_ms"):
        ProtocolConfig(group_max_session_timeout_ms=-1).validate()
