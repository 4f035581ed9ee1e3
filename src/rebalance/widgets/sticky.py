"""Widgets and tables for the Sticky and CooperativeSticky chapters.  Each widget has a static twin
(the ``*_view``/``*_table`` functions) that the chapters display with the widget's defaults.

Everything is computed by :class:`rebalance.consumer.sticky.StickyAssignor`,
:class:`rebalance.consumer.cooperative_sticky.CooperativeStickyAssignor` and
:func:`rebalance.consumer.assign`; nothing here decides an assignment.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from ..common import JsonRecord
from ..consumer import assign
from ..consumer.abstract_sticky import balance_score
from ..consumer.api import build_scenario
from ..consumer.model import AssignorResult, TopicPartition, parse_consumer_input
from ..consumer.vectors import parse_replay_options
from ..consumer.rounds import rebalance_rounds
from ..consumer.sticky import StickyAssignor
from .consumer import GroupMembers
from ..viz.assignment import moved_partitions, moves_figure, moves_table
from ..viz.sticky import paused_figure, rounds_figure

if TYPE_CHECKING:  # ipywidgets is imported when a widget is built (the book's extra)
    import ipywidgets

#: a group with uneven subscriptions: three topics with 4/3/2 partitions, ``consumer0`` reading all three,
#: ``consumer1`` two and ``consumer2`` one (example 3 of the consumer-assignors article, Kafka 2.0.1)
UNEVEN_TOPICS = {"t0": 4, "t1": 3, "t2": 2}
UNEVEN_MEMBERS = {"consumer0": ["t0", "t1", "t2"], "consumer1": ["t0", "t1"], "consumer2": ["t2"]}


def _members(members: GroupMembers) -> Dict[str, JsonRecord]:
    return {m: (dict(v) if isinstance(v, Mapping) else {"topics": list(v)}) for m, v in members.items()}


def rejoin(members: GroupMembers, assignment: Mapping[str, Sequence[TopicPartition]], generation: int, *, left: Sequence[str] = (),
           joined: Optional[GroupMembers] = None) -> Dict[str, JsonRecord]:
    """The next rebalance's members: each remaining member reports what it was given (owned partitions
    and ``generation``), members in ``left`` are gone, ``joined`` arrive with nothing."""
    out = {m: dict(spec, owned=list(assignment[m]), generation=generation)
           for m, spec in _members(members).items() if m not in left}
    out.update(_members(joined or {}))
    return out


def sticky_walk(partitions: Optional[Mapping[str, int]] = None, members: Optional[GroupMembers] = None, joined: Optional[GroupMembers] = None,
                left: Sequence[str] = ()) -> Tuple[AssignorResult, AssignorResult]:
    """First assignment of ``members`` with StickyAssignor, then the rebalance after ``joined`` join /
    ``left`` leave, traced.  Returns ``(first, second)`` results (defaults: the uneven group, then ``consumer3`` joins reading ``t0``)."""
    partitions = dict(UNEVEN_TOPICS if partitions is None else partitions)
    members = _members(UNEVEN_MEMBERS if members is None else members)
    if joined is None and not left:
        joined = {"consumer3": ["t0"]}
    first = StickyAssignor().assign(build_scenario("sticky", partitions, members))
    second_members = rejoin(members, first.assignment, 1, left=left, joined=joined)
    second = StickyAssignor(trace=True).assign(build_scenario("sticky", partitions, second_members))
    return first, second


def stickiness_table(partitions: Mapping[str, int], members: GroupMembers, *, joined: Optional[GroupMembers] = None,
                     left: Sequence[str] = ()) -> pd.DataFrame:
    """For each of Kafka's assignors: partitions that change owner in the rebalance, the spread (largest
    minus smallest count) and the balance score afterwards.  Cooperative-sticky counts its full plan."""
    rows = []
    members = _members(members)
    for name in ("range", "roundrobin", "sticky", "cooperative-sticky"):
        before = assign(name, partitions, members)
        second = rejoin(members, before, 1, left=left, joined=joined)
        if name == "cooperative-sticky":
            rounds = rebalance_rounds(build_scenario(name, partitions, second))
            after = rounds[-1].assignment
        else:
            after = assign(name, partitions, second)
        counts = [len(v) for v in after.values()]
        rows.append({"assignor": name, "partitions that change owner": len(moved_partitions(
            {m: v for m, v in before.items() if m not in left}, after)),
            "spread after": max(counts) - min(counts) if counts else 0,
            "balance score after": balance_score(after)})
    return pd.DataFrame(rows).set_index("assignor")


def stickiness_view(topics: int = 3, partitions_per_topic: int = 6, members: int = 4, change: str = "join"
                    ) -> Tuple[pd.DataFrame, Figure]:
    """Static twin of :func:`stickiness_widget`: every member reads every topic, one member joins (or
    the first one leaves); the table of :func:`stickiness_table` and the sticky before/after figure."""
    partitions = {f"t{i}": partitions_per_topic for i in range(topics)}
    group = {f"C{i}": list(partitions) for i in range(members)}
    kwargs: Dict[str, Any] = {"joined": {f"C{members}": list(partitions)}} if change == "join" else {"left": ["C0"]}
    table = stickiness_table(partitions, group, **kwargs)
    before = assign("sticky", partitions, _members(group))
    after = assign("sticky", partitions, rejoin(group, before, 1, **kwargs))
    fig = moves_figure({m: v for m, v in before.items()}, after, partitions,
                       title=f"sticky: {'a member joins' if change == 'join' else 'C0 leaves'}")
    return table, fig


def _figure_png(fig: Figure) -> bytes:
    """The figure as PNG bytes (for an ``ipywidgets.Image``), closed afterwards so nothing else shows it."""
    import io

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def stickiness_widget(topics: int = 3, partitions_per_topic: int = 6, members: int = 4, change: str = "join"
                      ) -> ipywidgets.VBox:
    """Interactive :func:`stickiness_view`: sliders for topics, partitions per topic and members.  The
    figure and table are widget values (not cell outputs), so the cell's own output stays deterministic."""
    import ipywidgets as w

    t = w.IntSlider(value=topics, min=1, max=6, description="topics")
    p = w.IntSlider(value=partitions_per_topic, min=1, max=12, description="partitions")
    m = w.IntSlider(value=members, min=2, max=8, description="members")
    c = w.ToggleButtons(options=["join", "leave"], value=change, description="change")
    image = w.Image(format="png")
    html = w.HTML()

    def update(*_: object) -> None:
        table, fig = stickiness_view(t.value, p.value, m.value, c.value)
        image.value = _figure_png(fig)
        html.value = table.to_html()

    for control in (t, p, m, c):
        control.observe(update, "value")
    update()
    return w.VBox([w.HBox([t, p]), w.HBox([m, c]), image, html])


