"""Kafka's large assignor tests, every cell: this package and Kafka's Java timed side by side, in-process and
end to end.

The group is the one of ``AbstractStickyAssignorTest.testLargeAssignmentAndGroupWith{Uniform,NonEqual}
Subscription`` (Kafka 3.8/3.9, commit 1eb7644, no consumer racks): 500 topics ``t000``..``t499`` x 2,000
partitions = 1,000,000 partitions, 2,000 consumers ``c0000``..``c1999`` subscribed to every topic
(``non-equal``: the last one to ``t000`` only), the test's direct ``assignPartitions`` call on a ``HashMap``
of subscriptions.  Step 1 is the first assignment; step 2 is the same group again where every member but
``c0000`` reports its step-1 partitions with generation 1 (``buildSubscriptionV2Above``).  Range and
RoundRobin run on the same two groups (they ignore owned partitions).

    bash java/build.sh                                                # compiles AssignorBench with the oracle
    .venv/bin/python benchmarks/bench_large_tests.py                  # every cell, best of 3
    .venv/bin/python benchmarks/bench_large_tests.py --repeat 1 --only sticky --kinds uniform --steps 2
    .venv/bin/python benchmarks/bench_large_tests.py --skip run oracle    # the in-process figures only

Method, cell by cell (one assignor, group and step), every measurement of a cell before the next cell:

* each case is written as one input line (the vectors' ``kind: consumer`` schema) to a temporary folder;
  step 2's line is built from step 1's package ``run`` output;
* **package in-process**: one interpreter (``PYTHONHASHSEED=0``) reads the line once; each timed run is
  ``parse_consumer_input``, a fresh assignor and a full ``gc.collect()`` (untimed), then ``assign``
  (timed), then the output lists (timed apart, shown as ``output``);
* **Java in-process**: one JVM (``org.rebalance.oracle.AssignorBench``, ``--jvm-opts``, default
  ``-Xms6g -Xmx6g -XX:+UseParallelGC``) reads the line once and builds Kafka's inputs with the oracle's own
  code (``ConsumerKind.prepare``: the same maps, user data and entry) on a fresh assignor for every run; it
  makes ``--warmup`` untimed runs, then each timed run is a ``System.gc()`` and Kafka's call alone
  (``assignPartitions(partitionsPerTopic, subscriptions)`` here, as the input's ``entry`` says and Kafka's
  test calls it; ``assign(Cluster, GroupSubscription)`` for ``entry: cluster``);
  the package's and Java's timed runs alternate (package, Java, package, Java, ...), so both see the same
  load; the best of ``--repeat`` each;
* **run** and **run --oracle kafka**: wall time of ``python -m rebalance run --max-cells 0 IN -o OUT`` and of
  the same with ``--oracle kafka`` (``REBALANCE_ORACLE_HEAP``, default ``--heap``), each a subprocess timed
  from outside (interpreter start, JSON read, parse, assign, output, JSON write; for the oracle also the
  JVM's start, the line sent to it and its answer read back), alternating, best of ``--repeat``; peak RSS
  from ``os.wait4`` (the oracle's includes its JVM); **equal**: ``yes`` when the two ``run`` outputs are the
  same (``output`` objects equal: ordered and sorted lists, and for the sticky assignors the path,
  ``partitionsTransferringOwnership`` and ``maxGeneration``), ``sorted`` when only the order inside the
  ``assignment`` lists differs (the same assignment: what ``conform`` compares), else ``no:`` and the keys;
* the 1-minute load average is recorded at each cell's start and end: timings on a shared machine are
  noisy, so run this when the load is low.

In a tree others rebuild (``bash java/build.sh`` empties ``java/target/classes`` while it compiles), give
``--java-dir`` a copy of ``java/target`` (``classes`` and ``lib-4.3.1``): AssignorBench and the oracle of
``run --oracle kafka`` then both run from it (``REBALANCE_JAVA_DIR``).

Targets (``benchmarks/large_tests_results.md`` holds a measured table): package in-process at most 1.0x
Java in-process; ``run`` at most ``run --oracle kafka``.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOPICS, PARTITIONS, CONSUMERS = 500, 2_000, 2_000
ASSIGNORS = ("range", "roundrobin", "sticky", "cooperative-sticky")
KINDS = ("uniform", "non-equal")
MEASURES = ("package", "java", "run", "oracle")
BENCH_CLASS = "org.rebalance.oracle.AssignorBench"


def _name(prefix: str, i: int, most: int) -> str:
    """``AbstractStickyAssignorTest.getCanonicalName``: zero-padded to the digits of ``most``."""
    return f"{prefix}{i:0{len(str(most))}d}"


def step1_input(assignor: str, kind: str) -> dict:
    topics = [_name("t", i, TOPICS) for i in range(TOPICS)]
    members = []
    for i in range(CONSUMERS):
        subscribed = topics[:1] if kind == "non-equal" and i == CONSUMERS - 1 else topics
        members.append({"memberId": _name("c", i, CONSUMERS), "topics": subscribed})
    return {"kind": "consumer", "id": f"{assignor}-{kind}-1", "assignor": assignor, "entry": "assignPartitions",
            "topics": {t: PARTITIONS for t in topics}, "members": members}


def step2_input(step1: dict, assignment: dict) -> dict:
    """Every member but the first reports its step-1 partitions, generation 1 (``buildSubscriptionV2Above``)."""
    members = [dict(m) if i == 0 else {**m, "ownedPartitions": assignment[m["memberId"]], "generationId": 1}
               for i, m in enumerate(step1["members"])]
    return {**step1, "id": step1["id"][:-1] + "2", "members": members}


def write_line(path: Path, obj: dict) -> None:
    path.write_text(json.dumps(obj, separators=(",", ":")) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# the package in-process (its own interpreter, serving "time" lines on stdin)


def inprocess_serve(path: str) -> None:
    """Reads the line once, prints ``{"ready"}``, then answers each ``time`` line with one timed run."""
    import resource

    from rebalance.consumer.assignor import assignor_for
    from rebalance.consumer.model import parse_consumer_input
    from rebalance.consumer.vectors import parse_replay_options, result_output

    data = json.loads(Path(path).read_text(encoding="utf-8"))
    print(json.dumps({"ready": True}), flush=True)
    for command in sys.stdin:
        if command.strip() != "time":
            continue
        t0 = time.perf_counter()
        scenario = parse_consumer_input(data)
        assignor = assignor_for(scenario.assignor, replay=parse_replay_options(data))
        t1 = time.perf_counter()
        gc.collect()
        t2 = time.perf_counter()
        result = assignor.assign(scenario)
        t3 = time.perf_counter()
        result_output(scenario, result)
        t4 = time.perf_counter()
        run = {"parse_s": t1 - t0, "assign_s": t3 - t2, "output_s": t4 - t3, "path": result.path or "",
               "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
        del result, scenario, assignor
        print(json.dumps(run), flush=True)


class Server:
    """A child process that prints one ready line, then one JSON line per ``time`` line it is sent."""

    def __init__(self, cmd, env=None):
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        self.ready = self._read()

    def _read(self) -> dict:
        text = self.proc.stdout.readline()
        if not text:
            code = self.proc.wait()
            raise SystemExit(f"{' '.join(map(str, self.proc.args[:4]))} ... stopped (exit {code})")
        return json.loads(text)

    def time(self) -> dict:
        self.proc.stdin.write("time\n")
        self.proc.stdin.flush()
        return self._read()

    def close(self) -> None:
        self.proc.stdin.close()
        if self.proc.wait(timeout=120) != 0:
            raise SystemExit(f"{' '.join(map(str, self.proc.args[:4]))} ... failed (exit {self.proc.returncode})")


def package_server(inp: Path) -> Server:
    return Server([sys.executable, __file__, "--inprocess", str(inp)], env=dict(os.environ, PYTHONHASHSEED="0"))


def java_classpath() -> str:
    """The oracle's classpath (``rebalance.kafka.jvm.module_classpath``), which holds AssignorBench once built."""
    from rebalance.kafka.jvm import module_classpath

    cp = module_classpath()
    if not any((Path(part) / (BENCH_CLASS.replace(".", "/") + ".class")).exists()
               for part in cp if not part.endswith("*")):
        raise SystemExit(f"{BENCH_CLASS} is not compiled: run 'bash java/build.sh'")
    return os.pathsep.join(cp)


