"""Issue 25, item 3: a real distributed Kafka Connect cluster (``ConnectDistributed`` 4.3.1, three workers as
processes) against one broker, its rounds read from the workers' logs and set next to the book's model
(:mod:`rebalance.kafka.connect`).

One broker for the module; one incremental (``connect.protocol=sessioned``) Connect cluster plays the three
scenarios (two connectors of three tasks added, a worker bounced for less and for more than
``scheduled.rebalance.max.delay.ms``), then one eager cluster the same ones.  Every round of every scenario must
be the model's: connectors and tasks per worker, revocations per worker, whether a delay was sent.  Nothing may
outlive the module: no worker JVM, no REST port, no folder.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import List

import pytest

from rebalance.errors import InputError, JavaUnavailableError
from rebalance.kafka.connect import workers as connect_module
from rebalance.kafka.cluster import KafkaCluster
from rebalance.kafka.connect import (CONNECT_BROKER_CONFIG, ConnectDistributedCluster, ConnectStartError, compare_rounds,
                                     connectors_added, parse_rounds, worker_bounced)
from rebalance.kafka.connect.logs import assignment_lines
from .built import needs_class
from .processes import alive, clean_up_child, port_open, processes_mentioning, wait_gone

REPO = Path(__file__).resolve().parents[2]
kafka = pytest.mark.kafka
needs_java = needs_class("connect/IdleSourceConnector")

DELAY_MS = 8_000  # scheduled.rebalance.max.delay.ms: a worker usually restarts within it; each bounce waits it out
CONNECTORS = {"c1": 3, "c2": 3}


# ---------------------------------------------------------------------------------------------- no Java needed
@pytest.mark.parametrize("kwargs, field", [
    ({"bootstrap_servers": ""}, "bootstrap_servers"),
    ({"bootstrap_servers": "127.0.0.1"}, "bootstrap_servers"),
    ({"workers": 0}, "workers"),
    ({"workers": True}, "workers"),
    ({"connect_protocol": "cooperative"}, "connect_protocol"),
    ({"max_delay_ms": -1}, "max_delay_ms"),
    ({"max_delay_ms": 1.5}, "max_delay_ms"),
    ({"worker_config": [("a", 1)]}, "worker_config"),
    ({"worker_config": {"group.id": "g"}}, "worker_config['group.id']"),
    ({"worker_config": {"connect.protocol": "eager"}}, "worker_config['connect.protocol']"),
    ({"worker_config": {"session.timeout.ms": None}}, "worker_config['session.timeout.ms']"),
    ({"worker_config": {"a b": 1}}, "worker_config['a b']"),
    ({"heap": "big"}, "heap"),
    ({"start_timeout": 0}, "start_timeout"),
    ({"leader_first": 1}, "leader_first"),
])
def test_bad_input_names_the_field(kwargs, field):
    args = {"bootstrap_servers": "127.0.0.1:9092", **kwargs}
    with pytest.raises(InputError) as caught:
        ConnectDistributedCluster(**args)
    assert caught.value.field == field


def test_a_missing_java_says_so_in_one_message(monkeypatch, tmp_path):
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(JavaUnavailableError, match="Java 17|make java"):  # (the latter without the jars)
        ConnectDistributedCluster("127.0.0.1:9092").start()
    assert not connect_module._RUNNING


LOG = """\
[2026-01-01 10:00:00,100] INFO [Worker clientId=connect-127.0.0.1:4001, groupId=g] Successfully joined group with generation Generation{{generationId={gen}, memberId='connect-127.0.0.1:{port}-{uuid}', protocol='sessioned'}} (x)
[2026-01-01 10:00:00,200] INFO [Worker clientId=connect-127.0.0.1:4001, groupId=g] Joined group at generation {gen} with protocol version 2 and got assignment: Assignment{{error=0, leader='connect-127.0.0.1:4001-aaa', leaderUrl='http://127.0.0.1:4001/', offset=3, connectorIds=[{c}], taskIds=[{t}], revokedConnectorIds=[], revokedTaskIds=[{rt}], delay={delay}}} with rebalance delay: {delay} (x)
"""


def test_rounds_are_read_from_the_herders_log_lines():
    w1 = (LOG.format(gen=5, port=4001, uuid="aaa", c="c1", t="c1-1, c1-0", rt="", delay=0)
          + LOG.format(gen=6, port=4001, uuid="aaa", c="c1", t="c1-0", rt="c1-1", delay=0))
    w2 = (LOG.format(gen=5, port=4002, uuid="bbb", c="", t="", rt="", delay=0)
          + LOG.format(gen=6, port=4002, uuid="bbb", c="", t="", rt="", delay=0).splitlines()[0] + "\n")
    rounds = parse_rounds({"w1": w1, "w2": w2}, {"127.0.0.1:4001": "w1", "127.0.0.1:4002": "w2"})
    assert [r.generation for r in rounds] == [5, 6]
    assert rounds[0].leader == "w1" and rounds[0].leader_id == "connect-127.0.0.1:4001-aaa"
    assert rounds[0].workers["w1"].assigned_tasks == ["c1-0", "c1-1"]
    assert rounds[1].workers["w1"].revoked_tasks == ["c1-1"]
    assert rounds[1].missed == ["w2"] and set(rounds[1].joined) == {"w1", "w2"}
    # compared: only the members that got the round's assignment
    rows = compare_rounds(rounds, "sessioned", 10_000)
    assert [r.generation for r in rows] == [5, 6] and set(rows[1].real) == set(rows[1].model) == {"w1"}
    assert rows[1].missed == ["w2"] and rows[1].real["w1"].revoked_tasks == ["c1-1"]


def test_assignment_lines_print_the_same_on_every_run():
    """Chapter 16 prints a bounce's delayed rounds: what varies from run to run (times, ports, member and group
    ids, generations, offsets, the delay's milliseconds) is replaced; the work and whether a delay was sent stay."""
    w2 = (LOG.format(gen=6, port=4002, uuid="bbb", c="", t="", rt="", delay=3986)
          + LOG.format(gen=7, port=4002, uuid="bbb", c="", t="c1-1", rt="", delay=0))
    lines = assignment_lines(w2)
    assert len(lines) == 2
    assert assignment_lines(w2.replace("3986", "11999").replace("4002", "5123")) == lines
    assert assignment_lines(w2, delayed_only=True) == lines[:1]
    assert "delay=D}" in lines[0] and "delay=0}" in lines[1] and "taskIds=[c1-1]" in lines[1]
    assert not any(ch.isdigit() for ch in lines[0].split("generation ")[1].split(" ")[0])
    assert "127.0.0.1" not in "".join(lines) and "bbb" not in "".join(lines)


