"""Every chapter has a textbook's scaffolding: objectives, prerequisites, a summary, citations, glossary links and
numbered, captioned, referenced figures.

* right after its ``# Title`` a chapter opens with a ``Learning objectives`` admonition (a bullet list of what the
  reader will be able to do) and a ``Prerequisites`` admonition; the chapters a prerequisite links are earlier
  chapters of the book;
* it has a ``## Summary`` section with a bullet list, placed before its exercises;
* it cites at least one source with ``{cite}`` and links at least one glossary term with ``{term}``, and every term
  it links is defined in ``glossary.md``'s ``{glossary}`` directive;
* figures and exercises are numbered by chapter ("Figure 2.1"): the notebook's ``numbering.enumerator`` is
  ``N.%s`` for chapter ``N``;
* every code cell whose stored outputs include an image carries a ``label`` (``fig-...``) and a ``caption`` in its
  cell metadata, which mystmd turns into a numbered figure, and the chapter's prose references that label;
* ``references.bib`` has no unclosed entry (one missing brace silently drops every citation of the site).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]-*.md"))
IMAGE_MIME = ("image/png", "image/jpeg", "image/svg+xml", "image/gif")
TERM = re.compile(r"\{term\}`([^`]+)`")
CITE = re.compile(r"\{cite(?::[tp])?\}`[^`]+`")


def _admonition(text: str, title: str) -> str | None:
    """Body of the first ``:::{admonition} <title>`` block, or None."""
    match = re.search(rf"^:::\{{admonition\}} {re.escape(title)}\n(.*?)^:::$", text, flags=re.M | re.S)
    return match.group(1) if match else None


def _prose(md: Path) -> str:
    """The chapter's Markdown cells, joined (code cells excluded)."""
    notebook = jupytext.read(md)
    return "\n\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")


def _glossary_terms() -> set[str]:
    text = (ROOT / "glossary.md").read_text(encoding="utf-8")
    block = re.search(r"^:::\{glossary\}\n(.*?)^:::$", text, flags=re.M | re.S)
    assert block, "glossary.md has no {glossary} directive"
    # a definition list: a term line, then a line starting with ': '
    lines = block.group(1).splitlines()
    return {lines[i].strip().lower() for i in range(len(lines) - 1) if lines[i + 1].startswith(": ") and lines[i].strip()}


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_opens_with_objectives_and_prerequisites(md):
    prose = _prose(md)
    title_at = re.search(r"^# .+$", prose, flags=re.M)
    assert title_at, f"{md.name} has no '# Title'"
    first_section = re.search(r"^## ", prose, flags=re.M)
    opening = prose[title_at.end(): first_section.start() if first_section else len(prose)]
    objectives = _admonition(opening, "Learning objectives")
    assert objectives, f"{md.name}: no ':::{{admonition}} Learning objectives' between the title and the first section"
    assert len(re.findall(r"^- ", objectives, flags=re.M)) >= 2, f"{md.name}: the objectives should list what the reader can do"
    prerequisites = _admonition(opening, "Prerequisites")
    assert prerequisites, f"{md.name}: no ':::{{admonition}} Prerequisites' between the title and the first section"
    assert "Kafka" in prerequisites, f"{md.name}: the prerequisites should say what Kafka knowledge is assumed"
    number = int(md.name[:2])
    linked = [int(m) for m in re.findall(r"\]\((\d\d)-[\w-]+\.ipynb\)", prerequisites)]
    for other in linked:
        assert other < number, f"{md.name}: prerequisite chapter {other:02d} is not an earlier chapter"
        assert list((ROOT / "chapters").glob(f"{other:02d}-*.md")), f"{md.name}: prerequisite chapter {other:02d} does not exist"
    if number > 0:
        assert linked, f"{md.name}: the prerequisites should link the earlier chapters they assume"


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_has_a_summary_before_its_exercises(md):
    prose = _prose(md)
    summary = re.search(r"^## Summary\n(.*?)(?=^## |\Z)", prose, flags=re.M | re.S)
    assert summary, f"{md.name} has no '## Summary' section"
    assert len(re.findall(r"^[-*] ", summary.group(1), flags=re.M)) >= 2, f"{md.name}: the summary should list what to remember"
    exercises = re.search(r"^## Exercises", prose, flags=re.M)
    if exercises:
        assert summary.start() < exercises.start(), f"{md.name}: the summary should come before the exercises"


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_cites_and_links_glossary_terms(md):
    prose = _prose(md)
    assert CITE.search(prose), f"{md.name} cites no source with {{cite}}"
    terms = {" ".join(t.split("<")[-1].rstrip(">").split()).lower() for t in TERM.findall(prose)}
    assert terms, f"{md.name} links no glossary term with {{term}}"
    unknown = sorted(terms - _glossary_terms())
    assert not unknown, f"{md.name} links terms that glossary.md does not define: {unknown}"


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.stem)
def test_every_figure_is_labelled_captioned_and_referenced(md):
    stored = json.loads(md.with_suffix(".ipynb").read_text(encoding="utf-8"))
    text = jupytext.read(md)  # the cell metadata as the Markdown states it
    assert len(text.cells) == len(stored["cells"]), f"{md.name} and its notebook are out of sync"
    prose = _prose(md)
    labels = []
    for index, (cell, source_cell) in enumerate(zip(stored["cells"], text.cells)):
        if cell["cell_type"] != "code":
            continue
        if not any(mime in out.get("data", {}) for out in cell.get("outputs", []) for mime in IMAGE_MIME):
            continue
        where = f"{md.name}, cell {index} ({''.join(cell['source']).splitlines()[0][:60]!r})"
        for meta in (cell["metadata"], source_cell.metadata):
            label, caption = meta.get("label"), meta.get("caption")
            assert isinstance(label, str) and label.startswith("fig-"), f"{where}: figure cell without a 'fig-' label"
            assert isinstance(caption, str) and len(caption.split()) >= 5, f"{where}: figure cell without a caption"
        labels.append(label)
        referenced = f"](#{label})" in prose or f"{{numref}}`{label}`" in prose
        assert referenced, f"{where}: the prose never references [](#{label})"
    assert len(labels) == len(set(labels)), f"{md.name}: figure labels repeat: {labels}"


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.stem)
def test_figures_are_numbered_by_chapter(md):
    numbering = jupytext.read(md).metadata.get("numbering") or {}
    wanted = f"{int(md.name[:2])}.%s"
    assert numbering.get("enumerator") == wanted, (
        f"{md.name}: the front matter should set numbering: {{enumerator: '{wanted}'}} (figures 'Figure {wanted[:-2]}.1')"
    )


def test_figure_labels_are_unique_across_the_book():
    seen: dict[str, str] = {}
    for md in CHAPTERS:
        for cell in jupytext.read(md).cells:
            label = cell.metadata.get("label")
            if label:
                assert label not in seen, f"label {label} in {md.name} and {seen[label]}"
                seen[label] = md.name


def test_bibliography_entries_are_closed():
    text = (ROOT / "references.bib").read_text(encoding="utf-8")
    entries = re.split(r"\n(?=@\w+\{)", text)
    for entry in entries:
        if not entry.strip().startswith("@"):
            continue
        depth = 0
        for char in entry:
            depth += {"{": 1, "}": -1}.get(char, 0)
            assert depth >= 0, f"unbalanced braces in {entry[:60]!r}"
        assert depth == 0, f"references.bib: entry not closed: {entry.splitlines()[0]}"
