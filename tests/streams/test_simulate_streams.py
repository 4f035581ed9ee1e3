"""``simulate`` for ``kind: streams`` (:mod:`rebalance.streams.simulate`): worked examples (a scale-out warmed up
until balanced, a scale-in, standbys and a crash, the streams group protocol, an operator's ``set_config``), the
default partitioner, errors that name their field, the dispatch on ``kind``, and properties of every run."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rebalance.errors import InputError
from rebalance.simulate import kind_compute, simulate_lines
from rebalance.streams import AssignmentConfigs, probing_rounds
from rebalance.streams.simulate import (default_process_id, murmur2, parse_streams_scenario, records_per_partition,
                                        simulate_streams)
from rebalance.vectors import Line

ROOT = Path(__file__).resolve().parents[2]
KIP441 = {"acceptable.recovery.lag": 100, "max.warmup.replicas": 2, "probing.rebalance.interval.ms": 60000}


def _examples():
    return [json.loads(t) for t in (ROOT / "examples" / "simulate_streams.jsonl").read_text().splitlines() if t.strip()]


def _scenario(**over):
    s = {"kind": "streams", "topics": {"words": 6}, "records": 6000, "keys": 600,
         "members": [{"id": "i1"}, {"id": "i2"}, {"id": "i3"}], "config": dict(KIP441),
         "events": [{"at_ms": 5000, "op": "join", "member": "i3"}], "until_ms": 90000}
    s.update(over)
    return s


def _actives(row):
    return {m: a["active"] for m, a in row["assignment"].items()}


def test_murmur2_is_kafkas_and_the_records_spread_as_the_default_partitioner_spreads_them():
    # Utils.murmur2 of Kafka's UtilsTest.testMurmur2
    assert [murmur2(k.encode()) for k in ("21", "foobar", "abc")] == [-973932308, -790332482, 479470107]
    counts = records_per_partition(6000, 600, 6)
    assert sum(counts) == 6000 and counts == [1030, 870, 1040, 900, 1170, 990]


def test_scale_out_warms_up_then_probes_until_balanced():
    *rows, summary = simulate_streams(_examples()[0])
    assert [(r["generation"], r["at_ms"], r["probing"], r["followup"], r["moved"]) for r in rows] == [
        (1, 0, False, None, 0),
        # i3 starts at 5000 and its JoinGroup comes INSTANCE_START_MS (1100) later; i1 and i2 hear of the rebalance
        # at their next heartbeat (every 3000 ms since the first rebalance): 9000.  i3 has no state: two warm-ups
        # (max.warmup.replicas), no active moves
        (2, 9000, False, "probing", 0),
        (3, 69000, True, "immediate", 2),     # the probe: the warmed-up tasks move; their owners revoke them first,
        (4, 69000, False, "probing", 0),      # and the follow-up's new warm-ups have not caught up yet
        (5, 129000, True, "immediate", 2),
        (6, 129000, False, None, 0)]
    assert rows[1]["warmups"] == {"i1": ["0_3"], "i3": ["0_2"]}
    assert rows[3]["warmups"] == rows[2]["warmups"] == {"i2": ["0_4"], "i3": ["0_5"]}
    assert _actives(rows[1]) == _actives(rows[0]) | {"i3": []}
    assert _actives(rows[-1]) == {"i1": ["0_0", "0_3"], "i2": ["0_1", "0_4"], "i3": ["0_2", "0_5"]}
    assert summary["summary"] == {"rebalances": 6, "generation": 6, "probing_rebalances": 2, "warmups": 6, "moved": 4,
                                  "settled": True, "probing_until_balanced": 2}


def test_the_probing_rounds_are_chapter_15s_when_nothing_else_happens():
    """The first rebalance after the join and the probing one after it hand out the warm-ups the chapter's
    ``probing_rounds`` hands out (the same assignor and lag model), with the scenario's process ids."""
    s = parse_streams_scenario(_examples()[0])
    pids = [m.process_id for m in s.members]
    *rows, _ = simulate_streams(s)
    rounds = probing_rounds(pids[:2], pids, s.tasks(), AssignmentConfigs(100, 2, 0, 60000),
                            behind=min(records_per_partition(6000, 600, 6)))
    name = {p: m.id for p, m in zip(pids, s.members)}
    assert rounds[0].warmup_count() == 2 and rounds[0].probing_rebalance_needed
    assert {name[p]: [str(t) for t in ts] for p, ts in rounds[0].warmups.items() if ts} == rows[1]["warmups"]


