"""Peer conformance at scale: librdkafka's assignors, run by real consumer groups on librdkafka's mock cluster,
against the book's (``rebalance.live.peer``).

Default: 210 random groups drawn with seed 0 (70 each for range, roundrobin and cooperative-sticky; 1-3
topics of 1-12 partitions, 3-5 members with random subscriptions and ``client.rack`` over three racked
brokers), run 70 at a time on one mock cluster, each through a start, a member joining and a member leaving.
Every round a leader ran is replayed through :func:`rebalance.consumer.assign`.  Prints the agreement per
assignor (cooperative-sticky round by round, with the rounds where members rejoined owning partitions),
every disagreement and the wall-clock time.

    python benchmarks/bench_live_peer.py [--groups 210] [--seed 0] [--concurrency 70] [--no-racks]
"""
from __future__ import annotations

import argparse

from rebalance.live.peer import draw_groups, run_peer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=210)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--concurrency", type=int, default=70)
    parser.add_argument("--no-racks", action="store_true")
    parser.add_argument("--show", type=int, default=5, help="disagreements to print in full")
    args = parser.parse_args()
    groups = draw_groups(args.groups, args.seed, racks=not args.no_racks)
    report = run_peer(groups, concurrency=args.concurrency)
    print(f"{report.groups} groups, {len(report.checks)} rounds replayed, {report.seconds:.1f} s")
    for assignor, row in report.summary().items():
        print(f"  {assignor:19} groups={row['groups']:3} rounds={row['rounds']:4} agree={row['agree']:4} "
              f"({100 * row['agree'] / max(1, row['rounds']):.1f} %)  rejoin rounds={row['rejoin_rounds']:4} "
              f"agree={row['rejoin_agree']:4}")
    print(f"  unsettled groups: {dict(sorted(report.unsettled.items()))}")
    bad = report.disagreements()
    print(f"  disagreements: {len(bad)} rounds in {len({c.group for c in bad})} groups: "
          f"{sorted({c.group for c in bad})}")
    for c in bad[:args.show]:
        print(f"    {c.group} gen {c.generation} owned_ok={c.owned_ok}\n      live {dict(c.live)}\n      book {dict(c.book)}")


if __name__ == "__main__":
    main()
