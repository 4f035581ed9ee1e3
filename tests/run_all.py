"""``make test``'s runner: every test and every chapter's re-execution (nbval), side by side on the machine's cores.

Three streams start together once the environment is set up (``make setup``):

* **tests**: ``pytest tests`` but for ``tests/book`` and ``tests/site``, which read the built PDF and site;
* **chapters**: one chapter at a time under nbval (its own pytest, so its time is known), taken from a queue that
  holds the longest chapters first;
* **builds**: ``make conform vectors-check pdf site``, then ``pytest tests/book tests/site`` on what they built;
  then this stream takes chapters from the same queue as the second.

Most of this work waits (on JVMs, brokers, Spark, kernels and browsers), so three streams fill two cores without
making the waits longer than a heartbeat.  Each stream writes its log under ``_build/test-logs/``; when all are
done the logs are printed (tests, builds, then each chapter in the book's order) with one line per chapter and
its time, the times are kept in ``_build/test-logs/chapter-seconds.json`` (the next run's queue order), and the
exit code is 0 only if every stream passed.  Ctrl-C stops every process it started.

Not a test module (pytest collects ``test_*.py`` only); ``make test`` runs it with the test environment set.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional

REPO = Path(__file__).resolve().parents[1]
LOGS = REPO / "_build" / "test-logs"
TIMES = LOGS / "chapter-seconds.json"
#: the chapters known to take longest, by slug (real brokers, Spark at scale), when no earlier run's times exist
SLOW_FIRST = ["eager-and-cooperative", "moving-to-kip848", "real-clients", "lab-at-scale", "diagnosing-rebalances",
              "kafka-streams", "kafka-connect", "range-assignor", "sticky-assignor", "groups-coordinators-generations",
              "placing-replicas"]
NBVAL = ["--nbval", "--nbval-sanitize-with", "tests/nbval_sanitize.cfg", "--nbval-current-env", "-p", "no:randomly",
         "-q"]


class Runner:
    def __init__(self, python: str, make: str, chapters: List[str], tests: List[str]) -> None:
        self.python, self.make = python, make
        self.tests = tests
        self.queue = self.order(chapters)
        self.lock = threading.Lock()
        self.procs: List["subprocess.Popen[bytes]"] = []
        self.stopping = False
        self.began = time.monotonic()
        self.results: Dict[str, int] = {}
        self.chapter_rc: Dict[str, int] = {}
        self.chapter_s: Dict[str, float] = {}

    @staticmethod
    def order(chapters: List[str]) -> List[str]:
        """Longest first: by the last run's times when there are any, else the slow slugs, then the book's order."""
        try:
            known = {k: float(v) for k, v in json.loads(TIMES.read_text()).items()}
        except (OSError, ValueError, AttributeError):
            known = {}
        if known:
            return sorted(chapters, key=lambda c: -known.get(c, 1e9))  # a new chapter first: its time is unknown

        def rank(c: str) -> int:
            slug = Path(c).stem.split("-", 1)[-1]
            return SLOW_FIRST.index(slug) if slug in SLOW_FIRST else len(SLOW_FIRST)
        return sorted(chapters, key=rank)

    def say(self, text: str) -> None:
        m, s = divmod(int(time.monotonic() - self.began), 60)
        with self.lock:
            print(f"[{m:2d}:{s:02d}] {text}", flush=True)

    def run(self, args: List[str], log: Path) -> int:
        """One command, its output into ``log`` (appended), in its own process group (Ctrl-C stops it whole)."""
        if self.stopping:
            return 130
        with open(log, "ab") as out:
            p = subprocess.Popen(args, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 start_new_session=True)
            with self.lock:
                self.procs.append(p)
            rc = p.wait()
        with self.lock:
            self.procs.remove(p)
        return rc

    def next_chapter(self) -> Optional[str]:
        with self.lock:
            return self.queue.pop(0) if self.queue and not self.stopping else None

    def chapters_worker(self, name: str) -> None:
        while True:
            chapter = self.next_chapter()
            if chapter is None:
                return
            began = time.monotonic()
            rc = self.run([self.python, "-m", "pytest", chapter, *NBVAL], LOGS / f"nbval-{Path(chapter).stem}.log")
            self.chapter_rc[chapter], self.chapter_s[chapter] = rc, time.monotonic() - began
            self.say(f"{chapter}: {'passed' if rc == 0 else 'FAILED'} under nbval ({self.chapter_s[chapter]:.0f} s, "
                     f"{name})")

    def tests_stream(self) -> None:
        ignore = [f"--ignore={d}" for d in ("tests/book", "tests/site")]
        self.results["tests"] = self.run([self.python, "-m", "pytest", *self.tests, *ignore, "-p", "no:randomly",
                                          "-q"], LOGS / "tests.log")
        self.say(f"pytest {' '.join(self.tests)} (but tests/book, tests/site): "
                 f"{'passed' if self.results['tests'] == 0 else 'FAILED'}")

    def builds_stream(self) -> None:
        log = LOGS / "builds.log"
        rc = self.run([self.make, "--no-print-directory", "conform", "vectors-check", "pdf", "site"], log)
        self.say(f"conform, vectors-check, the PDF and the site: {'built' if rc == 0 else 'FAILED'}")
        if rc == 0:
            rc = self.run([self.python, "-m", "pytest", "tests/book", "tests/site", "-p", "no:randomly", "-q"], log)
            self.say(f"pytest tests/book tests/site: {'passed' if rc == 0 else 'FAILED'}")
        self.results["builds"] = rc
        self.chapters_worker("second stream")

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
        chapters = list(self.queue)
        self.say(f"{len(chapters)} chapters under nbval, the tests and the builds side by side (logs: "
                 f"{LOGS.relative_to(REPO)}/)")
        threads = [threading.Thread(target=self.tests_stream, daemon=True),
                   threading.Thread(target=self.chapters_worker, args=("first stream",), daemon=True),
                   threading.Thread(target=self.builds_stream, daemon=True)]
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
        for name in ("tests.log", "builds.log"):
            print(f"\n== {name[:-4]}:")
            print((LOGS / name).read_text(errors="replace").rstrip())
        print("\n== the chapters, re-executed (nbval), each in its own pytest:")
        for chapter in sorted(chapters):
            rc = self.chapter_rc.get(chapter)
            log = LOGS / f"nbval-{Path(chapter).stem}.log"
            tail = log.read_text(errors="replace").strip().splitlines()[-1:] if log.exists() else ["not run"]
            print(f"{chapter}: {'passed' if rc == 0 else 'FAILED'} in {self.chapter_s.get(chapter, 0):.0f} s: "
                  f"{tail[0] if tail else ''}")
            if rc != 0 and log.exists():
                print(log.read_text(errors="replace"))
        if self.chapter_s:
            TIMES.write_text(json.dumps({c: round(s, 1) for c, s in sorted(self.chapter_s.items())}, indent=1))
        failed = [k for k, rc in self.results.items() if rc != 0] + [c for c in chapters if self.chapter_rc.get(c) != 0]
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
