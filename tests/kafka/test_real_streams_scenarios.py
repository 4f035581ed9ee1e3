"""Issue 35 (``simulate`` for every kind of group), ``kind: streams``: a Kafka Streams scenario run by ``simulate --on
kafka`` (:mod:`rebalance.kafka.streams.simulate`, real ``KafkaStreams`` instances of 4.3.1 with the classic group
protocol) set against the book's simulator (:mod:`rebalance.streams.simulate`).

One scenario on one broker: two instances count 2000 records over four partitions, a third joins (warm-ups, a
probing rebalance scheduled), one of the first two crashes 11 s later (its session times out 6 s after).  Both sides use the
same process ids (the driver writes them into the state directories), so the assignments compare exactly: every
rebalance the leader logged must be replayed by the book's ``HighAvailabilityTaskAssignor``, and the rebalances must
be the simulator's, assignment, warm-ups and follow-up alike (their times only roughly: a real instance's join
took 3.5 s under a load average of 37).  Nothing started may be
left behind.
"""
from __future__ import annotations

import time

import pytest

from rebalance.kafka.streams.instances import MAIN_CLASS
from rebalance.kafka.streams.simulate import run_streams_scenario
from rebalance.streams.simulate import simulate_streams
from .built import needs_class
from .processes import our_processes_mentioning

kafka = pytest.mark.kafka
needs_java = needs_class("streams/StreamsInstances")

SCENARIO = {"id": "real-streams", "kind": "streams", "topics": {"words": 4}, "records": 2000, "keys": 200,
            "members": [{"id": "i1"}, {"id": "i2"}, {"id": "i3"}],
            "config": {"acceptable.recovery.lag": 100, "max.warmup.replicas": 2, "probing.rebalance.interval.ms": 60000,
                       "session.timeout.ms": 6000, "heartbeat.interval.ms": 1000},
            "events": [{"at_ms": 3000, "op": "join", "member": "i3"}, {"at_ms": 14000, "op": "crash", "member": "i1"}],
            "until_ms": 26000}
SAME = ("assignment", "warmups", "followup", "moved", "probing")


@kafka
@needs_java
def test_a_streams_scenario_on_kafka_agrees_with_the_simulator():
    began = time.monotonic()
    *model, model_summary = simulate_streams(SCENARIO)

    def same_lines(real):
        return [{k: r[k] for k in SAME} for r in real] == [{k: r[k] for k in SAME} for r in model]

    # once seen at a load average of 28: i3's JVM took so long to join that its rebalance came after i1's session
    # had expired, which the model (at_ms 5000) cannot follow; the scenario is then run once more, and every real
    # rebalance of both runs must be replayed
    for attempt in range(2):
        *real, summary = run_streams_scenario(SCENARIO)
        assert real and all(r["replayed"] for r in real), real
        if same_lines(real):
            break
    assert same_lines(real), (real, model)
    # after the start, each rebalance comes in the window of the event the simulator's follows: not before that event
    # and before the next one (a real join took 3.5 s at a load average of 37, 8.9 s in CI; the peer run,
    # benchmarks/streams_peer_results.md, holds at_ms to a heartbeat plus a poll on a machine not so loaded)
    times = [e["at_ms"] for e in SCENARIO["events"]] + [SCENARIO["until_ms"]]
    for r, m in zip(real[1:], model[1:]):
        cause = max(t for t in [0] + times if t <= m["at_ms"])
        assert cause <= r["at_ms"] < min(t for t in times if t > m["at_ms"]), (real, model)
    s = summary["summary"]
    assert s["records_counted"] == 2000 and s["replayed"]
    same = [k for k in model_summary["summary"] if k != "generation"]  # the start may take the real group two
    assert {k: s[k] for k in same} == {k: model_summary["summary"][k] for k in same}
    assert not our_processes_mentioning(MAIN_CLASS)
    assert time.monotonic() - began < 300
