"""Adapter for the conformance vectors of kind ``consumer`` (client-side consumer partition assignors).

``run(input)`` replays one scenario the way Kafka's harness did (commit 1eb7644; the same logic in Kafka 4.3.1) and
returns the vectors' output schema::

    {"assignment": {member: ["t-0", ...]},        # each list in the order Kafka's List<TopicPartition> had
     "sortedAssignment": {member: [...]},          # the same lists sorted by TopicPartitionComparator
     # sticky / cooperative-sticky only:
     "stickyPath", "partitionsTransferringOwnership", "maxGeneration"}

Every assignor runs through :func:`rebalance.consumer.assignor.assignor_for`, with the harness switches of
the line as its :class:`~rebalance.consumer.replay.ReplayOptions`.

``compare(expected, actual)`` decides pass/fail on ``sortedAssignment`` (membership), on ``assignment``
list by list in Kafka's order (the ``List<TopicPartition>`` each assignor returns is Kafka's answer, order
included: a consumer gets its partitions in it, and a sticky member reports them back in it), and, for the
sticky kinds, on ``stickyPath``, ``partitionsTransferringOwnership`` and ``maxGeneration``.  A list with
the right partitions in another order is reported as such.
"""
from __future__ import annotations

from operator import itemgetter
from typing import Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from .assignor import assignor_for
from .model import AssignorResult, ConsumerScenario, TopicPartition, parse_consumer_input, tp_str
from .sticky_userdata import user_data_from_spec
from ..validation import require
from .replay import ENTRIES, SUBSCRIPTION_MAP_TYPES, ReplayOptions
from ..java import INT_MAX, INT_MIN, java_string_key, same_order_as_python

STICKY_FIELDS = ("stickyPath", "partitionsTransferringOwnership", "maxGeneration")


def sorted_partitions(partitions: Sequence[TopicPartition]) -> List[TopicPartition]:
    """``partitions`` sorted as ``Collections.sort(list, new TopicPartitionComparator())`` would: topics by
    ``String.compareTo`` (each topic's key is computed once), then partition numbers."""
    by_topic: Dict[str, List[int]] = {}
    for topic, partition in partitions:
        by_topic.setdefault(topic, []).append(partition)
    result: List[TopicPartition] = []
    for topic in sorted(by_topic, key=java_string_key):
        numbers = by_topic[topic]
        numbers.sort()
        result.extend([(topic, p) for p in numbers])
    return result


_TOPIC = itemgetter(0)
_PARTITION = itemgetter(1)


def _output_lists(tps: Sequence[TopicPartition], ranks: Optional[Mapping[str, int]],
                  prefixes: Mapping[str, str], numbers: Optional[List[str]]) -> Tuple[List[str], List[str]]:
    """``(plain, sorted)`` ``"topic-partition"`` lists of one member.  Each string is ``prefixes[topic]``
    (``"topic-"``) plus the partition number's text from ``numbers`` (formatted once per number, not per
    partition; with ``numbers`` None each string is formatted in full).  ``sorted`` reuses ``plain``'s
    strings (a million partitions are formatted once, not twice).  With ``ranks`` None the topics sort the
    same in Python as with ``String.compareTo`` and the ``(topic, partition)`` tuples are sorted as they are;
    otherwise on one integer per partition: the topic's rank, then the partition number (partition numbers
    are non-negative Java ints)."""
    if numbers is None:
        plain = [f"{t}-{p}" for t, p in tps]
    else:
        plain = [prefixes[t] + numbers[p] for t, p in tps]
    if ranks is None:
        order = sorted(range(len(tps)), key=tps.__getitem__)
    else:
        codes = [(ranks[t] << 32) | p for t, p in tps]
        order = sorted(range(len(codes)), key=codes.__getitem__)
    return plain, list(map(plain.__getitem__, order))


