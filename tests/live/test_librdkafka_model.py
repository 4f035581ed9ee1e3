"""librdkafka's departures from Kafka's Java assignors (rebalance.live.librdkafka_model), against real librdkafka.

* Offline (milliseconds): every disagreement the peer benchmark recorded (range rounds and cooperative-sticky
  rounds of members subscribing differently, rebalance/live/observed_rounds.jsonl) is a real librdkafka output
  that the book's Kafka answer does not give and the model of librdkafka's departure does, exactly; so is
  every recorded same-subscription round (rebalance/live/observed_same_subscription_rounds.jsonl), where
  Kafka takes its constrained path and librdkafka its general algorithm in sortPartitions' order.
* Live (about 5 s each): the co-partitioned Range departure with two real consumers, and the two crashes of
  librdkafka's sticky assignor (the abort at rdkafka_sticky_assignor.c line 404, the segmentation fault after
  line 363 freed a list still pointed into) on inputs where the model predicts them for every order of member
  ids; the crashing groups run in a child process.
"""
from __future__ import annotations

import importlib.util
import itertools
import os
import subprocess
import sys
import textwrap

import pytest

from rebalance.consumer import assign
from rebalance.live.librdkafka_model import (LibrdkafkaCrash, librdkafka_general_assign, librdkafka_range_assign,
                                             observed_disagreements, observed_same_subscription_rounds)
from rebalance.live.peer import book_answer, cooperative_adjust


def _by_name(inputs, answer):
    return {m["name"]: sorted(map(tuple, answer[m["id"]])) for m in inputs["members"]}


def _specs(inputs):
    return {m["id"]: {"topics": m["topics"], "rack": m["rack"], "owned": [tuple(tp) for tp in m["owned"]],
                      "generation": m["synced"]} for m in inputs["members"]}


def test_every_recorded_disagreement_is_librdkafkas_documented_departure():
    rounds = observed_disagreements()
    assert {r["assignor"] for r in rounds} == {"range", "cooperative-sticky"}
    for r in rounds:
        live = {n: sorted(map(tuple, tps)) for n, tps in r["live"].items()}
        if r["assignor"] == "range":
            specs = {m["id"]: {"topics": m["topics"], "rack": m["rack"]} for m in r["members"]}
            model = _by_name(r, librdkafka_range_assign(r["partitions"], specs, partition_racks=r["partition_racks"]))
            assert any(m["rack"] is None for m in r["members"]) and any(m["rack"] for m in r["members"])
            assert book_answer(r) != {n: tuple(v) for n, v in live.items()}, r["group"]
        else:
            run = librdkafka_general_assign(r["partitions"], _specs(r))
            model = _by_name(r, run.assignment)
            # the substitution: librdkafka moved another partition than the one Kafka moves back
            assert len(run.substitutions) == 1 and run.substitutions[0][0] != run.substitutions[0][1]
            owned = {m["name"]: tuple(map(tuple, m["owned"])) for m in r["members"]}
            assert book_answer(r) != cooperative_adjust({n: tuple(v) for n, v in live.items()}, owned), r["group"]
        assert model == live, r["group"]


def test_a_partition_moved_back_is_the_next_one_in_librdkafkas_movement_list():
    """c1 owns everything; c2 (both topics) and c3 (t1) join.  Kafka moves t0-0 back to c1, librdkafka t0-1."""
    members = {"c1": {"topics": ["t0", "t1"], "owned": [("t0", p) for p in range(5)] + [("t1", p) for p in range(5)],
                      "generation": 2},
               "c2": {"topics": ["t0", "t1"]}, "c3": {"topics": ["t1"]}}
    java = assign("cooperative-sticky", {"t0": 5, "t1": 5}, members)
    run = librdkafka_general_assign({"t0": 5, "t1": 5}, members)
    assert run.substitutions == [(("t0", 0), ("t0", 1))]
    assert ("t0", 0) in java["c1"] and ("t0", 1) in run.assignment["c1"] and ("t0", 0) not in run.assignment["c1"]


