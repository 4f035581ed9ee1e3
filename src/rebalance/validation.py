"""Checks of the package's input: each names the offending field with :class:`~rebalance.errors.InputError`.

* :func:`require` -- ``InputError(field, message)`` unless a condition holds, the one-line guard of every area;
* :func:`one_of` -- a name looked up in a registry (an assignor by ``name()``), or an error listing the names;
* :func:`parse_dashed_id` -- Kafka's ``"<name>-<number>"`` form (``TopicPartition.toString``,
  ``ConnectorTaskId.toString``), split at the last ``-``;
* :func:`check_size` and :data:`MAX_INPUT_CELLS` -- the size guard: an input over the limit is refused, naming
  the count to reduce, before anything is allocated (``run --max-cells`` sets the limit);
* :func:`scenario_event` and :func:`check_member_lives` -- what every ``simulate`` kind's reader checks of an event:
  its object, ``at_ms`` and ``op``; and the members' lives across the events in time order.
"""
from __future__ import annotations

from typing import Any, Dict, Iterable, Mapping, Optional, Protocol, Sequence, Tuple, TypeVar, cast

from .errors import InputError
from .java import INT_MAX

__all__ = ["MAX_INPUT_CELLS", "MemberEvent", "check_member_lives", "check_size", "json_object", "one_of",
           "parse_dashed_id", "require", "scenario_event", "whole"]


def require(condition: bool, field: str, message: str) -> None:
    """Raise ``InputError(field, message)`` unless ``condition`` holds."""
    if not condition:
        raise InputError(field, message)


_T = TypeVar("_T")


def one_of(registry: Mapping[str, _T], name: object, field: str) -> _T:
    """``registry[name]`` for a registry keyed by name (an assignor registry: name -> assignor), or
    ``InputError(field, "must be one of <its names>, got <name>")`` when ``name`` is not a string or not in it."""
    found = registry.get(name) if isinstance(name, str) else None
    if found is None:
        raise InputError(field, f"must be one of {', '.join(registry)}, got {name!r}")
    return found


def parse_dashed_id(text: object, field: str, name: str, number: str) -> tuple[str, int]:
    """Read Kafka's ``"<name>-<number>"`` form (``TopicPartition``, ``ConnectorTaskId``), split at the last
    ``-`` as Kafka's own ``toString`` output must be, and name ``field`` if the text is malformed; the number is
    a Java ``int`` (at most ``Integer.MAX_VALUE``, :data:`rebalance.java.INT_MAX`)."""
    if not isinstance(text, str):
        raise InputError(field, f"must be a '{name}-{number}' string, got {text!r}")
    head, sep, tail = text.rpartition("-")
    require(bool(sep) and bool(head), field, f"{text!r} is not of the form '{name}-{number}'")
    # the digits toString writes: int() alone would also take '+5', ' 5', '1_0' and non-ASCII digits
    require(tail.isascii() and tail.isdigit(), field, f"{text!r}: {number} {tail!r} is not a whole number")
    value = int(tail)
    require(value <= INT_MAX, field, f"{text!r}: {number} {value} does not fit a Java int")
    return head, value


#: The largest input the package computes, in *cells*: the entries an input makes the package allocate,
#: estimated *before* anything is allocated.  For a consumer group that is its partitions plus its
#: subscriptions (member-topic pairs) plus the partitions members report as owned -- every assignor keeps
#: per-partition and per-subscription entries, none keeps partitions x members (Kafka's own large tests,
#: 1,000,000 partitions over 2,000 consumers, are about 3,000,000 cells).  Connect counts tasks x workers,
#: replica placement partitions x replication factor.  Measured here: a Range line of 10,000,000
#: partitions over two members peaks at 2.8 GB and takes 8 s through ``run``, so ten million cells stay
#: well inside this 24 GB machine while a partition count of 2^31-1 or 10^13 is refused with a named
#: field.  Read at each check (:func:`check_size` looks the module attribute up every time): a caller who
#: needs more may raise it (``run --max-cells`` assigns ``rebalance.validation.MAX_INPUT_CELLS``;
#: ``float("inf")`` for no limit, which ``run --max-cells 0`` sets -- hence the float annotation).
MAX_INPUT_CELLS: float = 10_000_000


