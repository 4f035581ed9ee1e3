"""A real Kafka cluster on loopback (:mod:`rebalance.kafka.cluster`), from the broker jars of ``make java``.

A cluster is only worth starting in a book if it really is the configured Kafka (settings and racks reach every
broker), a broken start says why, and nothing outlives it: no JVM, no open port, no folder -- also after a
failed start, a Ctrl-C, or a Python process killed outright.  One three-broker cluster serves the tests that
only read from it; the others start their own single broker (about 3 s each here).
"""
from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rebalance import KAFKA_VERSION
from rebalance.errors import IllegalStateError, InputError
from rebalance.kafka import cluster as cluster_module
from rebalance.kafka.broker_requests import metadata_brokers
from rebalance.kafka.cluster import ClusterStartError, KafkaCluster
from rebalance.kafka.jvm import find_java
from rebalance.kafka.settings import config_value, properties_text
from .built import needs_broker
from .processes import alive, clean_up_child, port_open, processes_mentioning, wait_gone

REPO = Path(__file__).resolve().parents[2]
kafka = pytest.mark.kafka
needs_java = needs_broker


# ---------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs, field", [
    ({"brokers": 0}, "brokers"),
    ({"brokers": "3"}, "brokers"),
    ({"brokers": True}, "brokers"),
    ({"brokers": 2, "racks": ["a"]}, "racks"),
    ({"brokers": 2, "racks": "ab"}, "racks"),
    ({"brokers": 2, "racks": ["a", 1]}, "racks[1]"),
    ({"brokers": 2, "racks": ["a", ""]}, "racks[1]"),
    ({"broker_config": [("num.partitions", 3)]}, "broker_config"),
    ({"broker_config": {"num.partitions": [3]}}, "broker_config['num.partitions']"),
    ({"broker_config": {"num.partitions": None}}, "broker_config['num.partitions']"),
    ({"broker_config": {"group.initial.rebalance.delay.ms": "0\nnode.id=7"}},
     "broker_config['group.initial.rebalance.delay.ms']"),
    ({"broker_config": {"node.id": 7}}, "broker_config['node.id']"),
    ({"broker_config": {"broker.rack": "a"}}, "broker_config['broker.rack']"),
    ({"broker_config": {"num partitions": 3}}, "broker_config['num partitions']"),
    ({"broker_config": {3: 3}}, "broker_config[3]"),
    ({"controllers": "two"}, "controllers"),
    ({"start_timeout": 0}, "start_timeout"),
    ({"heap": "lots"}, "heap"),
    ({"jvm_options": "-Xss1m"}, "jvm_options"),
    ({"class_data": "yes"}, "class_data"),
])
def test_bad_input_names_the_field(kwargs, field):
    with pytest.raises(InputError) as caught:
        KafkaCluster(**kwargs)
    assert caught.value.field == field
    assert str(caught.value).startswith(field + ":")


def test_kafka_home_that_is_not_a_distribution(tmp_path):
    with pytest.raises(InputError, match="KAFKA_HOME: .* is not an Apache Kafka distribution"):
        KafkaCluster(kafka_home=str(tmp_path)).start()
    assert not cluster_module._RUNNING


def test_settings_are_written_as_kafka_reads_them():
    assert config_value("x", True) == "true"
    assert config_value("x", 0) == "0"
    assert properties_text({"a.b": "C:\\dir"}) == "a.b=C:\\\\dir\n"
    assert len(cluster_module.random_cluster_id()) == 22


def test_a_cluster_that_never_started_stops_quietly():
    c = KafkaCluster()
    c.stop()
    assert not c.running
    with pytest.raises(RuntimeError, match="not started"):
        c.bootstrap_servers


# ---------------------------------------------------------------------------------------------- one cluster
@pytest.fixture(scope="module")
def three():
    pytest.importorskip("confluent_kafka")
    with KafkaCluster(brokers=3, racks=["r1", "r2", "r1"],
                      broker_config={"group.initial.rebalance.delay.ms": 0, "offsets.topic.num.partitions": 5,
                                     "auto.create.topics.enable": False}) as c:
        yield c


