"""Classic eager / cooperative vs KIP-848 on the same scenarios (uses rebalance.protocol.simulation)."""
import pytest

from rebalance.errors import InputError
from rebalance.kip848.compare import compare_protocols

simulation = pytest.importorskip("rebalance.protocol.simulation")


def test_join_side_by_side():
    rows = {r["protocol"]: r for r in compare_protocols("join", 3, {"orders": 12})}
    eager = rows["classic eager (range)"]
    coop = rows["classic cooperative (cooperative-sticky)"]
    kip = rows["KIP-848 consumer (uniform)"]
    # eager stops every partition; cooperative and KIP-848 only the three that move to the newcomer
    assert eager["partitions_stopped"] == 12
    assert coop["partitions_stopped"] == 3 and kip["partitions_stopped"] == 3
    # cooperative needs two rebalances, KIP-848 a single group-epoch bump
    assert coop["rebalances_or_epoch_bumps"] == 2 and kip["rebalances_or_epoch_bumps"] == 1
    assert all(r["time_to_stable_ms"] is not None for r in rows.values())


def test_static_rolling_restart_moves_nothing_anywhere():
    rows = compare_protocols("rolling_restart", 3, {"orders": 12}, static=True)
    assert [r["partitions_moved"] for r in rows] == [0, 0, 0]


def test_unknown_scenario():
    with pytest.raises(InputError):
        compare_protocols("split-brain")
