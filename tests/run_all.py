"""``make test``'s runner: every test and every chapter's re-execution (nbval), side by side on the machine's cores.

The work is a queue of jobs, each its own pytest: the test folders (``tests/kafka``, ``tests/diagnose``, ...; the
files at the top of ``tests/`` together) and each chapter under nbval.  :data:`WORKERS` workers take jobs from it,
longest first (by the last run's times, kept in ``_build/test-logs/job-seconds.json``, over the times of a fresh-clone run
shipped in ``tests/job-seconds.json``, which order a fresh clone's run);
one of them first runs the builds: ``make conform vectors-check pdf site``, then ``tests/book`` and ``tests/site``,
which read what they built.  At most two jobs that play real brokers and clients against a scenario's clock run at
once (their timings suffer on a crowded machine), and the two that play many groups at once (``tests/diagnose``,
chapter 18) run first, one after the other; the other workers take other jobs meanwhile, among them those
whose real clusters follow no clock (``tests/kafka (no clock)``: cluster starts, coordinators, replica placement;
chapters 1, 12 and 13; ``tests/live``, whose librdkafka clients talk to an in-process mock cluster).  Most of the work waits (on JVMs, brokers, Spark, kernels, browsers and scenario
clocks), so three workers keep two cores busy (four loaded them past what the clocked runs bear); every job but
the clocked ones runs at :data:`NICE`, so that the clocked ones get the CPU first when the machine is loaded.
Each job writes its log under ``_build/test-logs/``; when all are done the logs are printed (the tests, the
builds, then each chapter in the book's order) with one line per job and its time, and the exit code is 0 only if
every job passed.  Ctrl-C stops every process it started.

Not a test module (pytest collects ``test_*.py`` only); ``make test`` runs it with the test environment set.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional, Set

REPO = Path(__file__).resolve().parents[1]
LOGS = REPO / "_build" / "test-logs"
TIMES = LOGS / "job-seconds.json"
#: each job's seconds in a fresh-clone run on 2 cores (the order a clone without a run of its own starts from: CI's)
SHIPPED_TIMES = REPO / "tests" / "job-seconds.json"
#: test folders that read the built PDF and site: run by the builds' job, after the builds
AFTER_BUILDS = ("tests/book", "tests/site")
#: test folders that play real brokers and clients against a scenario's clock, whose timings suffer on a crowded
#: machine
REAL_TESTS = ("tests/kafka", "tests/diagnose")
#: the files of a test folder of :data:`REAL_TESTS` whose real brokers and clients follow no clock (a cluster's
#: start and stop, the coordinators' and the replicas' placement, JVM plumbing): a job of their own, ``<folder>
#: (no clock)``, that does not count towards :data:`MAX_REAL`.  A file not named here stays in the clocked job.
CLOCK_FREE = {"tests/kafka": ("test_agreement.py", "test_cluster.py", "test_config_defs.py", "test_config_refusals.py",
                              "test_connect_rest.py", "test_consumer_records.py", "test_group_command.py",
                              "test_interrupt.py", "test_jsonlines.py", "test_jvm.py", "test_oracle.py", "test_processes.py",
                              "test_real_coordinators.py", "test_real_placement.py")}
#: what a chapter calls that plays real brokers and clients against a scenario's clock (a chapter that only starts a
#: cluster and asks it where things are, as chapters 1, 12 and 13 do, follows no clock)
REAL_CHAPTER = re.compile(r"on_kafka=True|run_until_seen|\brun_(?:[a-z]+_)?scenario\(|scale_out_and_in")
#: at most this many jobs with real brokers at a time (the other workers take other jobs meanwhile)
MAX_REAL = 2
#: how many jobs run at once.  Three leave the 2 cores partly idle (a fresh-clone run used 1.4 of them on average,
#: 2,098 CPU-s in 25 min: the clocked jobs wait on their scenarios' clocks); four were tried twice: without
#: :data:`NICE`, three real runs met late group formings and a share run its timeout (runner 22 min 5 s); with it,
#: a load average of 16, two real runs failed and the run took no less (20 min 54 s, 2,060 s of user and system
#: CPU against 1,853 at three): the machine's CPU, not the workers, is what runs out
WORKERS = 3
#: clocked jobs that play many groups at once (``diagnose``'s 34 scenarios five at a time; chapter 18's six groups side
#: by side): never two of them at once (a fresh-clone run that let them overlap each other and chapter 16 reached a
#: load average of 57 on 2 cores, and a Connect worker restarted three times over could not rejoin within its 20 s
#: delay), each beside at most one other clocked job
CROWDED = ("tests/diagnose", "chapters/18-moving-to-kip848.ipynb")
#: the niceness of every job that follows no scenario's clock (the builds, the clock-free tests, the chapters
#: with no real clients): on a busy machine the kernel's scheduler then gives the CPU to the clocked jobs first
#: (nice 10 weighs about a tenth of nice 0), whose members, brokers and workers must keep their heartbeats and
#: timers, while the others, which only wait longer, take what is left
NICE = 10
NBVAL = ["--nbval", "--nbval-sanitize-with", "tests/nbval_sanitize.cfg", "--nbval-current-env"]


def test_jobs(tests: List[str]) -> Dict[str, List[str]]:
    """``tests`` (pytest's arguments) as jobs by name: ``tests`` itself becomes one job per folder of it (but
    :data:`AFTER_BUILDS`; a folder of :data:`CLOCK_FREE` two: its clocked files as ``tests/<folder>``, the others
    as ``tests/<folder> (no clock)``) and one, ``tests``, for the files at its top; anything else is one job named
    by its first argument."""
    if tests != ["tests"]:
        return {tests[0] if len(tests) == 1 else "tests": tests}
    root = REPO / "tests"
    jobs: Dict[str, List[str]] = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and any(p.glob("test_*.py"))
                         and f"tests/{p.name}" not in AFTER_BUILDS):
        name = f"tests/{folder.name}"
        free = CLOCK_FREE.get(name, ())
        if not free:
            jobs[name] = [name]
            continue
        files = sorted(p.name for p in folder.glob("test_*.py"))
        jobs[name] = [f"{name}/{f}" for f in files if f not in free]
        jobs[f"{name} (no clock)"] = [f"{name}/{f}" for f in files if f in free]
    jobs["tests"] = sorted(f"tests/{p.name}" for p in root.glob("test_*.py"))
    return jobs


class Runner:
    def __init__(self, python: str, make: str, chapters: List[str], tests: List[str]) -> None:
        self.python, self.make = python, make
        self.chapters = chapters
        self.tests = test_jobs(tests)
        jobs = {name: [*t, "-p", "no:randomly", "-q"] for name, t in self.tests.items()}
        jobs.update({c: [c, *NBVAL, "-p", "no:randomly", "-q"] for c in chapters})
        self.jobs = jobs
        self.real = {n for n in jobs if n in REAL_TESTS or (n in chapters and REAL_CHAPTER.search(
            (REPO / n).with_suffix(".md").read_text(encoding="utf-8", errors="replace")))}
        self.running_real = 0
        self.running: Set[str] = set()  # the clocked jobs running
        self.queue = self.order(list(jobs))
        self.lock = threading.Lock()
        self.procs: List["subprocess.Popen[bytes]"] = []
        self.stopping = False
        self.began = time.monotonic()
        self.rc: Dict[str, int] = {}
        self.seconds: Dict[str, float] = {}
        self.cpu: Dict[str, float] = {}  # CPU seconds by log name

    @staticmethod
    def order(names: List[str]) -> List[str]:
        """The :data:`CROWDED` jobs first (one at a time, so the second follows the first), then longest first: by the last run's times
        (:data:`TIMES`) over the shipped ones (:data:`SHIPPED_TIMES`); a job known to neither (a new one) goes
        first."""
        known: Dict[str, float] = {}
        for f in (SHIPPED_TIMES, TIMES):
            try:
                known.update({k: float(v) for k, v in json.loads(f.read_text()).items()})
            except (OSError, ValueError, AttributeError):
                pass
        return sorted(names, key=lambda n: (n not in CROWDED, -known.get(n, 1e9)))

    def say(self, text: str) -> None:
        m, s = divmod(int(time.monotonic() - self.began), 60)
        with self.lock:
            print(f"[{m:2d}:{s:02d}] {text}", flush=True)

    @staticmethod
    def log_of(name: str) -> Path:
        return LOGS / (name.replace("/", "-").replace(" (no clock)", "-no-clock").replace(".ipynb", "") + ".log")

    def run(self, args: List[str], log: Path, nice: bool = False) -> int:
        """One command, its output into ``log`` (appended), in its own process group (Ctrl-C stops it whole);
        ``nice``: at :data:`NICE` (``nice`` runs the command in its own process, so its CPU is still counted)."""
        if self.stopping:
            return 130
        if nice:
            args = ["nice", "-n", str(NICE), *args]
        with open(log, "ab") as out:
            p = subprocess.Popen(args, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 start_new_session=True)
            with self.lock:
                self.procs.append(p)
            # wait4, not p.wait(): the CPU time of the job and of every descendant that was waited for (kernels,
            # Chromium, most JVMs), which is what a 2-core machine runs out of.  A lower bound: a process left to
            # exit on its own (PySpark's gateway JVM, ended when its kernel's pipe closes) is not counted.
            _, status, usage = os.wait4(p.pid, 0)
            p.returncode = rc = os.waitstatus_to_exitcode(status)
        with self.lock:
            self.procs.remove(p)
            self.cpu[log.stem] = self.cpu.get(log.stem, 0.0) + usage.ru_utime + usage.ru_stime
        return rc

    def job(self, name: str, args: List[str], what: str) -> None:
        began = time.monotonic()
        rc = self.run(args, self.log_of(name), nice=name not in self.real)
        self.rc[name], self.seconds[name] = rc, time.monotonic() - began
        cpu = self.cpu.get(self.log_of(name).stem, 0.0)
        self.say(f"{name}: {'passed' if rc == 0 else 'FAILED'}{what} ({self.seconds[name]:.0f} s, "
                 f"{cpu:.0f} CPU-s)")

    def worker(self, builds: bool = False) -> None:
        if builds:
            self.job("builds", [self.make, "--no-print-directory", "conform", "vectors-check", "pdf", "site"],
                     " (conform, vectors-check, the PDF and the site)")
            if self.rc["builds"] == 0:
                self.job("tests/book+site", [self.python, "-m", "pytest", *AFTER_BUILDS, "-p", "no:randomly", "-q"],
                         " (the tests of what was built)")
        while True:
            name = self.take()
            if name is None:
                return
            try:
                self.job(name, [self.python, "-m", "pytest", *self.jobs[name]],
                         " under nbval" if name in self.chapters else "")
            finally:
                if name in self.real:
                    with self.lock:
                        self.running_real -= 1
                        self.running.discard(name)

    def take(self) -> Optional[str]:
        """The first job of the queue this worker may run now: a clocked job only while fewer than :data:`MAX_REAL`
        run, and a :data:`CROWDED` one only while no other runs; ``None`` when the queue is empty (a worker that
        may run nothing yet waits)."""
        while True:
            with self.lock:
                if self.stopping or not self.queue:
                    return None
                crowded = any(n in CROWDED for n in self.running)
                for k, name in enumerate(self.queue):
                    if name not in self.real:
                        return self.queue.pop(k)
                    if self.running_real < MAX_REAL and not (crowded and name in CROWDED):
                        self.running_real += 1
                        self.running.add(name)
                        return self.queue.pop(k)
            time.sleep(0.5)

    def stop(self) -> None:
        self.stopping = True
        with self.lock:
            procs = list(self.procs)
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def main(self) -> int:
        LOGS.mkdir(parents=True, exist_ok=True)
        for old in LOGS.glob("*.log"):
            old.unlink()
        self.say(f"{len(self.tests)} test jobs, {len(self.chapters)} chapters under nbval and the builds, {WORKERS} at a "
                 f"time (logs: {LOGS.relative_to(REPO)}/)")
        threads = [threading.Thread(target=self.worker, args=(k == 0,), daemon=True) for k in range(WORKERS)]
        for t in threads:
            t.start()
        try:
            for t in threads:
                while t.is_alive():
                    t.join(0.5)
        except KeyboardInterrupt:
            self.stop()
            print("interrupted (Ctrl-C): every test, build and chapter run stopped", file=sys.stderr)
            return 130
        order = list(self.tests) + ["builds", "tests/book+site"] + sorted(self.chapters)
        for name in order:
            log = self.log_of(name)
            if name not in self.rc and not log.exists():
                continue
            text = log.read_text(errors="replace").rstrip() if log.exists() else "(no log)"
            lines = text.splitlines()
            if self.rc.get(name) == 0 and name in self.chapters:
                print(f"{name}: passed in {self.seconds[name]:.0f} s: {lines[-1] if lines else ''}")
            else:
                print(f"\n== {name} ({'passed' if self.rc.get(name) == 0 else 'FAILED'}, "
                      f"{self.seconds.get(name, 0):.0f} s):\n{text}")
        old = {}
        try:
            old = json.loads(TIMES.read_text())
        except (OSError, ValueError):
            pass
        TIMES.write_text(json.dumps({**old, **{n: round(s, 1) for n, s in self.seconds.items()}}, indent=1,
                                    sort_keys=True))
        cpu = {name: self.cpu.get(self.log_of(name).stem, 0.0) for name in order if name in self.rc}
        print("\nCPU seconds by job (the job and every descendant waited for; a lower bound: PySpark's JVM and any "
              "other process left to exit on its own is not counted), most first:")
        for name, seconds in sorted(cpu.items(), key=lambda kv: -kv[1]):
            print(f"  {seconds:7.0f}  {name}")
        print(f"  {sum(cpu.values()):7.0f}  in all")
        failed = [n for n in order if n in self.rc and self.rc[n] != 0] + [n for n in self.jobs if n not in self.rc]
        m, s = divmod(int(time.monotonic() - self.began), 60)
        print(f"\n{'all passed' if not failed else 'FAILED: ' + ', '.join(failed)} ({m} min {s} s)")
        return 0 if not failed else 1


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--make", default=os.environ.get("MAKE", "make"))
    parser.add_argument("--tests", default="tests", help="what pytest runs in the tests stream (space-separated)")
    parser.add_argument("chapters", nargs="+")
    args = parser.parse_args(argv)
    return Runner(args.python, args.make, args.chapters, args.tests.split()).main()


if __name__ == "__main__":
    sys.exit(main())
