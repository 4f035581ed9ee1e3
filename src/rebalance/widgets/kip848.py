"""Widgets of the KIP-848 chapter: step through a reconciliation epoch by epoch."""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List

import pandas as pd

if TYPE_CHECKING:  # ipywidgets is imported when a widget is built (the book's extra)
    import ipywidgets

    from ..kip848.reconciliation import SimulationResult

__all__ = ["epoch_steps", "epoch_table", "epoch_log", "epoch_stepper"]

_STATE_EVENTS = ("member-epoch", "group-epoch", "target-assignment", "reconcile", "reconciled", "removed",
                 "static-leave", "static-rejoin", "start", "shutdown", "crash")


def epoch_steps(result: SimulationResult) -> List[dict]:
    """Replay a simulation's trace into snapshots: after each state-changing event, the group epoch, the
    target assignment and, per member, its epoch, state, assigned / pending-revocation partitions (the
    coordinator's view) and what the consumer really owns."""
    group_epoch = max((e for t, e in result.group_epochs if t < result.start_ms), default=None)
    target: Dict[str, List[str]] = {}
    members: Dict[str, dict] = {}
    # the state just before the scenario starts: last epochs set, partitions owned
    for time, member, epoch, state in result.epochs:
        if time < result.start_ms:
            members[member] = {"epoch": epoch, "state": state, "assigned": [], "revoking": [], "owned": []}
    for time, member, kind, (topic, p) in sorted(result.ownership, key=lambda e: e[0]):
        if time < result.start_ms and member in members:
            owned = members[member]["owned"]
            if kind == "add":
                owned.append(f"{topic}-{p}")
            elif f"{topic}-{p}" in owned:
                owned.remove(f"{topic}-{p}")
    for m in members.values():
        m["owned"] = sorted(m["owned"], key=lambda tp: (tp.rpartition("-")[0], int(tp.rpartition("-")[2])))
        m["assigned"] = list(m["owned"])
    target = {k: list(v["assigned"]) for k, v in members.items()}
    steps = [{"time_ms": result.start_ms, "actor": "-", "event": "before", "group_epoch": group_epoch,
              "target": dict(target), "members": {k: dict(v) for k, v in members.items()}}]
    for e in result.trace:
        if e.event not in _STATE_EVENTS:
            continue
        d = e.detail
        if e.event == "group-epoch":
            group_epoch = d["epoch"]
        elif e.event == "target-assignment":
            target = dict(d["target"])
        else:
            m = members.setdefault(e.actor, {"epoch": None, "state": "", "assigned": [], "revoking": [],
                                             "owned": None})
            if e.event == "member-epoch":
                m.update(epoch=d["epoch"], state=d["state"], assigned=d["assigned"], revoking=d["pending_revocation"])
            elif e.event == "reconciled":
                m["owned"] = d["owned"]
            elif e.event == "removed":
                m.update(state="(removed)", assigned=[], revoking=[])
            elif e.event == "static-leave":
                m.update(epoch=-2, state="(left, static)", revoking=[])
            elif e.event in ("shutdown", "crash"):
                m["state"] = f"({e.event})"
        steps.append({"time_ms": e.time_ms, "actor": e.actor, "event": e.event, "group_epoch": group_epoch,
                      "target": dict(target),
                      "members": {k: dict(v) for k, v in members.items()}})
    return steps


def epoch_table(step: dict) -> pd.DataFrame:
    """One snapshot as a table, one row per member."""
    rows = []
    for member, m in step["members"].items():
        rows.append({"member": member, "member epoch": m["epoch"], "state": m["state"],
                     "assigned": " ".join(m["assigned"]), "pending revocation": " ".join(m["revoking"]),
                     "owned by the consumer": "" if m["owned"] is None else " ".join(m["owned"]),
                     "target": " ".join(step["target"].get(member, []))})
    return pd.DataFrame(rows)


def epoch_log(result: SimulationResult) -> pd.DataFrame:
    """The static view: one row per coordinator decision (group epoch, target, member epoch change)."""
    rows = []
    for e in result.trace:
        d = e.detail
        if e.event == "group-epoch":
            what = f"group epoch -> {d['epoch']} ({d['reason']})"
        elif e.event == "target-assignment":
            what = "target: " + "; ".join(f"{m} {' '.join(p) or '-'}" for m, p in d["target"].items())
        elif e.event == "member-epoch":
            what = (f"epoch {d['epoch']} {d['state']}, assigned {' '.join(d['assigned']) or '-'}"
                    + (f", revoking {' '.join(d['pending_revocation'])}" if d["pending_revocation"] else ""))
        elif e.event == "reconciled":
            what = f"consumer now owns {' '.join(d['owned']) or '-'}"
        elif e.event in ("removed", "static-leave", "static-rejoin", "start", "shutdown", "crash"):
            what = e.event + (f" ({d['reason']})" if "reason" in d else "")
        else:
            continue
        rows.append({"t (ms)": e.time_ms, "who": e.actor, "what": what})
    return pd.DataFrame(rows)


def epoch_stepper(result: SimulationResult) -> ipywidgets.VBox:
    """A slider over :func:`epoch_steps`; shows the event and the member table at that step."""
    import ipywidgets as w

    steps = epoch_steps(result)
    slider = w.IntSlider(value=0, min=0, max=max(len(steps) - 1, 0), description="step")
    out = w.HTML()

    def show(*_):
        s = steps[slider.value]
        head = (f"<b>t = {s['time_ms']} ms</b>: {s['actor']} {s['event']} &mdash; group epoch "
                f"{s['group_epoch']}")
        out.value = head + epoch_table(s).to_html(index=False)

    slider.observe(show, "value")
    show()
    return w.VBox([slider, out])
