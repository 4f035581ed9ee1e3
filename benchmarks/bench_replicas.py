"""Replica placement at scale: 100,000 partitions, replication factor 3, 100 brokers in 10 racks.

    .venv/bin/python benchmarks/bench_replicas.py [--partitions 100000] [--brokers 100] [--racks 10] [--rf 3]

Times one call each (best of ``--repeat``) of

* ``AdminUtils.assignReplicasToBrokers`` rack-aware (every broker has a rack) and rack-unaware (no racks),
  ``fixedStartIndex`` 0;
* ``StripedReplicaPlacer.place`` (one placement of all partitions, ``java.util.Random(42)``), with no
  fenced broker and with 5 % of the brokers fenced.

and prints the balance of each result (leader / replica skew over brokers, fewest racks per partition).
Target: < 5 s per AdminUtils call on one core.  Figures are printed, never asserted.
"""
from __future__ import annotations

import argparse
import time

from rebalance.replicas.adminutils import assign_replicas_to_brokers
from rebalance.replicas.brokers import Broker
from rebalance.replicas.measures import balance
from rebalance.replicas.striped import PlacementSpec, StripedReplicaPlacer


def timed(fn, repeat: int):
    best, result = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=100_000)
    parser.add_argument("--brokers", type=int, default=100)
    parser.add_argument("--racks", type=int, default=10)
    parser.add_argument("--rf", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    racked = [Broker(i, f"rack-{i % args.racks:02d}") for i in range(args.brokers)]
    plain = [Broker(i) for i in range(args.brokers)]
    fenced = [Broker(b.id, b.rack, fenced=(b.id % 20 == 7)) for b in racked]
    n, rf = args.partitions, args.rf
    cases = [
        ("AdminUtils rack-aware", racked,
         lambda: assign_replicas_to_brokers(racked, n, rf, 0)),
        ("AdminUtils rack-unaware", plain,
         lambda: assign_replicas_to_brokers(plain, n, rf, 0)),
        ("StripedReplicaPlacer", racked,
         lambda: StripedReplicaPlacer(seed=42).place(PlacementSpec(0, n, rf), racked)),
        ("StripedReplicaPlacer, 5% fenced", fenced,
         lambda: StripedReplicaPlacer(seed=42).place(PlacementSpec(0, n, rf), fenced)),
    ]
    print(f"{n:,} partitions, RF {rf}, {args.brokers} brokers in {args.racks} racks (best of {args.repeat})")
    print(f"{'placer':34s} {'seconds':>8s} {'leader skew':>12s} {'replica skew':>13s} {'min racks/p':>12s}")
    for name, brokers, fn in cases:
        seconds, result = timed(fn, args.repeat)
        b = balance(result, brokers)
        print(f"{name:34s} {seconds:8.2f} {b.leader_skew:12d} {b.replica_skew:13d} {b.min_racks_per_partition:12d}")
    print("(skews are max - min over all brokers: fenced brokers lead nothing and get replicas only as a")
    print(" last resort; rack-unaware brokers have no rack, hence 1 'rack' per partition)")


if __name__ == "__main__":
    main()