class JvmServer(Server):
    """AssignorBench as a :class:`rebalance.kafka.jvm.JvmProcess` (its own process group, a parent-death signal,
    stderr into a file of a temporary folder): the same ready line and one JSON line per ``time`` line."""

    def __init__(self, main_class: str, args, jvm_options):
        from rebalance.kafka.jvm import JvmProcess

        self.jvm = JvmProcess("bench", main_class, [java_classpath()], Path(tempfile.mkdtemp(prefix="bench-jvm-")),
                              args, jvm_options=jvm_options, pipes="both").start()
        self.ready = self._read()

    def _read(self) -> dict:
        text = self.jvm.stdout.readline()
        if not text:
            code = self.jvm.wait()
            raise SystemExit(f"{BENCH_CLASS} stopped (exit {code}): {self.jvm.stderr_tail()}")
        return json.loads(text)

    def time(self) -> dict:
        self.jvm.stdin.write(b"time\n")
        self.jvm.stdin.flush()
        return self._read()

    def close(self) -> None:
        from rebalance.kafka.jvm import remove_dir

        self.jvm.stdin.close()
        code = self.jvm.wait(timeout=120)
        tail = self.jvm.stderr_tail()
        self.jvm.stop()
        remove_dir(self.jvm.folder)
        if code != 0:
            raise SystemExit(f"{BENCH_CLASS} failed (exit {code}): {tail}")


