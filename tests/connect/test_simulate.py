"""``simulate``'s ``kind: connect`` (:mod:`rebalance.connect.simulate`): worked examples, bad input naming the field,
the dispatch on ``kind`` and properties of random scenarios."""
from __future__ import annotations

import copy
import json
from typing import Any, Dict, List

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from rebalance.connect import parse_connect_scenario, simulate_connect
from rebalance.errors import InputError
from rebalance.simulate import simulate_lines
from rebalance.vectors import Line

BOUNCE: Dict[str, Any] = {
    "kind": "connect", "id": "bounce", "members": [{"id": "w1"}, {"id": "w2"}, {"id": "w3"}],
    "config": {"scheduled.rebalance.max.delay.ms": 20000},
    "events": [{"at_ms": 5000, "op": "add_connector", "connector": "c1", "tasks.max": 6},
               {"at_ms": 15000, "op": "restart", "member": "w2", "down_ms": 5000}],
    "until_ms": 60000}


def rounds(scenario: Dict[str, Any]) -> List[Dict[str, Any]]:
    return simulate_connect(scenario)[:-1]


def test_bounce_within_the_delay_holds_the_work_back_and_gives_it_back():
    # heartbeat.interval.ms 3000, session.timeout.ms 10000 (the defaults); CONFIG_MS 100, TASK_CONFIG_MS 50,
    # WORKER_STOP_MS 750, WORKER_START_MS 1000
    rows = rounds(BOUNCE)
    assert [(r["generation"], r["at_ms"], r["delayed"], r["expires_at_ms"]) for r in rows] == [
        (1, 3000, False, None),    # the empty group's group.initial.rebalance.delay.ms (3000)
        (2, 5100, False, None),    # the connector: every worker rejoins when it reads the config topic (CONFIG_MS)
        (3, 5150, False, None),    # its six task configs, written by c1 on w1 (TASK_CONFIG_MS)
        (4, 17150, True, 37150),   # w2's LeaveGroup at 15750 (WORKER_STOP_MS); the others heartbeat every 3000
                                   # from their last sync (5150): at 17150 they rejoin; w2's tasks held back
        (5, 23150, True, 37150),   # w2's new process starts at 20750 and joins at 21750 (WORKER_START_MS), the
                                   # others at their heartbeat at 23150: still within the delay, it gets nothing
        (6, 37150, False, None)]   # the delay ran out: w2's two tasks go back to it
    assert rows[2]["assignment"]["w2"] == {"connectors": [], "tasks": ["c1-1", "c1-4"]}
    assert "w2" not in rows[3]["assignment"]
    assert rows[5]["moved"] == {"revoked": {}, "assigned": {"w2": ["c1-1", "c1-4"]}}
    summary = simulate_connect(BOUNCE)[-1]["summary"]
    assert summary == {"rebalances": 6, "moved": 0, "revoked": 0, "delayed_rebalances": 2, "generation": 6,
                       "settled": True}


def test_eager_crash_waits_for_the_session_and_stops_everything():
    s = copy.deepcopy(BOUNCE)
    s["config"] = {"connect.protocol": "eager"}
    s["events"][1] = {"at_ms": 15000, "op": "crash", "member": "w2"}
    rows = rounds(s)
    last = rows[-1]
    # w2's last heartbeat before its crash was at 14150 (every 3000 from 5150), so its session ends at 24150; the
    # others, a heartbeat phase of their own away from it (10000 is no multiple of 3000), hear of it at 26150
    assert last["at_ms"] == 26150
    assert sorted(last["assignment"]) == ["w1", "w3"] and not last["delayed"]
    assert sum(len(a["tasks"]) for a in last["assignment"].values()) == 6
    assert last["moved"]["revoked"]["w1"] == ["c1", "c1-2", "c1-5"]  # eager: everything the worker ran


def test_a_crash_is_heard_at_once_when_the_session_is_a_whole_number_of_heartbeats():
    """The members of a round heartbeat in step: with session.timeout.ms 6000 and heartbeats every 1000, a crashed
    member's session ends at the instant of the others' heartbeat, which hears of it (the real cluster's runs show
    this, ``benchmarks/connect_peer_results.md``)."""
    s = copy.deepcopy(BOUNCE)
    s["config"] = {"session.timeout.ms": 6000, "heartbeat.interval.ms": 1000, "scheduled.rebalance.max.delay.ms": 0}
    s["events"][1] = {"at_ms": 15000, "op": "crash", "member": "w2"}
    rows = rounds(s)
    assert rows[2]["at_ms"] == 5150
    assert rows[-1]["at_ms"] == 14150 + 6000  # its last heartbeat (5150 + 9 x 1000), then the session


