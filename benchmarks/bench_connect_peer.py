"""``simulate`` against ``simulate --on kafka`` for random ``kind: connect`` scenarios: an agreement table.

    .venv/bin/python benchmarks/bench_connect_peer.py [--n 100] [--seed 1] [--out benchmarks/connect_peer_results.md]

Each scenario (seeded): two or three workers, ``connect.protocol`` eager, compatible or sessioned,
``scheduled.rebalance.max.delay.ms`` 0 or 8000, a connector added at 2 s, then one or two of: a worker restarted
(down 0 to 12 s), crashed, or stopped, a second connector added, the first removed; 30 s of quiet after the last
event.  Every scenario runs in the simulator (:func:`rebalance.connect.simulate_connect`) and on a real Connect
cluster (:func:`rebalance.kafka.connect.simulate.run_connect_scenario`, one broker for all), and each difference is
classified, the first that applies:

* ``replay`` -- a real round the book's model, given that round's real inputs, does not reproduce (a model bug);
* ``delay`` -- one side sent a scheduled delay and the other did not (the real worker's JVM takes seconds to start
  and join, so a restart the simulator brings back within the delay can outlast it);
* ``final counts`` -- the last rounds give the workers different numbers of connectors and tasks;
* ``final placement`` -- the same numbers, other items (the incremental assignor breaks ties in the ``HashMap``
  order of member ids, which are random on a real cluster);
* ``agree`` -- the same final assignment, a delay on both sides or on neither, every real round replayed.

The number of rounds differs nearly always (a real cluster's workers start one after the other and a restart
takes seconds) and is reported, not classified.  The table and every scenario's line go to ``--out``.
"""
from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List

from rebalance.connect import simulate_connect
from rebalance.kafka.cluster import KafkaCluster
from rebalance.kafka.connect.simulate import run_connect_scenario


def scenario(rng: random.Random, i: int) -> Dict[str, Any]:
    members = [f"w{k}" for k in range(1, rng.choice([2, 3]) + 1)]
    events: List[Dict[str, Any]] = [{"at_ms": 2000, "op": "add_connector", "connector": "c1",
                                     "tasks.max": rng.randint(1, 4)}]
    t = 2000
    running = set(members)
    for _ in range(rng.randint(1, 2)):
        t += rng.randint(10_000, 16_000)
        op = rng.choice(["restart", "restart", "crash", "leave", "add_connector", "remove_connector"])
        member = rng.choice(sorted(running)) if running else None
        if op == "restart" and member:
            events.append({"at_ms": t, "op": op, "member": member, "down_ms": rng.choice([0, 2000, 12000])})
        elif op in ("crash", "leave") and member and len(running) > 1:
            events.append({"at_ms": t, "op": op, "member": member})
            running.discard(member)
        elif op == "add_connector" and not any(e.get("connector") == "c2" for e in events):
            events.append({"at_ms": t, "op": op, "connector": "c2", "tasks.max": rng.randint(1, 4)})
        elif op == "remove_connector" and not any(e["op"] == "remove_connector" for e in events):
            events.append({"at_ms": t, "op": op, "connector": "c1"})
    return {"kind": "connect", "id": f"peer-{i}", "members": [{"id": m} for m in members],
            "config": {"connect.protocol": rng.choice(["eager", "compatible", "sessioned"]),
                       "scheduled.rebalance.max.delay.ms": rng.choice([0, 8000]), "session.timeout.ms": 6000,
                       "heartbeat.interval.ms": 1000, "group.initial.rebalance.delay.ms": 0},
            "events": events, "until_ms": t + 30_000}


def counts(a: Dict[str, Dict[str, List[str]]]) -> Dict[str, List[int]]:
    return {w: [len(v["connectors"]), len(v["tasks"])] for w, v in a.items()}


def classify(sim: List[Dict[str, Any]], real: List[Dict[str, Any]]) -> str:
    sr, rr = sim[:-1], real[:-1]
    if not all(r["replayed"] for r in rr):
        return "replay"
    if any(r["delayed"] for r in sr) != any(r["delayed"] for r in rr):
        return "delay"
    sa, ra = (sr[-1]["assignment"] if sr else {}), (rr[-1]["assignment"] if rr else {})
    if counts(sa) != counts(ra):
        return "final counts"
    return "final placement" if sa != ra else "agree"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(Path(__file__).with_name("connect_peer_results.md")))
    args = ap.parse_args()
    rng = random.Random(args.seed)
    found: Counter[str] = Counter()
    lines = []
    began = time.monotonic()
    with KafkaCluster(brokers=1, broker_config={"group.min.session.timeout.ms": 1000,
                                                 "group.initial.rebalance.delay.ms": 0}) as kafka:
        for i in range(args.n):
            s = scenario(rng, i)
            sim = simulate_connect(s)
            real = run_connect_scenario(s, kafka)
            verdict = classify(sim, real)
            found[verdict] += 1
            line = {"id": s["id"], "verdict": verdict, "rounds (sim)": len(sim) - 1, "rounds (real)": len(real) - 1,
                    "scenario": s}
            lines.append(line)
            print(json.dumps({k: v for k, v in line.items() if k != "scenario"}), flush=True)
    total = sum(found.values())
    table = ["| verdict | scenarios | share |", "|---|---|---|"]
    table += [f"| {v} | {n} | {n / total:.0%} |" for v, n in found.most_common()]
    text = (f"# `simulate` against `simulate --on kafka`, kind connect\n\n{total} random scenarios (seed {args.seed}), "
            f"{time.monotonic() - began:.0f} s; classes as in `benchmarks/bench_connect_peer.py`.\n\n"
            + "\n".join(table) + "\n\n```jsonl\n" + "\n".join(json.dumps(x) for x in lines) + "\n```\n")
    Path(args.out).write_text(text)
    print("\n".join(table))


if __name__ == "__main__":
    main()
