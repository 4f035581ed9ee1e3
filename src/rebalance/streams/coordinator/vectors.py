"""Conformance adapter for the ``streams_group`` kind: Kafka 4.3.1's ``StickyTaskAssignor`` called once on a
streams group (KIP-1071).  Input and output follow "Input schema — streams_group" / "Output schema —
streams_group" of the vectors README.

The input is checked field by field as the oracle's ``StreamsGroupKind`` checks it (the same fields named, in the
same order); :func:`run` builds the :class:`~rebalance.streams.coordinator.spec.GroupSpec` as the coordinator's
``TargetAssignmentBuilder.build`` does (a ``HashMap`` of members filled in input order, or the unit tests'
``LinkedHashMap``) and answers with the assignment sorted for JSON and a few counts.

A line's ``expect`` holds the facts of Kafka's own unit test (``StickyTaskAssignorTest``) the line comes from.
Neither the oracle nor :func:`run` evaluates it; :func:`check_expect` does, against any output (the recorded
one or ours), and the tests run it on every line of ``streams_group_unit.jsonl``.
"""
from __future__ import annotations

import re
from typing import Any, Dict, Iterator, List, Mapping, Optional, Set, Tuple

from ...errors import InputError
from ...java import INT_MAX, INT_MIN
from .spec import MEMBER_MAPS, NUM_STANDBY_REPLICAS_CONFIG, AssignmentMemberSpec, GroupSpec, Subtopology, Topology
from .task_assignor import task_assignor_for

__all__ = ["STREAMS_GROUP_FILES", "check_expect", "parse", "run"]

STREAMS_GROUP_FILES = ("streams_group_unit.jsonl", "streams_group_sticky.jsonl")

TOP_KEYS = ("id", "kind", "source", "assignor", "subtopologies", "assignment_configs", "members", "members_map",
            "expect")
MEMBER_KEYS = ("id", "process", "active", "standby", "warmup", "instance_id", "rack")
SUBTOPOLOGY_KEYS = ("id", "partitions", "stateful")
_JAVA_INT = re.compile(r"[+-]?[0-9]+")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and INT_MIN <= value <= INT_MAX


def _string(node: Mapping[str, Any], key: str, where: str) -> str:
    value = node.get(key)
    if not isinstance(value, str):
        raise InputError(f"{where}.{key}", f"must be a string, got {value!r}")
    return value


def _optional_string(node: Mapping[str, Any], key: str, where: str) -> Optional[str]:
    return None if node.get(key) is None else _string(node, key, where)


def _tasks(node: Mapping[str, Any], key: str, where: str) -> Dict[str, frozenset[int]]:
    value = node.get(key)
    if value is None:
        return {}
    field = f"{where}.{key}"
    if not isinstance(value, dict):
        raise InputError(field, f"must be an object {{subtopology: [partitions]}}, got {value!r}")
    out: Dict[str, frozenset[int]] = {}
    for subtopology, partitions in value.items():
        if not isinstance(partitions, list) or not all(_is_int(p) for p in partitions):
            raise InputError(f"{field}.{subtopology}", f"must be a list of partition numbers (Java ints), got {partitions!r}")
        out[subtopology] = frozenset(partitions)
    return out


def _entries(scenario: Mapping[str, Any], key: str, shape: str, keys: Tuple[str, ...], what: str
             ) -> Iterator[Tuple[str, str, Mapping[str, Any]]]:
    """The entries of the list field ``key`` (``subtopologies``, ``members``), checked one by one as the oracle
    checks them: the list present, each entry an object ``shape`` with only ``keys`` and a string ``id`` no
    earlier entry has (``what`` names it in the message); yields each entry's field, id and object."""
    value = scenario.get(key)
    if value is None:
        raise InputError(key, f"missing field {key}")
    if not isinstance(value, list):
        raise InputError(key, f"must be a list of {shape}")
    seen: Set[str] = set()
    for i, entry in enumerate(value):
        field = f"{key}[{i}]"
        if not isinstance(entry, dict):
            raise InputError(field, f"must be an object {shape}")
        for name in entry:
            if name not in keys:
                raise InputError(f"{field}.{name}", f"unknown field; expected {', '.join(keys)}")
        ident = _string(entry, "id", field)
        if ident in seen:
            raise InputError(f"{field}.id", f"{what} id {ident} is listed twice")
        seen.add(ident)
        yield field, ident, entry


