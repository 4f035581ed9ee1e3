"""Fuzzing ``rebalance run``'s input validation: real vector inputs with one field replaced (or added).

Every committed vectors input (``kafka-vectors/*.jsonl``) is a well-formed line of its kind.  Each example
here takes one of them, replaces one field at any depth -- a top-level field, a member's field, a step's
field, an element of a list -- or adds one of the schema's optional fields, with an arbitrary JSON value
(``None``/bool/int, huge and negative included/float, NaN and infinities included/str/list/dict), and runs
the line through :func:`rebalance.vectors.run_lines`, exactly as ``python -m rebalance run`` does.  The
answer must be one of:

* a normal ``output`` (Kafka's result, or Kafka's own exception as ``{"error": {"type": <Java class>}}``);
* an error line of type ``InputError`` (or ``SimulationError``) whose ``field`` names a place of the input:
  a dotted path such as ``members[0].topics`` that exists in the line, or a field of the schema missing
  from an object of the line where the schema has it (``steps[0].leader``, not ``leader``) -- never a bare
  Python error and never ``"field": null``.

The examples are derandomized (the same every run, so CI is reproducible) and the size limit is lowered
while they run (every assignor stays small and fast; the limit's own message is then fuzzed too).  The
default limit is checked separately: a huge count is refused before anything is allocated, naming it.
"""
from __future__ import annotations

import builtins
import json
import os
import re
from functools import lru_cache
from typing import Dict, List, Optional, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rebalance import validation
from rebalance.vectors import ADAPTERS, parse_lines, run_lines, vectors_dir

KINDS = sorted(ADAPTERS)

#: the fields of each kind's schema (kafka-vectors/README.md), by the key of the objects that have them:
#: ``""`` is the line itself, the others the objects below it (members, steps, brokers, ...).  A mutation
#: may add one an object lacks; an error may name one an object lacks.
SCHEMA_FIELDS: Dict[str, Dict[str, Tuple[str, ...]]] = {
    "consumer": {
        "": ("assignor", "brokers", "topics", "members", "entry", "preferRackAwareLogic", "subscriptionMapType",
             "initialMaxGeneration"),
        "members": ("memberId", "topics", "ownedPartitions", "generationId", "rackId", "groupInstanceId",
                    "userData"),
        "userData": ("stickyV1", "stickyV0", "cooperativeV0", "base64", "position"),
        "brokers": ("id", "rack"),
    },
    "adminutils": {"": ("brokers", "partitions", "replicationFactor", "fixedStartIndex", "startPartitionId", "seed"),
                   "brokers": ("id", "rack")},
    "striped": {"": ("random", "seed", "brokers", "placements"),
                "brokers": ("id", "rack", "fenced"),
                "placements": ("startPartition", "numPartitions", "numReplicas")},
    "java_random": {"": ("seed", "ops")},
    "coordinator_partition": {"": ("numPartitions", "groupIds")},
    "connect": {
        "": ("assignor", "mode", "protocol", "max_delay_ms", "initial_time_ms", "initial_generation_id",
             "initial_previous_generation_id", "members_map", "connectors", "settle", "settle_delay",
             "max_follow_ups", "detail", "verbose", "steps"),
        "steps": ("op", "time_ms", "sleep_ms", "members", "connectors", "add_connectors", "remove_connectors",
                  "generation_id", "last_completed_generation_id", "generation_mismatch", "failed", "leader",
                  "settle", "expect", "previous_generation_id", "lost", "worker_loads", "previous_members",
                  "tasks"),
        "expect": ("delay", "delay_gt", "workers", "connector_allocations", "task_allocations", "no_revocations",
                   "empty_assignment", "balanced_and_complete", "leader_state_set", "protocol_version",
                   "candidate_workers", "scheduled_rebalance", "scheduled_rebalance_minus_now",
                   "to_reassign_contains_lost", "to_reassign_equals_lost", "workers_contain_lost",
                   "worker_loads", "each_connectors", "each_tasks"),
        "sleep_ms": ("of", "div", "plus"),
    },
    "group": {
        "": ("assignor", "topics", "members_map", "assignment_map", "subscription_set", "subscription_type",
             "members", "inverted_assignment", "expect", "steps"),
        "steps": ("topics", "members", "members_map", "assignment_map", "subscription_set", "subscription_type",
                  "inverted_assignment", "expect", "add_topics", "remove_topics"),
        "members": ("id", "subscriptions", "rack", "instance_id", "assignment"),
        "topics": ("name", "id", "partitions"),
        "expect": ("assignment", "error", "valid_and_balanced"),
    },
    "streams_group": {
        "": ("assignor", "subtopologies", "assignment_configs", "members_map", "members", "expect"),
        "subtopologies": ("id", "partitions", "stateful"),
        "assignment_configs": ("num.standby.replicas",),
        "members": ("id", "process", "active", "standby", "warmup", "instance_id", "rack"),
    },
    "streams": {
        "": ("assignor", "configs", "tasks", "stateful_tasks", "end_offset_sums", "clients"),
        "configs": ("acceptable_recovery_lag", "max_warmup_replicas", "num_standby_replicas",
                    "probing_rebalance_interval_ms", "rack_aware_assignment_tags"),
        "clients": ("process_id", "capacity", "prev_active", "prev_standby", "lags", "offset_sums", "tags"),
    },
    "share": {
        "": ("assignor", "topics", "members_map", "assignment_map", "subscription_set", "subscription_type",
             "members", "inverted_assignment", "assignable", "expect", "steps"),
        "steps": ("topics", "members", "members_map", "assignment_map", "subscription_set", "subscription_type",
                  "inverted_assignment", "assignable", "expect", "add_topics", "remove_topics"),
        "members": ("id", "subscriptions", "rack", "instance_id", "assignment"),
        "topics": ("name", "id", "partitions"),
        "expect": ("assignment", "error", "partitions_assigned"),
    },
}

