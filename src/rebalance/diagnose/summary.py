"""A group's rebalances summed up: the likely cause, and the setting that would have prevented it.

Besides counting the triggers by kind, :func:`summarize` looks for the causes that only a series of rebalances
shows (:data:`rebalance.diagnose.causes.SERIES_CAUSES`):

* **static member restart beyond session timeout**: a static member's session timeout, then a join of the same
  ``group.instance.id``;
* **rolling restart** (one client: **restart**): a member left (or failed) and a member of the same name (client id,
  or the classic member id's prefix) joined within :data:`RESTART_WINDOW_MS` (by a join of its own, or while a
  rebalance was on its way);
* **repeated poll timeouts**, **repeated session timeouts**: two or more of them;
* **join storm** (classic groups): three or more rebalances in a row started by joins of members new to the group,
  each within :data:`STORM_GAP_MS` of the one before.

The likely cause is the first pattern found in that order, else the kind that started most rebalances (a
cooperative rejoin counts for the rebalance before it, so it is never the cause).
"""
from __future__ import annotations

from collections import Counter
from typing import Dict, List, Optional, Sequence, Set, Tuple

from .causes import cause_for
from .groups import Rebalance, member_name
from .output import CauseLine, GroupSummary, RebalanceLine

__all__ = ["summarize", "RESTART_WINDOW_MS", "STORM_GAP_MS"]

#: a leave and a join of the same name at most this far apart are one restart
RESTART_WINDOW_MS = 120_000
#: joins whose rebalances start at most this far apart belong to one storm
STORM_GAP_MS = 10_000


def _cause(kind: str, protocol: str, count: int, members: Sequence[Optional[str]]) -> CauseLine:
    c = cause_for(kind, protocol)
    names = sorted({m for m in members if m})
    return {"kind": kind, "count": count, "members": names, "what": c.what, "settings": list(c.settings),
            "prevent": c.prevent}


def _name(line: RebalanceLine) -> Optional[str]:
    return line["trigger"]["name"] or line["trigger"]["member"]


def _patterns(protocol: str, rows: Sequence[Tuple[Rebalance, RebalanceLine]]) -> List[CauseLine]:
    found: List[CauseLine] = []
    # a static member whose session expired, and who joined again
    returned = []
    for i, (r, line) in enumerate(rows):
        inst = line["trigger"]["instance_id"]
        if line["trigger"]["kind"] == "session timeout" and inst is not None and any(
                later["trigger"]["kind"] == "join" and later["trigger"]["instance_id"] == inst for _, later in rows[i + 1:]):
            returned.append(inst)
    if returned:
        found.append(_cause("static member restart beyond session timeout", protocol, len(returned), returned))
    # a member that left (or died) and a member of the same name that joined soon after
    restarted = []
    for i, (r, line) in enumerate(rows):
        name = line["trigger"]["name"]
        if line["trigger"]["kind"] not in ("leave", "session timeout") or name is None or line["trigger"]["instance_id"]:
            continue
        for later_r, later in rows[i:]:
            if later_r.started_ms - r.started_ms > RESTART_WINDOW_MS:
                break
            # a join of its own, or a new member taken in by a rebalance on its way (the leave's own, or a later one)
            joined = {member_name(m) for m in (later["members_after"] or [])
                      if m not in later["members_before"] and m != line["trigger"]["member"]}
            if later is not line and later["trigger"]["kind"] == "join" and \
                    later["trigger"]["member"] != line["trigger"]["member"]:
                joined.add(later["trigger"]["name"])
            if name in joined:
                restarted.append(name)
                break
    if restarted:
        found.append(_cause("rolling restart" if len(set(restarted)) > 1 else "restart", protocol, len(restarted),
                            restarted))
    for kind, pattern in (("poll timeout", "repeated poll timeouts"), ("session timeout", "repeated session timeouts")):
        hits = [_name(line) for _, line in rows if line["trigger"]["kind"] == kind]
        if len(hits) >= 2 and not (kind == "session timeout" and len(hits) <= len(returned) + len(restarted)):
            found.append(_cause(pattern, protocol, len(hits), hits))
    if protocol == "classic":
        run: List[Tuple[Rebalance, RebalanceLine]] = []
        best: List[Tuple[Rebalance, RebalanceLine]] = []
        seen: Set[Optional[str]] = set()
        for r, line in rows:
            kind = line["trigger"]["kind"]
            name = _name(line)
            if kind == "cooperative rejoin":
                continue
            new_member = kind == "join" and name not in seen
            if new_member and (not run or r.started_ms - run[-1][0].started_ms <= STORM_GAP_MS):
                run.append((r, line))
            else:
                run = [(r, line)] if new_member else []
            seen.add(name)
            if len(run) > len(best):
                best = list(run)
        if len(best) >= 3:
            found.append(_cause("join storm", protocol, len(best), [_name(line) for _, line in best]))
    return found


def summarize(group: str, protocol: str, rows: Sequence[Tuple[Rebalance, RebalanceLine]],
              members: Dict[str, Optional[str]], static_restarts: int, notes: Sequence[str]) -> GroupSummary:
    """The summary line of one group (see the module docstring)."""
    by_kind = Counter(line["trigger"]["kind"] for _, line in rows)
    patterns = _patterns(protocol, rows)
    likely: Optional[CauseLine] = patterns[0] if patterns else None
    if likely is None:
        counted = [(n, k) for k, n in by_kind.items() if k != "cooperative rejoin"]
        if counted:
            order = {k: i for i, (_, line) in reversed(list(enumerate(rows))) for k in [line["trigger"]["kind"]]}
            n, kind = max(counted, key=lambda x: (x[0], -order[x[1]]))
            likely = _cause(kind, protocol, n, [_name(line) for _, line in rows if line["trigger"]["kind"] == kind])
    return {"group": group, "protocol": protocol, "rebalances": len(rows),
            "first": rows[0][1]["at"] if rows else None, "last": rows[-1][1]["at"] if rows else None,
            "by_kind": dict(sorted(by_kind.items())), "members": dict(sorted(members.items())),
            "static_restarts_without_rebalance": static_restarts, "likely_cause": likely, "patterns": patterns,
            "notes": list(notes)}
