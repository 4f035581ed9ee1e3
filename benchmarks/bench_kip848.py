"""KIP-848 figures at larger sizes (printed, not timed by the test suite).

    .venv/bin/python benchmarks/bench_kip848.py [--quick]

1. Server-side assignors: time per target-assignment computation, balance and stickiness when one member
   joins a group of N members (homogeneous and heterogeneous subscriptions, uniform and range).
2. Reconciliation: join / leave / rolling restart of a bigger group, KIP-848 vs classic eager/cooperative.
"""
from __future__ import annotations

import sys
import time

from rebalance.kip848 import assign_group, compare_protocols, simulate
from rebalance.kip848.compare import scale_group


def group(n_members, n_topics, partitions, heterogeneous, seed=7):
    return scale_group(n_members, n_topics, partitions, heterogeneous, seed)


def bench_assignors(sizes):
    print("assignor                 members topics parts  builder                                  ms/assign  "
          "moved-on-join  max-min")
    for n, t, p in sizes:
        for hetero in (False, True):
            topics, members = group(n, t, p, hetero)
            for assignor in ("uniform", "range"):
                t0 = time.perf_counter()
                first = assign_group(assignor, topics, members)
                ms = (time.perf_counter() - t0) * 1000
                joined = members + [{"id": "member-new", "subscriptions": members[0]["subscriptions"]}]
                second = assign_group(assignor, topics, joined, previous=first)
                before = {(m, tp, q) for m, a in first.by_name().items() for tp, ps in a.items() for q in ps}
                after_owner = {(tp, q): m for m, a in second.by_name().items() for tp, ps in a.items() for q in ps}
                moved = sum(1 for m, tp, q in before if after_owner.get((tp, q)) != m)
                counts = [sum(len(x) for x in a.values()) for a in second.by_name().values()]
                print(f"{assignor:8s} {'hetero' if hetero else 'homo  '}      {n:5d} {t:6d} {p:5d}  "
                      f"{second.builder:40s} {ms:9.1f}  {moved:13d}  {max(counts) - min(counts):7d}")


def bench_reconciliation(members, partitions):
    topics = {"orders": partitions}
    for scenario in ("join", "leave", "rolling_restart"):
        t0 = time.perf_counter()
        r = simulate(scenario, members, topics)
        wall = time.perf_counter() - t0
        s = r.summary()
        print(f"KIP-848 {scenario:16s} members={members} partitions={partitions}: time to stable "
              f"{s['time_to_stable_ms']} ms, unowned {s['unowned_partition_seconds']} partition-s, moved "
              f"{s['partitions_moved']}, heartbeats {s['heartbeats']} (simulated in {wall:.2f} s)")
    for scenario in ("join", "leave"):
        for row in compare_protocols(scenario, members, topics):
            print(f"  {scenario:6s} {row['protocol']:42s} stable {row['time_to_stable_ms']} ms, "
                  f"unowned {row['unowned_partition_seconds']} partition-s, stopped {row['partitions_stopped']}")


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    sizes = [(10, 5, 12), (100, 20, 50)] if quick else [(10, 5, 12), (100, 20, 50), (500, 50, 100)]
    bench_assignors(sizes)
    bench_reconciliation(10 if quick else 30, 60 if quick else 300)
