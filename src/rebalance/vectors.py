"""Replaying Kafka's conformance vectors (``kafka-vectors/``).

Each vector line is ``{"id", "kind", "source", "input", "output"}``: ``input`` was run through Kafka's
own Java classes and ``output`` is what they returned.  Every kind the package implements has an
*adapter*: a module with

* ``run(input: JsonRecord) -> JsonRecord`` -- compute the output, in the vectors' output schema;
* optionally ``compare(expected: JsonRecord, actual: JsonRecord) -> list[str]`` -- the differences that matter
  (an empty list means the case passed); without it the outputs must be equal.

An adapter raises :class:`~rebalance.errors.KafkaError` where Kafka throws (the output is then
``{"error": {"type", "message"}}``) and :class:`~rebalance.errors.InputError` for input that is not
valid at all (that line is reported with the field named, and the run goes on).
"""
from __future__ import annotations

import importlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sized, Tuple, cast

from .common import JsonRecord
from .errors import InputError, KafkaError, SimulationError
from .validation import check_size

#: kind -> module that adapts it.  A kind whose module is missing reports "not implemented".
ADAPTERS: Dict[str, str] = {
    "consumer": "rebalance.consumer.vectors",
    "coordinator_partition": "rebalance.protocol.vectors",
    "adminutils": "rebalance.replicas.vectors",
    "striped": "rebalance.replicas.vectors",
    "java_random": "rebalance.replicas.vectors",
    "connect": "rebalance.connect.vectors",
    "group": "rebalance.kip848.vectors",
    "streams_group": "rebalance.streams.coordinator.vectors",
    "streams": "rebalance.streams.client.vectors",
    "share": "rebalance.share.vectors",
}


def adapter_for(kind: object) -> ModuleType:
    if not isinstance(kind, str):
        raise InputError("kind", f"must be a string naming the scenario kind, got {kind!r}")
    module_name = ADAPTERS.get(kind)
    if module_name is None:
        raise InputError("kind", f"unknown kind {kind!r}; known kinds: {', '.join(sorted(ADAPTERS))}")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:  # pragma: no cover - only while an area is being built
        if exc.name and module_name.startswith(exc.name):
            raise InputError("kind", f"kind {kind!r} is not implemented yet") from None
        raise
    if not hasattr(module, "run"):
        raise InputError("kind", f"kind {kind!r} is not implemented yet")
    return module


# ---------------------------------------------------------------------------------------------
# the size of an input, estimated before anything is allocated


# The estimators run *before* the adapter has validated anything, so each is total: it reads any JSON value
# in any field without failing.  A value of the wrong shape counts 0 (a list that should be a count, a count
# that should be a list, a member that is not an object...) and is left to the adapter, which reports it as
# an ``InputError`` naming the field; only a well-formed count over the limit is refused here, with its field.


def _count(value: object) -> int:
    """A count as the input gives it; anything that is not a whole number >= 0 counts 0 (the adapter
    reports it with its field)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _length(value: object) -> int:
    """The length of a JSON list; anything else (a number, a string, an object, null) counts 0."""
    return len(value) if isinstance(value, list) else 0


def _objects(value: object) -> List[JsonRecord]:
    """The JSON objects of a list (the members, steps, placements... that are objects); none otherwise."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _largest(counts: Dict[str, int]) -> Tuple[str, int]:
    field_name = max(counts, key=lambda k: counts[k])
    return field_name, counts[field_name]


def _check(counts: Dict[str, int], members: int, unit: str, per: Optional[str]) -> None:
    """``counts``: field -> count of ``unit`` (partitions, tasks); the cells are their total times
    ``members`` (at least 1).  The field named is the largest count, the one to reduce."""
    if not counts:
        return
    total = sum(counts.values())
    members = max(1, members)
    field_name, largest = _largest(counts)
    what = (f"{total:,} {unit}" + (f" (the largest, {field_name}, has {largest:,})" if len(counts) > 1 else "")
            + (f" x {members:,} {per}" if per else ""))
    check_size(field_name, total * members, what)