def test_scale_in_gives_the_leavers_tasks_to_the_others_with_warm_ups():
    *rows, summary = simulate_streams(_scenario(events=[{"at_ms": 5000, "op": "leave", "member": "i3"}],
                                                until_ms=200000))
    assert sorted(_actives(rows[0])) == ["i1", "i2", "i3"]
    after = rows[1]
    # i3's LeaveGroup comes CLOSE_MS (300) after close(); the others hear of it at their next heartbeat
    assert after["at_ms"] == 6000 and sorted(after["assignment"]) == ["i1", "i2"]
    assert sorted(t for ts in _actives(after).values() for t in ts) == [f"0_{p}" for p in range(6)]
    assert summary["summary"]["settled"] is True


def test_standbys_take_over_a_crashed_instances_tasks_after_its_session_times_out():
    *rows, summary = simulate_streams(_examples()[1])
    first = rows[0]
    for m, a in first["assignment"].items():  # one standby per task, never on its active's instance
        assert not set(a["active"]) & set(a["standby"])
    assert sorted(t for a in first["assignment"].values() for t in a["standby"]) == ["0_0", "0_1", "0_2", "0_3"]
    assert rows[1]["at_ms"] == 15000  # crash at 5000, last heartbeat at 5000, session.timeout.ms 10000
    assert rows[1]["warmups"] == {}   # i3's tasks go to instances with caught-up standbys
    assert summary["summary"]["warmups"] == 0 and summary["summary"]["settled"]


def test_a_join_while_a_crashed_member_is_in_the_group_waits_for_its_session():
    s = _scenario(config=dict(KIP441, **{"session.timeout.ms": 10000, "heartbeat.interval.ms": 1000}),
                  events=[{"at_ms": 2500, "op": "crash", "member": "i2"}, {"at_ms": 5000, "op": "join", "member": "i3"}])
    *rows, _ = simulate_streams(s)
    assert [r["at_ms"] for r in rows][:2] == [0, 12000]  # i2's last heartbeat at 2000


def test_the_streams_group_protocol_moves_tasks_at_once_without_warm_ups():
    *rows, summary = simulate_streams(_examples()[2])
    assert [r["generation"] for r in rows] == [1, 2, 3]
    # i3's first heartbeat at 6100 (INSTANCE_START_MS after 5000); i1 and i2 hear of the new target at their next
    # heartbeat (group.streams.heartbeat.interval.ms 5000), 10000, revoke and heartbeat at once; i3 gets the tasks at
    # its next heartbeat, 11100.  i1's LeaveGroup at 20300; i2 and i3 take its tasks at their next heartbeats, i2's
    # (every 5000 ms since its heartbeat at 10000) the later: 25000
    assert [r["at_ms"] for r in rows] == [0, 11100, 25000]
    assert _actives(rows[1]) == {"i1": ["0_0", "0_2"], "i2": ["0_1", "0_3"], "i3": ["0_4", "0_5"]}
    assert all(r["warmups"] == {} and r["followup"] is None for r in rows)
    assert summary["summary"]["probing_rebalances"] == 0


