"""The reusable consumer figures, tables and widgets (rebalance.viz.assignment, rebalance.widgets.consumer)."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from rebalance.consumer import assign  # noqa: E402
from rebalance.errors import InputError  # noqa: E402
from rebalance.viz import assignment as viz  # noqa: E402
from rebalance.widgets import consumer as widgets  # noqa: E402

UNEVEN = {"consumer0": {"topics": ["topic0", "topic1", "topic2"]}, "consumer1": {"topics": ["topic0", "topic1"]},
        "consumer2": {"topics": ["topic2"]}}
TOPICS = {"topic0": 4, "topic1": 3, "topic2": 2}


def test_assignment_table_and_count_matrix():
    result = assign("roundrobin", TOPICS, UNEVEN)
    table = viz.assignment_table(result, topics=list(TOPICS))
    assert list(table.index) == ["consumer0", "consumer1", "consumer2"]
    assert table.loc["consumer0", "partitions"] == 5
    assert table.loc["consumer0", "assigned"] == "topic0[0,2] topic1[0,2] topic2[1]"
    matrix = viz.count_matrix(result, list(TOPICS))
    assert matrix.loc["consumer2"].tolist() == [0, 0, 1]
    assert matrix.to_numpy().sum() == 9
    assert viz.spread(result) == 4


def test_moves_table_and_moved_partitions():
    before = {"A": [("t", 0), ("t", 1)], "B": [("t", 2)]}
    after = {"A": [("t", 0)], "B": [("t", 2)], "C": [("t", 1)]}
    table = viz.moves_table(before, after)
    assert table.loc["A"].tolist() == [2, 1, 1, 1, 0]
    assert table.loc["C"].tolist() == [0, 1, 0, 0, 1]
    assert viz.moved_partitions(before, after) == [("t", 1)]


def test_figures_render():
    result = assign("range", TOPICS, UNEVEN)
    for fig in (viz.heatmap_figure(result), viz.partition_grid_figure(result, TOPICS),
                viz.moves_figure(result, assign("roundrobin", TOPICS, UNEVEN), TOPICS),
                viz.compare_counts_figure({"range": result, "rr": assign("roundrobin", TOPICS, UNEVEN)})):
        assert fig.axes
        plt.close(fig)


def test_membership_change_range_moves_partitions_to_a_newcomer():
    before, after = widgets.membership_change("range", {"t0": 7}, {"C0": ["t0"], "C1": ["t0"], "C2": ["t0"]},
                                              joined={"C3": ["t0"]})
    assert before["C0"] == [("t0", 0), ("t0", 1), ("t0", 2)]
    assert after == {"C0": [("t0", 0), ("t0", 1)], "C1": [("t0", 2), ("t0", 3)], "C2": [("t0", 4), ("t0", 5)],
                     "C3": [("t0", 6)]}
    table, fig, moved = widgets.rebalance_view("range", {"t0": 7}, {"C0": ["t0"], "C1": ["t0"], "C2": ["t0"]},
                                               joined={"C3": ["t0"]})
    plt.close(fig)
    assert moved == [("t0", 2), ("t0", 4), ("t0", 6)]
    assert table["revoked"].sum() == 3


def test_parsers_name_their_field():
    assert widgets.parse_topics("t0:3, t1 : 2") == {"t0": 3, "t1": 2}
    assert widgets.parse_members("C0: t0 t1\n\nC1: t1\nC2:") == {"C0": ["t0", "t1"], "C1": ["t1"], "C2": []}
    for bad in ("t0", "t0:x", "t0:-1", ""):
        with pytest.raises(InputError) as info:
            widgets.parse_topics(bad)
        assert info.value.field == "topics"
    for bad in ("C0 t0", "C0: t0\nC0: t1", ""):
        with pytest.raises(InputError) as info:
            widgets.parse_members(bad)
        assert info.value.field == "members"


def test_static_views_and_widgets_build():
    table, fig = widgets.assignment_view(assignor="range")
    plt.close(fig)
    assert table.loc["consumer2", "partitions"] == 1
    pytest.importorskip("ipywidgets")
    box = widgets.assignment_widget(assignor="roundrobin")
    assert len(box.children) == 4
    box = widgets.rebalance_widget()
    assert len(box.children) == 3
    plt.close("all")


def test_cooperative_sticky_needs_a_follow_up_rebalance():
    group = {"C0": ["orders", "payments"], "C1": ["orders", "payments"], "C2": ["orders", "payments"]}
    partitions = {"orders": 6, "payments": 6}
    joined = {"C3": ["orders", "payments"]}
    before, rounds = widgets.membership_rounds("cooperative-sticky", partitions, group, joined=joined)
    assert len(rounds) == 2
    assert rounds[0]["C3"] == []  # first round: partitions are only revoked
    assert len(rounds[1]["C3"]) == 3
    _, eager_rounds = widgets.membership_rounds("sticky", partitions, group, joined=joined)
    assert len(eager_rounds) == 1
    # both sticky assignors settle on a result that moves only the newcomer's fair share
    assert len(viz.moved_partitions(before, rounds[-1])) == 3


def test_compare_assignors_and_movement_tables():
    group = {"C0": ["orders", "payments"], "C1": ["orders", "payments"], "C2": ["orders", "payments"],
             "C3": ["orders", "payments"]}
    table = widgets.compare_assignors({"orders": 6, "payments": 6}, group, left=["C1"])
    assert table.loc["sticky", "change owner"] == 3
    assert table.loc["sticky", "revoked from staying members"] == 0
    assert table.loc["roundrobin", "change owner"] == 9
    assert table.loc["cooperative-sticky", "rebalances"] == 1
    joins = widgets.movement_table([(2, 6, 3), (10, 10, 10)], change="join")
    assert joins["sticky"].tolist() == joins["fair share"].tolist() == [3, 9]
    assert joins["range"].tolist()[1] == 0  # the newcomer is idle under Range
    cost = widgets.cost_table("range", [(10, 10, 20)])
    assert cost.loc[0, "idle members"] == 10 and cost.loc[0, "member topic pairs"] == 200


def test_co_partitioned():
    members = {m: {"topics": ["orders", "payments"]} for m in ["C0", "C1", "C2"]}
    assert viz.co_partitioned(assign("range", {"orders": 4, "payments": 4}, members), ["orders", "payments"])
    assert not viz.co_partitioned(assign("roundrobin", {"orders": 4, "payments": 4}, members),
                                  ["orders", "payments"])


def test_comparison_view_and_widget():
    table, fig = widgets.comparison_view()
    plt.close(fig)
    assert list(table.index) == ["range", "roundrobin", "sticky", "cooperative-sticky"]
    pytest.importorskip("ipywidgets")
    box = widgets.comparison_widget()
    box.children[2].value = "leave consumer9"
    assert "error: change" in box.children[3].value
    box.children[2].value = "leave consumer1"
    assert "<table" in box.children[3].value
    plt.close("all")


def test_compare_moves_figure_and_show(monkeypatch):
    group = {"C0": ["orders", "payments"], "C1": ["orders", "payments"], "C2": ["orders", "payments"]}
    results = {name: widgets.membership_change(name, {"orders": 6, "payments": 6}, group,
                                               joined={"C3": ["orders", "payments"]}, settle=True)
               for name in ("range", "sticky")}
    fig = viz.compare_moves_figure(results, {"orders": 6, "payments": 6}, title="t")
    assert len(fig.axes) == 4
    assert fig.axes[3].get_title() == "sticky: after, 3 change owner"
    plt.close(fig)
    monkeypatch.setattr(plt, "show", lambda *a, **k: None)
    widgets.show_moves_comparison(assignors=("roundrobin",))
    plt.close("all")