def _consumer_size(s: JsonRecord) -> None:
    """Partitions + subscriptions (member-topic pairs) + owned partitions (see ``MAX_INPUT_CELLS``)."""
    topics = s.get("topics")
    if not isinstance(topics, dict):
        return
    counts = {f"topics.{t}": (len(n) if isinstance(n, list) else _count(n)) for t, n in topics.items()}
    if not counts:
        return
    members = _objects(s.get("members"))
    pairs = sum(_length(m.get("topics")) for m in members)
    owned = sum(_length(m.get("ownedPartitions")) for m in members)
    total = sum(counts.values())
    field_name, largest = _largest(counts)
    check_size(field_name, total + pairs + owned,
               f"{total:,} partitions (the largest, {field_name}, has {largest:,}) + {pairs:,} subscriptions "
               f"+ {owned:,} owned partitions")


def _replicas_size(s: JsonRecord) -> None:
    n_brokers = _length(s.get("brokers"))
    if s.get("kind") == "adminutils":
        specs = [("partitions", s.get("partitions"), s.get("replicationFactor"))]
    else:
        placements = s.get("placements")
        placements = placements if isinstance(placements, list) else []
        specs = [(f"placements[{i}].numPartitions", p.get("numPartitions"), p.get("numReplicas"))
                 for i, p in enumerate(placements) if isinstance(p, dict)]
    counts: Dict[str, int] = {}
    for field_name, partitions, replicas in specs:
        replicas = _count(replicas)
        # Kafka throws InvalidReplicationFactorException before it allocates anything when the
        # replication factor is not in 1..brokers: such a spec costs nothing
        if 1 <= replicas <= n_brokers:
            counts[field_name] = _count(partitions) * replicas
    _check(counts, 1, "replicas (partitions x replication factor)", None)


def _with_steps(s: JsonRecord, key: str, counter: Callable[[object, str], Dict[str, int]],
                member_types: Tuple[type, ...]) -> Tuple[Dict[str, int], int]:
    """The counts ``counter(value, where)`` gives for ``s[key]`` and every step's ``key`` and ``add_<key>``
    (Connect's connectors, a KIP-848 group's topics), and the largest member count of the steps (at least 1;
    a step's ``members`` counted when it is one of ``member_types``)."""
    def members(value: object) -> int:
        return len(cast(Sized, value)) if isinstance(value, member_types) else 0  # member_types are sized

    counts = counter(s.get(key), key)
    most = 1
    steps = s.get("steps")
    for i, step in enumerate(steps if isinstance(steps, list) else ()):
        if isinstance(step, dict):
            for name in (key, f"add_{key}"):
                counts.update(counter(step.get(name), f"steps[{i}].{name}"))
            most = max(most, members(step.get("members")))
    return counts, most


def _connectors(connectors: object, where: str) -> Dict[str, int]:
    """Each connector's tasks and the connector itself."""
    if not isinstance(connectors, dict):
        return {}
    return {f"{where}.{name}": _count(tasks) + 1 for name, tasks in connectors.items()}


def _connect_size(s: JsonRecord) -> None:
    counts, workers = _with_steps(s, "connectors", _connectors, (list, dict))
    _check(counts, workers, "connectors and tasks", "workers")


def _topic_partitions(topics: object, where: str) -> Dict[str, int]:
    """``{name: partitions}`` or ``[{name, partitions}]``."""
    if isinstance(topics, dict):
        return {f"{where}.{name}": _count(n) for name, n in topics.items()}
    if isinstance(topics, list):
        return {f"{where}[{j}].partitions": _count(t.get("partitions")) for j, t in enumerate(topics)
                if isinstance(t, dict)}
    return {}


def _group_size(s: JsonRecord) -> None:
    counts, members = _with_steps(s, "topics", _topic_partitions, (list,))
    members = max(members, _length(s.get("members")))
    if counts:  # partitions + at most every member subscribed to every topic (as kip848.check_group_size)
        total = sum(counts.values())
        field_name, largest = _largest(counts)
        pairs = members * len(counts)
        check_size(field_name, total + pairs,
                   f"{total:,} partitions (the largest, {field_name}, has {largest:,}) + {pairs:,} member-topic pairs")


