"""The Spark session helper: local by default, a cluster URL from the environment, quiet start-up."""
import subprocess
import sys
import textwrap

import pytest

from rebalance.spark.session import find_java, spark_master


def test_master_defaults_to_local(monkeypatch):
    monkeypatch.delenv("SPARK_MASTER", raising=False)
    assert spark_master() == "local[*]"


def test_master_from_environment_and_argument(monkeypatch):
    monkeypatch.setenv("SPARK_MASTER", "spark://cluster:7077")
    assert spark_master() == "spark://cluster:7077"
    assert spark_master("local[2]") == "local[2]"


def test_java_is_found():
    assert find_java(), "no Java runtime: PySpark cannot start"


@pytest.mark.spark
def test_session_starts_quietly_and_runs_a_job():
    """Start a fresh interpreter, as a notebook kernel would: nothing may reach stdout/stderr."""
    code = textwrap.dedent("""
        from rebalance.spark import get_spark
        spark = get_spark(cores=1)
        n = spark.range(100).selectExpr("sum(id) as s").collect()[0]["s"]
        print("RESULT", n, spark.sparkContext.master, spark.conf.get("spark.ui.enabled"))
    """)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "RESULT 4950 local[1] false"
    noise = [l for l in res.stderr.splitlines() if l.strip()]
    assert noise == [], f"Spark printed to stderr: {noise[:5]}"
