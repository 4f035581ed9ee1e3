"""The built book site, checked page by page in a real browser (Debian's headless Chromium).

For every page of the table of contents in ``myst.yml`` (chapters, landing page, glossary, references)
the static site in ``_build/html`` is served on 127.0.0.1 and loaded in Chromium with all network
access outside 127.0.0.1 blocked, and we check that the page:

* has a non-empty ``<title>`` and an ``<h1>`` carrying the page title (for chapters, the ``# Title``
  heading of the notebook);
* loaded every ``<img>`` (``naturalWidth > 0``), and shows at least one image when its notebook has
  image outputs;
* shows none of the theme's error texts ("Cannot render output node", "Site not loading correctly",
  "Application Error", "Page Not Found");
* raised no uncaught JavaScript error, did not fail React hydration (Remix reloads forever when the
  served URL does not match the rendered one) and requested no missing local file;
* requested nothing outside 127.0.0.1: every request of the page is recorded (tests/headless.py) and the
  test names the first one that left the machine (no CDN at run time: KaTeX, thebe-core, require.js and
  the favicon are the site's own, and thebe-core's MathJax is turned off, site/theme/app/thebe-offline.ts).

Every chapter page also shows the book's scaffolding (``test_chapter_page_scaffolding``): its learning
objectives and prerequisites, a numbered caption ("Figure N: ...") for every figure cell of its notebook, at
least one citation, at least one link into the glossary and a "Summary" section; and the sidebar shows the
parts of ``myst.yml``'s table of contents (``test_sidebar_lists_every_page``).

A screenshot of each page is saved in ``_build/screenshots/<slug>.jpg`` for a human look: its first screen, or
with ``REBALANCE_SCREENSHOTS=full`` the whole page (the 25 full pages cost make test about a minute of CPU).

Which site is tested:

* ``REBALANCE_SITE_DIR=/path/to/html``: that already-built site (e.g. the one the test command just
  built); nothing is rebuilt.
* otherwise ``<book>/_build/html``, rebuilt first with ``site/build.sh`` when it is missing or older
  than ``myst.yml``, a page source, or the site template build.
* ``REBALANCE_BOOK_DIR`` (default: the repository) is the book whose ``myst.yml`` lists the pages.
* ``CHROMIUM`` (default ``/usr/bin/chromium``): the browser executable (Debian: ``apt-get install
  chromium``; ``make chromium`` does it); the ``browser`` fixture is tests/conftest.py's.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from book_toc import read_toc
from headless import OfflineTraffic

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
BOOK_DIR = Path(os.environ.get("REBALANCE_BOOK_DIR", REPO)).resolve()
ERROR_TEXTS = (
    "Cannot render output node",
    "Site not loading correctly",
    "Application Error",
    "Page Not Found",
)
CONSOLE_FAILURES = re.compile(
    r"does not match URL at time of hydration|Hydration failed|Minified React error|"
    r"error while hydrating|There was an error while hydrating",
    re.IGNORECASE,
)
IMAGE_MIME = ("image/png", "image/jpeg", "image/svg+xml", "image/gif")


# ---- the book's pages, from myst.yml -------------------------------------------------------------
SOURCES, PARTS = read_toc(BOOK_DIR)


def figure_cells(source: Path) -> int:
    """Number of code cells of an executed notebook with at least one image output (each is one figure)."""
    return sum(1 for images in _images_per_code_cell(source) if images)


def first_heading(source: Path) -> str | None:
    """The ``# Title`` heading a chapter starts with (first markdown cell of a notebook)."""
    if source.suffix == ".ipynb":
        notebook = json.loads(source.read_text(encoding="utf-8"))
        texts = ["".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown"]
    else:
        texts = [re.sub(r"\A---\n.*?\n---\n", "", source.read_text(encoding="utf-8"), flags=re.S)]
    for text in texts:
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        match = re.search(r"^# +(.+?)\s*#*\s*$", text, flags=re.M)
        if match:
            return match.group(1).strip()
    return None


def exercise_blocks(source: Path) -> int:
    """Number of ``{exercise}`` and ``{solution}`` directives in a page's source."""
    if source.suffix == ".ipynb":
        notebook = json.loads(source.read_text(encoding="utf-8"))
        text = "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")
    else:
        text = source.read_text(encoding="utf-8")
    return len(re.findall(r"^\s*(?::{3,}|`{3,})\{(?:exercise|solution)\}", text, flags=re.M))


