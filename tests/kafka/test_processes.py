"""The real-cluster tests' process probe finds what this test process started, and only that: the chapters'
kernels, which ``make test`` runs beside the tests, start brokers and clients from the same checkout."""
from __future__ import annotations

import subprocess
import sys
import time

from .processes import descends_from_us, our_processes_mentioning, wait_gone

MARK = "rebalance-probe-marker-7f3a"


def test_a_child_is_ours_and_an_orphaned_grandchild_is_not():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", MARK])
    # a grandchild whose parent has exited is re-parented away from us: the probe does not claim it
    launcher = subprocess.run(
        [sys.executable, "-c", f"import subprocess, sys; p = subprocess.Popen([sys.executable, '-c', "
                               f"'import time; time.sleep(30)', '{MARK}-orphan'], stdout=subprocess.DEVNULL, "
                               f"stderr=subprocess.DEVNULL); "
                               f"print(p.pid)"],
        capture_output=True, text=True, check=True)
    orphan = int(launcher.stdout)
    try:
        deadline = time.monotonic() + 5
        while not our_processes_mentioning(MARK) and time.monotonic() < deadline:
            time.sleep(0.05)
        found = our_processes_mentioning(MARK)
        assert len(found) == 1 and f"{MARK}-orphan" not in found[0]
        assert descends_from_us(child.pid) and not descends_from_us(orphan)
        assert our_processes_mentioning(MARK, "no such main class") == []
    finally:
        child.kill()
        child.wait()
        subprocess.run(["kill", str(orphan)], check=False)
    assert wait_gone([child.pid, orphan], 5) == []
    assert our_processes_mentioning(MARK) == []
