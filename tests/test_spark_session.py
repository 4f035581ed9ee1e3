"""The Spark session helper: local by default, a cluster URL from the environment, quiet start-up."""
import os
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


@pytest.mark.spark
def test_a_local_session_maps_pysparks_classes_from_its_class_data_archive(tmp_path):
    """A local session's driver JVM loads Spark's classes from the class-data archive of PySpark's jars (trained
    on first use), and from the jars when the archive is turned off: the JVM's class-loading log says where
    ``SparkContext`` came from."""
    code = textwrap.dedent("""
        import sys
        from rebalance.spark import get_spark
        spark = get_spark(cores=1, jvm_options="-Xlog:class+load=info:file=" + sys.argv[1])
        print("RESULT", spark.range(10).count())
    """)
    sources = {}
    for on in ("1", "0"):
        log = tmp_path / f"classes-{on}.log"
        env = dict(os.environ, REBALANCE_CLASS_DATA=on)
        res = subprocess.run([sys.executable, "-c", code, str(log)], capture_output=True, text=True, timeout=300,
                             env=env)
        assert res.returncode == 0 and "RESULT 10" in res.stdout, res.stderr
        line = next(l for l in log.read_text().splitlines() if "org.apache.spark.SparkContext " in l)
        sources[on] = line.split("source:", 1)[1].strip()
    assert sources["1"].startswith("shared objects file"), sources
    assert sources["0"].endswith(".jar") and "spark-core" in sources["0"], sources
