"""What the records of ``simulate --on kafka`` say (rebalance.kafka.consumer_records), without a broker: records
as the member JVMs write them are read into completed rebalances and replayed through the book's assignors.

``replayed`` is false only when the book's assignor, given Kafka's inputs, returns another assignment: an
exception inside the book's code (planted here) propagates instead of passing for a disagreement with Kafka.
"""
from __future__ import annotations

import pytest

from rebalance.kafka.consumer_records import ConsumerRun, classic_rebalances, kip848_rebalances
from rebalance.simulate import parse_scenario

CLASSIC = parse_scenario({"protocol": "eager", "assignor": "range", "topics": {"t": 2}, "members": [{"id": "c1"}],
                          "until_ms": 1000})
KIP848 = parse_scenario({"protocol": "consumer", "assignor": "uniform", "topics": {"t": 2},
                         "members": [{"id": "c1"}], "until_ms": 1000})


def _classic_run(assignment):
    subscription = {"member_id": "m1", "topics": ["t"], "owned": [], "generation": None, "instance_id": None,
                    "rack": None, "user_data": None}
    return ConsumerRun(records={0: [
        {"event": "assignor", "t": 10, "member": "c1", "name": "range", "subscriptions": [subscription],
         "partitions_per_topic": {"t": 2}, "assignment": {"m1": assignment}},
        {"event": "assigned", "t": 12, "member": "c1", "partitions": assignment, "generation": 1, "member_id": "m1"},
    ]})


def _kip848_run(target):
    member = {"member_id": "m1", "client_id": "c1", "instance_id": None, "member_epoch": 1, "assignment": target,
              "target": target}
    return ConsumerRun(records={0: [
        {"event": "topic_ids", "t": 0, "ids": {"t": "AAAAAAAAAAAAAAAAAAAAAQ"}},
        {"event": "group", "t": 30, "state": "Stable", "type": "Consumer", "group_epoch": 1, "target_epoch": 1,
         "members": [member]},
    ]})


def test_a_replay_that_agrees_and_one_that_does_not():
    [(rebalance, replayed)] = classic_rebalances(_classic_run(["t-0", "t-1"]), CLASSIC)
    assert (rebalance.generation, rebalance.at_ms, rebalance.assignment, replayed) == (1, 12, {"c1": ["t-0", "t-1"]},
                                                                                       True)
    [(_, replayed)] = classic_rebalances(_classic_run(["t-0"]), CLASSIC)  # not what RangeAssignor gives
    assert replayed is False
    [(rebalance, replayed)] = kip848_rebalances(_kip848_run(["t-0", "t-1"]), KIP848)
    assert (rebalance.generation, rebalance.assignment, replayed) == (1, {"c1": ["t-0", "t-1"]}, True)
    [(_, replayed)] = kip848_rebalances(_kip848_run(["t-1"]), KIP848)
    assert replayed is False


def test_an_exception_in_the_books_classic_assignor_propagates(monkeypatch):
    import rebalance.consumer

    def planted(*args, **kwargs):
        raise ZeroDivisionError("planted in the book's assignor")

    monkeypatch.setattr(rebalance.consumer, "assign", planted)
    with pytest.raises(ZeroDivisionError, match="planted"):
        classic_rebalances(_classic_run(["t-0", "t-1"]), CLASSIC)


def test_an_exception_in_the_books_kip848_assignor_propagates(monkeypatch):
    import rebalance.kip848

    def planted(*args, **kwargs):
        raise ZeroDivisionError("planted in the book's assignor")

    monkeypatch.setattr(rebalance.kip848, "assign_group", planted)
    with pytest.raises(ZeroDivisionError, match="planted"):
        kip848_rebalances(_kip848_run(["t-0", "t-1"]), KIP848)


def test_a_member_id_record_names_a_member_before_its_callbacks():
    """A member's ``member_id`` record (written once ``groupMetadata().memberId()`` is set) names its Kafka member
    id: the leader's assignment is by scenario member even when no callback carried the id."""
    run = _classic_run(["t-0", "t-1"])
    callback = run.records[0][1]
    del callback["member_id"]
    callback["generation_error"] = "planted: no member id in the callback"
    [(rebalance, _)] = classic_rebalances(run, CLASSIC)
    assert rebalance.assignment == {"m1": ["t-0", "t-1"]}   # unnamed without it
    run.records[0].insert(0, {"event": "member_id", "t": 5, "member": "c1", "member_id": "m1", "generation": 1})
    [(rebalance, replayed)] = classic_rebalances(run, CLASSIC)
    assert (rebalance.assignment, replayed) == ({"c1": ["t-0", "t-1"]}, True)


def test_a_kip848_target_replays_in_the_coordinators_timelinehashmap_order():
    """A real uniform group (the consumer peer's s034, 2026-11-30): two member ids share a bucket of
    ``TargetAssignmentBuilder``'s member ``HashMap`` (``NY-e...`` and ``sz2h...``, both slot 4 of 16), so which of
    them takes the extra partition follows the order the coordinator's ``TimelineHashMap`` of members fills that
    map in, not the description's; and the formation's target was computed from one member's, with the three others
    joining together (the assignment interval), which only an ordered grouping of the joiners replays."""
    import json
    from pathlib import Path

    from rebalance.kafka import consumer_records

    first, *records = [json.loads(x) for x in
                       (Path(__file__).parent / "recorded" / "kip848-uniform-s034.jsonl").read_text().splitlines()]
    s = parse_scenario(first["scenario"])
    got = kip848_rebalances(ConsumerRun(records={0: records}), s)
    assert [(c.generation, ok) for c, ok in got] == [(5, True), (6, True), (7, True)]
    # the description's order alone does not replay epoch 7
    groups = [r for r in records if r["event"] == "group"]
    ids = next(r["ids"] for r in records if r["event"] == "topic_ids")
    topics = [{"name": t, "id": ids[t], "partitions": n} for t, n in sorted(s.topics.items())]
    targets = {}
    for r in groups:
        targets.setdefault(r["target_epoch"], r["members"])
    assert not consumer_records._replayed_848(s, topics, targets, 7, None)
