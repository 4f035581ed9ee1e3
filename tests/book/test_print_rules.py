"""The sources the print edition's rules rest on, checked without building anything (test_pdf_edition.py checks
the PDF itself).

* Plumbing: a code cell that only imports names or sets display options and prints nothing, and a cell that shows a
  table of checks (a ``holds`` column), is tagged ``plumbing``, which the PDF leaves out; a plumbing cell draws no
  figure, shows no widget, carries no label or caption and is not an exercise's answer (``hide-cell``, which the PDF
  prints; a cell of a "How we know" box is ``hide-cell`` to fold on the site, and may be plumbing).  Tags are the same in each chapter's Markdown and notebook.
* No mystmd warning from the chapters' metadata: mystmd reads a notebook's metadata as the page's front matter and
  warns about a key it does not know ("'jupytext' extra key ignored: default_lexer", once per chapter); jupytext
  adds that key when it reads a chapter whose front matter has no ``language_info``.
* The glossary gives each term's English meaning first, then the Chinese words of the source articles.
* The site-only pages (the API reference) are in myst.yml's toc.
* No table cell is cut off in the stored outputs the PDF prints: a chapter that shows DataFrames sets
  ``pd.set_option("display.max_colwidth", None)``, so pandas does not shorten a long cell to "..." (no layout of the
  page can print what the notebook does not hold), and shows no table so long or wide that pandas elides rows or
  columns.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from .print_rules import (HOW_WE_KNOW, PLUMBING, REPO, SITE_ONLY, code_cells, cut_cells, has_check_table, is_setup_only,
                          tags)

NOTEBOOKS = sorted((REPO / "chapters").glob("[0-9]*.ipynb"))
PRINTED_NOTEBOOKS = sorted((REPO / "chapters").glob("*.ipynb"))  # the chapters and the appendix
# The keys of a page's front matter that mystmd validates key by key (myst-frontmatter 1.x, the jupyter-book 2
# of constraints.txt): any other key under them draws a warning.
MYST_JUPYTEXT_KEYS = {"formats", "text_representation"}
MYST_TEXT_REPRESENTATION_KEYS = {"extension", "format_name", "format_version", "jupytext_version"}
MYST_KERNELSPEC_KEYS = {"name", "display_name", "language", "argv", "env"}


def test_there_are_notebooks():
    assert NOTEBOOKS


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_setup_cells_and_check_tables_are_plumbing(notebook):
    untagged = []
    for index, cell in enumerate(code_cells(notebook)):
        setup = is_setup_only(cell["source"]) and not cell.get("outputs")
        if (setup or has_check_table(cell)) and PLUMBING not in tags(cell):
            untagged.append(f"code cell {index}: {cell['source'].splitlines()[0][:60]}")
    assert not untagged, f"{notebook.name}: cells the PDF should leave out are not tagged {PLUMBING}: {untagged}"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_plumbing_cells_carry_nothing_the_page_needs(notebook):
    wrong = []
    for index, cell in enumerate(code_cells(notebook)):
        if PLUMBING not in tags(cell):
            continue
        metadata = cell.get("metadata", {})
        kinds = {mime for output in cell.get("outputs", []) for mime in output.get("data", {})}
        problems = [problem for problem, bad in (
            ("a label or caption (a figure the prose refers to)", "label" in metadata or "caption" in metadata),
            ("an image", any(k.startswith("image/") for k in kinds)),
            ("a widget", "application/vnd.jupyter.widget-view+json" in kinds),
            # an exercise's answer: hide-cell, which the PDF prints (a How we know box's cells are hide-cell too,
            # to fold on the site; a plumbing one among them stays off paper like any plumbing)
            ("an answer cell (hide-cell, printed)", "hide-cell" in tags(cell) and HOW_WE_KNOW not in tags(cell)),
        ) if bad]
        if problems:
            wrong.append(f"code cell {index}: {', '.join(problems)}")
    assert not wrong, f"{notebook.name}: plumbing cells the PDF should print: {wrong}"


@pytest.mark.parametrize("notebook", PRINTED_NOTEBOOKS, ids=lambda p: p.name)
def test_no_printed_table_cell_is_cut_off(notebook):
    cut = cut_cells(notebook)
    assert not cut, (f"{notebook.name}: {len(cut)} table cells the PDF prints are cut off in the stored outputs "
                     f"(display.max_colwidth, or rows/columns elided), e.g. {cut[:3]}")


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_cell_tags_are_the_same_in_markdown_and_notebook(notebook):
    import jupytext

    text = jupytext.read(notebook.with_suffix(".md"))
    text_tags = [sorted(c.metadata.get("tags", [])) for c in text.cells if c.cell_type == "code"]
    stored_tags = [sorted(tags(c)) for c in code_cells(notebook)]
    assert text_tags == stored_tags, f"{notebook.name}: cell tags differ from {notebook.with_suffix('.md').name}'s"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_metadata_draws_no_mystmd_warning(notebook):
    metadata = json.loads(notebook.read_text(encoding="utf-8"))["metadata"]
    jupytext_meta = metadata.get("jupytext", {})
    extra = set(jupytext_meta) - MYST_JUPYTEXT_KEYS
    extra |= {f"text_representation.{k}" for k in set(jupytext_meta.get("text_representation", {}))
              - MYST_TEXT_REPRESENTATION_KEYS}
    extra |= {f"kernelspec.{k}" for k in set(metadata.get("kernelspec", {})) - MYST_KERNELSPEC_KEYS}
    assert not extra, f"{notebook.name}: metadata mystmd warns about: {sorted(extra)}"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.name)
def test_syncing_a_chapter_adds_no_default_lexer(notebook):
    """What `jupytext --sync` writes into the notebook's `jupytext` metadata comes from reading the Markdown."""
    import jupytext

    read = jupytext.read(notebook.with_suffix(".md"))
    assert "default_lexer" not in read.metadata.get("jupytext", {}), (
        f"{notebook.with_suffix('.md').name}: jupytext adds jupytext.default_lexer when it reads it (its front matter "
        "lacks language_info: jupytext.toml's notebook_metadata_filter keeps its name and pygments_lexer)")


