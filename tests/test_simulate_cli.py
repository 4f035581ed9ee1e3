"""`python -m rebalance simulate`: the group simulators from the command line (issue 14, item 3)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rebalance.errors import InputError
from rebalance.simulate import (CompletedRebalance, config_from_json, moved_partitions, parse_scenario,
                                simulate_scenario)
from rebalance.kip848.config import KIP848Config
from rebalance.protocol.config import ProtocolConfig

ROOT = Path(__file__).resolve().parents[1]


def _cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "rebalance", "simulate", *args], capture_output=True, text=True,
                          input=stdin, cwd=ROOT, timeout=120)


def join(protocol, assignor=None, partitions=6, until_ms=60_000, **extra):
    """Three members form a group; a fourth joins at 20 s."""
    s = {"id": f"{protocol}-join", "protocol": protocol, "topics": {"t": partitions},
         "members": [{"id": f"c{i}"} for i in range(1, 5)],
         "events": [{"at_ms": 20_000, "op": "join", "member": "c4"}], "until_ms": until_ms, **extra}
    if assignor is not None:
        s["assignor"] = assignor
    return s


def _partitions(assignment):
    return sorted(tp for tps in assignment.values() for tp in tps)


def test_eager_sticky_join_moves_exactly_one_partition():
    """The issue's acceptance case, through the command line."""
    res = _cli("-", stdin=json.dumps(join("eager", "sticky")) + "\n")
    assert res.returncode == 0, res.stderr
    rows = [json.loads(x) for x in res.stdout.splitlines()]
    *rebalances, last = rows
    assert last["id"] == "eager-join" and last["summary"]["moved_partitions"] == 1
    assert last["summary"]["rebalances"] == len(rebalances) == 2
    assert last["summary"]["double_ownership"] == 0
    before, after = rebalances[0]["assignment"], rebalances[1]["assignment"]
    assert sorted(before) == ["c1", "c2", "c3"] and sorted(after) == ["c1", "c2", "c3", "c4"]
    assert _partitions(before) == _partitions(after) == [f"t-{p}" for p in range(6)]
    assert sorted(len(v) for v in after.values()) == [1, 1, 2, 2]
    kept = sum(len(set(before[m]) & set(after[m])) for m in before)
    assert kept == 5  # the other five stay where they were
    assert [r["generation"] for r in rebalances] == [1, 2]
    assert rebalances[0]["at_ms"] < 20_000 < rebalances[1]["at_ms"]


def test_eager_range_join_moves_more_than_sticky():
    # 7 partitions: Range gives 0-2, 3-4, 5-6 to three members, then 0-1, 2-3, 4-5, 6 to four (t-2, t-4 and
    # t-6 change owner); Sticky keeps 3, 2, 2 and moves one partition to the newcomer
    assert simulate_scenario(join("eager", "range", partitions=7)).summary()["moved_partitions"] == 3
    assert simulate_scenario(join("eager", "sticky", partitions=7)).summary()["moved_partitions"] == 1


def test_cooperative_join_moves_one_partition_in_two_rebalances():
    out = simulate_scenario(join("cooperative", "cooperative-sticky"))
    gens = [r.generation for r in out.rebalances]
    assert gens == [1, 2, 3]
    # the first rebalance after the join only revokes: the moved partition belongs to nobody in it
    assert len(_partitions(out.rebalances[1].assignment)) == 5 and out.rebalances[1].assignment["c4"] == []
    assert len(out.rebalances[2].assignment["c4"]) == 1
    summary = out.summary()
    assert summary["moved_partitions"] == 1 and summary["revocations"] == 1
    assert summary["double_ownership"] == 0 and summary["settled"]


def test_consumer_protocol_runs_and_settles():
    out = simulate_scenario(join("consumer"))
    assert len(out.rebalances) == 2
    first, last = out.rebalances
    assert last.generation > first.generation and last.at_ms > 20_000
    assert sorted(last.assignment) == ["c1", "c2", "c3", "c4"]
    assert _partitions(last.assignment) == [f"t-{p}" for p in range(6)]
    summary = out.summary()
    assert summary["settled"] and summary["double_ownership"] == 0
    assert summary["moved_partitions"] == moved_partitions(out.rebalances) >= 1


