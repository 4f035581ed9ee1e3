"""The live lab (rebalance.live): real librdkafka consumers against librdkafka's in-process mock cluster.

Every wait is on a condition (LiveGroup.wait_settled / wait_for) with generous deadlines; each test takes a few
seconds.  One mock cluster serves the module."""
from __future__ import annotations

import threading

import pytest

pytest.importorskip("confluent_kafka")

from rebalance.consumer import assign  # noqa: E402
from rebalance.errors import InputError, LiveClientError, WaitTimeoutError  # noqa: E402
from rebalance.live import LiveGroup, MemberConfig, MockCluster  # noqa: E402
from rebalance.live.peer import PeerGroup, replay_round  # noqa: E402

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
def cluster():
    with MockCluster(3) as mc:
        for name, n in (("eager", 6), ("coop", 6), ("static", 4), ("err", 2)):
            mc.create_topic(name, n)
        yield mc


def _live_threads() -> list:
    return [t for t in threading.enumerate() if t.name.startswith("live-") and t.is_alive()]


@pytest.mark.parametrize("kwargs, field", [
    ({"topics": ("t",), "strategy": "sticky"}, "partition.assignment.strategy"),
    ({"topics": ("t",), "strategy": ("range", "cooperative-sticky")}, "partition.assignment.strategy"),
    ({"topics": ("t",), "heartbeat_interval_ms": 3000, "session_timeout_ms": 2000}, "heartbeat.interval.ms"),
    ({"topics": ("t",), "max_poll_interval_ms": 100}, "max.poll.interval.ms"),
    ({"topics": ()}, "topics"),
    ({"topics": ("t",), "group_protocol": "kip848"}, "group.protocol"),
    ({"topics": ("t",), "instance_id": ""}, "group.instance.id"),
    ({"topics": ("t",), "remote_assignor": "uniform"}, "group.remote.assignor"),
])
def test_a_bad_member_configuration_names_the_field(kwargs, field):
    with pytest.raises(InputError) as err:
        MemberConfig(**kwargs)
    assert err.value.field == field


def test_bad_cluster_and_group_inputs_name_the_field(cluster):
    with pytest.raises(InputError) as err:
        MockCluster(0)
    assert err.value.field == "brokers"
    with pytest.raises(InputError) as err:
        MockCluster(2, racks=["a"])
    assert err.value.field == "racks"
    with pytest.raises(InputError) as err:
        cluster.create_topic("zero", 0)
    assert err.value.field == "topics.zero"
    with pytest.raises(InputError) as err:
        cluster.create_topic("eager", 3)
    assert err.value.field == "topics.eager"
    with LiveGroup(cluster, "bad") as group:
        with pytest.raises(InputError) as err:
            group.join("c1", MemberConfig(topics=("missing",)))
        assert err.value.field == "members.c1.topics"
        with pytest.raises(InputError) as err:
            group.leave("nobody")
        assert err.value.field == "name"
    with pytest.raises(InputError) as err:
        MemberConfig(topics=("t",)).properties("10.0.0.1:9092", "g")
    assert err.value.field == "bootstrap.servers"


def test_a_wait_that_times_out_and_a_failed_client_raise_their_own_errors(cluster):
    with LiveGroup(cluster, "waits") as group:
        group.join("c1", MemberConfig(topics=("err",)))
        with pytest.raises(WaitTimeoutError, match="timeout_s=0.2"):
            group.wait_for("revoke", "c1", count=5, timeout_s=0.2)
        group.members["c1"].errors.append("_FATAL: injected")  # what a client's error callback records
        with pytest.raises(LiveClientError, match="member 'c1': the client failed: _FATAL: injected"):
            group.wait_settled(timeout_s=5)
        group.members["c1"].errors.clear()


def test_everything_is_closed_when_the_block_raises():
    with pytest.raises(RuntimeError, match="boom"):
        with MockCluster(1) as mc:
            mc.create_topic("t", 2)
            with LiveGroup(mc, "shutdown") as group:
                group.join("c1", MemberConfig(topics=("t",)))
                group.join("c2", MemberConfig(topics=("t",)))
                group.wait_for("joined", "c1")
                raise RuntimeError("boom")
    assert mc.closed
    assert all(m.closed for m in group.retired) and not group.members
    assert not _live_threads()


