"""The PDF edition (`make pdf`, site/pdf/build.sh): one PDF of the whole book, checked with poppler-utils.

Which PDF is checked:

* ``REBALANCE_PDF=/path/to/rebalance.pdf`` when that file exists (``make test`` builds it just before);
* otherwise ``_build/exports/rebalance.pdf`` when it is newer than every source it is built from;
* otherwise the PDF is built first with ``site/pdf/build.sh`` (about half a minute).

The checks: the page count is plausible for the number of pages in myst.yml's table of contents; every
distinct image the chapter notebooks show is embedded (``pdfimages -list``); every part and chapter
title and the glossary, references and bibliography are bookmarks of the PDF outline (pypdf), in the toc's
order; every solution of the chapters is printed, with the answer cells that the site hides; the glossary's
Chinese terms are set in an embedded CJK font; pages rendered to images (``pdftoppm``): the cover dark, a
figure page with colour, a chapter opening with text, and the pages left blank before a right-hand opening
without a running head; and the built site links the PDF and each chapter's notebook.

A clean print edition, each point over the PDF's text (``pdftotext``): no widget prints its repr (the static
twin figure or table prints instead); every figure caption in chapter N reads "Figure N.k", k running from 1 to
the chapter's number of figures, as the text refers to them; a citation that follows the name it cites does not
print the name again ("KIP-345 KIP-345 [17]"); no table cell is cut off with "…" and no word runs off the text
area (``pdftotext -bbox``); no plumbing cell (tagged
``plumbing``: imports, checks, tables of checks that hold) prints its code or output; the API reference is on
the site only; the glossary gives each term's English meaning before the Chinese words; and the last PDF build
reported no mystmd warning.  (tests/book/test_print_rules.py checks the sources these rest on.)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from book_toc import read_toc

from .print_rules import (PLUMBING, SITE_ONLY, WIDGET_VIEW, chapter_number, code_cells, cut_cells, printed_source,
                          tags)

pytestmark = pytest.mark.pdf

REPO = Path(__file__).resolve().parents[2]
DEFAULT_PDF = REPO / "_build" / "exports" / "rebalance.pdf"
POPPLER = ("pdftoppm", "pdfinfo", "pdfimages", "pdffonts", "pdftotext")


# ---- the book's table of contents ---------------------------------------------------------------
def toc_files_and_parts() -> tuple[list[str], list[str]]:
    """The toc's source files in order (patterns expanded) and the titles of its parts."""
    return read_toc(REPO)


def page_title(source: str) -> str:
    """A page's title as the PDF shows it: its notebook's or Markdown's first `# ` heading."""
    path = REPO / source
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    else:
        text = path.read_text(encoding="utf-8")
    heading = re.search(r"^# (.+)$", text, re.M)
    assert heading, f"{source} has no '# ' title"
    return heading.group(1).strip()


def _plain(title: str) -> str:
    """Outline entries carry text only: drop Markdown marks and normalise spaces."""
    title = re.sub(r"[`*_]", "", title)
    title = re.sub(r"\{[a-z]+\}", "", title)
    return re.sub(r"\s+", " ", title).strip()


def notebook_pages() -> list[Path]:
    """The toc's notebooks: the chapters and the appendix (chapters/appendix-*.ipynb)."""
    files, _ = toc_files_and_parts()
    return [REPO / f for f in files if f.startswith("chapters/") and f.endswith(".ipynb")]


def chapter_notebooks() -> list[Path]:
    """The toc's chapters, chapters/NN-slug.ipynb (an appendix has no chapter number, figures or exercises)."""
    return [nb for nb in notebook_pages() if re.match(r"\d\d-", nb.name)]


def printed_toc_files() -> list[str]:
    """The toc's files the PDF prints: all but the site's own pages (the API reference)."""
    files, _ = toc_files_and_parts()
    return [f for f in files if f not in SITE_ONLY]


