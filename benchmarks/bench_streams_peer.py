"""Peer conformance of ``simulate`` for ``kind: streams`` against a real broker: random Kafka Streams scenarios run
through the simulator (:func:`rebalance.streams.simulate.simulate_streams`) and through ``simulate --on kafka``
(:func:`rebalance.kafka.streams.simulate.run_streams_scenario`: real Kafka 4.3.1 ``KafkaStreams`` instances), with
``group.protocol`` ``classic`` and ``streams`` in turn, each protocol on a one-broker cluster of its own.

A scenario: 2-6 partitions, 200 records per partition (keys ``k0``..``k99``), 2-3 instances starting at 0 and one
more joining in half of them, 1-2 events 4-8 s apart from 3 s on (``leave``, ``crash`` or ``restart`` with 1-2 s
down of a running instance, ``join`` of the late one); classic: ``acceptable.recovery.lag`` 100,
``max.warmup.replicas`` 1-2, ``num.standby.replicas`` 0-1, session 6 s, heartbeat 1 s, a probing interval of 60 s
(its minimum) and ``until_ms`` 12 s after the last event (no probing rebalance is waited for: that would take a
minute per scenario); streams: session 10 s, heartbeat 1 s, no standbys (the broker's setting, one per cluster).

What is compared, per scenario (both sides use the same process ids, so classic assignments compare exactly; with
the streams protocol the member ids differ -- the broker's are random UUIDs that order its member map --, so there
the per-instance task counts are compared):

* ``replayed`` -- every rebalance on the broker is the book's assignor's for its logged (described) inputs;
* ``lines`` -- the rebalances after the start, each's assignment (classic) or task counts (streams), warm-ups,
  ``moved``, ``followup`` and ``probing``, are the simulator's;
* ``start`` -- the assignment the start settled on is the simulator's first;
* ``summary`` -- ``settled``, ``probing_rebalances``, ``warmups`` and ``moved`` are the simulator's;
* ``timed`` -- as many rebalances after the start, each's ``at_ms`` within the tolerance of the simulator's: a
  heartbeat interval plus a poll, the consumer run's standard and its 500 ms poll (``bench_kafka_peer.POLL_MS``;
  the report also counts the scenarios within a heartbeat plus Streams' own ``poll.ms``, 100 ms).

A scenario **meets the standard** when all five hold.

Every difference is classified by :func:`classify`.  Results are appended, one JSON line per scenario, to
``--jsonl``; ``--report`` writes the Markdown table.  ``--first N`` continues a draw (scenario ``i`` of a protocol is
the same whatever ``--first``).

    python benchmarks/bench_streams_peer.py [--n 10] [--seed 0] [--first 0] [--budget-s 1800] [--protocols classic,streams]
    python benchmarks/bench_streams_peer.py --report-only [--resimulate]

A scenario recorded more than once (run again with a later driver) counts by its latest run.  ``--resimulate``
judges the recorded real runs against the simulator as it is now (the real lines as recorded).
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List

HERE = Path(__file__).resolve().parent
LINE_KEYS = ("warmups", "moved", "followup", "probing")
#: "a poll" of the tolerance: the consumer run's (``bench_kafka_peer.POLL_MS``: a poll loop's turn on this loaded
#: machine), so that both kinds meet one standard
POLL_MS = 500
#: ``StreamsConfig``'s ``poll.ms`` (4.3.1 default): the stream thread's own poll, for the strict count in the report
STREAMS_POLL_MS = 100
NOT_REPLAYED = ("not replayed: the book's assignor, given the inputs the driver observed, does not answer the real "
                "target (a port bug, or inputs the driver's descriptions missed)")


def draw(n: int, seed: int, protocol: str) -> List[Dict[str, Any]]:
    """``n`` random scenarios of one protocol (see the module docstring)."""
    rng = random.Random(f"{seed}-{protocol}")
    out = []
    for i in range(n):
        partitions = rng.randint(2, 6)
        size = rng.randint(2, 3)
        late = rng.random() < 0.5
        members = [{"id": f"i{k + 1}"} for k in range(size + late)]
        running = {m["id"]: True for m in members[:size]}
        events: List[Dict[str, Any]] = []
        t = 3000
        if late:
            events.append({"at_ms": t, "op": "join", "member": members[-1]["id"]})
            running[members[-1]["id"]] = True
            t += rng.randint(4000, 8000)
        for _ in range(rng.randint(0 if late else 1, 1)):
            name = rng.choice(sorted(m for m, up in running.items() if up))
            op = rng.choice(["leave", "crash", "restart"])
            e: Dict[str, Any] = {"at_ms": t, "op": op, "member": name}
            if op == "restart":
                e["down_ms"] = rng.randint(1000, 2000)
            events.append(e)
            running[name] = op == "restart"
            t += rng.randint(4000, 8000)
        last = max(e["at_ms"] for e in events)
        if protocol == "classic":
            config: Dict[str, Any] = {"acceptable.recovery.lag": 100, "max.warmup.replicas": rng.randint(1, 2),
                                      "num.standby.replicas": rng.randint(0, 1), "probing.rebalance.interval.ms": 60000,
                                      "session.timeout.ms": 6000, "heartbeat.interval.ms": 1000}
        else:
            config = {"group.protocol": "streams", "session.timeout.ms": 10000, "heartbeat.interval.ms": 1000}
        out.append({"kind": "streams", "id": f"{protocol}-{seed}-{i}", "topics": {f"w{i}": partitions},
                    "records": 200 * partitions, "keys": 100, "members": members, "config": config,
                    "events": events, "until_ms": last + 12000})
    return out


def _view(row: Dict[str, Any], protocol: str) -> Dict[str, Any]:
    a = row["assignment"]
    if protocol == "classic":
        got = {m: [x["active"], x["standby"]] for m, x in a.items()}
    else:
        got = sorted([len(x["active"]), len(x["standby"])] for x in a.values())
    return {"assignment": got, **{k: row.get(k) for k in LINE_KEYS}}


def compare(scenario: Dict[str, Any], model: List[Dict[str, Any]], real: List[Dict[str, Any]]) -> Dict[str, Any]:
    protocol = scenario["config"].get("group.protocol", "classic")
    *r_rows, r_sum = real
    out: Dict[str, Any] = {"id": scenario["id"], "protocol": protocol,
                           "replayed": all(r.get("replayed") for r in r_rows) and bool(r_rows),
                           "real": [_view(r, protocol) | {"at_ms": r["at_ms"]} for r in r_rows]}
    out["not_replayed"] = [[r.get("generation"), r.get("at_ms")] for r in r_rows if not r.get("replayed")]
    return judge(out, model, r_sum["summary"], scenario)


SUMMARY_KEYS = ("settled", "probing_rebalances", "warmups", "moved")


def summary_of(views: List[Dict[str, Any]]) -> Dict[str, Any]:
    """The summary keys compared, from a side's lines as recorded (as the driver's summary computes them)."""
    return {"settled": bool(views) and views[-1]["followup"] is None,
            "probing_rebalances": sum(1 for v in views if v["probing"]),
            "warmups": sum(len(x) for v in views for x in v["warmups"].values()),
            "moved": sum(v["moved"] for v in views)}


def judge(out: Dict[str, Any], model: List[Dict[str, Any]], r_sum: Dict[str, Any],
          scenario: Dict[str, Any]) -> Dict[str, Any]:
    """``out`` (``id``, ``protocol``, ``replayed``, ``real``: the real lines' views) judged against the simulator's
    ``model`` run: ``start``, ``lines``, ``summary``, ``agree``, ``model`` and ``classes``."""
    protocol = out["protocol"]
    *m_rows, m_sum = model
    out["model"] = [_view(r, protocol) | {"at_ms": r["at_ms"]} for r in m_rows]

    def bare(views: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
        return [{k: v for k, v in x.items() if k != "at_ms"} for x in views]
    m_views, r_views = bare(out["model"]), bare(out["real"])
    out["start"] = bool(m_views and r_views) and m_views[0]["assignment"] == r_views[0]["assignment"]
    out["lines"] = m_views[1:] == r_views[1:]
    out["summary"] = all(m_sum["summary"][k] == r_sum[k] for k in SUMMARY_KEYS)
    out["agree"] = out["replayed"] and out["start"] and out["lines"] and out["summary"]
    tolerance = int(scenario["config"]["heartbeat.interval.ms"]) + POLL_MS
    late = [(a["at_ms"], b["at_ms"] - a["at_ms"]) for a, b in zip(out["model"][1:], out["real"][1:])
            if abs(b["at_ms"] - a["at_ms"]) > tolerance]
    out["timed"] = len(out["model"]) == len(out["real"]) and not late
    out["tolerance_ms"] = tolerance
    out["meets"] = out["agree"] and out["timed"]
    out["classes"] = classify(out, m_views, r_views)
    if not out["timed"] and len(out["model"]) == len(out["real"]):
        at, dt = late[0]
        after = [e for e in scenario["events"] if e["at_ms"] <= at]
        op = after[-1]["op"] if after else "start"
        out["late"] = {"op": op, "event_ms": after[-1]["at_ms"] if after else 0, "model_ms": at, "real_ms": at + dt}
        out["classes"].append(f"timing: the first rebalance beyond the tolerance follows a {op}, real "
                              f"{'later' if dt > 0 else 'earlier'}")
    return out


def resimulate(row: Dict[str, Any], scenario: Dict[str, Any]) -> Dict[str, Any]:
    """A recorded row judged again against the simulator as it is now (the real side as recorded)."""
    from rebalance.streams.simulate import simulate_streams

    kept = {k: row[k] for k in ("id", "protocol", "replayed", "real", "not_replayed", "wall_s") if k in row}
    return judge(kept, simulate_streams(scenario), summary_of(row["real"]), scenario)


def classify(out: Dict[str, Any], m_rows: List[Dict[str, Any]], r_rows: List[Dict[str, Any]]) -> List[str]:
    """The cause of each difference, as far as the lines show it."""
    classes = []
    if not out["replayed"]:
        classes.append(NOT_REPLAYED)
    if not out["start"]:
        classes.append("start: the real start (instances joining one by one) settled on another assignment")
    if not out["lines"]:
        if len(m_rows) != len(r_rows):
            classes.append(f"rebalance count: model {len(m_rows)}, real {len(r_rows)} (timing: events or follow-ups "
                           "merged or split)")
        else:
            classes.append("same rebalances, other answers: the lag model (which replicas had caught up) differs")
    if not out["summary"] and out["lines"]:
        classes.append("summary only")
    return classes


def report(rows: List[Dict[str, Any]], path: Path, meta: Dict[str, Any]) -> None:
    lines = ["# `simulate` kind streams: the simulator against real Kafka Streams (4.3.1)", "",
             f"Run {meta.get('date', '')}: {meta.get('note', '')}", "",
             "| protocol | scenarios | replayed | start equal | lines equal | summary equal | all agree | at_ms within "
             "tolerance | **meets the standard** |",
             "|---|---|---|---|---|---|---|---|---|"]
    for protocol in ("classic", "streams"):
        rs = [r for r in rows if r["protocol"] == protocol and "error" not in r]
        if not rs:
            continue
        n = len(rs)
        lines.append(f"| {protocol} | {n} | " + " | ".join(
            f"{sum(1 for r in rs if r.get(k))}" for k in ("replayed", "start", "lines", "summary", "agree", "timed",
                                                          "meets")) + " |")
    strict = {p: sum(1 for r in rows if r["protocol"] == p and "error" not in r and len(r["model"]) == len(r["real"])
                     and all(abs(b["at_ms"] - a["at_ms"]) <= r["tolerance_ms"] - POLL_MS + STREAMS_POLL_MS
                             for a, b in zip(r["model"][1:], r["real"][1:]))) for p in ("classic", "streams")}
    for protocol in ("classic", "streams"):
        pairs = [(b["at_ms"] - a["at_ms"], r["tolerance_ms"]) for r in rows if r["protocol"] == protocol
                 and "error" not in r and len(r["model"]) == len(r["real"]) for a, b in zip(r["model"][1:], r["real"][1:])]
        dts = [d for d, _ in pairs]
        if dts:
            lines += ["", f"{protocol}: at_ms, real minus model, over the {len(dts)} rebalances after the start of the "
                          f"scenarios with as many on both sides: median {statistics.median(dts):+.0f} ms, min "
                          f"{min(dts):+d}, max {max(dts):+d}; within a heartbeat plus a {POLL_MS} ms poll: "
                          f"{sum(1 for d, tol in pairs if abs(d) <= tol)} of {len(dts)}; within a heartbeat plus "
                          f"Streams' `poll.ms` ({STREAMS_POLL_MS} ms): "
                          f"{sum(1 for d, tol in pairs if abs(d) <= tol - POLL_MS + STREAMS_POLL_MS)} of {len(dts)}, "
                          f"every one of a scenario in {strict[protocol]} scenarios."]
    errors = [r for r in rows if "error" in r]
    if meta.get("superseded"):
        lines += ["", f"Runs superseded by a later run of the same scenario (the latest counts; all stay in the "
                      f"JSON lines): {meta['superseded']}"]
    lines += ["", f"Scenarios that failed to run: {len(errors)}"]
    for r in errors:
        lines.append(f"- {r['id']}: {r['error'][:300]}")
    for r in rows:  # rows recorded before the class's wording changed
        r["classes"] = [NOT_REPLAYED if c.startswith("not replayed") else c for c in r.get("classes", [])]
    counts = Counter(c for r in rows for c in r.get("classes", []))
    lines += ["", "## Differences, classified", ""]
    lines += [f"- {n} x {c}" for c, n in counts.most_common()] or ["- none"]
    lines += ["", "## Every scenario that differs", ""]
    for r in rows:
        if "error" not in r and not r.get("meets", r["agree"]):
            lines.append(f"- `{r['id']}`: {'; '.join(r['classes'])}")
            if r.get("late"):
                x = r["late"]
                lines.append(f"  - the first beyond the tolerance ({r['tolerance_ms']} ms): after the {x['op']} at "
                             f"{x['event_ms']}, model {x['model_ms']}, real {x['real_ms']}")
            lines.append(f"  - model: `{json.dumps(r['model'])}`")
            lines.append(f"  - real: `{json.dumps(r['real'])}`")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--first", type=int, default=0, help="start at scenario N of each protocol's draw")
    ap.add_argument("--budget-s", type=float, default=1800)
    ap.add_argument("--protocols", default="classic,streams")
    ap.add_argument("--jsonl", default=str(HERE / "streams_peer_runs.jsonl"))
    ap.add_argument("--report", default=str(HERE / "streams_peer_results.md"))
    ap.add_argument("--note", default="")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--resimulate", action="store_true",
                    help="judge the recorded real runs against the simulator as it is now")
    args = ap.parse_args()
    jsonl = Path(args.jsonl)
    if not args.report_only:
        from rebalance.kafka.cluster import KafkaCluster
        from rebalance.kafka.streams.simulate import run_streams_scenario, streams_broker_config
        from rebalance.streams.simulate import parse_streams_scenario, simulate_streams

        began = time.monotonic()
        for protocol in args.protocols.split(","):
            scenarios = draw(args.first + args.n, args.seed, protocol)[args.first:]
            broker = streams_broker_config(parse_streams_scenario(scenarios[0]))
            with KafkaCluster(brokers=1, broker_config=broker) as cluster:
                for s in scenarios:
                    if time.monotonic() - began > args.budget_s:
                        break
                    model = simulate_streams(s)
                    try:
                        real = run_streams_scenario(s, cluster=cluster)
                        row = compare(s, model, real)
                    except Exception as exc:  # a run that failed is reported, not hidden
                        row = {"id": s["id"], "protocol": protocol, "error": f"{type(exc).__name__}: {exc}"}
                    row["wall_s"] = round(time.monotonic() - began, 1)
                    with jsonl.open("a", encoding="utf-8") as f:
                        f.write(json.dumps(row) + "\n")
                    print(json.dumps({k: row.get(k) for k in ("id", "agree", "classes", "error")}), flush=True)
    recorded = [json.loads(t) for t in jsonl.read_text().splitlines() if t.strip()] if jsonl.exists() else []
    latest = {r["id"]: r for r in recorded}  # a scenario run again: its latest run counts
    rows = list(latest.values())
    if args.resimulate:
        scenarios = {s["id"]: s for p in ("classic", "streams")
                     for s in draw(1 + max((int(r["id"].rsplit("-", 1)[1]) for r in rows), default=0), args.seed, p)}
        rows = [resimulate(r, scenarios[r["id"]]) if "error" not in r else r for r in rows]
    report(rows, Path(args.report), {"date": time.strftime("%Y-%m-%d"), "note": args.note,
                                     "superseded": len(recorded) - len(rows)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