def _streams_group_size(s: JsonRecord) -> None:
    """Tasks: each subtopology's partitions x (1 + standby replicas when stateful), times the members (the
    assignor's heaps and quotas visit every member for every task at worst)."""
    subtopologies = _objects(s.get("subtopologies"))
    configs = s.get("assignment_configs")
    replicas = configs.get("num.standby.replicas") if isinstance(configs, dict) else None
    n = int(replicas) if isinstance(replicas, str) and replicas.isascii() and replicas.isdigit() and len(replicas) <= 10 else 0
    n = n if n < 1 << 31 else 0  # not a Java int: the adapter names the config
    counts = {f"subtopologies[{i}].partitions": _count(t.get("partitions")) * (1 + (n if t.get("stateful") is True else 0))
              for i, t in enumerate(subtopologies)}
    _check(counts, _length(s.get("members")), "tasks (partitions x (1 + standby replicas))", "members")


def _streams_size(s: JsonRecord) -> None:
    """Kafka Streams' client-side assignor: (all + stateful tasks) x clients + the lags listed."""
    clients = _objects(s.get("clients"))
    counts = {"tasks": _length(s.get("tasks")), "stateful_tasks": _length(s.get("stateful_tasks"))}
    lags = sum(len(c["lags"]) if isinstance(c.get("lags"), dict) else 0 for c in clients)
    total = sum(counts.values())
    field_name, _ = _largest(counts)
    members = max(1, len(clients))
    check_size(field_name, total * members + lags, f"{total:,} tasks x {members:,} clients + {lags:,} lags")


#: kind -> size estimator (raises ``InputError`` naming the largest count when over the limit)
SIZE_ESTIMATORS: Dict[str, Callable[[JsonRecord], None]] = {
    "consumer": _consumer_size,
    "adminutils": _replicas_size,
    "striped": _replicas_size,
    "connect": _connect_size,
    "group": _group_size,
    "streams_group": _streams_group_size,
    "streams": _streams_size,
    "share": _group_size,  # the group kind's shape: topics, members and steps
}


def check_input_size(scenario: JsonRecord) -> None:
    """Estimate the size of one scenario before it runs, and refuse one over
    :data:`~rebalance.validation.MAX_INPUT_CELLS` with an :class:`InputError` naming the count to reduce
    (e.g. ``topics.t0``): without this, a partition count of 2^31-1 exhausts memory and takes the whole
    run down.  ``coordinator_partition`` and ``java_random`` allocate only what the line itself lists.
    Any JSON value is read without failing (see :func:`_count`): the shape is the adapter's to check."""
    if not isinstance(scenario, dict) or not isinstance(scenario.get("kind"), str):
        return
    estimator = SIZE_ESTIMATORS.get(scenario["kind"])
    if estimator is not None:
        estimator(scenario)


def run_input(scenario: object) -> JsonRecord:
    """Compute the output of one scenario (an ``input`` object).  Kafka's exceptions become
    ``{"error": {...}}`` exactly as in the vectors; :class:`InputError` propagates, including for an
    input over the size limit (:func:`check_input_size`)."""
    if not isinstance(scenario, dict):
        raise InputError("input", f"must be a JSON object, got {type(scenario).__name__}")
    adapter = adapter_for(scenario.get("kind"))
    check_input_size(scenario)
    try:
        output: JsonRecord = adapter.run(scenario)
        return output
    except KafkaError as exc:
        return {"error": exc.to_json()}