#: groups where c1 owns every partition and the other three join together, and the model stops for every order
#: of member ids: at the rd_assert of line 404 (a partition whose record went stale is moved), or reading a
#: movement list freed at line 363 (the one partition moved along that pair was moved back)
CRASHING = {
    404: {"topics": {"t0": 8, "t1": 6},
          "subscriptions": {"c1": ["t0", "t1"], "c2": ["t1"], "c3": ["t0", "t1"], "c4": ["t1"]}},
    363: {"topics": {"t0": 2, "t1": 2, "t2": 8},
          "subscriptions": {"c1": ["t0", "t1", "t2"], "c2": ["t0"], "c3": ["t0", "t1", "t2"], "c4": ["t0", "t1", "t2"]}},
}


@pytest.mark.parametrize("line", sorted(CRASHING))
def test_the_model_stops_where_java_does_not(line):
    topics, subs = CRASHING[line]["topics"], CRASHING[line]["subscriptions"]
    owned = [(t, p) for t in subs["c1"] for p in range(topics[t])]
    for order in itertools.permutations(sorted(subs)):
        ids = {name: f"id{i}" for i, name in enumerate(order)}  # every ordering of member ids
        members = {ids[n]: {"topics": subs[n], **({"owned": owned, "generation": 1} if n == "c1" else {})}
                   for n in sorted(subs)}
        with pytest.raises(LibrdkafkaCrash) as crash:
            librdkafka_general_assign(topics, members)
        assert crash.value.line == line
        assert sum(map(len, assign("cooperative-sticky", topics, members).values())) > 0  # Kafka: an answer


live = pytest.mark.skipif(importlib.util.find_spec("confluent_kafka") is None, reason="confluent-kafka not installed")


