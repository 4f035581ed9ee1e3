"""Conformance adapter for the ``group`` kind: KIP-848 server-side assignors replayed step by step.

Input and output follow "Input schema — group" / "Output schema — group" of the vectors README.  A scenario
is a list of steps against one evolving group: each step may change topics (``add_topics`` adds or replaces
by name, ``remove_topics``), lists the members (omitted: the previous step's), and a member whose
``assignment`` is omitted or ``"carry"`` starts from its result in the previous step, rebuilt as a fresh
``HashMap``/``HashSet`` filled in the Java iteration order of that result (this is what Kafka's recorded
harness did; the materialized inputs in the vectors agree list by list).  Note that
``HashMap.computeIfAbsent`` puts a new key at the head of its bucket, so a result's topic order is not its
insertion order.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Set, Tuple

from ..errors import InputError, KafkaError
from .assignor import ReplayOptions, assignor_for, check_members_map
from .group import GroupResult, MemberInput, TopicCatalog, parse_inverted, parse_topics, prepare_group, run_assignor
from .spec import Assignment

__all__ = ["run", "replay_options", "compare", "step_stats", "valid_and_balanced", "conformance_counts",
           # the step replay the share kind shares (rebalance.share.vectors)
           "assignment_json", "check_expect_common", "check_inverted", "checked_expect", "record_expect", "replay_steps",
           "step_switch"]

GROUP_FILES = ("group_unit.jsonl", "group_uniform.jsonl", "group_range.jsonl", "group_rules.jsonl")


def assignment_json(assignment: Optional[Assignment], catalog: TopicCatalog) -> Dict[str, List[int]]:
    """A Java assignment map as JSON, in its iteration order."""
    if assignment is None:
        return {}
    return {catalog.name_of(t): list(p) for t, p in assignment.items()}


def step_stats(inputs: Mapping[str, Mapping[str, List[int]]], result: Mapping[str, Mapping[str, List[int]]]
               ) -> Dict[str, Any]:
    """``partition_counts`` per returned member; ``kept``/``revoked``/``moved`` count the partitions of the
    members' input assignments: kept, those the same member still has in the result; revoked, those it no longer
    has; moved, those of the revoked that another member has.  A member by itself, as the coordinator's
    ``CurrentAssignmentBuilder.computeNextAssignment`` reconciles it (assigned = current ∩ target, pending
    revocation = current − assigned; Kafka 4.3.1): a partition the result gives to two members (reachable from
    overlapping input assignments) is kept by either one that had it, whatever the order of the result map."""
    counts = {m: sum(len(p) for p in a.values()) for m, a in result.items()}
    holders: Dict[Tuple[str, int], Set[str]] = {}
    for m, a in result.items():
        for t, parts in a.items():
            for p in parts:
                holders.setdefault((t, p), set()).add(m)
    kept = revoked = moved = 0
    for m, a in inputs.items():
        for t, parts in a.items():
            for p in parts:
                now = holders.get((t, p), set())
                if m in now:
                    kept += 1
                else:
                    revoked += 1
                    if now:
                        moved += 1
    stats: Dict[str, Any] = {"partition_counts": counts, "kept": kept, "revoked": revoked, "moved": moved,
             "assigned_total": sum(counts.values())}
    if counts:
        stats["min"] = min(counts.values())
        stats["max"] = max(counts.values())
    return stats


def valid_and_balanced(topics: Mapping[str, int], subscriptions: Mapping[str, List[str]],
                       assignment: Mapping[str, Mapping[str, List[int]]]) -> List[str]:
    """The checks of Kafka's ``AssignmentTestUtil``-style ``checkValidityAndBalance``: every partition of a
    subscribed topic assigned exactly once, only to subscribers, and no member holding two or more
    partitions more than another member that subscribes to one of its topics."""
    problems = []
    owners: Dict[Tuple[str, int], str] = {}
    for m, a in assignment.items():
        for t, parts in a.items():
            if t not in subscriptions.get(m, []):
                problems.append(f"{m} holds {t} without subscribing to it")
            for p in parts:
                if (t, p) in owners:
                    problems.append(f"{t}-{p} assigned to {owners[(t, p)]} and {m}")
                owners[(t, p)] = m
    wanted = {t for subs in subscriptions.values() for t in subs if t in topics}
    for t in sorted(wanted):
        for p in range(topics[t]):
            if (t, p) not in owners:
                problems.append(f"{t}-{p} unassigned")
    size = {m: sum(len(p) for p in assignment.get(m, {}).values()) for m in subscriptions}
    for m1 in subscriptions:
        for m2 in subscriptions:
            if size[m1] - size[m2] > 1 and any(t in subscriptions[m2] for t in assignment.get(m1, {})):
                problems.append(f"{m1} has {size[m1]} partitions, {m2} only {size[m2]} and could take one")
    return problems


def check_expect_common(expect: Mapping[str, Any], step_out: Dict[str, Any]) -> List[str]:
    """The expectations every step-replay kind shares (``group``, ``share``): an ``error`` prefix and an exact
    ``assignment``."""
    failures = []
    if "error" in expect:
        got = step_out.get("error", "")
        if not got.startswith(str(expect["error"])):
            failures.append(f"expected {expect['error']}, got {got or 'a result'}")
    if "assignment" in expect:
        if step_out.get("assignment") != expect["assignment"]:
            failures.append("assignment differs from the expected one")
    return failures


def _check_expect(expect: Mapping[str, Any], step_out: Dict[str, Any], catalog: TopicCatalog,
                  members: List[MemberInput]) -> List[str]:
    failures = check_expect_common(expect, step_out)
    if expect.get("valid_and_balanced") and "assignment" in step_out:
        topics = {t.name: t.partitions for t in catalog.topics()}
        subs = {m.member_id: m.subscriptions for m in members}
        failures.extend(valid_and_balanced(topics, subs, step_out["assignment"]))
    return failures


def record_expect(expect: Optional[Mapping[str, Any]], step_out: Dict[str, Any],
                   check: Callable[[Mapping[str, Any], Dict[str, Any]], List[str]]) -> bool:
    """Check a step's ``expect`` (if any) against its output with ``check``; the failures go into the output's
    ``expect_failures``.  False when there are some."""
    if expect is None:
        return True
    failures = check(expect, step_out)
    if failures:
        step_out["expect_failures"] = failures
        return False
    return True


#: the harness switches a step may set (else the line's value, else the default): name -> default
SWITCHES = {"assignment_map": "hash", "subscription_set": "hash", "subscription_type": None,
            "inverted_assignment": None}
#: what a step's (or a step-less line's) ``expect`` may hold
EXPECT_KEYS = ("assignment", "error", "valid_and_balanced")


def step_switch(step: Mapping[str, Any], scenario: Mapping[str, Any], name: str, dot: str, default: object
            ) -> Tuple[object, str]:
    """A switch's value and the field it came from (the step's, ``dot + name``, when the step sets it to a value;
    a step's ``null`` means the line's value, as in the Java harness's ``GroupKind.value``)."""
    if dot and step.get(name) is not None:
        return step[name], f"{dot}{name}"
    return scenario.get(name, default), name


