"""Peer conformance of ``simulate`` against the real broker: random scenarios run through the simulator
(:func:`rebalance.simulate.simulate_scenario`) and through ``simulate --on kafka``
(:func:`rebalance.kafka.consumers.run_scenario`: real Kafka 4.3.1 ``KafkaConsumer``s on a one-broker cluster).

Default: 30 scenarios drawn with the seed, cycling through eager (range, roundrobin, sticky), cooperative
(cooperative-sticky) and consumer/KIP-848 (uniform, range): 1-2 topics of 2-8 partitions, 2-4 members (some
subscribing to one topic of two), a third of the groups static (``instance_id``), and 2 events (``join`` of a
late member, ``leave``, ``crash``, ``restart``) 8 to 15 s apart, the first at 10-12 s; session timeout 6 s,
heartbeat 1 s; the classic members' ``poll()`` lasts 100 ms (``poll_timeout_ms``: the driver's
``poll(Duration.ofMillis(100))`` on empty topics, :func:`with_driver_poll`).  Events are spaced beyond a rebalance, as the agreement standard asks: classic groups form with
Kafka's default ``group.initial.rebalance.delay.ms`` (3 s), so every member starting at 0 is in the first
generation on both sides; a ``restart``'s new process starts 3 s (``down_ms``) after the old one has closed, as
a real process's restart takes seconds.  ``measure_from_ms`` is 2 s before the first event.

The standard (issues 24 and 35): the same ``rebalances``, the same assignment per generation after
``measure_from_ms`` and ``moved_partitions`` as the simulator's run or, where Kafka breaks a tie by random member
ids, as one of its member-id draws' (:func:`among_alternatives`), and each rebalance's ``at_ms`` within a
heartbeat interval plus a poll of that run's; for KIP-848 also every real target assignment replayed exactly by
the book's assignor.  Per scenario it also records the final assignment and
whether every real rebalance was ``replayed: true``.

Results are appended, one JSON line per scenario, to ``--jsonl`` (so a run cut short keeps what it did), the
real runs' raw records to ``--records``; ``--report`` writes the Markdown summary from the JSON lines.

    python benchmarks/bench_kafka_peer.py [--n 30] [--seed 0] [--parallel 1] [--budget-s 1800]
    python benchmarks/bench_kafka_peer.py --report-only [--resimulate]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from rebalance.kafka.consumers import DRIVER_POLL_MS

HERE = Path(__file__).resolve().parent

KINDS = [("eager", "range"), ("eager", "roundrobin"), ("eager", "sticky"), ("cooperative", "cooperative-sticky"),
         ("consumer", "uniform"), ("consumer", "range")]


#: Kafka's default ``group.initial.rebalance.delay.ms``: every member that starts at 0 is in the first generation
INITIAL_DELAY_MS = 3000
#: a restarted process's new instance starts this long after the old one closed
RESTART_DOWN_MS = 3000


def draw(n: int, seed: int) -> List[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        protocol, assignor = KINDS[i % len(KINDS)]
        topics = {"t": rng.randint(2, 8)}
        if rng.random() < 0.4:
            topics["u"] = rng.randint(2, 6)
        size = rng.randint(2, 4)
        static = rng.random() < 0.34
        members = []
        for k in range(1, size + 1):
            m: Dict[str, Any] = {"id": f"c{k}"}
            if len(topics) > 1 and rng.random() < 0.3:
                m["topics"] = [rng.choice(sorted(topics))]
            if static:
                m["instance_id"] = f"i{k}"
            members.append(m)
        late = members[-1]["id"] if rng.random() < 0.4 else None  # joins at the first event
        running = [m["id"] for m in members if m["id"] != late]
        events = []
        t = rng.randint(10000, 12000)
        if late:
            events.append({"at_ms": t, "op": "join", "member": late})
            running.append(late)
            t += rng.randint(8000, 15000)
        while len(events) < 2:
            op = rng.choice(["leave", "crash", "restart"] if len(running) > 1 else ["restart"])
            who = rng.choice(running)
            events.append({"at_ms": t, "op": op, "member": who, **({"down_ms": RESTART_DOWN_MS} if op == "restart" else {})})
            if op in ("leave", "crash"):
                running.remove(who)
            t += rng.randint(8000, 15000)
        last = events[-1]["at_ms"]
        if protocol == "consumer":
            config: Dict[str, Any] = {"session_timeout_ms": 6000, "heartbeat_interval_ms": 1000}
        else:
            config = {"session_timeout_ms": 6000, "heartbeat_interval_ms": 1000, "initial_rebalance_delay_ms": INITIAL_DELAY_MS,
                      **DRIVER_POLL}
        out.append({"id": (f"s{i:03d}" if seed == 0 else f"s{seed}.{i:03d}") + f"-{protocol}-{assignor}", "protocol": protocol, "assignor": assignor,
                    "topics": topics, "members": members, "config": config, "events": events,
                    "until_ms": last + 13000, "measure_from_ms": events[0]["at_ms"] - 2000})
    return out


#: the draw's classic members call ``poll(Duration.ofMillis(100))`` on empty topics, and are simulated with that
#: poll (``ProtocolConfig.poll_timeout_ms``); a recorded run without ``poll_timeout_ms`` is read with it too (before
#: 2026-11-30 the driver polled 100 ms whatever the scenario said; since then it plays the scenario's value,
#: ``rebalance.kafka.consumers.driver_poll_ms``, and ``--poll-timeout-ms 0`` runs the draw with the default)
DRIVER_POLL = {"poll_timeout_ms": DRIVER_POLL_MS}


def with_driver_poll(scenario: dict) -> dict:
    """``scenario`` with the driver's poll in its config (classic groups; KIP-848 members poll in the background)."""
    if scenario["protocol"] == "consumer" or "poll_timeout_ms" in (scenario.get("config") or {}):
        return scenario
    return dict(scenario, config={**(scenario.get("config") or {}), **DRIVER_POLL})


