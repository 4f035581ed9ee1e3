"""HighAvailabilityTaskAssignor against Kafka 4.3.1's own answers (streams_high_availability*.jsonl), the facts
Kafka's HighAvailabilityTaskAssignorTest asserts, and the adapter's input errors."""
import json
import random

import pytest

from rebalance.errors import InputError
from rebalance.streams.client import scenarios as client_scenarios
from rebalance.streams.client.vectors import run
from rebalance.vectors import compare_output, run_input

from vector_files import VECTORS, load_vectors, oracle_or_skip


def test_vector_matches_kafka(streams_vector):
    actual = run_input(streams_vector["input"])
    assert compare_output("streams", streams_vector["output"], actual) == []
    if "error" not in streams_vector["output"]:
        assert actual == streams_vector["output"]  # clients in ProcessId order, tasks in TaskId order
    elif streams_vector["output"]["error"]["message"] is not None:  # Kafka's message too, where it has one
        assert actual["error"] == streams_vector["output"]["error"]


@pytest.mark.skipif(not VECTORS.is_dir(), reason="Kafka conformance vectors not found")
def test_the_files_have_what_the_book_says():
    random_lines = load_vectors("streams_high_availability.jsonl")
    unit_lines = load_vectors("streams_high_availability_unit.jsonl")
    assert len(random_lines) >= 100 and len(unit_lines) >= 20
    outputs = [line["output"] for line in random_lines]
    assert {o["error"]["type"].rsplit(".", 1)[-1] for o in outputs if "error" in o} == {
        "ConfigException", "IllegalStateException", "NoSuchElementException", "NullPointerException"}
    ok = [o for o in outputs if "error" not in o]
    assert any(o["probing_rebalance_needed"] for o in ok) and not all(o["probing_rebalance_needed"] for o in ok)
    assert any(c["standby"] for o in ok for c in o["clients"])
    assert any(line["input"].get("configs", {}).get("rack_aware_assignment_tags") for line in random_lines)
    # UUID.compareTo is signed: a process id with the top bit set sorts first
    mixed = [o for o in ok if len({c["process_id"][0] in "89abcdef" for c in o["clients"]}) == 2]
    assert mixed and all(o["clients"][0]["process_id"][0] in "89abcdef" for o in mixed)


def test_the_committed_inputs_are_the_generators():
    """The committed inputs are exactly what the seeded generator writes (no hand edits)."""
    generated = [s["id"] for s in client_scenarios.random_scenarios()]
    committed = [line["id"] for line in load_vectors("streams_high_availability.jsonl")]
    assert committed == generated
    assert [line["input"] for line in load_vectors("streams_high_availability.jsonl")] == \
        client_scenarios.random_scenarios()
    assert [line["input"] for line in load_vectors("streams_high_availability_unit.jsonl")] == \
        [s["input"] for s in client_scenarios.UNIT_SCENARIOS]


def _pid(n):
    return client_scenarios.pid(int(n))


def _check_expect(expect, output):
    """What Kafka's unit test asserts, on an output of the schema."""
    clients = {c["process_id"]: c for c in output["clients"]}
    problems = []
    if output["probing_rebalance_needed"] != expect["probing_rebalance_needed"]:
        problems.append("probing_rebalance_needed")
    for key, pick in (("active", "active"), ("standby", "standby")):
        for n, tasks in expect.get(key, {}).items():
            if clients[_pid(n)][pick] != sorted(tasks):
                problems.append(f"{key} of client {n}")
    counts = {
        "active_count": lambda c: len(c["active"]), "standby_count": lambda c: len(c["standby"]),
        "assigned_count": lambda c: len(c["active"]) + len(c["standby"]),
    }
    for key, count in counts.items():
        for n, value in expect.get(key, {}).items():
            if count(clients[_pid(n)]) != value:
                problems.append(f"{key} of client {n}")
    for key, count in (("min_standby_count", counts["standby_count"]), ("min_active_count", counts["active_count"])):
        for n, value in expect.get(key, {}).items():
            if count(clients[_pid(n)]) < value:
                problems.append(f"{key} of client {n}")
    if expect.get("no_standbys") and any(c["standby"] for c in output["clients"]):
        problems.append("no_standbys")
    if "max_standby_copies_per_task" in expect:
        copies = {}
        for c in output["clients"]:
            for t in c["standby"]:
                copies[t] = copies.get(t, 0) + 1
        if max(copies.values(), default=0) > expect["max_standby_copies_per_task"]:
            problems.append("max_standby_copies_per_task")
    return problems


