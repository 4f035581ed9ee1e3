"""Moving a group between the protocols: the migration policy, the migration scenario and its reading, the join
storm, the rolling restart, and a member's ``group_protocol`` in a scenario (rebalance.kip848.migration, rebalance.kip848.compare,
rebalance.simulate, rebalance.kafka.consumers)."""
import pytest

from rebalance.errors import InputError
from rebalance.kafka.consumer_records import ConsumerRun, group_types
from rebalance.kafka.consumers import broker_config_for, member_settings
from rebalance.kip848 import (ConsumerGroupMigrationPolicy, join_storm, join_storm_scenarios, migration_steps,
                              online_migration_scenario, restart_and_storm, rolling_restart,
                              rolling_restart_scenarios)
from rebalance.simulate import parse_scenario, simulate_scenario

P = ConsumerGroupMigrationPolicy


def test_policies_allow_what_kafka_says():
    assert [(p.value, p.is_upgrade_enabled, p.is_downgrade_enabled, p.classic_members_may_join_consumer_group)
            for p in P] == [("bidirectional", True, True, True), ("upgrade", True, False, True),
                            ("downgrade", False, True, True), ("disabled", False, False, False)]
    assert P.parse("UpGrade") is P.UPGRADE
    with pytest.raises(InputError) as e:
        P.parse("both")
    assert e.value.field == "group.consumer.migration.policy"


def test_migration_scenario_bounces_each_member_there_and_back():
    s = online_migration_scenario(2, first_bounce_ms=1000, step_ms=2000, down_ms=100)
    ops = [(e["at_ms"], e["op"], e["member"]) for e in s["events"] if e["at_ms"] > 0]
    assert ops == [(1000, "leave", "c1"), (1100, "join", "k1"), (3000, "leave", "c2"), (3100, "join", "k2"),
                   (5000, "leave", "k1"), (5100, "join", "d1"), (7000, "leave", "k2"), (7100, "join", "d2")]
    assert s["until_ms"] == 9000
    parsed = parse_scenario(s)
    assert parsed.mixed and [parsed.group_protocol_of(m) for m in parsed.members] == ["classic"] * 2 + ["consumer"] * 2 + ["classic"] * 2
    with pytest.raises(InputError) as e:
        online_migration_scenario(down_ms=5000, step_ms=4000)
    assert e.value.field == "down_ms"


def test_migration_steps_reads_the_type_after_each_bounce():
    s = online_migration_scenario(2, first_bounce_ms=1000, step_ms=2000, down_ms=100)
    lines = [{"summary": {"group_types": [{"at_ms": 10, "type": "Classic"}, {"at_ms": 1200, "type": "Consumer"},
                                          {"at_ms": 7300, "type": "Classic"}]}}]
    rows = migration_steps(s, lines)
    assert [(r["left"], r["joined"], r["its group.protocol"], r["group type after"]) for r in rows] == [
        ("c1", "k1", "consumer", "Consumer"), ("c2", "k2", "consumer", "Consumer"),
        ("k1", "d1", "classic", "Consumer"), ("k2", "d2", "classic", "Classic")]
    with pytest.raises(InputError):
        migration_steps(s, [{"summary": {}}])


def test_group_types_keeps_each_change_and_skips_empty_descriptions():
    def g(t, kind, members=1, state="Stable"):
        return {"event": "group", "t": t, "type": kind, "state": state, "members": [{}] * members}
    run = ConsumerRun(records={0: [g(5, "Classic"), g(6, "Classic"), g(7, "Consumer", 0, "Empty"),
                                   g(8, "Consumer"), g(9, "Classic")]})
    assert group_types(run) == [{"at_ms": 5, "type": "Classic"}, {"at_ms": 8, "type": "Consumer"},
                                {"at_ms": 9, "type": "Classic"}]


def test_member_group_protocol_is_validated():
    base = {"protocol": "cooperative", "topics": {"t": 2}, "until_ms": 1000}
    with pytest.raises(InputError) as e:
        parse_scenario({**base, "members": [{"id": "a", "group_protocol": "eager"}]})
    assert e.value.field == "members[0].group_protocol"
    with pytest.raises(InputError) as e:
        parse_scenario({**base, "protocol": "consumer", "members": [{"id": "a"}, {"id": "b", "group_protocol": "classic"}]})
    assert e.value.field == "members[1].group_protocol"
    same = parse_scenario({**base, "members": [{"id": "a", "group_protocol": "classic"}]})
    assert not same.mixed


