"""No MyST directive of a chapter spans a code cell.  jupytext cuts a chapter's Markdown at every ``{code-cell}``,
so a ``:::{solution}`` (or any colon fence) opened before one and closed after it is two unclosed halves in two
notebook cells: the site drops the rest of the block and the PDF build fails on the labels inside it
("label `<ex-diagnose-poll>` does not exist").  A solution shows its code as a ``python`` block and a hidden cell
after the solution runs it."""
from __future__ import annotations

import re
from pathlib import Path
from typing import List

import pytest

CHAPTERS = sorted((Path(__file__).resolve().parents[2] / "chapters").glob("*.md"))


def spanning(text: str) -> List[str]:
    """``line N: {code-cell} inside :::{directive} opened at line M`` for each code cell inside a colon fence."""
    found, open_at = [], []
    for number, line in enumerate(text.splitlines(), 1):
        m = re.match(r"^(:{3,})\{([\w-]+)\}", line)
        if m:
            open_at.append((len(m.group(1)), m.group(2), number))
        elif re.match(r"^:{3,}\s*$", line) and open_at:
            open_at.pop()
        elif line.startswith("```{code-cell}") and open_at:
            _, name, at = open_at[-1]
            found.append(f"line {number}: {{code-cell}} inside :::{{{name}}} opened at line {at}")
    return found


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[c.stem for c in CHAPTERS])
def test_no_directive_spans_a_code_cell(chapter):
    assert spanning(chapter.read_text(encoding="utf-8")) == []


def test_a_code_cell_inside_a_solution_is_found():
    planted = ":::{solution} ex-1\n:class: dropdown\n\n```{code-cell} ipython3\n1 + 1\n```\n:::\n"
    assert spanning(planted) == ["line 4: {code-cell} inside :::{solution} opened at line 1"]
    assert spanning(":::{note}\ntext\n:::\n\n```{code-cell} ipython3\n1\n```\n") == []
