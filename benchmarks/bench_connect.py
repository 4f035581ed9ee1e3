"""Benchmarks of the Connect assignors (prints figures; not a timed test).

* the 90-connector x 10-task experiment (eager and incremental, 1 and 2 rebalances per addition,
  start and stop phases: 1,080 rebalance rounds in all) -- target < 10 s;
* one rebalance round of a 500-worker cluster running 10,000 tasks (200 connectors x 50 tasks):
  the first assignment, a 501st worker joining (load-balancing revocation), its follow-up, and a
  worker leaving -- target < 2 s per round.

Run: ``.venv/bin/python benchmarks/bench_connect.py``
"""
from __future__ import annotations

import time

from rebalance.connect.cluster import ConnectCluster
from rebalance.connect.experiment import ninety_by_ten


def timed(label, fn, target=None):
    t0 = time.perf_counter()
    out = fn()
    dt = time.perf_counter() - t0
    verdict = "" if target is None else ("  OK" if dt < target else f"  SLOWER THAN {target} s")
    print(f"{label:<62} {dt:8.3f} s{verdict}")
    return out, dt


def big_cluster(mode: str, assignor: str = "incremental"):
    workers = [f"worker-{i:03d}" for i in range(500)]
    cluster = ConnectCluster(assignor=assignor, mode=mode,
                             connectors={f"connector-{i:03d}": 50 for i in range(200)})
    return cluster, workers


def main():
    print("Kafka Connect assignors (rebalance.connect)")
    rows, _ = timed("90x10 experiment, all variants (1,080 rounds)", ninety_by_ten, target=10.0)
    for r in rows:
        print(f"    {r['assignor']:<11} rb/add={r['rebalances_per_addition']} {r['phase']:<5} rebalances={r['rebalances']:>3} "
              f"follow-ups={r['follow_ups']:>2} task stops={r['task_stops']:>6} connector stops={r['connector_stops']:>5}")
    for mode in ("direct", "protocol"):
        cluster, workers = big_cluster(mode)
        timed(f"500 workers / 10,000 tasks [{mode}]: first assignment",
              lambda: cluster.rebalance(cluster.carried_members(workers)), target=2.0)
        r, _ = timed(f"500 workers / 10,000 tasks [{mode}]: worker 501 joins",
                     lambda: cluster.rebalance(cluster.carried_members(workers + ["worker-500"])), target=2.0)
        print(f"    revoked {r.totals()['revoked_tasks']} tasks, {r.totals()['revoked_connectors']} connectors")
        r, _ = timed(f"500 workers / 10,000 tasks [{mode}]: follow-up round",
                     lambda: cluster.rebalance(cluster.carried_members(workers + ["worker-500"])), target=2.0)
        print(f"    assigned {r.totals()['assigned_tasks']} tasks to the new worker")
        r, _ = timed(f"500 workers / 10,000 tasks [{mode}]: a worker leaves",
                     lambda: cluster.rebalance(cluster.carried_members(workers[1:] + ["worker-500"])), target=2.0)
        print(f"    delay {r.delay} ms")
    cluster, workers = big_cluster("protocol", "eager")
    timed("500 workers / 10,000 tasks [eager]: one round",
          lambda: cluster.rebalance(cluster.carried_members(workers)), target=2.0)


if __name__ == "__main__":
    main()