def _admin(c: KafkaCluster):
    from confluent_kafka.admin import AdminClient

    return AdminClient({"bootstrap.servers": c.bootstrap_servers, "log_level": 0})


@kafka
@needs_java
def test_three_brokers_serve_with_their_racks(three):
    assert three.running and three.release == KAFKA_VERSION
    hosts = three.bootstrap_servers.split(",")
    assert len(hosts) == 3 and all(h.startswith("127.0.0.1:") for h in hosts)
    admin = _admin(three)  # held: a client handle dropped before its future resolves cancels the request
    described = admin.describe_cluster(request_timeout=15).result()
    assert {n.id: (n.host, n.port, n.rack) for n in described.nodes} == {
        n.node_id: ("127.0.0.1", n.port, n.rack) for n in three.broker_nodes}
    assert [n.rack for n in sorted(described.nodes, key=lambda n: n.id)] == ["r1", "r2", "r1"]
    assert described.cluster_id == three.cluster_id
    assert three.started_in < 60


@kafka
@needs_java
def test_every_node_starts_with_the_class_data_archive_of_its_classpath(three):
    """Every node's JVM is given the class-data archive trained for the broker's classpath, and a JVM on that
    classpath maps it (``-Xshare:on`` refuses to start when it cannot); a classpath it was not trained for cannot."""
    archives = set()
    for n in three.nodes:
        flag = [a for a in n.process.command() if a.startswith("-XX:SharedArchiveFile=")]
        assert len(flag) == 1
        archives.add(flag[0].split("=", 1)[1])
    (archive,) = archives
    cp, _ = cluster_module.broker_classpath()

    def maps(classpath: str) -> bool:
        return subprocess.run([find_java(), f"-XX:SharedArchiveFile={archive}", "-Xshare:on", "-cp", classpath,
                               "-version"], capture_output=True, timeout=60).returncode == 0

    assert maps(cp)
    assert not maps(str(Path(cp).parent.parent / f"lib-{KAFKA_VERSION}" / "*"))


@kafka
@needs_java
def test_broker_config_reaches_every_broker(three):
    from confluent_kafka.admin import ConfigResource

    admin = _admin(three)
    for n in three.broker_nodes:  # librdkafka asks for one broker's configs a call
        resource = ConfigResource(ConfigResource.Type.BROKER, str(n.node_id))
        configs = admin.describe_configs([resource], request_timeout=15)[resource].result()
        assert configs["group.initial.rebalance.delay.ms"].value == "0"
        assert configs["offsets.topic.num.partitions"].value == "5"
        assert configs["auto.create.topics.enable"].value == "false"
        # sized for the cluster: Kafka's defaults, 3 replicas and 2 in sync, fit three brokers
        assert configs["offsets.topic.replication.factor"].value == "3"
        assert configs["transaction.state.log.min.isr"].value == "2"


@kafka
@needs_java
def test_a_group_gets_its_coordinator_on_the_small_offsets_topic(three):
    """The consumer group's coordinator comes up on __consumer_offsets with the configured 5 partitions."""
    from confluent_kafka import ConsumerGroupState  # noqa: F401  (the admin API of confluent-kafka 2.x)

    admin = _admin(three)
    deadline = time.monotonic() + 30
    while "__consumer_offsets" not in admin.list_topics(timeout=10).topics:
        assert time.monotonic() < deadline, "no __consumer_offsets after 30 s"
        try:  # FindCoordinator for the group: the broker creates __consumer_offsets on the first one
            admin.describe_consumer_groups(["g"], request_timeout=10)["g"].result()
        except Exception:  # COORDINATOR_NOT_AVAILABLE while the topic's partitions come up
            time.sleep(0.2)
    offsets = admin.list_topics("__consumer_offsets", timeout=10).topics["__consumer_offsets"]
    assert len(offsets.partitions) == 5
    assert all(len(p.replicas) == 3 for p in offsets.partitions.values())


