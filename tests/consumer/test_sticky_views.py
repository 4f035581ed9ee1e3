"""The sticky chapters' figures, tables and widgets: they run, and the numbers they show are the
assignors' (no assignment is decided in these modules)."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

from rebalance.consumer.abstract_sticky import balance_score  # noqa: E402
from rebalance.viz.sticky import assignment_text, rounds_figure, trace_table, walk_figure  # noqa: E402
from rebalance.widgets.sticky import (UNEVEN_TOPICS, cooperative_view, cooperative_widget,  # noqa: E402
                                      double_claim_table, eager_vs_cooperative_table, stickiness_table,
                                      stickiness_view, stickiness_widget, sticky_walk)


def teardown_function(_):
    plt.close("all")


def test_walk_trace_and_figure():
    first, second = sticky_walk()
    table = trace_table(second)
    assert list(table["partitions"]) == ["t0-0", "t0-1"]
    assert list(table["member"]) == ["consumer0 -> consumer3", "consumer1 -> consumer3"]
    fig = walk_figure(second.owned, second, UNEVEN_TOPICS)
    assert len(fig.axes) >= 3   # start + two moves (+ legend)
    assert balance_score(second.assignment) < balance_score(second.owned)


def test_stickiness_table_ranks_the_sticky_assignors_first():
    partitions = {"t0": 6, "t1": 6, "t2": 6}
    members = {f"C{i}": list(partitions) for i in range(4)}
    table = stickiness_table(partitions, members, joined={"C4": list(partitions)})
    moved = table["partitions that change owner"]
    # the newcomer needs floor(18/5) = 3 partitions; the sticky assignors move exactly those
    assert moved["sticky"] == moved["cooperative-sticky"] == 3
    assert moved["range"] > 3 and moved["roundrobin"] > 3
    assert (table["spread after"] <= 1).loc[["roundrobin", "sticky", "cooperative-sticky"]].all()
    view_table, _fig = stickiness_view()
    assert view_table.equals(table)


def test_double_claims():
    table = double_claim_table()
    assert list(table["t-0 assigned to"][:2]) == ["B", "A"]          # the higher generation keeps it
    assert table["claim accepted from"][2] == "nobody (invalidated)"
    assert bool(table["transferring ownership"][2])


def test_cooperative_views():
    rounds_table, fig, cost = cooperative_view(members=3, partitions=6, joiners=1)
    assert rounds_table.loc[(1, "C3"), "waits for"] == "t-5"
    assert rounds_table.loc[(2, "C3"), "assigned"] == "t-5"
    assert cost.loc["eager (sticky)", "partitions revoked"] == 6
    assert cost.loc["cooperative (cooperative-sticky)", "partitions revoked"] == 1
    assert cost["rebalances"].tolist() == [1, 2]
    eager = eager_vs_cooperative_table({"t": 8}, {"A": ["t"], "B": ["t"]}, left=["B"])
    assert eager.loc["cooperative (cooperative-sticky)", "partitions revoked"] == 0


def test_assignment_text_keeps_list_order():
    assert assignment_text({"C0": [("t", 2), ("t", 0)], "C1": []}) == "C0: t-2 t-0 | C1: -"


def test_rounds_figure_frames_the_plan():
    from rebalance.consumer.api import build_scenario
    from rebalance.consumer.rounds import rebalance_rounds

    rounds = rebalance_rounds(build_scenario("cooperative-sticky", {"t": 2}, {
        "a": {"topics": ["t"], "owned": [("t", 0), ("t", 1)], "generation": 1}, "b": {"topics": ["t"]}}))
    assert [r.withheld for r in rounds] == [{("t", 1): "b"}, {}]
    fig = rounds_figure(rounds, {"t": 2})
    assert [ax.get_title() for ax in fig.axes[:3]] == ["round 1: plan", "round 1: assigned now",
                                                      "round 2: assigned now"]


def test_widgets_build():
    assert stickiness_widget().children
    assert cooperative_widget().children