def simulated(scenario: dict) -> dict:
    from rebalance.simulate import simulate_scenario

    out = simulate_scenario(with_driver_poll(scenario))
    return {"rebalances": [{"generation": r.generation, "at_ms": r.at_ms, "assignment": r.assignment}
                           for r in out.rebalances], "summary": out.summary()}


def real(scenario: dict) -> dict:
    from rebalance.kafka.consumers import run_scenario

    rows = run_scenario(scenario)
    return {"rebalances": [r for r in rows if "summary" not in r], "summary": rows[-1]["summary"]}


#: "a poll": the poll loop's turn when the scenario sets no processing time (the driver's ``poll(100 ms)`` plus
#: the member's scheduling on a loaded machine)
POLL_MS = 500


#: member-id draws per scenario for :func:`among_alternatives`
ALTERNATIVE_DRAWS = 256
#: the draw that gave each recorded real run, as the last report found it (a test re-runs just that draw)
DRAWS_FILE = HERE / "kafka_peer_draws.json"


def among_alternatives(scenario: dict, real_after: List[dict], real_moved: int,
                       hint: Optional[int] = None) -> Optional[Tuple[int, List[int]]]:
    """Which of the simulator's member-id draws (:func:`rebalance.simulate.simulate_draw`; ``simulate
    --alternatives``) has the real run's rebalances after ``measure_from_ms`` and as many moved partitions: 0 for
    the simulator's own run, ``k + 1`` for the draw of seed ``k`` (``hint``, such a number, is tried first), with
    that draw's ``at_ms`` of those rebalances; ``None`` if none of :data:`ALTERNATIVE_DRAWS` has."""
    from rebalance.simulate import moved_partitions, parse_scenario, simulate_draw

    since = scenario["measure_from_ms"]
    want = [r["assignment"] for r in real_after]
    s = parse_scenario(with_driver_poll(scenario))
    order = ([hint] if hint is not None else []) + [k for k in range(ALTERNATIVE_DRAWS + 1) if k != hint]
    for k in order:
        seq = simulate_draw(s, None if k == 0 else k - 1)
        after = [r for r in seq if r.at_ms >= since]
        if [r.assignment for r in after] == want and moved_partitions(seq, since) == real_moved:
            return k, [r.at_ms for r in after]
    return None