# ---------------------------------------------------------------------------------------------- lifecycle
@kafka
@needs_java
def test_start_and_stop_leave_nothing_running():
    with KafkaCluster() as c:
        node = c.nodes[0]
        assert node.roles == "broker,controller" and node.node_id == 1
        pid, ports, workdir = node.process.pid, [node.port, node.controller_port], c.workdir
        assert c.bootstrap_servers == f"127.0.0.1:{node.port}"
        assert alive(pid) and all(port_open(p) for p in ports)
        # the broker serves a moment before it logs its last start-up line (after AppInfoParser's startTimeMs)
        log = workdir / "node-1" / "server.log"
        deadline = time.monotonic() + 15
        while "Kafka Server started" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "Kafka Server started" in log.read_text()
        assert c.started_in < 20, f"one broker took {c.started_in:.1f} s to start"
        began = time.monotonic()
    stopped_in = time.monotonic() - began
    assert not alive(pid)
    assert not any(port_open(p) for p in ports)
    assert not workdir.exists() and not processes_mentioning(str(workdir))
    assert not c.running and c not in cluster_module._RUNNING
    assert stopped_in < 5


@kafka
@needs_java
def test_a_bad_broker_setting_fails_the_start_with_the_log_tail():
    c = KafkaCluster(broker_config={"num.network.threads": "many"})
    with pytest.raises(ClusterStartError) as caught:
        c.start()
    message = str(caught.value)
    assert "Invalid value many for configuration num.network.threads" in message.splitlines()[0]
    assert "last lines of its log" in message and "ConfigException" in caught.value.log_tail
    assert not c.nodes and c.workdir is None and c not in cluster_module._RUNNING


@kafka
@needs_java
def test_a_server_that_dies_while_starting_fails_the_start_and_is_cleaned_up():
    """The storage tool accepts this setting; the server only fails when it loads the class."""
    c = KafkaCluster(broker_config={"authorizer.class.name": "no.such.Authorizer"})
    seen = {}
    original = c._wait_until_serving

    def watch(began):
        seen["pids"] = [n.process.pid for n in c.nodes]
        seen["workdir"] = c.workdir
        return original(began)

    c._wait_until_serving = watch
    with pytest.raises(ClusterStartError, match="exited with code .* while starting: "
                                                "java.lang.ClassNotFoundException: no.such.Authorizer"):
        c.start()
    assert not any(alive(p) for p in seen["pids"]) and not seen["workdir"].exists()


@kafka
@needs_java
def test_a_start_that_times_out_stops_what_it_started(monkeypatch):
    monkeypatch.setattr(cluster_module, "metadata_brokers", lambda port, timeout=2.0: {})  # never all there
    c = KafkaCluster(start_timeout=8)
    with pytest.raises(ClusterStartError, match=r"did not serve all 1 broker\(s\) within start_timeout=8 s") as caught:
        c.start()
    # the log shows how far the broker got (on a loaded machine it may not have finished starting in 8 s)
    assert re.search(r"^\[[0-9-]+ [0-9:,]+\] INFO ", caught.value.log_tail, re.M)
    assert not c.nodes and c.workdir is None


_CHILD = textwrap.dedent("""
    import signal, sys, time
    # a terminal's Ctrl-C: Python's handler even when this test runs as a background job, whose shell started it
    # with SIGINT ignored (a disposition every child inherits)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from rebalance.kafka.cluster import KafkaCluster
    c = KafkaCluster()
    original = c._wait_until_serving
    def report(began):
        print(c.workdir, *[n.process.pid for n in c.nodes], flush=True)
        if sys.argv[1] == "interrupt":
            time.sleep(60)      # Ctrl-C arrives here, while the broker is starting
        return original(began)
    c._wait_until_serving = report
    c.start()
    print("serving", flush=True)
    time.sleep(60)
""")


