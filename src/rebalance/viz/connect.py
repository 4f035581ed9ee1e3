"""Figures of the Kafka Connect chapter (eager vs incremental cooperative rebalancing).

Every figure takes results computed by :mod:`rebalance.connect` (the ported Kafka assignors) and only
draws them.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch, Patch

from ..connect.cluster import RoundResult
from ..connect.model import ConnectorsAndTasks, ConnectorTaskId
from ..connect.experiment import PhaseCounts
from ..connect.model import connector_key
from .style import PALETTE, apply

KEPT, STOPPED, STARTED = "#BBBBBB", PALETTE[5], PALETTE[2]


def _chip(ax: Axes, x: float, y: float, text: str, face: str, edge: Optional[str] = None,
          hatch: Optional[str] = None) -> None:
    ax.add_patch(FancyBboxPatch((x, y - 0.28), 0.82, 0.56, boxstyle="round,pad=0.02,rounding_size=0.08",
                                facecolor=face, edgecolor=edge or face, hatch=hatch, linewidth=1.2))
    ax.text(x + 0.41, y, text, ha="center", va="center", fontsize=9,
            color="white" if face in (STOPPED, STARTED) else "black")


def rounds_figure(panels: Mapping[str, Sequence[RoundResult]], pretty: Callable[[object], str] = str) -> Figure:
    """One panel per (assignor, round): each worker's row of chips -- kept (grey), stopped (red,
    struck through) and started (green) connectors and tasks."""
    apply()
    columns = [(name, i, r) for name, rounds in panels.items() for i, r in enumerate(rounds)]
    fig, axes = plt.subplots(1, len(columns), figsize=(3.3 * len(columns), 2.4), squeeze=False)
    for ax, (name, i, r) in zip(axes[0], columns):
        workers = sorted(r.workers, key=connector_key)
        for row, w in enumerate(workers):
            y = len(workers) - row
            wr = r.workers[w]
            c, t = r.members_in[w]
            x = 0.0
            stopped = set(wr.revoked_connectors) | set(wr.revoked_tasks)
            for item in list(c) + list(t):
                if item in stopped:
                    _chip(ax, x, y, pretty(item), STOPPED, hatch="//")
                else:
                    _chip(ax, x, y, pretty(item), KEPT)
                x += 0.9
            for item in wr.assigned_connectors + wr.assigned_tasks:
                _chip(ax, x, y, pretty(item), STARTED)
                x += 0.9
            ax.text(-0.2, y, w, ha="right", va="center", fontsize=10, fontweight="bold")
        ax.set_xlim(-0.9, 6.4)
        ax.set_ylim(0.4, len(workers) + 0.6)
        ax.axis("off")
        why = r.follow_up or "c3 joins"
        ax.set_title(f"{name}, round {i + 1}\n({why})", fontsize=10)
    fig.legend(handles=[Patch(color=KEPT, label="keeps running"), Patch(facecolor=STOPPED, hatch="//", label="stopped"),
                        Patch(color=STARTED, label="started")], loc="lower center", ncol=3, frameon=False)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    return fig


def dealing_figure(kafka: Mapping[str, Tuple[Sequence[Any], Sequence[Any]]],
                   naive: Mapping[str, Tuple[Sequence[Any], Sequence[Any]]], title: str = "") -> Figure:
    """Connectors and tasks per worker: Kafka's two-pass dealing vs the interleaved counterfactual."""
    apply()
    fig, axes = plt.subplots(1, 2, figsize=(8.0, 3.0), sharey=True)
    for ax, (label, a) in zip(axes, (("EagerAssignor: connectors, then tasks", kafka),
                                     ("counterfactual: each connector with its tasks", naive))):
        workers = sorted(a, key=connector_key)
        xs = range(len(workers))
        nc = [len(a[w][0]) for w in workers]
        nt = [len(a[w][1]) for w in workers]
        ax.bar([x - 0.2 for x in xs], nc, width=0.4, label="connectors", color=PALETTE[0])
        ax.bar([x + 0.2 for x in xs], nt, width=0.4, label="tasks", color=PALETTE[1])
        ax.set_xticks(list(xs), workers)
        ax.set_title(label, fontsize=10)
    axes[0].set_ylabel("count")
    axes[0].legend(loc="upper right")
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return fig