# ---------------------------------------------------------------------------------------------- the real cluster
@pytest.fixture(scope="module")
def broker():
    with KafkaCluster(broker_config=CONNECT_BROKER_CONFIG, start_timeout=120) as c:
        yield c


def _play(broker: KafkaCluster, protocol: str) -> dict:
    """The scenarios on a new Connect cluster.  Eager has no scheduled delay, so a bounce is the same whatever
    the time away: it plays one bounce only."""
    began = time.monotonic()
    # the eager assignor keeps no state, so any worker may lead: its workers start all at once (faster)
    with ConnectDistributedCluster(broker.bootstrap_servers, 3, protocol, max_delay_ms=DELAY_MS, start_timeout=150,
                        leader_first=protocol != "eager") as c:
        started_in = c.started_in
        added = connectors_added(c, CONNECTORS)
        short = worker_bounced(c, "w3", longer_than_delay=False)
        long = worker_bounced(c, "w3", longer_than_delay=True) if protocol != "eager" else None
        final = c.counts()
        leader = c.rounds()[-1].leader
        pids = [w.process.pid for w in c.workers if w.process]
        ports = [w.port for w in c.workers]
        workdir = str(c.workdir)
    return {"added": added, "short": short, "long": long, "final": final, "leader": leader, "pids": pids,
            "ports": ports, "workdir": workdir, "started_in": started_in, "seconds": time.monotonic() - began}


@pytest.fixture(scope="module")
def sessioned(broker):
    return _play(broker, "sessioned")


@pytest.fixture(scope="module")
def eager(broker):
    return _play(broker, "eager")


def _assert_all_rounds_equal(result):
    bad = [r.row() for r in result.comparisons if not r.equal]
    assert not bad, bad
    assert result.comparisons, "no round was compared"