@pytest.mark.parametrize("line", load_vectors("streams_high_availability_unit.jsonl"), ids=lambda line: line["id"])
def test_kafka_unit_test_facts_hold(line):
    assert _check_expect(line["expect"], line["output"]) == []  # Kafka's own answer
    assert _check_expect(line["expect"], run(line["input"])) == []  # ours


def test_expect_check_can_fail():
    line = load_vectors("streams_high_availability_unit.jsonl")[0]
    flipped = dict(line["output"], probing_rebalance_needed=not line["output"]["probing_rebalance_needed"])
    assert _check_expect(line["expect"], flipped) == ["probing_rebalance_needed"]


def _base():
    return {"kind": "streams", "configs": {"acceptable_recovery_lag": 100, "num_standby_replicas": 1},
            "tasks": ["0_0", "0_1", "1_0"], "stateful_tasks": ["0_0", "0_1"],
            "clients": [{"process_id": _pid(1), "capacity": 1, "lags": {"0_0": 0, "0_1": 500}},
                        {"process_id": "80000000-0000-0000-0000-000000000002", "capacity": 2,
                         "lags": {"0_0": 1000, "0_1": 0}}]}


def _base_with(path, value):
    """:func:`_base` with the value at ``path`` (keys and list indexes) replaced by ``value``."""
    scenario = _base()
    node = scenario
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return scenario


@pytest.mark.parametrize("path, value, field", [
    (("assignor",), "sticky", "assignor"),
    (("tasks",), "0_0", "tasks"),
    (("tasks",), ["0_0", "0_0"], "tasks[1]"),
    (("stateful_tasks",), ["0-1"], "stateful_tasks[0]"),
    (("stateful_tasks",), ["1_99999999999"], "stateful_tasks[0]"),
    (("clients",), [7], "clients[0]"),
    (("clients", 0, "process_id"), "00000000-0000-0000-0000-00000000000G", "clients[0].process_id"),
    (("clients", 0, "process_id"), "0-0-0-0-1", "clients[0].process_id"),
    (("clients", 1, "process_id"), _pid(1), "clients[1].process_id"),
    (("clients", 0, "capacity"), 0, "clients[0].capacity"),
    (("clients", 0, "capacity"), "1", "clients[0].capacity"),
    (("clients", 0, "lags"), {"0_0": 1.5}, "clients[0].lags.0_0"),
    (("clients", 0, "lags"), {"x": 1}, "clients[0].lags.x"),
    (("clients", 0, "lags"), {"0_0": 2**63}, "clients[0].lags.0_0"),
    (("clients", 0, "tags"), {"zone": 1}, "clients[0].tags.zone"),
    (("clients", 0, "owned"), [], "clients[0].owned"),
    (("configs",), [], "configs"),
    (("configs", "max_warmup_replicas"), 2**31, "configs.max_warmup_replicas"),
    (("configs", "rack_aware_assignment_tags"), [1], "configs.rack_aware_assignment_tags[0]"),
    (("configs", "rack_awareness"), "none", "configs.rack_awareness"),
    (("source",), "x", "source"),
    (("clients", 0, "offset_sums"), {"0_0": 5}, "clients[0].lags"),  # lags and offset sums: one or the other
    (("clients", 1, "offset_sums"), {"0_0": "5"}, "clients[1].offset_sums.0_0"),
    (("end_offset_sums",), {"0_0": [1]}, "end_offset_sums.0_0"),
])
def test_bad_input_names_the_field(path, value, field):
    with pytest.raises(InputError) as info:
        run(_base_with(path, value))
    assert info.value.field == field


