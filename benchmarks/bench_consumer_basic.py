"""Range and RoundRobin at scale: 1,000,000 partitions over 2,000 consumers.

    .venv/bin/python benchmarks/bench_consumer_basic.py [--topics 2000] [--partitions 500] [--members 2000]

Two groups are timed for each assignor (one ``assign`` call each, best of ``--repeat``):

* ``uniform``: every member subscribes to every topic;
* ``uneven``:  member *i* subscribes to a fixed pseudo-random half of the topics (seeded), so RoundRobin
  has to skip non-subscribers and Range's per-topic member lists differ;
* ``racks`` (Range only; RoundRobin has no rack logic): the uniform group with KIP-881 racks -- member *i*
  on rack ``i % 3``, partition *p* with replicas on racks ``p % 3`` and ``(p + 1) % 3`` -- so Range runs
  its rack-matching pass first.

Prints wall time, the number of partitions assigned and the spread of per-member counts.  Target: < 5 s
per call on one core.  The figures are printed, never asserted (timings do not belong in tests).
"""
from __future__ import annotations

import argparse
import random
import time

from rebalance.consumer.api import build_scenario
from rebalance.consumer.model import Subscription
from rebalance.consumer.range import RangeAssignor
from rebalance.consumer.roundrobin import RoundRobinAssignor


def make_group(n_topics: int, n_partitions: int, n_members: int, uneven: bool, seed: int = 7):
    topics = [f"topic-{i:05d}" for i in range(n_topics)]
    rnd = random.Random(seed)
    members = {}
    for m in range(n_members):
        chosen = [t for t in topics if rnd.random() < 0.5] if uneven else topics
        if not chosen:
            chosen = [topics[m % n_topics]]
        members[f"consumer-{m:05d}-{rnd.getrandbits(32):08x}"] = Subscription(topics=list(chosen))
    return {t: n_partitions for t in topics}, members


def with_racks(partitions, members):
    """Rack ids for the members and replica racks for the partitions (3 racks)."""
    racked = {m: Subscription(topics=s.topics, rack_id=f"rack-{i % 3}") for i, (m, s) in enumerate(members.items())}
    racks = {t: [frozenset({f"rack-{p % 3}", f"rack-{(p + 1) % 3}"}) for p in range(n)] for t, n in partitions.items()}
    return racked, racks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=2000)
    parser.add_argument("--partitions", type=int, default=500, help="partitions per topic")
    parser.add_argument("--members", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--no-racks", action="store_true", help="skip the rack-aware Range run")
    args = parser.parse_args()
    total = args.topics * args.partitions
    print(f"{args.topics} topics x {args.partitions} partitions = {total:,} partitions, {args.members:,} members")
    print(f"{'assignor':<11} {'group':<8} {'build s':>8} {'assign s':>9} {'assigned':>10} {'min':>5} {'max':>5}  counters")
    for uneven in (False, True):
        t0 = time.perf_counter()
        partitions, members = make_group(args.topics, args.partitions, args.members, uneven)
        scenario = build_scenario("range", partitions, members)
        build = time.perf_counter() - t0
        for assignor in (RangeAssignor(), RoundRobinAssignor()):
            best, result = float("inf"), None
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                result = assignor.assign(scenario)
                best = min(best, time.perf_counter() - t0)
            counts = [len(v) for v in result.assignment.values()]
            print(f"{assignor.name():<11} {'uneven' if uneven else 'uniform':<8} {build:>8.2f} {best:>9.2f} "
                  f"{sum(counts):>10,} {min(counts):>5} {max(counts):>5}  {result.counters}", flush=True)
    if not args.no_racks:
        t0 = time.perf_counter()
        partitions, members = make_group(args.topics, args.partitions, args.members, False)
        racked, racks = with_racks(partitions, members)
        scenario = build_scenario("range", partitions, racked, partition_racks=racks)
        build = time.perf_counter() - t0
        t0 = time.perf_counter()
        result = RangeAssignor().assign(scenario)
        took = time.perf_counter() - t0
        counts = [len(v) for v in result.assignment.values()]
        on_rack = sum(1 for m, tps in result.assignment.items() for t, p in tps
                      if racked[m].rack_id in racks[t][p])
        print(f"{'range':<11} {'racks':<8} {build:>8.2f} {took:>9.2f} {sum(counts):>10,} {min(counts):>5} "
              f"{max(counts):>5}  rack-aware={result.rack_aware}, on the member's rack: {on_rack:,}", flush=True)


if __name__ == "__main__":
    main()
