"""Benchmark of the classic-protocol simulator (``rebalance.protocol``).

Default: a rolling restart of a 1,000-member group consuming one 10,000-partition topic, taken down 100
members at a time (``maxUnavailable`` 10%), each member away 5 s, a wave every 20 s; three variants:

* eager      -- dynamic members, RangeAssignor, eager protocol (stop the world);
* cooperative -- dynamic members, CooperativeStickyAssignor, cooperative protocol (KIP-429);
* static     -- ``group.instance.id`` on every member (KIP-345), RangeAssignor.

Each variant prints its wall-clock time and the run's figures.  ``--schedules N`` also replays N seeded
random fault schedules and checks the invariants (see ``tests/protocol/test_invariants.py``).

    python benchmarks/bench_protocol.py [--members 1000] [--partitions 10000] [--batch 100] [--schedules 0]
"""
from __future__ import annotations

import argparse
import time

from rebalance.protocol.config import ProtocolConfig
from rebalance.protocol.scenarios import random_schedule, rolling_restart

VARIANTS = {
    "eager": dict(protocol="eager", assignor="range"),
    "cooperative": dict(protocol="cooperative", assignor="cooperative-sticky"),
    "static": dict(protocol="eager", assignor="range", static=True),
}


def rolling(args) -> None:
    config = ProtocolConfig(poll_processing_ms=args.poll_processing_ms, revoke_ms=args.revoke_ms)
    print(f"rolling restart: {args.members} members, {args.partitions} partitions, batches of {args.batch}, "
          f"down {args.down_ms} ms, a wave every {args.gap_ms} ms")
    print(f"{'variant':<12} {'wall s':>7} {'rebal':>6} {'gen':>5} {'unowned p-s':>12} {'stopped':>8} "
          f"{'moved':>7} {'stable after s':>15} {'messages':>9} settled")
    for name in args.variants:
        t0 = time.perf_counter()
        sim = rolling_restart(args.members, {"events": args.partitions}, batch=args.batch, down_ms=args.down_ms,
                              gap_ms=args.gap_ms, start_ms=30_000, settle_ms=60_000, config=config,
                              **VARIANTS[name])
        m = sim.metrics(sim.measure_from)
        wall = time.perf_counter() - t0
        stable = m.time_to_stable_ms / 1000 if m.time_to_stable_ms is not None else float("nan")
        print(f"{name:<12} {wall:>7.1f} {m.rebalances:>6} {m.group_epoch:>5} "
              f"{m.unowned_partition_seconds:>12.0f} {m.partitions_stopped:>8} {m.partitions_moved:>7} "
              f"{stable:>15.1f} {sum(m.messages.values()):>9} {m.settled}")


def schedules(n: int) -> None:
    t0 = time.perf_counter()
    bad = []
    for seed in range(n):
        rs = random_schedule(seed)
        rs.sim.run(rs.end_ms)
        if rs.sim.ownership.violations or not rs.sim.is_settled():
            bad.append(seed)
    print(f"{n} random fault schedules in {time.perf_counter() - t0:.1f} s: "
          f"{n - len(bad)} held every invariant, {len(bad)} did not {bad[:10]}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--members", type=int, default=1000)
    p.add_argument("--partitions", type=int, default=10_000)
    p.add_argument("--batch", type=int, default=100)
    p.add_argument("--down-ms", type=int, default=5_000)
    p.add_argument("--gap-ms", type=int, default=20_000)
    p.add_argument("--poll-processing-ms", type=int, default=2_000)
    p.add_argument("--revoke-ms", type=int, default=200)
    p.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=list(VARIANTS))
    p.add_argument("--schedules", type=int, default=0)
    args = p.parse_args()
    if args.variants:
        rolling(args)
    if args.schedules:
        schedules(args.schedules)


if __name__ == "__main__":
    main()