def compare_output(kind: object, expected: JsonRecord, actual: JsonRecord) -> List[str]:
    """Differences between Kafka's output and ours that the kind's adapter considers significant."""
    if isinstance(expected, dict) and "error" in expected:
        if not isinstance(actual, dict) or "error" not in actual:
            return [f"Kafka threw {expected['error'].get('type')}, we returned a result"]
        if expected["error"].get("type") != actual["error"].get("type"):
            return [f"error type {actual['error'].get('type')} != Kafka's {expected['error'].get('type')}"]
        return []
    if isinstance(actual, dict) and "error" in actual:
        return [f"we raised {actual['error'].get('type')}: {actual['error'].get('message')}; Kafka returned a result"]
    adapter = adapter_for(kind)
    compare = getattr(adapter, "compare", None)
    if compare is not None:
        return list(compare(expected, actual))
    return [] if expected == actual else [diff_summary(expected, actual)]


def diff_summary(expected: object, actual: object, path: str = "output", limit: int = 5) -> str:
    """A short description of the first differences between two JSON values."""
    found: List[str] = []

    def walk(e: Any, a: Any, p: str) -> None:
        if len(found) >= limit:
            return
        if isinstance(e, dict) and isinstance(a, dict):
            for k in list(e) + [k for k in a if k not in e]:
                if k not in a:
                    found.append(f"{p}.{k} missing")
                elif k not in e:
                    found.append(f"{p}.{k} unexpected")
                else:
                    walk(e[k], a[k], f"{p}.{k}")
        elif isinstance(e, list) and isinstance(a, list) and len(e) == len(a):
            for i, (x, y) in enumerate(zip(e, a)):
                walk(x, y, f"{p}[{i}]")
        elif e != a:
            found.append(f"{p}: expected {_short(e)}, got {_short(a)}")

    walk(expected, actual, path)
    return "; ".join(found) or "outputs differ"


def _short(value: object, width: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width - 3] + "..."


# ---------------------------------------------------------------------------------------------
# reading files line by line, keeping going past bad lines


@dataclass
class Line:
    """One line of a JSONL file: its position, the parsed value (if any) and the parse error."""

    source: str
    number: int
    value: object = None
    error: Optional[InputError] = None

    @property
    def where(self) -> str:
        return f"{self.source}:{self.number}"


def read_lines(path: str) -> Iterator[Line]:
    """Parse a JSONL file (``-``: stdin); a line that is not JSON becomes a :class:`Line` with an error."""
    # bytes that are not UTF-8 are read as lone surrogates (surrogateescape), so that parse_lines reports
    # their line instead of the decoder ending the whole run
    if path == "-":
        import io
        import sys

        buffer = getattr(sys.stdin, "buffer", None)
        stream = sys.stdin if buffer is None else io.TextIOWrapper(buffer, encoding="utf-8", errors="surrogateescape")
        yield from parse_lines(path, stream)
        return
    with open(path, encoding="utf-8", errors="surrogateescape") as stream:
        yield from parse_lines(path, stream)


#: a JSON escape of a UTF-16 surrogate (``\ud800``): alone (without its pair) it decodes to a string that has
#: no UTF-8 form, which no output line could then be written with
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _not_utf8(text: str, value: object) -> Optional[str]:
    """Why the line ``text`` (parsed: ``value``) cannot be echoed as UTF-8, or ``None``."""
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            return f"not valid UTF-8 (at character {exc.start + 1})"
    if _SURROGATE_ESCAPE.search(text):  # a surrogate pair is fine; only a lone one has no UTF-8 form
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            return "a string holds a lone UTF-16 surrogate (a \\ud800-\\udfff escape without its pair), " \
                   "which has no UTF-8 form"
    return None


def parse_lines(source: str, texts: Iterable[str]) -> Iterator[Line]:
    """One :class:`Line` per non-blank text line of ``source`` (numbered from 1); a line that is not JSON
    (or not UTF-8, or nested deeper than Python parses, or with an integer of more digits than Python
    converts) carries an ``InputError`` instead of a value."""
    for number, text in enumerate(texts, 1):
        if not text.strip():
            continue
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            yield Line(source, number, error=InputError("line", f"not valid JSON ({exc.msg} at column {exc.colno})"))
            continue
        except (ValueError, RecursionError) as exc:  # int('1' * 5000), '[' * 100000
            yield Line(source, number, error=InputError("line", f"not readable JSON ({exc})"))
            continue
        problem = _not_utf8(text, value)
        if problem is not None:
            yield Line(source, number, error=InputError("line", problem))
            continue
        yield Line(source, number, value)