def printed_image_hashes() -> set[str]:
    """The distinct PNG outputs of the chapters that the PDF prints (cells tagged remove-* are not)."""
    hashes = set()
    for notebook in chapter_notebooks():
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            tags = set(cell.get("metadata", {}).get("tags", []))
            if cell["cell_type"] != "code" or tags & {"remove-cell", "remove-output"}:
                continue
            for output in cell.get("outputs", []):
                png = output.get("data", {}).get("image/png")
                if png:
                    hashes.add(hashlib.sha1("".join(png).encode()).hexdigest())
    return hashes


# ---- the PDF ---------------------------------------------------------------------------------------
def _sources_mtime() -> float:
    paths = [REPO / "myst.yml", REPO / "references.bib", *REPO.glob("*.md"), *REPO.glob("chapters/*.ipynb"),
             *(p for p in (REPO / "site" / "pdf").rglob("*") if p.is_file())]
    return max(p.stat().st_mtime for p in paths if p.exists())


@pytest.fixture(scope="module")
def pdf() -> Path:
    missing = [tool for tool in POPPLER if shutil.which(tool) is None]
    if missing:
        pytest.fail(f"poppler-utils missing ({', '.join(missing)}): run `make pdf-tools` "
                    "(Debian: apt-get install poppler-utils)")
    given = os.environ.get("REBALANCE_PDF")
    if given and Path(given).is_file():
        return Path(given)
    if DEFAULT_PDF.is_file() and DEFAULT_PDF.stat().st_mtime > _sources_mtime():
        return DEFAULT_PDF
    venv_bin = REPO / ".venv" / "bin"
    env = dict(os.environ, PATH=f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}")
    run = subprocess.run(["bash", str(REPO / "site" / "pdf" / "build.sh")], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0 and DEFAULT_PDF.is_file(), f"site/pdf/build.sh failed:\n{run.stdout[-4000:]}\n{run.stderr[-4000:]}"
    return DEFAULT_PDF


def _run(*args: str) -> str:
    return subprocess.run(list(args), check=True, capture_output=True, text=True, timeout=120).stdout


@pytest.fixture(scope="module")
def text(pdf: Path) -> str:
    # the zero-width spaces the layout puts into long words and table cells (break opportunities) are no text
    return _run("pdftotext", "-enc", "UTF-8", str(pdf), "-").replace("\u200b", "")


@pytest.fixture(scope="module")
def pages(text: str) -> list[str]:
    """The text of each page (pages[0] is page 1)."""
    return text.split("\f")


def _outline_pages(pdf: Path) -> dict[str, int]:
    """Outline entry (plain title) -> its page number (1-based), for every entry of the PDF's outline."""
    import pypdf

    reader = pypdf.PdfReader(str(pdf))
    found: dict[str, int] = {}

    def walk(entries):
        for entry in entries:
            if isinstance(entry, list):
                walk(entry)
            else:
                found.setdefault(_plain(entry.title), reader.get_destination_page_number(entry) + 1)

    walk(reader.outline)
    return found


@pytest.fixture(scope="module")
def chapter_pages(pdf: Path) -> dict[Path, range]:
    """Each chapter notebook's pages: from its opening to the page before the next outline page (a chapter, the
    glossary, references or bibliography)."""
    outline = _outline_pages(pdf)
    starts = sorted({outline[_plain(page_title(f))] for f in printed_toc_files()[1:] if _plain(page_title(f)) in outline}
                    | {outline[t] for t in ("Bibliography",) if t in outline})
    spans = {}
    for notebook in chapter_notebooks():
        start = outline.get(_plain(page_title(notebook.relative_to(REPO).as_posix())))
        assert start, f"{notebook.name}: its title is not in the PDF outline"
        end = next((s for s in starts if s > start), start + 60)
        spans[notebook] = range(start, end)
    return spans


def test_page_count_is_plausible(pdf):
    pages = int(re.search(r"^Pages:\s+(\d+)", _run("pdfinfo", str(pdf)), re.M).group(1))
    files, parts = toc_files_and_parts()
    chapters = len(chapter_notebooks())
    # every chapter opens on a right-hand page and runs several pages; a PDF that lost whole chapters or
    # printed each page of content on a page of its own would fall outside these bounds
    assert 4 * chapters + len(parts) <= pages <= 40 * len(files), (
        f"{pages} pages for {chapters} chapters and {len(files)} toc pages")


def test_every_figure_is_embedded(pdf):
    rows = _run("pdfimages", "-list", str(pdf)).splitlines()[2:]
    images = [r.split() for r in rows if r.split()[2:3] == ["image"]]
    wanted = printed_image_hashes()
    assert wanted, "the chapters show no image: nothing to check"
    # typst embeds each distinct image once, however often it is shown
    assert len(images) >= len(wanted), f"{len(images)} images embedded, the chapters show {len(wanted)} distinct ones"
    pages_with_images = {int(r[0]) for r in images}
    assert len(pages_with_images) >= len(wanted) // 2


def test_every_chapter_title_is_in_the_outline(pdf):
    import pypdf

    reader = pypdf.PdfReader(str(pdf))

    def flatten(entries):
        for entry in entries:
            if isinstance(entry, list):
                yield from flatten(entry)
            else:
                yield _plain(entry.title)

    outline = list(flatten(reader.outline))
    _, parts = toc_files_and_parts()
    files = printed_toc_files()
    wanted = [page_title(f) for f in files[1:]] + parts + ["Bibliography"]  # files[0] is the cover's page
    missing = [t for t in map(_plain, wanted) if t not in outline]
    assert not missing, f"not in the PDF outline: {missing}\noutline: {outline[:40]}"
    # the outline follows the toc's order
    positions = [outline.index(_plain(page_title(f))) for f in files[1:]]
    assert positions == sorted(positions), "the outline's chapter order differs from myst.yml's toc"


def test_solutions_and_their_answer_cells_are_printed(text):
    solutions = sum(len(re.findall(r"^:::+\{solution\}", nb.with_suffix(".md").read_text(encoding="utf-8"), re.M))
                    for nb in chapter_notebooks())
    exercises = sum(len(re.findall(r"^:::+\{exercise\}", nb.with_suffix(".md").read_text(encoding="utf-8"), re.M))
                    for nb in chapter_notebooks())
    flat = re.sub(r"\s+", " ", text)
    assert flat.count("Solution to Exercise") == solutions > 0
    assert len(re.findall(r"Exercise \d+", flat)) >= exercises
    # the answer cells the site folds away (tagged hide-cell) print their code on paper
    hidden = []
    for notebook in chapter_notebooks():
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            tags = cell.get("metadata", {}).get("tags", [])
            if cell["cell_type"] == "code" and "hide-cell" in tags and "plumbing" not in tags:  # plumbing: off paper
                first = next((l.strip() for l in "".join(cell["source"]).splitlines() if l.strip() and not l.startswith("#")), "")
                if len(first) > 12:
                    hidden.append(first[:40])
    assert hidden, "no hidden answer cell in the chapters"
    compact = re.sub(r"\s+", "", text)
    missing = [h for h in hidden if re.sub(r"\s+", "", h) not in compact]
    assert not missing, f"hidden answer cells missing from the PDF: {missing[:5]}"


def test_glossary_chinese_terms_have_a_font(pdf, text):
    fonts = _run("pdffonts", str(pdf))
    assert re.search(r"WenQuanYi|Noto\w*CJK", fonts), f"no CJK font embedded:\n{fonts}"
    assert "协调器" in text


def test_rendered_pages_carry_ink(pdf, text, tmp_path):
    """Pages rendered to images: the dark cover, a coloured figure, a chapter's opening page with its text,
    and the pages left blank before a right-hand opening without any running head."""
    import numpy as np
    import pypdf
    from PIL import Image

    def render(page: int) -> np.ndarray:
        prefix = tmp_path / f"p{page}"
        _run("pdftoppm", "-r", "30", "-png", "-f", str(page), "-l", str(page), str(pdf), str(prefix))
        return np.asarray(Image.open(next(tmp_path.glob(f"p{page}*.png"))).convert("RGB"), dtype=int)

    cover = render(1).mean()
    assert cover < 140, f"the cover is not the dark cover page (mean grey {cover:.0f})"
    first_image_page = int(next(r.split()[0] for r in _run("pdfimages", "-list", str(pdf)).splitlines()[2:]))
    figure = render(first_image_page)
    colourful = int(((figure.max(axis=2) - figure.min(axis=2)) > 60).sum())
    assert colourful > 200, f"page {first_image_page} shows no coloured figure"

    reader = pypdf.PdfReader(str(pdf))
    files, _ = toc_files_and_parts()
    first_chapter = _plain(page_title(files[1]))
    entry = next(e for e in reader.outline if not isinstance(e, list) and _plain(e.title) == first_chapter)
    opening = reader.get_destination_page_number(entry) + 1
    dark = int((render(opening).mean(axis=2) < 128).sum())
    assert dark > 300, f"the opening page {opening} of {first_chapter!r} looks empty ({dark} dark pixels)"

    pages = text.split("\f")
    blank = [n + 1 for n, page_text in enumerate(pages[:-1]) if not page_text.strip() and n > 0]
    assert blank, "no page left blank before a right-hand opening"
    for page in blank[:3]:
        ink = int((render(page).mean(axis=2) < 200).sum())
        assert ink < 20, f"page {page}, left blank before an opening, carries ink ({ink} pixels): a running head?"


def test_the_site_links_the_pdf_and_each_chapter_its_notebook(pdf):
    """The built site serves the PDF at /rebalance.pdf (linked from the index page) and in the index
    page's download menu, and every chapter page's download menu offers the chapter's .ipynb."""
    site = Path(os.environ.get("REBALANCE_SITE_DIR", REPO / "_build" / "html"))
    if not (site / "config.json").is_file():
        pytest.skip(f"no built site in {site} (make site)")
    served = site / "rebalance.pdf"
    assert served.is_file(), "site/build.sh did not copy the PDF into the site"
    assert 'href="/rebalance.pdf"' in (site / "index.html").read_text(encoding="utf-8")
    index = json.loads((site / "index.json").read_text(encoding="utf-8"))
    pdfs = [d for d in index["frontmatter"].get("downloads", []) if d.get("filename", "").endswith(".pdf")]
    assert pdfs and (site / pdfs[0]["url"].lstrip("/")).is_file(), f"no PDF in the index page's downloads: {index['frontmatter'].get('downloads')}"
    config = json.loads((site / "config.json").read_text(encoding="utf-8"))
    chapter_slugs = [p["slug"] for project in config["projects"] for p in project["pages"]
                     if "slug" in p and (site / f"{p['slug']}.json").is_file()]
    checked = 0
    for slug in chapter_slugs:
        page = json.loads((site / f"{slug}.json").read_text(encoding="utf-8"))
        if not page.get("location", "").startswith("/chapters/"):
            continue
        notebooks = [e for e in page["frontmatter"].get("exports", []) if e.get("format") == "ipynb"]
        assert notebooks, f"{slug}: no .ipynb download"
        assert (site / notebooks[0]["url"].lstrip("/")).is_file(), f"{slug}: {notebooks[0]['url']} missing"
        checked += 1
    assert checked == len(notebook_pages())


# ---- a clean print edition ------------------------------------------------------------------------
def _compact(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_no_widget_prints_its_repr(text):
    """A widget's output prints nothing on paper (its static twin, printed just before, is what the page shows):
    neither the repr of any widget the chapters show ("VBox(children=(IntSlider(...") nor any box repr."""
    reprs = []
    for notebook in chapter_notebooks():
        for cell in code_cells(notebook):
            for output in cell.get("outputs", []):
                data = output.get("data", {})
                if WIDGET_VIEW in data and PLUMBING not in tags(cell):
                    reprs.append((notebook.name, "".join(data.get("text/plain", "")).splitlines()[0][:40]))
    assert reprs, "the chapters show no widget: nothing to check"
    compact = _compact(text)
    printed = [(name, r) for name, r in reprs if _compact(r) in compact]
    assert not printed, f"widget reprs printed in the PDF: {printed[:5]}"
    assert not re.search(r"\b[VH]Box\(children=", text), "a widget box's repr is printed"


def test_figure_captions_read_as_the_text_refers_to_them(pages, chapter_pages):
    """In chapter N the captions read "Figure N.1", "Figure N.2", ... (the numbers the prose's cross-references
    carry), one for each figure of the chapter, none "Figure 2:"."""
    checked = 0
    for notebook, span in chapter_pages.items():
        n = chapter_number(notebook)
        figures = sum(1 for cell in code_cells(notebook)
                      if cell.get("metadata", {}).get("caption") and PLUMBING not in tags(cell))
        captions = re.findall(r"\bFigure (\d+)(?:\.(\d+))?:", "\n".join(pages[p - 1] for p in span))
        wrong = [f"Figure {a}{'.' + b if b else ''}" for a, b in captions if int(a) != n or not b]
        assert not wrong, f"{notebook.name} (chapter {n}, pages {span.start}-{span.stop - 1}): captions {wrong}"
        assert {int(b) for _, b in captions} == set(range(1, figures + 1)), (
            f"{notebook.name}: captions {sorted({int(b) for _, b in captions})} for {figures} figures")
        checked += figures
    assert checked > 0, "no figure caption checked"


def test_a_citation_prints_its_name_once(text):
    """A citation right after the name it cites prints the reference number alone: "KIP-345 [17]", never
    "KIP-345 KIP-345 [17]" or "`RangeAssignor` RangeAssignor [13]"."""
    doubled = []
    for match in re.finditer(r"(\S+)[ \n](\S+) \[\d+\]", text):
        before, name = match.group(1).strip("(`,;:\"'\u2018\u201c"), match.group(2)
        if before == name or (before.endswith(name) and before[-len(name) - 1] in "./"):
            doubled.append(match.group(0).replace("\n", " "))
    cited = len(re.findall(r"\[\d+\]", text))
    assert cited > 50, f"only {cited} citations in the PDF: nothing to check"
    assert not doubled, f"{len(doubled)} citations print the name twice: {doubled[:8]}"


def _cut_cells() -> list[tuple[str, str]]:
    """(notebook, text) of every table cell the PDF prints that the stored output cut off ("..." at its end)."""
    return [(notebook.name, text) for notebook in notebook_pages() for _, text in cut_cells(notebook)]


def test_no_table_cell_is_cut_off(text):
    """No table cell ends in "…" where its text was cut off."""
    compact = _compact(text)
    printed = [(name, c) for name, c in _cut_cells() if _compact(c) + "\u2026" in compact]
    assert not printed, f"{len(printed)} table cells are printed cut off, e.g. {printed[:4]}"


def test_the_api_reference_is_on_the_site_only(pdf, text):
    """The API reference stays in myst.yml's toc (the site's page) but is not printed: no outline entry, no text."""
    files, _ = toc_files_and_parts()
    assert set(SITE_ONLY) <= set(files), f"{SITE_ONLY} not in myst.yml's toc: the site lost its API reference"
    assert "API reference" not in _outline_pages(pdf), "the PDF's outline lists the API reference"
    assert "The public interface of the" not in text, "the API reference's text is printed"
    assert not re.search(r"^API reference\s*$", text, re.M), "a page of the PDF is headed 'API reference'"


def test_no_plumbing_cell_is_printed(text):
    """Cells tagged plumbing (imports, checks, tables of checks that hold) print neither their code nor their
    output: none of their code lines that no printed cell shares, none of their output lines, no `holds` table."""
    notebooks = chapter_notebooks()
    shared = printed_source(notebooks)
    compact = _compact(text)
    plumbing, printed, checked = 0, [], 0
    for notebook in notebooks:
        for cell in code_cells(notebook):
            if PLUMBING not in tags(cell):
                continue
            plumbing += 1
            code = [line for line in cell["source"].splitlines()
                    if len(_compact(line)) >= 16 and _compact(line) not in shared]
            outputs = [line for output in cell.get("outputs", []) if output["output_type"] == "stream"
                       for line in "".join(output["text"]).splitlines() if len(_compact(line)) >= 16 and _compact(line) not in shared]
            for line in code + outputs:
                checked += 1
                if _compact(line) in compact:
                    printed.append(f"{notebook.name}: {line.strip()[:70]}")
    assert plumbing and checked, "no plumbing cell to check"
    assert not printed, f"{len(printed)} lines of plumbing cells are printed, e.g. {printed[:6]}"
    assert not re.search(r"^holds$", text, re.M), "a table of checks ('holds') is printed"


def test_the_glossary_gives_the_english_meaning_first(text):
    """Each glossary entry reads "term  The English meaning ... In the articles: 协调器 ...", not "term  协调器 ..."."""
    # (the last "The articles' Chinese words": a running head may name the section on the page before it starts)
    start, end = text.find("Each entry gives the Kafka term"), text.rfind("The articles\u2019 Chinese words")
    assert 0 <= start < end, "the glossary's entries are not in the PDF"
    glossary = text[start:end]
    source = (REPO / "glossary.md").read_text(encoding="utf-8")
    terms = re.findall(r"^(\S[^\n]*)\n: ", source.split(":::{glossary}", 1)[1], re.M)
    assert len(terms) > 20
    cjk_first = []
    for term in terms:
        match = re.search(rf"^{re.escape(term)}\s+(\S)", glossary, re.M)
        assert match, f"glossary term {term!r} not found at the start of a line"
        if "\u3400" <= match.group(1) <= "\u9fff":
            cjk_first.append(term)
    assert not cjk_first, f"glossary entries that lead with the Chinese words: {cjk_first}"


def test_the_last_pdf_build_reported_no_warning(pdf):
    """mystmd's output of the build that wrote this PDF (site/pdf/build.sh keeps it next to the PDF) holds no
    warning or error (⚠️ / ⛔️), e.g. "'jupytext' extra key ignored: default_lexer" once per chapter."""
    log = pdf.with_suffix(".log")
    if not log.is_file():
        pytest.skip(f"no build log next to {pdf} (site/pdf/build.sh writes {DEFAULT_PDF.with_suffix('.log').name})")
    flagged = [line for line in log.read_text(encoding="utf-8").splitlines() if "\u26a0" in line or "\u26d4" in line]
    assert not flagged, f"the PDF build reported {len(flagged)} warning(s)/error(s): {flagged[:5]}"


def test_no_word_runs_off_the_text_area(pdf, tmp_path):
    """No word of any page (but the cover) lies outside the text area: a table cell or a code line too wide for the
    page would run into the margin or off the paper and be cut (``pdftotext -bbox``; the inside margin 26 mm, the
    outside one 20 mm, as book.typ sets them, with 2 pt of tolerance)."""
    out = tmp_path / "bbox.html"
    _run("pdftotext", "-bbox", str(pdf), str(out))
    mm = 72 / 25.4
    outside = []
    for number, page in enumerate(out.read_text(encoding="utf-8").split("<page ")[1:], start=1):
        if number == 1:
            continue  # the cover is a full-bleed picture
        width = float(re.search(r'width="([\d.]+)"', page).group(1))
        left, right = (26 * mm, width - 20 * mm) if number % 2 else (20 * mm, width - 26 * mm)
        for x_min, x_max, word in re.findall(r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)<', page):
            if float(x_min) < left - 2 or float(x_max) > right + 2:
                outside.append(f"page {number}: {word[:50]}")
    assert not outside, f"{len(outside)} words outside the text area: {outside[:6]}"