def _images_per_code_cell(source: Path) -> list[int]:
    """For each code cell of an executed notebook, its number of image outputs (nothing for Markdown pages)."""
    if source.suffix != ".ipynb":
        return []
    notebook = json.loads(source.read_text(encoding="utf-8"))
    return [
        sum(1 for output in cell.get("outputs", []) if any(mime in output.get("data", {}) for mime in IMAGE_MIME))
        for cell in notebook["cells"]
        if cell["cell_type"] == "code"
    ]


def notebook_image_outputs(source: Path) -> int:
    """Number of image outputs stored in an executed notebook (0 for Markdown pages)."""
    return sum(_images_per_code_cell(source))


# ---- the site --------------------------------------------------------------------------------------
def _site_is_stale(html: Path) -> str | None:
    marker = html / "config.json"
    if not marker.is_file() or not (html / "index.html").is_file():
        return "not built"
    built = marker.stat().st_mtime
    inputs = [BOOK_DIR / "myst.yml", *(BOOK_DIR / s for s in SOURCES)]
    inputs += [BOOK_DIR / "site" / "theme" / ".cache" / "build.stamp"]
    newer = [p for p in inputs if p.is_file() and p.stat().st_mtime > built]
    return f"older than {newer[0].relative_to(BOOK_DIR)}" if newer else None