def _glossary_entries() -> list[tuple[str, str]]:
    text = (REPO / "glossary.md").read_text(encoding="utf-8")
    block = re.search(r"^:::\{glossary\}\n(.*?)^:::$", text, flags=re.M | re.S)
    assert block, "glossary.md has no {glossary} directive"
    entries = re.findall(r"^(\S[^\n]*)\n: (.*?)(?=\n\n|\Z)", block.group(1), flags=re.M | re.S)
    assert len(entries) > 20
    return [(term, re.sub(r"\s+", " ", definition)) for term, definition in entries]


CJK = re.compile(r"[\u3400-\u9fff]")


def test_the_glossary_leads_with_the_english_meaning():
    """Each definition opens with a sentence in English; the articles' Chinese words come after it."""
    wrong = []
    for term, definition in _glossary_entries():
        first_cjk = CJK.search(definition)
        first_sentence_end = re.search(r"[.:;](\s|$)", definition)
        if first_cjk and (not first_sentence_end or first_cjk.start() < first_sentence_end.start()):
            wrong.append(f"{term}: {definition[:40]}")
    assert not wrong, f"glossary entries that lead with the Chinese words: {wrong}"


def test_the_glossary_index_leads_with_the_entry():
    text = (REPO / "glossary.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\|(.+)\|(.+)\|$", text.split("## The articles' Chinese words", 1)[1], flags=re.M)
    body = [r for r in rows if not set("".join(r)) <= set("-| ")][1:]
    assert body and all("{term}" in first and "{term}" not in second for first, second in body), (
        "the table of the articles' Chinese words should give the entry ({term}`...`) first")


def test_site_only_pages_are_in_the_toc():
    sys.path.insert(0, str(REPO / "tests"))
    from book_toc import read_toc

    files, _ = read_toc(REPO)
    assert SITE_ONLY and set(SITE_ONLY) <= set(files), f"{SITE_ONLY} not in myst.yml's toc"


def test_print_main_leaves_out_the_site_only_pages(tmp_path: Path):
    """site/pdf/typst_cli.py compiles mystmd's main file without the site-only pages' includes."""
    pytest.importorskip("typst")
    sys.path.insert(0, str(REPO / "site" / "pdf"))
    import typst_cli

    main = tmp_path / "rebalance.typ"
    main.write_text('#include "rebalance-glossary.typ"\n\n#pagebreak()\n\n#include "rebalance-references.typ"\n\n'
                    '#pagebreak()\n\n#include "rebalance-api.typ"\n\n#bibliography("main.bib")\n', encoding="utf-8")
    printed = typst_cli.print_main(main)
    assert printed != main and "rebalance-api" not in printed.read_text(encoding="utf-8")
    assert printed.read_text(encoding="utf-8").count("#include") == 2
    assert typst_cli.book_inputs(printed, main.stem)["rebalance-chapters"] == ","