def compare(scenario: dict, sim: dict, kafka: dict, hint: Optional[int] = None) -> dict:
    """The standard for one scenario: the same rebalances, and the real assignments after ``measure_from_ms``
    and moved partitions the simulator's own or one of its member-id draws' (a tie Kafka breaks by random ids),
    each real rebalance's ``at_ms`` within :data:`POLL_MS` plus a heartbeat interval of that draw's (the
    simulator's own run's when no draw has the real assignments)."""
    since = scenario["measure_from_ms"]
    s_after = [r for r in sim["rebalances"] if r["at_ms"] >= since]
    k_after = [r for r in kafka["rebalances"] if r["at_ms"] >= since]
    s_final = sim["rebalances"][-1]["assignment"] if sim["rebalances"] else {}
    k_final = kafka["rebalances"][-1]["assignment"] if kafka["rebalances"] else {}
    same_count = sim["summary"]["rebalances"] == kafka["summary"]["rebalances"]
    seq = None
    if len(s_after) == len(k_after):
        seq = all(a["assignment"] == b["assignment"] for a, b in zip(s_after, k_after))
    s_before = [r for r in sim["rebalances"] if r["at_ms"] < since]
    k_before = [r for r in kafka["rebalances"] if r["at_ms"] < since]
    same_start = (s_before[-1]["assignment"] if s_before else {}) == (k_before[-1]["assignment"] if k_before else {})
    shape = lambda a: sorted(len(v) for v in a.values())  # noqa: E731
    sizes = lambda a: {m: len(v) for m, v in a.items()}  # noqa: E731
    cfg = scenario.get("config", {})
    tolerance = cfg.get("heartbeat_interval_ms", 3000) + max(cfg.get("poll_processing_ms", 0), POLL_MS)
    same_moved = sim["summary"]["moved_partitions"] == kafka["summary"]["moved_partitions"]
    replayed = all(r.get("replayed") for r in kafka["rebalances"])
    found = among_alternatives(scenario, k_after, kafka["summary"]["moved_partitions"], hint)
    alternative = None if found is None else found[0]
    timed = found[1] if found is not None else [r["at_ms"] for r in s_after]
    dts = [b["at_ms"] - a for a, b in zip(timed, k_after)] if len(timed) == len(k_after) else []
    within = len(timed) == len(k_after) and all(abs(d) <= tolerance for d in dts)
    tie_ok = (seq is True and same_moved) or alternative is not None
    if scenario["protocol"] == "consumer":
        same_counts = len(s_after) == len(k_after) and all(
            sorted(sizes(a["assignment"]).values()) == sorted(sizes(b["assignment"]).values())
            for a, b in zip(s_after, k_after))
        # a draw's counts are the real ones
        standard = same_count and replayed and alternative is not None and within
    else:
        same_counts = None
        standard = same_count and tie_ok and within
    return {"standard": standard, "within_tolerance": within, "tolerance_ms": tolerance,
            "same_counts_848": same_counts,
            "same_rebalances": same_count, "same_start": same_start,
            "same_final_shape": shape(s_final) == shape(k_final),
            "sim_formation": len(s_before), "kafka_formation": len(k_before), "sim_rebalances": sim["summary"]["rebalances"],
            "kafka_rebalances": kafka["summary"]["rebalances"],
            "same_moved": same_moved,
            "sim_moved": sim["summary"]["moved_partitions"], "kafka_moved": kafka["summary"]["moved_partitions"],
            "same_final": s_final == k_final, "same_sequence": seq, "at_ms_diffs": dts, "timed_sim_at_ms": timed,
            "all_replayed": replayed, "alternative": alternative,
            "kafka_errors": kafka["summary"].get("errors", [])}


def run_one(scenario: dict, records: str, lock: threading.Lock, jsonl: str) -> dict:
    t0 = time.monotonic()
    sim = simulated(scenario)
    t1 = time.monotonic()
    os.environ["REBALANCE_KAFKA_RECORDS"] = records  # appended per scenario, each record names its scenario
    try:
        kafka = real(scenario)
        failure = None
    except Exception as exc:  # a run that could not finish is reported, the others go on
        kafka, failure = None, f"{type(exc).__name__}: {exc}"
    t2 = time.monotonic()
    row = {"id": scenario["id"], "scenario": scenario, "sim": sim, "kafka": kafka, "failure": failure,
           "sim_seconds": round(t1 - t0, 2), "kafka_seconds": round(t2 - t1, 2),
           "load": os.getloadavg()[0]}
    if kafka is not None:
        row["compare"] = compare(scenario, sim, kafka)
    with lock:
        with open(jsonl, "a", encoding="utf-8") as f:
            f.write(json.dumps(row, sort_keys=True) + "\n")
    c = row.get("compare", {})
    print(f"{scenario['id']:32} {row['kafka_seconds']:6.1f} s  rebalances sim={c.get('sim_rebalances')} "
          f"kafka={c.get('kafka_rebalances')} moved sim={c.get('sim_moved')} kafka={c.get('kafka_moved')} "
          f"final={c.get('same_final')} replayed={c.get('all_replayed')} {failure or ''}", flush=True)
    return row