def test_the_simulators_refuse_a_mixed_group():
    s = {"protocol": "cooperative", "topics": {"t": 2}, "until_ms": 1000,
         "members": [{"id": "a"}, {"id": "b", "group_protocol": "consumer"}]}
    with pytest.raises(InputError) as e:
        simulate_scenario(s)
    assert e.value.field == "members[1].group_protocol"


def test_a_consumer_member_of_a_classic_scenario_gets_what_the_client_accepts():
    s = parse_scenario(online_migration_scenario())
    client = {"group.protocol": "classic", "partition.assignment.strategy": "x", "session.timeout.ms": "10000",
              "heartbeat.interval.ms": "1000", "max.poll.records": "500"}
    broker = broker_config_for([online_migration_scenario()])
    assert broker["group.consumer.heartbeat.interval.ms"] == 1000
    assert broker["group.consumer.session.timeout.ms"] == 10000
    k1 = next(m for m in s.members if m.id == "k1")
    props = member_settings(s, client, k1)
    assert props["group.protocol"] == "consumer"
    assert not {"partition.assignment.strategy", "session.timeout.ms", "heartbeat.interval.ms"} & set(props)
    c1 = next(m for m in s.members if m.id == "c1")
    assert member_settings(s, client, c1) == client


def test_join_storm_scenarios_and_rows():
    scenarios = join_storm_scenarios(4, members=2, partitions=8, spread_ms=3000, start_ms=1000)
    assert [s["protocol"] for s in scenarios] == ["eager", "cooperative", "consumer"]
    assert [e["at_ms"] for e in scenarios[0]["events"]] == [1000, 2000, 3000, 4000]
    with pytest.raises(InputError) as e:
        join_storm_scenarios(0)
    assert e.value.field == "joining"
    rows = join_storm(4, members=2, partitions=8, run_ms=30_000)
    assert [r["protocol"] for r in rows] == ["eager", "cooperative", "KIP-848"]
    # the incremental protocols move no more than eager
    assert max(rows[1]["moved_partitions"], rows[2]["moved_partitions"]) <= rows[0]["moved_partitions"]
    assert all(r["all new members served after (s)"] is not None for r in rows)


def test_rolling_restart_scenarios_and_rows():
    scenarios = rolling_restart_scenarios(3, partitions=6, gap_ms=12_000, down_ms=5_000, settle_ms=12_000,
                                          start_ms=8_000)
    assert [s["protocol"] for s in scenarios] == ["eager", "cooperative", "consumer"]
    assert [(e["at_ms"], e["op"], e["member"], e["down_ms"]) for e in scenarios[0]["events"]] == [
        (8_000, "restart", "c1", 5_000), (20_000, "restart", "c2", 5_000), (32_000, "restart", "c3", 5_000)]
    assert scenarios[0]["until_ms"] == 32_000 + 5_000 + 12_000
    with pytest.raises(InputError) as e:
        rolling_restart_scenarios(0)
    assert e.value.field == "members"
    with pytest.raises(InputError) as e:
        rolling_restart_scenarios(gap_ms=-1)
    assert e.value.field == "gap_ms"
    rows = rolling_restart()
    assert [(r["where"], r["protocol"]) for r in rows] == [("simulator", p) for p in ("eager", "cooperative", "KIP-848")]
    eager, cooperative, kip848 = rows
    # eager stops every member's partitions at each bounce; the incremental protocols only the bounced member's
    assert eager["partitions_stopped"] > max(cooperative["partitions_stopped"], kip848["partitions_stopped"])
    assert eager["moved_partitions"] >= max(cooperative["moved_partitions"], kip848["moved_partitions"])


def test_restart_and_storm_is_both_functions_and_runs_only_what_is_asked():
    both = restart_and_storm(restart={}, storm={"joining": 4, "members": 2, "partitions": 8})
    assert both["rolling restart"] == rolling_restart()
    assert both["join storm"] == join_storm(4, members=2, partitions=8)
    assert set(restart_and_storm(restart=None, storm={})) == {"join storm"}
    assert restart_and_storm(restart=None, storm=None) == {}
