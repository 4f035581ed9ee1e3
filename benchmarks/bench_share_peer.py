"""Peer conformance of ``simulate`` for ``kind: share`` against a real broker: random share-group scenarios run
through the simulator (:func:`rebalance.share.simulate.simulate_share`) and through ``simulate --on kafka``
(:func:`rebalance.kafka.share_scenarios.run_share_scenario`: real Kafka 4.3.1 ``KafkaShareConsumer``s), all on one
one-broker cluster (one warm-up scenario first, not counted: a fresh broker's first share group waits for the
share coordinator's state topic).

A scenario: 1-2 topics of 1-3 partitions, 2-3 members starting at 0 (one more joining later in half of them),
30-80 records per partition, and 1-3 events 6-9 s apart, the first at 4-5 s (``crash`` or ``leave`` of a running
member, ``join`` of the late member, ``produce`` of 5-20 records per partition); lock 3 s, heartbeat 0.5 s,
session 6 s, ``max.poll.records`` 5, 100 ms per record; ``until_ms`` 14 s after the last event, or later when the
records need it (100 ms each, shared by the members left, and 8 s more).

The model takes a member's records from its partitions in the order the broker hands them out
(:mod:`rebalance.share.share_fetch`); with the driver's ``share.acquire.mode=record_limit`` a fetch acquires at most
``max.poll.records`` (5) records, from the next partition as well only when the first runs short.

What is compared, per scenario (the member ids differ -- the broker's are random UUIDs and ``SimpleAssignor``
orders members by them -- so which named member gets which partition is not):

* ``replayed`` -- every completed change on the broker is ``SimpleAssignor``'s (the book's) for its inputs;
* ``shape`` -- the non-empty completed changes, each as its sorted partition counts, are the model's;
* ``final`` -- every record's final state and delivery count: the same ``delivery_counts`` and the same multiset
  of (state, delivery count) over the group's records, a record left ``AVAILABLE`` on both sides included (a row
  without the real final states (none of the latest runs lacks them) agrees only when every record finished on both
  sides); ``final_by_partition`` -- the same multiset in each partition (which partition a crashed member held
  depends on the member ids, which offsets on its timing);
* ``in_flight`` -- each crash's in-flight and redelivered counts are the model's.

Every difference is classified (see :func:`classify`).  Results are appended, one JSON line per scenario, to
``--jsonl``; ``--report`` writes the Markdown table.

    python benchmarks/bench_share_peer.py [--n 10] [--seed 0] [--first 0] [--budget-s 1200]
    python benchmarks/bench_share_peer.py --report-only [--resimulate]

A scenario recorded more than once (run again with a later driver) counts by its latest run.  ``--resimulate`` runs
each recorded scenario through the model as it is now, against the real runs as recorded
(after the model changed): ``shape``, ``final`` and ``in_flight`` are compared again, and ``final_by_partition``
where the row keeps the real per-partition final states (``real_final``, every row written by the present bench); an
older row's stays as recorded.
"""
from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List

HERE = Path(__file__).resolve().parent
#: member-id draws per scenario for ``--resimulate``
ALTERNATIVE_DRAWS = 32
CONFIG = {"group.share.record.lock.duration.ms": 3000, "group.share.heartbeat.interval.ms": 500,
          "group.share.session.timeout.ms": 6000, "max.poll.records": 5, "record.processing.ms": 100}


