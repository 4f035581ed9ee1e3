"""Ties a real group breaks by its random member ids, predicted as alternatives (issue 35, item 2).

``simulate --alternatives N`` and :func:`rebalance.simulate.simulate_alternatives` (consumer groups),
:func:`rebalance.connect.connect_alternatives` (Connect): the simulator run again over draws of member ids.  The
real runs these tests check against are the recorded peer runs in ``benchmarks/`` (real Kafka 4.3.1)."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from rebalance.connect import connect_alternatives, simulate_connect
from rebalance.share import share_alternatives, simulate_share
from rebalance.simulate import (line_alternatives, moved_partitions, simulate_alternatives, simulate_draw,
                                simulate_scenario)

ROOT = Path(__file__).resolve().parents[1]
PEER = ROOT / "benchmarks"


def _peer_row(name, jsonl):
    for line in (PEER / jsonl).read_text().splitlines():
        row = json.loads(line)
        if row["id"] == name:
            return row
    raise AssertionError(f"{name} is not in {jsonl}")


DRAWS = json.loads((PEER / "kafka_peer_draws_2026-11-27.json").read_text())  # the run of 2026-11-27


def _matches(row, seq):
    s, real = row["scenario"], row["kafka"]
    since = s["measure_from_ms"]
    return ([r.assignment for r in seq if r.at_ms >= since]
            == [r["assignment"] for r in real["rebalances"] if r["at_ms"] >= since]
            and moved_partitions(seq, since) == real["summary"]["moved_partitions"])


@pytest.mark.parametrize("name", ["s057-cooperative-cooperative-sticky", "s098-eager-sticky",
                                  "s016-consumer-uniform", "s083-consumer-range"])
def test_the_real_tie_is_one_of_the_draws_and_not_the_simulators_own_run(name):
    """Four recorded real runs whose ties the broker broke otherwise than the simulator's own ids: each is the draw
    ``kafka_peer_draws_2026-11-27.json`` names (a classic leader's HashMap order of ``c1-<uuid>`` ids; a KIP-848 group's
    random ids, a restarted member's new one anywhere among the others, and which member heartbeated first), and
    not the simulator's own run."""
    row = _peer_row(name, "kafka_peer_runs_2026-11-27.jsonl")
    draw = DRAWS[name]
    assert draw > 0
    assert not _matches(row, simulate_draw(row["scenario"], None))
    assert _matches(row, simulate_draw(row["scenario"], draw - 1))
    assert any(_matches(row, seq) for seq in simulate_alternatives(row["scenario"], draw))


def test_the_simulators_own_run_comes_first_and_a_range_group_has_no_tie():
    """Eager Range sorts members by member id, whose client-id prefix the random suffix keeps: one outcome."""
    s = {"id": "r", "protocol": "eager", "assignor": "range", "topics": {"t": 7},
         "members": [{"id": f"c{i}"} for i in range(1, 4)],
         "events": [{"at_ms": 20_000, "op": "join", "member": "c3"}], "until_ms": 40_000}
    seqs = simulate_alternatives(s, 16)
    own = simulate_scenario(s).rebalances
    assert [(r.generation, r.assignment) for r in seqs[0]] == [(r.generation, r.assignment) for r in own]
    assert len(seqs) == 1
    assert all(alt == [] for alt in line_alternatives(seqs))


def test_a_cooperative_sticky_join_has_alternatives_on_its_lines():
    """Three members own two partitions each; a fourth joins: which one gives a partition up is a tie."""
    s = {"id": "c", "protocol": "cooperative", "topics": {"t": 6}, "members": [{"id": f"c{i}"} for i in range(1, 5)],
         "events": [{"at_ms": 20_000, "op": "join", "member": "c4"}], "until_ms": 40_000}
    alts = line_alternatives(simulate_alternatives(s, 32))
    assert alts[0] == []  # the formation: no tie
    assert len(alts[-1]) >= 2  # the last: c4's partition from any of c1, c2, c3


_topics = st.dictionaries(st.sampled_from(["t", "u"]), st.integers(1, 5), min_size=1)


@settings(max_examples=25, deadline=None)
@given(topics=_topics, n=st.integers(2, 4), protocol=st.sampled_from(["eager", "cooperative", "consumer"]),
       assignor=st.sampled_from([None, "sticky"]), op=st.sampled_from(["join", "leave", "crash"]))
def test_every_alternative_gives_each_partition_at_most_once_and_all_in_the_end(topics, n, protocol, assignor, op):
    """(A cooperative group's first rebalance of two holds back what is being revoked.)"""
    s = {"id": "p", "protocol": protocol, "topics": topics, "members": [{"id": f"c{i}"} for i in range(1, n + 1)],
         "events": [{"at_ms": 15_000, "op": op, "member": f"c{n}"}], "until_ms": 40_000}
    if assignor and protocol == "eager":
        s["assignor"] = assignor
    want = sorted(f"{t}-{p}" for t, k in topics.items() for p in range(k))
    for seq in simulate_alternatives(s, 8):
        for r in seq:
            got = [tp for tps in r.assignment.values() for tp in tps]
            assert len(got) == len(set(got)) and set(got) <= set(want)
        assert sorted(tp for tps in seq[-1].assignment.values() for tp in tps) == want


def test_the_cli_puts_alternatives_on_consumer_lines_only_when_asked():
    s = {"id": "c", "protocol": "cooperative", "topics": {"t": 6}, "members": [{"id": f"c{i}"} for i in range(1, 5)],
         "events": [{"at_ms": 20_000, "op": "join", "member": "c4"}], "until_ms": 40_000}
    run = lambda *a: subprocess.run([sys.executable, "-m", "rebalance", "simulate", "-", *a], input=json.dumps(s),  # noqa: E731
                                    capture_output=True, text=True, cwd=ROOT, timeout=120)
    plain, asked = run(), run("--alternatives", "8")
    assert plain.returncode == asked.returncode == 0, plain.stderr + asked.stderr
    lines = [json.loads(x) for x in asked.stdout.splitlines()]
    assert all("alternatives" in x for x in lines if "summary" not in x)
    assert not any("alternatives" in json.loads(x) for x in plain.stdout.splitlines())
    assert [{k: v for k, v in x.items() if k != "alternatives"} for x in lines] == \
        [json.loads(x) for x in plain.stdout.splitlines()]


def test_bad_draws_name_the_field():
    from rebalance.errors import InputError

    with pytest.raises(InputError, match="draws"):
        simulate_alternatives({"protocol": "eager", "topics": {"t": 1}, "members": [{"id": "a"}], "until_ms": 1000}, 0)


def test_a_connect_tie_the_real_cluster_broke_otherwise_is_one_of_the_draws():
    """A recorded real Connect run (sessioned, a connector removed; the peer run of 2026-11-29): the load-balancing
    revocation took a task from another worker than the simulator's numbered ids do; a draw of ids ending in random
    UUIDs does as the real one."""
    row = json.loads((ROOT / "tests" / "kafka" / "recorded" / "connect-peer-1-tie.jsonl").read_text())
    real_last = row["real"][-2]["assignment"]
    assert simulate_connect(row["scenario"])[-2]["assignment"] != real_last
    draws = connect_alternatives(row["scenario"], 32)
    assert any(d[-2]["assignment"] == real_last for d in draws[1:])


def test_the_readme_sentence_on_the_eager_sticky_example():
    """README: "the join at 20 s can take `t-3`, `t-4` or `t-5` for `c4`" (``--alternatives 32``)."""
    readme = (ROOT / "README.md").read_text()
    assert "the join at 20 s can take `t-3`, `t-4` or `t-5` for `c4`" in readme
    line = json.loads((ROOT / "examples" / "simulate_join.jsonl").read_text().splitlines()[0])
    assert line["id"] == "eager-sticky"
    seqs = simulate_alternatives(line, 32)
    join = [r for r in seqs[0] if r.at_ms >= 20_000][0]
    alts = line_alternatives(seqs)[seqs[0].index(join)]
    assert sorted(tp for a in [join.assignment, *alts] for tp in a["c4"]) == ["t-3", "t-4", "t-5"]


def test_a_share_group_tie_the_broker_broke_otherwise_is_one_of_the_draws():
    """A recorded real share run (``share-peer-041``) whose partition counts per member differ from the model's own
    run: ``SimpleAssignor`` orders members by their random ids on the broker; a draw of ids does as the broker did."""
    sys.path.insert(0, str(PEER))
    try:
        import bench_share_peer as b
    finally:
        sys.path.remove(str(PEER))
    row = _peer_row("share-peer-041", "share_peer_runs.jsonl")
    scenario = {s["id"]: s for s in b.draw(42, 0)}["share-peer-041"]
    own = simulate_share(scenario)
    assert b._shape(own[:-1]) != row["real_shape"]
    draws = share_alternatives(scenario, 32)
    assert draws[0] == own
    assert any(b._shape(d[:-1]) == row["real_shape"] for d in draws[1:])