def static_restart(protocol, op):
    """Three static members; c2 goes down at 20 s (``op``) and restarts at 30 s."""
    return {"id": "static", "protocol": protocol, "topics": {"t": 6},
            "members": [{"id": f"c{i}", "instance_id": f"i{i}"} for i in range(1, 4)],
            "events": [{"at_ms": 20_000, "op": op, "member": "c2"}, {"at_ms": 30_000, "op": "restart", "member": "c2"}],
            "until_ms": 120_000}


@pytest.mark.parametrize("protocol, op", [("eager", "leave"), ("eager", "crash"), ("cooperative", "leave"),
                                          ("cooperative", "crash"), ("consumer", "leave")])
def test_static_member_restart_within_session_timeout_causes_no_rebalance(protocol, op):
    out = simulate_scenario(static_restart(protocol, op))
    assert len(out.rebalances) == 1 and out.rebalances[0].at_ms < 20_000  # only the group's formation
    assert out.summary()["moved_partitions"] == 0
    # c2's partitions wait for it: about ten seconds each without an owner, no one else takes them
    assert out.unowned_partition_seconds > 0


def test_kip848_static_member_that_crashed_waits_for_its_session_to_expire():
    # KIP-848: the crashed member never sent epoch -2, so its instance id is not released; the new process
    # gets UnreleasedInstanceIdException until the old member's session expires, then joins: a rebalance
    out = simulate_scenario(static_restart("consumer", "crash"))
    assert len(out.rebalances) == 2
    assert out.rebalances[1].at_ms > 20_000 + KIP848Config().session_timeout_ms - KIP848Config().heartbeat_interval_ms
    assert sorted(out.rebalances[1].assignment) == ["c1", "c2", "c3"]


def test_dynamic_member_crash_is_a_rebalance_after_the_session_timeout():
    s = {"id": "dynamic", "protocol": "eager", "topics": {"t": 6}, "members": [{"id": f"c{i}"} for i in range(1, 4)],
         "events": [{"at_ms": 20_000, "op": "crash", "member": "c3"}], "until_ms": 120_000}
    out = simulate_scenario(s)
    assert len(out.rebalances) == 2
    assert out.rebalances[1].at_ms >= 20_000 + ProtocolConfig().session_timeout_ms - ProtocolConfig().heartbeat_interval_ms
    assert sorted(out.rebalances[1].assignment) == ["c1", "c2"]


def test_config_maps_onto_the_dataclass_fields_by_name():
    cfg = config_from_json(ProtocolConfig, {"session_timeout_ms": 10_000, "heartbeat_interval_ms": 1_000})
    assert (cfg.session_timeout_ms, cfg.heartbeat_interval_ms) == (10_000, 1_000)
    cfg = config_from_json(KIP848Config, {"revoke_ms": 7})
    assert cfg.revoke_ms == 7
    with pytest.raises(InputError) as err:
        config_from_json(ProtocolConfig, {"no_such_setting": 1})
    assert err.value.field == "config.no_such_setting"
    # a shorter session timeout is seen by the simulator: the crash is noticed sooner
    base = {"id": "x", "protocol": "eager", "topics": {"t": 2}, "members": [{"id": "a"}, {"id": "b"}],
            "events": [{"at_ms": 10_000, "op": "crash", "member": "b"}], "until_ms": 90_000}
    slow = simulate_scenario(base).rebalances[-1].at_ms
    fast = simulate_scenario(dict(base, config={"session_timeout_ms": 10_000, "heartbeat_interval_ms": 1_000}))
    assert fast.rebalances[-1].at_ms < slow


