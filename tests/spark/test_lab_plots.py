"""Stored full-scale runs read back identically; the chapter's figures draw from job tables."""
import matplotlib

matplotlib.use("Agg")

import pandas as pd
import pytest

from rebalance.spark import lab, plots
from rebalance.spark import single_process as local
from rebalance.spark.jobs import coordinator, montecarlo, placement


@pytest.mark.spark
def test_load_or_run_stores_and_reads_back(spark, tmp_path):
    store = str(tmp_path / "store")
    params = {"partition_counts": (10, 50), "broker_counts": (3,)}
    first = lab.load_or_run("coordinator", 20_000, seed=3, store=store, params=params, spark=spark)
    again = lab.load_or_run("coordinator", 20_000, seed=3, store=store, params=params, spark=spark)
    assert set(first.tables) == {"partition_load", "broker_load", "summary"}
    for name in first.tables:
        pd.testing.assert_frame_equal(first[name], again[name])
    assert first.params["partition_counts"] == [10, 50]
    # another scale is recomputed, not read
    other = lab.load_or_run("coordinator", 10_000, seed=3, store=store, params=params, spark=spark)
    assert other["summary"].groups.tolist() == [10_000, 10_000]
    assert lab.stored(store, "coordinator").scale == 10_000


def test_figures_draw_from_job_tables():
    sweep_tables = local.sweep(24, seed=1)
    loads = local.coordinator_partition_load(20_000, 1, {"partition_counts": (10, 50), "broker_counts": (3, 6)})
    brokers = coordinator.broker_load(loads, (3, 6))
    mc_rows = montecarlo.simulate_range(1, range(4), montecarlo.MonteCarloParams())
    pl_rows = placement.audit_range(1, 60, range(2), placement.PlacementAuditParams(topics_per_cluster=30))
    figs = [plots.sweep_figure(sweep_tables), plots.coordinator_figure(coordinator.summarize(loads, brokers)),
            plots.montecarlo_figure(mc_rows), plots.placement_figure(placement.broker_table(pl_rows))]
    for fig in figs:
        assert fig.axes and any(ax.lines or ax.patches for ax in fig.axes)
    import matplotlib.pyplot as plt

    plt.close("all")


def test_coordinator_figure_draws_a_real_cluster_point():
    loads = local.coordinator_partition_load(5_000, 1, {"partition_counts": (10, 50), "broker_counts": (3,)})
    summary = coordinator.summarize(loads, coordinator.broker_load(loads, (3,)))
    plain = plots.coordinator_figure(summary)
    fig = plots.coordinator_figure(summary, real={"real cluster, 3 brokers": (50, 1.02)})
    stars = [line for line in fig.axes[0].lines if line.get_label() == "real cluster, 3 brokers"]
    assert len(stars) == 1 and list(stars[0].get_xdata()) == [50] and list(stars[0].get_ydata()) == [1.02]
    assert len(fig.axes[0].lines) == len(plain.axes[0].lines) + 1 and len(fig.axes[1].lines) == len(plain.axes[1].lines)
    import matplotlib.pyplot as plt

    plt.close("all")
