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
    # restart right after reconciling); its interval must end there, not stay open over consumer-3's (the
    # case needs the timings without Kafka 4.3's assignment interval, as before 4.3)
    from rebalance.kip848 import KIP848Config
    r = simulate("rolling_restart", 4, {"a": 3}, config=KIP848Config(revoke_ms=0, poll_processing_ms=0, assignor="range",
                                                                     assignment_interval_ms=0))
    spans = sorted((s, e, m) for m, s, e in ownership_intervals(r)["a-1"])
    assert (25051, 25051, "consumer-2") in spans
    assert all(e <= s2 for (_, e, _), (s2, _, _) in zip(spans, spans[1:]))


def test_stepper_builds():
    widget = epoch_stepper(simulate("join", 2, {"t": 3}))
    assert widget.children[0].max > 0


def test_comparison_bars_fits_a_printed_page():
    """Figure 9.2 is laid out for the PDF's text width: 7.5 inches wide at most, every label at 9 pt or more and
    none rotated, one panel per metric titled after it, the scenarios named once, every bar drawn."""
    import matplotlib.pyplot as plt

    from rebalance.kip848 import compare_protocols
    from rebalance.viz.kip848 import comparison_bars

    rows = compare_protocols("join") + compare_protocols("rolling_restart", static=True)
    fig = comparison_bars(rows)
    try:
        assert fig.get_size_inches()[0] <= 7.5
        axes = fig.get_axes()
        assert [ax.get_title().replace("\n", " ") for ax in axes] == [
            "time to stable (s, log scale)", "unowned partition-seconds (log scale)", "partitions stopped"]
        labels = [t for ax in axes for t in ax.get_xticklabels() + ax.get_yticklabels() if t.get_text()]
        labels += [ax.title for ax in axes] + list(fig.legends[0].get_texts())
        assert all(t.get_fontsize() >= 9 for t in labels), sorted({t.get_fontsize() for t in labels})
        assert all(t.get_rotation() == 0 for t in labels)
        assert [t.get_text() for t in axes[0].get_yticklabels()] == ["join", "rolling restart (static)"]
        assert all(len(ax.patches) == len(rows) for ax in axes)
    finally:
        plt.close(fig)
