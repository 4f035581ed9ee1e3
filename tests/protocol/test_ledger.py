"""The ownership ledger and metrics type shared by the classic simulator and the KIP-848 model."""
from rebalance.kip848.config import KIP848Config
from rebalance.kip848.scenarios import simulate
from rebalance.protocol.config import ProtocolConfig
from rebalance.protocol.ledger import OwnershipLedger, RebalanceMetrics
from rebalance.protocol.scenarios import cooperative_example
from rebalance.protocol.trace import TraceEvent

T0, T1, T2 = ("t", 0), ("t", 1), ("t", 2)


def test_both_simulators_report_the_same_metrics_type():
    classic = cooperative_example().run(30_000)
    kip848 = simulate("join", 2, {"t": 3}, names=["c1", "c2", "c3"])
    assert type(classic.metrics()) is type(kip848.metrics) is RebalanceMetrics
    assert type(classic.ownership) is type(kip848.ownership) is OwnershipLedger
    assert {type(e) for e in classic.events} == {type(e) for e in kip848.trace} == {TraceEvent}
    # the same concepts carry the same names in both configurations
    shared = {"network_ms", "revoke_ms", "heartbeat_interval_ms", "session_timeout_ms", "max_poll_interval_ms",
              "max_poll_records", "record_processing_ms", "poll_processing_ms"}
    assert shared <= set(vars(ProtocolConfig())) and shared <= set(vars(KIP848Config()))


def hand_made_ledger() -> OwnershipLedger:
    """Three partitions over 10 s; ``c1`` and ``c2`` are members, ``z`` a zombie the coordinator dropped.

    * t-0: c1 owns it 0-4 s, nobody 4-6 s, c2 6 s onwards;
    * t-1: c1 owns it 0-10 s; c2 takes it too at 5 s (a double assignment) and stops at 7 s;
    * t-2: the zombie z owns it 0-3 s; c2 takes it at 2 s (a zombie overlap); c2 stops at 8 s (a crash).
    """
    ledger = OwnershipLedger([T0, T1, T2], is_member=lambda name: name in ("c1", "c2"))
    ledger.acquire("c1", [T0, T1], 0)
    ledger.acquire("z", [T2], 0)
    ledger.acquire("c2", [T2], 2_000)
    ledger.release("z", [T2], 3_000, "lost")
    ledger.release("c1", [T0], 4_000, "revoked")
    ledger.acquire("c2", [T1], 5_000)
    ledger.acquire("c2", [T0], 6_000)
    ledger.release("c2", [T1], 7_000, "revoked")
    ledger.release("c2", [T2], 8_000, "crash")
    return ledger


def test_unowned_time_and_overlaps_of_a_hand_made_timeline():
    ledger = hand_made_ledger()
    # t-0 nobody 4-6 s (2 s), t-1 always owned, t-2 nobody 8-10 s (2 s)
    assert ledger.unowned_ms(0, 10_000) == 4_000
    assert ledger.unowned_ms(5_000, 10_000) == 1_000 + 2_000
    assert ledger.unowned_ms(0, 10_000, partitions=[T1]) == 0
    assert ledger.unowned_ms(10_000, 10_000) == 0
    assert ledger.double_assignments == [(5_000, T1, ("c1", "c2"))]
    assert ledger.zombie_overlaps == [(2_000, T2, ("z", "c2"))]
    assert ledger.violations == [(2_000, T2, ("z", "c2")), (5_000, T1, ("c1", "c2"))]
    assert ledger.current() == {T0: ("c2",), T1: ("c1",), T2: ()}
    # stops: z (lost), c1 t-0 (revoked), c2 t-1 (revoked), c2 t-2 (crash); only t-0 is taken up again,
    # by another member than the one that stopped it
    assert ledger.churn(0) == (4, 1, 1, 2)
    assert ledger.churn(5_000) == (2, 0, 0, 1)


def test_metrics_come_from_the_ledger():
    m = RebalanceMetrics.from_ledger(hand_made_ledger(), 0, 10_000, settled=True, stable_ms=8_000, rebalances=1,
                                     completed_rebalances=1, group_epoch=2, messages={"Heartbeat": 4})
    assert (m.unowned_partition_seconds, m.double_ownership, m.zombie_overlap) == (4.0, 1, 1)
    assert (m.partitions_stopped, m.partitions_restarted, m.partitions_moved, m.revocations) == (4, 1, 1, 2)
    assert m.time_to_stable_ms == 8_000 and m.to_dict()["time_to_stable_ms"] == 8_000
    unsettled = RebalanceMetrics.from_ledger(hand_made_ledger(), 0, 10_000, settled=False, stable_ms=8_000,
                                             rebalances=1, completed_rebalances=1, group_epoch=2, messages={})
    assert unsettled.stable_ms is None and unsettled.time_to_stable_ms is None


def test_changes_keep_the_order_of_events_at_one_instant():
    """A partition taken and given back at the same millisecond, then taken by another process: two moves
    (the KIP-848 model does this with ``revoke_ms=0``)."""
    ledger = OwnershipLedger([T0], process_of=lambda name: name.split("~")[0])
    ledger.acquire("a", [T0], 0)
    ledger.release("a", [T0], 10, "revoked")
    ledger.acquire("b", [T0], 20)
    ledger.release("b", [T0], 20, "revoked")
    ledger.acquire("a~1", [T0], 30)
    assert ledger.changes() == [(0, "a", "add", T0), (10, "a", "remove", T0), (20, "b", "add", T0),
                                (20, "b", "remove", T0), (30, "a~1", "add", T0)]
    assert ledger.churn(0) == (2, 2, 2, 2)
