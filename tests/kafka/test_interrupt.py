"""Ctrl-C during ``python -m rebalance simulate FILE --on kafka``: one line on stderr saying what was stopped (no
traceback), the lines already written kept, exit code 130, and nothing left behind: every JVM it started (the
broker, the member JVMs) gone and their folders removed, which only the run's own clean-up does (a JVM would also
die with its parent through the parent-death signal, but nothing else removes a folder).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import List

import pytest

from .built import needs_class
from .processes import alive, clean_up_child, descends_from_us, processes_mentioning

REPO = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.kafka, needs_class("consumers/ScenarioMembers")]

BAD = {"id": "bad", "protocol": "eager", "topics": {"t": 2}, "members": [{"id": "c1"}], "config": {"network_ms": 5},
       "until_ms": 1000}
LONG = {"id": "long", "protocol": "eager", "assignor": "range", "topics": {"t": 2},
        "members": [{"id": "c1"}, {"id": "c2"}],
        "config": {"initial_rebalance_delay_ms": 0, "session_timeout_ms": 10000, "heartbeat_interval_ms": 1000},
        "events": [{"at_ms": 110000, "op": "crash", "member": "c2"}],   # c2 in a JVM of its own, c1 with the admin
        "until_ms": 120000}


def _ours(text: str) -> List[int]:
    return [p for p in processes_mentioning(text) if descends_from_us(p)]


def _terminal_sigint() -> None:
    """In the child before it runs Python: SIGINT at its default, as a terminal's Ctrl-C finds it.  A test run as a
    background job (``make test &``, ``nohup``) was started by its shell with SIGINT ignored, a disposition every
    child inherits; Python then installs no handler and the child would rightly ignore the signal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _where(pid: int) -> Path:
    """A path inside the folder of a JVM: its working directory."""
    return Path(os.readlink(f"/proc/{pid}/cwd"))


def test_ctrl_c_stops_the_run_in_one_line_and_leaves_nothing(tmp_path):
    path = tmp_path / "scenarios.jsonl"
    path.write_text(json.dumps(BAD) + "\n" + json.dumps(LONG) + "\n")
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    proc = subprocess.Popen([sys.executable, "-m", "rebalance", "simulate", str(path), "--on", "kafka"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=_terminal_sigint)
    pids: List[int] = []
    try:
        deadline = time.monotonic() + 120
        while len(_ours("org.rebalance.consumers.ScenarioMembers")) < 2:  # c2's JVM and c1's with the admin
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.2)
        time.sleep(3.0)  # well into the scenario
        pids = _ours("org.rebalance.consumers.ScenarioMembers") + _ours("kafka.Kafka")
        folders = {_where(p) for p in pids}
        assert len(pids) >= 3 and len(folders) >= 2  # the members' folder and the broker's
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            clean_up_child(proc, pids, None)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith("interrupted (Ctrl-C): scenario 'long' stopped"), err
    assert "2 member JVM(s) killed and its one-broker Kafka cluster stopped" in err, err
    assert "the 1 line(s) written before are kept" in err, err
    assert [json.loads(line)["id"] for line in out.splitlines()] == ["bad"]  # the line written before is kept
    assert [p for p in pids if alive(p)] == []
    assert [f for f in folders if f.exists()] == []
