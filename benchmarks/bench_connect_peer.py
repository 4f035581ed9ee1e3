"""``simulate`` against ``simulate --on kafka`` for random ``kind: connect`` scenarios: an agreement table.

    .venv/bin/python benchmarks/bench_connect_peer.py [--n 100] [--seed 1] [--first 0] [--budget-s 3600]
    .venv/bin/python benchmarks/bench_connect_peer.py --report-only [--resimulate]

Each scenario (seeded): two or three workers, ``connect.protocol`` eager, compatible or sessioned,
``scheduled.rebalance.max.delay.ms`` 0 or 8000, a connector added at 2 s, then one or two of: a worker restarted
(down 0 to 12 s), crashed, or stopped, a second connector added, the first removed; 30 s of quiet after the last
event.  Every scenario runs in the simulator (:func:`rebalance.connect.simulate_connect`) and on a real Connect
cluster (:func:`rebalance.kafka.connect.simulate.run_connect_scenario`, one broker for all), and each difference is
classified, the first that applies:

* ``replay`` -- a real round the book's model, given that round's real inputs, does not reproduce (a model bug);
* ``agree`` -- the same final assignment, a delay on both sides or on neither, every real round replayed;
* ``tie`` -- the real final assignment, and a delay sent or not, are another of the simulator's member-id draws'
  (:func:`rebalance.connect.simulate.connect_alternatives`, 32 draws): the incremental assignor walks the workers
  in the ``HashMap`` order of their member ids, which end in random UUIDs on a real cluster, so which of equally
  loaded workers gives up a task follows them, and when the leader leaves the coordinator's next leader is the
  first member id of its ``HashMap`` (a new leader knows no previous assignment, so it sends no delay for what a
  worker that left had) -- a predicted outcome, counted as met;
* ``delay`` -- one side sent a scheduled delay and the other did not, and no draw does as the real cluster did (the real worker's JVM takes seconds to start
  and join, so a restart the simulator brings back within the delay can outlast it);
* ``instant restart`` -- a worker restarted with ``down_ms`` 0 is out of a real round (its leave completes a
  round of its own while its new process starts, seconds) and not of the simulator's (the class of 5 scenarios
  while the simulator's new process rejoined in the same instant; since its restarts take
  ``WORKER_START_MS``, measured by :func:`restart_gaps`, none);
* ``final counts`` -- the last rounds give the workers different numbers of connectors and tasks, and no draw
  does as the real cluster did;
* ``final placement`` -- the same numbers, other items, and no draw does as the real cluster did.

The number of rounds differs nearly always (a real cluster's workers start one after the other and a restart
takes seconds) and is reported, not classified.

Each run is appended to ``--jsonl`` (one line per scenario: the scenario, both sides' lines, the real rounds as read
from the workers' logs, with their member ids, and when each ``DELETE`` was sent), so that a difference can be
studied after the run and the comparison repeated when the model changes: ``--resimulate`` runs the simulator and
the replay of the recorded real rounds anew.  ``--first N`` continues a draw (scenario ``i`` is the same whatever
``--first``); ``--budget-s`` stops starting scenarios after that many seconds.  The table and every differing
scenario go to ``--report``.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import random
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List

from rebalance.connect import connect_alternatives, simulate_connect
from rebalance.connect.simulate import WORKER_START_MS, parse_connect_scenario
from rebalance.kafka.cluster import KafkaCluster
from rebalance.kafka.connect.logs import RealRound, WorkerAssignment
from rebalance.kafka.connect.replay import compare_rounds
from rebalance.kafka.connect.simulate import play_connect_scenario

HERE = Path(__file__).resolve().parent
#: member-id draws per scenario for the ``tie`` class
ALTERNATIVE_DRAWS = 32


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


def draw(n: int, seed: int) -> List[Dict[str, Any]]:
    """The first ``n`` scenarios of the draw ``seed``."""
    rng = random.Random(seed)
    return [scenario(rng, i) for i in range(n)]


def counts(a: Dict[str, Dict[str, List[str]]]) -> Dict[str, List[int]]:
    return {w: [len(v["connectors"]), len(v["tasks"])] for w, v in a.items()}


def classify(sim: List[Dict[str, Any]], real: List[Dict[str, Any]], scenario: Dict[str, Any]) -> str:
    """The first class (see the module docstring) that applies."""
    sr, rr = sim[:-1], real[:-1]
    if not all(r["replayed"] for r in rr):
        return "replay"
    ra = rr[-1]["assignment"] if rr else {}
    delayed = any(r["delayed"] for r in rr)

    def meets(rows: List[Dict[str, Any]]) -> bool:  # a delay sent alike, the same final assignment
        return any(r["delayed"] for r in rows) == delayed and (rows[-1]["assignment"] if rows else {}) == ra
    if meets(sr):
        return "agree"
    if any(meets(alt[:-1]) for alt in connect_alternatives(scenario, ALTERNATIVE_DRAWS)):
        return "tie"
    if any(r["delayed"] for r in sr) != delayed:
        return "delay"
    sa = sr[-1]["assignment"] if sr else {}
    for e in scenario["events"]:
        if e["op"] == "restart" and not e.get("down_ms"):
            def out(rows: List[Dict[str, Any]]) -> bool:
                return any(r["at_ms"] >= e["at_ms"] and e["member"] not in r["assignment"] for r in rows)
            if out(rr) and not out(sr):
                return "instant restart"
    return "final counts" if counts(sa) != counts(ra) else "final placement"


def rounds_from(record: List[Dict[str, Any]]) -> List[RealRound]:
    """The real rounds as recorded (``dataclasses.asdict``)."""
    out = []
    for r in record:
        workers = {k: WorkerAssignment(**v) for k, v in r["workers"].items()}
        out.append(RealRound(r["generation"], workers, r["time"], r["first_time"], dict(r["joined"])))
    return out


def differing_rounds(s: Dict[str, Any], rounds: List[RealRound], removed: Dict[str, float]) -> List[Dict[str, Any]]:
    """The rounds the model's replay does not reproduce, as table rows."""
    sc = parse_connect_scenario(s)
    return [dict(c.row()) for c in compare_rounds(rounds, sc.connect_protocol, sc.max_delay_ms, -1, removed)
            if not c.identical]


