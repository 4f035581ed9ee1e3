"""``simulate --on kafka``: scenarios played by real KafkaConsumers on a one-broker cluster (rebalance.kafka.consumers).

One ``python -m rebalance simulate --on kafka`` run of five scenarios (one cluster each): an eager Range group
of three where one leaves, a KIP-848 group joined by a fourth member, a classic static member restarted within
its session timeout, a KIP-848 dynamic member restarted with its process down 3 s (a leave, then a join: two
rebalances), and a scenario the cluster cannot run.  The first, third and fourth are held to ``simulate``'s
prediction for the same scenario (the agreement standard of ``benchmarks/bench_kafka_peer.py``).  Real timings vary with the machine's load, so the
assertions are about what happens (which rebalances, which assignments, replayed by the book's assignors), not
when.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

import pytest

from rebalance import KAFKA_VERSION

REPO = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.kafka,
    pytest.mark.skipif(not (REPO / "java" / "target" / "classes" / "org" / "rebalance" / "consumers" /
                            "ScenarioMembers.class").exists()
                       or not any((REPO / "java" / "target" / f"broker-{KAFKA_VERSION}").glob("kafka_2.13-*.jar")),
                       reason="the Java module is not built: make java"),
]

FAST = {"initial_rebalance_delay_ms": 0, "session_timeout_ms": 10000, "heartbeat_interval_ms": 1000}
SCENARIOS = [
    {"id": "eager-leave", "protocol": "eager", "assignor": "range", "topics": {"t": 6},
     "members": [{"id": "c1"}, {"id": "c2"}, {"id": "c3"}], "config": FAST,
     "events": [{"at_ms": 5000, "op": "leave", "member": "c3"}], "until_ms": 9000, "measure_from_ms": 4000},
    {"id": "kip848-join", "protocol": "consumer", "assignor": "uniform", "topics": {"t": 6},
     "members": [{"id": "c1"}, {"id": "c2"}, {"id": "c3"}, {"id": "c4"}],
     "config": {"heartbeat_interval_ms": 500, "session_timeout_ms": 6000},
     "events": [{"at_ms": 5000, "op": "join", "member": "c4"}], "until_ms": 9000},
    {"id": "static-restart", "protocol": "eager", "assignor": "range", "topics": {"t": 4},
     "members": [{"id": "c1", "instance_id": "i1"}, {"id": "c2", "instance_id": "i2"}], "config": FAST,
     "events": [{"at_ms": 5000, "op": "restart", "member": "c2"}], "until_ms": 9000, "measure_from_ms": 4000},
    {"id": "kip848-restart", "protocol": "consumer", "assignor": "range", "topics": {"t": 4},
     "members": [{"id": "c1"}, {"id": "c2"}], "config": {"heartbeat_interval_ms": 500, "session_timeout_ms": 6000},
     "events": [{"at_ms": 5000, "op": "restart", "member": "c1", "down_ms": 3000}], "until_ms": 12000,
     "measure_from_ms": 4000},
    {"id": "bad", "protocol": "eager", "topics": {"t": 2}, "members": [{"id": "c1"}],
     "config": {"network_ms": 5}, "until_ms": 1000},
]


def _ours() -> List[str]:
    """Command lines of the JVMs this checkout starts (members, brokers) still running."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                stat = (proc / "stat").read_text()
            except OSError:
                continue
            if str(REPO / "java") in cmd and ("ScenarioMembers" in cmd or "kafka.Kafka" in cmd) \
                    and stat.split(") ")[1][0] != "Z":
                found.append(cmd[:200])
    return found


@pytest.fixture(scope="module")
def lines(tmp_path_factory) -> Dict[str, List[dict]]:
    path = tmp_path_factory.mktemp("consumers") / "scenarios.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in SCENARIOS))
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    began = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "rebalance", "simulate", str(path), "--on", "kafka"],
                          capture_output=True, text=True, env=env, timeout=300)
    print(f"simulate --on kafka: {time.monotonic() - began:.1f} s")
    by_id: Dict[str, List[dict]] = {}
    for line in proc.stdout.splitlines():
        row = json.loads(line)
        by_id.setdefault(row["id"], []).append(row)
    assert proc.returncode == 1, proc.stderr  # the bad scenario
    return by_id


def _rebalances(rows: List[dict]) -> List[dict]:
    assert "summary" in rows[-1], rows
    assert rows[-1]["summary"]["errors"] == []
    return [r for r in rows if "assignment" in r]


