"""Peer conformance at scale: librdkafka's assignors, run by real consumer groups on librdkafka's mock cluster,
against the book's (``rebalance.live.peer``).

Default: 300 random groups drawn with seed 0 (100 each for range, roundrobin and cooperative-sticky; 1-3
topics of 1-12 partitions, 3-5 members with random subscriptions; range and roundrobin members with a random
``client.rack`` over three racked brokers and replication factor 1 or 2), each through a start, a member
joining and a member leaving.  The 200 range and roundrobin groups run 100 at a time on one mock cluster; the
cooperative-sticky groups run 4 to a process (one mock cluster each), five processes at a time (librdkafka's
sticky assignor can abort its process, see ``rebalance.live.peer.run_peer_isolated``).  Every round a leader ran is replayed
through :func:`rebalance.consumer.assign`.  Prints the agreement per assignor (cooperative-sticky round by
round, with the rounds where members rejoined owning partitions and the rounds of groups whose members all
subscribe alike), the groups that crashed or never settled, disagreements and the wall-clock time.

    python benchmarks/bench_live_peer.py [--groups 300] [--seed 0] [--cooperative-racks]
"""
from __future__ import annotations

import argparse

from rebalance.live.peer import PeerReport, draw_groups, run_peer, run_peer_isolated


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--cooperative-concurrency", type=int, default=4)
    parser.add_argument("--parallel", type=int, default=5, help="cooperative-sticky batch processes at a time")
    parser.add_argument("--cooperative-racks", action="store_true")
    parser.add_argument("--show", type=int, default=5, help="disagreements to print in full")
    args = parser.parse_args()
    groups = draw_groups(args.groups, args.seed, cooperative_racks=args.cooperative_racks)
    eager = run_peer([g for g in groups if g.assignor != "cooperative-sticky"], concurrency=args.concurrency)
    coop = run_peer_isolated([g for g in groups if g.assignor == "cooperative-sticky"],
                             concurrency=args.cooperative_concurrency, parallel=args.parallel)
    report = PeerReport(checks=eager.checks + coop.checks, groups=len(groups), seconds=eager.seconds + coop.seconds,
                        unsettled={**eager.unsettled, **coop.unsettled}, crashed=coop.crashed)
    print(f"{report.groups} groups, {len(report.checks)} rounds replayed, {report.seconds:.1f} s "
          f"(range+roundrobin {eager.seconds:.1f} s, cooperative-sticky {coop.seconds:.1f} s)")
    for assignor, row in report.summary().items():
        print(f"  {assignor:19} groups={row['groups']:3} rounds={row['rounds']:4} agree={row['agree']:4} "
              f"({100 * row['agree'] / max(1, row['rounds']):.1f} %)  rejoin rounds={row['rejoin_rounds']:4} "
              f"agree={row['rejoin_agree']:4}  same-subscription rounds={row['same_subscription_rounds']:4} "
              f"agree={row['same_subscription_agree']:4}")
    print(f"  unsettled groups: {dict(sorted(report.unsettled.items()))}")
    print(f"  crashed groups (exit code): {dict(sorted(report.crashed.items()))}")
    bad = report.disagreements()
    print(f"  disagreements: {len(bad)} rounds in {len({c.group for c in bad})} groups: "
          f"{sorted({c.group for c in bad})}")
    coop = [c for c in report.checks if c.assignor == "cooperative-sticky"]
    mixed = [c for c in coop if not c.same_subscriptions]
    print(f"  cooperative-sticky rounds of groups with different subscriptions (both sides' general algorithm): "
          f"{sum(c.agree for c in mixed)}/{len(mixed)} agree")
    ranged = [c for c in bad if c.assignor == "range"]
    print(f"  range disagreements: {len(ranged)} rounds, of which co-partitioned topics with a member without "
          f"client.rack (librdkafka's rd_kafka_assign_co_partitioned): {sum(c.copartitioned_rackless for c in ranged)}")
    for c in bad[:args.show]:
        print(f"    {c.group} gen {c.generation} owned_ok={c.owned_ok}\n      live {dict(c.live)}\n      book {dict(c.book)}")


if __name__ == "__main__":
    main()