def double_claim_table(generations: Sequence[Tuple[int, int]] = ((3, 5), (5, 3), (4, 4))) -> pd.DataFrame:
    """Two members A and B both report partition t-0 (of 2) as owned, with the given generations: who
    keeps it, and whether Kafka records it as transferring ownership (StickyAssignor, Kafka 4.3.1)."""
    rows = []
    for gen_a, gen_b in generations:
        # the vectors' input schema, because the friendly API refuses same-generation double claims
        data = {"kind": "consumer", "assignor": "sticky", "topics": {"t": 2},
                "members": [{"memberId": "A", "topics": ["t"], "ownedPartitions": ["t-0"], "generationId": gen_a},
                            {"memberId": "B", "topics": ["t"], "ownedPartitions": ["t-0"], "generationId": gen_b}]}
        scenario = parse_consumer_input(data)
        result = StickyAssignor(replay=parse_replay_options(data)).assign(scenario)
        holder = next(m for m, tps in result.assignment.items() if ("t", 0) in tps)
        claimants = [m for m, tps in result.owned.items() if ("t", 0) in tps]
        rows.append({"generation A": gen_a, "generation B": gen_b,
                     "claim accepted from": claimants[0] if claimants else "nobody (invalidated)",
                     "t-0 assigned to": holder,
                     "transferring ownership": ("t", 0) in (result.partitions_transferring_ownership or {}),
                     "maxGeneration": result.max_generation})
    return pd.DataFrame(rows)


# -- cooperative ---------------------------------------------------------------------------------------

def cooperative_rounds_table(rounds: Iterable[AssignorResult]) -> pd.DataFrame:
    """One row per member and round: what it holds after the round and what is withheld for it."""
    rows = []
    for i, result in enumerate(rounds, 1):
        for member, tps in result.assignment.items():
            waiting = [tp for tp, m in result.withheld.items() if m == member]
            rows.append({"round": i, "member": member,
                         "assigned": " ".join(f"{t}-{p}" for t, p in tps) or "-",
                         "waits for": " ".join(f"{t}-{p}" for t, p in sorted(waiting)) or ""})
    return pd.DataFrame(rows).set_index(["round", "member"])