def draw(n: int, seed: int) -> List[Dict[str, Any]]:
    """``n`` random scenarios (see the module docstring); topic names carry the scenario's number (one cluster)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        topics = {f"s{i}t{k}": rng.randint(1, 3) for k in range(rng.randint(1, 2))}
        names = sorted(topics)
        size = rng.randint(2, 3)
        members = [{"id": f"m{k + 1}", "topics": rng.sample(names, rng.randint(1, len(names)))
                    if rng.random() < 0.3 else names} for k in range(size)]
        late = rng.random() < 0.5
        if late:
            members.append({"id": f"m{size + 1}", "topics": names})
        events: List[Dict[str, Any]] = []
        running = {m["id"]: True for m in members[:size]}
        t = rng.randint(4000, 5000)
        for _ in range(rng.randint(1, 3)):
            ops = ["crash", "leave", "produce"] + (["join"] if late and not any(e["op"] == "join" for e in events) else [])
            op = rng.choice(ops)
            alive = [m for m, up in running.items() if up]
            if op in ("crash", "leave") and len(alive) > 1:
                victim = rng.choice(alive)
                events.append({"at_ms": t, "op": op, "member": victim})
                running[victim] = False
            elif op == "join":
                events.append({"at_ms": t, "op": "join", "member": members[-1]["id"]})
            else:
                events.append({"at_ms": t, "op": "produce", "topic": rng.choice(names), "count": rng.randint(5, 20)})
            t += rng.randint(6000, 9000)
        if late and not any(e["op"] == "join" for e in events):
            members.pop()
        records = {name: rng.randint(30, 80) for name in names}
        total = sum(records[n] * topics[n] for n in names) + sum(e.get("count", 0) * topics[e["topic"]]
                                                                 for e in events if e["op"] == "produce")
        # room to finish: 14 s after the last event (a session timeout and a lock), or the work shared by the
        # members left, at 100 ms a record, and 8 s more
        left = max(1, sum(running.values()) + any(e["op"] == "join" for e in events))
        until = max(events[-1]["at_ms"] + 14000, total * 100 // left + 8000)
        out.append({"id": f"share-peer-{i:03d}", "kind": "share", "topics": topics, "records": records,
                    "members": members, "config": dict(CONFIG), "events": events, "until_ms": until})
    return out


def _shape(rows: List[Dict[str, Any]]) -> List[List[int]]:
    return [sorted(len(tps) for tps in r["assignment"].values()) for r in rows
            if "assignment" in r and any(r["assignment"].values())]


def _multiset(final: Dict[str, List[List[Any]]]) -> Dict[str, List[Any]]:
    return {tp: sorted(Counter((run[2], run[3]) for run in runs for _ in range(run[1] - run[0] + 1)).items())
            for tp, runs in sorted(final.items())}


def _norm(value: Any) -> Any:
    """``value`` as it reads back from a JSON line (tuples as lists)."""
    return json.loads(json.dumps(value))


def _finished(final: Dict[str, List[List[Any]]]) -> bool:
    return all(run[2] in ("ACKNOWLEDGED", "ARCHIVED") for runs in final.values() for run in runs)


def upgrade(row: Dict[str, Any], scenarios: Dict[str, Dict[str, Any]]) -> Dict[str, Any]:
    """A row written before ``final`` meant "every record finished, the same delivery counts" (its ``final`` was
    per partition): recomputed from the model (deterministic) and the row's real counts."""
    if "final_by_partition" in row:
        return row
    from rebalance.share.simulate import simulate_share

    model = simulate_share(scenarios[row["id"]])[-1]["summary"]
    return dict(row, final_by_partition=row["final"],
                final=model["delivery_counts"] == row["real_counts"] and _finished(model["final"])
                and row["unfinished"] == 0)


def _states(by_partition: Dict[str, List[Any]]) -> List[Any]:
    """The group's records as a sorted multiset of ((state, delivery count), how many), over all partitions."""
    total: Counter = Counter()
    for runs in by_partition.values():
        for (state, count), n in runs:
            total[(state, count)] += n
    return sorted([list(k), v] for k, v in total.items())


def real_side(real: List[Dict[str, Any]]) -> Dict[str, Any]:
    """What a row keeps of a real run (``simulate --on kafka``'s lines)."""
    r = real[-1]["summary"]
    return {"replayed": all(row.get("replayed") for row in real[:-1]), "real_shape": _shape(real[:-1]),
            "real_counts": r["delivery_counts"],
            "real_crashes": _norm([(c["in_flight"], c["redelivered"]) for c in r["crashes"]]),
            "real_final": _norm(_multiset(r["final"])),
            "unfinished": sum(1 for runs in r["final"].values() for run in runs if run[2] != "ACKNOWLEDGED"
                              for _ in range(run[1] - run[0] + 1)),
            "errors": r.get("errors", 0)}