def _child(mode: str):
    env = dict(os.environ, PYTHONPATH=str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, mode], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    first = proc.stdout.readline().split()
    assert first, proc.stderr.read()
    return proc, Path(first[0]), [int(p) for p in first[1:]]


@kafka
@needs_java
def test_ctrl_c_while_starting_stops_and_removes_everything():
    proc, workdir, pids = _child("interrupt")
    try:
        assert pids and all(alive(p) for p in pids)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
        assert "KeyboardInterrupt" in proc.stderr.read()
        assert not wait_gone(pids, 5) and not workdir.exists()
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()


@kafka
@needs_java
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_jvms_die_with_a_python_process_killed_outright():
    proc, workdir, pids = _child("kill")
    try:
        assert proc.stdout.readline().strip() == "serving"
        proc.kill()  # SIGKILL: no atexit, no finally -- only the parent-death signal is left
        proc.wait()
        assert not wait_gone(pids, 10)
    finally:
        clean_up_child(proc, pids, workdir)


@kafka
@needs_java
def test_a_dedicated_controller_and_brokers():
    with KafkaCluster(brokers=2, controllers="dedicated") as c:
        assert [(n.node_id, n.roles) for n in c.nodes] == [(0, "controller"), (1, "broker"), (2, "broker")]
        assert c.nodes[0].port is None and len(c.bootstrap_servers.split(",")) == 2
        assert sorted(metadata_brokers(c.nodes[1].port)) == [1, 2]
        pids = [n.process.pid for n in c.nodes]
    assert not any(alive(p) for p in pids)


@kafka
@needs_java
def test_kill_node_stops_one_jvm_and_leaves_the_others():
    with KafkaCluster(brokers=2, controllers="dedicated") as c:
        pids = {n.node_id: n.process.pid for n in c.nodes}
        c.kill_node(2)
        assert not alive(pids[2]) and alive(pids[0]) and alive(pids[1])
        assert not c.node(2).running and c.node(1).running and not c.running
        assert sorted(metadata_brokers(c.node(1).port)) in ([1], [1, 2])  # broker 1 serves on (2: until fenced)
        with pytest.raises(IllegalStateError, match="node 2 is not running"):
            c.kill_node(2)
        with pytest.raises(InputError) as caught:
            c.kill_node(7)
        assert caught.value.field == "node_id"
        workdir = c.workdir
    assert not any(alive(p) for p in pids.values()) and not workdir.exists()


@kafka
@needs_java
def test_kafka_home_runs_a_distributions_libs(tmp_path):
    """KAFKA_HOME: a folder with libs/ (here the resolved broker jars, linked in as a distribution lays them)."""
    libs = tmp_path / "libs"
    libs.mkdir()
    for jar in (REPO / "java" / "target" / f"broker-{KAFKA_VERSION}").glob("*.jar"):
        (libs / jar.name).symlink_to(jar)
    with KafkaCluster(kafka_home=str(tmp_path)) as c:
        assert c.release == KAFKA_VERSION
        assert any(str(libs) in arg for arg in c.nodes[0].process.command())
        assert sorted(metadata_brokers(c.nodes[0].port)) == [1]


@kafka
@needs_java
@pytest.mark.slow
def test_a_port_taken_before_kafka_binds_it_gets_one_more_try(monkeypatch):
    """Free ports are chosen by binding port 0 and letting go; another program may take one in between."""
    squatter = socket.socket()
    squatter.bind(("127.0.0.1", 0))
    squatter.listen()
    taken = squatter.getsockname()[1]
    choose = cluster_module.free_ports
    calls = []

    def first_one_taken(count):
        ports = choose(count)
        calls.append(ports)
        return [taken] + ports[1:] if len(calls) == 1 else ports

    monkeypatch.setattr(cluster_module, "free_ports", first_one_taken)
    try:
        with KafkaCluster() as c:
            assert len(calls) == 2 and taken not in (c.nodes[0].port, c.nodes[0].controller_port)
    finally:
        squatter.close()