def cooperative_rounds(partitions: Mapping[str, int], members: GroupMembers, joined: GroupMembers,
                       left: Sequence[str] = ()
                       ) -> Tuple[Dict[str, List[TopicPartition]], List[AssignorResult]]:
    """Fresh assignment of ``members``, then the cooperative rounds after ``joined`` join / ``left`` leave."""
    members = _members(members)
    start = assign("cooperative-sticky", partitions, members)
    scenario = build_scenario("cooperative-sticky", partitions, rejoin(members, start, 1, left=left, joined=joined))
    return start, rebalance_rounds(scenario)


def eager_vs_cooperative_table(partitions: Mapping[str, int], members: GroupMembers, *, joined: Optional[GroupMembers] = None,
                               left: Sequence[str] = ()) -> pd.DataFrame:
    """What one membership change costs.  Eager (StickyAssignor): every member revokes everything it owns
    before rejoining, one rebalance.  Cooperative (CooperativeStickyAssignor): only partitions changing
    owner are revoked, plus one follow-up rebalance if any were."""
    members = _members(members)
    before = assign("sticky", partitions, members)
    second = rejoin(members, before, 1, left=left, joined=joined)
    after = assign("sticky", partitions, second)
    eager_revoked = sum(len(before[m]) for m in members if m not in left)
    c_before = assign("cooperative-sticky", partitions, members)
    rounds = rebalance_rounds(build_scenario("cooperative-sticky", partitions,
                                                   rejoin(members, c_before, 1, left=left, joined=joined)))
    coop_revoked = sum(len(r.withheld) for r in rounds)
    return pd.DataFrame([
        {"protocol": "eager (sticky)", "partitions revoked": eager_revoked, "rebalances": 1,
         "partitions that change owner": len(moved_partitions({m: v for m, v in before.items() if m not in left},
                                                              after))},
        {"protocol": "cooperative (cooperative-sticky)", "partitions revoked": coop_revoked,
         "rebalances": len(rounds),
         "partitions that change owner": len(moved_partitions({m: v for m, v in c_before.items() if m not in left},
                                                              rounds[-1].assignment))},
    ]).set_index("protocol")


def cooperative_view(members: int = 3, partitions: int = 6, joiners: int = 1
                     ) -> Tuple[pd.DataFrame, Figure, pd.DataFrame]:
    """Static twin of :func:`cooperative_widget`: one topic ``t`` with ``partitions`` partitions read by
    ``members`` members, then ``joiners`` new members join; rounds table, rounds figure, cost table."""
    topic = {"t": partitions}
    group = {f"C{i}": ["t"] for i in range(members)}
    joined = {f"C{members + j}": ["t"] for j in range(joiners)}
    _start, rounds = cooperative_rounds(topic, group, joined)
    fig = rounds_figure(rounds, topic)
    return cooperative_rounds_table(rounds), fig, eager_vs_cooperative_table(topic, group, joined=joined)


def cooperative_widget(members: int = 3, partitions: int = 6, joiners: int = 1) -> ipywidgets.VBox:
    """Interactive :func:`cooperative_view` (figure and tables are widget values, not cell outputs)."""
    import ipywidgets as w

    m = w.IntSlider(value=members, min=1, max=8, description="members")
    p = w.IntSlider(value=partitions, min=1, max=16, description="partitions")
    j = w.IntSlider(value=joiners, min=1, max=4, description="joiners")
    image = w.Image(format="png")
    html = w.HTML()

    def update(*_: object) -> None:
        rounds, fig, cost = cooperative_view(m.value, p.value, j.value)
        image.value = _figure_png(fig)
        html.value = rounds.to_html() + cost.to_html()

    for control in (m, p, j):
        control.observe(update, "value")
    update()
    return w.VBox([w.HBox([m, p, j]), image, html])


__all__ = ["UNEVEN_TOPICS", "UNEVEN_MEMBERS", "rejoin", "sticky_walk", "stickiness_table", "stickiness_view",
           "stickiness_widget", "double_claim_table", "cooperative_rounds_table", "cooperative_rounds",
           "eager_vs_cooperative_table", "cooperative_view", "cooperative_widget", "paused_figure", "moves_table"]