def test_moved_partitions_counts_owner_changes_across_unassigned_gaps():
    r = [CompletedRebalance(1, 0, {"a": ["t-0", "t-1"]}), CompletedRebalance(2, 1, {"a": ["t-0"], "b": []}),
         CompletedRebalance(3, 2, {"a": ["t-0"], "b": ["t-1"]}), CompletedRebalance(4, 3, {"b": ["t-0", "t-1"]})]
    assert moved_partitions(r) == 2  # t-1 a -> (nobody) -> b, then t-0 a -> b
    assert moved_partitions(r[:1]) == 0


GOOD = {"protocol": "eager", "topics": {"t": 4}, "members": [{"id": "c1"}, {"id": "c2"}], "until_ms": 30_000}


@pytest.mark.parametrize("change, field", [
    ({"protocol": "classic"}, "protocol"),
    ({"protocol": None}, "protocol"),
    ({"topics": {}}, "topics"),
    ({"topics": {"t": -1}}, "topics.t"),
    ({"topics": {"t": "4"}}, "topics.t"),
    ({"topics": {"t": 10**12}}, "topics.t"),  # over the size limit
    ({"members": []}, "members"),
    ({"members": [{"id": "c1"}, {"id": "c1"}]}, "members[1].id"),
    ({"members": [{"id": 5}]}, "members[0].id"),
    ({"members": [{"id": "c1", "topics": ["nope"]}]}, "members[0].topics[0]"),
    ({"members": [{"id": "c1", "topics": "t"}]}, "members[0].topics"),
    ({"members": [{"id": "c1", "instance_id": 1}]}, "members[0].instance_id"),
    ({"members": [{"id": "c1", "rack": "r"}]}, "members[0].rack"),
    ({"until_ms": -1}, "until_ms"),
    ({"until_ms": "1"}, "until_ms"),
    ({"measure_from_ms": 40_000}, "measure_from_ms"),
    ({"assignor": "fastest"}, "assignor"),
    ({"protocol": "cooperative", "assignor": "range"}, "assignor"),
    ({"protocol": "consumer", "assignor": "sticky"}, "assignor"),
    ({"config": {"session_timeout": 1}}, "config.session_timeout"),
    ({"config": {"session_timeout_ms": True}}, "config.session_timeout_ms"),
    ({"config": {"heartbeat_interval_ms": 60_000}}, "config.heartbeat_interval_ms"),
    ({"config": []}, "config"),
    ({"protocol": "consumer", "config": {"revoke_ms": -1}}, "config.revoke_ms"),
    ({"events": {}}, "events"),
    ({"events": [{"at_ms": -5, "op": "crash", "member": "c1"}]}, "events[0].at_ms"),
    ({"events": [{"at_ms": 40_000, "op": "crash", "member": "c1"}]}, "events[0].at_ms"),
    ({"events": [{"at_ms": 5, "op": "explode", "member": "c1"}]}, "events[0].op"),
    ({"events": [{"at_ms": 5, "op": "crash", "member": "c9"}]}, "events[0].member"),
    ({"events": [{"at_ms": 5, "op": "crash", "member": "c1", "why": "x"}]}, "events[0].why"),
    ({"events": [{"at_ms": 5, "op": "crash", "member": "c1"}, {"at_ms": 6, "op": "leave", "member": "c1"}]},
     "events[1].op"),
    ({"events": [{"at_ms": 5, "op": "crash", "member": "c1"}, {"at_ms": 6, "op": "join", "member": "c1"}]},
     "events[1].op"),
    ({"colour": "red"}, "colour"),
])
def test_bad_input_names_the_field(change, field):
    with pytest.raises(InputError) as err:
        parse_scenario({**GOOD, **change})
    assert err.value.field == field