def resimulate(row: Dict[str, Any]) -> Dict[str, Any]:
    """``row`` compared again with the model as it is now: the simulator's lines and the replay of its real rounds."""
    s = row["scenario"]
    sc = parse_connect_scenario(s)
    rounds = rounds_from(row["rounds"])
    identical = {c.generation: c.identical
                 for c in compare_rounds(rounds, sc.connect_protocol, sc.max_delay_ms, -1, row["removed"])}
    real = [dict(r, replayed=identical.get(r["generation"], False)) if "generation" in r else r for r in row["real"]]
    sim = simulate_connect(s)
    return dict(row, sim=sim, real=real, verdict=classify(sim, real, s), differing=differing_rounds(s, rounds, row["removed"]))


def restart_gaps(rows: List[Dict[str, Any]]) -> List[int]:
    """For every ``restart`` of the recorded real runs that the rounds show (the worker out, then back): the ms from
    the end of its ``down_ms`` to the first round with it back (its new process's start-up and that round's
    heartbeat), the measurement behind the simulator's ``WORKER_START_MS``."""
    gaps = []
    for r in rows:
        rounds = [x for x in r["real"] if "assignment" in x]
        for e in r["scenario"]["events"]:
            if e["op"] != "restart":
                continue
            out = [x["at_ms"] for x in rounds if x["at_ms"] >= e["at_ms"] and e["member"] not in x["assignment"]]
            back = [x["at_ms"] for x in rounds if out and x["at_ms"] >= out[0] and e["member"] in x["assignment"]]
            if back:
                gaps.append(back[0] - e["at_ms"] - e.get("down_ms", 0))
    return gaps


