"""The chapter's tables, widgets and figures: values and smoke tests."""
import matplotlib

matplotlib.use("Agg")

import pytest

from rebalance.connect.examples import derived_sets_table, interleaved_round_robin, three_workers_example
from rebalance.connect.experiment import bounce_rounds, start_stop, successive_joins
from rebalance.errors import InputError
from rebalance.viz import connect as figures
from rebalance.widgets import connect as widgets


def test_parse_counts():
    assert widgets.parse_counts("a=3, b=0") == [("a", 3), ("b", 0)]
    assert widgets.parse_counts("5 4") == [("w1", 5), ("w2", 4)]
    for bad in ("a=x", "a=-1", ""):
        with pytest.raises(InputError):
            widgets.parse_counts(bad)


def test_revocation_table_default_is_the_eleventh_worker_join():
    t = widgets.revocation_table()
    assert t["revoked (3.4+)"].sum() == 81 and t["revoked (2.3-3.3)"].sum() == 80


def test_derived_sets_when_a_third_worker_joins():
    rows = derived_sets_table()
    assert [r["created"] for r in rows] == ["-", "t1"]
    assert rows[1]["previous"] == "ct1, ct2, t2, t3"


def test_successive_joins_backoff_column():
    delays = [r["delay sent (ms)"] for r in successive_joins()]
    assert [d for d in delays if d] == [40, 1600, 64000, 300000, 300000, 300000]


def test_widgets_build():
    pytest.importorskip("ipywidgets")
    assert widgets.revocation_widget() is not None
    assert widgets.experiment_widget() is not None


def test_figures_draw():
    import matplotlib.pyplot as plt
    from rebalance.connect.arithmetic import revocation_plan
    from rebalance.connect.eager import eager_assignment
    from rebalance.connect.examples import pretty
    figs = [
        figures.rounds_figure({"eager": three_workers_example("eager")}, pretty),
        figures.dealing_figure(eager_assignment({"a": 1, "b": 1}, ["w1", "w2"]),
                               interleaved_round_robin({"a": 1, "b": 1}, ["w1", "w2"])),
        figures.revocation_figure(revocation_plan(widgets.DEFAULT_COUNTS)),
        figures.delay_timeline_figure(bounce_rounds("incremental")[0], "worker-01"),
        figures.experiment_figure({a: start_stop(a, n_connectors=5) for a in ("eager", "incremental")}),
    ]
    assert all(f.axes for f in figs)
    plt.close("all")