@live
@pytest.mark.timeout(120)
@pytest.mark.parametrize("line, exit_code", [(404, -6), (363, -11)])
def test_real_librdkafka_crashes_on_those_groups(line, exit_code):
    """The real leader's process dies: SIGABRT with the assertion of line 404, or SIGSEGV (-11) after the
    movement list was freed (undefined behaviour; a segmentation fault in every run tried here)."""
    spec = CRASHING[line]
    total = sum(spec["topics"][t] for t in spec["subscriptions"]["c1"])
    script = textwrap.dedent(f"""
        from rebalance.live import LiveGroup, MemberConfig, MockCluster
        spec = {spec!r}
        mc = MockCluster(1)
        for t, n in spec["topics"].items():
            mc.create_topic(t, n)
        with LiveGroup(mc, "crashing") as g:
            g.join("c1", MemberConfig(topics=tuple(spec["subscriptions"]["c1"]), strategy="cooperative-sticky"))
            print("settled alone with", sum(map(len, g.wait_settled(quiet_ms=800).values())), flush=True)
            for n in ("c2", "c3", "c4"):
                g.join(n, MemberConfig(topics=tuple(spec["subscriptions"][n]), strategy="cooperative-sticky"))
            g.wait_settled(timeout_s=40, quiet_ms=800)
        mc.close()
        print("no abort", flush=True)
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=100, env=env)
    assert f"settled alone with {total}" in proc.stdout, proc.stdout + proc.stderr[-2000:]
    assert proc.returncode == exit_code, (proc.returncode, proc.stdout, proc.stderr[-2000:])
    if line == 404:
        assert "rdkafka_sticky_assignor.c:404" in proc.stderr


@live
@pytest.mark.timeout(120)
def test_real_librdkafka_range_skips_a_rackless_member_in_the_co_partitioned_pass():
    """Two topics of three partitions on brokers in racks a, b, c (one replica each); member ``a`` has
    ``client.rack`` a, member ``none`` has no rack.  For either order of their member ids Kafka's Range and
    librdkafka's differ (``rebalance.live.librdkafka_model``); librdkafka's live answer is the model's."""
    from rebalance.live import LiveGroup, MemberConfig, MockCluster

    with MockCluster(3, racks=["a", "b", "c"]) as mc:
        for t in ("x", "y"):
            mc.create_topic(t, 3, 1)
        with LiveGroup(mc, "copartitioned") as g:
            g.join("a", MemberConfig(topics=("x", "y"), strategy="range", rack="a"))
            g.join("none", MemberConfig(topics=("x", "y"), strategy="range"))
            settled = g.wait_settled(quiet_ms=1500)
            last = g.rounds()[-1]
        racks = {t: mc.replica_racks(t) for t in ("x", "y")}
    assert racks["x"] == [["a"], ["b"], ["c"]]
    members = {last.member_ids[n]: {"topics": ["x", "y"], "rack": "a" if n == "a" else None} for n in ("a", "none")}
    java = assign("range", {"x": 3, "y": 3}, members, partition_racks=racks)
    model = librdkafka_range_assign({"x": 3, "y": 3}, members, partition_racks=racks)
    live_answer = {last.member_ids[n]: sorted(settled[n]) for n in ("a", "none")}
    assert {m: sorted(v) for m, v in model.items()} == live_answer
    assert {m: sorted(v) for m, v in java.items()} != live_answer


def _model_by_name(r):
    return _by_name(r, librdkafka_general_assign(r["partitions"], _specs(r),
                                                 partition_racks=r["partition_racks"]).assignment)


def test_recorded_same_subscription_rounds_are_librdkafkas_general_algorithm():
    """Members subscribing alike: Kafka's constrained path and librdkafka's general algorithm differ on most
    of these recorded rounds; the model of librdkafka's assign_cb gives librdkafka's raw output on all."""
    rounds = observed_same_subscription_rounds()
    assert rounds and all(len({tuple(sorted(m["topics"])) for m in r["members"]}) == 1 for r in rounds)
    differ = 0
    for r in rounds:
        live = {n: sorted(map(tuple, tps)) for n, tps in r["live"].items()}
        assert _model_by_name(r) == live, (r["group"], r["generation"])
        owned = {m["name"]: tuple(map(tuple, m["owned"])) for m in r["members"]}
        differ += book_answer(r) != cooperative_adjust({n: tuple(v) for n, v in live.items()}, owned)
    assert 0 < differ < len(rounds)  # both kinds are in the file: the model is not the book


def test_librdkafka_deals_new_partitions_highest_first_and_keeps_the_round_robin_order():
    """c1 owns t0-0..3 of six, c2 joins.  Kafka's constrained path: c1 keeps 0-2, c2 gets 4 and 5 (3 after
    c1 revoked it).  librdkafka (sortPartitions' identical-subscription branch): the unowned partitions are
    listed 5, 4 (reverse map order) and dealt to c2; the balance loop walks the owned ones in round-robin
    order 0, 1, 2, 3 and moves t0-0: c1 keeps 1-3."""
    members = {"c1": {"topics": ["t0"], "owned": [("t0", p) for p in range(4)], "generation": 1},
               "c2": {"topics": ["t0"]}}
    run = librdkafka_general_assign({"t0": 6}, members)
    assert run.identical
    assert run.assignment["c2"] == [("t0", 5), ("t0", 4), ("t0", 0)]
    assert sorted(run.assignment["c1"]) == [("t0", 1), ("t0", 2), ("t0", 3)]
    assert assign("cooperative-sticky", {"t0": 6}, members) == {"c1": [("t0", 0), ("t0", 1), ("t0", 2)],
                                                                "c2": [("t0", 4), ("t0", 5)]}


def test_a_partition_with_an_earlier_owner_comes_first_in_the_round_robin():
    """b's stale claim of t0-3 (generation 3, a owns it in 4) makes b its previous owner
    (prepopulateCurrentAssignments, lines 1470-1478): sortPartitions lists it first among a's partitions (lines
    1712-1738), and the balance loop gives it back to b, where without the claim it moves t0-0."""
    members = {"a": {"topics": ["t0"], "owned": [("t0", p) for p in range(4)], "generation": 4},
               "b": {"topics": ["t0"], "owned": [("t0", 3)], "generation": 3}}
    assert sorted(librdkafka_general_assign({"t0": 6}, members).assignment["b"]) == [("t0", 3), ("t0", 4), ("t0", 5)]
    members["b"] = {"topics": ["t0"]}
    assert sorted(librdkafka_general_assign({"t0": 6}, members).assignment["b"]) == [("t0", 0), ("t0", 4), ("t0", 5)]