def replay_options(step: Mapping[str, Any], scenario: Mapping[str, Any], dot: str = "") -> ReplayOptions:
    """The harness switches of one step (a step's value wins over the scenario's): the
    :class:`~rebalance.kip848.assignor.ReplayOptions` only this adapter passes, checked by its own
    ``check`` (the one check of the direct API too) with the field each came from (``dot``: the step's
    prefix, ``"steps[2]."``).  The inverted assignment is checked by ``parse_inverted`` in :func:`run`."""
    values: Dict[str, Any] = {}
    fields: Dict[str, str] = {}
    for name, default in SWITCHES.items():
        values[name], fields[name] = step_switch(step, scenario, name, dot, default)
    return ReplayOptions(**values).check(fields)


def _expect_valid_and_balanced(value: Mapping[str, Any], field: str) -> None:
    if "valid_and_balanced" in value and not isinstance(value["valid_and_balanced"], bool):
        raise InputError(f"{field}.valid_and_balanced", f"must be true or false, got {value['valid_and_balanced']!r}")


def checked_expect(value: object, field: str, keys: Tuple[str, ...] = EXPECT_KEYS,
            check_extra: Callable[[Mapping[str, Any], str], None] = _expect_valid_and_balanced
            ) -> Optional[Mapping[str, Any]]:
    """A step's ``expect``, checked: ``{"assignment": {member: {topic: [partitions]}}, "error": "...",
    "valid_and_balanced": true}``, each optional.  Another step-replay kind (``share``) passes its own ``keys``
    (``assignment``, ``error`` and one of its own) and ``check_extra``, the check of its own key."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InputError(field, f"must be an object {{{', '.join(key + '?' for key in keys)}}}")
    for key in value:
        if key not in keys:
            raise InputError(f"{field}.{key}", f"unknown expectation; expected one of {', '.join(keys)}")
    if "error" in value and not isinstance(value["error"], str):
        raise InputError(f"{field}.error", f"must be the start of an error message (a string), got {value['error']!r}")
    check_extra(value, field)
    if "assignment" in value:
        assignment = value["assignment"]
        if not isinstance(assignment, Mapping):
            raise InputError(f"{field}.assignment", "must be an object {member: {topic: [partitions]}}")
        for member, topics in assignment.items():
            where = f"{field}.assignment.{member}"
            if not isinstance(topics, Mapping):
                raise InputError(where, "must be an object {topic: [partitions]}")
            for topic, parts in topics.items():
                if not isinstance(parts, list) or not all(isinstance(p, int) and not isinstance(p, bool) for p in parts):
                    raise InputError(f"{where}.{topic}", "must be a list of partition numbers")
    return value


def replay_steps(scenario: Mapping[str, Any]) -> Iterator[Tuple[int, Mapping[str, Any], str, TopicCatalog]]:
    """The steps of a step-replay line (``group``, ``share``), each with its field prefix (``"steps[2]."``;
    ``""`` for a line without ``steps``, which is its own one step) and the topic catalog it sees: the line's
    ``topics``, or the step's, with the step's ``add_topics`` and ``remove_topics`` applied to the previous
    step's catalog."""
    catalog = TopicCatalog.parse(scenario.get("topics", []), "topics")
    steps = scenario.get("steps")
    if steps is None:
        steps, prefix = [scenario], ""
    elif not isinstance(steps, list) or not steps:
        raise InputError("steps", "must be a non-empty list of steps")
    else:
        prefix = "steps"
    for index, step in enumerate(steps):
        sf = f"{prefix}[{index}]" if prefix else ""
        dot = f"{sf}." if sf else ""
        if not isinstance(step, Mapping):
            raise InputError(sf or "input", "a step must be an object")
        if "topics" in step and prefix:
            catalog = TopicCatalog.parse(step["topics"], f"{dot}topics")
        else:
            catalog = catalog.copy()
        for topic in parse_topics(step.get("add_topics", []), f"{dot}add_topics"):
            catalog.put(topic)
        removals = step.get("remove_topics", [])
        if not isinstance(removals, list) or not all(isinstance(name, str) for name in removals):
            raise InputError(f"{dot}remove_topics", "must be a list of topic names")
        for name in removals:
            catalog.remove(name)
        yield index, step, dot, catalog


