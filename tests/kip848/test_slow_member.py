"""One slow member, and the ranking once moved partitions cost a rebuild (rebalance.kip848.compare).

The scenarios of ``examples/slow_member.jsonl`` are :func:`slow_member_scenarios`' defaults; on the simulators
eager stops every member that held partitions while the slow member holds the barrier, KIP-848 none, and the
cooperative coordinator removes the slow member (8 s batches, 10 s rebalance timeout) from its second round: it
reads each group response a batch later, so its rejoin after the SyncGroup's ``REBALANCE_IN_PROGRESS`` comes two
batches after the round began (as on a real broker, chapter 7); the rebuild charge is the moved partitions times the rebuild time, added to the unowned partition-seconds,
and the break-even it reports is where two protocols' totals meet.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rebalance.errors import InputError
from rebalance.kip848 import (REBUILD_PROTOCOLS, compare_protocols, rebuild_break_even, rebuild_ranking,
                              slow_member, slow_member_scenarios, slow_member_sweep)
from rebalance.simulate import parse_scenario

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "slow_member.jsonl"


def test_the_example_file_holds_the_default_scenarios():
    lines = [json.loads(line) for line in EXAMPLE.read_text().splitlines()]
    assert lines == slow_member_scenarios()
    for line in lines:
        s = parse_scenario(line)
        assert [m.poll_processing_ms for m in s.members] == [None, None, 8_000, None]
        assert s.config.max_poll_interval_ms == 10_000 and s.rebuild_ms_per_partition == 0


def test_bad_parameters_are_named():
    for kwargs, field in (({"batch_ms": -1}, "batch_ms"), ({"max_poll_interval_ms": 0}, "max_poll_interval_ms"),
                          ({"members": 0}, "members"), ({"partitions": 0}, "partitions"),
                          ({"rebuild_ms_per_partition": 1.5}, "rebuild_ms_per_partition")):
        with pytest.raises(InputError) as e:
            slow_member_scenarios(**kwargs)
        assert e.value.field == field
    with pytest.raises(InputError) as e:
        slow_member_sweep(phases=0)
    assert e.value.field == "phases"
    with pytest.raises(InputError) as e:
        rebuild_ranking((0, -500))
    assert e.value.field == "rebuild_ms_per_partition[1]"


def test_on_the_simulators_eager_stops_everyone_and_cooperative_the_slow_member():
    rows = {r["protocol"]: r for r in slow_member(rebuild_ms_per_partition=1_000)}
    assert {r["where"] for r in rows.values()} == {"simulator"}
    eager, coop, kip = rows["eager"], rows["cooperative"], rows["KIP-848"]
    assert eager["members stopped"] == 3 and eager["processing_stopped_member_seconds"] > 0
    assert kip["members stopped"] == 0 and kip["processing_stopped_member_seconds"] == 0
    # the slow member is removed from the cooperative second round: it alone stops, loses its 4 partitions and
    # is given partitions again in a fourth rebalance
    assert coop["members stopped"] == 1 and coop["processing_stopped_member_seconds"] > 0
    assert coop["rebalances"] == 4
    # c1, c2 and slow own 4 partitions each, and each gives one to the new member; Range moves 4 (c1 0-3, c2 4-7,
    # slow 8-11 become c1 0-2, c2 3-5, new 6-8, slow 9-11: 3, 6, 7 and 8 change owner); 1 s of rebuilding each;
    # cooperative: 9 changes of owner between rebalances; the rebuild is charged for the 5 partitions taken up
    # by another process than the one that released them (StopMeasures.partitions_moved)
    assert [r["moved_partitions"] for r in rows.values()] == [4, 9, 3]
    assert [r["rebuild_cost"] for r in rows.values()] == [4.0, 5.0, 3.0]
    assert eager["rebalances"] == kip["rebalances"] == 1


def test_the_slow_member_stays_when_it_reads_responses_within_its_poll():
    """With ``poll_timeout_ms`` (a consumer on empty topics) the slow member handles the SyncGroup response within
    the poll() that sent it and rejoins at once: the cooperative group keeps it."""
    from rebalance.simulate import simulate_scenario

    coop = next(s for s in slow_member_scenarios() if s["protocol"] == "cooperative")
    kept = simulate_scenario(dict(coop, config={**coop["config"], "poll_timeout_ms": 100})).summary()
    assert kept["members_stopped"] == 0 and kept["moved_partitions"] == 3


def test_the_sweep_the_chapter_reads():
    rows = slow_member_sweep((500, 8_000), phases=2)
    assert [(r["slow batch (s)"], r["protocol"]) for r in rows] == [
        (b, p) for b in (0.5, 8.0) for p in ("eager", "cooperative", "KIP-848")]
    by = {(r["slow batch (s)"], r["protocol"]): r for r in rows}
    for b in (0.5, 8.0):
        assert not by[(b, "eager")]["fewest stops"]
        assert by[(b, "KIP-848")]["fewest stops"]
        # two 8 s batches exceed max.poll.interval.ms (10 s): the cooperative coordinator removes the slow member
        assert by[(b, "cooperative")]["fewest stops"] is (b == 0.5)
        # cooperative's new member waits for more of the slow member's polls than eager's
        assert by[(b, "cooperative")]["new member waited (s)"] > by[(b, "eager")]["new member waited (s)"]
    # the eager barrier holds every member for longer when the slow member's batch is longer
    assert by[(8.0, "eager")]["processing_stopped_member_seconds"] > by[(0.5, "eager")][
        "processing_stopped_member_seconds"]


def test_compare_protocols_adds_the_stop_measures_only_when_asked():
    plain = compare_protocols("join", 3, {"orders": 12})
    asked = compare_protocols("join", 3, {"orders": 12}, rebuild_ms_per_partition=2_000)
    added = ["processing_stopped_member_seconds", "rebuild_cost", "unprocessed_partition_seconds"]
    for p, a in zip(plain, asked):
        assert list(a) == list(p) + added
        assert {k: a[k] for k in p} == p
        assert a["rebuild_cost"] == a["partitions_moved"] * 2.0
        assert a["unprocessed_partition_seconds"] == round(a["unowned_partition_seconds"] + a["rebuild_cost"], 3)


def test_the_rebuild_charge_and_where_the_ranking_flips():
    rows = rebuild_ranking((0, 1_000))
    assert len(rows) == 2 * len(REBUILD_PROTOCOLS)
    free = {r["protocol"]: r for r in rows if r["rebuild per partition (s)"] == 0}
    second = {r["protocol"]: r for r in rows if r["rebuild per partition (s)"] == 1}
    for p, r in second.items():
        assert r["unowned_partition_seconds"] == free[p]["unowned_partition_seconds"]  # the same runs
        assert r["rebuild_cost"] == r["partitions_moved"] * 1.0
        assert r["unprocessed_partition_seconds"] == round(r["unowned_partition_seconds"] + r["rebuild_cost"], 3)
    assert sorted(r["rank"] for r in second.values()) == list(range(1, len(REBUILD_PROTOCOLS) + 1))
    flips = rebuild_break_even()
    leader = free[flips[0]["leader"]]
    assert leader["rank"] == 1
    for f in flips:
        at = f["overtakes above (s per partition)"]
        if at is None:
            assert f["moves fewer partitions"] <= 0
            continue
        other = free[f["protocol"]]
        # at the break-even both leave as many partition-seconds unprocessed (up to the break-even's rounding to
        # the millisecond, times the partitions moved)
        slack = 0.0005 * max(leader["partitions_moved"], other["partitions_moved"]) + 0.002
        assert leader["unowned_partition_seconds"] + leader["partitions_moved"] * at == pytest.approx(
            other["unowned_partition_seconds"] + other["partitions_moved"] * at, abs=slack)


def test_a_slow_leader_stays_in_the_cooperative_group():
    """Chapter 7: ``slow`` starts after the others so that it does not lead; a slow leader sends the first
    round's SyncGroup itself, which ends that round, and rejoins for the second within the rebalance timeout."""
    from rebalance.kip848.compare import SLOW_START_MS
    from rebalance.simulate import simulate_scenario

    coop = next(s for s in slow_member_scenarios() if s["protocol"] == "cooperative")
    assert coop["events"][0] == {"at_ms": SLOW_START_MS, "op": "join", "member": "slow"}
    slow = next(m for m in coop["members"] if m["id"] == "slow")
    leading = dict(coop, members=[slow] + [m for m in coop["members"] if m is not slow], events=coop["events"][1:])
    led = simulate_scenario(leading).summary()
    assert led["members_stopped"] == 0 and led["moved_partitions"] == 3 and led["rebalances"] == 2
