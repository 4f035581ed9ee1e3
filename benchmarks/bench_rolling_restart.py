"""Benchmark of the heartbeat fast path: one-at-a-time rolling restarts of a large classic group.

A group of ``--members`` consumers (default 1,000) consumes one topic of ``--partitions`` partitions (default
10,000) at the simulator's realistic defaults (``ProtocolConfig()``: Kafka's client and broker defaults,
500-record batches of 500 ms, 100 ms commit on revoke).  After the group has formed, every member is
restarted once, one at a time: a graceful shutdown, back 5 s later, the next member 20 s after the previous
one (``rebalance.protocol.scenarios.rolling_restart`` with ``batch=1``), then two minutes to settle.  Three
variants: eager (dynamic members, RangeAssignor), cooperative (dynamic, CooperativeStickyAssignor) and
static (``group.instance.id``, RangeAssignor: a restart within the session timeout needs no rebalance).

Each variant runs with the heartbeat fast path (the default) and, with ``--step``, step by step as well
(``fast_heartbeats=False``); the two runs must report identical figures (the script checks it).  Runs keep
their summary only (``rolling_restart(..., summary_only=True)``: no message trace, no ledger history;
``tests/protocol/test_summary_mode.py`` checks it reports the full run's figures); ``--full`` keeps
everything.  Each run is its own process, so that its peak resident memory is its own.  Printed per run:
wall and CPU seconds (``time.process_time``: the machine is shared, so CPU time is the steadier figure),
peak resident MB, events the clock ran, rebalances, Heartbeats counted, settled, and the leaders'
assignments: how many, and the CPU seconds spent in them (Kafka's assignor over the whole group, which no
fast path of the protocol can skip).

    python benchmarks/bench_rolling_restart.py [--members 1000] [--partitions 10000] [--variants static eager]
                                               [--step] [--full]
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

from rebalance.protocol.member import ConsumerMember
from rebalance.protocol.scenarios import rolling_restart

VARIANTS = {
    "eager": dict(protocol="eager", assignor="range"),
    "cooperative": dict(protocol="cooperative", assignor="cooperative-sticky"),
    "static": dict(protocol="eager", assignor="range", static=True),
}


def _time_leader_assignments(spent: list) -> None:
    """Add the CPU seconds of every leader's assignment (``ConsumerMember._perform_assignment``: Kafka's
    assignor, ported, over all members) to ``spent[0]`` and count them in ``spent[1]``; this process only."""
    perform = ConsumerMember._perform_assignment

    def timed(self, *args):
        c = time.process_time()
        try:
            return perform(self, *args)
        finally:
            spent[0] += time.process_time() - c
            spent[1] += 1
    ConsumerMember._perform_assignment = timed


def run_one(name: str, members: int, partitions: int, fast: bool, full: bool = False) -> dict:
    """One rolling restart; wall time and the run's figures."""
    spent = [0.0, 0]
    _time_leader_assignments(spent)
    t0, c0 = time.perf_counter(), time.process_time()
    sim = rolling_restart(members, {"events": partitions}, down_ms=5_000, gap_ms=20_000, start_ms=60_000,
                          settle_ms=120_000, batch=1, run=False, fast_heartbeats=fast, summary_only=not full,
                          **VARIANTS[name])
    end = 60_000 + (members - 1) * 20_000 + 5_000 + 120_000
    events = sim.run_clock(end, max_events=10**9)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    m = sim.metrics(sim.measure_from)
    return {"variant": name, "mode": "fast" if fast else "step", "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, "events": events,
            "rebalances": m.rebalances, "heartbeats": sim.message_counts["Heartbeat"],
            "messages": sum(sim.message_counts.values()), "settled": m.settled,
            "unowned_partition_s": round(m.unowned_partition_seconds), "virtual_s": end // 1000,
            "leader_assignments": spent[1], "assignor_cpu_s": round(spent[0], 1)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--members", type=int, default=1000)
    p.add_argument("--partitions", type=int, default=10_000)
    p.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=list(VARIANTS))
    p.add_argument("--step", action="store_true", help="also run step by step (fast_heartbeats=False)")
    p.add_argument("--full", action="store_true", help="keep the whole trace and ledger history")
    p.add_argument("--one", nargs=2, metavar=("VARIANT", "MODE"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:  # a child process: one run, its figures as JSON
        print(json.dumps(run_one(args.one[0], args.members, args.partitions, args.one[1] == "fast", args.full)))
        return
    print(f"rolling restart, one at a time: {args.members} members, {args.partitions} partitions, 20 s gaps")

    def child(name: str, mode: str) -> dict:
        cmd = [sys.executable, __file__, "--members", str(args.members), "--partitions", str(args.partitions),
               "--one", name, mode] + (["--full"] if args.full else [])
        return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)

    ignored = ("mode", "wall_s", "cpu_s", "events", "peak_mb", "assignor_cpu_s")
    for name in args.variants:
        fast = child(name, "fast")
        print(fast, flush=True)
        if args.step:
            step = child(name, "step")
            print(step, flush=True)
            same = {k: v for k, v in fast.items() if k not in ignored} == \
                {k: v for k, v in step.items() if k not in ignored}
            print(f"{name}: fast and step-by-step figures identical: {same}", flush=True)


if __name__ == "__main__":
    main()