def checks(row: Dict[str, Any], model: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The model's run against a row's real run: ``shape``, ``final``, ``in_flight`` and, where the row keeps the
    real per-partition final states (``real_final``, every row written by the present bench), ``final_by_partition``.

    ``final``: the same delivery counts and, with ``real_final``, every record's final state (the multiset of
    (state, delivery count) over the group's records: a record both sides leave ``AVAILABLE`` agrees); a row without
    it agrees only when every record finished on both sides (all the older rows tell)."""
    m = model[-1]["summary"]
    crashes = _norm([(c["in_flight"], c["redelivered"]) for c in m["crashes"]])
    mine = _norm(_multiset(m["final"]))
    same_counts = m["delivery_counts"] == row["real_counts"]
    out = {"model_shape": _shape(model[:-1]), "model_counts": m["delivery_counts"], "model_crashes": crashes,
           "shape": _shape(model[:-1]) == row["real_shape"],
           "final": same_counts and (_states(mine) == _states(row["real_final"]) if "real_final" in row
                                     else _finished(m["final"]) and row["unfinished"] == 0),
           "in_flight": crashes == _norm(row["real_crashes"])}
    if "real_final" in row:
        out["final_by_partition"] = same_counts and mine == row["real_final"]
    return out


def compare(model: List[Dict[str, Any]], real: List[Dict[str, Any]]) -> Dict[str, Any]:
    row = real_side(real)
    return dict(row, **checks(row, model))


def classify(c: Dict[str, Any]) -> List[str]:
    """Each difference's cause, as far as the records tell it."""
    causes = []
    if not c["replayed"]:
        causes.append("not replayed: SimpleAssignor gave another assignment for the broker's inputs")
    if not c["shape"]:
        if len(c["model_shape"]) != len(c["real_shape"]):
            causes.append("changes: a different number of non-empty completed changes (an epoch the describing "
                          "observer missed, or the broker's own extra epoch)")
        else:
            causes.append("changes: other partition counts (member ids: SimpleAssignor orders members by id)")
    if not c["in_flight"]:
        model = [n for n, _ in c["model_crashes"]]
        real = [n for n, _ in c["real_crashes"]]
        if all(m <= r for m, r in zip(model, real)) and any(m == 0 < r for m, r in zip(model, real)):
            causes.append("crash timing: the real member was still busy when it was killed, the model's had no "
                          "records left (the real group starts fetching 1-3 s later: share-group state "
                          "initialization, JVM and client overhead per record)")
        else:
            causes.append("crash timing: the killed member held another number of records (between two polls, or "
                          "mid-commit, on the wall clock)")
    if c["final"] and c["final_by_partition"] is False:
        if c["real_crashes"]:
            causes.append("final states per partition: the crashed member held another partition (member ids)")
        else:
            causes.append("final states per partition: the records left unfinished at until_ms lie in another "
                          "partition (the batch in hand when the run ends)")
    if not c["final"]:
        if c["unfinished"]:
            causes.append("unfinished: the records left unacknowledged at until_ms differ (how many a topic's only "
                          "subscriber took before it left follows the wall clock)")
        elif not c["in_flight"]:
            causes.append("delivery counts follow the crash's in-flight records")
        else:
            causes.append("final states differ otherwise")
    if c["errors"]:
        causes.append("client errors")
    return causes


def report(rows: List[Dict[str, Any]], path: Path, note: str = "") -> None:
    n = len(rows)
    keys = ("replayed", "shape", "final", "in_flight", "final_by_partition")
    lines = [f"# `simulate` vs `simulate --on kafka`, kind share ({n} scenarios)", "",
             "Written by `benchmarks/bench_share_peer.py` (see its docstring for the draw and the comparison).", "",
             "| | " + " | ".join(keys) + " | the first four |", "|---|" + "---|" * (len(keys) + 1),
             "| agree | " + " | ".join(str(sum(1 for r in rows if r[k])) + (
                 f" ({unknown} unknown)" if (unknown := sum(1 for r in rows if r[k] is None)) else "") for k in keys) +
             f" | {sum(1 for r in rows if all(r[k] for k in keys[:4]))} |", "",
             "| scenario | replayed | shape | final | in_flight | by partition | causes |", "|---|---|---|---|---|---|---|"]
    causes: Counter = Counter()
    for r in rows:
        cs = classify(r)
        causes.update(cs)
        lines.append(f"| {r['id']} | {r['replayed']} | {r['shape']} | {r['final']} | {r['in_flight']} | "
                     f"{r['final_by_partition']} | {'; '.join(cs) or '-'} |")
    lines += ["", "Causes:", ""] + [f"- {k}: {v}" for k, v in causes.most_common()] + \
             ["", f"Wall time: {sum(r['wall_s'] for r in rows):.0f} s."] + (["", note] if note else [])
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--first", type=int, default=0,
                    help="run the drawn scenarios from this one on (the draw of --n is the same whatever --first:"
                         " a run that stopped is continued with --first <scenarios already in --jsonl>)")
    ap.add_argument("--budget-s", type=float, default=1200)
    ap.add_argument("--jsonl", default=str(HERE / "share_peer_runs.jsonl"))
    ap.add_argument("--report", default=str(HERE / "share_peer_results.md"))
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--resimulate", action="store_true", help="compare the recorded real runs with the model as it is now")
    args = ap.parse_args()
    jsonl = Path(args.jsonl)
    if not args.report_only:
        from rebalance.kafka.cluster import KafkaCluster
        from rebalance.kafka.share_scenarios import run_share_scenario, share_broker_config
        from rebalance.share.simulate import parse_share_scenario, simulate_share

        scenarios = draw(args.n, args.seed)
        warm = dict(draw(1, args.seed + 1000)[0], id="warm-up", topics={"warm": 1}, records={"warm": 5},
                    members=[{"id": "w1"}], events=[{"at_ms": 1000, "op": "produce", "topic": "warm", "count": 1}],
                    until_ms=6000)
        began = time.monotonic()
        with KafkaCluster(brokers=1, broker_config=share_broker_config(parse_share_scenario(scenarios[0]))) as c:
            run_share_scenario(warm, cluster=c)
            for sc in scenarios[args.first:]:
                if time.monotonic() - began > args.budget_s:
                    print(f"budget reached after {sc['id']}")
                    break
                t = time.monotonic()
                model = simulate_share(sc)
                try:
                    real = run_share_scenario(sc, cluster=c)
                except Exception as exc:  # keep going: the row says what failed
                    print(sc["id"], "failed:", exc)
                    continue
                row = dict(compare(model, real), id=sc["id"], wall_s=round(time.monotonic() - t, 1))
                with jsonl.open("a", encoding="utf-8") as f:
                    f.write(json.dumps(row) + "\n")
                print(sc["id"], {k: row[k] for k in ("replayed", "shape", "final", "in_flight")}, classify(row), flush=True)
    recorded = [json.loads(line) for line in jsonl.read_text().splitlines() if line.strip()] if jsonl.exists() else []
    rows = list({r["id"]: r for r in recorded}.values())  # a scenario run again: its latest run counts
    drawn = {sc["id"]: sc for sc in draw(max(args.n, len(rows)), args.seed)}
    rows = [upgrade(r, drawn) for r in rows]
    note = ""
    if args.resimulate:
        from rebalance.share.simulate import simulate_share

        from rebalance.share import share_alternatives

        for r in rows:
            # the model's own run, else the first of its member-id draws that agrees on the most of the three
            runs = share_alternatives(drawn[r["id"]], ALTERNATIVE_DRAWS)
            scored = [(sum(c[k] for k in ("shape", "final", "in_flight")), bool(c.get("final_by_partition")), -i, i, c)
                      for i, c in enumerate(checks(r, model) for model in runs)]
            _, _, _, which, best = max(scored, key=lambda x: (x[0], x[1], x[2]))
            if "final_by_partition" not in best and (
                    best["model_counts"] != r["model_counts"]
                    or best["model_crashes"] != [list(c) for c in r["model_crashes"]]):
                r["final_by_partition"] = None  # recorded against another model's final states: unknown now
            r.update(best, draw=which)
        note = ("Re-simulated (`--resimulate`): the real runs as recorded, the model as it is now, its own run or, "
                f"where that differs, the first of its {ALTERNATIVE_DRAWS} member-id draws "
                "(`rebalance.share.share_alternatives`: `SimpleAssignor` orders members by their random ids on a real "
                "broker) that agrees on the most of shape, final and in-flight; "
                f"{sum(1 for r in rows if r.get('draw'))} scenarios agree through another draw than the model's own. "
                "`final_by_partition` is compared again where the row keeps the real per-partition final states "
                "(every row written by the present bench), and otherwise stays as recorded.")
    if len(recorded) > len(rows):
        note = (f"{len(recorded) - len(rows)} runs were superseded by a later run of the same scenario (the latest "
                "counts; every run stays in the JSON lines). " + note)
    report(rows, Path(args.report), note)
    print(f"{len(rows)} scenarios in {args.report}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
