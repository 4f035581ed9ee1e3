"""ConsumerRebalanceListener calls recorded by the simulator (ConsumerCoordinator.onJoinPrepare /
onJoinComplete / resetStateAndGeneration, Kafka 3.8/3.9) on the p1/p2/p3 example and a lost member."""
from __future__ import annotations

import pytest

from rebalance.errors import InputError
from rebalance.protocol.config import ProtocolConfig
from rebalance.protocol.listener import callback_totals, listener_calls, listener_rows
from rebalance.protocol.simulation import GroupSimulation
from rebalance.widgets.protocol import third_member_joins_example


def _calls(sim, member=None):
    return [(c.member, c.callback, [f"{t}-{p}" for t, p in c.partitions], c.generation)
            for c in listener_calls(sim, None if member is None else [member])]


def test_eager_revokes_everything_before_joining_and_assigns_the_whole_new_assignment():
    sim = third_member_joins_example("eager")
    assert _calls(sim, "c1") == [("c1", "onPartitionsRevoked", ["t-0", "t-1"], 1),
                                 ("c1", "onPartitionsAssigned", ["t-0"], 2)]
    assert _calls(sim, "c2") == [("c2", "onPartitionsRevoked", ["t-2"], 1),
                                 ("c2", "onPartitionsAssigned", ["t-1"], 2)]
    # the newcomer has no generation yet: onJoinPrepare takes the 'lost' branch with an empty set, no call
    assert _calls(sim, "c3") == [("c3", "onPartitionsAssigned", ["t-2"], 2)]


def test_cooperative_revokes_only_what_moves_and_always_calls_assigned():
    sim = third_member_joins_example("cooperative")
    assert _calls(sim, "c1") == [("c1", "onPartitionsRevoked", ["t-1"], 2),
                                 ("c1", "onPartitionsAssigned", [], 2),
                                 ("c1", "onPartitionsAssigned", [], 3)]
    assert _calls(sim, "c3") == [("c3", "onPartitionsAssigned", [], 2),
                                 ("c3", "onPartitionsAssigned", ["t-1"], 3)]
    totals = callback_totals(listener_calls(sim))
    assert totals["onPartitionsRevoked"] == {"calls": 1, "empty calls": 0, "partitions": 1}
    assert totals["onPartitionsAssigned"]["partitions"] == 1 and totals["onPartitionsLost"]["calls"] == 0
    # the revocation comes before the second rebalance's assignment of the same partition
    revoke = next(c for c in listener_calls(sim) if c.callback == "onPartitionsRevoked")
    take = next(c for c in listener_calls(sim) if c.member == "c3" and c.partitions)
    assert revoke.time_ms < take.time_ms


def test_a_member_past_max_poll_interval_loses_its_partitions():
    cfg = ProtocolConfig(initial_rebalance_delay_ms=0, max_poll_interval_ms=10_000, session_timeout_ms=6000,
                         heartbeat_interval_ms=1000)
    sim = GroupSimulation({"t": 4}, cfg)
    sim.start_stable({"c1": [("t", 0), ("t", 1)], "c2": [("t", 2), ("t", 3)]}, assignors=("cooperative-sticky",))
    sim.slow("c2", 500, 15_000)
    sim.run(60_000)
    lost = [c for c in listener_calls(sim, ["c2"]) if c.callback == "onPartitionsLost"]
    assert [c.partitions for c in lost] == [(("t", 2), ("t", 3))]
    assert lost[0].generation == -1  # the generation was reset before the callback ran


def test_rows_and_bad_input():
    sim = third_member_joins_example("eager")
    rows = listener_rows(listener_calls(sim))
    assert [r["call"] for r in rows if r["member"] == "c1"] == ["onPartitionsRevoked([t-0, t-1])",
                                                                "onPartitionsAssigned([t-0])"]
    later = listener_calls(sim)[1].time_ms
    assert listener_calls(sim, since=later) == [c for c in listener_calls(sim) if c.time_ms >= later]
    with pytest.raises(InputError, match="since"):
        listener_calls(third_member_joins_example("eager"), since=-1)

