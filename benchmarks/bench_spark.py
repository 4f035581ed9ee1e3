"""Spark local mode vs a plain Python loop, the coordinator job at 10 million group ids, local[1] vs local[2].

    python benchmarks/bench_spark.py            # full run (a few minutes on 2 cores)
    python benchmarks/bench_spark.py --quick    # smaller sizes

Prints, for the scenario sweep (every consumer assignor on each generated group, churn included):
seconds and scenarios per second for the single-process loop (``rebalance.spark.single_process.sweep``) and for
the Spark job (``rebalance.spark.jobs.sweep.run``) on the same scenarios, and the smallest size at which
Spark was faster; then the coordinator job's wall time for 10 million ids; then the sweep's throughput
with one and two local cores.  Timings depend on the machine and on its load (printed first).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from rebalance.spark import get_spark, stop_spark
from rebalance.spark import single_process as local
from rebalance.spark.jobs import coordinator, sweep


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def _session(cores):
    stop_spark()
    spark = get_spark(app_name=f"bench-{cores}", cores=cores)
    sweep.run(spark, 8)  # start the Python workers and import the package in them before timing
    return spark


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--sizes", default=None, help="comma-separated sweep sizes")
    ap.add_argument("--ids", type=int, default=10_000_000, help="group ids for the coordinator job")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else ([100, 400, 1600] if args.quick
                                                                          else [100, 500, 2000, 8000])
    ids = 1_000_000 if args.quick and args.ids == 10_000_000 else args.ids
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")

    print("\n== scenario sweep (4 assignors per scenario, churn included): plain loop vs Spark local[2]")
    spark = _session(2)
    print(f"{'scenarios':>10} {'loop s':>8} {'loop /s':>8} {'spark s':>8} {'spark /s':>9}  faster")
    first_win = None
    for n in sizes:
        t_loop, loop_tables = _timed(lambda: local.sweep(n, seed=1))
        t_spark, result = _timed(lambda: sweep.run(spark, n, seed=1))
        same = (loop_tables["by_assignor"]["scenarios"].tolist() == result["by_assignor"]["scenarios"].tolist()
                and loop_tables["by_assignor"]["mean_moved"].round(9).tolist()
                == result["by_assignor"]["mean_moved"].round(9).tolist())
        winner = "spark" if t_spark < t_loop else "loop"
        if winner == "spark" and first_win is None:
            first_win = n
        print(f"{n:>10} {t_loop:>8.2f} {n / t_loop:>8.0f} {t_spark:>8.2f} {n / t_spark:>9.0f}  {winner}"
              f"{'' if same else '  (RESULTS DIFFER!)'}")
    print(f"Spark local[2] first beat the plain loop at {first_win} scenarios" if first_win
          else "Spark local[2] did not beat the plain loop at these sizes")

    print(f"\n== coordinator hot spots: {ids:,} group ids, 5 partition counts, Spark local[2]")
    t, result = _timed(lambda: coordinator.run(spark, ids, seed=1))
    print(f"{ids:,} ids hashed and counted in {t:.1f} s ({ids / t / 1e6:.2f} M ids/s); "
          f"{'within' if t < 120 else 'OVER'} the 2-minute budget")
    s = result["summary"]
    row = s[(s.num_partitions == 50) & (s.brokers == 6)].iloc[0]
    print(f"  50 partitions on 6 brokers: busiest broker {row.max_broker_groups_vs_even:.3f} x even (groups), "
          f"{row.max_broker_commits_vs_even:.3f} x even (commits)")

    n = sizes[-1] if args.quick else 4000
    print(f"\n== sweep of {n} scenarios: local[1] vs local[2]")
    rates = {}
    for cores in (1, 2):
        spark = _session(cores)
        t, _ = _timed(lambda: sweep.run(spark, n, seed=2))
        rates[cores] = n / t
        print(f"local[{cores}]: {t:.2f} s, {rates[cores]:.0f} scenarios/s")
    print(f"speed-up with 2 cores: {rates[2] / rates[1]:.2f}x")
    print(f"load average at end: {os.getloadavg()[0]:.1f}")
    stop_spark()
    return 0


if __name__ == "__main__":
    sys.exit(main())
