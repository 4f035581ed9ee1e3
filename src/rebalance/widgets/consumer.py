"""Widgets for the consumer-assignor chapters: set topics (partition counts), members and their
subscriptions, pick one of Kafka's four client-side assignors, and see the assignment as a table and a
heat map.  Every widget has a static twin (:func:`assignment_view`, :func:`rebalance_view`) that the
chapters display with the same defaults, because the static site cannot run widgets.

Text formats used by the widgets (also accepted by :func:`parse_topics` / :func:`parse_members`)::

    topics:   "t0:3, t1:2"
    members:  one line per member, "C0: t0 t1" (a member with no topics: "C2:")
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Collection, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.figure import Figure

from ..common import JsonRecord
from ..consumer import assign
from ..consumer.assignor import ASSIGNORS
from ..errors import InputError
from ..validation import require
from ..viz.assignment import (assignment_table, heatmap_figure, moved_partitions, moves_figure, moves_table,
                              partition_grid_figure)

if TYPE_CHECKING:  # ipywidgets is imported when a widget is built (the book's extra)
    import ipywidgets

    from ..consumer.model import TopicPartition

#: A group as the widgets take it: member id -> its topics, or the member dict :func:`rebalance.consumer.assign`
#: takes (``{"topics": [...], "owned": [...], ...}``).
GroupMembers = Mapping[str, Union[Sequence[str], Mapping[str, Any]]]

DEFAULT_TOPICS = {"topic0": 4, "topic1": 3, "topic2": 2}
DEFAULT_MEMBERS = {"consumer0": ["topic0", "topic1", "topic2"], "consumer1": ["topic0", "topic1"],
                   "consumer2": ["topic2"]}


def parse_topics(text: str) -> Dict[str, int]:
    """``"t0:3, t1:2"`` -> ``{"t0": 3, "t1": 2}``; errors name the field ``topics``."""
    require(isinstance(text, str), "topics", "must be text like 't0:3, t1:2'")
    out: Dict[str, int] = {}
    for item in [x.strip() for x in text.replace(";", ",").split(",") if x.strip()]:
        name, sep, count = item.rpartition(":")
        require(bool(sep) and bool(name.strip()), "topics", f"{item!r} is not 'topic:count'")
        try:
            n = int(count)
        except ValueError:
            raise InputError("topics", f"{item!r}: the partition count must be a whole number") from None
        require(n >= 0, "topics", f"{item!r}: the partition count must not be negative")
        out[name.strip()] = n
    require(bool(out), "topics", "give at least one topic, e.g. 't0:3'")
    return out


def parse_members(text: str) -> Dict[str, List[str]]:
    """One line per member, ``"C0: t0 t1"`` -> ``{"C0": ["t0", "t1"]}``; errors name the field ``members``."""
    require(isinstance(text, str), "members", "must be text with one 'member: topic topic' per line")
    out: Dict[str, List[str]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        name, sep, topics = line.partition(":")
        require(bool(sep) and bool(name.strip()), "members", f"line {number}: {line.strip()!r} is not 'member: topics'")
        require(name.strip() not in out, "members", f"line {number}: member {name.strip()!r} appears twice")
        out[name.strip()] = topics.replace(",", " ").split()
    require(bool(out), "members", "give at least one member, e.g. 'C0: t0'")
    return out


def _members_arg(members: GroupMembers) -> Dict[str, JsonRecord]:
    return {m: (dict(v) if isinstance(v, Mapping) else {"topics": list(v)}) for m, v in members.items()}


def assignment_view(partitions: Optional[Mapping[str, int]] = None, members: Optional[GroupMembers] = None, assignor: str = "range",
                    title: Optional[str] = None, figure: str = "grid") -> Tuple[pd.DataFrame, Figure]:
    """Static twin of :func:`assignment_widget`: the assignment table and a figure (``figure="grid"``: owner
    of each partition; ``"heatmap"``: partitions per member and topic).  ``members`` maps member ids to a
    list of topics or to the dicts :func:`rebalance.consumer.assign` takes."""
    partitions = dict(DEFAULT_TOPICS if partitions is None else partitions)
    members = _members_arg(DEFAULT_MEMBERS if members is None else members)
    result = assign(assignor, partitions, members)
    table = assignment_table(result, topics=list(partitions))
    title = title or f"{assignor}: {len(partitions)} topics, {len(members)} members"
    if figure == "heatmap":
        fig = heatmap_figure(result, topics=list(partitions), title=title)
    else:
        fig = partition_grid_figure(result, partitions, title=title, members=list(members))
    return table, fig


def _figure_html(fig: Figure) -> str:
    """A figure as an inline PNG ``<img>`` (closes the figure).  The widgets render into ``HTML`` widgets
    rather than ``Output`` widgets, so executing a chapter never routes figures into cell outputs."""
    import base64
    import io

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    plt.close(fig)
    return f'<img src="data:image/png;base64,{base64.b64encode(buffer.getvalue()).decode()}"/>'


def _group_boxes(partitions: Optional[Mapping[str, int]], members: Optional[GroupMembers]) -> Tuple[Any, Any]:
    """The editable ``topic:count`` line and ``member: topics`` lines of the consumer-group widgets, filled
    with ``partitions`` and ``members`` (default: the chapters' group)."""
    import ipywidgets as w

    partitions = dict(DEFAULT_TOPICS if partitions is None else partitions)
    members = DEFAULT_MEMBERS if members is None else members
    topics_box = w.Text(value=", ".join(f"{t}:{n}" for t, n in partitions.items()), description="topics",
                        layout=w.Layout(width="60%"))
    member_lines = "\n".join(f"{m}: {' '.join(v if not isinstance(v, Mapping) else v['topics'])}"
                             for m, v in members.items())
    members_box = w.Textarea(value=member_lines, description="members", layout=w.Layout(width="60%", height="8em"))
    return topics_box, members_box


def _live_view(controls: Sequence[Any], render: Callable[[], str]) -> ipywidgets.VBox:
    """``controls`` above an HTML output that ``render()`` fills now and again whenever a control changes;
    bad input shows its ``InputError`` instead."""
    import ipywidgets as w

    out = w.HTML()

    def update(*_: object) -> None:
        try:
            out.value = render()
        except InputError as exc:
            out.value = f"<pre>error: {exc}</pre>"

    for control in controls:
        control.observe(update, "value")
    update()
    return w.VBox([*controls, out])


def _display(*objs: object) -> None:
    from IPython.display import display

    for obj in objs:
        display(obj)  # type: ignore[no-untyped-call]  # IPython's display is not annotated


def show_assignment(partitions: Optional[Mapping[str, int]] = None, members: Optional[GroupMembers] = None, assignor: str = "range",
                    title: Optional[str] = None, figure: str = "grid") -> None:
    """Display :func:`assignment_view`: the figure, then the table (returns nothing, so a notebook cell
    that ends with this call shows each output once)."""
    table, fig = assignment_view(partitions, members, assignor, title, figure)
    plt.show()
    _display(table)


def assignment_widget(partitions: Optional[Mapping[str, int]] = None, members: Optional[GroupMembers] = None, assignor: str = "range"
                      ) -> ipywidgets.VBox:
    """Interactive: edit topics and subscriptions, choose the assignor, see table + grid + heat map.
    Returns the widget (display it as the cell's value)."""
    import ipywidgets as w

    topics_box, members_box = _group_boxes(partitions, members)
    choice = w.Dropdown(options=list(ASSIGNORS), value=assignor, description="assignor")

    def render() -> str:
        ps, ms = parse_topics(topics_box.value), parse_members(members_box.value)
        table, fig = assignment_view(ps, ms, choice.value)
        heat = heatmap_figure(assign(choice.value, ps, _members_arg(ms)), topics=list(ps))
        html: str = _figure_html(fig) + _figure_html(heat) + table.to_html()
        return html

    return _live_view([topics_box, members_box, choice], render)


# -- a rebalance: a member joins or leaves ------------------------------------------------------------

def membership_rounds(assignor: str, partitions: Mapping[str, int], members: GroupMembers, *,
                      joined: Optional[GroupMembers] = None, left: Sequence[str] = (), generation: int = 1,
                      max_rounds: int = 5) -> Tuple[Dict[str, List[TopicPartition]], List[Dict[str, List[TopicPartition]]]]:
    """The assignment before a membership change and after each rebalance that follows it.

    ``before`` is a fresh assignment of ``members``.  Then every remaining member reports what it owns
    (``ownedPartitions`` = its current list, ``generationId`` = the generation), the members in ``left``
    are gone, the members in ``joined`` arrive with nothing, and the same assignor runs.  The eager
    assignors (Range, RoundRobin, Sticky) finish in one rebalance.  ``cooperative-sticky`` withholds the
    partitions that change owner (KIP-429: they are only revoked); the members that lost them rejoin at
    once, and the follow-up rebalance hands them out -- so it usually takes two rounds."""
    from ..consumer.api import build_scenario
    from ..consumer.rounds import rebalance_rounds

    members = _members_arg(members)
    before = assign(assignor, partitions, members)
    current: Dict[str, JsonRecord] = {m: spec for m, spec in members.items() if m not in left}
    current.update(_members_arg(joined or {}))
    specs = {m: dict(spec, owned=list(before.get(m, [])), generation=generation) if m in before else dict(spec)
             for m, spec in current.items()}
    results = rebalance_rounds(build_scenario(assignor, partitions, specs), max_rounds=max_rounds)
    rounds: List[Dict[str, List[TopicPartition]]] = [{m: list(r.assignment.get(m, [])) for m in current} for r in results]
    return before, rounds


def membership_change(assignor: str, partitions: Mapping[str, int], members: GroupMembers, *,
                      joined: Optional[GroupMembers] = None, left: Sequence[str] = (), generation: int = 1,
                      settle: bool = False) -> Tuple[Dict[str, List[TopicPartition]], Dict[str, List[TopicPartition]]]:
    """Before and after a membership change (see :func:`membership_rounds`).  ``after`` is the result of
    the first rebalance, or with ``settle=True`` of the last one (what cooperative-sticky reaches after
    its follow-up rebalance; the same for the eager assignors)."""
    before, rounds = membership_rounds(assignor, partitions, members, joined=joined, left=left,
                                       generation=generation)
    return before, (rounds[-1] if settle else rounds[0])


def rebalance_view(assignor: str, partitions: Mapping[str, int], members: GroupMembers, *,
                   joined: Optional[GroupMembers] = None, left: Sequence[str] = (), title: Optional[str] = None
                   ) -> Tuple[pd.DataFrame, Figure, List[TopicPartition]]:
    """Static before/after: the :func:`rebalance.viz.assignment.moves_table` and the moves figure."""
    before, after = membership_change(assignor, partitions, members, joined=joined, left=left)
    change = []
    if joined:
        change.append(f"{', '.join(joined)} join{'s' if len(joined) == 1 else ''}")
    if left:
        change.append(f"{', '.join(left)} leave{'s' if len(left) == 1 else ''}")
    title = title or f"{assignor}: {' and '.join(change) or 'no change'}"
    fig = moves_figure(before, after, partitions, title=title)
    return moves_table(before, after), fig, moved_partitions(before, after)


def show_rebalance(assignor: str = "range", partitions: Optional[Mapping[str, int]] = None, members: Optional[GroupMembers] = None, *,
                   joined: Optional[GroupMembers] = None, left: Sequence[str] = (), title: Optional[str] = None
                   ) -> None:
    """Display :func:`rebalance_view` (figure, table, moved count).  With no ``joined``/``left`` it shows
    the default of :func:`rebalance_widget`: a member ``newcomer`` subscribed to every topic joins."""
    partitions = dict(DEFAULT_TOPICS if partitions is None else partitions)
    members = DEFAULT_MEMBERS if members is None else members
    if not joined and not left:
        joined = {"newcomer": {"topics": list(partitions)}}
    table, fig, moved = rebalance_view(assignor, partitions, members, joined=joined, left=left, title=title)
    plt.show()
    _display(table)
    listed = ", ".join(f"{t}-{p}" for t, p in moved[:12]) + (", ..." if len(moved) > 12 else "")
    print(f"{len(moved)} partition(s) change owner" + (f": {listed}" if moved else ""))


def rebalance_widget(partitions: Optional[Mapping[str, int]] = None, members: Optional[GroupMembers] = None, assignor: str = "range"
                     ) -> ipywidgets.VBox:
    """Interactive: add one member (subscribed to every topic) or remove one, and see what moves."""
    import ipywidgets as w

    partitions = dict(DEFAULT_TOPICS if partitions is None else partitions)
    members = _members_arg(DEFAULT_MEMBERS if members is None else members)
    choice = w.Dropdown(options=list(ASSIGNORS), value=assignor, description="assignor")
    change = w.Dropdown(options=["a new member joins"] + [f"{m} leaves" for m in members], description="change")

    def render() -> str:
        if change.value == "a new member joins":
            kwargs: Dict[str, Any] = {"joined": {"newcomer": {"topics": list(partitions)}}}
        else:
            kwargs = {"left": [change.value.rsplit(" ", 1)[0]]}
        table, fig, moved = rebalance_view(choice.value, partitions, members, **kwargs)
        html: str = _figure_html(fig) + table.to_html() + f"<p>{len(moved)} partition(s) change owner</p>"
        return html

    return _live_view([choice, change], render)


# -- static tables for the chapters: cost and comparison ----------------------------------------------

def synthetic_group(n_topics: int, partitions_per_topic: int, n_members: int, subscription: str = "all",
                    seed: int = 0) -> Tuple[Dict[str, int], Dict[str, JsonRecord]]:
    """A seeded test group: ``n_topics`` topics ``t000..`` of ``partitions_per_topic`` partitions and
    ``n_members`` members ``m000..``; ``subscription="all"`` subscribes everyone to everything, ``"half"``
    gives each member a seeded random half of the topics (at least one)."""
    import random

    require(subscription in ("all", "half"), "subscription", "must be 'all' or 'half'")
    rnd = random.Random(seed)
    topics = {f"t{i:03d}": partitions_per_topic for i in range(n_topics)}
    names = list(topics)
    members: Dict[str, JsonRecord] = {}
    for m in range(n_members):
        chosen = names if subscription == "all" else [t for t in names if rnd.random() < 0.5]
        members[f"m{m:03d}"] = {"topics": list(chosen or [names[m % len(names)]])}
    return topics, members


def cost_table(assignor: str, sizes: Sequence[Tuple[int, int, int]], subscription: str = "all",
               seed: int = 0) -> pd.DataFrame:
    """For each ``(topics, partitions per topic, members)`` run ``assignor`` once on :func:`synthetic_group`
    and report the work it *counted* (no timings): partitions dealt, member-topic pairs (Range) or
    skipped peeks (RoundRobin), plus the spread and the number of idle members."""
    from ..consumer.api import build_scenario, run_assignor

    rows = []
    for n_topics, per_topic, n_members in sizes:
        partitions, members = synthetic_group(n_topics, per_topic, n_members, subscription, seed)
        result = run_assignor(build_scenario(assignor, partitions, members))
        counts = [len(v) for v in result.assignment.values()]
        row = {"topics": n_topics, "partitions/topic": per_topic, "members": n_members,
               "partitions": n_topics * per_topic}
        for key, value in getattr(result, "counters", {}).items():
            if key not in ("partitions", "members", "topics"):
                row[key.replace("_", " ")] = value
        row["max - min"] = max(counts) - min(counts)
        row["idle members"] = sum(1 for c in counts if c == 0)
        rows.append(row)
    return pd.DataFrame(rows)


def compare_assignors(partitions: Mapping[str, int], members: GroupMembers, *, joined: Optional[GroupMembers] = None,
                      left: Sequence[str] = (), assignors: Collection[str] = ASSIGNORS) -> pd.DataFrame:
    """One row per assignor on the same group: balance of the first assignment, then what a membership
    change (``joined`` / ``left``) costs once the group has settled: how many rebalances it took
    (cooperative-sticky needs a follow-up one), partitions that change owner, partitions revoked from
    members that stay, and the balance afterwards."""
    rows = []
    for name in assignors:
        before, rounds = membership_rounds(name, partitions, members, joined=joined, left=left)
        after = rounds[-1]
        counts = [len(v) for v in before.values()]
        after_counts = [len(v) for v in after.values()]
        stayed = [m for m in before if m in after]
        revoked = sum(len(set(before[m]) - set(after[m])) for m in stayed)
        rows.append({"assignor": name, "max - min": max(counts) - min(counts),
                     "idle members": sum(1 for c in counts if c == 0),
                     "rebalances": len(rounds),
                     "change owner": len(moved_partitions(before, after)),
                     "revoked from staying members": revoked,
                     "after: max - min": max(after_counts) - min(after_counts),
                     "after: idle members": sum(1 for c in after_counts if c == 0)})
    return pd.DataFrame(rows).set_index("assignor")


def movement_table(sizes: Sequence[Tuple[int, int, int]], assignors: Collection[str] = ASSIGNORS,
                   change: str = "join", subscription: str = "all", seed: int = 0) -> pd.DataFrame:
    """Partitions that change owner when one member joins (``change="join"``: a member subscribed to every
    topic) or the last member leaves (``"leave"``), for :func:`synthetic_group` of each
    ``(topics, partitions per topic, members)``, once the group has settled (cooperative-sticky's follow-up
    rebalance included); one column per assignor, and for a join the newcomer's fair share (the fewest
    partitions any balanced result must move)."""
    require(change in ("join", "leave"), "change", "must be 'join' or 'leave'")
    rows = []
    for n_topics, per_topic, n_members in sizes:
        partitions, members = synthetic_group(n_topics, per_topic, n_members, subscription, seed)
        total = n_topics * per_topic
        row = {"topics": n_topics, "partitions/topic": per_topic, "members": n_members, "partitions": total}
        for name in assignors:
            if change == "join":
                before, after = membership_change(name, partitions, members, settle=True,
                                                  joined={"zz-newcomer": {"topics": list(partitions)}})
            else:
                before, after = membership_change(name, partitions, members, settle=True,
                                                  left=[list(members)[-1]])
            row[name] = len(moved_partitions(before, after))
        if change == "join" and subscription == "all":
            row["fair share"] = total // (n_members + 1)
        rows.append(row)
    return pd.DataFrame(rows)


def comparison_view(partitions: Optional[Mapping[str, int]] = None, members: Optional[GroupMembers] = None, *,
                    joined: Optional[GroupMembers] = None, left: Sequence[str] = (),
                    assignors: Collection[str] = ASSIGNORS, title: Optional[str] = None
                    ) -> Tuple[pd.DataFrame, Figure]:
    """Static twin of :func:`comparison_widget`: :func:`compare_assignors` and a bar chart of each
    member's partitions after the (settled) membership change under every assignor."""
    from ..viz.assignment import compare_counts_figure

    partitions = dict(DEFAULT_TOPICS if partitions is None else partitions)
    members = DEFAULT_MEMBERS if members is None else members
    if not joined and not left:
        joined = {"newcomer": {"topics": list(partitions)}}
    table = compare_assignors(partitions, members, joined=joined, left=left, assignors=assignors)
    afters = {name: membership_change(name, partitions, members, joined=joined, left=left, settle=True)[1]
              for name in assignors}
    change = []
    if joined:
        change.append(f"{', '.join(joined)} join{'s' if len(joined) == 1 else ''}")
    if left:
        change.append(f"{', '.join(left)} leave{'s' if len(left) == 1 else ''}")
    fig = compare_counts_figure(afters, title=title or f"Partitions per member after: {' and '.join(change)}")
    return table, fig


def show_comparison(partitions: Optional[Mapping[str, int]] = None, members: Optional[GroupMembers] = None, *,
                    joined: Optional[GroupMembers] = None, left: Sequence[str] = (),
                    assignors: Collection[str] = ASSIGNORS, title: Optional[str] = None) -> None:
    """Display :func:`comparison_view` (figure, then table)."""
    table, fig = comparison_view(partitions, members, joined=joined, left=left, assignors=assignors, title=title)
    plt.show()
    _display(table)


def comparison_widget(partitions: Optional[Mapping[str, int]] = None, members: Optional[GroupMembers] = None) -> ipywidgets.VBox:
    """Interactive: edit topics and subscriptions, pick a membership change, compare all four assignors."""
    import ipywidgets as w

    topics_box, members_box = _group_boxes(partitions, members)
    change = w.Text(value="join newcomer", description="change",
                    placeholder="'join NAME' (subscribes to every topic) or 'leave NAME'")

    def render() -> str:
        ps, ms = parse_topics(topics_box.value), parse_members(members_box.value)
        verb, _, name = change.value.strip().partition(" ")
        require(verb in ("join", "leave") and name.strip(), "change", "write 'join NAME' or 'leave NAME'")
        name = name.strip()
        if verb == "join":
            require(name not in ms, "change", f"{name!r} is already a member")
            kwargs: Dict[str, Any] = {"joined": {name: {"topics": list(ps)}}}
        else:
            require(name in ms, "change", f"{name!r} is not a member")
            kwargs = {"left": [name]}
        table, fig = comparison_view(ps, ms, **kwargs)
        html: str = _figure_html(fig) + table.to_html()
        return html

    return _live_view([topics_box, members_box, change], render)


def show_moves_comparison(partitions: Optional[Mapping[str, int]] = None, members: Optional[GroupMembers] = None, *,
                          joined: Optional[GroupMembers] = None, left: Sequence[str] = (),
                          assignors: Collection[str] = ASSIGNORS, title: Optional[str] = None) -> None:
    """Display, for every assignor, the partition grids before and after a membership change (settled:
    cooperative-sticky's follow-up rebalance included), partitions that change owner framed."""
    from ..viz.assignment import compare_moves_figure

    partitions = dict(DEFAULT_TOPICS if partitions is None else partitions)
    members = DEFAULT_MEMBERS if members is None else members
    if not joined and not left:
        joined = {"newcomer": {"topics": list(partitions)}}
    results = {name: membership_change(name, partitions, members, joined=joined, left=left, settle=True)
               for name in assignors}
    compare_moves_figure(results, partitions, title=title or "")
    plt.show()