def line_id(value: object, fallback: str) -> object:
    if isinstance(value, dict):
        if "id" in value:
            return value["id"]
        if isinstance(value.get("input"), dict) and "id" in value["input"]:
            return value["input"]["id"]
    return fallback


@dataclass
class ConformResult:
    passed: int = 0
    failed: int = 0
    failures: List[Tuple[str, str]] = field(default_factory=list)


def conform_lines(lines: Iterable[Line], report: Callable[[str], None]) -> ConformResult:
    """Replay golden lines; report each mismatch or bad line with its id."""
    result = ConformResult()
    for line in lines:
        ident = line_id(line.value, line.where)
        problems: List[str]
        try:
            if line.error is not None:
                raise line.error
            golden = line.value
            if not isinstance(golden, dict):
                raise InputError("line", "must be a JSON object with 'input' and 'output'")
            if "input" not in golden:
                raise InputError("input", "missing (a vectors line has 'input' and 'output')")
            if "output" not in golden:
                raise InputError("output", "missing (a vectors line has 'input' and 'output')")
            kind = golden.get("kind", golden["input"].get("kind") if isinstance(golden["input"], dict) else None)
            actual = run_input(golden["input"])
            problems = compare_output(kind, golden["output"], actual)
        except InputError as exc:
            problems = [f"bad input: {exc}"]
        except Exception as exc:  # keep going: one broken case must not hide the others
            problems = [f"internal error: {type(exc).__name__}: {exc}"]
        if problems:
            result.failed += 1
            result.failures.append((str(ident), "; ".join(problems)))
            report(f"FAIL {ident} ({line.where}): {'; '.join(problems)}")
        else:
            result.passed += 1
    return result


def compute_lines(lines: Iterable[Line], write: Callable[[JsonRecord], None],
                  compute: Callable[[object], List[JsonRecord]]) -> Tuple[int, int]:
    """For each line, write the rows ``compute(value)`` returns, each headed by the line's ``id``; a line
    that cannot be computed gets one ``{"id", "error": {"type", "field", "message"}}`` row instead (the
    field named for bad input) and the next line goes on.  Returns (ok, errors)."""
    ok = errors = 0
    for line in lines:
        ident = line_id(line.value, line.where)
        try:
            if line.error is not None:
                raise line.error
            rows = compute(line.value)
        except (InputError, SimulationError) as exc:
            write({"id": ident, "error": exc.to_json()})
            errors += 1
            continue
        except Exception as exc:  # keep going: one broken line must not hide the others
            write({"id": ident, "error": {"type": type(exc).__name__, "field": None, "message": str(exc)}})
            errors += 1
            continue
        for row in rows:
            write({"id": ident, **row})
        ok += 1
    return ok, errors


def run_lines(lines: Iterable[Line], write: Callable[[JsonRecord], None]) -> Tuple[int, int]:
    """Compute an output line for each scenario line.  A line may be a bare ``input`` object or a
    whole vectors line (its ``input`` is used).  Returns (ok, errors)."""

    def compute(scenario: object) -> List[JsonRecord]:
        if isinstance(scenario, dict) and isinstance(scenario.get("input"), dict):
            scenario = scenario["input"]
        return [{"output": run_input(scenario)}]

    return compute_lines(lines, write, compute)


def vectors_dir() -> Path:
    """Where Kafka's conformance vectors are: ``$REBALANCE_VECTORS`` when set, else the ``kafka-vectors``
    folder of the repository this package runs from (the vectors are committed there, so a fresh clone
    re-runs every exactness check)."""
    return Path(os.environ.get("REBALANCE_VECTORS") or Path(__file__).resolve().parents[2] / "kafka-vectors")
