"""A real Connect cluster against the book's model (:mod:`rebalance.kafka.connect`): prints figures.

    .venv/bin/python benchmarks/bench_real_connect.py [--repeat 1] [--delay-ms 10000] [--protocols sessioned,eager]

For each repetition and each ``connect.protocol``: one broker, then three Connect workers (``w1`` first, so it
leads), two connectors of three tasks added one after the other, ``w3`` bounced back at once, and (not eager,
which has no delay) ``w3`` bounced for longer than ``scheduled.rebalance.max.delay.ms``.  Printed per scenario:
the rounds compared, how many are equal (counts per worker, revocations per worker, a delay sent or not) and
identical (the same connectors and tasks on the same workers), whether the bounced worker was back before the
delay ran out, and the wall time; per cluster the start time of the broker and of the Connect workers, and the
load average (a shared machine moves every wall time).  Rounds that differ are printed in full.
"""
from __future__ import annotations

import argparse
import os
import time

from rebalance.kafka.cluster import KafkaCluster
from rebalance.kafka.connect import CONNECT_BROKER_CONFIG, ConnectDistributedCluster, connectors_added, worker_bounced


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--delay-ms", type=int, default=10_000)
    ap.add_argument("--protocols", default="sessioned,eager")
    args = ap.parse_args()
    for rep in range(args.repeat):
        for protocol in args.protocols.split(","):
            load = os.getloadavg()[0]
            began = time.monotonic()
            with KafkaCluster(broker_config=CONNECT_BROKER_CONFIG, start_timeout=120) as kafka:
                with ConnectDistributedCluster(kafka.bootstrap_servers, 3, protocol, max_delay_ms=args.delay_ms,
                                    start_timeout=180) as connect:
                    results = [connectors_added(connect, {"c1": 3, "c2": 3}),
                               worker_bounced(connect, "w3", longer_than_delay=False)]
                    if protocol != "eager":
                        results.append(worker_bounced(connect, "w3", longer_than_delay=True))
                    print(f"run {rep + 1} {protocol}: broker {kafka.started_in:.1f} s, Connect workers "
                          f"{connect.started_in:.1f} s, load {load:.1f}", flush=True)
                    for r in results:
                        s = r.summary()
                        print(f"  {r.scenario}: {s['rounds']} rounds, {s['rounds equal']} equal, "
                              f"{s['rounds identical']} identical; delay sent {s['delay scheduled (real)']} "
                              f"(model {s['delay scheduled (model)']}); revocations {s['revocations (real)']} "
                              f"(model {s['revocations (model)']}); back in time {r.back_in_time}; "
                              f"{r.seconds:.1f} s", flush=True)
                        for c in r.comparisons:
                            if not c.identical:
                                print("    differs:", c.row(), flush=True)
            print(f"  total {time.monotonic() - began:.1f} s", flush=True)


if __name__ == "__main__":
    main()