def _subtopologies(scenario: Mapping[str, Any]) -> List[Subtopology]:
    out: List[Subtopology] = []
    for field, sid, s in _entries(scenario, "subtopologies", "{id, partitions, stateful?}", SUBTOPOLOGY_KEYS,
                                  "subtopology"):
        partitions = s.get("partitions")
        if not isinstance(partitions, int) or not _is_int(partitions) or partitions < 0:
            raise InputError(f"{field}.partitions", f"must be a whole number >= 0 (a Java int), got {partitions!r}")
        stateful = s.get("stateful")
        if stateful is not None and not isinstance(stateful, bool):
            raise InputError(f"{field}.stateful", f"must be true or false, got {stateful!r}")
        out.append(Subtopology(sid, partitions, bool(stateful)))
    return out


def _configs(scenario: Mapping[str, Any]) -> Dict[str, str]:
    value = scenario.get("assignment_configs")
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError("assignment_configs", f"must be an object {{name: string value}}, got {value!r}")
    out: Dict[str, str] = {}
    for key, v in value.items():
        if not isinstance(v, str):
            raise InputError(f"assignment_configs.{key}", f"must be a string, got {v!r}")
        out[key] = v
    if out:
        field = f"assignment_configs.{NUM_STANDBY_REPLICAS_CONFIG}"
        n = out.get(NUM_STANDBY_REPLICAS_CONFIG)
        if n is None:
            raise InputError(field, "must be set when assignment_configs is not empty "
                                    "(StickyTaskAssignor parses it with Integer.parseInt)")
        if not _JAVA_INT.fullmatch(n) or not 0 <= int(n) <= INT_MAX:
            raise InputError(field, f"must be a whole number >= 0 (a Java int, as a string), got {n}")
    return out


def parse(scenario: object) -> Tuple[str, Topology, GroupSpec]:
    """The assignor name, topology and group spec of a ``streams_group`` input, or ``InputError`` naming the
    first bad field (the oracle's order: unknown fields, ``assignor``, ``subtopologies``,
    ``assignment_configs``, ``members_map``, ``expect``, ``members``)."""
    if not isinstance(scenario, dict):
        raise InputError("input", "must be a JSON object")
    for key in scenario:
        if key not in TOP_KEYS:
            raise InputError(key, f"unknown field; expected {', '.join(TOP_KEYS)}")
    name = scenario.get("assignor")
    name = "sticky" if name is None else name
    if not isinstance(name, str):
        raise InputError("assignor", f"assignor must be a string, got {name!r}")
    task_assignor_for(name)
    topology = Topology(_subtopologies(scenario))
    configs = _configs(scenario)
    members_map = scenario.get("members_map")
    members_map = "hash" if members_map is None else members_map
    if not isinstance(members_map, str):
        raise InputError("members_map", f"members_map must be a string, got {members_map!r}")
    if members_map not in MEMBER_MAPS:
        raise InputError("members_map", f"must be one of {', '.join(MEMBER_MAPS)}, got {members_map}")
    expect = scenario.get("expect")
    if expect is not None and not isinstance(expect, list):
        raise InputError("expect", f"must be a list of checks, got {expect!r}")
    specs: List[Tuple[str, AssignmentMemberSpec]] = []
    for field, member_id, m in _entries(scenario, "members", "{id, process, active?, standby?, warmup?}",
                                        MEMBER_KEYS, "member"):
        process = _string(m, "process", field)
        active = _tasks(m, "active", field)
        standby = _tasks(m, "standby", field)
        warmup = _tasks(m, "warmup", field)
        instance_id = _optional_string(m, "instance_id", field)
        rack = _optional_string(m, "rack", field)
        specs.append((member_id, AssignmentMemberSpec(process, active, standby, warmup, instance_id, rack)))
    return name, topology, GroupSpec.of(specs, configs, members_map)