Path = Tuple[object, ...]

#: fields whose value picks a code path: each of their values in the vectors is a shape of its own
ENUMS = {"assignor", "entry", "subscriptionMapType", "mode", "protocol", "op", "random", "detail", "members_map",
         "assignment_map", "subscription_set", "subscription_type"}


@lru_cache(maxsize=None)
def bases(kind: str) -> List[dict]:
    """Committed inputs of ``kind`` that together have every shape the vectors have, smallest first (a
    greedy cover: each kept line adds a field path or a value type none of the smaller ones had)."""
    lines = []
    for path in sorted(vectors_dir().glob("*.jsonl")):
        with open(path, encoding="utf-8") as stream:
            for text in stream:
                if text.strip():
                    line = json.loads(text)
                    if line["input"].get("kind") == kind:
                        lines.append(line["input"])
    lines.sort(key=lambda s: (len(json.dumps(s)), json.dumps(s)))
    fields = {name for names in SCHEMA_FIELDS[kind].values() for name in names}
    seen: set = set()
    chosen = []
    for scenario in lines:
        shape = {(p, v if p.rsplit(".", 1)[-1] in ENUMS and isinstance(v, str) else type(v).__name__)
                 for p, v in _typed(scenario, fields)}
        if shape - seen and len(json.dumps(scenario)) < 6000:
            chosen.append(scenario)
            seen |= shape
    return chosen


def _typed(value: object, fields: set, prefix: str = ""):
    """``(path, value)`` for every value of a line, paths with list indices dropped and keys that are not
    ``fields`` written ``*``: those of the name -> value maps (topics, connectors, assignments) are data."""
    yield prefix, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _typed(v, fields, f"{prefix}.{k if k in fields else '*'}")
    elif isinstance(value, list):
        for v in value[:50]:
            yield from _typed(v, fields, f"{prefix}[]")


def mutation_sites(kind: str, scenario: dict) -> List[Path]:
    """Every place one value can go: what is there (list elements: the first two and the last of each
    list), or a field of the schema the object lacks (it is added)."""
    sites: List[Path] = []
    schema = SCHEMA_FIELDS[kind]

    def walk(value: object, path: Path, parent_key: str) -> None:
        if path:
            sites.append(path)
        if isinstance(value, dict):
            for k in schema.get(parent_key, ()):
                if k not in value:
                    sites.append(path + (k,))
            for k, v in value.items():
                walk(v, path + (k,), k)
        elif isinstance(value, list):
            n = len(value)
            for i in sorted({0, 1, n - 1} & set(range(n))):
                walk(value[i], path + (i,), parent_key)

    walk(scenario, (), "")
    return sites


