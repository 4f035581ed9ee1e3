"""rebalance.viz.live: the live-vs-book bars of chapter 10."""
import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from rebalance.errors import InputError  # noqa: E402
from rebalance.viz.live import live_vs_book_figure  # noqa: E402


def test_one_panel_per_protocol_and_bar_heights_are_the_counts():
    rows = [{"protocol": "eager", "step": "c2 joins", "live revoked": 6, "book revoked": 6},
            {"protocol": "coop", "step": "c2 joins", "live revoked": 3, "book revoked": 2}]
    fig = live_vs_book_figure(rows)
    assert [ax.get_title() for ax in fig.axes] == ["eager", "coop"]
    heights = [[p.get_height() for p in ax.patches] for ax in fig.axes]
    assert heights == [[6.0, 6.0], [3.0, 2.0]]


def test_no_rows_names_the_field():
    with pytest.raises(InputError) as err:
        live_vs_book_figure([])
    assert "rows" in str(err.value)