def java_server(inp: Path, args) -> Server:
    return JvmServer(BENCH_CLASS, ["--warmup", str(args.warmup), "--serve", str(inp)], shlex.split(args.jvm_opts))


# ---------------------------------------------------------------------------------------------
# end to end


def timed_run(inp: Path, out: Path, oracle: bool, heap: str):
    """Wall time of one ``python -m rebalance run`` (``--oracle kafka`` when ``oracle``) and its peak RSS (MB)."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    cmd = [sys.executable, "-m", "rebalance", "run", "--max-cells", "0", str(inp), "-o", str(out)]
    if oracle:
        cmd += ["--oracle", "kafka"]
        env.setdefault("REBALANCE_ORACLE_HEAP", heap)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    took = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[1:])} failed (exit {proc.returncode})")
    return took, usage.ru_maxrss / 1024


def read_output(path: Path) -> dict:
    row = json.loads(path.read_text(encoding="utf-8"))
    if "output" not in row:
        raise SystemExit(f"{path}: no output ({row.get('error')})")
    return row["output"]


def same_outputs(a: Path, b: Path) -> str:
    """``yes`` when the two ``run`` outputs are equal; ``sorted`` when they differ only in the order of the
    ``assignment`` lists (the same partitions for every member, ``sortedAssignment`` and the sticky fields
    equal: what ``conform`` checks); else ``no:`` and the keys that differ."""
    x, y = read_output(a), read_output(b)
    differ = sorted(k for k in set(x) | set(y) if x.get(k) != y.get(k))
    if not differ:
        return "yes"
    return "sorted" if differ == ["assignment"] else "no: " + ",".join(differ)


# ---------------------------------------------------------------------------------------------


def _best(runs, key="assign_s"):
    return min(runs, key=lambda r: r[key]) if runs else None


def _f(x, fmt="{:.2f}") -> str:
    return "-" if x is None else fmt.format(x)


def _ratio(a, b) -> str:
    return "-" if a is None or b is None else f"{a / b:.2f}x"


def measure_cell(inp: Path, out_pkg: Path, out_ora: Path, args) -> dict:
    row = {"load_start": os.getloadavg()[0]}
    pkg_runs, java_runs = [], []
    if "package" not in args.skip or "java" not in args.skip:
        pkg = package_server(inp) if "package" not in args.skip else None
        java = java_server(inp, args) if "java" not in args.skip else None
        try:
            for _ in range(args.repeat):  # alternating, so both see the same load
                if pkg:
                    pkg_runs.append(pkg.time())
                if java:
                    java_runs.append(java.time())
        finally:
            for server in (pkg, java):
                if server:
                    server.close()
        if java:
            row["java_ready"] = java.ready
    best_pkg, best_java = _best(pkg_runs), _best(java_runs)
    row.update(package_s=best_pkg and best_pkg["assign_s"], java_s=best_java and best_java["assign_s"],
               package_runs=pkg_runs, java_runs=java_runs,
               parse_s=best_pkg and best_pkg["parse_s"], output_s=best_pkg and best_pkg["output_s"],
               path=best_pkg["path"] if best_pkg else "", java_gc_s=best_java and best_java["gc_s"])
    run_times, oracle_times, run_rss, oracle_rss = [], [], 0.0, 0.0
    for _ in range(args.repeat):  # alternating
        if "run" not in args.skip:
            took, rss = timed_run(inp, out_pkg, False, args.heap)
            run_times.append(took)
            run_rss = max(run_rss, rss)
        if "oracle" not in args.skip:
            took, rss = timed_run(inp, out_ora, True, args.heap)
            oracle_times.append(took)
            oracle_rss = max(oracle_rss, rss)
    row.update(run_s=min(run_times, default=None), oracle_s=min(oracle_times, default=None),
               run_all_s=run_times, oracle_all_s=oracle_times,
               run_rss_mb=run_rss or None, oracle_rss_mb=oracle_rss or None,
               equal=same_outputs(out_pkg, out_ora) if run_times and oracle_times else "-")
    row["load_end"] = os.getloadavg()[0]
    return row


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per figure; the best is shown (default 3)")
    parser.add_argument("--warmup", type=int, default=2, help="Java's untimed warm-up runs per cell (default 2)")
    parser.add_argument("--only", nargs="*", choices=ASSIGNORS, help="assignors to run (default: all)")
    parser.add_argument("--kinds", nargs="*", choices=KINDS, default=list(KINDS))
    parser.add_argument("--steps", nargs="*", type=int, choices=(1, 2), default=[1, 2])
    parser.add_argument("--skip", nargs="*", choices=MEASURES, default=[],
                        help="measurements to leave out (package, java: in-process; run, oracle: end to end)")
    parser.add_argument("--heap", default="6g",
                        help="the oracle's heap (REBALANCE_ORACLE_HEAP when not set already; default 6g)")
    parser.add_argument("--jvm-opts", default="-Xms6g -Xmx6g -XX:+UseParallelGC",
                        help="AssignorBench's JVM options (default: %(default)s)")
    parser.add_argument("--java-dir", help="the Java module's folder (REBALANCE_JAVA_DIR; default java/): a copy "
                                           "of java/target keeps a rebuild by someone else out of the run")
    parser.add_argument("--json", help="also write the rows to this file")
    parser.add_argument("--inprocess", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.inprocess:
        inprocess_serve(args.inprocess)
        return
    if args.java_dir:
        os.environ["REBALANCE_JAVA_DIR"] = str(Path(args.java_dir).resolve())
    if "java" not in args.skip:
        java_classpath()  # fails now, not at the first cell, when AssignorBench is not compiled

    rows = []
    print(f"Kafka's large tests: {TOPICS} topics x {PARTITIONS:,} partitions = {TOPICS * PARTITIONS:,} partitions, "
          f"{CONSUMERS:,} consumers; best of {args.repeat} (Java after {args.warmup} warm-up runs, "
          f"{args.jvm_opts}); oracle heap {os.environ.get('REBALANCE_ORACLE_HEAP', args.heap)}")
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, {platform.node()}, {os.cpu_count()} CPUs, Python "
          f"{platform.python_version()}; load average {os.getloadavg()[0]:.2f} at start")
    header = (f"{'assignor':19s} {'group':9s} {'step':>4s} | {'package':>7s} {'Java':>6s} {'pkg/Java':>8s} | "
              f"{'run':>6s} {'oracle':>6s} {'run/orc':>7s} {'equal':>6s} | {'parse':>5s} {'output':>6s} "
              f"{'Java GC':>7s} {'RSS run':>7s} {'RSS orc':>7s} | load")
    print(header, flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-large-") as tmp:
        tmp = Path(tmp)
        for assignor in args.only or ASSIGNORS:
            for kind in args.kinds:
                first = step1_input(assignor, kind)
                for step in (1, 2):
                    inp = tmp / f"{assignor}-{kind}-{step}.jsonl"
                    out_pkg = tmp / f"{assignor}-{kind}-{step}.out.jsonl"
                    out_ora = tmp / f"{assignor}-{kind}-{step}.oracle.jsonl"
                    if step == 1:
                        write_line(inp, first)
                    else:
                        step1_out = tmp / f"{assignor}-{kind}-1.out.jsonl"
                        if not step1_out.exists():  # step 1 not measured, or its run skipped: computed untimed
                            timed_run(tmp / f"{assignor}-{kind}-1.jsonl", step1_out, False, args.heap)
                        write_line(inp, step2_input(first, read_output(step1_out)["assignment"]))
                    if step not in args.steps:
                        continue
                    row = {"assignor": assignor, "group": kind, "step": step,
                           **measure_cell(inp, out_pkg, out_ora, args)}
                    rows.append(row)
                    rss_run = max([row["run_rss_mb"] or 0] + [r["rss_mb"] for r in row["package_runs"]]) or None
                    print(f"{assignor:19s} {kind:9s} {step:4d} | {_f(row['package_s']):>7s} {_f(row['java_s']):>6s} "
                          f"{_ratio(row['package_s'], row['java_s']):>8s} | {_f(row['run_s']):>6s} "
                          f"{_f(row['oracle_s']):>6s} {_ratio(row['run_s'], row['oracle_s']):>7s} "
                          f"{row['equal']:>6s} | {_f(row['parse_s']):>5s} {_f(row['output_s']):>6s} "
                          f"{_f(row['java_gc_s']):>7s} {_f(rss_run, '{:.0f}'):>7s} "
                          f"{_f(row['oracle_rss_mb'], '{:.0f}'):>7s} | {row['load_start']:.2f}-{row['load_end']:.2f}"
                          f"  {row['path']}", flush=True)
    print(f"load average at end {os.getloadavg()[0]:.2f}; seconds; package and Java: in-process assign, "
          f"run and oracle: end to end (see the docstring)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
