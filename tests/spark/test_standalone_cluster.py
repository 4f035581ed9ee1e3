"""A job on a real Spark cluster: a standalone master and one worker started from pyspark's own
distribution (``bin/spark-class``), both on 127.0.0.1 with free ports, run ``python -m rebalance.spark``
with ``--master spark://127.0.0.1:PORT`` in a separate driver process, and its tables must equal the plain
local implementation's.  Everything started here is stopped (process groups killed) even when the test
fails."""
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

from rebalance.spark import single_process as local
from rebalance.spark.session import find_java

pytestmark = pytest.mark.spark

SRC = Path(__file__).resolve().parents[2] / "src"
START_TIMEOUT_S = 90


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def _stop(proc: subprocess.Popen) -> None:
    """Stop a process started in its own session, with everything it started (the JVM under spark-class)."""
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _alive_workers(webui_port: int) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{webui_port}/json", timeout=2) as response:
            return int(json.load(response).get("aliveworkers", 0))
    except (OSError, ValueError):
        return 0


@pytest.fixture
def standalone_cluster(tmp_path):
    if find_java() is None:
        pytest.skip("no Java")
    home = _spark_home()
    env = {**os.environ, "SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1", "SPARK_NO_DAEMONIZE": "1",
           "SPARK_LOG_DIR": str(tmp_path / "logs"), "SPARK_WORKER_DIR": str(tmp_path / "work"),
           "PYSPARK_PYTHON": sys.executable}
    ports = {name: _free_port() for name in ("master", "master_ui", "worker", "worker_ui")}
    url = f"spark://127.0.0.1:{ports['master']}"
    started = []
    try:
        for name, args in (
            ("master", ["org.apache.spark.deploy.master.Master", "--host", "127.0.0.1",
                        "--port", str(ports["master"]), "--webui-port", str(ports["master_ui"])]),
            ("worker", ["org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1", "--port", str(ports["worker"]),
                        "--webui-port", str(ports["worker_ui"]), "--cores", "2", "--memory", "2g", url]),
        ):
            log = open(tmp_path / f"{name}.log", "wb")
            started.append(subprocess.Popen([str(home / "bin" / "spark-class"), *args], env=env, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True))
        deadline = time.monotonic() + START_TIMEOUT_S
        while _alive_workers(ports["master_ui"]) < 1:
            if time.monotonic() > deadline or any(p.poll() is not None for p in started):
                logs = "\n".join((tmp_path / f"{n}.log").read_text(errors="replace")[-2000:] for n in ("master", "worker"))
                pytest.fail(f"the standalone cluster did not come up:\n{logs}")
            time.sleep(0.5)
        yield url, env
    finally:
        for proc in reversed(started):
            _stop(proc)


def test_a_job_on_a_standalone_cluster_equals_local_mode(standalone_cluster, tmp_path):
    url, env = standalone_cluster
    out = tmp_path / "results"
    driver_env = {**env, "PYTHONPATH": str(SRC), "PYTHONHASHSEED": "0"}
    driver = subprocess.Popen(
        [sys.executable, "-m", "rebalance.spark", "connect", "--scale", "12", "--seed", "4", "--master", url,
         "--out", str(out), "--no-progress", "--config", '{"max_delay_ms": 60000}'],
        env=driver_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        output, _ = driver.communicate(timeout=240)
    finally:
        _stop(driver)
    text = output.decode(errors="replace")
    assert driver.returncode == 0, text[-3000:]
    assert f"on {url}" in text  # the job ran on the cluster, not in local mode
    expected = local.run("connect", 12, 4, config={"max_delay_ms": 60_000})
    for name in ("summary", "bounces", "rows"):
        got = pd.read_parquet(out / "connect" / name)
        if name == "rows":
            got = got.sort_values(["scenario", "assignor"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(got, expected[name], check_dtype=False, obj=name)