def check_inverted(replay: ReplayOptions, step: Mapping[str, Any], scenario: Mapping[str, Any], dot: str,
                    catalog: TopicCatalog) -> None:
    """The step's ``inverted_assignment`` (if any) checked against its catalog, naming the field it came from."""
    if replay.inverted_assignment is not None:
        parse_inverted(replay.inverted_assignment, catalog,
                       step_switch(step, scenario, "inverted_assignment", dot, None)[1])


def run(scenario: Dict[str, Any]) -> Dict[str, Any]:
    """Replay one ``group`` scenario (see the module docstring).  Each step goes through the same
    validation as :func:`~rebalance.kip848.group.assign_group` (:func:`~rebalance.kip848.group.prepare_group`)."""
    if not isinstance(scenario, Mapping):
        raise InputError("input", "must be a JSON object")
    assignor = scenario.get("assignor", "uniform")
    assignor_for(assignor)
    previous: Optional[GroupResult] = None
    members_value = scenario.get("members")
    out_steps: List[Dict[str, Any]] = []
    ok = True
    for index, step, dot, catalog in replay_steps(scenario):
        if "members" in step:
            members_value = step["members"]
        replay = replay_options(step, scenario, dot)
        expect = checked_expect(step.get("expect"), f"{dot}expect")
        check_inverted(replay, step, scenario, dot, catalog)  # checked here to name where it came from
        members_map = check_members_map(*step_switch(step, scenario, "members_map", dot, "hash"))
        members, spec = prepare_group(catalog, members_value, previous=previous, members_map=members_map,
                                      replay=replay, prefix=dot)
        materialized_members = []
        inputs_by_member: Dict[str, Dict[str, List[int]]] = {}
        for m in members:
            entry: Dict[str, Any] = {"id": m.member_id}
            if m.instance_id is not None:
                entry["instance_id"] = m.instance_id
            if m.rack is not None:
                entry["rack"] = m.rack
            entry["subscriptions"] = list(m.subscriptions)
            entry["assignment"] = assignment_json(spec.member(m.member_id).assignment, catalog)
            inputs_by_member[m.member_id] = entry["assignment"]
            materialized_members.append(entry)
        step_out: Dict[str, Any] = {"step": index,
                    "input": {"topics": [t.to_json() for t in catalog.topics()], "members": materialized_members},
                    "subscription_type": spec.subscription_type}
        try:
            result = run_assignor(assignor, spec, catalog)
        except KafkaError as exc:
            step_out["error"] = f"{exc.type}: {exc.message}"
        else:
            previous = result
            by_name = result.by_name()
            if result.builder:
                step_out["builder"] = result.builder
            step_out["assignment"] = by_name
            step_out["stats"] = step_stats(inputs_by_member, by_name)
        if replay.inverted_assignment is not None:
            step_out["inverted_assignment_override"] = True
        if not record_expect(expect, step_out, lambda e, o: _check_expect(e, o, catalog, members)):
            ok = False
        out_steps.append(step_out)
    return {"id": scenario.get("id"), "kind": "group", "assignor": assignor, "steps": out_steps, "ok": ok}


