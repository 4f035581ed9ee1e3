"""``simulate --on kafka``: scenarios played by real KafkaConsumers on a one-broker cluster (rebalance.kafka.consumers).

Two ``python -m rebalance simulate --on kafka`` runs side by side (one cluster per scenario), seven scenarios:
an eager Range group of three where one leaves, a KIP-848 group joined by a fourth member, a classic static
member restarted within its session timeout, a KIP-848 dynamic member restarted with its process down 3 s (a
leave, then a join: two rebalances), a cooperative-sticky group joined by a third member (two rounds), an eager
RoundRobin member that crashes (found at the session timeout), and a scenario the cluster cannot run.  All but
the last are held to ``simulate``'s prediction for the same scenario (the agreement standard of
``benchmarks/bench_kafka_peer.py``): the same assignments, or where Kafka breaks ties by random member ids, the
same partition counts.
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


from .built import needs_class
from .processes import our_processes_mentioning

REPO = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.kafka,
    needs_class("consumers/ScenarioMembers"),
]

#: when each scenario's event comes: the group's forming, done by about 2.5 s on an idle machine, took more than
#: 4 s in a loaded CI run (its events were at 5 s then)
EVENT_MS = 7000
FAST = {"initial_rebalance_delay_ms": 0, "session_timeout_ms": 10000, "heartbeat_interval_ms": 1000}
SCENARIOS = [
    {"id": "eager-leave", "protocol": "eager", "assignor": "range", "topics": {"t": 6},
     "members": [{"id": "c1"}, {"id": "c2"}, {"id": "c3"}], "config": FAST,
     "events": [{"at_ms": EVENT_MS, "op": "leave", "member": "c3"}], "until_ms": EVENT_MS + 4000,
     "measure_from_ms": EVENT_MS - 1000},
    {"id": "kip848-join", "protocol": "consumer", "assignor": "uniform", "topics": {"t": 6},
     "members": [{"id": "c1"}, {"id": "c2"}, {"id": "c3"}, {"id": "c4"}],
     "config": {"heartbeat_interval_ms": 500, "session_timeout_ms": 6000},
     "events": [{"at_ms": EVENT_MS, "op": "join", "member": "c4"}], "until_ms": EVENT_MS + 4000},
    {"id": "static-restart", "protocol": "eager", "assignor": "range", "topics": {"t": 4},
     "members": [{"id": "c1", "instance_id": "i1"}, {"id": "c2", "instance_id": "i2"}], "config": FAST,
     "events": [{"at_ms": EVENT_MS, "op": "restart", "member": "c2"}], "until_ms": EVENT_MS + 4000,
     "measure_from_ms": EVENT_MS - 1000},
    {"id": "kip848-restart", "protocol": "consumer", "assignor": "range", "topics": {"t": 4},
     "members": [{"id": "c1"}, {"id": "c2"}], "config": {"heartbeat_interval_ms": 500, "session_timeout_ms": 6000},
     "events": [{"at_ms": EVENT_MS, "op": "restart", "member": "c1", "down_ms": 3000}], "until_ms": EVENT_MS + 7000,
     "measure_from_ms": EVENT_MS - 1000},
    {"id": "coop-join", "protocol": "cooperative", "assignor": "cooperative-sticky", "topics": {"t": 6},
     "members": [{"id": "c1"}, {"id": "c2"}, {"id": "c3"}],
     "config": {"initial_rebalance_delay_ms": 1000, "session_timeout_ms": 10000, "heartbeat_interval_ms": 1000},
     "events": [{"at_ms": EVENT_MS, "op": "join", "member": "c3"}], "until_ms": EVENT_MS + 5000,
     "measure_from_ms": EVENT_MS - 1000},
    {"id": "eager-crash", "protocol": "eager", "assignor": "roundrobin", "topics": {"t": 6},
     "members": [{"id": "c1"}, {"id": "c2"}, {"id": "c3"}],
     "config": {"initial_rebalance_delay_ms": 1000, "session_timeout_ms": 6000, "heartbeat_interval_ms": 1000},
     "events": [{"at_ms": EVENT_MS, "op": "crash", "member": "c3"}], "until_ms": EVENT_MS + 9000,
     "measure_from_ms": EVENT_MS - 1000},
    {"id": "bad", "protocol": "eager", "topics": {"t": 2}, "members": [{"id": "c1"}],
     "config": {"network_ms": 5}, "until_ms": 1000},
]


def _ours() -> List[str]:
    """Command lines of the JVMs this test process starts (members, brokers) still running (not those of the
    chapters' kernels, which run beside the tests from the same checkout)."""
    return our_processes_mentioning(str(REPO / "java"), "ScenarioMembers", "kafka.Kafka")


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("consumers")


@pytest.fixture(scope="module")
def lines(folder) -> Dict[str, List[dict]]:
    began = time.monotonic()
    procs = []
    try:
        for k in range(2):  # two runs side by side, the scenarios split between them
            path = folder / f"scenarios{k}.jsonl"
            path.write_text("".join(json.dumps(s) + "\n" for s in SCENARIOS[k::2]))
            env = dict(os.environ, PYTHONPATH=str(REPO / "src"), REBALANCE_KAFKA_RECORDS=str(folder / f"records{k}.jsonl"))
            procs.append(subprocess.Popen([sys.executable, "-m", "rebalance", "simulate", str(path), "--on", "kafka"],
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
        outputs = [p.communicate(timeout=300) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    print(f"simulate --on kafka, two runs side by side: {time.monotonic() - began:.1f} s")
    by_id: Dict[str, List[dict]] = {}
    for out, _ in outputs:
        for line in out.splitlines():
            row = json.loads(line)
            by_id.setdefault(row["id"], []).append(row)
    bad_run = [k for k in range(2) if any(s["id"] == "bad" for s in SCENARIOS[k::2])][0]
    assert [p.returncode for p in procs] == [1 if k == bad_run else 0 for k in range(2)], [e for _, e in outputs]
    # a scenario with a rebalance the book's assignor did not replay, or a KIP-848 one whose rebalance count differs
    # from the simulator's, is played once more, alone: seen in fresh-clone make test runs under load, a KIP-848
    # group's forming epochs came faster than the observer described them (the replay started from an assignment
    # the coordinator never used) or split into one more (members that start together starting together is issue
    # 35's); the first run's rows are kept in the folder
    def differs(s: dict) -> bool:
        rows = by_id[s["id"]]
        if any(r.get("replayed") is False for r in rows):
            return True
        return s["protocol"] == "consumer" and "summary" in rows[-1] and \
            rows[-1]["summary"]["rebalances"] != _simulated(s["id"])["summary"]["rebalances"]

    again = [s for s in SCENARIOS if s["id"] in by_id and s["id"] != "bad" and differs(s)]
    if again:
        path = folder / "again.jsonl"
        path.write_text("".join(json.dumps(s) + "\n" for s in again))
        (folder / "not-replayed.json").write_text(json.dumps({s["id"]: by_id[s["id"]] for s in again}))
        env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
        out = subprocess.run([sys.executable, "-m", "rebalance", "simulate", str(path), "--on", "kafka"],
                             capture_output=True, text=True, env=env, timeout=300)
        assert out.returncode == 0, out.stderr
        for s in again:
            by_id[s["id"]] = []
        for line in out.stdout.splitlines():
            row = json.loads(line)
            by_id[row["id"]].append(row)
    return by_id


@pytest.fixture(scope="module")
def records(lines, folder) -> List[dict]:
    """Every record the runs appended to ``REBALANCE_KAFKA_RECORDS``."""
    return [json.loads(line) for k in range(2) if (folder / f"records{k}.jsonl").exists()
            for line in (folder / f"records{k}.jsonl").read_text().splitlines()]


def _rebalances(rows: List[dict]) -> List[dict]:
    assert "summary" in rows[-1], rows
    assert rows[-1]["summary"]["errors"] == []
    return [r for r in rows if "assignment" in r]


def test_eager_range_leave(lines):
    rebalances = _rebalances(lines["eager-leave"])
    before = [r for r in rebalances if r["at_ms"] < EVENT_MS]
    after = [r for r in rebalances if r["at_ms"] >= EVENT_MS]
    assert before[-1]["assignment"] == {"c1": ["t-0", "t-1"], "c2": ["t-2", "t-3"], "c3": ["t-4", "t-5"]}
    assert [r["assignment"] for r in after] == [{"c1": ["t-0", "t-1", "t-2"], "c2": ["t-3", "t-4", "t-5"]}]
    assert all(r["replayed"] is True for r in rebalances)
    assert [r["generation"] for r in rebalances] == sorted({r["generation"] for r in rebalances})


def test_kip848_join(lines):
    rebalances = _rebalances(lines["kip848-join"])
    after = [r for r in rebalances if r["at_ms"] >= EVENT_MS]
    assert len(after) == 1 and set(after[0]["assignment"]) == {"c1", "c2", "c3", "c4"}
    assert sorted(len(p) for p in after[0]["assignment"].values()) == [1, 1, 2, 2]
    before = [r for r in rebalances if r["at_ms"] < EVENT_MS]
    assert before and set(before[-1]["assignment"]) == {"c1", "c2", "c3"}
    assert all(r["replayed"] is True for r in rebalances)


def test_static_member_restart_is_no_rebalance(lines):
    rows = lines["static-restart"]
    rebalances = _rebalances(rows)
    assert rebalances and rebalances[-1]["at_ms"] < EVENT_MS, rebalances
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


def test_every_member_records_its_member_id(records):
    """Each member process writes a ``member_id`` record once it has a Kafka member id, whatever the protocol:
    every id its callbacks carry is one of them (a classic id begins with the member's client id), each process
    names one member (members that share a JVM are told apart), a member has one process per run of its
    consumer, and each scenario's records begin with its clock."""
    by_process: Dict[tuple, List[dict]] = {}
    for r in records:
        by_process.setdefault((r["scenario"], r.get("process")), []).append(r)
    ran = {s["id"] for s in SCENARIOS if s["id"] != "bad"}
    clocks = {r["scenario"]: r for r in records if r["event"] == "clock"}
    assert set(clocks) == ran and all(c["t0"] > 0 and c["until_ms"] > 0 for c in clocks.values())
    members = 0
    processes: Dict[tuple, int] = {}
    for (scenario, process), recs in sorted(by_process.items(), key=str):
        callbacks = {r["member_id"] for r in recs if r["event"] in ("assigned", "revoked", "lost") and r.get("member_id")}
        if not callbacks:
            continue
        members += 1
        member = next(r["member"] for r in recs if r["event"] == "assigned")
        processes[(scenario, member)] = processes.get((scenario, member), 0) + 1
        named = [r for r in recs if r["event"] == "member_id"]
        assert named and {r["member"] for r in named} == {member}, (scenario, process, recs)
        assert callbacks <= {r["member_id"] for r in named}, (scenario, process, callbacks, named)
        s = next(s for s in SCENARIOS if s["id"] == scenario)
        prefix = next(m.get("instance_id", m["id"]) for m in s["members"] if m["id"] == member)  # client.id = member
        for r in named:
            assert r["member_id"].startswith(prefix + "-") == (s["protocol"] != "consumer"), r
    assert members >= 15
    # a member's consumers are one process each: its first and one per restart, whichever JVM they ran in
    for (scenario, member), n in processes.items():
        s = next(s for s in SCENARIOS if s["id"] == scenario)
        restarts = sum(1 for e in s.get("events", []) if e["op"] == "restart" and e["member"] == member)
        assert n <= 1 + restarts, (scenario, member, n)
    assert [processes.get(("eager-leave", m)) for m in ("c1", "c2", "c3")] == [1, 1, 1]


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
    since = EVENT_MS
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
    after = [r for r in real if r["at_ms"] >= EVENT_MS - 1000]
    sim_after = [r for r in sim["rebalances"] if r["at_ms"] >= EVENT_MS - 1000]
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


def test_cooperative_join_takes_two_rounds(lines):
    """Cooperative-sticky: the joiner gets nothing in the first round (the others only revoke what it will
    get) and its partitions in the second; as many rebalances and moved partitions as the simulator, the
    same partition counts (which of c1 and c2 gives up which partition follows the random member ids'
    HashMap order on the broker), every round replayed by the book's assignor.

    On a loaded machine the broker once took one round more (make test with the chapters' clusters beside it):
    the two owners' revocations landed in different generations, so the second round handed ``c3`` one
    partition and a third round the other.  A follower whose first-round SyncGroup arrives after another member
    has already rejoined gets REBALANCE_IN_PROGRESS and does not revoke in that round
    (``ConsumerCoordinator.onJoinComplete`` runs only on a completed sync, Kafka 4.3.1), which would do it; the
    run's log was not kept.  Then the rounds are checked for that shape instead of against the simulator, which
    has no such load."""
    rows = lines["coop-join"]
    real, sim = _rebalances(rows), _simulated("coop-join")
    # the rounds of c3's join (the group's forming, c1 and c2 alone, may end late on a loaded machine)
    after = [r for r in real if "c3" in r["assignment"]]
    sim_after = [r for r in sim["rebalances"] if "c3" in r["assignment"]]
    counts = [{m: len(p) for m, p in r["assignment"].items()} for r in after]
    assert [{m: len(p) for m, p in r["assignment"].items()} for r in sim_after] == \
        [{"c1": 2, "c2": 2, "c3": 0}, {"c1": 2, "c2": 2, "c3": 2}]
    assert all(r["replayed"] is True for r in real)
    assert counts[0] == {"c1": 2, "c2": 2, "c3": 0} and counts[-1] == {"c1": 2, "c2": 2, "c3": 2}
    assert after[0]["assignment"]["c1"] == after[-1]["assignment"]["c1"]  # nothing moves twice
    if len(after) == 2:  # the usual case: exactly the simulator's rounds
        for key in ("rebalances", "moved_partitions", "revocations"):
            assert rows[-1]["summary"][key] == sim["summary"][key], key
    else:  # the late follower's extra round: c3 gets one partition, then the other
        assert counts == [{"c1": 2, "c2": 2, "c3": 0}, {"c1": 2, "c2": 2, "c3": 1}, {"c1": 2, "c2": 2, "c3": 2}]
        assert rows[-1]["summary"]["moved_partitions"] == sim["summary"]["moved_partitions"]


def test_crash_is_found_at_the_session_timeout(lines):
    """A killed member (no LeaveGroup) is removed when its session times out, counted from its last
    heartbeat (at most a heartbeat interval before the crash): one rebalance, the same RoundRobin assignment
    as the simulator's."""
    rows = lines["eager-crash"]
    real, sim = _rebalances(rows), _simulated("eager-crash")
    # the rebalances after the group formed (generation 1 may complete after 4 s on a loaded machine)
    after = [r for r in real if r["generation"] > 1]
    sim_after = [r for r in sim["rebalances"] if r["generation"] > 1]
    assert [r["assignment"] for r in after] == [r["assignment"] for r in sim_after] == \
        [{"c1": ["t-0", "t-2", "t-4"], "c2": ["t-1", "t-3", "t-5"]}]
    found_from = EVENT_MS + 6000 - 1000  # crash + session timeout - heartbeat interval
    assert after[0]["at_ms"] >= found_from and sim_after[0]["at_ms"] >= found_from
    assert rows[-1]["summary"]["moved_partitions"] == sim["summary"]["moved_partitions"]
    assert rows[-1]["summary"]["ownership_overlaps"] == 0
