"""The KIP-848 chapter's widget and figure helpers agree with the simulation they display."""
import matplotlib

matplotlib.use("Agg")

from rebalance.kip848 import simulate  # noqa: E402
from rebalance.viz.kip848 import ownership_intervals, ownership_timeline  # noqa: E402
from rebalance.widgets.kip848 import epoch_log, epoch_stepper, epoch_steps, epoch_table  # noqa: E402


def test_epoch_steps_start_and_end_where_the_run_does():
    r = simulate("join", 2, {"t": 3}, names=["c1", "c2", "c3"])
    steps = epoch_steps(r)
    first, last = epoch_table(steps[0]), epoch_table(steps[-1])
    assert dict(zip(first["member"], first["owned by the consumer"])) == {"c1": "t-0 t-1", "c2": "t-2"}
    assert dict(zip(last["member"], last["assigned"])) == {m: " ".join(p) for m, p in r.final_assignment.items()}
    assert set(last["state"]) == {"STABLE"}
    log = epoch_log(r)
    assert "UNREVOKED_PARTITIONS" in " ".join(log["what"]) and "UNRELEASED_PARTITIONS" in " ".join(log["what"])


def test_timeline_intervals_cover_the_ledger():
    r = simulate("leave", 3, {"orders": 6})
    intervals = ownership_intervals(r)
    assert sorted(intervals) == sorted(f"orders-{p}" for p in range(6))
    for ivs in intervals.values():
        assert all(s <= e for _, s, e in ivs)
    ax = ownership_timeline(r)
    assert len(ax.get_yticklabels()) == 6


def test_timeline_keeps_same_millisecond_events_in_ledger_order():
    # consumer-2 gets a-1 and gives it up at 25051 ms (instant callbacks, shut down by the rolling
    # restart right after reconciling); its interval must end there, not stay open over consumer-3's
    from rebalance.kip848 import KIP848Config
    r = simulate("rolling_restart", 4, {"a": 3}, config=KIP848Config(revoke_ms=0, poll_processing_ms=0, assignor="range"))
    spans = sorted((s, e, m) for m, s, e in ownership_intervals(r)["a-1"])
    assert (25051, 25051, "consumer-2") in spans
    assert all(e <= s2 for (_, e, _), (s2, _, _) in zip(spans, spans[1:]))


def test_stepper_builds():
    widget = epoch_stepper(simulate("join", 2, {"t": 3}))
    assert widget.children[0].max > 0
