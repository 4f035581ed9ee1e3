"""``diagnose`` on real consumers' own logs beside the broker's: the client patterns read what kafka-clients 4.3.1
writes, the clients name the consumer protocol's member ids, confirm a poll timeout, and measure how long partitions
stood unowned.

Two groups on one broker, each of two real ``KafkaConsumer``s (``java/LoggingConsumer.java``, run from source on the
broker's classpath, whose log4j2 writes each consumer's log in Kafka's layout): ``c1`` polls, ``c2`` sleeps 3.5 s
after each poll while it owns partitions, with ``max.poll.interval.ms`` 2 s, so it leaves the group again and again; once with
``group.protocol=classic``, once with ``consumer``.
"""
from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from rebalance import KAFKA_VERSION
from rebalance.diagnose import diagnose
from rebalance.diagnose.injected import BROKER

from . import real_logs

ROOT = Path(__file__).resolve().parents[2]
LIB = ROOT / "java" / "target" / f"broker-{KAFKA_VERSION}"
SOURCE = Path(__file__).parent / "java" / "LoggingConsumer.java"
RUN_MS = 14000
LOG4J2 = """status = error
appender.file.type = File
appender.file.name = file
appender.file.fileName = {path}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = info
rootLogger.appenderRef.file.ref = file
"""

needs_broker = pytest.mark.skipif(not any(LIB.glob("kafka_2.13-*.jar")), reason="the broker jars are not resolved: make java")


def _consumer(folder: Path, bootstrap: str, group: str, topic: str, client: str, protocol: str, sleep_ms: int):
    from rebalance.kafka.jvm import find_java

    config = folder / f"{client}.log4j2.properties"
    config.write_text(LOG4J2.format(path=folder / f"{client}.log"), encoding="utf-8")
    cmd = [find_java(), "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", f"{LIB}/*",
           f"-Dlog4j2.configurationFile={config}", str(SOURCE), bootstrap, group, topic, "4", client, protocol, "2000",
           str(sleep_ms), str(RUN_MS)]
    err = open(folder / f"{client}.err", "wb")
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    from rebalance.kafka import KafkaCluster

    folder = tmp_path_factory.mktemp("client-logs")
    procs = []
    try:
        with KafkaCluster(brokers=1, broker_config=BROKER) as cluster:
            for protocol, prefix in (("classic", "c"), ("consumer", "k")):
                for n, sleep_ms in ((1, 0), (2, 3500)):
                    procs.append(_consumer(folder, cluster.bootstrap_servers, f"g-{protocol}", f"t-{protocol}",
                                           f"{prefix}{n}", protocol, sleep_ms))
            deadline = time.monotonic() + RUN_MS / 1000 + 60
            for p in procs:
                p.wait(timeout=max(1.0, deadline - time.monotonic()))
            log = folder / "server.log"
            log.write_bytes((cluster.node(1).dir / "server.log").read_bytes())
    finally:
        for p in procs:   # only the JVMs this test started, by their process groups
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    clients = sorted(folder.glob("[ck][12].log"))
    assert [c.name for c in clients] == ["c1.log", "c2.log", "k1.log", "k2.log"], \
        [(e.name, e.read_text()[-2000:]) for e in folder.glob("*.err")]
    return diagnose([str(log), *map(str, clients)])


def _group(d, group):
    return [r for r in d.rebalances if r["group"] == group]


@pytest.mark.kafka
@needs_broker
def test_the_clients_logs_are_read(logs):
    by_file = {Path(log["file"]).name: log for log in logs.logs}
    for name in ("c1.log", "c2.log", "k1.log", "k2.log"):
        assert by_file[name]["client"] > 0 and by_file[name]["not_recognised"] == 0, by_file[name]
    assert by_file["server.log"]["not_recognised"] == 0


@pytest.mark.kafka
@needs_broker
def test_classic_poll_timeouts_are_named_with_the_clients_reason(logs):
    rebalances = _group(logs, "g-classic")
    timeouts = [r for r in rebalances if r["trigger"]["kind"] == "poll timeout"]
    assert timeouts, [(r["trigger"]["kind"], r["trigger"]["name"]) for r in rebalances]
    assert {r["trigger"]["name"] for r in timeouts} == {"c2"}
    assert all(r["trigger"]["client_reason"] == "consumer poll timeout has expired." for r in timeouts)
    assert all(r["trigger"]["name"] in ("c1", "c2") for r in rebalances)
    assert any(r["unowned_partitions"] for r in rebalances)   # the clients' revocations and assignments


@pytest.mark.kafka
@needs_broker
def test_consumer_protocol_members_are_named_by_their_clients_and_the_poll_timeout_confirmed(logs):
    rebalances = _group(logs, "g-consumer")
    assert all(r["trigger"]["name"] in ("k1", "k2") for r in rebalances), \
        [(r["trigger"]["kind"], r["trigger"]["member"], r["trigger"]["name"]) for r in rebalances]
    timeouts = [r for r in rebalances if r["trigger"]["kind"] == "poll timeout"]
    assert timeouts and {r["trigger"]["name"] for r in timeouts} == {"k2"}
    assert any(r["trigger"]["note"] == "the client's log says its poll timeout expired" for r in timeouts)
    summary = next(s for s in logs.summaries if s["group"] == "g-consumer")
    assert summary["likely_cause"]["kind"] == "repeated poll timeouts" and summary["likely_cause"]["members"] == ["k2"]