def revocation_figure(rows: Sequence[Mapping[str, Any]], title: str = "") -> Figure:
    """Stacked bars per worker: what it keeps and what a load-balancing revocation takes away, with
    the floor and ceil of the fair share."""
    apply()
    fig, ax = plt.subplots(figsize=(8.0, 3.6))
    workers = [r["worker"] for r in rows]
    xs = range(len(rows))
    keeps = [r["keeps"] for r in rows]
    revoke = [r["revoke"] for r in rows]
    ax.bar(xs, keeps, color=PALETTE[0], label="keeps")
    ax.bar(xs, revoke, bottom=keeps, color=STOPPED, hatch="//", label="revoked")
    if rows:
        floor, ceil = rows[0]["floor"], rows[0]["ceil"]
        ax.axhline(floor, color="black", linestyle="--", linewidth=1, label=f"floor = {floor}")
        if ceil != floor:
            ax.axhline(ceil, color="black", linestyle=":", linewidth=1, label=f"ceil = {ceil}")
    for x, k, r in zip(xs, keeps, revoke):
        if r:
            ax.annotate(f"-{r}", (x, k + r), textcoords="offset points", xytext=(0, 2), ha="center", fontsize=8)
    ax.set_xticks(list(xs), workers, rotation=40, ha="right")
    ax.set_ylabel("tasks")
    ax.set_title(title or "Load-balancing revocation, worker by worker")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=9)
    fig.tight_layout()
    return fig


def delay_timeline_figure(rounds: Sequence[RoundResult], worker: str, title: str = "") -> Figure:
    """Timeline of a departure: the scheduled-rebalance countdown (``delay`` sent after each round) and
    how many tasks ``worker`` runs, against seconds since the first round."""
    apply()
    t0 = rounds[0].time_ms
    fig, ax = plt.subplots(figsize=(7.5, 3.2))
    xs = [(r.time_ms - t0) / 1000 for r in rounds]
    for x, r in zip(xs, rounds):
        end = x + r.delay / 1000
        if r.delay:
            ax.plot([x, end], [r.delay / 1000, 0], color=PALETTE[1], linewidth=2)
        ax.axvline(x, color="grey", linewidth=0.8, linestyle=":")
        labels: Dict[Optional[str], str] = {"scheduled_delay": "scheduled rebalance",
                                            "revocation": "rejoin after revocation"}
        label = labels.get(r.follow_up, "rejoins" if worker in r.workers else "leaves")
        if r is rounds[0]:
            label = f"{worker} leaves"
        ax.annotate(f"gen {r.generation_id}\n{label}\ndelay {r.delay // 1000} s", (x, r.delay / 1000),
                    textcoords="offset points", xytext=(4, 6), fontsize=8)
    ax.set_xlabel("seconds since the worker left")
    ax.set_ylabel("scheduled delay left (s)")
    unassigned_until = xs[-1]
    ax.axvspan(0, unassigned_until, color=STOPPED, alpha=0.08, label="its tasks run nowhere")
    ax.set_xlim(-10, max(xs) * 1.25 + 20)
    ax.set_ylim(0, max(r.delay for r in rounds) / 1000 * 1.35 + 1)
    ax.set_title(title or "Lost tasks wait for scheduled.rebalance.max.delay.ms")
    ax.legend(loc="upper right", fontsize=9)
    fig.tight_layout()
    return fig


def experiment_figure(runs: Mapping[str, Mapping[str, PhaseCounts]], title: str = "") -> Figure:
    """Task stops per rebalance round, start phase then stop phase, eager vs incremental; totals in
    the legend."""
    apply()
    fig, axes = plt.subplots(1, 2, figsize=(9.0, 3.4), sharey=True)
    colours = {"eager": PALETTE[5], "incremental": PALETTE[0]}
    for ax, phase in zip(axes, ("start", "stop")):
        for name, phases in runs.items():
            c = phases[phase]
            ax.plot(range(1, len(c.task_stops_per_round) + 1), c.task_stops_per_round, color=colours.get(name),
                    label=f"{name}: {c.task_stops:,} stops in {c.rebalances} rounds", linewidth=1.6)
        ax.set_xlabel("rebalance round")
        ax.set_title("adding conn01..conn90" if phase == "start" else "deleting them again", fontsize=10)
        ax.legend(loc="upper left" if phase == "start" else "upper right", fontsize=8)
    axes[0].set_ylabel("tasks stopped in the round")
    fig.suptitle(title or "90 connectors x 10 tasks on 10 workers", fontsize=11)
    fig.tight_layout()
    return fig


