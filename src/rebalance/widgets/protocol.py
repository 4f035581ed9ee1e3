"""Tables and widgets of the group-protocol chapters (classic JoinGroup/SyncGroup protocol).

The protocol is simulated by :mod:`rebalance.protocol`, modelled on Kafka's source at commit 1eb7644 (trunk
before 4.0).

Every widget has a static counterpart (a table or figure computed with the widget's defaults) so the
static site shows the same content."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

import pandas as pd

if TYPE_CHECKING:  # ipywidgets is imported when a widget is built (the book's extra)
    import ipywidgets

from ..common import JsonRecord
from ..protocol.coordinator import coordinator_table
from ..protocol.config import ProtocolConfig
from ..protocol.scenarios import rolling_restart
from ..protocol.simulation import GroupSimulation
from ..viz.protocol import select_messages, sequence_diagram


def lookup_table(group_ids: Sequence[str], num_partitions: int = 50, brokers: Sequence[int] = (0, 1, 2)) -> pd.DataFrame:
    """Coordinator lookup for each group id: hash, partition of ``__consumer_offsets``, coordinator broker
    (under a simple round-robin leadership of that topic)."""
    rows = coordinator_table(list(group_ids), num_partitions, list(brokers))
    return pd.DataFrame(rows).rename(columns={"groupId": "group.id", "hashCode": "String.hashCode",
                                              "abs": "Utils.abs", "partition": "partition",
                                              "coordinator": "coordinator broker"})


def message_table(sim: GroupSimulation, apis: Optional[Sequence[str]] = ("JoinGroup", "SyncGroup", "LeaveGroup"),
                  since: int = 0, until: Optional[int] = None, limit: Optional[int] = None) -> pd.DataFrame:
    """The messages as a table: send time, from, to, message."""
    rows = [{"t (ms)": m.sent_ms, "from": m.src, "to": m.dst, "message": m.label()}
            for m in select_messages(sim, apis, since, until, limit)]
    return pd.DataFrame(rows, columns=["t (ms)", "from", "to", "message"])


def event_table(sim: GroupSimulation, kinds: Sequence[str] = ("state", "assign", "revoke", "assigned", "lost",
                                                               "fault", "decision"),
                since: int = 0, until: Optional[int] = None) -> pd.DataFrame:
    """State changes, decisions, revocations and assignments with their virtual time."""
    rows = []
    for e in sim.events:
        if e.kind not in kinds or e.time_ms < since or (until is not None and e.time_ms > until):
            continue
        f = dict(e.fields)
        if "partitions" in f:
            f["partitions"] = " ".join(f"{t}-{p}" for t, p in f["partitions"])
        if "assignment" in f:
            f["assignment"] = "; ".join(f"{k}: {' '.join(f'{t}-{p}' for t, p in v) or '-'}"
                                        for k, v in f["assignment"].items())
        rows.append({"t (ms)": e.time_ms, "who": e.actor, "what": e.kind,
                     "detail": ", ".join(f"{k}={v}" for k, v in f.items())})
    return pd.DataFrame(rows, columns=["t (ms)", "who", "what", "detail"])


def owners_at(sim: GroupSimulation, t_ms: int) -> Dict[str, List[str]]:
    """Which partitions each member processes at virtual time ``t_ms`` (from the ownership ledger)."""
    out: Dict[str, List[str]] = {}
    for iv in sim.ownership.intervals:
        if iv.start_ms <= t_ms and (iv.end_ms is None or iv.end_ms > t_ms):
            out.setdefault(iv.member, []).append(f"{iv.partition[0]}-{iv.partition[1]}")
    return {k: sorted(v) for k, v in sorted(out.items())}


def metrics_table(sims: Dict[str, GroupSimulation], measure_from: int = 0) -> pd.DataFrame:
    """One row of :meth:`GroupSimulation.metrics` per labelled run."""
    rows = []
    for label, sim in sims.items():
        m = sim.metrics(measure_from)
        rows.append({"run": label, "rebalances": m.rebalances, "generations": m.group_epoch,
                     "unowned partition-s": round(m.unowned_partition_seconds, 3),
                     "partitions stopped": m.partitions_stopped, "moved": m.partitions_moved,
                     "stable after (ms)": m.time_to_stable_ms, "double ownership": m.double_ownership})
    return pd.DataFrame(rows)


def third_member_joins_example(protocol: str, config: ProtocolConfig = ProtocolConfig.instant(initial_rebalance_delay_ms=0),
                               until: int = 20_000) -> GroupSimulation:
    """The p1/p2/p3 example of the KIP-429/KIP-345 article ("kafka rebalance解决方案 - incremental cooperative
    协议和static membership功能", ``article-cooperative-static`` in the book's references): c1 owns p1, p2
    (``t-0``, ``t-1``), c2 owns p3 (``t-2``), a third member c3 joins at 1 s.  Eager members use
    RangeAssignor, cooperative members CooperativeStickyAssignor."""
    sim = GroupSimulation({"t": 3}, config)
    names = ("cooperative-sticky",) if protocol == "cooperative" else ("range",)
    sim.start_stable({"c1": [("t", 0), ("t", 1)], "c2": [("t", 2)]}, assignors=names)
    sim.add_member("c3", 1000, assignors=names)
    return sim.run(until)


def protocol_stepper(sim: Optional[GroupSimulation] = None, apis: Sequence[str] = ("JoinGroup", "SyncGroup", "LeaveGroup"),
                     since: int = 0, limit: int = 60) -> "ipywidgets.VBox":
    """Step through a run message by message: the sequence diagram up to the chosen message (drawn in bold),
    the message itself and who owns what at that instant.  Default: the cooperative p1/p2/p3 example.
    (Static counterpart: :func:`message_table` and :func:`rebalance.viz.protocol.sequence_diagram`.)"""
    import ipywidgets as w
    import matplotlib.pyplot as plt

    if sim is None:
        sim = third_member_joins_example("cooperative")
    msgs = select_messages(sim, apis, since, None, limit)
    import io

    slider = w.IntSlider(value=0, min=0, max=max(len(msgs) - 1, 0), description="message")
    text = w.HTML()
    image = w.Image(format="png")

    def update(*_: object) -> None:
        k = slider.value
        m = msgs[k] if msgs else None
        fig = sequence_diagram(sim, apis, since, m.sent_ms if m else None, limit=k + 1, highlight=k)
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        plt.close(fig)
        image.value = buf.getvalue()
        if m is not None:
            owners = owners_at(sim, m.recv_ms)
            text.value = (f"<b>{m.sent_ms} ms</b> {m.src} &rarr; {m.dst}: <code>{m.label()}</code><br>"
                          + "owners: " + "; ".join(f"{k2}: {' '.join(v) or '-'}" for k2, v in owners.items()))

    slider.observe(update, "value")
    update()
    return w.VBox([slider, text, image])


def protocol_chooser(until: int = 20_000) -> "ipywidgets.VBox":
    """Pick eager or cooperative for the p1/p2/p3 example and see its messages and metrics."""
    import ipywidgets as w

    choice = w.ToggleButtons(options=["eager", "cooperative"], value="cooperative", description="protocol")
    out = w.HTML()

    def update(*_: object) -> None:
        sim = third_member_joins_example(choice.value, until=until)
        out.value = (metrics_table({choice.value: sim}).to_html(index=False)
                     + message_table(sim).to_html(index=False))

    choice.observe(update, "value")
    update()
    return w.VBox([choice, out])


def static_membership_widget(n_members: int = 50, partitions: int = 200, down_s: int = 5, session_s: int = 45,
                             variants: Sequence[str] = ("eager", "cooperative", "static")) -> "ipywidgets.VBox":
    """Rolling restart of a group, with and without ``group.instance.id``; choose how long each member is
    away and the session timeout (a static member away longer than ``session.timeout.ms`` triggers a
    rebalance after all).  Static counterpart: :func:`rolling_restart_rows` with the same arguments."""
    import ipywidgets as w

    down = w.IntSlider(value=down_s, min=1, max=120, description="away (s)")
    session = w.IntSlider(value=session_s, min=6, max=180, description="session (s)")
    out = w.HTML()

    def update(*_: object) -> None:
        cfg = ProtocolConfig(session_timeout_ms=session.value * 1000)
        rows = rolling_restart_rows(n_members, partitions, down_ms=down.value * 1000, config=cfg,
                                    variants=variants)
        out.value = pd.DataFrame(rows).to_html(index=False)

    down.observe(update, "value")
    session.observe(update, "value")
    update()
    return w.VBox([down, session, out])


def rolling_restart_rows(n_members: int = 50, partitions: int = 200, *, down_ms: int = 5_000, gap_ms: int = 30_000,
                         config: ProtocolConfig = ProtocolConfig(),
                         variants: Sequence[str] = ("eager", "cooperative", "static")) -> List[JsonRecord]:
    """Rolling restart (one member at a time) of ``n_members`` consuming ``partitions`` partitions; one row
    per variant with the rebalances and the partition-seconds nobody processed."""
    spec: Dict[str, Dict[str, Any]] = {"eager": dict(protocol="eager", assignor="range"),
            "cooperative": dict(protocol="cooperative", assignor="cooperative-sticky"),
            "static": dict(protocol="eager", assignor="range", static=True),
            "static-cooperative": dict(protocol="cooperative", assignor="cooperative-sticky", static=True)}
    rows = []
    for v in variants:
        sim = rolling_restart(n_members, {"events": partitions}, down_ms=down_ms, gap_ms=gap_ms, start_ms=30_000,
                              settle_ms=60_000, config=config, **spec[v])
        m = sim.metrics(sim.measure_from)  # rolling_restart sets where its measurement starts
        rows.append({"variant": v, "rebalances": m.rebalances, "generations": m.group_epoch,
                     "unowned_partition_seconds": round(m.unowned_partition_seconds, 1),
                     "partitions_stopped": m.partitions_stopped, "partitions_moved": m.partitions_moved,
                     "settled": m.settled})
    return rows


def join_response_table(sim: GroupSimulation, since: int = 0) -> pd.DataFrame:
    """Every successful JoinGroup response: who got it, the generation, the leader and how many member
    subscriptions it carried (only the leader's response carries them)."""
    rows = []
    for m in sim.messages:
        if m.api == "JoinGroup" and m.kind == "response" and m.fields.get("error") == "NONE" and m.sent_ms >= since:
            rows.append({"t (ms)": m.sent_ms, "to": m.dst, "memberId": m.fields.get("memberId"),
                         "generation": m.fields.get("generation"), "leader": m.fields.get("leader"),
                         "subscriptions received": len(m.fields.get("members", []))})
    return pd.DataFrame(rows, columns=["t (ms)", "to", "memberId", "generation", "leader", "subscriptions received"])


def group_formation_example(group_id: str = "orders-service",
                            joins: Sequence[Tuple[str, int]] = (("c1", 0), ("c2", 1000), ("c3", 2000)),
                            partitions: int = 6, config: ProtocolConfig = ProtocolConfig(),
                            until: int = 10_000) -> GroupSimulation:
    """Consumers joining an empty group with RangeAssignor (Kafka's default broker and client settings)."""
    sim = GroupSimulation({"orders": partitions}, config, group_id=group_id)
    for name, at in joins:
        sim.add_member(name, at, assignors=("range",))
    return sim.run(until)


def leader_lost_example(partition_ms: Optional[int] = None, until: int = 40_000,
                        session_timeout_ms: int = 10_000) -> GroupSimulation:
    """The leader lost between JoinGroup and SyncGroup, the case the Eager-vs-Incremental-Cooperative
    article (``article-eager-vs-incremental``) discusses for Kafka Connect's leader: c1 (leader, owns p1 p2)
    and c2 (owns p3) are Stable, c3 joins at 1 s, and the leader is lost between its JoinGroup response and
    its SyncGroup in generation 2 -- it dies, or with ``partition_ms`` it is cut off that long and then
    sends its stale SyncGroup.  The session timeout is 10 s (Kafka's default before 3.0) rather than
    today's 45 s only to keep the trace short; the sequence of messages is the same."""
    sim = GroupSimulation({"t": 3}, ProtocolConfig.instant(initial_rebalance_delay_ms=0,
                                                           session_timeout_ms=session_timeout_ms))
    sim.start_stable({"c1": [("t", 0), ("t", 1)], "c2": [("t", 2)]}, assignors=("range",))
    sim.add_member("c3", 1000, assignors=("range",))
    sim.lose_leader_before_sync(2, partition_ms=partition_ms)
    return sim.run(until)


def join_example(protocol: str, members: int = 8, partitions: int = 24, join_at: int = 30_000,
                 config: ProtocolConfig = ProtocolConfig(),
                 until: int = 60_000) -> GroupSimulation:
    """``members`` consumers share a ``partitions``-partition topic; one more joins at ``join_at``.
    Eager members use RangeAssignor, cooperative members CooperativeStickyAssignor."""
    names = ("cooperative-sticky",) if protocol == "cooperative" else ("range",)
    sim = GroupSimulation({"events": partitions}, config)
    for i in range(members):
        sim.add_member(f"c{i + 1}", 0, assignors=names)
    sim.add_member(f"c{members + 1}", join_at, assignors=names)
    return sim.run(until)


def bounce_example(static: bool, down_ms: int = 5_000, members: int = 3, partitions: int = 6,
                   config: ProtocolConfig = ProtocolConfig(initial_rebalance_delay_ms=0),
                   until: int = 40_000) -> GroupSimulation:
    """A stable group (RangeAssignor, eager) in which ``c2`` is restarted at 10 s and is away ``down_ms``,
    with or without ``group.instance.id``."""
    sim = GroupSimulation({"t": partitions}, config)
    names = [f"c{i + 1}" for i in range(members)]
    per = partitions // members
    assignment = {n: [("t", p) for p in range(i * per, (i + 1) * per)] for i, n in enumerate(names)}
    sim.start_stable(assignment, assignors=("range",),
                     instance_ids={n: f"instance-{n}" for n in names} if static else None)
    sim.bounce("c2", 10_000, down_ms)
    return sim.run(until)


def zombie_example(until: int = 20_000) -> GroupSimulation:
    """Static member ``c2`` (``group.instance.id=instance-c2``) gets a second process at 4.5 s while the
    first still runs; the coordinator hands the instance id to the newcomer and fences the old process."""
    sim = GroupSimulation({"t": 2}, ProtocolConfig(initial_rebalance_delay_ms=0))
    sim.start_stable({"c1": [("t", 0)], "c2": [("t", 1)]}, assignors=("range",),
                     instance_ids={"c1": "instance-c1", "c2": "instance-c2"})
    sim.start_duplicate("c2", 4_500)
    return sim.run(until)


def failure_timeline(sim: GroupSimulation, name: str, after_ms: int = 0) -> Dict[str, Optional[int]]:
    """When a member that stopped (crash or close) at or after ``after_ms`` was noticed, from the run's own
    records: ``stopped_ms`` (the fault), ``last_heartbeat_ms`` (arrival of its last Heartbeat, which
    restarted its session timer), ``expired_ms`` (the coordinator's ``sessionExpired`` decision),
    ``survivors_rejoin_ms`` (the first JoinGroup another member sends after that: survivors learn of the
    rebalance only from their next Heartbeat), ``stable_ms`` (the group Stable again) and ``reassigned_ms``
    (the last partition taken up in that rebalance, before any later one such as the member's return).  ``None`` where the run has no such record."""
    stops = [e.time_ms for e in sim.events if e.kind == "fault" and e.actor == name and e.time_ms >= after_ms
             and e.fields.get("what") in ("crash", "shutdown")]
    stopped = stops[0] if stops else None
    beats = [m for m in sim.messages if m.api == "Heartbeat" and m.kind == "request" and m.src == name
             and (stopped is None or m.sent_ms < stopped)]
    last = beats[-1] if beats else None
    member_id = last.fields.get("memberId") if last else None
    expired = next((e.time_ms for e in sim.events if e.kind == "decision" and e.fields.get("what") == "sessionExpired"
                    and e.fields.get("member") == member_id), None)
    rejoin = stable = reassigned = None
    if expired is not None:
        rejoin = next((m.sent_ms for m in sim.messages if m.api == "JoinGroup" and m.kind == "request"
                       and m.src != name and m.sent_ms >= expired), None)
        stable = next((e.time_ms for e in sim.events if e.kind == "state" and e.fields.get("state") == "Stable"
                       and e.time_ms >= expired), None)
        # the rebalance the expiry started: assignments up to the next rebalance (e.g. the member's return)
        next_rebalance = next((e.time_ms for e in sim.events if e.kind == "state" and stable is not None
                               and e.fields.get("state") == "PreparingRebalance" and e.time_ms > stable), None)
        taken = [e.time_ms for e in sim.events if e.kind == "assigned" and e.time_ms >= expired
                 and (next_rebalance is None or e.time_ms < next_rebalance)]
        reassigned = max(taken) if taken else None
    return {"stopped_ms": stopped, "last_heartbeat_ms": last.recv_ms if last else None, "expired_ms": expired,
            "survivors_rejoin_ms": rejoin, "stable_ms": stable, "reassigned_ms": reassigned}


def _seconds(ms: Optional[int]) -> Optional[float]:
    """Milliseconds as seconds; ``None`` (the run has no such instant, e.g. it ended first) stays ``None``."""
    return None if ms is None else ms / 1000


def crash_detection_rows(session_timeouts_ms: Sequence[int] = (10_000, 45_000), crash_at: int = 20_000,
                         partitions: int = 6, members: int = 3, group_id: str = "orders-service",
                         until: int = 80_000) -> pd.DataFrame:
    """Chapter 1's crash experiment for each session timeout: ``c2`` of ``members`` RangeAssignor consumers
    crashes at ``crash_at``.  One row per timeout with the :func:`failure_timeline` instants (seconds), how
    long the crashed member's partitions waited (crash to reassignment) and the unprocessed
    partition-seconds.  The wait is the session timeout counted from the last heartbeat (so up to one
    heartbeat interval less than the timeout after the crash) plus the time until the survivors' next
    heartbeats tell them to rejoin (up to one heartbeat interval) plus the rejoin itself."""
    rows = []
    for session_ms in session_timeouts_ms:
        sim = GroupSimulation({"orders": partitions}, ProtocolConfig.instant(session_timeout_ms=session_ms),
                              group_id=group_id)
        for i in range(members):
            sim.add_member(f"c{i + 1}", 0, assignors=("range",))
        sim.crash("c2", crash_at)
        sim.run(until)
        tl = failure_timeline(sim, "c2")
        hb = sim.config.heartbeat_interval_ms
        stopped, reassigned = tl["stopped_ms"], tl["reassigned_ms"]
        rows.append({
            "session (s)": session_ms / 1000, "heartbeat (s)": hb / 1000,
            "crash (s)": _seconds(stopped), "last heartbeat (s)": _seconds(tl["last_heartbeat_ms"]),
            "session expired (s)": _seconds(tl["expired_ms"]),
            "survivors rejoin (s)": _seconds(tl["survivors_rejoin_ms"]),
            "reassigned (s)": _seconds(reassigned),
            "wait after crash (s)": None if reassigned is None or stopped is None else (reassigned - stopped) / 1000,
            "unowned partition-s": round(sim.metrics(crash_at).unowned_partition_seconds, 3),
        })
    return pd.DataFrame(rows)


def slow_consumer_rows(batch_ms: Sequence[int] = (2_000, 8_000, 12_000, 20_000), max_poll_interval_ms: int = 10_000,
                       members: int = 3, partitions: int = 6, until: int = 120_000) -> pd.DataFrame:
    """KIP-62 in the simulator: ``members`` consumers (eager, RangeAssignor) of which the last, ``slow``,
    spends ``batch_ms`` on each ``poll()`` batch, with ``max.poll.interval.ms`` = ``max_poll_interval_ms``
    (shortened from Kafka's 300 s so that the runs stay short; only the ratio matters).  One row per batch
    time: the poll timeouts, LeaveGroups sent, rebalances and zombie overlaps (the slow member still
    processing partitions the coordinator already gave away) over ``until`` ms, the partition-seconds nobody
    processed."""
    rows = []
    for b in batch_ms:
        cfg = ProtocolConfig(initial_rebalance_delay_ms=0, max_poll_interval_ms=max_poll_interval_ms)
        sim = GroupSimulation({"t": partitions}, cfg, group_id="kip62")
        for i in range(members - 1):
            sim.add_member(f"c{i + 1}", 0)
        sim.add_member("slow", 0, poll_processing_ms=b)
        sim.run(until)
        m = sim.metrics()
        rows.append({"batch (s)": b / 1000, "max.poll.interval (s)": max_poll_interval_ms / 1000, "run (s)": until / 1000,
                     "poll timeouts": sum(1 for e in sim.events if e.fields.get("what") == "pollTimeout"),
                     "LeaveGroup": sum(1 for x in sim.messages if x.api == "LeaveGroup" and x.kind == "request"),
                     "rebalances": m.rebalances, "zombie overlaps": m.zombie_overlap,
                     "unowned partition-s": round(m.unowned_partition_seconds, 1)})
    return pd.DataFrame(rows)