@pytest.fixture(scope="module")
def site_dir() -> Path:
    given = os.environ.get("REBALANCE_SITE_DIR")
    if given:
        html = Path(given).resolve()
        assert (html / "config.json").is_file(), f"REBALANCE_SITE_DIR={given} holds no built site"
        return html
    html = BOOK_DIR / "_build" / "html"
    reason = _site_is_stale(html)
    if reason:
        env = dict(os.environ)
        venv_bin = Path(sys.executable).parent
        env["PATH"] = f"{venv_bin}{os.pathsep}{env.get('PATH', '')}"
        if (venv_bin / "jupyter-book").exists():
            env.setdefault("JUPYTER_BOOK", str(venv_bin / "jupyter-book"))
        print(f"\nbuilding the site ({html} {reason}) with site/build.sh")
        result = subprocess.run(
            ["bash", str(BOOK_DIR / "site" / "build.sh")],
            cwd=BOOK_DIR,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert result.returncode == 0, (
            f"site/build.sh failed ({result.returncode}):\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
        )
    return html


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - signature of the base class
        pass


@pytest.fixture(scope="module")
def base_url(site_dir: Path):
    # Multi-threaded: Chromium opens several connections at once and stalls a single-threaded server.
    handler = functools.partial(_QuietHandler, directory=str(site_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture(scope="module")
def site_pages(site_dir: Path) -> dict[str, dict]:
    """Built pages by source file: URL path, slug, title (from the page JSON the site was built with)."""
    config = json.loads((site_dir / "config.json").read_text(encoding="utf-8"))
    pages: dict[str, dict] = {}
    for project in config.get("projects", []):
        prefix = f"/{project['slug']}" if project.get("slug") else ""
        slugs = [(project["index"], f"{prefix}/")]
        slugs += [(p["slug"], f"{prefix}/{p['slug'].replace('.', '/')}/") for p in project["pages"] if "slug" in p]
        for slug, path in slugs:
            data = json.loads((site_dir / prefix.lstrip("/") / f"{slug}.json").read_text(encoding="utf-8"))
            pages[data["location"].lstrip("/")] = {
                "slug": slug,
                "path": path,
                "title": (data.get("frontmatter") or {}).get("title"),
                "json_images": json.dumps(data.get("mdast")).count('"image/'),
            }
    return pages


@pytest.fixture(scope="module")
def screenshot_dir() -> Path:
    out = BOOK_DIR / "_build" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    return out


def _open(browser, base_url: str, path: str):
    """Start loading one page with the outside network blocked; returns (page, context, problems).

    ``problems["traffic"]`` records every URL the page requests (``assert_local`` names the first one
    outside 127.0.0.1)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    problems: dict = {"pageerror": [], "console": [], "local": [], "traffic": OfflineTraffic(context)}
    page = context.new_page()
    page.on("pageerror", lambda exc: problems["pageerror"].append(str(exc)))
    page.on(
        "console",
        lambda msg: problems["console"].append(msg.text)
        if msg.type == "error" and CONSOLE_FAILURES.search(msg.text)
        else None,
    )
    page.on(
        "response",
        lambda resp: problems["local"].append(f"{resp.status} {resp.url}")
        if resp.url.startswith(base_url) and resp.status >= 400
        else None,
    )
    page.goto(base_url + path, wait_until="commit", timeout=SLOW_MS)
    return page, context, problems


def _settle(page) -> None:
    """Wait until the page, its images and its scripts are done."""
    page.wait_for_load_state("load", timeout=SLOW_MS)
    # Lazy images below the fold load only when scrolled to: load them all now.
    page.evaluate("document.querySelectorAll('img[loading=lazy]').forEach(i => { i.loading = 'eager'; })")
    page.wait_for_load_state("networkidle", timeout=SLOW_MS)
    page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=SLOW_MS)
    page.wait_for_timeout(200)  # let hydration effects (outline, output renderers) settle


def _load(browser, base_url: str, path: str):
    page, context, problems = _open(browser, base_url, path)
    _settle(page)
    return page, context, problems


def _inspect(page) -> dict:
    """What the checks need from a loaded page."""
    return {
        "url": page.url,
        "title": page.title().strip(),
        "h1s": [" ".join(t.split()) for t in page.locator("h1").all_inner_texts()],
        "shown_errors": [t for t in ERROR_TEXTS if t in page.locator("body").inner_text()],
        "no_css": page.evaluate("!!document.getElementById('myst-no-css')?.open"),
        "exercise_blocks": page.locator(".myst-exercise").count(),
        "figure_captions": [" ".join(t.split()) for t in page.locator("article figure figcaption").all_text_contents()],
        "citations": page.locator("article cite").count(),
        "glossary_links": page.locator("article a[href*='/glossary#term-']").count(),
        "h2s": [" ".join(t.split()) for t in page.locator("article h2").all_text_contents()],
        "admonition_titles": [" ".join(t.split()) for t in page.locator("article .myst-admonition-header").all_text_contents()],
        "images": page.evaluate(
            """Array.from(document.images).map(i => ({
                 src: i.currentSrc || i.src, width: i.naturalWidth, inArticle: !!i.closest('article')}))"""
        ),
    }


PARALLEL_PAGES = 3  # pages loading at once: their network waits overlap; 2 cores limit the rest
JPEG_MAX_SIDE = 65_000  # a JPEG holds 65 535 pixels a side; Chromium wrote an empty file at exactly that
# What a page may take to load, settle and be photographed: one CI run, with chapters and real brokers running
# beside it on 2 cores, overran 60 s on the API reference (2.6 MB of HTML); alone it takes 7 s.
SLOW_MS = 180_000


@pytest.fixture(scope="module")
def rendered(browser, base_url, site_pages, screenshot_dir) -> dict[str, dict]:
    """Every built page loaded, inspected and photographed (a few at a time), by source file."""
    results: dict[str, dict] = {}
    items = list(site_pages.items())
    for at in range(0, len(items), PARALLEL_PAGES):
        batch = [(source, built, *_open(browser, base_url, built["path"])) for source, built in items[at : at + PARALLEL_PAGES]]
        for source, built, page, context, problems in batch:
            try:
                _settle(page)
                # JPEG: a 15 000-pixel chapter encodes in under a second (PNG takes 2-3 s).  A JPEG holds at most
                # 65 535 pixels a side: a taller page (the API reference, ~128 000) is photographed down to its top
                # JPEG_MAX_SIDE pixels; unclipped, Chromium wrote an empty file.
                full = os.environ.get("REBALANCE_SCREENSHOTS") == "full"
                height = page.evaluate("document.documentElement.scrollHeight") if full else 900
                page.screenshot(
                    path=str(screenshot_dir / f"{built['slug']}.jpg"),
                    full_page=full,
                    type="jpeg",
                    quality=75,
                    timeout=SLOW_MS,
                    clip={"x": 0, "y": 0, "width": 1280, "height": min(height, JPEG_MAX_SIDE)},
                )
                shot = screenshot_dir / f"{built['slug']}.jpg"
                assert shot.stat().st_size > 0, f"the screenshot {shot.name} is empty"
                results[source] = {**_inspect(page), "problems": problems}
            except Exception as exc:  # reported by the page's own test
                results[source] = {"failure": f"{type(exc).__name__}: {exc}", "problems": problems}
            finally:
                context.close()
    return results


@pytest.mark.skipif(not SOURCES, reason=f"no myst.yml table of contents in {BOOK_DIR}")
@pytest.mark.parametrize("source", SOURCES)
def test_page_renders(source, base_url, site_pages, rendered):
    assert source in site_pages, (
        f"{source} is in the table of contents of myst.yml but not in the built site "
        f"(pages built: {sorted(site_pages)}); rebuild with site/build.sh"
    )
    built = site_pages[source]
    seen = rendered[source]
    problems = seen["problems"]
    assert "failure" not in seen, f"the page did not finish loading: {seen.get('failure')} ({problems})"

    assert seen["url"].rstrip("/") == (base_url + built["path"]).rstrip("/"), "the page redirected"
    title = seen["title"]
    assert title, "empty <title>"

    expected = built["title"]
    source_path = BOOK_DIR / source
    if source_path.suffix == ".ipynb" and source_path.is_file():
        heading = first_heading(source_path)
        assert heading, f"{source} does not start with a '# Title' heading"
        expected = expected or heading
        assert heading == expected, f"{source}: heading {heading!r} but the site's title is {expected!r}"
    assert expected, f"{source} has no title"
    assert " ".join(expected.split()) in seen["h1s"], f"no <h1> {expected!r} on the page (h1s: {seen['h1s']})"
    assert expected.split()[0] in title, f"<title> {title!r} does not name the page {expected!r}"

    assert not seen["shown_errors"], f"the page shows {seen['shown_errors']}"
    assert not seen["no_css"], "the stylesheet did not load"

    if source_path.is_file():
        blocks = exercise_blocks(source_path)
        assert seen["exercise_blocks"] == blocks, (
            f"{source} has {blocks} exercise/solution directives but the page shows {seen['exercise_blocks']}"
        )

    images = seen["images"]
    broken = [i["src"] for i in images if i["width"] == 0]
    assert not broken, f"images that did not load: {broken}"
    wanted = notebook_image_outputs(source_path) if source_path.is_file() else built["json_images"]
    if wanted:
        shown = [i for i in images if i["inArticle"]]
        assert shown, f"{source} has {wanted} image output(s) but the page shows no image"

    assert not problems["pageerror"], f"uncaught page errors: {problems['pageerror']}"
    assert not problems["console"], f"hydration/console failures: {problems['console']}"
    assert not problems["local"], f"missing local files: {problems['local']}"
    problems["traffic"].assert_local(source)


CHAPTER_SOURCES = [s for s in SOURCES if re.match(r"chapters/\d\d-", s)]  # an appendix is no chapter


@pytest.mark.skipif(not CHAPTER_SOURCES, reason=f"no chapter in the myst.yml table of contents of {BOOK_DIR}")
@pytest.mark.parametrize("source", CHAPTER_SOURCES)
def test_chapter_page_scaffolding(source, rendered):
    """A chapter page shows objectives, prerequisites, numbered figure captions, citations, glossary links, a summary."""
    seen = rendered[source]
    assert "failure" not in seen, f"the page did not finish loading: {seen.get('failure')}"
    article_text = " ".join(seen["admonition_titles"])
    for title in ("Learning objectives", "Prerequisites"):
        assert title in article_text, f"{source}: no '{title}' box on the page (admonitions: {seen['admonition_titles']})"
    wanted = figure_cells(BOOK_DIR / source)
    captions = seen["figure_captions"]
    assert wanted, f"{source} has no figure"
    assert len(captions) == wanted, f"{source}: {wanted} figure cell(s) but {len(captions)} caption(s) on the page"
    unnumbered = [c for c in captions if not re.match(r"Figure \d+(?:\.\d+)*:\s*\S", c)]
    assert not unnumbered, f"{source}: captions without a figure number or text: {unnumbered}"
    assert seen["citations"] > 0, f"{source}: no citation on the page"
    assert seen["glossary_links"] > 0, f"{source}: no link into the glossary on the page"
    assert any(h.startswith("Summary") for h in seen["h2s"]), f"{source}: no 'Summary' section on the page ({seen['h2s']})"


@pytest.mark.skipif(not SOURCES, reason=f"no myst.yml table of contents in {BOOK_DIR}")
def test_sidebar_lists_every_page(browser, base_url, site_pages):
    """The table of contents in the sidebar links every page, and following a link lands on it."""
    page, context, problems = _load(browser, base_url, "/")
    try:
        nav = page.locator("nav[aria-label='Table of Contents']")
        assert nav.count() == 1, "no sidebar table of contents"
        toc_text = " ".join(" ".join(nav.all_inner_texts()).split())
        # The parts of myst.yml are shown, folded; unfolding each one shows its chapters.
        for part in PARTS:
            assert " ".join(part.split()) in toc_text, f"part {part!r} of myst.yml missing from the sidebar"
            nav.get_by_text(part, exact=True).first.click()
            page.wait_for_timeout(150)
        toc_text = " ".join(" ".join(nav.all_inner_texts()).split())
        for source, built in site_pages.items():
            if built["path"] == "/":
                continue
            assert " ".join(built["title"].split()) in toc_text, f"{built['title']!r} missing from the sidebar"
        # Follow the first chapter link: a full page load of a static page, no reload loop.
        first = next(p for p in site_pages.values() if p["path"] != "/")
        page.locator(f"a[href='{first['path'].rstrip('/')}']").first.click()
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(500)
        assert page.url.rstrip("/").endswith(first["path"].rstrip("/"))
        assert " ".join(first["title"].split()) in [" ".join(t.split()) for t in page.locator("h1").all_inner_texts()]
        assert not problems["pageerror"] and not problems["console"], problems
        problems["traffic"].assert_local("the landing page and the chapter reached from the sidebar")
    finally:
        context.close()


@pytest.mark.skipif(not SOURCES, reason=f"no myst.yml table of contents in {BOOK_DIR}")
def test_search_finds_a_chapter(browser, base_url, site_pages):
    """Ctrl-K search works offline: it loads the site's own index and lists the chapter searched for."""
    chapter = next(p for p in site_pages.values() if p["path"] != "/")
    page, context, problems = _load(browser, base_url, "/")
    try:
        # the key is pressed again until the dialog opens: on a loaded machine the page may not have attached its
        # handler yet (CI once failed here with 10 s waits)
        search = page.locator("input.myst-search-input")
        deadline = time.monotonic() + SLOW_MS / 1000
        while True:
            page.keyboard.press("Control+k")
            try:
                search.wait_for(state="visible", timeout=5_000)
                break
            except Exception as e:  # playwright's TimeoutError
                if type(e).__name__ != "TimeoutError":
                    raise
                assert time.monotonic() < deadline, "Ctrl-K opened no search box"
        search.fill(chapter["title"])
        dialog = page.get_by_role("dialog")
        dialog.get_by_text(chapter["title"], exact=False).first.wait_for(timeout=SLOW_MS)
        assert not problems["local"], problems
        problems["traffic"].assert_local("the search")
    finally:
        context.close()


@pytest.mark.skipif(not SOURCES, reason=f"no myst.yml table of contents in {BOOK_DIR}")
def test_solution_dropdown_opens(browser, base_url, site_pages):
    """A dropdown solution starts closed and opens on click (the first page that has one)."""
    with_solutions = [
        built for source, built in site_pages.items()
        if (BOOK_DIR / source).is_file() and exercise_blocks(BOOK_DIR / source)
    ]
    if not with_solutions:
        pytest.skip("no page has exercises")
    page, context, problems = _load(browser, base_url, with_solutions[0]["path"])
    try:
        solution = page.locator("details.myst-exercise").first
        assert solution.count() == 1, "no dropdown solution on the page"
        assert not solution.evaluate("d => d.open"), "the solution is open before clicking"
        solution.locator("summary").first.click()
        page.wait_for_timeout(200)
        assert solution.evaluate("d => d.open"), "the solution did not open"
        assert solution.locator(".myst-exercise-body").first.is_visible()
        assert not problems["pageerror"], problems
        problems["traffic"].assert_local(with_solutions[0]["path"])
    finally:
        context.close()