def replaced(scenario: dict, path: Path, value: object) -> dict:
    copy = json.loads(json.dumps(scenario))
    node = copy
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return copy


# ---------------------------------------------------------------------------------------------
# values

_EDGE_INTS = (0, 1, -1, 2, 3, 7, 2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**63 - 1, 2**63, -2**63 - 1, 10**30)
_EDGE_STRINGS = ("", "-", "0", "-1", "t0", "t0-0", "t0--1", "t0-x", "topic-99999999999", "conn-a-0", "carry",
                 "empty", "auto", "range", "uniform", "sticky", "hash", "linked", "delay", "max_delay", "rebalance",
                 "assign", "reset", "handle_lost_assignments", "set_previous_members", "java.util.Random",
                 "MockRandom", "nextInt", "shuffle", "protocol", "eager", "AAAAAAAAAAAAAAAAAAAAAA", "é", "\u2603")


def _strings(scenario: dict) -> List[str]:
    """The strings of the line itself (topic, member, connector names...), so a replaced value often
    refers to something that exists."""
    found = set()

    def walk(v):
        if isinstance(v, str):
            found.add(v)
        elif isinstance(v, dict):
            for k, x in v.items():
                found.add(k)
                walk(x)
        elif isinstance(v, list):
            for x in v[:20]:
                walk(x)

    walk(scenario)
    return sorted(found)[:200]


def json_values(names: List[str]) -> st.SearchStrategy:
    """Any JSON value, edge cases often: Java int/long bounds and beyond, the line's own names (alone and
    as ``"name-<number>"`` ids), the schema's words."""
    words = _EDGE_STRINGS + tuple(names)
    edge_ints = st.sampled_from(_EDGE_INTS)
    ints = st.integers() | edge_ints | edge_ints.map(lambda n: -n)
    strings = (st.text(max_size=6) | st.sampled_from(words)
               | st.builds(lambda name, n: f"{name}-{n}", st.sampled_from(words), ints))
    scalars = st.none() | st.booleans() | ints | st.floats(allow_nan=True, allow_infinity=True) | strings
    keys = st.text(max_size=5) | st.sampled_from(words)
    containers = st.recursive(scalars, lambda children: st.lists(children, max_size=4)
                              | st.dictionaries(keys, children, max_size=4), max_leaves=8)
    # (st.recursive alone draws mostly lists and objects: a scalar in place of a list is as likely here)
    return scalars | containers


@st.composite
def mutated_lines(draw, kind: str) -> Tuple[dict, Path, object]:
    scenario = draw(st.sampled_from(bases(kind)))
    path = draw(st.sampled_from(mutation_sites(kind, scenario)))
    value = draw(json_values(_strings(scenario)))
    return replaced(scenario, path, value), path, value


# ---------------------------------------------------------------------------------------------
# the verdict


def _resolves(value: object, field: str, kind: str, parent: str = "") -> bool:
    """``field`` (``a.b[2].c``; keys may themselves hold dots) is a place of ``value``, or a field its
    schema level has (:data:`SCHEMA_FIELDS`, ``parent`` being the key the object is under) missing from
    an object that is one: ``steps[0].leader`` may be missing, ``leader`` (a top-level one) may not."""
    if field == "":
        return True
    if isinstance(value, list):
        m = re.match(r"\[(\d+)\]", field)
        if not m or int(m.group(1)) >= len(value):
            return False
        rest = field[m.end():]
        return _resolves(value[int(m.group(1))], rest[1:] if rest.startswith(".") else rest, kind, parent)
    if isinstance(value, dict):
        for key in value:
            if field == key:
                return True
            if field.startswith(key) and field[len(key)] in ".[":
                rest = field[len(key):]
                if _resolves(value[key], rest[1:] if rest.startswith(".") else rest, kind, key):
                    return True
        return field in SCHEMA_FIELDS.get(kind, {}).get(parent, ())  # a missing field
    return False


#: a Kafka exception's type: a Java class name (``org.apache...InvalidReplicationFactorException``), not Python's
JAVA_CLASS = re.compile(r"[A-Z][A-Za-z0-9]*(Exception|Error)")
PYTHON_ERRORS = set(dir(builtins))