def test_invalid_configs_are_kafkas_config_exception():
    scenario = _base()
    scenario["configs"]["probing_rebalance_interval_ms"] = 59_999
    out = run_input(scenario)
    assert out["error"] == {"type": "org.apache.kafka.common.config.ConfigException",
                            "message": "Invalid value 59999 for configuration probing.rebalance.interval.ms: "
                                       "Value must be at least 60000"}


@pytest.mark.kafka
def test_kafka_answers_fresh_random_scenarios_as_we_do():
    """Beyond the committed lines: 60 scenarios of another seed, answered by Kafka's jar and by the port."""
    rng = random.Random(20261127)
    scenarios = [client_scenarios._one_random(rng, i) for i in range(60)]
    with oracle_or_skip() as kafka:
        for scenario in scenarios:
            answer = kafka.answer(scenario)
            assert answer.fault is None, answer.fault
            assert run_input(json.loads(json.dumps(scenario))) == answer.output, scenario["id"]


@pytest.mark.kafka
@pytest.mark.parametrize("path, value, field", [
    (("clients", 0, "capacity"), 0, "clients[0].capacity"),
    (("clients", 0, "lags"), {"0_0": 1.5}, "clients[0].lags.0_0"),
    (("stateful_tasks",), ["0-1"], "stateful_tasks[0]"),
    (("configs", "max_warmup_replicas"), 2**31, "configs.max_warmup_replicas"),
    (("clients", 0, "offset_sums"), {"0_0": 5}, "clients[0].lags"),
    (("end_offset_sums",), {"0_0": [1]}, "end_offset_sums.0_0"),
])
def test_the_java_oracle_names_the_same_field(path, value, field):
    with oracle_or_skip() as kafka:
        answer = kafka.answer(_base_with(path, value))
    assert answer.fault is not None and answer.fault["field"] == field


def test_the_queue_order_lines_need_javas_priority_queue_array():
    """The 16 ``-queue-`` lines: Kafka's answer is ours with java.util.PriorityQueue's exact array, and a plain
    priority list (JavaPriorityQueue.naive) answers each of them differently."""
    from rebalance.streams import JavaPriorityQueue

    lines = [line for line in load_vectors("streams_high_availability.jsonl") if "-queue-" in line["id"]]
    assert len(lines) == 16
    for line in lines:
        assert run(json.loads(json.dumps(line["input"]))) == line["output"]
        JavaPriorityQueue.naive = True
        try:
            assert run(json.loads(json.dumps(line["input"]))) != line["output"], line["id"]
        finally:
            JavaPriorityQueue.naive = False


def test_offset_sums_need_end_offset_sums_and_give_kafkas_lags():
    scenario = _base()
    del scenario["clients"][0]["lags"]
    scenario["clients"][0]["offset_sums"] = {"0_0": -2, "0_1": 600}
    with pytest.raises(InputError) as info:
        run(scenario)
    assert info.value.field == "end_offset_sums"
    scenario["end_offset_sums"] = {"0_0": 1000, "0_1": 500}
    client = next(c for c in run(scenario)["clients"] if c["process_id"] == _pid(1))
    # ClientState.computeTaskLags: LATEST_OFFSET stays; an offset sum past the end gives the end offset sum
    assert client["lags"] == {"0_0": -2, "0_1": 500}
    assert client["prev_active"] == ["0_0"] and client["prev_standby"] == ["0_1"]


def test_the_offset_sum_lines_cover_what_computeTaskLags_distinguishes():
    lines = [line for line in load_vectors("streams_high_availability.jsonl") if "-offsets-" in line["id"]]
    assert len(lines) == 24
    kinds = set()
    for line in lines:
        ends = line["input"]["end_offset_sums"]
        for client in line["input"]["clients"]:
            for task, offset in client["offset_sums"].items():
                kinds.add("running" if offset == -2 else "unknown" if offset == -3
                          else "corrupted" if offset > ends[task] else "behind")
        assert all("lags" in c for c in line["output"]["clients"])
    assert kinds == {"running", "unknown", "corrupted", "behind"}
