"""Peer conformance at scale: librdkafka's assignors, run by real consumer groups on librdkafka's mock cluster,
against the book's (``rebalance.live.peer``).

Default: 300 random groups drawn with seed 0 (100 each for range, roundrobin and cooperative-sticky; 1-3
topics of 1-12 partitions, 3-5 members with random subscriptions; range and roundrobin members with a random
``client.rack`` over three racked brokers and replication factor 1 or 2), each through a start, a member
joining and a member leaving.  The 200 range and roundrobin groups run 100 at a time on one mock cluster; the
cooperative-sticky groups run 4 to a process (one mock cluster each), five processes at a time (librdkafka's
sticky assignor can abort its process, see ``rebalance.live.peer.run_peer_isolated``).  Every round a leader ran is replayed
through :func:`rebalance.consumer.assign` (Kafka's Java assignors) and through the model of librdkafka's
departures from them (:mod:`rebalance.live.librdkafka_model`: Range's co-partitioned pass, and the whole of
librdkafka's sticky ``assign_cb``, whose members-subscribing-alike groups take the general algorithm with
``sortPartitions``' round-robin order where Kafka takes its constrained path).  Prints, per assignor, the rounds equal to
the book, the disagreements the model reproduces (documented librdkafka departures), rounds whose input could
not be rebuilt and unexplained ones; cooperative-sticky split by whether members subscribe alike; the groups
whose process crashed (each batch runs in its own process) or never settled; and the wall-clock time.
``--dump`` writes the disagreeing rounds (or all, ``--dump-all``) as JSON lines to replay offline.

    python benchmarks/bench_live_peer.py [--groups 300] [--seed 0] [--cooperative-racks]
"""
from __future__ import annotations

import argparse
import json

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
    parser.add_argument("--dump", metavar="PATH", help="write every disagreeing round as a JSON line: its "
                        "members in the leader's order, subscriptions, racks, owned partitions with generations, "
                        "librdkafka's result and the book's (rebalance.live.peer.book_answer replays a line)")
    parser.add_argument("--dump-all", action="store_true", help="with --dump: every round, not only disagreements")
    parser.add_argument("--assignors", default="range,roundrobin,cooperative-sticky",
                        help="run only these assignors' groups of the draw (comma-separated)")
    args = parser.parse_args()
    only = set(args.assignors.split(","))
    groups = [g for g in draw_groups(args.groups, args.seed, cooperative_racks=args.cooperative_racks)
              if g.assignor in only]
    eager = run_peer([g for g in groups if g.assignor != "cooperative-sticky"], concurrency=args.concurrency)
    coop = run_peer_isolated([g for g in groups if g.assignor == "cooperative-sticky"],
                             concurrency=args.cooperative_concurrency, parallel=args.parallel)
    report = PeerReport(checks=eager.checks + coop.checks, groups=len(groups), seconds=eager.seconds + coop.seconds,
                        unsettled={**eager.unsettled, **coop.unsettled}, crashed=coop.crashed,
                        unreplayable={**eager.unreplayable, **coop.unreplayable})
    print(f"{report.groups} groups, {len(report.checks)} rounds replayed, {report.seconds:.1f} s "
          f"(range+roundrobin {eager.seconds:.1f} s, cooperative-sticky {coop.seconds:.1f} s)")
    for assignor, row in report.summary().items():
        print(f"  {assignor:19} groups={row['groups']:3} rounds={row['rounds']:4} equal={row['agree']:4} "
              f"({100 * row['agree'] / max(1, row['rounds']):.1f} %)  documented librdkafka departures="
              f"{row['documented']:3}  input unknown={row['input_unknown']:2}  unexplained={row['unexplained']:2}")
    eager_rows = [c for c in report.checks if c.assignor != "cooperative-sticky"]
    print(f"  range+roundrobin: {len(eager_rows)} rounds, {sum(c.agree for c in eager_rows)} equal to the book; "
          f"the rest librdkafka's co-partitioned Range pass (rebalance.live.librdkafka_model): "
          f"{sum(c.documented for c in eager_rows)}; unexplained: "
          f"{sum(not c.agree and not c.documented for c in eager_rows)}")
    coop_rows = [c for c in report.checks if c.assignor == "cooperative-sticky"]
    mixed = [c for c in coop_rows if not c.same_subscriptions]
    same = [c for c in coop_rows if c.same_subscriptions]
    print(f"  cooperative-sticky, members subscribing differently (general path on both sides): "
          f"{sum(c.agree for c in mixed)}/{len(mixed)} equal; the model of librdkafka's PartitionMovements gives "
          f"librdkafka's output in {sum(c.model_agrees is True for c in mixed)}/{len(mixed)}")
    print(f"  cooperative-sticky, members subscribing alike (Kafka's constrained path, librdkafka's general): "
          f"{sum(c.agree for c in same)}/{len(same)} equal; the model of librdkafka's assign_cb (sortPartitions' "
          f"round robin) gives librdkafka's output in {sum(c.model_agrees is True for c in same)}/{len(same)}")
    print(f"  rejoin rounds (members owning partitions): {sum(c.owned > 0 for c in coop_rows)}, "
          f"{sum(c.owned > 0 and c.agree for c in coop_rows)} equal")
    print(f"  unsettled groups: {dict(sorted(report.unsettled.items()))}")
    print(f"  rounds not replayable (a member id no member reported): {dict(sorted(report.unreplayable.items()))}")
    crashed = sorted(report.crashed.items())
    print(f"  crashed groups: {len(crashed)} in batches of {args.cooperative_concurrency} "
          f"(exit -6: an rd_assert aborted the process; -11: segmentation fault): {dict(crashed)}")
    bad = report.disagreements()
    if args.dump:
        with open(args.dump, "w") as out:
            for c in report.checks if args.dump_all else bad:
                out.write(json.dumps({**c.inputs, "agree": c.agree, "owned_ok": c.owned_ok,
                                      "model_agrees": c.model_agrees,
                                      "live_adjusted": {n: [list(tp) for tp in v] for n, v in c.live.items()},
                                      "book": {n: [list(tp) for tp in v] for n, v in c.book.items()}},
                                     sort_keys=True) + "\n")
        print(f"  wrote {sum(1 for _ in open(args.dump))} rounds to {args.dump}")
    for c in bad[:args.show]:
        print(f"    {c.group} gen {c.generation} owned_ok={c.owned_ok}\n      live {dict(c.live)}\n      book {dict(c.book)}")


if __name__ == "__main__":
    main()