def verdict(scenario: dict) -> Optional[str]:
    """``None`` if ``run`` answers the line acceptably, else what is wrong."""
    rows: List[dict] = []
    run_lines(parse_lines("fuzz", [json.dumps(scenario)]), rows.append)
    if len(rows) != 1:
        return f"{len(rows)} rows for one line"
    row = rows[0]
    try:
        json.dumps(row)
    except (TypeError, ValueError) as exc:
        return f"the row is not JSON: {exc}"
    if "output" in row:
        out = row["output"]
        if isinstance(out, dict) and "error" in out:
            kafka = out["error"]
            if not (isinstance(kafka, dict) and isinstance(kafka.get("type"), str)
                    and JAVA_CLASS.fullmatch(kafka["type"].rsplit(".", 1)[-1])
                    and kafka["type"] not in PYTHON_ERRORS):
                return f"output error is not a Kafka exception: {kafka}"
        return None
    error = row.get("error")
    if not isinstance(error, dict):
        return f"neither output nor error: {row}"
    if error.get("type") not in ("InputError", "SimulationError"):
        return f"{error.get('type')}: {error.get('message')} (field {error.get('field')!r})"
    field = error.get("field")
    if not isinstance(field, str) or not field:
        return f"{error['type']} without a field: {error.get('message')}"
    if not isinstance(error.get("message"), str) or not error["message"]:
        return f"{error['type']} on {field} without a message"
    if field not in ("input", "kind", "line") and not _resolves(scenario, field, str(scenario.get("kind"))):
        return f"{error['type']} names {field!r}, which is not a place of the line: {error['message']}"
    return None


# ---------------------------------------------------------------------------------------------
# the tests

#: a small limit while fuzzing: a replaced count of a few thousand must not make an example slow
FUZZ_MAX_CELLS = 20_000


@pytest.fixture(scope="module", autouse=True)
def small_limit():
    saved = validation.MAX_INPUT_CELLS
    validation.MAX_INPUT_CELLS = FUZZ_MAX_CELLS
    try:
        yield
    finally:
        validation.MAX_INPUT_CELLS = saved


def test_every_kind_has_bases_and_every_base_runs():
    for kind in KINDS:
        assert bases(kind), kind
        for scenario in bases(kind):
            assert verdict(scenario) is None, (kind, scenario.get("id"))