def report(rows: List[Dict[str, Any]], path: Path, note: str = "") -> None:
    found = Counter(r["verdict"] for r in rows)
    total = len(rows)
    protocols = sorted({r["scenario"]["config"]["connect.protocol"] for r in rows})
    table = ["| verdict | " + " | ".join(protocols) + " | all | share |", "|---|" + "---|" * (len(protocols) + 2)]
    for v, n in found.most_common():
        per = [sum(1 for r in rows if r["verdict"] == v and r["scenario"]["config"]["connect.protocol"] == p)
               for p in protocols]
        table.append(f"| {v} | " + " | ".join(map(str, per)) + f" | {n} | {n / total:.0%} |")
    minutes = sum(r.get("elapsed_s", 0) for r in rows) / 60
    text = [f"# `simulate` against `simulate --on kafka`, kind connect\n",
            f"{total} random scenarios (seed {rows[0]['seed'] if rows else '-'}), about {minutes:.0f} minutes of runs; "
            "classes as in `benchmarks/bench_connect_peer.py`; the recorded runs are in `connect_peer_runs.jsonl`.\n",
            note + "\n" if note else "", "\n".join(table), ""]
    gaps = restart_gaps(rows)
    if gaps:
        text += [f"Restarts: over the {len(gaps)} real restarts whose worker the rounds show out and back, the round "
                 f"that took it back came {min(gaps) / 1000:.1f} to {max(gaps) / 1000:.1f} s (median "
                 f"{statistics.median(gaps) / 1000:.1f} s) after its `down_ms` had passed: its new process's "
                 f"start-up and a heartbeat; the simulator's new process joins `WORKER_START_MS` "
                 f"({WORKER_START_MS} ms) after `down_ms`.", ""]
    text += ["## Every scenario that differs", ""]
    for r in rows:
        if r["verdict"] == "agree":
            continue
        text.append(f"- `{r['id']}` ({r['scenario']['config']['connect.protocol']}): **{r['verdict']}**; "
                    f"rounds: model {len(r['sim']) - 1}, real {len(r['real']) - 1}")
        text.append(f"  - scenario: `{json.dumps(r['scenario'])}`")
        for d in r.get("differing", []):
            text.append(f"  - round not replayed: `{json.dumps(d)}`")
        if r["verdict"] != "replay":
            text.append(f"  - model's last: `{json.dumps(r['sim'][-2]['assignment'] if len(r['sim']) > 1 else {})}`")
            text.append(f"  - real last: `{json.dumps(r['real'][-2]['assignment'] if len(r['real']) > 1 else {})}`")
    path.write_text("\n".join(text) + "\n")
    print("\n".join(table))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--first", type=int, default=0, help="start at scenario N of the draw")
    ap.add_argument("--budget-s", type=float, default=3600, help="start no scenario after this many seconds")
    ap.add_argument("--jsonl", default=str(HERE / "connect_peer_runs.jsonl"))
    ap.add_argument("--report", default=str(HERE / "connect_peer_results.md"))
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--resimulate", action="store_true", help="compare the recorded real runs with the model as it is now")
    ap.add_argument("--note", default="", help="a paragraph for the report, after its first lines")
    args = ap.parse_args()
    jsonl = Path(args.jsonl)
    if not args.report_only:
        began = time.monotonic()
        with KafkaCluster(brokers=1, broker_config={"group.min.session.timeout.ms": 1000,
                                                     "group.initial.rebalance.delay.ms": 0}) as kafka:
            for s in draw(args.first + args.n, args.seed)[args.first:]:
                if time.monotonic() - began > args.budget_s:
                    print(f"budget of {args.budget_s:.0f} s spent: stopping before {s['id']}", flush=True)
                    break
                start = time.monotonic()
                sim = simulate_connect(s)
                try:
                    run = play_connect_scenario(s, kafka)
                except Exception as e:  # a run that fails is recorded as such; the next one still runs
                    row = {"id": s["id"], "seed": args.seed, "scenario": s, "verdict": "failed",
                           "error": f"{type(e).__name__}: {e}"[:500], "sim": sim, "real": [], "rounds": [],
                           "removed": {}, "elapsed_s": round(time.monotonic() - start, 1)}
                else:
                    row = {"id": s["id"], "seed": args.seed, "scenario": s, "verdict": classify(sim, run.rows, s),
                           "sim": sim, "real": run.rows, "rounds": [dataclasses.asdict(r) for r in run.rounds],
                           "removed": run.removed, "differing": differing_rounds(s, run.rounds, run.removed),
                           "elapsed_s": round(time.monotonic() - start, 1)}
                with jsonl.open("a") as f:
                    f.write(json.dumps(row) + "\n")
                print(json.dumps({"id": row["id"], "verdict": row["verdict"], "s": row["elapsed_s"]}), flush=True)
    rows = [json.loads(x) for x in jsonl.read_text().splitlines() if x.strip()] if jsonl.exists() else []
    rows = [r for r in rows if r["verdict"] != "failed"] + [r for r in rows if r["verdict"] == "failed"]
    if args.resimulate:
        rows = [resimulate(r) if r["verdict"] != "failed" else r for r in rows]
    report(rows, Path(args.report), args.note)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