def check_size(field: str, cells: int, what: str, limit: Optional[float] = None) -> None:
    """Raise ``InputError(field, ...)`` when an input of ``cells`` cells (described by ``what``, e.g.
    ``"2147483647 partitions x 3 members"``) exceeds :data:`MAX_INPUT_CELLS` (or ``limit``)."""
    limit = MAX_INPUT_CELLS if limit is None else limit
    if cells > limit:
        raise InputError(field, f"input too large: {what} = {cells:,} cells, over the limit of {limit:,} "
                                f"(rebalance.validation.MAX_INPUT_CELLS); nothing was computed for it")


def whole(value: object, field: str, minimum: int = 0, maximum: Optional[int] = None) -> int:
    """``value`` (from JSON) as a whole number of at least ``minimum`` (and at most ``maximum`` when given), else
    :class:`InputError` naming ``field``; a JSON ``true``/``false`` is not a number."""
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= minimum
    if maximum is None:
        require(ok, field, f"must be a whole number >= {minimum}, got {value!r}")
    else:
        require(ok and cast(int, value) <= maximum, field,
                f"must be a whole number from {minimum} to {maximum}, got {value!r}")
    return cast(int, value)


def json_object(value: object, keys: Sequence[str], field: str, what: str) -> Mapping[str, Any]:
    """``value`` (from JSON) as an object with no other keys than ``keys``, else :class:`InputError` naming
    ``field`` (``""``: the scenario itself, whose unknown keys are named alone) or ``field.key``."""
    require(isinstance(value, Mapping), field or "scenario",
            f"{what} must be a JSON object {{{', '.join(keys)}}}, got {type(value).__name__}")
    for key in cast(Mapping[str, Any], value):
        require(key in keys, f"{field}.{key}" if field else str(key), f"unknown field; {what} has {', '.join(keys)}")
    return cast(Mapping[str, Any], value)


def scenario_event(value: object, keys: Sequence[str], field: str, ops: Sequence[str], until_ms: int,
                   maximum: Optional[int] = None) -> Tuple[Mapping[str, Any], int, str]:
    """One event of a ``simulate`` scenario at ``field`` (``events[i]``): a JSON object with no other keys than
    ``keys``, its ``at_ms`` a whole number (at most ``maximum`` when given) no later than ``until_ms``, its ``op`` one
    of ``ops``; returns the object, ``at_ms`` and ``op``."""
    obj = json_object(value, keys, field, "an event")
    at = whole(obj.get("at_ms"), f"{field}.at_ms", 0, maximum)
    require(at <= until_ms, f"{field}.at_ms", f"{at} is after until_ms ({until_ms})")
    op = obj.get("op")
    require(op in ops, f"{field}.op", f"must be one of {', '.join(ops)}, got {op!r}")
    return obj, at, cast(str, op)


class MemberEvent(Protocol):
    """What :func:`check_member_lives` reads of an event (``member`` is ``None`` for one no member does)."""

    @property
    def at_ms(self) -> int: ...

    @property
    def op(self) -> str: ...

    @property
    def member(self) -> Optional[str]: ...


def check_member_lives(events: Sequence[Tuple[int, MemberEvent]], members: Iterable[str],
                       needs_running: Sequence[str] = ("leave", "crash"),
                       keeps_running: Sequence[str] = ("join", "restart")) -> None:
    """The members' lives across ``events`` ((index in the scenario, event), in time order): ``join`` only as a
    member's first event (a member without one starts at 0); an op of ``needs_running`` only while the member runs;
    after an op of ``keeps_running`` it runs, after any other it does not.  :class:`InputError` names
    ``events[i].op`` of the first event (in time order) that breaks the first rule, else the second."""
    first: Dict[str, int] = {}
    for i, ev in events:
        if ev.member is not None:
            first.setdefault(ev.member, i)
            require(ev.op != "join" or first[ev.member] == i, f"events[{i}].op",
                    f"'join' must be {ev.member!r}'s first event (a member without one starts at 0); use 'restart'")
    joins = {ev.member for _, ev in events if ev.op == "join"}
    running = {m: m not in joins for m in members}
    for i, ev in events:
        if ev.member is None:
            continue
        require(ev.op not in needs_running or running[ev.member], f"events[{i}].op",
                f"{ev.member!r} is not running at {ev.at_ms} ms")
        running[ev.member] = ev.op in keeps_running