def test_an_eager_join_revokes_everything_and_equals_the_book(cluster):
    with LiveGroup(cluster, "eager-join") as group:
        group.join("c1", MemberConfig(topics=("eager",), strategy="range"))
        assert group.wait_settled() == {"c1": [("eager", p) for p in range(6)]}
        group.join("c2", MemberConfig(topics=("eager",), strategy="range"))
        settled = group.wait_settled()
        ids = {group.members[n].member_id: n for n in ("c1", "c2")}
        book = assign("range", {"eager": 6}, {mid: {"topics": ["eager"]} for mid in sorted(ids)})
        assert settled == {ids[mid]: sorted(tps) for mid, tps in book.items()}
        c1 = group.member_events("c1", ("revoke",))
        assert c1 and c1[0].endswith("partitions=eager-0 eager-1 eager-2 eager-3 eager-4 eager-5 protocol=eager")


def test_cooperative_join_and_leave_move_only_what_moves(cluster):
    with LiveGroup(cluster, "coop") as group:
        config = MemberConfig(topics=("coop",), strategy="cooperative-sticky")
        group.join("c1", config)
        group.join("c2", config)
        before = group.wait_settled()
        mark = group.mark()
        group.join("c3", config)
        after_join = group.wait_settled()
        revoked_on_join = {n: {tp for line in group.member_events(n, ("revoke",), since=mark)
                               for tp in line.split("partitions=")[1].split(" protocol")[0].split()}
                           for n in ("c1", "c2")}
        group.leave("c1")
        after_leave = group.wait_settled()
        assert sorted(len(v) for v in after_join.values()) == [2, 2, 2]
        assert sorted(len(v) for v in after_leave.values()) == [3, 3]
        for name in ("c1", "c2"):  # a member revokes only partitions it does not keep
            kept = set(before[name]) & set(after_join[name])
            assert kept and not {f"{t}-{p}" for t, p in kept} & revoked_on_join[name]
            assert revoked_on_join[name] == {f"{t}-{p}" for t, p in set(before[name]) - set(after_join[name])}
        assert set(after_leave["c2"]) >= set(after_join["c2"])  # the leave takes nothing from c2
        peer = PeerGroup("coop", "cooperative-sticky", {"coop": 6}, 1,
                         {n: (("coop",), None) for n in ("c1", "c2", "c3")}, "c3", "c1")
        checks = [replay_round(peer, cluster, r) for r in group.rounds()]
        assert checks and all(c.owned_ok for c in checks)
        assert any(c.owned for c in checks)  # some round had members rejoin with partitions


def test_a_static_member_restart_rejoins_under_a_new_member_id(cluster):
    """The mock keeps members by member id only (rd_kafka_mock_cgrp_classic_member_add): a restarted static
    member is a new member, and a rebalance follows; a Kafka broker would hand it the old member's place."""
    with LiveGroup(cluster, "static") as group:
        for n in ("c1", "c2"):
            group.join(n, MemberConfig(topics=("static",), strategy="range", instance_id=f"i-{n}"))
        before = group.wait_settled()
        generation = group.members["c1"].generation
        old_id = group.members["c1"].member_id
        group.restart("c1")
        after = group.wait_settled()
        assert sorted(tp for v in after.values() for tp in v) == [("static", p) for p in range(4)]
        assert group.members["c1"].member_id != old_id
        assert group.members["c1"].generation > generation
        assert before.keys() == after.keys()


def test_a_member_that_stops_polling_leaves_after_max_poll_interval(cluster):
    """librdkafka keeps heartbeating from its own thread; when the application stops calling poll for
    max.poll.interval.ms it leaves the group, and the others take its partitions."""
    with LiveGroup(cluster, "crash") as group:
        config = MemberConfig(topics=("err",), strategy="range", max_poll_interval_ms=2500)
        group.join("c1", config)
        group.join("c2", config)
        assert sorted(len(v) for v in group.wait_settled().values()) == [1, 1]
        group.crash("c2")
        assert group.wait_settled() == {"c1": [("err", 0), ("err", 1)]}
        assert not group.members["c2"].polling