def test_a_bad_line_in_the_middle_does_not_stop_the_others(tmp_path):
    lines = [json.dumps(dict(GOOD, id="first")), json.dumps(dict(GOOD, id="bad", topics={"t": -1})), "{not json",
             json.dumps(dict(GOOD, id="last", protocol="consumer"))]
    f = tmp_path / "scenarios.jsonl"
    f.write_text("\n".join(lines) + "\n")
    res = _cli(str(f))
    assert res.returncode == 1
    assert "2 line(s) could not be computed" in res.stderr and "Traceback" not in res.stderr
    rows = [json.loads(x) for x in res.stdout.splitlines()]
    assert [r["id"] for r in rows if "summary" in r] == ["first", "last"]
    errors = [r for r in rows if "error" in r]
    assert [(r["id"], r["error"]["field"]) for r in errors] == [("bad", "topics.t"), (f"{f}:3", "line")]
    assert [r["id"] for r in rows].index("bad") < [r["id"] for r in rows].index("last")


def test_a_file_may_be_one_object_or_an_array(tmp_path):
    one = tmp_path / "one.json"
    one.write_text(json.dumps(join("eager", "sticky"), indent=2))
    many = tmp_path / "many.json"
    many.write_text(json.dumps([dict(GOOD, id="a"), 5, dict(GOOD, id="b")], indent=2))
    res = _cli(str(one), str(many), "--max-cells", "0")
    rows = [json.loads(x) for x in res.stdout.splitlines()]
    assert [r["id"] for r in rows if "summary" in r] == ["eager-join", "a", "b"]
    assert [r["id"] for r in rows if "error" in r] == [f"{many}:2"]
    assert res.returncode == 1


def test_a_file_that_is_not_text_is_one_error_line(tmp_path):
    f = tmp_path / "binary.json"
    f.write_bytes(b"\xff\xfe\x00garbage")
    res = _cli(str(f), str(tmp_path / "missing.json"))
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert json.loads(res.stdout)["error"]["field"] == "file"
    assert "missing.json: cannot read file" in res.stderr


def test_the_size_limit_and_max_cells():
    big = dict(GOOD, id="big", topics={"t": 3_000})
    res = _cli("-", "--max-cells", "1000", stdin=json.dumps(big))
    row = json.loads(res.stdout)
    assert row["error"]["field"] == "topics.t" and "too large" in row["error"]["message"]
    assert res.returncode == 1


def test_the_readme_example_is_the_command_output():
    """README's `simulate` section shows examples/simulate_join.jsonl and its output as run now."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("python -m rebalance simulate examples/simulate_join.jsonl", 1)[1]
    shown = section.split("```json", 1)[1].split("```", 1)[0].strip().splitlines()
    res = _cli(str(ROOT / "examples" / "simulate_join.jsonl"))
    assert res.returncode == 0
    assert [json.loads(x) for x in shown] == [json.loads(x) for x in res.stdout.splitlines()]


def test_on_kafka_plays_the_scenarios_poll():
    """A classic member's poll() returns at once unless the config gives ``poll_timeout_ms``; ``--on kafka``
    hands that value to each classic member's driver (``poll_ms``: poll(Duration.ofMillis(poll_ms)) while it
    owns partitions and processes batches) and the driver's idle poll to KIP-848 members."""
    from rebalance.kafka.consumers import DRIVER_POLL_MS, check_runnable, driver_poll_ms

    sc = {"id": "p", "protocol": "cooperative", "assignor": "cooperative-sticky", "topics": {"t": 4},
          "members": [{"id": "c1"}, {"id": "c2"}], "events": [], "until_ms": 20_000}
    assert parse_scenario(sc).config.poll_timeout_ms == 0
    check_runnable(sc, parse_scenario(sc))
    slow = dict(sc, config={"poll_timeout_ms": 500})
    check_runnable(slow, parse_scenario(slow))
    s, p = parse_scenario(sc), parse_scenario(slow)
    assert [driver_poll_ms(s, m) for m in s.members] == [0, 0]
    assert [driver_poll_ms(p, m) for m in p.members] == [500, 500]
    k = parse_scenario(dict(sc, protocol="consumer", assignor="uniform"))
    assert [driver_poll_ms(k, m) for m in k.members] == [DRIVER_POLL_MS, DRIVER_POLL_MS]