def test_set_config_max_warmup_replicas_takes_effect_at_the_next_rebalance():
    s = _scenario(events=[{"at_ms": 1000, "op": "set_config", "config": {"max.warmup.replicas": 1}},
                          {"at_ms": 5000, "op": "join", "member": "i3"}], until_ms=400000)
    *rows, summary = simulate_streams(s)
    assert all(sum(len(v) for v in r["warmups"].values()) <= 1 for r in rows)
    # one warm-up a round (each probing rebalance's follow-up hands the same one out again), three probing
    # rebalances: the third's follow-up waits for i3's heartbeat (i3 neither gives nor gets a task in it), by when
    # its warm-up has caught up, so that follow-up makes it active at once
    assert [sum(len(v) for v in r["warmups"].values()) for r in rows] == [0, 1, 1, 1, 1, 1, 1, 0, 0]
    assert summary["summary"]["probing_rebalances"] == summary["summary"]["probing_until_balanced"] == 3
    assert rows[-2]["warmups"] == {} and rows[-2]["moved"] == 1 and rows[-2]["at_ms"] == rows[-3]["at_ms"] + 3000


def test_a_restart_keeps_its_state_so_it_needs_no_warm_ups():
    s = _scenario(members=[{"id": "i1"}, {"id": "i2"}],
                  events=[{"at_ms": 5000, "op": "restart", "member": "i2", "down_ms": 2000}])
    *rows, _ = simulate_streams(s)
    # i1 took i2's tasks at its heartbeat after i2's LeaveGroup (6000); i2's new process starts at 7000 and joins at
    # 8100 with their state, i1 hears of it at 9000: the tasks move back (i1 revokes them first)
    assert [(r["at_ms"], r["moved"], r["followup"]) for r in rows] == [(0, 0, None), (6000, 0, None),
                                                                       (9000, 3, "immediate"), (9000, 0, None)]
    assert all(r["warmups"] == {} for r in rows) and _actives(rows[-1]) == _actives(rows[0])


def test_a_given_process_id_is_used_and_a_default_one_repeats():
    pid = "00000000-0000-0000-0000-000000000007"
    s = parse_streams_scenario(_scenario(members=[{"id": "i1", "process_id": pid}, {"id": "i2"}, {"id": "i3"}]))
    assert str(s.members[0].process_id) == pid
    assert s.members[1].process_id == default_process_id("i2")


@pytest.mark.parametrize("change, field", [
    ({"kind": "share"}, "kind"),
    ({"topics": {"a": 2, "b": 2}}, "topics"),
    ({"topics": {"a": 0}}, "topics.a"),
    ({"protocol": "eager"}, "protocol"),
    ({"config": {"max.warmup.replicas": 0}}, "config.max.warmup.replicas"),
    ({"config": {"probing.rebalance.interval.ms": 1000}}, "config.probing.rebalance.interval.ms"),
    ({"config": {"group.protocol": "consumer"}}, "config.group.protocol"),
    ({"config": {"partition.assignment.strategy": "x"}}, "config.partition.assignment.strategy"),
    ({"members": [{"id": "i1", "process_id": "not-a-uuid"}]}, "members[0].process_id"),
    ({"members": [{"id": "i1"}, {"id": "i1"}]}, "members[1].id"),
    ({"events": [{"at_ms": 1, "op": "join", "member": "i9"}]}, "events[0].member"),
    ({"events": [{"at_ms": 1, "op": "scale", "member": "i1"}]}, "events[0].op"),
    ({"events": [{"at_ms": 1, "op": "set_config", "config": {"num.stream.threads": 2}}]},
     "events[0].config.num.stream.threads"),
    ({"events": [{"at_ms": 1, "op": "set_config", "config": {"max.warmup.replicas": 0}}]},
     "events[0].config.max.warmup.replicas"),
    ({"config": {"group.protocol": "streams"}, "events": [{"at_ms": 1, "op": "set_config",
                                                           "config": {"max.warmup.replicas": 1}}]}, "events[0].op"),
    ({"events": [{"at_ms": 1, "op": "leave", "member": "i1", "config": {}}]}, "events[0].config"),
    ({"events": [{"at_ms": 1, "op": "leave", "member": "i3"}, {"at_ms": 2, "op": "crash", "member": "i3"}]},
     "events[1].op"),
    ({"events": [{"at_ms": 1, "op": "leave", "member": "i1", "down_ms": 5}]}, "events[0].down_ms"),
    ({"until_ms": 0}, "until_ms"),
])
def test_bad_input_names_its_field(change, field):
    bad = _scenario(**change)
    with pytest.raises(InputError) as exc:
        simulate_streams(bad)
    assert exc.value.field == field


