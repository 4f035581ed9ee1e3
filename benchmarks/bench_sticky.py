"""StickyAssignor performance: this package (Kafka 3.8/3.9 algorithm) next to kafka-python 3.0.12's
``StickyPartitionAssignor`` in one run, then Kafka's own large tests (AbstractStickyAssignorTest
``testLargeAssignmentAndGroupWith{Uniform,NonEqual}Subscription``: 500 topics x 2,000 partitions = 1,000,000
partitions over 2,000 consumers, a first assignment and a second one with owned partitions).

    .venv/bin/python benchmarks/bench_sticky.py            # side by side + large tests
    .venv/bin/python benchmarks/bench_sticky.py --quick    # side by side only

Each large case runs in a fresh subprocess so that its peak RSS (``resource.getrusage``) is its own.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections import namedtuple

from rebalance.consumer.api import build_scenario
from rebalance.consumer.sticky import StickyAssignor

Member = namedtuple("Member", ["member_id", "metadata"])


class _Cluster:
    """The two ``ClusterMetadata`` methods kafka-python's sticky assignor reads."""

    def __init__(self, partitions):
        self._partitions = {t: set(range(n)) for t, n in partitions.items()}

    def topics(self):
        return set(self._partitions)

    def partitions_for_topic(self, topic):
        return self._partitions.get(topic)


def _kafka_python_assign(partitions, members):
    from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
    from kafka.coordinator.assignors.sticky.user_data import StickyAssignorUserData
    from kafka.protocol.consumer.metadata import ConsumerProtocolSubscription

    group = []
    for member_id, spec in members.items():
        owned = spec.get("owned") or []
        user_data = b""
        if owned:
            by_topic = {}
            for topic, p in owned:
                by_topic.setdefault(topic, []).append(p)
            user_data = StickyAssignorUserData(list(by_topic.items()), spec.get("generation", -1))
        group.append(Member(member_id, ConsumerProtocolSubscription(StickyPartitionAssignor.version,
                                                                    list(spec["topics"]), user_data)))
    cluster = _Cluster(partitions)
    start = time.perf_counter()
    result = StickyPartitionAssignor().assign(cluster, group)
    elapsed = time.perf_counter() - start
    return elapsed, {m: [(tp.topic, tp.partition) for tp in a.partitions()] for m, a in result.items()}


def _ours_assign(partitions, members):
    scenario = build_scenario("sticky", partitions, members)
    start = time.perf_counter()
    result = StickyAssignor().assign(scenario)
    elapsed = time.perf_counter() - start
    return elapsed, result.assignment, result.path


def _uniform(topics, partitions_per_topic, consumers, odd_one_out=False):
    names = [f"topic{i:03d}" for i in range(topics)]
    partitions = {t: partitions_per_topic for t in names}
    members = {}
    for i in range(consumers):
        subscribed = names[:1] if odd_one_out and i == consumers - 1 else names
        members[f"consumer{i:04d}"] = {"topics": subscribed}
    return partitions, members


def _one_leaves(members, assignment):
    """Round 2 after the first member leaves: the others report what they got, generation 1."""
    leaving = next(iter(members))
    return {m: {"topics": spec["topics"], "owned": assignment[m], "generation": 1}
            for m, spec in members.items() if m != leaving}


def _balanced(assignment):
    sizes = [len(v) for v in assignment.values()]
    return max(sizes) - min(sizes)


def side_by_side() -> None:
    cases = [("1 topic x 10,000 partitions, 100 members", (1, 10_000, 100)),
             ("100 topics x 100 partitions, 500 members", (100, 100, 500))]
    print("StickyAssignor, this package vs kafka-python 3.0.12 StickyPartitionAssignor (same machine, same run)")
    print(f"{'case':78s} {'kafka-python':>12s} {'rebalance':>10s} {'speed-up':>9s}  path")
    cases += [(label.replace("members", "members, 1 on topic 0 only"), shape + (True,)) for label, shape in cases]
    for label, shape in cases:
        partitions, members = _uniform(*shape)
        kp_time, kp_assignment = _kafka_python_assign(partitions, members)
        our_time, ours, path = _ours_assign(partitions, members)
        print(f"{label + ', first assignment':78s} {kp_time:11.3f}s {our_time:9.3f}s {kp_time / our_time:8.1f}x  {path}"
              f"  (max-min: kafka-python {_balanced(kp_assignment)}, ours {_balanced(ours)})")
        survivors = _one_leaves(members, ours)
        kp_time, kp_assignment = _kafka_python_assign(partitions, survivors)
        our_time, ours2, path = _ours_assign(partitions, survivors)
        kept = sum(len(set(ours[m]) & set(ours2[m])) for m in survivors)
        print(f"{label + ', one member leaves':78s} {kp_time:11.3f}s {our_time:9.3f}s {kp_time / our_time:8.1f}x  {path}"
              f"  (partitions kept by their owner: {kept})")


def large_case(kind: str) -> dict:
    """One of Kafka's large tests, first and second assignment, in this process."""
    partitions, members = _uniform(500, 2_000, 2_000, odd_one_out=(kind == "non-equal"))
    assignor = StickyAssignor()
    start = time.perf_counter()
    first = assignor.assign(build_scenario("sticky", partitions, members))
    t1 = time.perf_counter() - start
    # as in the test: every member but the first reports its partitions (generation 1) and rejoins
    second_members = {}
    for i, (m, spec) in enumerate(members.items()):
        second_members[m] = dict(spec) if i == 0 else {"topics": spec["topics"], "owned": first.assignment[m],
                                                      "generation": 1}
    scenario = build_scenario("sticky", partitions, second_members)
    start = time.perf_counter()
    second = assignor.assign(scenario)
    t2 = time.perf_counter() - start
    return {"kind": kind, "first_s": round(t1, 2), "second_s": round(t2, 2), "path": first.path,
            "max_minus_min": _balanced(second.assignment),
            "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def large() -> None:
    print()
    print("Kafka's large tests: 1,000,000 partitions (500 topics x 2,000) over 2,000 consumers")
    print(f"{'subscriptions':12s} {'path':12s} {'first':>8s} {'second':>8s} {'limit':>6s} {'peak RSS':>10s}")
    for kind, limit in (("uniform", 30), ("non-equal", 90)):
        out = subprocess.run([sys.executable, __file__, "--large-case", kind], capture_output=True, text=True,
                             check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{kind:12s} {r['path']:12s} {r['first_s']:7.2f}s {r['second_s']:7.2f}s {limit:5d}s "
              f"{r['max_rss_mb']:8.1f}MB   (max-min after round 2: {r['max_minus_min']})")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only the side-by-side comparison")
    parser.add_argument("--large-case", choices=["uniform", "non-equal"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.large_case:
        print(json.dumps(large_case(args.large_case)))
        return
    side_by_side()
    if not args.quick:
        large()


if __name__ == "__main__":
    main()