def run(scenario: Dict[str, Any]) -> Dict[str, Any]:
    """Answer one ``streams_group`` input as the oracle does (``TaskAssignorException`` propagates)."""
    name, topology, spec = parse(scenario)
    result = task_assignor_for(name).assign(spec, topology)
    configs = spec.assignment_configs
    replicas = int(configs[NUM_STANDBY_REPLICAS_CONFIG]) if configs else 0
    assignment = result.to_json()
    kept = 0
    for member_id, a in result.members.items():
        before = spec.members[member_id].active_tasks
        kept += sum(1 for s, parts in a.active_tasks.items() for p in parts if p in before.get(s, ()))
    return {
        "assignor": name,
        "num_standby_replicas": replicas,
        "assignment": assignment,
        "stats": {
            "active": {m: _count(a["active"]) for m, a in assignment.items()},
            "standby": {m: _count(a["standby"]) for m, a in assignment.items()},
            "active_kept": kept,
            "standby_wanted": sum(s.partitions * replicas for s in topology if s.stateful),
            "standby_assigned": sum(_count(a["standby"]) for a in assignment.values()),
        },
    }


def _count(tasks: Mapping[str, List[int]]) -> int:
    return sum(len(p) for p in tasks.values())


# ---------------------------------------------------------------------------------------------------------------
# the facts of Kafka's unit tests (``expect``)

CHECKS = ("name", "members", "members_with", "count", "tasks", "union", "subtopologies", "disjoint_active_standby",
          "any_of")
UNITS = ("active", "standby", "active_subtopologies", "standby_subtopologies")


def _task_set(tasks: object, where: str) -> Set[Tuple[str, int]]:
    if not isinstance(tasks, dict) or not all(isinstance(p, list) and all(_is_int(x) for x in p) for p in tasks.values()):
        raise InputError(where, f"must be an object {{subtopology: [partitions]}}, got {tasks!r}")
    return {(s, p) for s, parts in tasks.items() for p in parts}


def _bounds(check: Mapping[str, Any], value: int, what: str, where: str, names: Tuple[str, str, str]) -> List[str]:
    eq, lo, hi = (check.get(n) for n in names)
    for n, v in zip(names, (eq, lo, hi)):
        if v is not None and not _is_int(v):
            raise InputError(f"{where}.{n}", f"must be a whole number, got {v!r}")
    if eq is None and lo is None and hi is None:
        raise InputError(where, f"needs one of {', '.join(names)}")
    if eq is not None and value != eq:
        return [f"{what} is {value}, expected {eq}"]
    if lo is not None and value < lo:
        return [f"{what} is {value}, expected at least {lo}"]
    if hi is not None and value > hi:
        return [f"{what} is {value}, expected at most {hi}"]
    return []


def _of(check: Mapping[str, Any], where: str, allowed: Tuple[str, ...]) -> str:
    of = check.get("of")
    if of not in allowed:
        raise InputError(f"{where}.of", f"must be one of {', '.join(allowed)}, got {of!r}")
    return str(of)


def _members(check: Mapping[str, Any], assignment: Mapping[str, Any], where: str) -> List[str]:
    members = check.get("members")
    if members is None:
        return list(assignment)
    if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
        raise InputError(f"{where}.members", f"must be a list of member ids, got {members!r}")
    return members


def _held(assignment: Mapping[str, Any], member: str, of: str) -> Set[Tuple[str, int]]:
    return {(s, p) for s, parts in assignment[member][of].items() for p in parts}


