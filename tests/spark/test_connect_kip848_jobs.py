"""The Connect job and the Monte Carlo's KIP-848 set-up, checked against direct calls of the connect and
kip848 areas (plain local implementation; Spark's equality with it is in test_spark_equals_local.py)."""
import pytest

from rebalance.connect.experiment import bounce_rounds, steady_cluster
from rebalance.errors import InputError
from rebalance.kip848.config import KIP848Config
from rebalance.spark import single_process as local
from rebalance.spark.generators import ConnectParams, connect_scenario, restart_scenario
from rebalance.spark.jobs import connect, montecarlo


def _scenario(event, within):
    """The first generated cluster with ``event`` whose away time is (not) within the default delay."""
    for index in range(200):
        sc = connect_scenario(0, index)
        if sc.event == event and (event != "worker-bounce" or (sc.away_ms <= 300_000) == within):
            return sc
    raise AssertionError("no such scenario in the first 200")


@pytest.mark.parametrize("within", [True, False])
def test_a_worker_bounce_matches_the_connect_experiment(within):
    sc = _scenario("worker-bounce", within)
    per_connector = next(iter(sc.connectors.values()))
    incremental = connect.evaluate(sc, "incremental")
    eager = connect.evaluate(sc, "eager")
    rounds, cluster = bounce_rounds("incremental", sc.away_ms, n_workers=len(sc.workers),
                                    n_connectors=len(sc.connectors), tasks_per_connector=per_connector)
    assert incremental["rebalances"] == len(rounds) and incremental["complete"] and eager["complete"]
    def worker_01_tasks(assignor):
        return len(steady_cluster(assignor, n_workers=len(sc.workers), n_connectors=len(sc.connectors),
                                  tasks_per_connector=per_connector).running["worker-01"][1])

    lost = worker_01_tasks("incremental")
    if within:
        # back in time: the lost tasks wait the whole delay and go back to worker-01; nothing else stops
        assert incremental["task_stops"] == 0
        assert incremental["unassigned_task_seconds"] == lost * 300
        assert incremental["time_to_settle_ms"] == 300_000
    else:
        # away longer: the lost tasks wait for the delay, then run elsewhere; worker-01's return takes
        # some tasks back by revocation
        assert incremental["unassigned_task_seconds"] == lost * 300
        assert incremental["task_stops"] > 0
    # eager: every survivor stops everything when worker-01 leaves, and everyone again when it returns
    assert eager["rebalances"] == 2 and eager["unassigned_task_seconds"] == 0
    assert eager["task_stops"] == (sc.tasks - worker_01_tasks("eager")) + sc.tasks


def test_a_new_connector_stops_everything_under_eager_and_nothing_under_incremental():
    sc = _scenario("connector-added", None)
    eager, incremental = (connect.evaluate(sc, a) for a in ("eager", "incremental"))
    # two rebalances (the connector's config, then its task configs); eager stops all running tasks twice
    assert eager["rebalances"] == 2 and eager["task_stops"] == 2 * sc.tasks
    assert incremental["task_stops"] == 0 and incremental["task_starts"] == sc.new_tasks
    assert eager["complete"] and incremental["complete"]


def test_the_scheduled_delay_is_a_setting():
    tables = local.run("connect", 20, 1, events=("worker-bounce",), config={"max_delay_ms": 10_000})
    rows = tables["rows"]
    inc = rows[rows.assignor == "incremental"]
    assert (inc["max_delay_ms"] == 10_000).all() and (inc["back_within_delay"] == (inc["away_ms"] <= 10_000)).all()
    assert set(tables["bounces"]["assignor"]) == {"eager", "incremental"}
    with pytest.raises(InputError) as err:
        ConnectParams(min_workers=1).check()
    assert err.value.field == "params.min_workers"


def _first(event):
    return next(restart_scenario(0, i) for i in range(100) if restart_scenario(0, i).event == event)


def test_kip848_crash_waits_for_the_session_timeout():
    sc = _first("crash")
    for session in (45_000, 30_000):
        m = montecarlo.run_kip848(sc, {"session_timeout_ms": session})
        assert m.settled and m.double_ownership == 0
        # fenced one session timeout after its last heartbeat, then the others reconcile
        assert session - KIP848Config().heartbeat_interval_ms <= m.time_to_stable_ms <= session + 5_000
        assert m.partitions_moved > 0


def test_kip848_rolling_restart_settles_without_double_ownership():
    sc = _first("rolling-restart")
    row = montecarlo.simulate(sc, "kip848")
    assert row["settled"] and row["double_ownership"] == 0 and row["mode"] == "kip848"
    assert row["time_to_stable_ms"] >= montecarlo.last_fault_ms(sc) - montecarlo.START_MS
    classic = montecarlo.simulate(sc, "cooperative")
    # the same partitions, the same members: both protocols end up moving partitions only when members bounce
    assert row["partitions"] == classic["partitions"] and row["partitions_moved"] > 0
    with pytest.raises(InputError) as err:
        montecarlo.build_simulation(sc, "kip848")
    assert err.value.field == "mode"


def test_cli_config_and_default_scale_are_checked_before_spark_starts(capsys):
    from rebalance.spark.__main__ import _parser, main
    from rebalance.spark.jobs import DEFAULT_SCALE, JOBS

    assert _parser().parse_args(["connect"]).scale is None and set(DEFAULT_SCALE) == set(JOBS)
    assert main(["connect", "--config", "{not json", "--no-progress"]) == 2
    assert "--config" in capsys.readouterr().err
    assert main(["sweep", "--config", '{"max_delay_ms": 1}', "--no-progress"]) == 2
    assert "--config" in capsys.readouterr().err
