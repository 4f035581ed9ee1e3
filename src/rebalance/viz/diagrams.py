"""Boxes and arrows: the drawing primitive behind the book's state-machine and flowchart figures.

No Kafka logic lives here: a caller computes the nodes (from the package's own tables and traces) and
this module only places them.  Pure matplotlib, so the figures build without Graphviz.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional, Sequence, Tuple

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch, Polygon

from ..validation import require
from .style import apply

__all__ = ["Node", "Edge", "draw_diagram"]


@dataclass(frozen=True)
class Node:
    """A box (``shape="box"``), a rounded state (``"state"``) or a decision diamond (``"decision"``)
    centred at ``(x, y)`` in data units."""

    x: float
    y: float
    text: str
    shape: str = "box"
    face: str = "#FFFFFF"
    edge: str = "#333333"
    width: float = 2.2
    height: float = 0.8


@dataclass(frozen=True)
class Edge:
    """An arrow from node ``src`` to node ``dst``; ``bend`` curves it (radians-ish, matplotlib's ``arc3``
    ``rad``), ``dashed`` draws it dashed."""

    src: str
    dst: str
    label: str = ""
    bend: float = 0.0
    dashed: bool = False
    color: str = "#333333"
    label_pos: float = 0.5


def _draw_node(ax: Axes, node: Node) -> None:
    x, y, w, h = node.x, node.y, node.width, node.height
    if node.shape == "decision":
        patch: Patch = Polygon([(x - w / 2, y), (x, y + h / 2), (x + w / 2, y), (x, y - h / 2)], closed=True,
                        facecolor=node.face, edgecolor=node.edge, linewidth=1.3)
    else:
        rounding = 0.35 if node.shape == "state" else 0.08
        patch = FancyBboxPatch((x - w / 2, y - h / 2), w, h, boxstyle=f"round,pad=0.02,rounding_size={rounding}",
                               facecolor=node.face, edgecolor=node.edge, linewidth=1.3)
    ax.add_patch(patch)
    ax.text(x, y, node.text, ha="center", va="center", fontsize=8.5, wrap=True)


def _anchor(node: Node, toward: Node) -> Tuple[float, float]:
    """The point where a straight line from ``node``'s centre to ``toward``'s leaves ``node``'s box."""
    dx, dy = toward.x - node.x, toward.y - node.y
    if dx == 0 and dy == 0:
        return node.x, node.y
    sx = (node.width / 2) / abs(dx) if dx else float("inf")
    sy = (node.height / 2) / abs(dy) if dy else float("inf")
    s = min(sx, sy)
    if node.shape == "decision":  # a diamond: |dx|/(w/2) + |dy|/(h/2) = 1
        s = 1.0 / (abs(dx) / (node.width / 2) + abs(dy) / (node.height / 2))
    return node.x + dx * s, node.y + dy * s


def draw_diagram(nodes: Mapping[str, Node], edges: Sequence[Edge], title: str = "",
                 figsize: Optional[Tuple[float, float]] = None, note: str = "") -> Figure:
    """Draw ``nodes`` and ``edges`` on one axes without ticks; every edge must join two known nodes."""
    for i, e in enumerate(edges):
        require(e.src in nodes and e.dst in nodes, f"edges[{i}]", f"unknown node in {e.src!r} -> {e.dst!r}")
    apply()
    xs = [n.x - n.width / 2 for n in nodes.values()] + [n.x + n.width / 2 for n in nodes.values()]
    ys = [n.y - n.height / 2 for n in nodes.values()] + [n.y + n.height / 2 for n in nodes.values()]
    span_x, span_y = max(xs) - min(xs), max(ys) - min(ys)
    fig, ax = plt.subplots(figsize=figsize or (min(11.0, 1.3 * span_x + 1.5), min(9.0, 1.3 * span_y + 1.2)))
    for e in edges:
        a, b = nodes[e.src], nodes[e.dst]
        start, end = _anchor(a, b), _anchor(b, a)
        arrow = FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=12, linewidth=1.2,
                                connectionstyle=f"arc3,rad={e.bend}", color=e.color,
                                linestyle="--" if e.dashed else "-", shrinkA=2, shrinkB=2)
        ax.add_patch(arrow)
        if e.label:
            t = e.label_pos
            mx, my = start[0] + (end[0] - start[0]) * t, start[1] + (end[1] - start[1]) * t
            # the arc3 control point sits at rad * (perpendicular of the chord) from the midpoint
            dx, dy = end[0] - start[0], end[1] - start[1]
            mx, my = mx + e.bend * dy * 0.5, my - e.bend * dx * 0.5
            ax.text(mx, my, e.label, ha="center", va="center", fontsize=7.5, color=e.color,
                    bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none", alpha=0.9))
    for node in nodes.values():
        _draw_node(ax, node)
    ax.set_xlim(min(xs) - 0.4, max(xs) + 0.4)
    ax.set_ylim(min(ys) - 0.4, max(ys) + 0.4)
    ax.set_aspect("equal")
    ax.axis("off")
    if title:
        ax.set_title(title)
    if note:
        fig.text(0.01, 0.01, note, fontsize=7.5, ha="left", va="bottom", color="#555555")
    fig.tight_layout()
    return fig