def _normalize_input(value: Dict[str, Any]) -> Dict[str, Any]:
    members = []
    for m in value.get("members", []):
        m = dict(m)
        m["assignment"] = {t: sorted(p) for t, p in (m.get("assignment") or {}).items()}
        members.append(m)
    return {"topics": value.get("topics"), "members": members}


def compare(expected: Dict[str, Any], actual: Dict[str, Any]) -> List[str]:
    """Kafka's step results must match exactly: assignment, builder, subscription type, stats, error, and
    the materialized input including its list orders (the Java iteration orders of the carried
    assignments)."""
    problems = []
    for key in ("kind", "assignor", "ok"):
        if expected.get(key) != actual.get(key):
            problems.append(f"{key}: expected {expected.get(key)!r}, got {actual.get(key)!r}")
    exp_steps, act_steps = expected.get("steps", []), actual.get("steps", [])
    if len(exp_steps) != len(act_steps):
        return problems + [f"{len(act_steps)} steps, Kafka has {len(exp_steps)}"]
    for e, a in zip(exp_steps, act_steps):
        where = f"step {e.get('step')}"
        for key in sorted(set(e) | set(a)):
            if key == "input":
                if e[key] != a.get(key):
                    same_sets = _normalize_input(e[key]) == _normalize_input(a.get(key, {}))
                    problems.append(f"{where}: materialized input differs"
                                    + (" (only in Java iteration order)" if same_sets else ""))
            elif e.get(key) != a.get(key):
                if key == "assignment" and isinstance(e.get(key), dict) and isinstance(a.get(key), dict):
                    diff = [m for m in set(e[key]) | set(a[key]) if e[key].get(m) != a[key].get(m)]
                    problems.append(f"{where}: assignment differs for {len(diff)} member(s), e.g. {sorted(diff)[:3]}")
                else:
                    problems.append(f"{where}: {key}: expected {str(e.get(key))[:150]}, got {str(a.get(key))[:150]}")
        if problems:
            break
    return problems


def conformance_counts(directory: Optional[str] = None) -> List[Dict[str, Any]]:
    """Replay the ``group`` vector files: ``[{"file", "passed", "failed"}]``.  ``directory`` defaults to
    :func:`rebalance.vectors.vectors_dir` (the repository's ``kafka-vectors`` folder)."""
    from pathlib import Path

    from ..vectors import conform_lines, read_lines, vectors_dir

    folder = Path(vectors_dir() if directory is None else directory)
    if not folder.is_dir():
        raise InputError("directory", f"no vectors directory at {folder}")
    rows = []
    for name in GROUP_FILES:
        result = conform_lines(read_lines(str(folder / name)), lambda text: None)
        rows.append({"file": name, "passed": result.passed, "failed": result.failed})
    return rows
