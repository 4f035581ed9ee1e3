"""Kafka's large assignor tests, every cell: in-process ``assign`` time, ``python -m rebalance run`` wall time,
and Kafka's Java figures side by side.

The group is the one of ``AbstractStickyAssignorTest.testLargeAssignmentAndGroupWith{Uniform,NonEqual}
Subscription`` (Kafka 3.8/3.9, commit 1eb7644, no consumer racks): 500 topics ``t000``..``t499`` x 2,000
partitions = 1,000,000 partitions, 2,000 consumers ``c0000``..``c1999`` subscribed to every topic
(``non-equal``: the last one to ``t000`` only), the test's direct ``assignPartitions`` call on a ``HashMap``
of subscriptions.  Step 1 is the first assignment; step 2 is the same group again where every member but
``c0000`` reports its step-1 partitions with generation 1 (``buildSubscriptionV2Above``).  Range and
RoundRobin run on the same two groups (they ignore owned partitions).

    .venv/bin/python benchmarks/bench_large_tests.py                  # every cell, best of 3
    .venv/bin/python benchmarks/bench_large_tests.py --repeat 1 --only sticky

Method:

* each case is written as one input line (the vectors' ``kind: consumer`` schema) to a temporary folder;
  step 2's line is built from step 1's ``run`` output;
* **in-process**: a fresh interpreter reads the line, then ``parse_consumer_input`` and a fresh assignor's
  ``assign`` (timed: ``assign`` only), ``--repeat`` times; the best is shown, with the parse and the
  output-formatting (``assignment`` / ``sortedAssignment`` lists) times of the best run;
* **run**: ``python -m rebalance run --max-cells 0 IN -o OUT`` timed from outside as a subprocess
  (interpreter start, JSON read, parse, assign, formatting, JSON write), best of ``--repeat``;
* peak RSS: the largest ``ru_maxrss`` of the run subprocesses (``os.wait4``);
* **Java**: the figures stated in issue 13 ("Kafka's Java takes 1.5 s (Range), 0.16 s / 3.9 s (Sticky),
  0.08 s / 2.0 s (cooperative) in-process"): Kafka's own classes at commit 1eb7644 called in-process on the
  uniform group on this machine.  They are quoted, not re-measured here (no recipe that builds Kafka's code
  is part of this repository); cells the issue gives no figure for show ``-``.

The machine's load average is printed with the table: timings on a shared machine are noisy, so run this
when the load is low.  ``benchmarks/large_tests_results.md`` holds a measured table, before and after the
speed work of issue 13, with the targets met and the gaps left.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOPICS, PARTITIONS, CONSUMERS = 500, 2_000, 2_000
ASSIGNORS = ("range", "roundrobin", "sticky", "cooperative-sticky")
KINDS = ("uniform", "non-equal")

#: (assignor, kind, step) -> seconds, as stated in issue 13 (see the module docstring)
JAVA = {("range", "uniform", 1): 1.5,
        ("sticky", "uniform", 1): 0.16, ("sticky", "uniform", 2): 3.9,
        ("cooperative-sticky", "uniform", 1): 0.08, ("cooperative-sticky", "uniform", 2): 2.0}


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
# the in-process measurement (runs in its own interpreter)


def inprocess(path: str, repeat: int) -> dict:
    import resource

    from rebalance.consumer.assignor import assignor_for
    from rebalance.consumer.model import parse_consumer_input
    from rebalance.consumer.vectors import parse_replay_options, result_output

    data = json.loads(Path(path).read_text(encoding="utf-8"))
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        scenario = parse_consumer_input(data)
        assignor = assignor_for(scenario.assignor, replay=parse_replay_options(data))  # entry assignPartitions
        t1 = time.perf_counter()
        result = assignor.assign(scenario)
        t2 = time.perf_counter()
        result_output(scenario, result)
        t3 = time.perf_counter()
        run = {"parse_s": t1 - t0, "assign_s": t2 - t1, "output_s": t3 - t2, "path": result.path or ""}
        if best is None or run["assign_s"] < best["assign_s"]:
            best = run
        del result, scenario
    best["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return best


def _child(args) -> dict:
    env = dict(os.environ, PYTHONHASHSEED="0")
    out = subprocess.run([sys.executable, __file__, "--inprocess", str(args[0]), "--repeat", str(args[1])],
                         capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def timed_run(inp: Path, out: Path, repeat: int):
    """Best wall time of ``python -m rebalance run`` and the largest peak RSS (MB) over ``repeat`` runs."""
    best, rss = float("inf"), 0.0
    env = dict(os.environ, PYTHONHASHSEED="0")
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "rebalance", "run", "--max-cells", "0", str(inp),
                                 "-o", str(out)], env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        took = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"run failed on {inp} (exit {proc.returncode})")
        best = min(best, took)
        rss = max(rss, usage.ru_maxrss / 1024)
    return best, rss


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.2f}"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure; the best is shown (default 3)")
    parser.add_argument("--only", nargs="*", choices=ASSIGNORS, help="assignors to run (default: all)")
    parser.add_argument("--kinds", nargs="*", choices=KINDS, default=list(KINDS))
    parser.add_argument("--json", help="also write the rows to this file")
    parser.add_argument("--inprocess", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.inprocess:
        print(json.dumps(inprocess(args.inprocess, args.repeat)))
        return

    rows = []
    load_before = os.getloadavg()
    print(f"Kafka's large tests: {TOPICS} topics x {PARTITIONS:,} partitions = {TOPICS * PARTITIONS:,} partitions, "
          f"{CONSUMERS:,} consumers; best of {args.repeat}; load average {load_before[0]:.2f} at start")
    header = (f"{'assignor':19s} {'group':9s} {'step':>4s} {'Java':>6s} {'assign':>7s} {'run':>7s} "
              f"{'run/assign':>10s} {'parse':>6s} {'output':>7s} {'RSS MB':>7s}  path")
    print(header, flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-large-") as tmp:
        tmp = Path(tmp)
        for assignor in args.only or ASSIGNORS:
            for kind in args.kinds:
                first = step1_input(assignor, kind)
                for step in (1, 2):
                    inp = tmp / f"{assignor}-{kind}-{step}.jsonl"
                    out = tmp / f"{assignor}-{kind}-{step}.out.jsonl"
                    if step == 1:
                        write_line(inp, first)
                    else:
                        result = json.loads((tmp / f"{assignor}-{kind}-1.out.jsonl").read_text(encoding="utf-8"))
                        write_line(inp, step2_input(first, result["output"]["assignment"]))
                    ip = _child((inp, args.repeat))
                    wall, rss = timed_run(inp, out, args.repeat)
                    row = {"assignor": assignor, "group": kind, "step": step,
                           "java_s": JAVA.get((assignor, kind, step)), "assign_s": ip["assign_s"],
                           "run_s": wall, "parse_s": ip["parse_s"], "output_s": ip["output_s"],
                           "rss_mb": max(rss, ip["rss_mb"]), "path": ip["path"], "load": os.getloadavg()[0]}
                    rows.append(row)
                    print(f"{assignor:19s} {kind:9s} {step:4d} {_fmt(row['java_s']):>6s} {row['assign_s']:7.2f} "
                          f"{wall:7.2f} {wall / row['assign_s']:9.1f}x {row['parse_s']:6.2f} {row['output_s']:7.2f} "
                          f"{row['rss_mb']:7.0f}  {row['path']}", flush=True)
    print(f"load average at end {os.getloadavg()[0]:.2f}; Java: figures quoted from issue 13 (see the docstring)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
