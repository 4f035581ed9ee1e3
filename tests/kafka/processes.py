"""What the real-cluster tests ask of the machine: which processes are still alive and which ports answer, so
that each test can check that everything it started is gone."""
from __future__ import annotations

import os
import socket
import time
from pathlib import Path
from typing import Iterable, List


def alive(pid: int) -> bool:
    """Process ``pid`` exists and is not a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by a parent that is not us) is not running
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return True


def port_open(port: int) -> bool:
    """Something accepts connections on 127.0.0.1:``port``."""
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


def processes_mentioning(text: str) -> List[int]:
    """Pids of the live processes whose command line mentions ``text`` (a cluster's folder)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if text.encode() in (proc / "cmdline").read_bytes() and alive(int(proc.name)):
                    found.append(int(proc.name))
            except OSError:
                pass
    return found


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().split(") ")[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def descends_from_us(pid: int) -> bool:
    """Process ``pid`` was started by this test process (or by one of its children): the chapters' kernels,
    which ``make test`` runs beside the tests, start brokers and clients from the same checkout."""
    me, seen = os.getpid(), set()
    while pid > 1 and pid not in seen:
        seen.add(pid)
        pid = _parent(pid)
        if pid == me:
            return True
    return False


def our_processes_mentioning(*texts: str) -> List[str]:
    """Command lines (first 200 characters) of the live processes this test process started whose command
    line mentions every one of ``texts``'s first item and any of the others (``REPO/java``, then main classes)."""
    first, *any_of = texts
    found = []
    for pid in processes_mentioning(first):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if (not any_of or any(t in cmd for t in any_of)) and descends_from_us(pid):
            found.append(cmd[:200])
    return found


def wait_gone(pids: Iterable[int], seconds: float = 10.0) -> List[int]:
    """The pids still alive after waiting up to ``seconds`` for all of them to end."""
    deadline = time.monotonic() + seconds
    left = list(pids)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = [p for p in left if alive(p)]
    return left


def clean_up_child(proc, pids: Iterable[int], workdir) -> None:
    """After a test that killed its Python child outright: the child reaped and its pipes closed, any of its JVMs
    (``pids``) still alive killed, and its folder (which nothing else could remove: the child died) removed."""
    import shutil
    import signal

    proc.kill()
    proc.wait()
    proc.stdout.close()
    proc.stderr.close()
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    if workdir is not None:
        shutil.rmtree(workdir, ignore_errors=True)
