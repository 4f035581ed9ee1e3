"""The book's plotting style: one place for colours and figure defaults, so every chapter looks alike."""
from __future__ import annotations

from typing import cast

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.rcsetup import cycler

#: qualitative colours for members / brokers (colour-blind safe, Okabe-Ito order)
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]


def apply() -> None:
    """Use the book's defaults for every figure (call once per chapter, or import rebalance.viz.style)."""
    matplotlib.rcParams.update({
        "figure.dpi": 100,
        "savefig.dpi": 100,
        "figure.figsize": (7.5, 3.6),
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "font.size": 10,
        "axes.prop_cycle": cycler(color=PALETTE),
        "svg.hashsalt": "rebalance",
    })


def figure_of(ax: Axes) -> Figure:
    """The figure ``ax`` draws on (the book's axes are always on a ``Figure``, never on a ``SubFigure``)."""
    return cast(Figure, ax.figure)