__all__ = ["dealing_figure", "delay_timeline_figure", "experiment_figure", "revocation_figure", "rounds_figure"]


def _names(items: Iterable[object], pretty: Callable[[object], str]) -> str:
    return ", ".join(pretty(x) for x in items) or "-"


def round_messages(rounds: Sequence[RoundResult], pretty: Callable[[object], str] = str,
                   first_reason: str = "") -> List[Dict[str, object]]:
    """The group messages behind computed rounds (``WorkerCoordinator`` over the classic group protocol):
    per round each worker's JoinGroup with what it runs (its ``ExtendedWorkerState``), the JoinGroup
    responses (the leader -- ``RoundResult.leader``, else the first worker to join -- gets every member's
    state), the leader's SyncGroup, and each worker's SyncGroup response with what to start (+) and stop
    (-) and the scheduled delay.  One dict per message: ``round``, ``src``, ``dst``, ``label``, ``note``
    (why the round ran, on its first message)."""
    out: List[Dict[str, object]] = []
    for i, r in enumerate(rounds):
        workers = list(r.members_in)
        leader = r.leader if r.leader in r.members_in else workers[0]
        why = r.follow_up or first_reason
        for k, w in enumerate(workers):
            c, t = r.members_in[w]
            out.append({"round": i + 1, "src": w, "dst": "coordinator",
                        "label": f"JoinGroup(runs {_names(list(c) + list(t), pretty)})", "note": why if k == 0 else ""})
        for w in workers:
            label = f"JoinGroupResponse(gen {r.generation_id}, leader, {len(workers)} members)" if w == leader \
                else f"JoinGroupResponse(gen {r.generation_id})"
            out.append({"round": i + 1, "src": "coordinator", "dst": w, "label": label, "note": ""})
        out.append({"round": i + 1, "src": leader, "dst": "coordinator",
                    "label": f"SyncGroup(assignments for {len(workers)})", "note": ""})
        for w in sorted(r.workers, key=connector_key):
            wr = r.workers[w]
            parts = []
            if wr.assigned_connectors or wr.assigned_tasks:
                parts.append("+" + _names([*wr.assigned_connectors, *wr.assigned_tasks], pretty))
            if wr.revoked_connectors or wr.revoked_tasks:
                parts.append("-" + _names([*wr.revoked_connectors, *wr.revoked_tasks], pretty))
            if r.delay:
                parts.append(f"delay {r.delay} ms")
            out.append({"round": i + 1, "src": "coordinator", "dst": w,
                        "label": f"SyncGroupResponse({'; '.join(parts) or 'no change'})", "note": ""})
    return out


def sequence_figure(rounds: Sequence[RoundResult], pretty: Callable[[object], str] = str, first_reason: str = "",
                    title: str = "") -> Figure:
    """A sequence diagram of :func:`round_messages`: one lifeline per worker and the group coordinator,
    one arrow per message, rounds separated by a rule with the reason the round ran."""
    apply()
    messages = round_messages(rounds, pretty, first_reason)
    workers = sorted({w for r in rounds for w in r.members_in}, key=connector_key)
    lanes = ["coordinator"] + workers
    x = {name: 3.0 * i for i, name in enumerate(lanes)}
    height = 0.42 * len(messages) + 0.6 * len(rounds) + 1.2
    fig, ax = plt.subplots(figsize=(max(7.5, 2.6 * len(lanes)), min(height, 16.0)))
    y, current = 0.0, None
    for m in messages:
        if m["round"] != current:
            current = m["round"]
            y -= 0.5
            ax.axhline(y, color="#BBBBBB", linewidth=0.8)
            why = next((n["note"] for n in messages if n["round"] == current and n["note"]), "")
            ax.text(x[lanes[0]] - 0.4, y + 0.08, f"round {current}" + (f": {why}" if why else ""), fontsize=8.5,
                    va="bottom", ha="left", fontweight="bold", color="#555555")
            y -= 0.35
        x0, x1 = x[str(m["src"])], x[str(m["dst"])]
        label = str(m["label"])
        colour = STOPPED if "-" in label.split("(", 1)[-1][:1] or "; -" in label else (
            STARTED if "(+" in label else "#333333")
        ax.annotate("", xy=(x1, y - 0.12), xytext=(x0, y), arrowprops=dict(arrowstyle="-|>", color=colour, lw=1.0))
        ax.text((x0 + x1) / 2, y + 0.02, label, ha="center", va="bottom", fontsize=7.2, color=colour)
        y -= 0.42
    for name in lanes:
        ax.plot([x[name], x[name]], [0.3, y], color="#999999", linewidth=0.8, zorder=0)
        ax.text(x[name], 0.45, name, ha="center", va="bottom", fontsize=10, fontweight="bold")
    ax.set_xlim(-1.6, x[lanes[-1]] + 1.6)
    ax.set_ylim(y - 0.2, 1.0)
    ax.axis("off")
    ax.set_title(title or "Connect rebalance: the group messages of each round", fontsize=11)
    fig.tight_layout()
    return fig