def rereplay(rows: List[dict], records: str) -> None:
    """Each KIP-848 scenario's real rebalances' ``replayed`` anew, from its records (the observer's descriptions)
    through :func:`rebalance.kafka.consumer_records.kip848_rebalances` as it is now."""
    import gzip

    from rebalance.kafka.consumer_records import ConsumerRun, kip848_rebalances
    from rebalance.simulate import parse_scenario

    by_scenario: Dict[str, List[dict]] = defaultdict(list)
    with (gzip.open(records, "rt") if records.endswith(".gz") else open(records)) as f:
        for line in f:
            rec = json.loads(line)
            by_scenario[rec.get("scenario", "")].append(rec)
    for r in rows:
        if r["scenario"]["protocol"] != "consumer" or not r.get("kafka"):
            continue
        got = {c.generation: ok for c, ok in kip848_rebalances(ConsumerRun(records={0: by_scenario[r["id"]]}),
                                                                  parse_scenario(r["scenario"]))}
        for x in r["kafka"]["rebalances"]:
            x["replayed"] = got.get(x["generation"], x["replayed"])


def table(rows: List[dict]) -> List[str]:
    groups: Dict[tuple, List[dict]] = defaultdict(list)
    for r in rows:
        s = r["scenario"]
        groups[(s["protocol"], s["assignor"])].append(r)
    lines = ["| protocol | assignor | scenarios | run failed | **meets the standard** | same rebalances count | "
             "same final assignment | same moved | same assignment sequence | all replayed | "
             "same assignment at measure_from | same final sizes | at_ms within tolerance |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    total = defaultdict(int)
    for (p, a) in [k for k in KINDS if k in groups]:
        rs = groups[(p, a)]
        ok = [r for r in rs if r.get("compare")]
        cells = [len(rs), len(rs) - len(ok), sum(r["compare"]["standard"] for r in ok),
                 sum(r["compare"]["same_rebalances"] for r in ok),
                 sum(r["compare"]["same_final"] for r in ok), sum(r["compare"]["same_moved"] for r in ok),
                 sum(r["compare"]["same_sequence"] is True for r in ok), sum(r["compare"]["all_replayed"] for r in ok),
                 sum(r["compare"]["same_start"] for r in ok), sum(r["compare"]["same_final_shape"] for r in ok),
                 sum(r["compare"]["within_tolerance"] for r in ok)]
        for k, v in enumerate(cells):
            total[k] += v
        lines.append(f"| {p} | {a} | " + " | ".join(str(c) for c in cells) + " |")
    lines.append("| **all** | | " + " | ".join(str(total[k]) for k in range(len(total))) + " |")
    return lines


def show(rebalances: List[dict], since: int) -> str:
    return "; ".join(f"{'*' if r['at_ms'] >= since else ''}g{r['generation']}@{r['at_ms']} "
                     + json.dumps(r["assignment"], separators=(",", ":"))
                     + ("" if r.get("replayed", True) else " NOT replayed") for r in rebalances)


CLASSES = {
    "A": "the group formed differently before `measure_from_ms` (the assignment there differs), and a sticky "
         "assignor carries the difference into later assignments",
    "R": "a real rebalance the book's assignor did not reproduce from the real inputs (`replayed: false`)",
    "C": "a different count of completed rebalances after `measure_from_ms` (see each scenario's cause below)",
    "D": "the same count, a different assignment after `measure_from_ms`: a tie broken differently.  Classic: "
         "Kafka's leader builds the assignor's subscriptions in a `HashMap` keyed by member id "
         "(`ConsumerCoordinator.onLeaderElected`), so which of several equally loaded members gives up a "
         "partition follows the hash of random ids (`c1-<uuid>`); KIP-848: member ids are random UUIDs and the "
         "server-side assignors order members by them, so which named member gets which partitions (with "
         "mixed subscriptions, even how many) varies from run to run.  Every such real assignment is still "
         "replayed exactly by the book's assignor from the real inputs (no class R).  A scenario is in class D only "
         "when the real run is none of the simulator's member-id draws (`simulate --alternatives 256`, "
         "`rebalance.simulate.simulate_alternatives`: the same assignments after `measure_from_ms` and as many "
         "moved partitions); when it is one, the tie is predicted and the scenario meets the standard on it",
    "T": "the same assignments (the simulator's or one of its member-id draws'), rebalances and moved partitions, but some rebalance's `at_ms` beyond a "
         "heartbeat interval plus a poll of that run's (the draw with the real assignments, else the simulator's own)",
}


def classes(r: dict) -> List[str]:
    """The disagreement classes (:data:`CLASSES`) a scenario's comparison shows."""
    c = r["compare"]
    out = []
    if not c["same_start"] and r["scenario"]["protocol"] != "consumer":
        out.append("A")
    if not c["all_replayed"]:
        out.append("R")
    if not c["same_rebalances"]:
        out.append("C")
    elif (c.get("same_counts_848") is False or not c["same_final"] or c["same_sequence"] is False
          or not c["same_moved"]) and c.get("alternative") is None:
        out.append("D")
    elif not c["within_tolerance"]:
        out.append("T")
    return out


def report(rows: List[dict], path: Path, meta: dict) -> None:
    for r in rows:
        if r.get("kafka") and not r.get("compare"):
            r["compare"] = compare(r["scenario"], r["sim"], r["kafka"])
    ok = [r for r in rows if r.get("compare")]
    dts = [d for r in ok for d in r["compare"]["at_ms_diffs"]]
    secs = [r["kafka_seconds"] for r in rows]
    out = [f"# `simulate` against `simulate --on kafka` (Kafka 4.3.1, one broker)", "",
           f"Run {meta['date']}: N = {len(rows)} scenarios (seeds {meta['seed']}), {meta['parallel']} at a time on "
           f"{os.cpu_count()} cores shared with other jobs; load average {meta['load_start']} at the start(s), "
           f"{min(r['load'] for r in rows):.1f} to {max(r['load'] for r in rows):.1f} at the scenarios' ends. "
           f"Produced by `python benchmarks/bench_kafka_peer.py` (the draw is in its docstring).", "",
           *table(rows), "",
           f"A real run takes {statistics.median(secs):.0f} s (median; {min(secs):.0f} to {max(secs):.0f} s) for "
           f"scenarios of {statistics.median(r['scenario']['until_ms'] for r in rows) / 1000:.0f} s (median "
           f"`until_ms`); the simulator takes {statistics.median(r['sim_seconds'] for r in rows):.2f} s. "
           f"Wall clock for the whole run: {meta['wall_s']:.0f} s.", ""]
    drawn = [r for r in ok if r["compare"].get("alternative") is not None]
    out += [f"The real run is one of the simulator's member-id draws (`simulate --alternatives 256`: the same "
            f"assignments after `measure_from_ms`, as many moved partitions) in {len(drawn)} of {len(ok)} scenarios: "
            f"{sum(1 for r in drawn if r['compare']['alternative'] == 0)} the simulator's own run, "
            f"{sum(1 for r in drawn if r['compare']['alternative'] > 0)} another draw (a tie the real ids broke "
            f"otherwise; which draw, in `kafka_peer_draws.json`).", ""]
    if dts:
        out += [f"at_ms, broker minus simulator, over the {len(dts)} rebalances after `measure_from_ms` of scenarios "
                f"with as many on both sides: median {statistics.median(dts):+.0f} ms, min {min(dts):+d}, max "
                f"{max(dts):+d}.", ""]
    by_op: Dict[str, List[int]] = defaultdict(list)
    for r in ok:
        for at, d in zip(r["compare"]["timed_sim_at_ms"], r["compare"]["at_ms_diffs"]):
            before = [e for e in r["scenario"]["events"] if e["at_ms"] <= at]
            if before:
                kind = before[-1]["op"] + (" static" if any(m["id"] == before[-1]["member"] and m.get("instance_id")
                                                            for m in r["scenario"]["members"]) else "")
                by_op[f"{r['scenario']['protocol'] if r['scenario']['protocol'] == 'consumer' else 'classic'} "
                      f"{kind}"].append(d)
    if by_op:
        out += ["By the event each simulated rebalance follows (broker minus simulator, ms):", "",
                "| protocol, event | rebalances | median | min | max |", "|---|---|---|---|---|"]
        for k in sorted(by_op):
            v = by_op[k]
            out.append(f"| {k} | {len(v)} | {statistics.median(v):+.0f} | {min(v):+d} | {max(v):+d} |")
        out.append("")
    late = [r for r in ok if not r["compare"]["within_tolerance"]]
    if ok:
        loads = sorted(r["load"] for r in ok)
        mid = loads[len(loads) // 2]
        low = [r for r in ok if r["load"] < mid]
        high = [r for r in ok if r["load"] >= mid]
        out += [f"at_ms beyond the tolerance (a heartbeat interval plus a {POLL_MS} ms poll) in {len(late)} of "
                f"{len(ok)} scenarios: {sum(1 for r in low if r in late)} of the {len(low)} that ended at a load "
                f"average below the median ({mid:.1f}), {sum(1 for r in high if r in late)} of the {len(high)} at "
                f"or above it.", ""]
    early = [(r["id"], d) for r in ok for d in r["compare"]["at_ms_diffs"] if d < -1500]
    if early:
        kinds = sorted({f"{r['scenario']['protocol']} {r['scenario']['assignor']}" for r in ok
                        if any(i == r["id"] for i, _ in early)})
        out += [f"Rebalances the broker completed more than 1.5 s before the simulator: {len(early)}, in groups of "
                f"{', '.join(kinds)} ({', '.join(f'{i} {d:+d} ms' for i, d in early)}).", ""]
    counts = defaultdict(int)
    for r in ok:
        for t in classes(r):
            counts[t] += 1
    by_kind = defaultdict(int)
    for r in ok:
        if "D" in classes(r):
            by_kind[f"{r['scenario']['protocol']} {r['scenario']['assignor']}"] += 1
    out += ["## Classes of disagreement", ""]
    out += [f"- **{k}** ({counts[k]} scenarios): {v}" for k, v in CLASSES.items()]
    if by_kind:
        out += ["", "Class D by group kind: " + ", ".join(f"{k} {v}" for k, v in sorted(by_kind.items())) + "."]
    out += ["", f"Scenarios in no class (every check of the standard met): "
                f"{sum(1 for r in ok if not classes(r))} of {len(ok)}."]
    for note in meta.get("notes", []):
        out += ["", note]
    out.append("")
    out += ["## Disagreements", "", "Rebalances as `gN@at_ms {assignment}`, `*` after `measure_from_ms`.", ""]
    for r in rows:
        c = r.get("compare")
        s = r["scenario"]
        if c and c["same_rebalances"] and c["same_final"] and c["same_moved"] and c["all_replayed"] \
                and c["same_sequence"] is not False and not classes(r):
            continue
        out.append(f"### {r['id']}")
        out.append("")
        out.append("```json")
        out.append(json.dumps(s, separators=(",", ":")))
        out.append("```")
        out.append("")
        if r.get("failure"):
            out.append(f"- the real run failed: {r['failure']}")
        else:
            out.append(f"- simulator: {show(r['sim']['rebalances'], s['measure_from_ms'])}")
            out.append(f"- broker: {show(r['kafka']['rebalances'], s['measure_from_ms'])}")
            out.append(f"- rebalances {c['sim_rebalances']} vs {c['kafka_rebalances']}, moved {c['sim_moved']} vs "
                       f"{c['kafka_moved']}, same assignment at measure_from {c['same_start']} (formation: "
                       f"{c['sim_formation']} rebalance(s) simulated, {c['kafka_formation']} on the broker), final {'same' if c['same_final'] else 'different'}, all replayed "
                       f"{c['all_replayed']}" + (f", errors {c['kafka_errors']}" if c["kafka_errors"] else ""))
            if c.get("alternative"):
                out.append(f"- the real assignments are member-id draw {c['alternative'] - 1}'s (`simulate_draw`), "
                           f"whose rebalances after `measure_from_ms` complete at "
                           f"{', '.join(str(a) for a in c['timed_sim_at_ms'])} ms (broker minus draw: "
                           f"{', '.join(f'{d:+d}' for d in c['at_ms_diffs'])} ms)")
        if c:
            tags = classes(r)
            out.append(f"- classes: {', '.join(tags) if tags else 'none: the standard is met'}")
        cause = meta.get("causes", {}).get(r["id"])
        if cause:
            out.append(f"- cause: {cause}")
        out.append("")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def _runs(jsonl: str) -> List[dict]:
    """The runs appended to ``jsonl`` so far (seed, date, load at the start, wall clock), from ``jsonl.meta``."""
    try:
        got = json.loads(Path(jsonl + ".meta").read_text())
    except FileNotFoundError:
        return []
    return got if isinstance(got, list) else [got]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--parallel", type=int, default=1)
    parser.add_argument("--budget-s", type=float, default=1e9, help="start no scenario after this many seconds")
    parser.add_argument("--jsonl", default=str(HERE / "kafka_peer_runs.jsonl"))
    parser.add_argument("--records", default="/tmp/kafka_peer_records.jsonl")
    parser.add_argument("--report", default=str(HERE / "kafka_peer_results.md"))
    parser.add_argument("--causes", help="JSON file: scenario id -> cause, written into the report")
    parser.add_argument("--draws", default=str(DRAWS_FILE),
                        help="JSON file: scenario id -> the member-id draw that gave the real run (read as hints, "
                             "written anew)")
    parser.add_argument("--rereplay", metavar="RECORDS",
                        help="with --report-only: replay each KIP-848 group's real targets again from the run's records "
                             "(the --records file, or its .gz) with the replay as it is now, e.g. after it changed")
    parser.add_argument("--only", default="", help="comma-separated scenario ids of the draw: run just those")
    parser.add_argument("--poll-timeout-ms", type=int,
                        help="the classic scenarios' poll_timeout_ms instead of the driver's idle 100 ms (0: a "
                             "member that owns partitions polls with poll(0), returning at once, as the simulator's "
                             "default member does); write the run to its own --jsonl, --report and --draws")
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--resimulate", action="store_true",
                        help="with --report-only: run each stored scenario through the simulator as it is now (the "
                             "real runs stay as recorded), e.g. after the simulator changed")
    args = parser.parse_args()
    meta = {"date": time.strftime("%Y-%m-%d"), "seed": args.seed, "parallel": args.parallel,
            "load_start": f"{os.getloadavg()[0]:.1f}", "wall_s": 0.0}
    if args.causes:
        got = json.loads(Path(args.causes).read_text())
        meta["causes"], meta["notes"] = got.get("causes", {}), got.get("notes", [])
    if not args.report_only:
        start = time.monotonic()
        lock = threading.Lock()
        scenarios = draw(args.n, args.seed)
        if args.poll_timeout_ms is not None:
            scenarios = [s if s["protocol"] == "consumer" else
                         dict(s, config={**s["config"], "poll_timeout_ms": args.poll_timeout_ms}) for s in scenarios]
        if args.only:
            wanted = set(args.only.split(","))
            scenarios = [s for s in scenarios if s["id"] in wanted]

        def task(s: dict) -> Optional[dict]:
            if time.monotonic() - start > args.budget_s:
                return None
            return run_one(s, args.records, lock, args.jsonl)

        with ThreadPoolExecutor(max_workers=args.parallel) as pool:
            list(pool.map(task, scenarios))
        meta["wall_s"] = time.monotonic() - start
        runs = _runs(args.jsonl)
        runs.append({k: v for k, v in meta.items() if k != "causes"})
        Path(args.jsonl + ".meta").write_text(json.dumps(runs))
    runs = _runs(args.jsonl) or [meta]
    meta.update({"seed": ", ".join(str(r["seed"]) for r in runs), "wall_s": sum(r["wall_s"] for r in runs),
                 "load_start": ", ".join(r["load_start"] for r in runs), "date": runs[-1]["date"],
                 "parallel": runs[-1]["parallel"]})
    rows = [json.loads(line) for line in open(args.jsonl, encoding="utf-8")]
    hints = json.loads(Path(args.draws).read_text()) if Path(args.draws).exists() else {}
    if args.rereplay:
        rereplay(rows, args.rereplay)
    for r in rows:
        if args.resimulate:
            r["sim"] = simulated(r["scenario"])
        if r.get("kafka"):
            r["compare"] = compare(r["scenario"], r["sim"], r["kafka"], hints.get(r["id"]))
    Path(args.draws).write_text(json.dumps({r["id"]: r["compare"]["alternative"] for r in rows if r.get("compare")},
                                           indent=0) + "\n")
    print("\n".join(table(rows)))
    report(rows, Path(args.report), meta)
    print(f"wrote {args.report}")


if __name__ == "__main__":
    main()
