"""``simulate`` for ``kind: share`` (:mod:`rebalance.share.simulate`): worked examples, the errors that name their
field, the dispatch on ``kind``, and properties of every run (every record accounted for, nothing redelivered
without a crash, every partition of a subscribed topic assigned once the group is complete)."""
from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rebalance.errors import InputError
from rebalance.share.simulate import parse_share_scenario, simulate_share
from rebalance.simulate import simulate_lines
from rebalance.vectors import Line

ROOT = Path(__file__).resolve().parents[2]
#: short timings for scenarios of a few seconds; without Kafka 4.3's assignment interval (0, as before 4.3), whose
#: own tests are below, so that each change here completes at the heartbeat after it
FAST = {"group.share.record.lock.duration.ms": 1000, "group.share.heartbeat.interval.ms": 500,
        "group.share.session.timeout.ms": 3000, "group.share.delivery.count.limit": 2, "max.poll.records": 3,
        "record.processing.ms": 100, "group.share.assignment.interval.ms": 0}


def _rows(path: Path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_the_example_crash_redelivers_the_batch_in_hand_once_its_locks_expire():
    scenario = _rows(ROOT / "examples" / "simulate_share.jsonl")[0]
    *changes, summary = simulate_share(scenario)
    assert changes == [
        # m1's join computes epoch 1's target at 0 (no partition initialized yet); m2's, at 0 too, bumps the
        # epoch to 2, whose target waits for the first heartbeat 1 s (the assignment interval) after epoch 1's
        {"epoch": 2, "at_ms": 1000, "assignment": {"m1": ["t-1"], "m2": ["t-0"]}, "moved": 0},
        # m2 crashed at 6250 (last heartbeat 6000): its session times out at 12000; m3 joined at 8000 (epoch 3)
        # but no change completes while m2 is in the group with its old epoch
        {"epoch": 4, "at_ms": 12000, "assignment": {"m1": ["t-0"], "m3": ["t-1"]}, "moved": 1},
    ]
    s = summary["summary"]
    assert s["crashes"] == [{"member": "m2", "at_ms": 6250, "in_flight": 5,
                             "in_flight_records": {"t-0": [50, 51, 52, 53, 54]}, "locks_expire_ms": 9000,
                             "redelivered": 5}]
    assert s["records"] == {"produced": 220, "acquired": 225, "acknowledged": 220, "redelivered": 5, "lock_expired": 5}
    assert s["final"]["t-0"] == [[0, 49, "ACKNOWLEDGED", 1], [50, 54, "ACKNOWLEDGED", 2], [55, 109, "ACKNOWLEDGED", 1]]
    assert s["delivery_counts"] == {"1": 215, "2": 5}


def test_a_leave_finishes_its_batch_so_nothing_is_redelivered():
    scenario = _rows(ROOT / "examples" / "simulate_share.jsonl")[1]
    *changes, summary = simulate_share(scenario)
    assert [c["assignment"] for c in changes] == [{"m1": ["t-0", "t-1"], "m2": ["t-2"]}, {"m1": ["t-0", "t-1", "t-2"]}]
    assert changes[1]["at_ms"] == 5000
    assert summary["summary"]["delivery_counts"] == {"1": 35}
    assert summary["summary"]["crashes"] == []


def test_two_crashes_archive_the_records_at_the_delivery_limit():
    scenario = {"kind": "share", "topics": {"q": 1}, "records": {"q": 6}, "config": FAST,
                "members": [{"id": "a"}, {"id": "b"}, {"id": "c"}],
                "events": [{"at_ms": 600, "op": "crash", "member": "a"}, {"at_ms": 1700, "op": "crash", "member": "b"},
                           {"at_ms": 2000, "op": "join", "member": "c"}], "until_ms": 8000}
    *changes, summary = simulate_share(scenario)
    s = summary["summary"]
    # a held 0-2 (delivery 1); b took them at the lock's expiry (1500, delivery 2) and crashed with them: at the
    # limit of 2 their second expiry archives them
    assert s["final"] == {"q-0": [[0, 2, "ARCHIVED", 2], [3, 5, "ACKNOWLEDGED", 1]]}
    assert [(c["member"], c["in_flight_records"], c["redelivered"]) for c in s["crashes"]] == \
        [("a", {"q-0": [0, 1, 2]}, 3), ("b", {"q-0": [0, 1, 2]}, 0)]
    # the change completes only once both crashed members have timed out (b's last heartbeat 1500 + 3000)
    assert changes[-1] == {"epoch": 6, "at_ms": 4500, "assignment": {"c": ["q-0"]}, "moved": 0}


def test_a_restart_waits_for_the_close_then_joins_down_ms_later():
    scenario = {"kind": "share", "topics": {"q": 1}, "records": {"q": 6}, "config": FAST, "members": [{"id": "a"}],
                "events": [{"at_ms": 600, "op": "restart", "member": "a", "down_ms": 200}], "until_ms": 8000}
    *changes, summary = simulate_share(scenario)
    # the batch fetched at 500 is acknowledged at 800, close() then, the new process at 1000
    assert [(c["epoch"], c["at_ms"]) for c in changes] == [(1, 0), (2, 500), (4, 1000)]
    assert summary["summary"]["delivery_counts"] == {"1": 6}


@pytest.mark.parametrize("change, field", [
    ({"kind": "connectx"}, "kind"),
    ({"topics": {}}, "topics"),
    ({"members": [{"id": "a"}, {"id": "a"}]}, "members[1].id"),
    ({"members": [{"id": "a", "topics": ["nope"]}]}, "members[0].topics[0]"),
    ({"records": {"nope": 3}}, "records.nope"),
    ({"config": {"session.timeout.ms": 3}}, "config.session.timeout.ms"),
    ({"config": {"group.share.delivery.count.limit": 11}}, "config.group.share.delivery.count.limit"),
    ({"events": [{"at_ms": 1, "op": "explode", "member": "a"}]}, "events[0].op"),
    ({"events": [{"at_ms": 1, "op": "produce", "topic": "x", "count": 1}]}, "events[0].topic"),
    ({"events": [{"at_ms": 1, "op": "produce", "topic": "t", "count": 1, "partition": 2}]}, "events[0].partition"),
    ({"events": [{"at_ms": 1, "op": "leave", "member": "a", "count": 1}]}, "events[0].count"),
    ({"events": [{"at_ms": 1, "op": "crash", "member": "zz"}]}, "events[0].member"),
    ({"events": [{"at_ms": 1, "op": "leave", "member": "a"}, {"at_ms": 2, "op": "crash", "member": "a"}]}, "events[1].op"),
    ({"events": [{"at_ms": 99, "op": "leave", "member": "a"}]}, "events[0].at_ms"),
    ({"until_ms": 0}, "until_ms"),
])
def test_bad_input_names_its_field(change, field):
    scenario = {"kind": "share", "topics": {"t": 2}, "members": [{"id": "a"}], "until_ms": 50}
    scenario.update(change)
    with pytest.raises(InputError) as err:
        parse_share_scenario(scenario)
    assert err.value.field == field


def test_simulate_dispatches_on_kind_and_goes_on_past_a_bad_line():
    lines = [Line("f", 1, {"kind": "share", "topics": {"t": 1}, "members": [{"id": "a"}], "until_ms": 1000}),
             Line("f", 2, {"kind": "nope"}),
             Line("f", 3, {"kind": "share", "topics": {"t": 1}, "members": [{"id": "a"}], "until_ms": 1000,
                           "events": [{"at_ms": 1, "op": "produce", "topic": "t"}]}),
             Line("f", 4, {"protocol": "consumer", "kind": "consumer", "topics": {"t": 2},
                           "members": [{"id": "c1"}], "until_ms": 10000})]
    out = []
    ok, errors = simulate_lines(lines, out.append)
    assert (ok, errors) == (2, 2)
    assert [r["error"]["field"] for r in out if "error" in r] == ["kind", "events[0].count"]
    assert any("epoch" in r and r["id"] == "f:1" for r in out)
    assert any("generation" in r and r["id"] == "f:4" for r in out)


def test_the_command_line_runs_the_example():
    from rebalance.__main__ import main

    buf = io.StringIO()
    with redirect_stdout(buf):
        status = main(["simulate", str(ROOT / "examples" / "simulate_share.jsonl")])
    rows = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert status == 0 and [r["id"] for r in rows if "summary" in r] == ["share-crash", "share-leave"]


# --- properties -----------------------------------------------------------------------------------------------

@st.composite
def scenarios(draw):
    n_topics = draw(st.integers(1, 2))
    topics = {f"t{i}": draw(st.integers(1, 4)) for i in range(n_topics)}
    n = draw(st.integers(1, 4))
    members = [{"id": f"m{i}", "topics": draw(st.lists(st.sampled_from(sorted(topics)), min_size=1, unique=True))}
               for i in range(n)]
    records = {t: draw(st.integers(0, 12)) for t in topics}
    events, running = [], {m["id"]: True for m in members}
    t = 0
    for _ in range(draw(st.integers(0, 5))):
        t += draw(st.integers(100, 3000))
        op = draw(st.sampled_from(["leave", "crash", "restart", "produce"]))
        if op == "produce":
            events.append({"at_ms": t, "op": "produce", "topic": draw(st.sampled_from(sorted(topics))),
                           "count": draw(st.integers(1, 8))})
            continue
        name = draw(st.sampled_from([m["id"] for m in members]))
        if op in ("leave", "crash") and not running[name]:
            op = "restart"
        events.append({"at_ms": t, "op": op, "member": name})
        running[name] = op == "restart"
    config = {"group.share.record.lock.duration.ms": draw(st.sampled_from([1000, 3000])),
              "group.share.heartbeat.interval.ms": 500, "group.share.session.timeout.ms": 3000,
              "group.share.delivery.count.limit": draw(st.integers(2, 5)), "max.poll.records": draw(st.integers(1, 6)),
              "record.processing.ms": draw(st.sampled_from([0, 20, 100]))}
    return {"kind": "share", "topics": topics, "members": members, "records": records, "events": events,
            "config": config, "until_ms": t + 40000}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_every_record_is_accounted_for_and_only_a_crash_redelivers(scenario):
    *changes, summary = simulate_share(scenario)
    s = summary["summary"]
    produced = sum(n * scenario["topics"][t] for t, n in scenario["records"].items()) + \
        sum(e["count"] * scenario["topics"][e["topic"]] for e in scenario["events"] if e["op"] == "produce")
    assert s["records"]["produced"] == produced == sum(s["delivery_counts"].values())
    states = [(run[2], run[3], run[1] - run[0] + 1) for runs in s["final"].values() for run in runs]
    assert sum(n for st_, _, n in states if st_ == "ACKNOWLEDGED") == s["records"]["acknowledged"]
    assert s["records"]["acquired"] == s["records"]["acknowledged"] + s["records"]["lock_expired"] + \
        sum(n for st_, _, n in states if st_ == "ACQUIRED")
    limit = scenario["config"]["group.share.delivery.count.limit"]
    assert all(count <= limit for _, count, _ in states)
    assert all(state != "ARCHIVED" or count == limit for state, count, _ in states)
    if not any(e["op"] == "crash" for e in scenario["events"]):
        assert s["records"]["redelivered"] == 0 and set(s["delivery_counts"]) <= {"0", "1"}
    last_op = {m["id"]: "join" for m in scenario["members"]}
    last_op.update({e["member"]: e["op"] for e in scenario["events"] if "member" in e})
    if any(op in ("join", "restart") for op in last_op.values()):  # settled: SimpleAssignor gives every initialized partition of a subscribed topic a member
        last = changes[-1]
        topics = {t for m in scenario["members"] if m["id"] in last["assignment"] for t in m["topics"]}
        wanted = {f"{t}-{p}" for t in topics for p in range(scenario["topics"][t])}
        assert {tp for tps in last["assignment"].values() for tp in tps} == wanted, last


def test_the_readme_shows_the_example_as_run_now():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("`examples/simulate_share.jsonl` has a crash and a leave:", 1)[1]
    shown = [json.loads(x) for x in section.split("```json", 1)[1].split("```", 1)[0].strip().splitlines()]
    scenario = _rows(ROOT / "examples" / "simulate_share.jsonl")[0]
    assert shown == [{"id": "share-crash", **row} for row in simulate_share(scenario)]


def test_a_runaway_run_is_an_event_limit_error_naming_until_ms(monkeypatch):
    from rebalance.errors import EventLimitError
    from rebalance.share import simulate as module

    monkeypatch.setattr(module, "MAX_SHARE_EVENTS", 50)
    with pytest.raises(EventLimitError) as err:
        simulate_share({"kind": "share", "topics": {"t": 1}, "members": [{"id": "a"}], "until_ms": 60000})
    assert err.value.field == "until_ms"


def test_the_assignment_interval_holds_a_target_back_until_a_heartbeat_after_it():
    """Kafka 4.3's ``group.share.assignment.interval.ms``: m2 and m3 join 200 and 400 ms after m1, whose target
    was computed at 0 (heartbeats every 500 ms from each join: m1 at 500, 1000; m2 at 700, 1200; m3 at 900, 1400).
    With the interval at 0 (as before 4.3) each join computes its target at once, and the three-member change
    completes at m2's first heartbeat after m3's join (700); with 1 s the target of epoch 3 waits for m1's
    heartbeat at 1000, and the change completes when the last member, m3, has heartbeated after it (1400)."""
    def changes(interval):
        scenario = {"kind": "share", "topics": {"q": 3}, "records": {"q": 60},
                    "config": dict(FAST, **{"group.share.assignment.interval.ms": interval}),
                    "members": [{"id": "m1"}, {"id": "m2"}, {"id": "m3"}],
                    "events": [{"at_ms": 200, "op": "join", "member": "m2"}, {"at_ms": 400, "op": "join", "member": "m3"}],
                    "until_ms": 3000}
        return [(c["epoch"], c["at_ms"], sorted(c["assignment"])) for c in simulate_share(scenario)[:-1]]

    assert changes(0) == [(1, 0, ["m1"]), (3, 700, ["m1", "m2", "m3"])]
    assert changes(1000) == [(1, 0, ["m1"]), (3, 1400, ["m1", "m2", "m3"])]


def test_every_heartbeat_starts_initializing_the_groups_new_topics():
    """``maybeCreateInitializeShareGroupStateRequest`` (4.3.1) runs on every heartbeat, whether or not the
    assignment interval let it compute a target: m2's join at 0 starts initializing ``b`` at once, so the first
    target with initialized partitions, at m1's heartbeat a second later, assigns both topics' partitions in one
    change (before this, a topic's initialization began only with a target: the group formed ``a`` first, then
    ``b`` a second later, a change the broker never shows -- share-peer-032 of the peer run)."""
    scenario = {"kind": "share", "topics": {"a": 1, "b": 2}, "records": {"a": 10, "b": 10},
                "config": {"group.share.heartbeat.interval.ms": 500, "record.processing.ms": 10},
                "members": [{"id": "m1", "topics": ["b"]}, {"id": "m2", "topics": ["a", "b"]}],
                "events": [], "until_ms": 5000}
    changes = [c for c in simulate_share(scenario)[:-1] if any(c["assignment"].values())]
    first = changes[0]["assignment"]
    assert sorted({tp.rsplit("-", 1)[0] for a in first.values() for tp in a}) == ["a", "b"]
    assert len(changes) == 1


def test_a_member_takes_its_batches_from_its_partitions_in_turn_as_the_broker_hands_them_out():
    """The broker rotates a share session's partitions and reads last the partitions it just took records from
    (``rebalance.share.share_fetch``): a member alone on two partitions takes its batches from each in turn, not
    from the first until it is drained.  Three batches (at 1, 1.5 and 2 s) before it leaves: two from t-0, one
    from t-1."""
    sc = {"kind": "share", "id": "turns", "topics": {"t": 2}, "records": {"t": 20}, "members": [{"id": "m1"}],
          "config": {"group.share.heartbeat.interval.ms": 500, "max.poll.records": 5, "record.processing.ms": 100},
          "events": [{"at_ms": 2100, "op": "leave", "member": "m1"}], "until_ms": 5000}
    final = simulate_share(sc)[-1]["summary"]["final"]
    assert final == {"t-0": [[0, 9, "ACKNOWLEDGED", 1], [10, 19, "AVAILABLE", 0]],
                     "t-1": [[0, 4, "ACKNOWLEDGED", 1], [5, 19, "AVAILABLE", 0]]}