#: the derived sets of ``IncrementalCooperativeAssignor.performTaskAssignment`` and how each is computed
DERIVED_SETS = (("deleted", "previous\n- configured"), ("lost", "previous - active\n- deleted"),
                ("created", "configured - previous\n- active"), ("duplicated", "running on\n2+ workers"))


def derived_sets_figure(derived: Mapping[str, ConnectorsAndTasks], reported: Mapping[str, Tuple[Any, ...]],
                        pretty: Callable[[Union[str, ConnectorTaskId]], str] = str, title: str = "") -> Figure:
    """Connect's derived sets as a membership grid: one row per connector or task, the three input sets
    (configured, previous, active -- with the worker(s) reporting it) on the left, the four derived sets
    (:data:`DERIVED_SETS`) on the right, from ``derived`` = ``IncrementalCooperativeAssignor.last_derived``."""
    apply()
    inputs = ("configured", "previous", "active")
    items: List[Union[str, ConnectorTaskId]] = []
    for name in inputs:
        cat = derived[name]
        held: List[Union[str, ConnectorTaskId]] = [*cat.connectors, *cat.tasks]
        for x in held:
            if x not in items:
                items.append(x)
    items.sort(key=lambda x: (x if isinstance(x, str) else x[0], -1 if isinstance(x, str) else x[1]))
    runners: Dict[object, List[str]] = {}
    for w, (c, t) in reported.items():
        for x in list(c) + list(t):
            runners.setdefault(x, []).append(w)
    columns = list(inputs) + [n for n, _ in DERIVED_SETS]
    fig, ax = plt.subplots(figsize=(10.5, 0.42 * len(items) + 1.9))
    colours = {"deleted": PALETTE[5], "lost": PALETTE[1], "created": PALETTE[2], "duplicated": PALETTE[3]}
    for row, item in enumerate(items):
        y = len(items) - row
        ax.text(-0.3, y, pretty(item), ha="right", va="center", fontsize=9, fontweight="bold")
        for col, name in enumerate(columns):
            cat = derived[name]
            member = item in (cat.connectors if isinstance(item, str) else cat.tasks)
            if not member:
                continue
            face = colours.get(name, KEPT)
            text = ", ".join(runners.get(item, [])) if name == "active" else ""
            ax.add_patch(FancyBboxPatch((col * 1.4 + 0.1, y - 0.28), 1.2, 0.56,
                                        boxstyle="round,pad=0.02,rounding_size=0.08", facecolor=face, edgecolor=face))
            if text:
                ax.text(col * 1.4 + 0.7, y, text, ha="center", va="center", fontsize=8)
    for col, name in enumerate(columns):
        formula = dict(DERIVED_SETS).get(name, "input")
        ax.text(col * 1.4 + 0.7, len(items) + 0.55, f"{name}\n{formula}", ha="center", va="bottom", fontsize=8.2,
                fontweight="bold" if name in colours else "normal")
    ax.axvline(3 * 1.4 + 0.02, color="#777777", linewidth=1.0, linestyle="--")
    ax.set_xlim(-1.6, len(columns) * 1.4 + 0.1)
    ax.set_ylim(0.4, len(items) + 2.0)
    ax.axis("off")
    ax.set_title(title or "What the leader derives before it assigns", fontsize=11)
    fig.tight_layout()
    return fig