def test_simulate_dispatches_on_kind_and_keeps_going_past_a_bad_line():
    good = _examples()[0]
    bad = _scenario(config={"max.warmup.replicas": 0})
    out = []
    ok, errors = simulate_lines([Line("f", 1, bad), Line("f", 2, good)], out.append)
    assert (ok, errors) == (1, 1)
    assert out[0]["error"]["field"] == "config.max.warmup.replicas"
    assert out[-1]["summary"]["settled"] is True
    assert kind_compute({"kind": "streams"}).__module__ == "rebalance.streams.simulate"


@st.composite
def scenarios(draw):
    n = draw(st.integers(1, 4))
    names = [f"i{k}" for k in range(1, n + 2)]
    members = [{"id": m} for m in names]
    protocol = draw(st.sampled_from(["classic", "streams"]))
    config = {"group.protocol": protocol, "acceptable.recovery.lag": draw(st.sampled_from([0, 100, 5000])),
              "max.warmup.replicas": draw(st.integers(1, 3)), "num.standby.replicas": draw(st.integers(0, 2)),
              "probing.rebalance.interval.ms": 60000, "session.timeout.ms": 10000, "heartbeat.interval.ms": 1000}
    events, running, t = [], {m: True for m in names[:-1]}, 0
    events.append({"at_ms": draw(st.integers(1000, 5000)), "op": "join", "member": names[-1]})
    running[names[-1]] = False
    t = events[0]["at_ms"]
    running[names[-1]] = True
    for _ in range(draw(st.integers(0, 4))):
        t += draw(st.integers(1000, 90000))
        m = draw(st.sampled_from(names))
        op = draw(st.sampled_from(["leave", "crash", "restart"])) if running[m] else "restart"
        e = {"at_ms": t, "op": op, "member": m}
        if op == "restart":
            e["down_ms"] = draw(st.integers(0, 3000))
        events.append(e)
        running[m] = op == "restart"
    return {"kind": "streams", "topics": {"t": draw(st.integers(1, 8))}, "records": draw(st.sampled_from([0, 300, 6000])),
            "keys": 300, "members": members, "config": config, "events": events, "until_ms": t + 700000}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_every_rebalance_assigns_each_task_once_and_a_quiet_group_settles(s):
    *rows, summary = simulate_streams(s)
    tasks = [f"0_{p}" for p in range(s["topics"]["t"])]
    gens = [r["generation"] for r in rows]
    assert gens == sorted(set(gens))
    for r in rows:
        actives = sorted(t for a in r["assignment"].values() for t in a["active"])
        if s["config"]["group.protocol"] == "classic":
            assert actives == sorted(tasks)  # the assignor's answer: every task active on exactly one instance
        else:  # a crashed member keeps its tasks in the target assignment until its session ends
            assert len(actives) == len(set(actives)) and set(actives) <= set(tasks)
        for m, a in r["assignment"].items():
            assert not set(a["active"]) & set(a["standby"])
            assert set(r["warmups"].get(m, [])) <= set(a["standby"])
        assert sum(len(w) for w in r["warmups"].values()) <= s["config"]["max.warmup.replicas"]
        if s["config"]["group.protocol"] == "streams":
            assert r["warmups"] == {} and r["followup"] is None
    # 700 s after the last event (more than ten probing intervals on a group of at most five): settled
    assert summary["summary"]["settled"] is True
    assert summary["summary"]["probing_until_balanced"] is not None