@kafka
@needs_java
def test_incremental_rounds_are_the_models(sessioned):
    for key in ("added", "short", "long"):
        _assert_all_rounds_equal(sessioned[key])
    added, short, long = sessioned["added"], sessioned["short"], sessioned["long"]
    # two rebalances per connector (its config, then its task configs), no revocation, no delay
    assert len(added.comparisons) >= 4 and not added.summary()["delay scheduled (real)"]
    assert added.summary()["revocations (real)"] == 0
    # the departure schedules a delay; back in time, the returning worker gets its work back with no revocation
    assert short.comparisons[0].real_delay == DELAY_MS and short.comparisons[0].model_delay == DELAY_MS
    if short.back_in_time:
        assert short.summary()["revocations (real)"] == 0
    # away longer: the survivors take the lost work when the delay runs out, and give some back by revocation
    assert not long.back_in_time
    assert long.summary()["revocations (real)"] == long.summary()["revocations (model)"] > 0
    assert sessioned["leader"] == "w1"
    assert sorted(sessioned["final"].values()) == [(0, 2), (1, 2), (1, 2)]


@kafka
@needs_java
def test_eager_rounds_are_the_models(eager):
    assert eager["long"] is None
    for key in ("added", "short"):
        _assert_all_rounds_equal(eager[key])
        s = eager[key].summary()
        assert not s["delay scheduled (real)"] and not s["delay scheduled (model)"]
        assert s["revocations (real)"] == s["revocations (model)"] > 0
    # every eager round stops everything the members ran; the deal goes by member id, w1 first
    assert eager["final"] == {"w1": (1, 2), "w2": (1, 2), "w3": (0, 2)}


@kafka
@needs_java
def test_most_rounds_are_identical_to_the_models(sessioned, eager):
    """Not only the counts: the same connectors and tasks on the same workers (the model got the member ids)."""
    rows = [r for run in (sessioned, eager) for key in ("added", "short", "long") if run[key]
            for r in run[key].comparisons]
    assert all(r.identical for r in rows), [r.row() for r in rows if not r.identical]


@kafka
@needs_java
def test_a_worker_that_fails_to_start_shows_its_log(broker):
    c = ConnectDistributedCluster(broker.bootstrap_servers, 1, worker_config={"session.timeout.ms": "soon"})
    with pytest.raises(ConnectStartError) as caught:
        c.start()
    assert "exited" in str(caught.value) and "session.timeout.ms" in caught.value.log_tail
    assert c.workdir is None and not c.workers and c not in connect_module._RUNNING


@kafka
@needs_java
def test_nothing_outlives_the_connect_clusters(sessioned, eager):
    for run in (sessioned, eager):
        assert not Path(run["workdir"]).exists()
        deadline = time.monotonic() + 10
        while any(alive(p) for p in run["pids"]) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p for p in run["pids"] if alive(p)]
        assert not processes_mentioning(run["workdir"])
        assert not [p for p in run["ports"] if port_open(p)]
    assert not connect_module._RUNNING


@kafka
@needs_java
def test_ctrl_c_during_start_stops_every_worker(broker, monkeypatch):
    c = ConnectDistributedCluster(broker.bootstrap_servers, 2, leader_first=False)
    calls = []

    def interrupted(w, deadline):  # Ctrl-C while waiting for the first worker's REST
        calls.append((w.name, [x.process.pid for x in c.workers], str(c.workdir)))
        raise KeyboardInterrupt

    monkeypatch.setattr(c, "_wait_serving", interrupted)
    with pytest.raises(KeyboardInterrupt):
        c.start()
    (name, pids, workdir), = calls
    assert name == "w1" and len(pids) == 2 and not c.workers and c.workdir is None
    assert not [p for p in pids if alive(p)] and not Path(workdir).exists()
    assert not connect_module._RUNNING


@kafka
@needs_java
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_workers_die_with_a_python_process_killed_outright(broker):
    """A Python process killed with SIGKILL runs no atexit and no finally: only the workers' parent-death
    signal is left to stop them."""
    code = textwrap.dedent(f"""
        import sys, time
        from rebalance.kafka.connect import ConnectDistributedCluster
        c = ConnectDistributedCluster({broker.bootstrap_servers!r}, 1, start_timeout=150).start()
        print(c.workdir, *[w.process.pid for w in c.workers], flush=True)
        time.sleep(600)
    """)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    pids: List[int] = []
    workdir = None
    try:
        first = proc.stdout.readline().split()
        assert first, proc.stderr.read()
        workdir, pids = Path(first[0]), [int(p) for p in first[1:]]
        assert pids and all(alive(p) for p in pids)
        proc.kill()
        proc.wait()
        assert not wait_gone(pids, 10)
    finally:
        clean_up_child(proc, pids, workdir)