def _check(check: object, output: Mapping[str, Any], where: str) -> List[str]:
    if not isinstance(check, dict) or check.get("check") not in CHECKS:
        raise InputError(where, f"must be an object {{check: one of {', '.join(CHECKS)}, ...}}, got {check!r}")
    kind = check["check"]
    assignment: Mapping[str, Any] = output.get("assignment", {})
    if kind == "name":
        return [] if output.get("assignor") == check.get("equals") else [f"name is {output.get('assignor')!r}"]
    if kind == "members":
        return _bounds(check, len(assignment), "the number of members", where, ("equals", "min", "max"))
    if kind == "any_of":
        options = check.get("options")
        if not isinstance(options, list) or not options or not all(isinstance(o, list) for o in options):
            raise InputError(f"{where}.options", "must be a non-empty list of lists of checks")
        per_option: List[List[str]] = [sum((_check(c, output, f"{where}.options[{i}][{j}]") for j, c in enumerate(o)), [])
                                       for i, o in enumerate(options)]
        return [] if any(not f for f in per_option) else [f"no option holds: {'; '.join(f[0] for f in per_option)}"]
    if kind == "members_with":
        of = _of(check, where, ("active", "standby"))
        holding = sum(1 for m in assignment if assignment[m][of])
        return _bounds(check, holding, f"members with {of} tasks", where, ("equals", "min", "max"))
    if kind == "disjoint_active_standby":
        return [f"{m} has {sorted(_held(assignment, m, 'active') & _held(assignment, m, 'standby'))} both active "
                f"and standby" for m in assignment if _held(assignment, m, "active") & _held(assignment, m, "standby")]
    members = _members(check, assignment, where)
    missing = [m for m in members if m not in assignment]
    if kind == "tasks":
        member = check.get("member")
        if not isinstance(member, str):
            raise InputError(f"{where}.member", f"must be a member id, got {member!r}")
        if member not in assignment:
            return [f"{member} has no assignment"]
        of = _of(check, where, ("active", "standby"))
        held = _held(assignment, member, of)
        failures: List[str] = []
        for relation in ("equals", "contains", "excludes", "contains_any"):
            if relation in check:
                want = _task_set(check[relation], f"{where}.{relation}")
                ok = {"equals": held == want, "contains": want <= held, "excludes": not (want & held),
                      "contains_any": bool(want & held)}[relation]
                if not ok:
                    failures.append(f"{member}'s {of} tasks {sorted(held)} fail {relation} {sorted(want)}")
        return failures
    if missing:
        return [f"{m} has no assignment" for m in missing]
    if kind == "count":
        units = check.get("of")
        units = [units] if isinstance(units, str) else units
        if not isinstance(units, list) or not units or not all(u in UNITS for u in units):
            raise InputError(f"{where}.of", f"must be one of {', '.join(UNITS)} or a list of them, got {check.get('of')!r}")
        sub = check.get("subtopology")

        def value(member: str) -> int:
            total = 0
            for unit in units:
                tasks = assignment[member][unit.split("_")[0]]
                if sub is not None:
                    tasks = {sub: tasks[sub]} if sub in tasks else {}
                total += len(tasks) if unit.endswith("_subtopologies") else _count(tasks)
            return total

        names = ("equals", "min", "max")
        if check.get("each"):
            return sum((_bounds(check, value(m), f"{'+'.join(units)} of {m}", where, names) for m in members), [])
        return _bounds(check, sum(value(m) for m in members), f"{'+'.join(units)} of {', '.join(members)}", where, names)
    of = _of(check, where, ("active", "standby"))
    union: Set[Tuple[str, int]] = set()
    for m in members:
        union |= _held(assignment, m, of)
    if kind == "subtopologies":
        return _bounds(check, len({s for s, _ in union}), f"subtopologies with {of} tasks", where, ("equals", "min", "max"))
    # union
    if "equals" in check:
        want = _task_set(check["equals"], f"{where}.equals")
        return [] if union == want else [f"{of} tasks of {', '.join(members)}: {sorted(union)}, expected {sorted(want)}"]
    return _bounds(check, len(union), f"distinct {of} tasks", where, ("size", "size_min", "size_max"))


def check_expect(scenario: Mapping[str, Any], output: Mapping[str, Any]) -> List[str]:
    """The facts of the line's ``expect`` that ``output`` fails (empty: all hold); ``InputError`` for a
    malformed check.  An ``error`` output fails every check."""
    expect = scenario.get("expect") or []
    if not isinstance(expect, list):
        raise InputError("expect", f"must be a list of checks, got {expect!r}")
    if "error" in output:
        return [f"Kafka threw {output['error'].get('type')}"] if expect else []
    failures: List[str] = []
    for i, check in enumerate(expect):
        failures.extend(_check(check, output, f"expect[{i}]"))
    return failures
