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


def chapter_notebooks() -> list[Path]:
    files, _ = toc_files_and_parts()
    return [REPO / f for f in files if f.startswith("chapters/") and f.endswith(".ipynb")]


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
    return _run("pdftotext", "-enc", "UTF-8", str(pdf), "-")


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
    files, parts = toc_files_and_parts()
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
            if cell["cell_type"] == "code" and "hide-cell" in cell.get("metadata", {}).get("tags", []):
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
    assert checked == len(chapter_notebooks())
