"""Start and stop times of :class:`rebalance.kafka.cluster.KafkaCluster` (prints figures; not a timed test).

    .venv/bin/python benchmarks/bench_cluster.py [--repeat 3] [--quick]

For each layout -- one combined node; three combined nodes; one dedicated controller and three brokers -- and
for the JVM flags of :data:`~rebalance.kafka.cluster.DEFAULT_JVM_OPTIONS` against the JVM's own defaults, it
starts the cluster ``--repeat`` times (the cases interleaved) and prints the median and the range of: the start
(``started_in``: format the folders, start the JVMs, until every broker reports every broker), the CPU time
that took (the format tools and the JVMs: the figure other work on the machine moves least), the resident
memory of each JVM once serving, and the stop (odd runs the default kill, even runs ``stop(graceful=True)``,
Kafka's controlled shutdown).  The load average is printed too: on a shared machine it moves every wall time.  ``--quick`` skips the flag comparison and
the dedicated layout.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import time
from pathlib import Path

from rebalance.kafka.cluster import DEFAULT_JVM_OPTIONS, KafkaCluster, broker_classpath


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def spread(xs):
    return f"{statistics.median(xs):5.2f} s ({min(xs):.2f}-{max(xs):.2f})"


def once(graceful, **kwargs):
    """(start s, CPU s to start: the format tools and the JVMs until serving, RSS MB per JVM, stop s)"""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    c = KafkaCluster(**kwargs).start()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the format tools, reaped
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
           + sum(cpu_seconds(n.process.pid) for n in c.nodes))
    time.sleep(1)
    rss = [rss_mb(n.process.pid) for n in c.nodes]
    t = time.monotonic()
    c.stop(graceful=graceful)
    return c.started_in, cpu, rss, time.monotonic() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    cp, release = broker_classpath()
    folder = Path(cp.rstrip("*"))
    jars = list(folder.glob("*.jar"))
    print(f"Kafka {release}: {len(jars)} jars, {sum(j.stat().st_size for j in jars) / 1e6:.0f} MB in {folder}; "
          f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f}")
    print(f"JVM flags: -Xmx512m {' '.join(DEFAULT_JVM_OPTIONS)}")
    cases = [("1 broker (combined)", dict(brokers=1)),
             ("3 brokers (3 combined nodes)", dict(brokers=3))]
    if not args.quick:
        cases += [("3 brokers (1 controller + 3 brokers)", dict(brokers=3, controllers="dedicated")),
                  ("1 broker, the JVM's default flags (G1, C2)", dict(brokers=1, jvm_options=[])),
                  ("3 brokers, the JVM's default flags (G1, C2)", dict(brokers=3, jvm_options=[]))]
    results = {label: [] for label, _ in cases}
    for i in range(args.repeat):  # interleaved, so a burst of load elsewhere hits every case alike
        for label, kwargs in cases:
            results[label].append(once(graceful=i % 2 == 1, **kwargs))
    for label, runs in results.items():
        kill = [r[3] for i, r in enumerate(runs) if i % 2 == 0]
        graceful = [r[3] for i, r in enumerate(runs) if i % 2 == 1]
        print(f"{label:<44} start {spread([r[0] for r in runs])}  CPU {spread([r[1] for r in runs])}  "
              f"RSS/JVM {statistics.median([m for r in runs for m in r[2]]):4.0f} MB  stop: kill {spread(kill)}"
              + (f", graceful {spread(graceful)}" if graceful else ""), flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
