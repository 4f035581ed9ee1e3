"""The Lab chapter's helpers that need no Spark session: what the stored runs span, the replay of the
sweep's incomplete groups past its cap, and the in-process runs behind the executed exercise solutions."""
from pathlib import Path

import pandas as pd
import pytest

from rebalance.errors import InputError
from rebalance.spark import lab
from rebalance.spark import single_process as local
from rebalance.spark.jobs import coordinator, placement

STORE = Path(__file__).resolve().parents[2] / "chapters" / "13-lab-at-scale.data"


def test_replay_past_the_cap_tells_the_late_settler_from_the_loop():
    # tests/spark/test_sweep_cooperative_cycle.py: Kafka's classes settle 5453 in its 6th rebalance and
    # loop forever on 9303, alternating between two assignments
    incomplete = pd.DataFrame({"scenario": [5453, 9303], "assignor": ["cooperative-sticky"] * 2})
    table = lab.replay_incomplete(2026, incomplete, max_rounds=8)
    assert table.loc[5453, "settles in rebalance"] == 6 and pd.isna(table.loc[5453, "repeats every"])
    assert pd.isna(table.loc[9303, "settles in rebalance"]) and table.loc[9303, "repeats every"] == 2
    assert table.loc[9303, "rebalances replayed"] == 8
    assert list(table["most partitions assigned"]) == ["61/61", "48/49"]


def test_scenario_ranges_read_the_stored_runs():
    if not (STORE / "placement" / "rows").is_dir():
        pytest.skip("the chapter's stored runs are not here")
    runs = {job: lab.stored(str(STORE), job) for job in ("montecarlo", "placement")}
    text = lab.scenario_ranges(runs)["scenarios"]
    rows = runs["placement"]["rows"].drop_duplicates("cluster")
    racked = rows[rows.racks > 0]
    # clusters with racks come out uneven more often than p_uneven alone: round-robin racks are uneven
    # whenever the rack count does not divide the broker count, and an extra broker makes 13
    assert racked.uneven.mean() > runs["placement"].params["p_uneven"]
    assert rows.brokers.max() == max(runs["placement"].params["broker_choices"]) + 1
    assert f"{racked.uneven.mean():.0%} of the {len(racked):,} clusters" in text["placement"]
    assert "session.timeout.ms 45 s" in text["montecarlo"]


def test_run_local_matches_the_jobs_per_scenario_functions():
    summary = local.run("placement", 100, seed=1, topics_per_cluster=50)["summary"]
    params = placement.PlacementAuditParams(topics_per_cluster=50)
    rows = placement.audit_range(1, 100, [0, 1], params)
    pd.testing.assert_frame_equal(summary, placement.summarize(rows))
    co = local.run("coordinator", 20_000, seed=3, partition_counts=(50,), broker_counts=(6,))
    assert co["summary"].loc[0, "groups"] == 20_000
    assert list(co["broker_load"]["offsets_partitions"]) == [9, 9, 8, 8, 8, 8]
    mc = local.run("montecarlo", 4, seed=0, events=("crash",))
    assert set(mc["summary"]["mode"]) == {"eager", "cooperative", "static"}
    assert local.run("sweep", 5, seed=0)["by_assignor"]["scenarios"].tolist() == [5] * 4


def test_run_local_names_bad_input():
    with pytest.raises(InputError) as err:
        local.run("nope", 5)
    assert err.value.field == "job"
    with pytest.raises(InputError) as err:
        local.run("placement", 5, topics_per_clustr=5)
    assert err.value.field == "params.topics_per_clustr"


def test_stored_runs_predating_a_parameter_are_reused_but_not_under_other_simulator_defaults(tmp_path):
    from rebalance.spark.jobs.common import JobResult, write_outputs

    class NoSpark:  # load_or_run must not compute when the stored run is still valid
        def __getattr__(self, name):
            raise AssertionError("recomputed")

    tables = local.run("montecarlo", 2, seed=0)
    current = lab._normalised_params("montecarlo", None, {})
    # a run stored before `config` and `max_topics` existed, under the current simulator defaults
    old = {k: v for k, v in current.items() if k not in ("config", "max_topics")}
    write_outputs(None, JobResult("montecarlo", 2, 0, old, tables), str(tmp_path))
    assert lab.load_or_run("montecarlo", 2, seed=0, store=str(tmp_path), spark=NoSpark()).scale == 2
    # the same run stored under other simulator defaults is stale
    other = {**old, lab.SIMULATORS_KEY: {**current[lab.SIMULATORS_KEY],
                                         "classic": {**current[lab.SIMULATORS_KEY]["classic"], "revoke_ms": 7}}}
    write_outputs(None, JobResult("montecarlo", 2, 0, other, tables), str(tmp_path))
    with pytest.raises(AssertionError, match="recomputed"):
        lab.load_or_run("montecarlo", 2, seed=0, store=str(tmp_path), spark=NoSpark())
