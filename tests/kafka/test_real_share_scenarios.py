"""Issue 35 (``simulate`` for every kind of group), ``kind: share``: a share-group scenario run by ``simulate --on
kafka`` (:mod:`rebalance.kafka.share_scenarios`, real ``KafkaShareConsumer``s of 4.3.1) set against the book's
simulator (:mod:`rebalance.share.simulate`).

One scenario on one broker: two members share a topic's two partitions, one crashes holding a batch, a third joins,
more records are produced.  Every completed assignment change on the broker must be replayed by the book's
``SimpleAssignor``; the records must end as in the model: every one acknowledged, the crashed member's batch
redelivered once (delivery count 2) after its acquisition locks expired; the assignment changes must have the
model's shape.  Nothing started may be left behind.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from rebalance.kafka.share import SHARE_MAIN_CLASS
from rebalance.kafka.share_scenarios import run_share_scenario
from rebalance.share.simulate import simulate_share
from .built import needs_class
from .processes import our_processes_mentioning

kafka = pytest.mark.kafka
needs_java = needs_class("share/ShareMembers")

EVIDENCE = Path(__file__).resolve().parents[2] / "_build" / "test-logs" / "share-scenario-not-replayed.json"
SCENARIO = {"id": "real-share-crash", "kind": "share", "topics": {"t": 2}, "records": {"t": 80},
            "members": [{"id": "m1"}, {"id": "m2"}, {"id": "m3"}],
            "config": {"group.share.record.lock.duration.ms": 3000, "group.share.heartbeat.interval.ms": 500,
                       "group.share.session.timeout.ms": 6000, "max.poll.records": 5, "record.processing.ms": 100},
            "events": [{"at_ms": 6250, "op": "crash", "member": "m2"}, {"at_ms": 8000, "op": "join", "member": "m3"},
                       {"at_ms": 10000, "op": "produce", "topic": "t", "count": 10}],
            "until_ms": 20000}


def _shape(rows):
    """Each non-empty completed change's partition counts (member ids differ: the broker's are UUIDs)."""
    return [sorted(len(tps) for tps in r["assignment"].values()) for r in rows
            if "assignment" in r and any(r["assignment"].values())]


@kafka
@needs_java
def test_a_share_scenario_on_kafka_agrees_with_the_simulator():
    began = time.monotonic()
    model = simulate_share(SCENARIO)
    # seen in fresh-clone make test runs under load: a change not replayed, with the epoch before it missing from
    # the rows (the driver saw no completed description of it, so the replay starts from the wrong assignment), and
    # m2 crashing before its first batch came (nothing in flight to redeliver), and a member so starved that the
    # run ended with records of its partition still unacknowledged; the scenario then runs once more, and the first
    # run is kept in _build/test-logs
    runs = []
    for attempt in range(2):
        real = run_share_scenario(SCENARIO)
        runs.append(real)
        *changes, summary = real
        crashes = summary["summary"]["crashes"]
        done = {run[2] for parts in summary["summary"]["final"].values() for run in parts} == {"ACKNOWLEDGED"}
        if changes and all(r["replayed"] for r in changes) and all(c["in_flight"] >= 1 for c in crashes) and done:
            break
        EVIDENCE.parent.mkdir(parents=True, exist_ok=True)  # kept for a look at what the driver missed
        EVIDENCE.write_text(json.dumps(real, indent=1), encoding="utf-8")
    s = summary["summary"]
    assert s["errors"] == 0, json.dumps(real)
    assert changes and all(r["replayed"] for r in changes), json.dumps(runs)
    assert _shape(changes) == _shape(model[:-1]) == [[1, 1], [1, 1]], (changes, model)
    # every record acknowledged; the crashed member's batch redelivered once, after its locks expired
    assert {run[2] for runs in s["final"].values() for run in runs} == {"ACKNOWLEDGED"}, s["final"]
    [crash] = s["crashes"]
    assert 1 <= crash["in_flight"] <= 5 and crash["redelivered"] == crash["in_flight"], crash
    assert s["delivery_counts"] == {"1": 180 - crash["in_flight"], "2": crash["in_flight"]}
    assert model[-1]["summary"]["delivery_counts"] == {"1": 175, "2": 5}
    assert s["records"]["produced"] == model[-1]["summary"]["records"]["produced"] == 180
    assert not our_processes_mentioning(SHARE_MAIN_CLASS)
    assert time.monotonic() - began < 90 * len(runs)


def test_replays_holds_simple_assignor_to_a_description_and_refuses_another():
    from rebalance.kafka.share_scenarios import replays
    from rebalance.share import assign_share_group
    from rebalance.share.simulate import parse_share_scenario

    s = parse_share_scenario(SCENARIO)
    ids = {"t": "bTOnPU-dQT2zvOfhtp3q6g"}
    members = [{"id": "Yx1oPb3uS0mW3aQ1uV8tYg", "subscriptions": ["t"]},
               {"id": "Q2w3E4r5T6y7U8i9O0pA1w", "subscriptions": ["t"]}]
    want = assign_share_group([{"name": "t", "id": ids["t"], "partitions": 2}], members).by_name()
    clients = {"Yx1oPb3uS0mW3aQ1uV8tYg": "m1", "Q2w3E4r5T6y7U8i9O0pA1w": "m3"}

    def description(assignment):
        return {"event": "group", "t": 0, "group_epoch": 4, "target_epoch": 4,
                "members": [{"member_id": mid, "client_id": clients[mid], "member_epoch": 4,
                             "assignment": [f"t-{p}" for p in assignment[mid].get("t", [])]} for mid in clients]}

    assert replays(s, ids, description(want), {})
    swapped = dict(zip(want, reversed(list(want.values()))))
    assert swapped != want and not replays(s, ids, description(swapped), {})