def assignment_output(assignment: Mapping[str, Sequence[TopicPartition]],
                      members: Sequence[str] = ()) -> Dict[str, Any]:
    """The vectors' ``assignment`` / ``sortedAssignment`` for ``assignment``: keys in ``members`` order, then
    any other member of ``assignment`` in its own order."""
    listed = set(members)
    order = [m for m in members if m in assignment] + [m for m in assignment if m not in listed]
    topics: Set[str] = set()
    highest, lowest, count = -1, 0, 0
    for tps in assignment.values():
        if tps:
            topics.update(map(_TOPIC, tps))
            partitions = list(map(_PARTITION, tps))
            count += len(partitions)
            if set(map(type, partitions)) <= {int}:
                highest, lowest = max(highest, max(partitions)), min(lowest, min(partitions))
            else:
                lowest = -1  # not plain ints: format each string in full
    # each topic's position in String.compareTo order (UTF-16 key computed once per topic), unless Python's
    # own order is the same
    ranks = (None if same_order_as_python(topics)
             else {t: i for i, t in enumerate(sorted(topics, key=java_string_key))})
    prefixes = {t: f"{t}-" for t in topics}
    numbers = (list(map(str, range(highest + 1))) if lowest >= 0 and highest < 2 * count + 1024 else None)
    plain: Dict[str, List[str]] = {}
    ordered: Dict[str, List[str]] = {}
    for member in order:
        plain[member], ordered[member] = _output_lists(assignment[member], ranks, prefixes, numbers)
    return {"assignment": plain, "sortedAssignment": ordered}


def run(data: Mapping[str, Any]) -> Dict[str, Any]:
    """Adapter entry point: one ``kind: consumer`` input object -> its output object.  The scenario goes
    through the same validation as every other input (:func:`~rebalance.consumer.model.parse_consumer_input`);
    the harness switches become the assignor's :class:`~rebalance.consumer.replay.ReplayOptions`."""
    scenario = parse_consumer_input(data)
    assignor = assignor_for(scenario.assignor, replay=parse_replay_options(data))
    return result_output(scenario, assignor.assign(scenario))


def parse_replay_options(data: Mapping[str, Any]) -> ReplayOptions:
    """The harness switches of a ``kind: consumer`` vectors input (``entry``, ``subscriptionMapType``,
    ``preferRackAwareLogic``, ``initialMaxGeneration``, each member's ``userData``), naming any bad field.
    Call it after :func:`rebalance.consumer.model.parse_consumer_input` has validated the rest.  Only this
    adapter (and the book's views of the vectors' cases) builds replay options."""
    entry = data.get("entry", "cluster")
    require(entry in ENTRIES, "entry", f"must be one of {', '.join(ENTRIES)}, got {entry!r}")
    map_type = data.get("subscriptionMapType", "java.util.HashMap")
    require(map_type in SUBSCRIPTION_MAP_TYPES, "subscriptionMapType",
            f"must be one of {', '.join(SUBSCRIPTION_MAP_TYPES)}, got {map_type!r}")
    members = data.get("members") or []
    if map_type == "java.util.Collections$SingletonMap":
        require(len(members) == 1, "subscriptionMapType", "a SingletonMap holds exactly one member")
    initial = data.get("initialMaxGeneration")
    require(initial is None or (isinstance(initial, int) and not isinstance(initial, bool)
                                and INT_MIN <= initial <= INT_MAX),
            "initialMaxGeneration", f"must be a whole number (a Java int), got {initial!r}")
    for i, member in enumerate(members):
        # an explicit encoding is checked here, whatever the assignor (only the sticky ones read it); "auto"
        # is built from the member's fields, which parse_consumer_input has checked
        spec = member.get("userData", "auto")
        if spec is not None and spec != "auto":
            user_data_from_spec(spec, "", (), None, field=f"members[{i}].userData")
    prefer = data.get("preferRackAwareLogic", False)
    require(isinstance(prefer, bool), "preferRackAwareLogic", f"must be true or false, got {prefer!r}")
    return ReplayOptions(
        entry=entry,
        subscription_map_type=map_type,
        prefer_rack_aware_logic=prefer,
        initial_max_generation=initial,
        user_data_specs={m["memberId"]: m.get("userData", "auto") for m in members},
        topic_order=list(data.get("topics") or {}),
    )


