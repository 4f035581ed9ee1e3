"""The "Spark-scale exercise" sections of chapters 02 (Range), 03 (RoundRobin) and 06 (choosing an
assignor) read the scenario sweep's summary tables.  These tests rerun the chapters' calls (same scale,
seed and parameters; the solutions' runs at a smaller scale) and check the properties the chapters'
sentences rely on, so that a change in the sweep job or in the assignors that would make a chapter's
reading wrong fails here rather than silently in the book.  (``nbval`` checks the printed tables; this
checks what the prose says about them.)  Some checks are theorems about Kafka's assignors (RoundRobin
with identical subscriptions never leaves a member idle while there are enough partitions; the sticky
assignors move only the departed member's partitions when all subscriptions are identical and there are
no racks) and must hold at any scale.
"""
import pytest

from rebalance.spark import single_process as local
from rebalance.spark import exercise
from rebalance.spark.generators import SweepParams

pytestmark = [pytest.mark.spark, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

GROUPS = 1_000  # the chapters' scale
#: chapter 02's group shape: identical subscriptions, no racks, up to 20 members, 5 topics, 16 partitions
RANGE_SHAPE = dict(p_identical=1.0, rack_choices=(0,), max_members=20, max_topics=5, max_partitions=16)


def _by(frame, *keys):
    return {tuple(getattr(r, k) if k != "identical" else bool(getattr(r, k)) for k in keys): r
            for r in frame.itertuples(index=False)}


def test_chapter_02_range_idle_despite_enough_partitions():
    """Chapter 02: Range leaves a member idle in about 40% of the groups and in over a quarter of those
    with a partition for everyone; RoundRobin never does the latter, is always balanced, and its idle
    groups are fewer than half of Range's."""
    t = _by(exercise("sweep", scale=GROUPS, seed=0, assignors=("range", "roundrobin"), local=True,
                     **RANGE_SHAPE), "assignor")
    rg, rr = t[("range",)], t[("roundrobin",)]
    assert rr.p_idle_despite_enough == 0.0 and rr.p_balanced == 1.0
    assert 0.35 < rg.p_idle < 0.45 and 0.25 < rg.p_idle_despite_enough < 0.32
    assert rr.p_idle < rg.p_idle / 2
    assert rg.p_balanced < 0.3 and rg.mean_spread > 2.5 > 1 > rr.mean_spread
    assert rg.incomplete == 0 and rr.incomplete == 0


def test_chapter_02_exercise_single_topic_range_equals_roundrobin():
    """Solution (a): with one topic and identical subscriptions, Range and RoundRobin give the same
    balance figures, and nobody is idle in a group with enough partitions (plain-Python path, smaller scale)."""
    params = SweepParams(**{**RANGE_SHAPE, "max_topics": 1})
    summary = local.sweep(300, seed=0, params=params, assignors=("range", "roundrobin"))["by_assignor"]
    rg, rr = summary.iloc[0], summary.iloc[1]
    assert (rg.assignor, rr.assignor) == ("range", "roundrobin")
    # same loads per member (Range's ranges are contiguous, RoundRobin's dealt, so the moves differ)
    figures = ["scenarios", "p_idle", "p_idle_despite_enough", "p_balanced", "mean_spread", "mean_balance_score"]
    assert rg[figures].tolist() == rr[figures].tolist()
    assert rg.p_idle_despite_enough == 0.0 and rg.p_balanced == 1.0 and rg.p_idle > 0.4


def test_chapter_02_exercise_more_members_more_idle():
    """Solution (b): with up to 40 members Range leaves a member idle in about half of the groups that
    have enough partitions; RoundRobin still in none."""
    t = _by(exercise("sweep", scale=400, seed=0, assignors=("range", "roundrobin"), local=True,
                     **{**RANGE_SHAPE, "max_members": 40}), "assignor")
    assert t[("range",)].p_idle_despite_enough > 0.45
    assert t[("roundrobin",)].p_idle_despite_enough == 0.0
    assert t[("roundrobin",)].p_idle < t[("range",)].p_idle * 0.7


def test_chapter_03_roundrobin_under_uneven_subscriptions():
    """Chapter 03: identical subscriptions give the same, balanced figures for RoundRobin and Sticky; with
    different subscriptions Sticky balances about twice as many groups and its mean spread is less than
    half of RoundRobin's, and it leaves fewer groups with an idle member; neither balances every group."""
    t = _by(exercise("sweep", scale=GROUPS, seed=0, table="by_subscriptions", assignors=("roundrobin", "sticky"),
                     p_identical=0.5, rack_choices=(0,), local=True), "assignor", "identical")
    rr, st = t[("roundrobin", True)], t[("sticky", True)]
    assert rr.p_balanced == st.p_balanced == 1.0 and rr.mean_spread == st.mean_spread
    rr, st = t[("roundrobin", False)], t[("sticky", False)]
    assert 0.2 < rr.p_balanced < 0.3 and 0.45 < st.p_balanced < 0.55 < 1.0
    assert st.mean_spread < rr.mean_spread / 2
    assert st.p_idle_despite_enough < rr.p_idle_despite_enough / 2


def test_chapter_03_exercise_more_topics():
    """The solution (smaller scale): with up to eight topics both assignors balance fewer groups with
    different subscriptions, and RoundRobin's mean spread stays about twice Sticky's."""
    def run(topics):
        return _by(exercise("sweep", scale=400, seed=0, table="by_subscriptions", assignors=("roundrobin", "sticky"),
                            p_identical=0.5, rack_choices=(0,), max_topics=topics, local=True),
                   "assignor", "identical")

    five, eight = run(5), run(8)
    for name in ("roundrobin", "sticky"):
        assert eight[(name, False)].p_balanced < five[(name, False)].p_balanced
        assert eight[(name, True)].p_balanced == 1.0
    for t in (five, eight):
        assert 1.6 < t[("roundrobin", False)].mean_spread / t[("sticky", False)].mean_spread < 2.5


def test_chapter_06_four_assignors_side_by_side():
    """Chapter 06: the sticky assignors share the first assignment and balance best; RoundRobin places the
    fewest partitions rack-locally; on a departure every assignor moves the leaver's ~6 partitions, Range
    and RoundRobin take 5 and 18 more from members that stayed, the sticky assignors about a quarter of one,
    and cooperative-sticky alone needs follow-up rebalances."""
    t = _by(exercise("sweep", scale=GROUPS, seed=0, local=True), "assignor")
    rg, rr, st, co = (t[(a,)] for a in ("range", "roundrobin", "sticky", "cooperative-sticky"))
    for col in ("p_idle", "p_balanced", "mean_spread", "mean_balance_score", "rack_local_share"):
        assert getattr(st, col) == getattr(co, col)
    assert st.p_balanced > rr.p_balanced > rg.p_balanced
    assert st.p_idle < rr.p_idle < rg.p_idle
    assert rr.rack_local_share < rg.rack_local_share < st.rack_local_share
    for r in (rg, rr, st, co):
        assert 6.0 < r.mean_orphaned < 6.5 and r.incomplete == 0
    assert 4.5 < rg.mean_extra_moves < 5.5 and 17.5 < rr.mean_extra_moves < 18.5
    assert 0.1 < st.mean_extra_moves < 0.4 and 0.1 < co.mean_extra_moves < 0.4
    assert 0.85 < st.p_no_extra_moves < 0.95
    assert rg.mean_rounds == rr.mean_rounds == st.mean_rounds == 1.0 < co.mean_rounds < 1.2
    assert 0.0 == st.mean_unowned_between < co.mean_unowned_between < 0.4


def test_chapter_06_exercise_common_case_moves_only_the_leavers_partitions():
    """The solution: with identical subscriptions and no racks the sticky assignors take nothing from
    members that stay and cooperative-sticky settles in one rebalance (a property, at any scale); Range and
    RoundRobin take more from members that stay than in the mixed sweep."""
    common = _by(exercise("sweep", scale=400, seed=0, p_identical=1.0, rack_choices=(0,), local=True), "assignor")
    mixed = _by(exercise("sweep", scale=400, seed=0, local=True), "assignor")
    for name in ("sticky", "cooperative-sticky"):
        r = common[(name,)]
        assert r.mean_extra_moves == 0.0 and r.p_no_extra_moves == 1.0
        assert r.mean_rounds == 1.0 and r.mean_unowned_between == 0.0 and r.p_balanced == 1.0
    for name in ("range", "roundrobin"):
        assert common[(name,)].mean_extra_moves > mixed[(name,)].mean_extra_moves
    assert common[("range",)].mean_orphaned > mixed[("range",)].mean_orphaned
