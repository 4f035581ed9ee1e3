"""The "Spark-scale exercise" sections of chapters 04 (sticky) and 05 (cooperative sticky) read the sweep's
``by_subscriptions`` table.  These tests rerun the chapters' calls (same scale, seed and parameters) and
check the properties their sentences rely on, so that a change in the sweep job or in the assignors that
would make a chapter's reading wrong fails here, not silently in the book.  (``nbval`` checks the printed
tables; this checks what the prose says about them.)
"""
import pytest

from rebalance.spark import exercise
from rebalance.spark.generators import sweep_scenario
from rebalance.spark.jobs.sweep import churn_table

pytestmark = [pytest.mark.spark, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

GROUPS = 400  # the chapters' scale


def _rows(frame):
    return {(r.assignor, bool(r.identical)): r for r in frame.itertuples(index=False)}


def test_chapter_04_sticky_moves_little_and_balances_better():
    """Chapter 04: with equal subscriptions RoundRobin and Sticky are equally (perfectly) balanced, RoundRobin
    moves several times the departed member's partitions, Sticky almost only those; with skewed
    subscriptions Sticky moves about half a partition extra (RoundRobin over 10) and its balance score is
    about half of RoundRobin's and Range's."""
    t = _rows(exercise("sweep", scale=GROUPS, seed=0, assignors=("range", "roundrobin", "sticky"),
                       table="by_subscriptions", local=True))
    rr, st = t[("roundrobin", True)], t[("sticky", True)]
    assert rr.p_balanced == st.p_balanced == 1.0
    assert rr.mean_balance_score == st.mean_balance_score
    assert rr.mean_moved > 4 * rr.mean_orphaned
    assert st.mean_extra_moves < 0.05 and st.p_no_extra_moves >= 0.95
    assert st.mean_moved < t[("range", True)].mean_moved < rr.mean_moved  # Range lies in between
    rr, st, rg = t[("roundrobin", False)], t[("sticky", False)], t[("range", False)]
    assert 0.3 < st.mean_extra_moves < 0.7 and rr.mean_extra_moves > 10
    assert st.mean_balance_score < 0.55 * min(rr.mean_balance_score, rg.mean_balance_score)
    assert all(r.incomplete == 0 for r in t.values())


def test_chapter_04_exercise_roundrobin_cost_grows_with_the_group():
    """The exercise's solution (at a smaller scale): in larger groups RoundRobin's moves per needed move
    grow, Sticky's stay near 1 with equal subscriptions, and with skewed subscriptions Sticky moves
    nothing extra in fewer groups than in the small groups."""
    small = _rows(exercise("sweep", scale=GROUPS, seed=0, assignors=("roundrobin", "sticky"),
                           table="by_subscriptions", local=True))
    big = _rows(exercise("sweep", scale=200, seed=0, assignors=("roundrobin", "sticky"), table="by_subscriptions",
                         min_members=3, max_members=50, max_topics=20, max_partitions=50, local=True))

    def ratio(r):
        return r.mean_moved / r.mean_orphaned

    assert ratio(big[("roundrobin", True)]) > 2 * ratio(small[("roundrobin", True)])
    assert ratio(big[("sticky", True)]) < 1.1
    assert big[("sticky", False)].p_no_extra_moves < small[("sticky", False)].p_no_extra_moves
    assert big[("sticky", False)].mean_moved < big[("roundrobin", False)].mean_moved / 3


def test_chapter_05_cooperative_same_plan_more_rounds():
    """Chapter 05: cooperative-sticky ends as balanced as sticky and moves about the same partitions; it
    needs follow-up rebalances (about one per five skewed groups, one per forty equal ones), and the
    partitions waiting in between are about the extra moves, not the departed member's partitions."""
    t = _rows(exercise("sweep", scale=GROUPS, seed=0, assignors=("sticky", "cooperative-sticky"),
                       table="by_subscriptions", local=True))
    for identical in (False, True):
        st, co = t[("sticky", identical)], t[("cooperative-sticky", identical)]
        assert st.mean_balance_score == co.mean_balance_score
        assert abs(st.mean_moved - co.mean_moved) < 0.05
        assert st.mean_rounds == 1.0 and st.mean_unowned_between == 0.0
        assert abs(co.mean_unowned_between - co.mean_extra_moves) < 0.05
        assert co.mean_unowned_between < co.mean_orphaned / 5
    assert 1.15 < t[("cooperative-sticky", False)].mean_rounds < 1.3
    assert 1.0 < t[("cooperative-sticky", True)].mean_rounds < 1.05


def test_chapter_05_group_25_needs_three_rebalances():
    """Chapter 05's replay: group 25 (eight members, two racks, consumer-2 leaves) settles only in the third
    rebalance; consumer-8 takes the nine topic-c partitions and revokes four topic-d partitions first."""
    group = sweep_scenario(0, 25)
    assert len(group.members) == 8 and group.racks == 2 and not group.identical_subscriptions
    assert group.leaver.startswith("consumer-2-")
    readers_c = [m for m, spec in group.members.items() if "topic-c" in spec["topics"]]
    assert len(readers_c) == 2 and group.leaver in readers_c
    replay = churn_table(0, 25, "cooperative-sticky")
    assert list(replay["rebalance"]) == [1, 2, 3]
    assert list(replay["assigned"]) == ["62/67", "66/67", "67/67"]
    first, second, third = replay.to_dict("records")
    assert first["gained"].count("topic-c-") == 9 and first["gained"].startswith("consumer-8: ")
    assert "consumer-8: topic-d-10 topic-d-13 topic-d-16 topic-d-19" in first["revoked"]
    assert "consumer-4: topic-b-7" in first["revoked"]
    assert second["revoked"] == "consumer-4: topic-b-9" and third["gained"] == "consumer-1: topic-b-9"


def test_chapter_05_exercise_no_racks_one_rebalance():
    """The exercise's solution: without rack ids, equal subscriptions after a departure need exactly one
    rebalance and move only the departed member's partitions; skewed ones still need follow-ups."""
    t = _rows(exercise("sweep", scale=2_000, seed=0, assignors=("sticky", "cooperative-sticky"),
                       table="by_subscriptions", rack_choices=(0,), local=True))
    for assignor in ("sticky", "cooperative-sticky"):
        r = t[(assignor, True)]
        assert r.mean_rounds == 1.0 and r.mean_extra_moves == 0.0 and r.mean_unowned_between == 0.0
        assert r.mean_moved == r.mean_orphaned
    assert t[("cooperative-sticky", False)].mean_rounds > 1.1
