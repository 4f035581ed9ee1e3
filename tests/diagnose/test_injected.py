"""rebalance.diagnose.injected without a broker: the simulator's reasons read as kinds, a group's log lines made
printable, a cause's scenario."""
from __future__ import annotations

from pathlib import Path

import pytest

from rebalance.diagnose import InjectedCause, InjectedRun, group_log_lines, simulated_reasons, simulator_reason_kind


@pytest.mark.parametrize("reason, kind", [
    ("adding member c1-1", "join"), ("removing member c2-2", "session timeout"), ("member c3-3 left", "leave"),
    ("static member c1-4 replaced during CompletingRebalance", "static replacement"),
    ("static member c1-4 changed protocol", "static replacement"),
    ("removing [c1-1] on pending sync expiration", "sync timeout"), ("rejoining: c1-1", "rejoin"),
    ("something else entirely", "other"),
])
def test_simulator_reasons_read_as_kinds(reason, kind):
    assert simulator_reason_kind(reason) == kind


def test_the_simulator_names_a_crash_a_session_timeout():
    case = InjectedCause("x", "eager", "crash", ["a", "b"], [(3000, "crash", "b", 0)], [], until_ms=12000)
    kinds = [kind for _, _, kind in simulated_reasons(case)]
    assert "session timeout" in kinds and kinds[0] == "join"
    assert simulated_reasons(InjectedCause("k", "consumer", "crash", ["a"], [], [])) == []


def test_a_cause_is_a_scenario_with_named_members():
    case = InjectedCause("s", "eager", "static", ["a", "b"], [(5000, "restart", "b", 500)], [], static=["b"])
    s = case.scenario()
    assert [m["id"] for m in s["members"]] == ["s-a", "s-b"] and s["members"][1]["instance_id"] == "s-b"
    assert s["events"] == [{"at_ms": 5000, "op": "restart", "member": "s-b", "down_ms": 500}]


GROUP = "rebalance-0a1b2c3d"
LOG = (f"[2026-01-01 10:00:00,000] INFO [GroupCoordinator id=1] Member c-b-3bc2bae0-539f-4221-9549-ccd7c0d8143d in "
       f"group {GROUP} has failed, removing it from the group. (org.apache.kafka.coordinator.group.GroupMetadataManager)\n"
       f"[2026-01-01 10:00:00,001] INFO [GroupCoordinator id=1] Preparing to rebalance group {GROUP} in state "
       f"PreparingRebalance with old generation 7 (reason: removing member c-b-3bc2bae0-539f-4221-9549-ccd7c0d8143d "
       f"on heartbeat expiration.). (org.apache.kafka.coordinator.group.GroupMetadataManager)\n"
       f"[2026-01-01 10:00:00,002] INFO [GroupCoordinator id=1] [GroupId {GROUP}] Member AAAAAAAAAAAAAAAAAAAAAA "
       f"fenced from the group because the member session expired. (org.apache.kafka.coordinator.group.GroupMetadataManager)\n"
       f"[2026-01-01 10:00:00,003] INFO [GroupId {GROUP}] Bumped group epoch to 12 with metadata hash -42. (x.Y)\n"
       f"[2026-01-01 10:00:00,004] INFO Something about rebalance-ffffffff. (x.Y)\n")


def test_the_log_lines_of_a_group_are_printable_the_same_every_time(tmp_path: Path):
    (tmp_path / "server.log").write_text(LOG, encoding="utf-8")
    case = InjectedCause("c", "eager", "crash", ["a", "b"], [], [])
    run = InjectedRun(tmp_path / "server.log", {}, {}, {"AAAAAAAAAAAAAAAAAAAAAA": "c-b"}, 0.0, groups={"c": GROUP})
    lines = group_log_lines(run, case)
    assert lines == [
        "INFO [GroupCoordinator id=1] Member c-b-<uuid> in group <group> has failed, removing it from the group. "
        "(GroupMetadataManager)",
        "INFO [GroupCoordinator id=1] Preparing to rebalance group <group> in state PreparingRebalance with old "
        "generation N (reason: removing member c-b-<uuid> on heartbeat expiration.). (GroupMetadataManager)",
        "INFO [GroupCoordinator id=1] [GroupId <group>] Member <id of c-b> fenced from the group because the member "
        "session expired. (GroupMetadataManager)",
        "INFO [GroupId <group>] Bumped group epoch to N with metadata hash N. (Y)"]
    # contains is matched on the printable text, and limit cuts
    assert group_log_lines(run, case, ["<id of c-b>"]) == lines[2:3]
    assert group_log_lines(run, case, limit=1) == lines[:1]
    # planted: another group's line is never one of them
    assert not any("ffffffff" in line for line in lines)
    assert group_log_lines(InjectedRun(tmp_path / "server.log", {}, {}, {}, 0.0), case) == []


def test_run_until_seen_runs_again_only_while_a_cause_is_missed(tmp_path, monkeypatch):
    """A run in which diagnose missed an injected cause is followed by another, at most ``attempts`` in all; a run
    in which every cause was seen ends it.  (run_injected and the check stubbed: no broker.)"""
    from rebalance.diagnose import injected, report

    case = InjectedCause("x", "eager", "crash", ["a", "b"], [(3000, "crash", "b", 0)], [("session timeout", "b")])
    runs = []
    log = tmp_path / "server.log"
    log.write_text("")

    def fake_run(cases, folder, concurrent, views):
        runs.append(folder)
        return InjectedRun(log, {}, {}, {}, 0.0, {}, {}, {}, {})

    seen_on = {"attempt": 2}

    def fake_check(case, run, lines):
        return ([] if len(runs) >= seen_on["attempt"] else ["missed"]), []

    monkeypatch.setattr(injected, "run_injected", fake_run)
    monkeypatch.setattr(injected, "check_injected", fake_check)
    run, lines, used = injected.run_until_seen([case], tmp_path, attempts=3)
    assert used == 2 and [p.name for p in runs] == ["run-1", "run-2"] and isinstance(lines, list)
    runs.clear()
    seen_on["attempt"] = 99          # never seen: stops after the attempts, the last run returned
    _, _, used = injected.run_until_seen([case], tmp_path / "again", attempts=3)
    assert used == 3 and len(runs) == 3
    with pytest.raises(ValueError):
        injected.run_until_seen([case], tmp_path, attempts=0)
