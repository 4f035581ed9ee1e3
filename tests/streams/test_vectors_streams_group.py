"""The ``streams_group`` vectors (Kafka 4.3.1's ``StickyTaskAssignor``): every committed line replays exactly,
the facts of Kafka's ``StickyTaskAssignorTest`` hold on Kafka's recorded answers and on ours, the committed
inputs are what the seeded generator writes, and bad input is refused naming the field."""
from __future__ import annotations

import copy

import pytest

from rebalance.errors import InputError
from rebalance.streams.coordinator.scenarios import random_scenarios, unit_scenarios
from rebalance.streams.coordinator.vectors import STREAMS_GROUP_FILES, check_expect
from rebalance.vectors import compare_output, run_input
from vector_files import load_vectors


def _lines(name):
    lines = load_vectors(name)
    assert lines, f"{name} is missing"  # the committed vectors are part of the repository
    return lines


UNIT = _lines("streams_group_unit.jsonl")
STICKY = _lines("streams_group_sticky.jsonl")
ALL = UNIT + STICKY


def test_the_files_hold_well_formed_lines():
    assert set(STREAMS_GROUP_FILES) == {"streams_group_unit.jsonl", "streams_group_sticky.jsonl"}
    assert len(STICKY) >= 100
    ids = [line["id"] for line in ALL]
    assert len(ids) == len(set(ids))
    for line in ALL:
        assert set(line) == {"id", "kind", "source", "input", "output"}
        assert line["kind"] == line["input"]["kind"] == "streams_group"
        assert line["id"] == line["input"]["id"]
        assert isinstance(line["output"], dict)


@pytest.mark.parametrize("line", ALL, ids=[line["id"] for line in ALL])
def test_each_line_replays_exactly(line):
    assert compare_output("streams_group", line["output"], run_input(line["input"])) == []


def test_the_committed_inputs_are_the_generators():
    assert [line["input"] for line in UNIT] == unit_scenarios()
    assert [line["input"] for line in STICKY] == random_scenarios()


@pytest.mark.parametrize("line", UNIT, ids=[line["id"] for line in UNIT])
def test_kafkas_unit_test_facts_hold_on_kafkas_answer_and_ours(line):
    assert line["input"]["expect"], "every unit line carries its test's assertions"
    assert check_expect(line["input"], line["output"]) == []
    assert check_expect(line["input"], run_input(line["input"])) == []


def _unit(name):
    return next(line for line in UNIT if line["id"] == f"StickyTaskAssignorTest.{name}")


def test_a_fact_fails_on_a_wrong_answer():
    line = _unit("shouldAssignMultipleReplicasOfStandbyTask")
    wrong = copy.deepcopy(line["output"])
    a = wrong["assignment"]
    a["member1"]["standby"], a["member2"]["standby"] = a["member2"]["standby"], a["member1"]["standby"]
    assert len(check_expect(line["input"], wrong)) == 2
    line = _unit("shouldMoveMinimalNumberOfTasksWhenPreviouslyAboveCapacityAndNewClientAdded")
    wrong = copy.deepcopy(line["output"])
    for m in wrong["assignment"].values():
        m["active"] = {"test-subtopology": [0]}
    failures = check_expect(line["input"], wrong)
    assert failures and any("no option holds" in f for f in failures)
    error = {"error": {"type": "org.apache.kafka.coordinator.group.streams.assignor.TaskAssignorException"}}
    assert check_expect(line["input"], error)


def test_the_edge_lines_say_what_kafka_does():
    by_id = {line["id"]: line["output"] for line in STICKY}
    assert by_id["streams_group_sticky-no-members"]["error"] == {
        "type": "org.apache.kafka.coordinator.group.streams.assignor.TaskAssignorException",
        "message": "No process available to assign active task 0_0."}
    assert by_id["streams_group_sticky-no-members-no-tasks"]["assignment"] == {}
    # a previous active task of a subtopology the topology no longer has is simply forgotten
    assert by_id["streams_group_sticky-no-subtopologies"]["assignment"] == {
        "m1": {"active": {}, "standby": {}, "warmup": {}}}
    # findPrevMemberWithLeastLoad checks the first previous owner's process only: member1 (first owner of
    # standby 2) now runs task 2, so the standby leaves member2, which had it too (a later trunk test expects it
    # to stay)
    quirk = by_id["streams_group_sticky-first-previous-standby-owner"]["assignment"]
    assert quirk["member1"]["active"] == {"test-subtopology": [2]}
    assert quirk["member2"]["standby"] == {"test-subtopology": [1]}
    assert quirk["member4"]["standby"] == {"test-subtopology": [0, 2]}


