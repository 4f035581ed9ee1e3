"""Widgets of the KIP-848 chapter: step through a reconciliation epoch by epoch."""
from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List

import pandas as pd

from ..common import JsonRecord

if TYPE_CHECKING:  # ipywidgets is imported when a widget is built (the book's extra)
    import ipywidgets

    from ..kip848.simulation import SimulationResult

__all__ = ["epoch_steps", "epoch_table", "epoch_log", "epoch_stepper"]

_STATE_EVENTS = ("member-epoch", "group-epoch", "target-assignment", "reconcile", "reconciled", "removed",
                 "static-leave", "static-rejoin", "start", "shutdown", "crash")


def epoch_steps(result: SimulationResult) -> List[JsonRecord]:
    """Replay a simulation's trace into snapshots: after each state-changing event, the group epoch, the
    target assignment and, per member, its epoch, state, assigned / pending-revocation partitions (the
    coordinator's view) and what the consumer really owns."""
    start_ms = result.metrics.start_ms
    group_epoch = max((e for t, e in result.group_epochs if t < start_ms), default=None)
    target: Dict[str, List[str]] = {}
    members: Dict[str, JsonRecord] = {}
    # the state just before the scenario starts: last epochs set, partitions owned
    for time, member, epoch, state in result.epochs:
        if time < start_ms:
            members[member] = {"epoch": epoch, "state": state, "assigned": [], "revoking": [], "owned": []}
    for iv in result.ownership.intervals:  # owned just before the start
        if iv.start_ms < start_ms and (iv.end_ms is None or iv.end_ms >= start_ms) and iv.member in members:
            members[iv.member]["owned"].append(f"{iv.partition[0]}-{iv.partition[1]}")
    for m in members.values():
        m["owned"] = sorted(m["owned"], key=lambda tp: (tp.rpartition("-")[0], int(tp.rpartition("-")[2])))
        m["assigned"] = list(m["owned"])
    target = {k: list(v["assigned"]) for k, v in members.items()}
    steps = [{"time_ms": start_ms, "actor": "-", "event": "before", "group_epoch": group_epoch,
              "target": dict(target), "members": {k: dict(v) for k, v in members.items()}}]
    for e in result.trace:
        if e.kind not in _STATE_EVENTS:
            continue
        d = e.fields
        if e.kind == "group-epoch":
            group_epoch = d["epoch"]
        elif e.kind == "target-assignment":
            target = dict(d["target"])
        else:
            m = members.setdefault(e.actor, {"epoch": None, "state": "", "assigned": [], "revoking": [],
                                             "owned": None})
            if e.kind == "member-epoch":
                m.update(epoch=d["epoch"], state=d["state"], assigned=d["assigned"], revoking=d["pending_revocation"])
            elif e.kind == "reconciled":
                m["owned"] = d["owned"]
            elif e.kind == "removed":
                m.update(state="(removed)", assigned=[], revoking=[])
            elif e.kind == "static-leave":
                m.update(epoch=-2, state="(left, static)", revoking=[])
            elif e.kind in ("shutdown", "crash"):
                m["state"] = f"({e.kind})"
        steps.append({"time_ms": e.time_ms, "actor": e.actor, "event": e.kind, "group_epoch": group_epoch,
                      "target": dict(target),
                      "members": {k: dict(v) for k, v in members.items()}})
    return steps


def epoch_table(step: JsonRecord) -> pd.DataFrame:
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
        d = e.fields
        if e.kind == "group-epoch":
            what = f"group epoch -> {d['epoch']} ({d['reason']})"
        elif e.kind == "target-assignment":
            what = "target: " + "; ".join(f"{m} {' '.join(p) or '-'}" for m, p in d["target"].items())
        elif e.kind == "member-epoch":
            what = (f"epoch {d['epoch']} {d['state']}, assigned {' '.join(d['assigned']) or '-'}"
                    + (f", revoking {' '.join(d['pending_revocation'])}" if d["pending_revocation"] else ""))
        elif e.kind == "reconciled":
            what = f"consumer now owns {' '.join(d['owned']) or '-'}"
        elif e.kind in ("removed", "static-leave", "static-rejoin", "start", "shutdown", "crash"):
            what = e.kind + (f" ({d['reason']})" if "reason" in d else "")
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

    def show(*_: object) -> None:
        s = steps[slider.value]
        head = (f"<b>t = {s['time_ms']} ms</b>: {s['actor']} {s['event']} &mdash; group epoch "
                f"{s['group_epoch']}")
        out.value = head + epoch_table(s).to_html(index=False)

    slider.observe(show, "value")
    show()
    return w.VBox([slider, out])
