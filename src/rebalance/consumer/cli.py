"""``python -m rebalance assign SCENARIO.json --assignor NAME [--json]``.

Runs one of Kafka's client-side assignors on a consumer group described in a JSON file and prints who
gets which partitions.  Two file shapes are accepted:

* the book's own, keyed by name::

    {"topics": {"t0": 3, "t1": 2},
     "members": {"C0": {"topics": ["t0", "t1"], "owned": ["t0-0"], "generation": 1},
                 "C1": {"topics": ["t0"], "instance_id": "host-1", "rack": "a"}},
     "partition_racks": {"t0": [["a"], ["b"], ["a", "b"]]}}          # optional (KIP-881)

* the conformance vectors' ``kind: consumer`` input (members as a list with ``memberId``), or a whole
  vectors line with ``input``.

Which assignor runs, one rule: ``--assignor`` when it is given, else the file's own ``"assignor"`` field,
else ``range`` (Kafka's default ``partition.assignment.strategy`` starts with ``RangeAssignor``).  A flag
that disagrees with the file's field wins, as a command-line option overrides a configuration file, and a
``note:`` line on stderr says so.  Bad input prints ``error: <field>: <message>`` and exits with status 2
(``InputError`` is caught by ``rebalance.__main__``).
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..errors import InputError, KafkaError
from ..validation import require
from ..vectors import check_input_size
from .api import build_scenario, require_members, run_assignor
from .assignor import assignor_name
from .model import AssignorResult, ConsumerScenario, TopicPartition, parse_consumer_input, tp_str
from .abstract import tp_sort_key


#: the assignor when neither ``--assignor`` nor the file names one
DEFAULT_ASSIGNOR = "range"


def choose_assignor(data: object, flag: Optional[str]) -> Tuple[str, Optional[str]]:
    """The assignor to run and, when ``flag`` overrides a different ``"assignor"`` in the file, a note
    saying so.  ``data`` is the parsed file (either shape, or a whole vectors line)."""
    inner = data.get("input") if isinstance(data, dict) and isinstance(data.get("input"), dict) else data
    in_file = inner.get("assignor") if isinstance(inner, dict) else None
    if in_file is not None:
        in_file = assignor_name_field(in_file, "assignor")
    if flag is None:
        return (in_file or DEFAULT_ASSIGNOR), None
    chosen = assignor_name_field(flag, "--assignor")
    note = None
    if in_file is not None and in_file != chosen:
        note = f"note: --assignor {chosen} overrides the file's \"assignor\": \"{in_file}\""
    return chosen, note


def assignor_name_field(name: object, field: str) -> str:
    """:func:`assignor_name`, with the error naming ``field`` (``assignor`` in the file, ``--assignor``)."""
    try:
        return assignor_name(name)
    except InputError as exc:
        raise InputError(field, exc.message) from None


def read_json(path: str) -> object:
    """The parsed JSON of a scenario file; every problem is an :class:`InputError` naming ``scenario``."""
    try:
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
    except OSError as exc:
        raise InputError("scenario", f"cannot read {path!r} ({exc.strerror})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError("scenario", f"{path!r} is not valid JSON ({exc.msg} at line {exc.lineno}, "
                                     f"column {exc.colno})") from None
    return data


def load_scenario(path: str, assignor: Optional[str] = None) -> ConsumerScenario:
    """Read a scenario file in either accepted shape; every problem is an :class:`InputError`.
    ``assignor`` is the ``--assignor`` flag (``None``: the file's ``"assignor"``, else range)."""
    data = read_json(path)
    name, _ = choose_assignor(data, assignor)
    return scenario_from_json(data, name)


def scenario_from_json(data: object, assignor: str) -> ConsumerScenario:
    """Build a :class:`ConsumerScenario` from parsed JSON in either accepted shape."""
    name = assignor_name(assignor)
    if not isinstance(data, dict):
        raise InputError("scenario", "must be a JSON object with 'topics' and 'members'")
    spec: Dict[str, Any] = data["input"] if isinstance(data.get("input"), dict) else data  # a whole vectors line
    if isinstance(spec.get("members"), list):  # the vectors' consumer input
        require_members(spec["members"])
        check_input_size(dict(spec, kind="consumer"))
        return parse_consumer_input(dict(spec, assignor=name))
    unknown = [k for k in spec if k not in ("topics", "members", "partition_racks", "assignor", "description")]
    require(not unknown, unknown[0] if unknown else "", "unknown field; a scenario has 'topics', 'members' "
            "and optionally 'assignor', 'partition_racks' and 'description'")
    require("topics" in spec, "topics", "is required: an object mapping topic names to partition counts")
    require(isinstance(spec["topics"], dict), "topics", "must be an object mapping topic names to partition counts")
    require("members" in spec, "members", "is required: an object mapping member ids to subscriptions")
    require(isinstance(spec["members"], dict), "members",
            "must be an object mapping member ids to {\"topics\": [...]} (or a list in the vectors' shape)")
    racks = spec.get("partition_racks")
    require(racks is None or isinstance(racks, dict), "partition_racks",
            "must map a topic to one list of racks per partition")
    if racks:
        for topic, per_partition in racks.items():
            require(isinstance(per_partition, list), f"partition_racks.{topic}",
                    "must be a list with one list of rack names per partition")
            for p, names in enumerate(per_partition):
                require(isinstance(names, list), f"partition_racks.{topic}[{p}]", "must be a list of rack names")
    return build_scenario(name, spec["topics"], spec["members"], partition_racks=racks)


def compact(partitions: Sequence[TopicPartition]) -> str:
    """``t0[0-2,5] t1[1]``: a member's partitions grouped by topic, runs written as ranges."""
    by_topic: Dict[str, List[int]] = {}
    for topic, p in sorted(partitions, key=tp_sort_key):
        by_topic.setdefault(topic, []).append(p)
    parts = []
    for topic, numbers in by_topic.items():
        runs, start, prev = [], numbers[0], numbers[0]
        for n in numbers[1:] + [None]:
            if n is not None and n == prev + 1:
                prev = n
                continue
            runs.append(str(start) if start == prev else f"{start}-{prev}")
            if n is not None:
                start = prev = n
        parts.append(f"{topic}[{','.join(runs)}]")
    return " ".join(parts) if parts else "-"


def format_table(scenario: ConsumerScenario, assignment: Mapping[str, Sequence[TopicPartition]]) -> str:
    """A plain-text table: member, number of partitions, partitions (and what moved, if anything was owned)."""
    members = list(scenario.members)
    any_owned = any(s.owned_partitions for s in scenario.members.values())
    header = ["member", "count", "partitions"] + (["kept", "revoked", "new"] if any_owned else [])
    rows = []
    for m in members:
        got = list(assignment.get(m, []))
        row = [m, str(len(got)), compact(got)]
        if any_owned:
            owned = set(scenario.members[m].owned_partitions)
            row += [str(len(owned & set(got))), str(len(owned - set(got))), str(len(set(got) - owned))]
        rows.append(row)
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    for row in rows:
        cells = [c.rjust(w) if c.isdigit() else c.ljust(w) for c, w in zip(row, widths)]
        lines.append("  ".join(cells).rstrip())
    counts = [len(assignment.get(m, [])) for m in members]
    total = sum(counts)
    spread = (max(counts) - min(counts)) if counts else 0
    lines.append(f"{scenario.assignor}: {total} partitions over {len(members)} members "
                 f"(max - min = {spread})")
    return "\n".join(lines)


def to_json(scenario: ConsumerScenario, result: AssignorResult) -> Dict[str, Any]:
    """The assignment in the vectors' string form, plus what the sticky assignors report."""
    assignment = result.assignment
    out: Dict[str, Any] = {"assignor": scenario.assignor,
           "assignment": {m: [tp_str(tp) for tp in assignment.get(m, [])] for m in scenario.members}}
    if result.partitions_transferring_ownership is not None:
        out["partitionsTransferringOwnership"] = {tp_str(tp): m for tp, m in
                                                  result.partitions_transferring_ownership.items()}
    if result.path is not None:
        out["stickyPath"] = result.path
    if result.max_generation is not None:
        out["maxGeneration"] = result.max_generation
    return out


def assign_command(args: argparse.Namespace) -> int:
    """Entry point used by ``rebalance.__main__`` (``args.scenario``, ``args.assignor``, ``args.json``)."""
    data = read_json(args.scenario)
    name, note = choose_assignor(data, args.assignor)
    if note:
        print(note, file=sys.stderr)
    scenario = scenario_from_json(data, name)
    try:
        result = run_assignor(scenario)
    except KafkaError as exc:
        print(f"error: Kafka's {scenario.assignor} assignor throws {exc.type}: {exc.message}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(to_json(scenario, result), indent=2, ensure_ascii=False))
    else:
        print(format_table(scenario, result.assignment))
        withheld = result.withheld
        if withheld:
            moves = ", ".join(f"{tp_str(tp)} -> {m}" for tp, m in sorted(withheld.items(), key=lambda i: tp_sort_key(i[0])))
            print(f"revoked now, assigned in the follow-up rebalance: {moves}")
    return 0