#: examples per kind (300 take 1-2 s for each kind here); ``REBALANCE_FUZZ_EXAMPLES=5000`` for a deeper local run
EXAMPLES = int(os.environ.get("REBALANCE_FUZZ_EXAMPLES", "300"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("kind", KINDS)
@FUZZ
@given(data=st.data())
def test_one_replaced_field_gives_an_output_or_a_named_input_error(kind, data):
    scenario, path, value = data.draw(mutated_lines(kind))
    problem = verdict(scenario)
    assert problem is None, f"{kind}: {path} = {value!r}: {problem}"


# ---------------------------------------------------------------------------------------------
# the size limit at its default: refused before anything is allocated, whatever else the line holds

HUGE = 2**31 - 1


@pytest.mark.parametrize("scenario,field", [
    ({"kind": "consumer", "assignor": "range", "topics": {"t0": HUGE}, "members": [{"memberId": "C0", "topics": ["t0"]}]},
     "topics.t0"),
    ({"kind": "consumer", "assignor": "range", "topics": {"t0": 3, "t1": HUGE},
      "members": [{"memberId": "C0", "topics": 5}]}, "topics.t1"),
    ({"kind": "adminutils", "brokers": [{"id": 0}, {"id": 1}], "partitions": HUGE, "replicationFactor": 2,
      "fixedStartIndex": 0, "startPartitionId": -1}, "partitions"),
    ({"kind": "striped", "seed": 1, "brokers": [{"id": 0, "rack": None, "fenced": False}],
      "placements": [{"startPartition": 0, "numPartitions": HUGE, "numReplicas": 1}]}, "placements[0].numPartitions"),
    ({"kind": "connect", "connectors": {"c": HUGE}, "steps": [{"members": ["w1", "w2"]}]}, "connectors.c"),
    ({"kind": "group", "topics": [{"name": "t", "partitions": HUGE}], "members": [{"id": "a", "subscriptions": 7}]},
     "topics[0].partitions"),
    ({"kind": "streams_group", "subtopologies": [{"id": "0", "partitions": 3}, {"id": "1", "partitions": HUGE}],
      "members": "x"}, "subtopologies[1].partitions"),
])
def test_a_huge_count_is_refused_at_the_default_limit(scenario, field):
    validation.MAX_INPUT_CELLS = 10_000_000  # the default, inside this module's lowered limit
    try:
        rows: List[dict] = []
        run_lines(parse_lines("huge", [json.dumps(scenario)]), rows.append)
    finally:
        validation.MAX_INPUT_CELLS = FUZZ_MAX_CELLS
    assert rows[0]["error"]["type"] == "InputError"
    assert rows[0]["error"]["field"] == field
    assert "input too large" in rows[0]["error"]["message"]


def test_the_reported_line_from_the_brief():
    rows: List[dict] = []
    line = {"kind": "consumer", "assignor": "range", "topics": {"t0": 3}, "members": [{"memberId": "C0", "topics": 5}]}
    run_lines(parse_lines("brief", [json.dumps(line)]), rows.append)
    assert rows[0]["error"]["type"] == "InputError"
    assert rows[0]["error"]["field"] == "members[0].topics"


# ---------------------------------------------------------------------------------------------
# what the fuzzer (and the review it prompted) found, one line each: the field each must now name

def _consumer(member: dict, **line) -> dict:
    return {"kind": "consumer", "assignor": "sticky", "topics": {"t0": 3},
            "members": [{"memberId": "C0", "topics": ["t0"], **member}], **line}


def _connect(*steps: dict, **line) -> dict:
    return {"kind": "connect", "connectors": {"c": 2}, "steps": list(steps), **line}


def _group(**line) -> dict:
    return {"kind": "group", "topics": [{"name": "t", "partitions": 3}],
            "members": [{"id": "a", "subscriptions": ["t"]}], **line}


LONG = "x" * 40_000

FOUND = [
    # the size estimate read lists it had not checked
    (_consumer({"topics": 5}, assignor="range"), "members[0].topics"),
    (_consumer({"ownedPartitions": 1}), "members[0].ownedPartitions"),
    # Java ints that reached struct.pack (user data, protocol metadata) unchecked
    (_consumer({"generationId": 2**31}, assignor="cooperative-sticky"), "members[0].generationId"),
    (_consumer({"ownedPartitions": ["t0-99999999999"], "generationId": 1}), "members[0].ownedPartitions[0]"),
    (_consumer({"ownedPartitions": ["t0-1_0"]}), "members[0].ownedPartitions[0]"),
    (_consumer({"userData": {"stickyV1": {"partitions": ["t0-1"], "generation": 2**33}}}),
     "members[0].userData.stickyV1.generation"),
    (_consumer({"userData": {"base64": "AAAA", "stickyV0": {}}}, assignor="range"), "members[0].userData"),
    (_consumer({}, preferRackAwareLogic="false"), "preferRackAwareLogic"),
    (_consumer({}, initialMaxGeneration=2**40), "initialMaxGeneration"),
    # a topic name Kafka's STRING cannot hold
    ({"kind": "consumer", "assignor": "sticky", "topics": {LONG: 1},
      "members": [{"memberId": "C0", "topics": [LONG], "ownedPartitions": [f"{LONG}-0"], "generationId": 1}]},
     f"topics.{LONG}"),
    # Connect's expectations, memberships and Java ints
    (_connect({"members": ["w1"], "expect": {"delay_gt": None}}), "steps[0].expect.delay_gt"),
    (_connect({"members": ["w1"], "expect": {"workers": [[]]}}), "steps[0].expect.workers"),
    (_connect({"members": ["w1"], "expect": {"task_allocations": [1, "2"]}}), "steps[0].expect.task_allocations[1]"),
    (_connect({"members": ["w1"], "expect": [1]}), "steps[0].expect"),
    (_connect({"op": "assign", "worker_loads": [{"worker": "w"}], "expect": "x"}), "steps[0].expect"),
    (_connect({"op": "handle_lost_assignments", "expect": {"workers_contain_lost": [[None]]}}),
     "steps[0].expect.workers_contain_lost"),
    (_connect({"members": []}), "steps[0].members"),
    (_connect({"members": ["w1"], "leader": "w9"}, mode="protocol"), "steps[0].leader"),
    (_connect({"members": ["w1"]}, mode="protocol", max_delay_ms=2**40), "max_delay_ms"),
    (_connect({"members": {"w1": {"tasks": ["c-99999999999"]}}}, mode="protocol"), "steps[0].members.w1.tasks[0]"),
    (_connect({"members": ["w1"]}, mode="protocol", connectors={LONG: 1}), f"connectors.{LONG}"),
    (_connect({"members": ["w1"], "settle": 1}), "steps[0].settle"),
    (_connect({"members": ["w1"]}, verbose="no"), "verbose"),
    (_connect({"members": ["w1"]}, initial_generation_id=2**31 - 1), "steps[0].generation_id"),  # the next one
    (_connect({"members": ["w1"], "generation_id": -2**31}), "steps[0].last_completed_generation_id"),
    # brokers given as bare ids or pairs are named as given
    ({"kind": "adminutils", "brokers": [{"id": 0}, -1], "partitions": 1, "replicationFactor": 1}, "brokers[1]"),
    ({"kind": "striped", "seed": 1, "brokers": [[0, 5]], "placements": []}, "brokers[0][1]"),
    # KIP-848 groups: the field as the line spells it
    ({"kind": "group", "topics": {"t": -1}, "members": []}, "topics.t"),
    (_group(steps=[{"assignment_map": "tree"}]), "steps[0].assignment_map"),
    (_group(steps=[{"members_map": 3}]), "steps[0].members_map"),
    (_group(steps=[{"remove_topics": [[1]]}]), "steps[0].remove_topics"),
    (_group(expect=[]), "expect"),
    (_group(expect={"error": 5}), "expect.error"),
    (_group(inverted_assignment={"t": {"1_0": "a"}}), "inverted_assignment.t.1_0"),
    (_group(members=[{"id": "a", "subscriptions": ["t"], "assignment": {"t": [2**31]}}]), "members[0].assignment.t"),
]


@pytest.mark.parametrize("scenario,field", FOUND, ids=[f"{s['kind']}:{f[:40]}" for s, f in FOUND])
def test_what_the_fuzzer_found_is_named(scenario, field):
    rows: List[dict] = []
    run_lines(parse_lines("found", [json.dumps(scenario)]), rows.append)
    assert rows[0].get("error", {}).get("type") == "InputError", rows[0]
    assert rows[0]["error"]["field"] == field


@pytest.mark.parametrize("text,message", [
    ('{"id": "\\ud800", "kind": "coordinator_partition", "groupIds": ["a"]}', "lone UTF-16 surrogate"),
    ("[" * 100_000, "not readable JSON"),
    ('{"kind": "coordinator_partition", "numPartitions": ' + "1" * 5000 + "}", "not readable JSON"),
])
def test_a_line_no_output_could_be_written_for_is_refused_and_the_run_goes_on(text, message):
    # each used to end the whole run: the surrogate when its id was written as UTF-8, the others in json.loads
    good = '{"id": "ok", "kind": "coordinator_partition", "groupIds": ["a"]}'
    rows: List[dict] = []
    run_lines(parse_lines("lines", [text, good]), rows.append)
    assert rows[0] == {"id": "lines:1", "error": {"type": "InputError", "field": "line", "message": rows[0]["error"]["message"]}}
    assert message in rows[0]["error"]["message"]
    assert rows[1]["id"] == "ok" and "output" in rows[1]
    for row in rows:
        json.dumps(row, ensure_ascii=False).encode("utf-8")


def test_a_file_that_is_not_utf8_is_read_line_by_line(tmp_path):
    from rebalance.vectors import read_lines

    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"id": "a\xff", "kind": "coordinator_partition", "groupIds": ["a"]}\n'
                     b'{"id": "ok", "kind": "coordinator_partition", "groupIds": ["a"]}\n')
    rows: List[dict] = []
    run_lines(read_lines(str(path)), rows.append)
    assert rows[0]["error"]["field"] == "line" and "UTF-8" in rows[0]["error"]["message"]
    assert rows[1]["id"] == "ok" and "output" in rows[1]