def test_eager_range_leave(lines):
    rebalances = _rebalances(lines["eager-leave"])
    before = [r for r in rebalances if r["at_ms"] < 5000]
    after = [r for r in rebalances if r["at_ms"] >= 5000]
    assert before[-1]["assignment"] == {"c1": ["t-0", "t-1"], "c2": ["t-2", "t-3"], "c3": ["t-4", "t-5"]}
    assert [r["assignment"] for r in after] == [{"c1": ["t-0", "t-1", "t-2"], "c2": ["t-3", "t-4", "t-5"]}]
    assert all(r["replayed"] is True for r in rebalances)
    assert [r["generation"] for r in rebalances] == sorted({r["generation"] for r in rebalances})


def test_kip848_join(lines):
    rebalances = _rebalances(lines["kip848-join"])
    after = [r for r in rebalances if r["at_ms"] >= 5000]
    assert len(after) == 1 and set(after[0]["assignment"]) == {"c1", "c2", "c3", "c4"}
    assert sorted(len(p) for p in after[0]["assignment"].values()) == [1, 1, 2, 2]
    before = [r for r in rebalances if r["at_ms"] < 5000]
    assert before and set(before[-1]["assignment"]) == {"c1", "c2", "c3"}
    assert all(r["replayed"] is True for r in rebalances)


def test_static_member_restart_is_no_rebalance(lines):
    rows = lines["static-restart"]
    rebalances = _rebalances(rows)
    assert rebalances and rebalances[-1]["at_ms"] < 5000, rebalances
    assert rebalances[-1]["assignment"] == {"c1": ["t-0", "t-1"], "c2": ["t-2", "t-3"]}
    assert all(r["replayed"] is True for r in rebalances)


def test_bad_input_names_the_field(lines):
    assert lines["bad"] == [{"id": "bad", "error": {"type": "InputError", "field": "config.network_ms",
                                                    "message": lines["bad"][0]["error"]["message"]}}]
    assert "no Kafka setting" in lines["bad"][0]["error"]["message"]


def test_nothing_left_running(lines):
    deadline = time.monotonic() + 10
    while _ours() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _ours() == []


def _simulated(scenario_id: str) -> dict:
    from rebalance.simulate import simulate_scenario

    out = simulate_scenario(next(s for s in SCENARIOS if s["id"] == scenario_id))
    return {"rebalances": [{"generation": r.generation, "at_ms": r.at_ms, "assignment": r.assignment}
                           for r in out.rebalances], "summary": out.summary()}


@pytest.mark.parametrize("scenario_id", ["eager-leave", "static-restart"])
def test_classic_agrees_with_the_simulator(lines, scenario_id):
    """Classic, events spaced beyond a rebalance: the same assignment per generation after the first event,
    the same rebalances and moved partitions."""
    real, sim = _rebalances(lines[scenario_id]), _simulated(scenario_id)
    since = 5000
    assert [r["assignment"] for r in real if r["at_ms"] >= since] == \
        [r["assignment"] for r in sim["rebalances"] if r["at_ms"] >= since]
    assert real[-1]["assignment"] == sim["rebalances"][-1]["assignment"]
    mine = lines[scenario_id][-1]["summary"]
    for key in ("rebalances", "moved_partitions"):
        assert mine[key] == sim["summary"][key], key


def test_kip848_dynamic_restart_is_a_leave_then_a_join(lines):
    """With the process down past a heartbeat, the broker (and the simulator) count two rebalances: the
    other member takes every partition, then gives half back; the partition counts agree, and every target
    is replayed by the book's assignor."""
    rows = lines["kip848-restart"]
    real, sim = _rebalances(rows), _simulated("kip848-restart")
    after = [r for r in real if r["at_ms"] >= 4000]
    sim_after = [r for r in sim["rebalances"] if r["at_ms"] >= 4000]
    assert rows[-1]["summary"]["rebalances"] == sim["summary"]["rebalances"] == 2
    assert [sorted(map(len, r["assignment"].values())) for r in after] == \
        [sorted(map(len, r["assignment"].values())) for r in sim_after] == [[4], [2, 2]]
    assert all(r["replayed"] is True for r in real)


def test_summary_measures_ownership_from_the_callbacks(lines):
    """unowned_partition_seconds from the listener's callbacks: a leave leaves partitions unowned between
    the revocations and the new assignment (more than nothing, less than the whole window); a static
    restart leaves the restarted member's two partitions unowned while its process is replaced; no
    partition ever has two live owners."""
    leave = lines["eager-leave"][-1]["summary"]
    assert 0 < leave["unowned_partition_seconds"] < 6 * 4.0
    assert leave["ownership_overlaps"] == 0
    static = lines["static-restart"][-1]["summary"]
    assert 0 < static["unowned_partition_seconds"] < 2 * 4.0
    assert static["ownership_overlaps"] == 0