def result_output(scenario: ConsumerScenario, result: AssignorResult) -> Dict[str, Any]:
    """The vectors' output for one result: the assignment lists, and for the sticky assignors (whose result
    has a ``path``) the path, ``partitionsTransferringOwnership`` and ``maxGeneration``."""
    out = assignment_output(result.assignment, list(scenario.members))
    if result.path is not None:
        transferring = result.partitions_transferring_ownership
        out["stickyPath"] = result.path
        out["partitionsTransferringOwnership"] = (None if transferring is None
                                                  else {tp_str(tp): m for tp, m in transferring.items()})
        out["maxGeneration"] = result.max_generation
    return out


def _sorted_lists(assignment: Optional[Mapping[str, List[str]]]) -> Dict[str, List[str]]:
    return {m: sorted(v) for m, v in (assignment or {}).items()}


def compare(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> List[str]:
    """Significant differences between Kafka's output and ours (empty list: the case passes)."""
    problems: List[str] = []
    exp_sorted = expected.get("sortedAssignment")
    act_sorted = actual.get("sortedAssignment")
    if exp_sorted is None:  # an older vectors line without sortedAssignment: compare membership
        exp_sorted = _sorted_lists(expected.get("assignment"))
        act_sorted = _sorted_lists(actual.get("assignment"))
    if exp_sorted != act_sorted:
        exp_sorted = exp_sorted or {}
        act_sorted = act_sorted or {}
        for member in list(exp_sorted) + [m for m in act_sorted if m not in exp_sorted]:
            e, a = exp_sorted.get(member), act_sorted.get(member)
            if e != a:
                problems.append(f"member {member}: expected {e}, got {a}")
                if len(problems) >= 4:
                    problems.append("...")
                    break
        if not problems:
            problems.append("sortedAssignment differs (member order)")
    if not problems and "assignment" in expected:
        problems.extend(_order_problems(expected.get("assignment") or {}, actual.get("assignment") or {}))
    sticky = any(k in expected for k in STICKY_FIELDS)
    if sticky:
        for key in STICKY_FIELDS:
            if expected.get(key) != actual.get(key):
                problems.append(f"{key}: expected {expected.get(key)!r}, got {actual.get(key)!r}")
    return problems


def _order_problems(expected: Mapping[str, List[str]], actual: Mapping[str, List[str]]) -> List[str]:
    """Members whose list holds Kafka's partitions in another order: the first differing position of each
    (at most 4 members)."""
    problems: List[str] = []
    for member, theirs in expected.items():
        ours = actual.get(member)
        if ours == theirs:
            continue
        if ours is None or len(ours) != len(theirs):
            problems.append(f"member {member}: expected {theirs}, got {ours}")
        else:
            i = next(k for k, (a, b) in enumerate(zip(theirs, ours)) if a != b)
            problems.append(f"member {member}: Kafka's partitions in another order (first at position {i}: "
                            f"expected {theirs[i]}, got {ours[i]})")
        if len(problems) >= 4:
            problems.append("...")
            break
    return problems


def exact_order_matches(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> bool:
    """True when every member's list is in exactly Kafka's order (:func:`compare` requires it)."""
    return expected.get("assignment") == actual.get("assignment")


def exact_order_counts(path: str) -> Dict[str, int]:
    """Replay a consumer vectors file and count, per assignor, the cases whose lists are in exactly
    Kafka's order next to the cases that pass :func:`compare` (which requires that order, so the two
    counts agree on every line that has an ``assignment``).

    ``python -c "from rebalance.consumer.vectors import exact_order_counts as c; print(c('FILE'))"``
    """
    import json

    counts: Dict[str, int] = {}
    with open(path, encoding="utf-8") as stream:
        for text in stream:
            if not text.strip():
                continue
            line = json.loads(text)
            assignor = line["input"].get("assignor", "?")
            counts[f"{assignor} cases"] = counts.get(f"{assignor} cases", 0) + 1
            try:
                actual = run(line["input"])
            except Exception:  # counted as neither passing nor exact
                continue
            if "error" in line["output"]:
                continue
            if not compare(line["output"], actual):
                counts[f"{assignor} passed"] = counts.get(f"{assignor} passed", 0) + 1
                if exact_order_matches(line["output"], actual):
                    counts[f"{assignor} exact order"] = counts.get(f"{assignor} exact order", 0) + 1
    return counts
