"""Chapter 1's widget: where a group lives and how its first rebalance and a failure unfold as settings change.

The coordinator is the leader of partition ``Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions``
of ``__consumer_offsets`` (``GroupCoordinatorService.partitionFor``, Kafka 4.3.1); the timeline is a run of
the classic group simulator (:mod:`rebalance.protocol`) with the chosen ``group.initial.rebalance.delay.ms``,
``heartbeat.interval.ms`` and ``session.timeout.ms``.  :func:`group_timeline_view` is the static
counterpart of :func:`group_timeline_widget` (same defaults), for the book's site.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Optional, Sequence, Tuple

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from ..errors import InputError
from ..protocol.config import ProtocolConfig
from ..protocol.coordinator import OFFSETS_TOPIC_PARTITIONS_DEFAULT
from ..protocol.simulation import GroupSimulation
from ..validation import require
from ..viz.protocol import ownership_timeline
from .protocol import failure_timeline

if TYPE_CHECKING:  # ipywidgets is imported when a widget is built (the book's extra)
    import ipywidgets

__all__ = ["GroupSettings", "group_timeline", "milestones", "milestone_table", "group_timeline_view",
           "group_timeline_widget", "settings_variants"]


@dataclass(frozen=True)
class GroupSettings:
    """What the reader can change: the group id, ``offsets.topic.num.partitions``, the broker's
    ``group.initial.rebalance.delay.ms`` and the consumers' ``heartbeat.interval.ms`` and
    ``session.timeout.ms`` (Kafka defaults), plus the scenario: ``members`` consumers start
    ``join_gap_ms`` apart on a topic of ``partitions`` partitions and ``c2`` crashes at ``crash_at_ms``."""

    group_id: str = "orders-service"
    offsets_partitions: int = OFFSETS_TOPIC_PARTITIONS_DEFAULT
    brokers: Tuple[int, ...] = (1, 2, 3)
    initial_rebalance_delay_ms: int = 3_000
    heartbeat_interval_ms: int = 3_000
    session_timeout_ms: int = 45_000
    members: int = 3
    partitions: int = 6
    join_gap_ms: int = 1_000
    crash_at_ms: int = 30_000

    def validate(self) -> "GroupSettings":
        require(isinstance(self.group_id, str) and self.group_id != "", "group_id", "must be a non-empty string")
        require(isinstance(self.offsets_partitions, int) and self.offsets_partitions >= 1, "offsets_partitions",
                f"must be a whole number >= 1, got {self.offsets_partitions!r}")
        require(isinstance(self.members, int) and self.members >= 2, "members",
                f"needs at least 2 consumers (c2 crashes), got {self.members!r}")
        require(isinstance(self.crash_at_ms, int) and self.crash_at_ms >= 0, "crash_at_ms",
                f"must be a time in ms >= 0, got {self.crash_at_ms!r}")
        return self


def group_timeline(settings: GroupSettings = GroupSettings()) -> GroupSimulation:
    """Run the scenario of ``settings`` until the group has recovered from the crash (or given up)."""
    s = settings.validate()
    config = ProtocolConfig(initial_rebalance_delay_ms=s.initial_rebalance_delay_ms,
                            heartbeat_interval_ms=s.heartbeat_interval_ms, session_timeout_ms=s.session_timeout_ms)
    sim = GroupSimulation({"orders": s.partitions}, config, group_id=s.group_id, brokers=s.brokers,
                          offsets_partitions=s.offsets_partitions)
    for i in range(s.members):
        sim.add_member(f"c{i + 1}", i * s.join_gap_ms, assignors=("range",))
    sim.crash("c2", s.crash_at_ms)
    return sim.run(s.crash_at_ms + s.session_timeout_ms + 4 * s.heartbeat_interval_ms + 10_000)


def milestones(sim: GroupSimulation) -> Dict[str, Optional[int]]:
    """The instants (ms) that make up the run's timeline, read from its trace: the first JoinGroup, the
    first rebalance's start and end (``Stable``), the moment every partition was first owned, and the
    crash of ``c2`` with its detection and recovery (:func:`rebalance.widgets.protocol.failure_timeline`)."""
    joins = [m.sent_ms for m in sim.messages if m.api == "JoinGroup" and m.kind == "request"]
    states = [(e.time_ms, e.fields["state"]) for e in sim.events if e.kind == "state" and e.actor == sim.coordinator_name]
    first_prepare = next((t for t, st in states if st == "PreparingRebalance"), None)
    first_stable = next((t for t, st in states if st == "Stable"), None)
    owned: Dict[Tuple[str, int], int] = {}
    for iv in sim.ownership.intervals:
        owned.setdefault(iv.partition, iv.start_ms)
    all_owned = max(owned.values()) if len(owned) == len(sim.partitions) else None
    fail = failure_timeline(sim, "c2")
    return {"first JoinGroup": joins[0] if joins else None, "rebalance starts": first_prepare,
            "group Stable": first_stable, "every partition owned": all_owned, "c2 crashes": fail["stopped_ms"],
            "c2's session expires": fail["expired_ms"], "survivors rejoin": fail["survivors_rejoin_ms"],
            "c2's partitions reassigned": fail["reassigned_ms"]}


def milestone_table(variants: Dict[str, GroupSettings]) -> pd.DataFrame:
    """One row per labelled settings variant: the coordinator, then each milestone (seconds)."""
    columns = {}
    for label, settings in variants.items():
        sim = group_timeline(settings)
        col: Dict[str, object] = {"__consumer_offsets partition": sim.offsets_partition,
                                  "coordinator broker": sim.coordinator.broker}
        marks = milestones(sim)
        for name, t in marks.items():
            col[f"{name} (s)"] = None if t is None else t / 1000
        col["rebalances before the crash"] = sum(
            1 for e in sim.events if e.kind == "state" and e.actor == sim.coordinator_name
            and e.fields["state"] == "PreparingRebalance" and e.time_ms < (marks["c2 crashes"] or sim.clock.now_ms))
        columns[label] = col
    return pd.DataFrame.from_dict(columns, orient="index")


def group_timeline_view(settings: GroupSettings = GroupSettings(), title: str = "") -> Tuple[pd.DataFrame, Figure]:
    """The static counterpart of the widget: the milestone table and the ownership timeline."""
    sim = group_timeline(settings)
    table = milestone_table({"run": settings})
    fig = ownership_timeline(sim, title=title or f"group {settings.group_id!r}: formation, c2 crashes at "
                                                  f"{settings.crash_at_ms / 1000:g} s")
    return table, fig


def _png(fig: Figure) -> bytes:
    import io

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def group_timeline_widget(settings: GroupSettings = GroupSettings()) -> "ipywidgets.VBox":
    """Type a group id, pick ``offsets.topic.num.partitions``, the initial rebalance delay, the heartbeat
    interval and the session timeout; see the coordinator and the run's milestones and timeline.  A setting
    Kafka refuses (a heartbeat not below the session timeout) shows the error instead."""
    import ipywidgets as w

    group = w.Text(value=settings.group_id, description="group.id")
    parts = w.IntSlider(value=settings.offsets_partitions, min=1, max=200, description="offsets parts")
    delay = w.IntSlider(value=settings.initial_rebalance_delay_ms // 1000, min=0, max=10, description="initial delay (s)")
    beat = w.IntSlider(value=settings.heartbeat_interval_ms // 1000, min=1, max=10, description="heartbeat (s)")
    session = w.IntSlider(value=settings.session_timeout_ms // 1000, min=6, max=60, description="session (s)")
    html = w.HTML()
    image = w.Image(format="png")

    def update(*_: object) -> None:
        try:
            chosen = GroupSettings(group_id=group.value or settings.group_id, offsets_partitions=parts.value,
                                   brokers=settings.brokers, initial_rebalance_delay_ms=delay.value * 1000,
                                   heartbeat_interval_ms=beat.value * 1000, session_timeout_ms=session.value * 1000,
                                   members=settings.members, partitions=settings.partitions,
                                   join_gap_ms=settings.join_gap_ms, crash_at_ms=settings.crash_at_ms)
            table, fig = group_timeline_view(chosen)
        except InputError as e:
            html.value = f"<b>refused</b>: {e}"
            image.value = b""
            return
        html.value = table.to_html()
        image.value = _png(fig)

    for control in (group, parts, delay, beat, session):
        control.observe(update, "value")
    update()
    return w.VBox([w.HBox([group, parts]), w.HBox([delay, beat, session]), html, image])


def settings_variants(base: GroupSettings = GroupSettings(),
                      changes: Sequence[Tuple[str, Dict[str, Any]]] = (
                          ("no initial delay", {"initial_rebalance_delay_ms": 0}),
                          ("session 10 s", {"session_timeout_ms": 10_000}),
                          ("heartbeat 1 s", {"heartbeat_interval_ms": 1_000}),
                      )) -> Dict[str, GroupSettings]:
    """``{"defaults": base, label: base with changes, ...}`` for :func:`milestone_table`."""
    from dataclasses import replace

    out: Dict[str, GroupSettings] = {"defaults": base}
    for label, change in changes:
        out[label] = replace(base, **change)
    return out