def test_incremental_bounce_longer_than_the_delay_rebalances_at_expiry():
    s = copy.deepcopy(BOUNCE)
    s["events"][1]["down_ms"] = 30000  # back at 46750, the delay ran out at 37150
    rows = rounds(s)
    at_expiry = next(r for r in rows if r["at_ms"] == 37150)
    assert sorted(at_expiry["assignment"]) == ["w1", "w3"]
    assert sum(len(a["tasks"]) for a in at_expiry["assignment"].values()) == 6
    assert rows[-1]["assignment"]["w2"]["tasks"]  # once back, load balancing gives w2 tasks again


def test_remove_connector_revokes_its_work_and_follows_up():
    s = copy.deepcopy(BOUNCE)
    s["events"] = [BOUNCE["events"][0], {"at_ms": 10000, "op": "add_connector", "connector": "c2", "tasks.max": 3},
                   {"at_ms": 20000, "op": "remove_connector", "connector": "c1"}]
    rows = rounds(s)
    removal = next(r for r in rows if r["at_ms"] == 20000 + 100)  # CONFIG_MS
    assert any("c1" in v for v in removal["moved"]["revoked"].values())
    final = rows[-1]["assignment"]
    assert sorted(x for a in final.values() for x in a["connectors"] + a["tasks"]) == ["c2", "c2-0", "c2-1", "c2-2"]


@pytest.mark.parametrize("change, field", [
    ({"kind": "connectt"}, "kind"),
    ({"members": []}, "members"),
    ({"members": [{"id": "a"}, {"id": "a"}]}, "members[1].id"),
    ({"members": [{"id": "a", "topics": ["t"]}]}, "members[0].topics"),
    ({"config": {"connect.protocol": "cooperative"}}, "config.connect.protocol"),
    ({"config": {"session.timeout.ms": 3000}}, "config.heartbeat.interval.ms"),
    ({"config": {"max_delay_ms": 1}}, "config.max_delay_ms"),
    ({"until_ms": 0}, "until_ms"),
    ({"events": [{"at_ms": 1, "op": "reboot", "member": "w1"}]}, "events[0].op"),
    ({"events": [{"at_ms": 1, "op": "leave", "member": "w9"}]}, "events[0].member"),
    ({"events": [{"at_ms": 1, "op": "leave", "member": "w1"}, {"at_ms": 2, "op": "crash", "member": "w1"}]},
     "events[1].op"),
    ({"events": [{"at_ms": 1, "op": "add_connector", "connector": "c-1", "tasks.max": 1}]}, "events[0].connector"),
    ({"events": [{"at_ms": 1, "op": "add_connector", "connector": "c1", "tasks.max": 0}]}, "events[0].tasks.max"),
    ({"events": [{"at_ms": 1, "op": "add_connector", "connector": "c1"}]}, "events[0].tasks.max"),
    ({"events": [{"at_ms": 1, "op": "remove_connector", "connector": "c1"}]}, "events[0].connector"),
    ({"events": [{"at_ms": 1, "op": "leave", "member": "w1", "down_ms": 5}]}, "events[0].down_ms"),
    ({"events": [{"at_ms": 1, "op": "join", "member": "w1", "connector": "c"}]}, "events[0].connector"),
    ({"events": [{"at_ms": 70000, "op": "leave", "member": "w1"}]}, "events[0].at_ms"),
])
def test_bad_input_names_the_field(change, field):
    s = {**copy.deepcopy(BOUNCE), **change}
    with pytest.raises(InputError) as caught:
        parse_connect_scenario(s)
    assert caught.value.field == field


def test_simulate_dispatches_on_kind_and_keeps_going_past_a_bad_line():
    consumer = {"id": "c", "protocol": "eager", "topics": {"t": 2}, "members": [{"id": "m1"}], "until_ms": 10000}
    lines = [Line("f", 1, {**BOUNCE, "id": "x", "kind": "share-ish"}), Line("f", 2, BOUNCE), Line("f", 3, consumer),
             Line("f", 4, {**consumer, "kind": "consumer"}), Line("f", 5, {**consumer, "kind": "connect"})]
    out: List[Dict[str, Any]] = []
    ok, bad = simulate_lines(lines, out.append)
    assert (ok, bad) == (3, 2)
    errors = [r for r in out if "error" in r]
    assert [(r["id"], r["error"]["field"]) for r in errors] == [("x", "kind"), ("c", "protocol")]
    assert sum(1 for r in out if r["id"] == "bounce" and "generation" in r) == 6
    assert json.loads(json.dumps(out)) == out  # every line is JSON


