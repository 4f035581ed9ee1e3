"""``diagnose`` on logs a real 4.3.1 broker wrote (``logs/``, kept from runs of ``run_scenario`` on one cluster):
the exact triggers, members and summaries of each group.

``classic-4.3.1.log`` holds the group lines of five classic groups (and a few other broker lines and settings):

* ``rebalance-5c96e9c9`` (eager, members e-c1..e-c3): e-c3 joins at 3 s, e-c2 leaves at 6 s, e-c1 crashes at 9 s;
* ``rebalance-ffbffc61`` (cooperative, ce-a..ce-c): ce-c joins at 3 s, ce-a restarts at 6 s (a leave, a new member);
* ``rebalance-50cc87c4`` (eager, se-a and the static se-ib): se-ib restarts within the session timeout (1 s down,
  no rebalance), then beyond it (6 s down, session 4 s);
* ``rebalance-cd3b04b7`` (eager, pe-a and pe-b): batches of 4 s with ``max.poll.interval.ms`` 2.5 s.

``consumer-4.3.1.log`` holds the same causes under the consumer protocol (member ids named from the members' own
records): ``rebalance-607160d0`` (k-c1..k-c3 as the first group), ``rebalance-2a7197bb`` (sk-a, static sk-b),
``rebalance-2331f933`` (pk-a, pk-b: poll timeouts).  After each scenario's end its members were killed: the last
rebalances of every group are session timeouts.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from rebalance.diagnose import diagnose

LOGS = Path(__file__).parent / "logs"
CONSUMER_NAMES = {"_vvlFoyQS6GSGSyvu_QLHg": "pk-a", "JwSVaMyIRSKftixXrIa3-A": "pk-b", "k7IdSXeHT_OgJzQwOl8-8A": "sk-a",
                  "V-Qre9bKRl68ZA_-o_osHA": "sk-b", "6R8SXwnOQxSJ-uCXtVYPwQ": "sk-b", "VIv7j-1kSLyL-sigwtDz7A": "sk-b"}


@pytest.fixture(scope="module")
def classic():
    return diagnose([str(LOGS / "classic-4.3.1.log")])


@pytest.fixture(scope="module")
def consumer():
    return diagnose([str(LOGS / "consumer-4.3.1.log")])


def _triggers(d, group, names=None):
    out = []
    for r in d.rebalances:
        if r["group"] == group:
            t = r["trigger"]
            out.append((r["generation"] if r["protocol"] == "classic" else r["epoch"], t["kind"],
                        (names or {}).get(t["member"], t["name"])))
    return out


def _summary(d, group):
    return next(s for s in d.summaries if s["group"] == group)


def test_the_file_is_read_whole(classic):
    log = classic.logs[0]
    assert log["not_recognised"] == 0 and log["continuation"] == 3
    assert log["recognised"] == log["broker"] == 105 and log["other"] == 13 and log["lines"] == 121


def test_eager_join_leave_crash(classic):
    assert _triggers(classic, "rebalance-5c96e9c9") == [
        (1, "join", "e-c2"), (2, "join", "e-c1"), (3, "join", "e-c3"), (4, "leave", "e-c2"), (5, "session timeout", "e-c1")]
    r = [x for x in classic.rebalances if x["group"] == "rebalance-5c96e9c9"]
    assert r[0]["ended"] == "superseded"   # e-c1 joined while generation 1 was completing
    assert r[3]["trigger"]["client_reason"] == "the consumer is being closed"
    assert len(r[3]["members_before"]) == 3 and len(r[3]["members_after"]) == 2
    assert r[4]["trigger"]["broker_reason"].startswith("removing member e-c1-")


def test_cooperative_join_and_restart(classic):
    assert _triggers(classic, "rebalance-ffbffc61") == [
        (1, "join", "ce-a"), (2, "join", "ce-b"), (3, "cooperative rejoin", "ce-a"), (4, "join", "ce-c"),
        (5, "cooperative rejoin", "ce-b"), (6, "leave", "ce-a"), (7, "join", "ce-a"), (8, "cooperative rejoin", "ce-c"),
        (9, "session timeout", "ce-c")]
    s = _summary(classic, "rebalance-ffbffc61")
    assert s["likely_cause"]["kind"] == "restart" and s["likely_cause"]["members"] == ["ce-a"]
    assert "group.instance.id" in s["likely_cause"]["settings"]
    last = [x for x in classic.rebalances if x["group"] == "rebalance-ffbffc61"][-1]
    assert last["ended"] == "empty" and [m["why"] for m in last["removed"]] == ["session timeout", "session timeout"]


def test_static_member_within_and_beyond_the_session_timeout(classic):
    assert _triggers(classic, "rebalance-50cc87c4") == [
        (1, "join", "se-a"), (2, "join", "se-ib"), (3, "session timeout", "se-ib"), (4, "join", "se-ib")]
    s = _summary(classic, "rebalance-50cc87c4")
    assert s["static_restarts_without_rebalance"] == 1
    assert s["likely_cause"]["kind"] == "static member restart beyond session timeout"
    assert s["likely_cause"]["members"] == ["se-ib"] and "session.timeout.ms" in s["likely_cause"]["settings"]
    r = [x for x in classic.rebalances if x["group"] == "rebalance-50cc87c4"]
    assert r[2]["trigger"]["instance_id"] == "se-ib" and "returns" in r[3]["trigger"]["note"]


def test_eager_poll_timeout(classic):
    assert _triggers(classic, "rebalance-cd3b04b7") == [
        (1, "join", "pe-b"), (2, "poll timeout", "pe-b"), (3, "join", "pe-b"), (4, "join", "pe-a"), (5, "join", "pe-b"),
        (6, "session timeout", "pe-a")]
    r = [x for x in classic.rebalances if x["group"] == "rebalance-cd3b04b7"]
    assert r[1]["trigger"]["client_reason"] == "consumer poll timeout has expired." and r[1]["ended"] == "empty"
    assert r[3]["removed"] == [{"member": "pe-b-00e35a66-1911-4c5c-9bad-80335061588c", "why": "rebalance timeout"}]
    s = _summary(classic, "rebalance-cd3b04b7")
    assert s["by_kind"] == {"join": 4, "poll timeout": 1, "session timeout": 1}


def test_consumer_protocol_join_leave_crash(consumer):
    got = _triggers(consumer, "rebalance-607160d0")
    assert [k for _, k, _ in got] == ["join", "join", "join", "leave", "session timeout"]
    assert [e for e, _, _ in got] == [2, 3, 4, 5, 6]
    r = [x for x in consumer.rebalances if x["group"] == "rebalance-607160d0"]
    assert r[3]["trigger"]["member"] == r[0]["trigger"]["member"]   # the first member to join is the one that left
    assert all(x["ended"] == "target" for x in r)


def test_consumer_protocol_static_member(consumer):
    assert _triggers(consumer, "rebalance-2a7197bb", CONSUMER_NAMES) == [
        (2, "join", "sk-a"), (3, "join", "sk-b"), (4, "session timeout", "sk-b"), (5, "join", "sk-b")]
    s = _summary(consumer, "rebalance-2a7197bb")
    assert s["static_restarts_without_rebalance"] == 1
    assert s["likely_cause"]["kind"] == "static member restart beyond session timeout"
    assert "broker:group.consumer.session.timeout.ms" in s["likely_cause"]["settings"]


def test_consumer_protocol_poll_timeouts_are_inferred_from_the_same_member_id_rejoining(consumer):
    got = _triggers(consumer, "rebalance-2331f933", CONSUMER_NAMES)
    kinds = [k for _, k, _ in got]
    assert kinds == ["join", "join"] + ["poll timeout", "poll timeout", "join", "join"] * 3 + \
        ["session timeout", "session timeout"]
    assert {n for _, _, n in got} == {"pk-a", "pk-b"}
    s = _summary(consumer, "rebalance-2331f933")
    assert s["likely_cause"]["kind"] == "repeated poll timeouts"
    assert s["likely_cause"]["settings"] == ["max.poll.interval.ms", "max.poll.records"]


def test_the_readme_shows_the_examples_summary():
    """README's `diagnose` section shows a summary line of examples/diagnose_server.log as it is computed now."""
    root = Path(__file__).resolve().parents[2]
    section = (root / "README.md").read_text(encoding="utf-8").split("### `diagnose`", 1)[1].split("\n## ", 1)[0]
    shown = section.split("```json\n", 1)[1].split("\n```", 1)[0]
    d = diagnose([str(root / "examples" / "diagnose_server.log")])
    assert d.unreadable == 0 and sum(log["not_recognised"] for log in d.logs) == 0
    s = _summary(d, "rebalance-50cc87c4")
    lc = s["likely_cause"]
    for fact in (f'"rebalances":{s["rebalances"]}', f'"by_kind":{{"join":{s["by_kind"]["join"]},"session timeout":1}}',
                 f'"static_restarts_without_rebalance":{s["static_restarts_without_rebalance"]}', f'"kind":"{lc["kind"]}"',
                 f'"members":["se-ib"]', f'"prevent":"{lc["prevent"]}"', '"settings":["session.timeout.ms","heartbeat.interval.ms"]'):
        assert fact in shown, fact
    assert len({s["group"] for s in d.summaries}) == 7
