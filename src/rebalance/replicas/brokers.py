"""Broker descriptions shared by the replica placers, and their validation.

Kafka gives ``AdminUtils`` a ``Collection<BrokerMetadata>`` (id + ``Optional<String>`` rack) and the KRaft
``StripedReplicaPlacer`` an ``Iterator<UsableBroker>`` (id + ``Optional<String>`` rack + fenced flag).
Both are represented here by :class:`Broker`; ``rack=None`` is ``Optional.empty()``.

Input may be given as :class:`Broker` objects, dicts in the vectors' schema (``{"id": 3, "rack": "a",
"fenced": false}``; a missing ``rack`` or ``null`` means no rack), ``(id, rack)`` / ``(id, rack, fenced)``
tuples, or bare ids.  Broker ids are non-negative Java ``int`` values and must be distinct (a Kafka
cluster registers each id once); anything else is an :class:`~rebalance.errors.InputError` naming the
offending field, e.g. ``brokers[2].rack``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional

from ..errors import InputError
from ..java import INT_MAX, INT_MIN

SHORT_MIN = -(1 << 15)
SHORT_MAX = (1 << 15) - 1


@dataclass(frozen=True)
class Broker:
    """One broker as the placers see it: ``BrokerMetadata`` (id, rack; ``AdminUtils``, Kafka 3.9.2/4.0) or
    ``UsableBroker`` (id, rack, fenced; ``StripedReplicaPlacer``, Kafka 4.3.1)."""

    id: int
    rack: Optional[str] = None
    fenced: bool = False

    def to_json(self) -> Dict[str, Any]:
        return {"id": self.id, "rack": self.rack, "fenced": self.fenced}


def check_int(value: object, field: str, *, minimum: Optional[int] = None, lo: int = INT_MIN, hi: int = INT_MAX,
              what: str = "a Java int") -> int:
    """``value`` as a Java integer of the given range, or :class:`InputError` naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(field, f"must be a whole number ({what}), got {value!r}")
    if not lo <= value <= hi:
        raise InputError(field, f"{value} does not fit {what}")
    if minimum is not None and value < minimum:
        raise InputError(field, f"must be at least {minimum}, got {value}")
    return value


def _check_rack(rack: object, field: str) -> Optional[str]:
    if rack is None or isinstance(rack, str):
        return rack
    raise InputError(field, f"must be a rack name (string) or null, got {rack!r}")


def parse_brokers(brokers: object, field: str = "brokers", *, with_fenced: bool = False) -> List[Broker]:
    """Validate and normalise a broker list, keeping its order (which ``StripedReplicaPlacer`` and the
    rack-unaware ``AdminUtils`` path depend on)."""
    if isinstance(brokers, (str, bytes, Mapping)) or not isinstance(brokers, Iterable):
        raise InputError(field, f"must be a list of brokers, got {type(brokers).__name__}")
    out: List[Broker] = []
    seen: Dict[int, int] = {}
    for i, entry in enumerate(brokers):
        where = f"{field}[{i}]"
        fenced = False
        # where each part is: .id/.rack/.fenced of an object, [0]/[1]/[2] of a tuple, the entry of a bare id
        names = (f"{where}.id", f"{where}.rack", f"{where}.fenced")
        if isinstance(entry, Broker):
            ident, rack, fenced = entry.id, entry.rack, entry.fenced
        elif isinstance(entry, Mapping):
            if "id" not in entry:
                raise InputError(f"{where}.id", "missing (every broker needs an id)")
            unknown = set(entry) - {"id", "rack", "fenced"}
            if unknown:
                raise InputError(where, f"unknown field(s) {sorted(unknown)}; a broker has id, rack, fenced")
            ident, rack, fenced = entry["id"], entry.get("rack"), entry.get("fenced", False)
        elif isinstance(entry, (tuple, list)) and 1 <= len(entry) <= 3:
            names = (f"{where}[0]", f"{where}[1]", f"{where}[2]")
            ident = entry[0]
            rack = entry[1] if len(entry) > 1 else None
            fenced = entry[2] if len(entry) > 2 else False
        elif isinstance(entry, int) and not isinstance(entry, bool):
            names = (where, where, where)
            ident, rack = entry, None
        else:
            raise InputError(where, f"must be a broker ({{'id': ..., 'rack': ...}}), got {entry!r}")
        ident = check_int(ident, names[0], minimum=0, what="a broker id (non-negative Java int)")
        rack = _check_rack(rack, names[1])
        if not isinstance(fenced, bool):
            raise InputError(names[2], f"must be true or false, got {fenced!r}")
        if fenced and not with_fenced:
            raise InputError(names[2], "AdminUtils has no notion of fenced brokers")
        if ident in seen:
            raise InputError(names[0], f"duplicate broker id {ident} (also {field}[{seen[ident]}])")
        seen[ident] = i
        out.append(Broker(ident, rack, fenced))
    return out


def rack_map(brokers: Iterable[Broker]) -> Dict[int, Optional[str]]:
    """broker id -> rack (``None`` for a broker without one)."""
    return {b.id: b.rack for b in brokers}