def _base():
    return {"kind": "streams_group", "subtopologies": [{"id": "0", "partitions": 2, "stateful": True}],
            "assignment_configs": {"num.standby.replicas": "1"},
            "members": [{"id": "m1", "process": "p1", "active": {"0": [0]}}, {"id": "m2", "process": "p2"}]}


def _with(path, value):
    s = _base()
    node = s
    for key in path[:-1]:
        node = node[key]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return s


_DELETE = object()

BAD = [
    (("assignor",), "range", "assignor"),
    (("assignor",), 3, "assignor"),
    (("colour",), "red", "colour"),
    (("subtopologies",), _DELETE, "subtopologies"),
    (("subtopologies",), {"0": 2}, "subtopologies"),
    (("subtopologies", 0), "0", "subtopologies[0]"),
    (("subtopologies", 0, "partitions"), -1, "subtopologies[0].partitions"),
    (("subtopologies", 0, "partitions"), 2**31, "subtopologies[0].partitions"),
    (("subtopologies", 0, "partitions"), True, "subtopologies[0].partitions"),
    (("subtopologies", 0, "stateful"), "yes", "subtopologies[0].stateful"),
    (("subtopologies", 0, "id"), 0, "subtopologies[0].id"),
    (("subtopologies", 0, "tasks"), 2, "subtopologies[0].tasks"),
    (("subtopologies",), [{"id": "0", "partitions": 1}, {"id": "0", "partitions": 2}], "subtopologies[1].id"),
    (("assignment_configs",), ["num.standby.replicas"], "assignment_configs"),
    (("assignment_configs", "num.standby.replicas"), 1, "assignment_configs.num.standby.replicas"),
    (("assignment_configs", "num.standby.replicas"), "-1", "assignment_configs.num.standby.replicas"),
    (("assignment_configs", "num.standby.replicas"), "one", "assignment_configs.num.standby.replicas"),
    (("assignment_configs", "num.standby.replicas"), "2147483648", "assignment_configs.num.standby.replicas"),
    (("assignment_configs",), {"other": "x"}, "assignment_configs.num.standby.replicas"),
    (("members_map",), "tree", "members_map"),
    (("expect",), {"check": "name"}, "expect"),
    (("members",), _DELETE, "members"),
    (("members",), {"m1": "p1"}, "members"),
    (("members", 1), "m2", "members[1]"),
    (("members", 1, "id"), None, "members[1].id"),
    (("members", 1, "id"), "m1", "members[1].id"),
    (("members", 1, "process"), _DELETE, "members[1].process"),
    (("members", 1, "thread"), 1, "members[1].thread"),
    (("members", 0, "active"), [0], "members[0].active"),
    (("members", 0, "active", "0"), [0.5], "members[0].active.0"),
    (("members", 0, "standby"), {"0": 1}, "members[0].standby.0"),
    (("members", 0, "warmup"), {"0": [2**31]}, "members[0].warmup.0"),
    (("members", 0, "rack"), 5, "members[0].rack"),
]


@pytest.mark.parametrize("path,value,field", BAD, ids=[f for _, _, f in BAD])
def test_bad_input_names_the_field(path, value, field):
    with pytest.raises(InputError) as info:
        run_input(_with(path, value))
    assert info.value.field == field


def test_a_well_formed_line_runs_and_counts():
    out = run_input(_base())
    assert out["assignment"]["m1"]["active"] == {"0": [0]}
    assert out["stats"] == {"active": {"m1": 1, "m2": 1}, "standby": {"m1": 1, "m2": 1}, "active_kept": 1,
                            "standby_wanted": 2, "standby_assigned": 2}


def test_a_malformed_check_is_bad_input():
    line = _unit("shouldAssignActiveAndStandbyTasks")
    scenario = dict(line["input"], expect=[{"check": "count", "of": "threads", "equals": 1}])
    with pytest.raises(InputError) as info:
        check_expect(scenario, line["output"])
    assert info.value.field == "expect[0].of"


def test_a_huge_topology_is_refused_before_it_runs():
    scenario = _base()
    scenario["subtopologies"][0]["partitions"] = 2**31 - 1
    with pytest.raises(InputError) as info:
        run_input(scenario)
    assert info.value.field == "subtopologies[0].partitions"