# ---------------------------------------------------------------------------------------------- properties
@st.composite
def scenarios(draw: Any) -> Dict[str, Any]:
    n = draw(st.integers(1, 4))
    members = [f"w{i}" for i in range(1, n + 1)]
    config = {"connect.protocol": draw(st.sampled_from(["eager", "compatible", "sessioned"])),
              "scheduled.rebalance.max.delay.ms": draw(st.sampled_from([0, 5000, 20000])),
              "session.timeout.ms": 10000, "heartbeat.interval.ms": 3000}
    running = {m: True for m in members}
    connectors: List[str] = []
    events: List[Dict[str, Any]] = []
    t = 0
    for i in range(draw(st.integers(0, 8))):
        t += draw(st.integers(0, 15000))
        op = draw(st.sampled_from(["leave", "crash", "restart", "add_connector", "remove_connector"]))
        member = draw(st.sampled_from(members))
        if op in ("leave", "crash") and running[member]:
            events.append({"at_ms": t, "op": op, "member": member})
            running[member] = False
        elif op == "restart":
            events.append({"at_ms": t, "op": op, "member": member, "down_ms": draw(st.integers(0, 30000))})
            running[member] = True
        elif op == "add_connector":
            events.append({"at_ms": t, "op": op, "connector": f"c{i}", "tasks.max": draw(st.integers(1, 5))})
            connectors.append(f"c{i}")
        elif op == "remove_connector" and connectors:
            events.append({"at_ms": t, "op": op, "connector": connectors.pop(0)})
    # quiet long enough after the last event for sessions, delays and restarts to play out
    return {"kind": "connect", "members": [{"id": m} for m in members], "config": config, "events": events,
            "until_ms": t + 30000 + 20000 + 10000 + 3000 * 4, "running at the end": sorted(m for m in running if running[m])}


def scenario_of(s: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in s.items() if k != "running at the end"}


def configured(s: Dict[str, Any]) -> List[str]:
    items: Dict[str, int] = {}
    for e in s["events"]:
        if e["op"] == "add_connector":
            items[e["connector"]] = e["tasks.max"]
        elif e["op"] == "remove_connector":
            del items[e["connector"]]
    return sorted([c for c in items] + [f"{c}-{i}" for c, n in items.items() for i in range(n)])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_no_item_runs_twice_and_a_quiet_end_runs_everything_once(s):
    out = simulate_connect(scenario_of(s))
    rows = out[:-1]
    for r in rows:
        items = [x for a in r["assignment"].values() for x in a["connectors"] + a["tasks"]]
        assert len(items) == len(set(items)), r
    if s["running at the end"]:  # the end is quiet: the last round has exactly the running workers, settled
        assert sorted(rows[-1]["assignment"]) == s["running at the end"]
        assert out[-1]["summary"]["settled"]
        final = sorted(x for a in rows[-1]["assignment"].values() for x in a["connectors"] + a["tasks"])
        # every configured item runs; a removed connector's items may linger: a new leader's assignor has no
        # previous assignment to compute the deleted ones from (IncrementalCooperativeAssignor's
        # diff(previousAssignment, configured)), so nobody revokes what a worker still reports
        assert set(configured(s)) <= set(final)
        removed = {e["connector"] for e in s["events"] if e["op"] == "remove_connector"}
        assert all(x.rpartition("-")[0] in removed or x in removed for x in set(final) - set(configured(s)))


@settings(max_examples=60, deadline=None)
@given(scenarios())
def test_generations_count_up_and_time_never_goes_back(s):
    rows = rounds(scenario_of(s))
    assert [r["generation"] for r in rows] == list(range(1, len(rows) + 1))
    assert all(a["at_ms"] <= b["at_ms"] <= s["until_ms"] for a, b in zip(rows, rows[1:]))
    assert all((r["expires_at_ms"] is not None) == r["delayed"] for r in rows)


def test_a_leader_that_leaves_is_followed_by_the_first_member_id_of_the_coordinators_hashmap():
    """``ClassicGroup.remove`` (4.3.1): when the leader leaves, the next leader is the first key of the group's
    ``members`` ``HashMap`` -- the member ids' hash order, not the order the workers joined.  With member ids
    drawn as a real cluster's end (``member_id_seed``) either remaining worker leads; a new leader knows no
    previous assignment, so it hands the leaver's work out at once instead of holding it back for the delay (the
    Connect peer's scenarios peer-57 and peer-74)."""
    s = {"kind": "connect", "id": "leader-leaves", "members": [{"id": "w1"}, {"id": "w2"}, {"id": "w3"}],
         "config": {"scheduled.rebalance.max.delay.ms": 8000, "session.timeout.ms": 6000,
                    "heartbeat.interval.ms": 1000, "group.initial.rebalance.delay.ms": 0},
         "events": [{"at_ms": 2000, "op": "add_connector", "connector": "c1", "tasks.max": 6},
                    {"at_ms": 10000, "op": "leave", "member": "w1"}],
         "until_ms": 40000}
    runs = [simulate_connect(s, seed)[:-1] for seed in range(16)]
    assert all(run[2]["leader"] == "w1" for run in runs)  # the first member to join led the formation
    assert {run[3]["leader"] for run in runs} == {"w2", "w3"}
    for run in runs:
        assert not any(r["delayed"] for r in run)
        assert sum(len(a["tasks"]) for a in run[3]["assignment"].values()) == 6
