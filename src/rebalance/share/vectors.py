"""Conformance adapter for the ``share`` kind: KIP-932's ``SimpleAssignor`` replayed step by step.

Input and output follow "Input schema — share" / "Output schema — share" of the vectors README.  The harness is
the ``group`` kind's (:mod:`rebalance.kip848.vectors`: topics, ``add_topics``/``remove_topics``, members,
``"carry"``, the switches ``members_map``, ``assignment_map``, ``subscription_set``, ``subscription_type``), plus
``assignable``: ``{topic: [partitions]}``, the share group's ``topicPartitionAllowedMap`` (absent or null:
``Optional.empty()``, every partition assignable).  A step's output has its ``subscription_type``, the
``builder``, the ``assignment`` (members and topics sorted, partitions sorted), ``stats`` and, where
``SimpleAssignor.assign`` throws, ``error``; ``expect`` may require an ``assignment``, an ``error`` prefix and
``partitions_assigned`` (the distinct partitions assigned, what Kafka's ``SimpleAssignorTest`` asserts).
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Set, Tuple

from ..errors import InputError, KafkaError
from ..java import INT_MAX, INT_MIN, java_string_key
from ..kip848.assignor import check_members_map
from ..kip848.group import GroupResult, TopicCatalog, prepare_group
from ..kip848.uuid import Uuid
from ..kip848.vectors import (assignment_json, check_expect_common, check_inverted, checked_expect as _group_expect,
                              record_expect, replay_steps, step_switch, replay_options)
from .simple import share_assignor_for

__all__ = ["EXPECT_KEYS", "parse_assignable", "run", "share_stats"]

#: what a step's (or a step-less line's) ``expect`` may hold
EXPECT_KEYS = ("assignment", "error", "partitions_assigned")


def parse_assignable(value: object, field: str = "assignable", *, catalog: TopicCatalog
                     ) -> Optional[Dict[Uuid, Set[int]]]:
    """``{topic: [partitions]}`` as ``topicPartitionAllowedMap``; ``None`` for an absent (or null) value."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InputError(field, "must be an object {topic: [partitions]} or null")
    allowed: Dict[Uuid, Set[int]] = {}
    for ref, parts in value.items():
        tf = f"{field}.{ref}"
        topic_id = catalog.resolve(ref, tf)
        if not isinstance(parts, list) or not all(isinstance(p, int) and not isinstance(p, bool)
                                                  and INT_MIN <= p <= INT_MAX for p in parts):
            raise InputError(tf, "must be a list of partition numbers")
        allowed[topic_id] = set(parts)
    return allowed


def share_stats(inputs: Mapping[str, Mapping[str, List[int]]], result: Mapping[str, Mapping[str, List[int]]]
                ) -> Dict[str, Any]:
    """``assigned_total`` (the members' partitions summed), ``partitions_assigned`` (distinct partitions),
    ``max_sharing`` (the most members of one partition), ``kept``/``revoked`` (input partitions the same member
    still has / no longer has), ``min``/``max`` member sizes."""
    sharing: Dict[Tuple[str, int], int] = {}
    sizes = []
    for topics in result.values():
        sizes.append(sum(len(p) for p in topics.values()))
        for t, parts in topics.items():
            for p in parts:
                sharing[(t, p)] = sharing.get((t, p), 0) + 1
    kept = revoked = 0
    for member, topics in inputs.items():
        now = result.get(member, {})
        for t, parts in topics.items():
            for p in parts:
                if p in now.get(t, []):
                    kept += 1
                else:
                    revoked += 1
    stats: Dict[str, Any] = {"assigned_total": sum(sizes), "partitions_assigned": len(sharing),
                             "max_sharing": max(sharing.values(), default=0), "kept": kept, "revoked": revoked}
    if sizes:
        stats["min"], stats["max"] = min(sizes), max(sizes)
    return stats


def _expect_partitions_assigned(value: Mapping[str, Any], field: str) -> None:
    count = value.get("partitions_assigned")
    if "partitions_assigned" in value and not (isinstance(count, int) and not isinstance(count, bool)
                                               and 0 <= count <= INT_MAX):
        raise InputError(f"{field}.partitions_assigned", f"must be a whole number >= 0, got {count!r}")


def checked_expect(value: object, field: str) -> Optional[Mapping[str, Any]]:
    """A step's ``expect``, checked: ``{"assignment": {member: {topic: [partitions]}}, "error": "...",
    "partitions_assigned": n}``, each optional (the ``group`` kind's check with this kind's keys)."""
    return _group_expect(value, field, EXPECT_KEYS, _expect_partitions_assigned)


def _check_expect(expect: Mapping[str, Any], step_out: Dict[str, Any]) -> List[str]:
    failures = check_expect_common(expect, step_out)
    if "partitions_assigned" in expect:
        stats = step_out.get("stats")
        got_count = -1 if stats is None else stats["partitions_assigned"]
        if got_count != expect["partitions_assigned"]:
            failures.append(f"expected {expect['partitions_assigned']} partitions assigned, got "
                            f"{'no result' if got_count < 0 else got_count}")
    return failures


def run(scenario: Dict[str, Any]) -> Dict[str, Any]:
    """Replay one ``share`` scenario (see the module docstring); each step's group goes through the ``group``
    kind's validation (:func:`~rebalance.kip848.group.prepare_group`)."""
    if not isinstance(scenario, Mapping):
        raise InputError("input", "must be a JSON object")
    assignor = share_assignor_for(scenario.get("assignor", "simple"))
    previous: Optional[GroupResult] = None
    members_value = scenario.get("members")
    members_dot = ""  # where the member list in force was given: an error names its field there
    out_steps: List[Dict[str, Any]] = []
    ok = True
    for index, step, dot, catalog in replay_steps(scenario):
        if dot and "members" in step:
            members_value, members_dot = step["members"], dot
        members_map = check_members_map(*step_switch(step, scenario, "members_map", dot, "hash"))
        replay = replay_options(step, scenario, dot)
        check_inverted(replay, step, scenario, dot, catalog)
        allowed = parse_assignable(*step_switch(step, scenario, "assignable", dot, None), catalog=catalog)
        expect = checked_expect(step.get("expect"), f"{dot}expect")
        members, spec = prepare_group(catalog, members_value, previous=previous, members_map=members_map,
                                      replay=replay, prefix=members_dot)
        spec.topic_partition_allowed = allowed
        inputs = {m.member_id: assignment_json(spec.member(m.member_id).assignment, catalog) for m in members}
        step_out: Dict[str, Any] = {"step": index, "subscription_type": spec.subscription_type}
        try:
            result = assignor.assign(spec, catalog.describer())
        except KafkaError as exc:
            step_out["error"] = f"{exc.type}: {exc.message}"
        else:
            previous = GroupResult(assignor.name(), spec.subscription_type, result.builder, result, catalog)
            by_name = {m: dict(sorted(a.items(), key=lambda item: java_string_key(item[0])))
                       for m, a in sorted(previous.by_name().items(), key=lambda item: java_string_key(item[0]))}
            if result.builder:
                step_out["builder"] = result.builder
            step_out["assignment"] = by_name
            step_out["stats"] = share_stats(inputs, by_name)
        if not record_expect(expect, step_out, _check_expect):
            ok = False
        out_steps.append(step_out)
    return {"id": scenario.get("id"), "kind": "share", "assignor": assignor.name(), "steps": out_steps, "ok": ok}
