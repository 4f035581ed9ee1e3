"""Live pages: `make serve`'s set-up (site/serve.py) driven in headless Chromium.

``site/serve.py`` is started exactly as ``make serve`` starts it, on free ports, over the built site
(``REBALANCE_SITE_DIR`` or ``_build/html``, rebuilt when stale: the ``site_dir`` fixture of
test_site_browser.py).  With all network access outside 127.0.0.1 blocked we check that:

* the site announces its Jupyter server at ``/rebalance-live.json`` (loopback address, a token) only to
  the browser that opened ``make serve``'s one-time link (its session cookie) and only on requests
  addressed to 127.0.0.1/localhost: a plain request, a wrong cookie, another Host or a second use of the
  link learns nothing; the Jupyter server refuses requests without the token and
  grants cross-origin access to the site's own origin only; its ``python3`` kernel imports this
  checkout's ``rebalance``;
* chapter 04 offers "Make interactive"; once connected, running its code cells down to the widget cell
  turns the widget's static twin into live ipywidgets, and moving the "members" slider changes the
  widget's table and figure (both recomputed by the kernel);
* served as a plain static site (no ``make serve``), the same chapter keeps its static twin (the figure
  and the table printed next to the widget), shows the widget placeholder and a note telling how to get
  the live version, and offers no "Make interactive";
* neither the live page (site, Jupyter server, kernel WebSocket) nor the static one requests anything
  outside 127.0.0.1: every URL is recorded (tests/headless.py) and the first outside one is named.

Everything started here (serve.py, the Jupyter server, its kernels, the browser contexts) is stopped
when the module ends, also on failure.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import http.cookiejar
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from headless import OfflineTraffic
from test_site_browser import BOOK_DIR, base_url, site_dir  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser

SERVE = BOOK_DIR / "site" / "serve.py"
LIVE_CHAPTER = "chapters/04-sticky-assignor.ipynb"  # its "how sticky is sticky?" widget has sliders
READY = re.compile(r"\[serve\] ready site=(\S+) jupyter=(\S+) jupyter_pgid=(\d+) open=(\S+)")


# ---- make serve's set-up ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def live_server(site_dir: Path):  # noqa: F811 - the fixture imported above
    """site/serve.py on free ports; yields {"site", "jupyter", "token"}; stopped (SIGTERM, then SIGKILL)."""
    proc = subprocess.Popen(
        [sys.executable, str(SERVE), "--port", "0", "--jupyter-port", "0", "--site", str(site_dir)],
        cwd=BOOK_DIR, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    output: list[str] = []

    def pump() -> None:
        for line in proc.stdout:
            output.append(line)
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    jupyter_pgid = 0
    try:
        deadline = time.monotonic() + 120
        match = None
        while match is None and time.monotonic() < deadline and proc.poll() is None:
            try:
                match = READY.search(lines.get(timeout=0.5))
            except queue.Empty:
                continue
        assert match, f"site/serve.py did not get ready:\n{''.join(output)}"
        site, jupyter, jupyter_pgid, link = match.group(1), match.group(2), int(match.group(3)), match.group(4)
        # Before the link is used, and without its cookie after, the site says nothing of the server.
        plain = _request(site + "rebalance-live.json")
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        with opener.open(link, timeout=10) as response:  # 303 to the book, with the session cookie
            landed = response.geturl()
        with opener.open(site + "rebalance-live.json", timeout=10) as response:
            live = json.load(response)
        cookie = {c.name: c.value for c in jar}
        yield {"site": site, "jupyter": jupyter, "live": live, "proc": proc, "output": output, "link": link,
               "plain": plain, "landed": landed, "cookie": cookie}
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)  # serve.py shuts the Jupyter server and its kernels down
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        if proc.returncode != 0:
            # serve.py did not stop cleanly (it waits for the Jupyter server when it does): end whatever
            # is left in its process group and in the Jupyter server's (its own session).
            for group in (proc.pid, jupyter_pgid):
                try:
                    if group:
                        os.killpg(group, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        proc.wait(timeout=10)
    # serve.py's own shutdown must have stopped the Jupyter server (teardown error otherwise).
    assert proc.returncode == 0, f"site/serve.py exited with {proc.returncode}:\n{''.join(output)[-3000:]}"
    assert _request(jupyter + "api/status")[0] is None, "the Jupyter server still answers after serve.py stopped"


def _request(url: str, token: str | None = None, headers: dict | None = None):
    """(status, headers, body) of a GET; HTTP errors are answers, not exceptions; (None, {}, b"") when
    nobody listens."""
    request = urllib.request.Request(url, headers=dict(headers or {}))
    if token:
        request.add_header("Authorization", f"token {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read()
    except (urllib.error.URLError, OSError):
        return None, {}, b""


def test_serve_announces_a_private_jupyter_server(live_server):
    live, site, jupyter = live_server["live"], live_server["site"], live_server["jupyter"]
    assert live["live"] is True and live["url"] == jupyter, live
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", jupyter), f"the Jupyter server is not on loopback: {jupyter}"
    assert re.fullmatch(r"[0-9a-f]{32,}", live["token"]), "no random token"
    assert live["kernelName"] == "python3"

    # The announcement is for the reader's browser only: before the one-time link was used, without its
    # cookie, with a wrong one, or addressed to another Host name, the static answer.
    assert live_server["landed"] == site, live_server["landed"]
    cookie = live_server["cookie"]
    assert list(cookie) == ["rebalance_live"] and re.fullmatch(r"[0-9a-f]{32,}", cookie["rebalance_live"])
    status, _, body = live_server["plain"]
    assert status == 200 and json.loads(body) == {"live": False}
    status, _, body = _request(site + "rebalance-live.json")
    assert status == 200 and json.loads(body) == {"live": False}
    status, _, body = _request(site + "rebalance-live.json", headers={"Cookie": "rebalance_live=" + "0" * 48})
    assert status == 200 and json.loads(body) == {"live": False}
    status, _, body = _request(site + "rebalance-live.json",
                               headers={"Host": "attacker.example", "Cookie": f"rebalance_live={cookie['rebalance_live']}"})
    assert status == 200 and json.loads(body) == {"live": False}
    status, _, body = _request(site + "rebalance-live.json", headers={"Cookie": f"rebalance_live={cookie['rebalance_live']}"})
    assert status == 200 and json.loads(body) == live
    # The link works once, and a guessed key never.
    status, headers, _ = _request(live_server["link"])
    assert status == 403 and headers.get("Set-Cookie") is None
    status, headers, _ = _request(site + "rebalance-live/open?key=guess")
    assert status == 403 and headers.get("Set-Cookie") is None
    assert token_free(live_server["output"], live["token"])

    # The Jupyter server wants the token.
    status, _, _ = _request(jupyter + "api/kernelspecs")
    assert status == 403, f"the Jupyter server answered {status} without a token"
    status, _, body = _request(jupyter + "api/kernelspecs", token=live["token"])
    assert status == 200 and "python3" in json.loads(body)["kernelspecs"]

    # Cross-origin access: the site's origin (as 127.0.0.1 or localhost), nobody else.
    origin = site.rstrip("/")
    for allowed in (origin, origin.replace("127.0.0.1", "localhost")):
        _, headers, _ = _request(jupyter + "api/kernelspecs", token=live["token"], headers={"Origin": allowed})
        assert headers.get("Access-Control-Allow-Origin") == allowed
    _, headers, _ = _request(jupyter + "api/kernelspecs", token=live["token"], headers={"Origin": "http://evil.example"})
    assert headers.get("Access-Control-Allow-Origin") is None


def token_free(output: list, token: str) -> bool:
    """serve.py's terminal output never shows the Jupyter token (the one-time link stands for it)."""
    return not any(token in line for line in output)


def _chapter_path(site_dir: Path, source: str) -> str:
    """URL path of the page built from ``source`` (from the site's own page JSON)."""
    config = json.loads((site_dir / "config.json").read_text(encoding="utf-8"))
    for project in config.get("projects", []):
        for page in project.get("pages", []):
            if "slug" not in page:
                continue
            data = json.loads((site_dir / f"{page['slug']}.json").read_text(encoding="utf-8"))
            if data.get("location", "").lstrip("/") == source:
                return f"/{page['slug'].replace('.', '/')}/"
    pytest.fail(f"{source} is not a page of the built site {site_dir}")


def _open(browser, origin: str, path: str, hold: str | None = None, cookies: dict | None = None):
    """A page with the network outside 127.0.0.1 blocked; returns (page, context, problems).

    ``problems["traffic"]`` records every URL requested: the site's, the Jupyter server's (HTTP and the
    kernel's WebSocket), and any other, which is aborted and named by ``assert_local``.  Requests matching
    the glob ``hold`` wait until ``problems["release"]()`` lets them (and any later ones) through."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    if cookies:  # the session cookie the one-time link gave (the reader's browser has it after the link)
        context.add_cookies([{"name": k, "value": v, "url": origin + "/"} for k, v in cookies.items()])
    problems: dict = {"pageerror": [], "local": [], "traffic": OfflineTraffic(context)}
    page = context.new_page()
    page.on("pageerror", lambda exc: problems["pageerror"].append(str(exc)))
    page.on("response", lambda resp: problems["local"].append(f"{resp.status} {resp.url}")
            if resp.url.startswith(origin) and resp.status >= 400 else None)
    if hold:
        held: list | None = []  # None once released

        def wait_or_pass(route) -> None:
            if held is None:
                route.fallback()  # on to the context's route (recorded, then sent)
            else:
                held.append(route)  # left unanswered: the request waits

        def release() -> None:
            nonlocal held
            waiting, held = held or [], None
            for route in waiting:
                route.fallback()
        page.route(hold, wait_or_pass)
        problems["release"] = release
    page.goto(origin + path, wait_until="domcontentloaded" if hold else "load", timeout=60_000)
    return page, context, problems


# Clicks a cell's "Run cell" button and resolves once the notebook is idle again (the button is disabled
# while any cell of the notebook runs; a cell takes at least thebe's 100 ms dispatch delay).
RUN_CELL = """async (button) => {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  button.click();
  const t0 = performance.now();
  while (!button.disabled && performance.now() - t0 < 1000) await sleep(20);
  while (button.disabled) await sleep(50);
}"""


def test_chapter_widget_comes_alive(live_server, browser, site_dir):  # noqa: F811
    # thebe-core's bundle is held back until after the click: a reader may click "Make interactive"
    # before it has loaded, when thebe-react's connect() does nothing and @myst-theme/jupyter's start()
    # skips the notebook (LivePage.tsx remembers the click and acts on it once the core has loaded)
    page, context, problems = _open(browser, live_server["site"].rstrip("/"), _chapter_path(site_dir, LIVE_CHAPTER),
                                    hold="**/thebe-core.min.js", cookies=live_server["cookie"])
    try:
        note = page.locator(".myst-live-note")
        note.and_(page.locator("[data-live-status=available]")).wait_for(timeout=30_000)
        assert page.evaluate("() => !window.thebeCore"), "thebe-core loaded although its bundle was held back"
        page.get_by_role("button", name="Make interactive").click()
        note.and_(page.locator("[data-live-status=starting]")).wait_for(timeout=10_000)
        problems["release"]()
        page.locator(".myst-live-note[data-live-status=ready]").wait_for(timeout=90_000)

        # Run the chapter's code cells in order, down to the first one whose output is a widget (its
        # static placeholder), the way a reader clicks each cell's run button.
        blocks = page.locator("div.myst-jp-nb-block:not(.sticky):has(button[aria-label='Run cell'])")
        widget_block = None
        for i in range(blocks.count()):
            block = blocks.nth(i)
            is_widget = block.locator(".thebe-ipywidgets-placeholder").count() > 0
            button = block.locator("button[aria-label='Run cell']").first
            button.evaluate(RUN_CELL, timeout=60_000)
            if is_widget:
                widget_block = block
                break
        assert widget_block is not None, f"{LIVE_CHAPTER} shows no widget output"

        widget = widget_block.locator(".jupyter-widgets.widget-vbox").first
        widget.wait_for(timeout=30_000)
        page.wait_for_function("w => w.querySelector('.widget-html-content table') && w.querySelector('img')",
                               arg=widget.element_handle(), timeout=30_000)
        assert widget_block.locator(".thebe-ipywidgets-placeholder").count() == 0, "the placeholder stayed"
        table_before = widget.locator(".widget-html-content").inner_text()
        image_before = widget.locator("img").first.get_attribute("src")

        # Move the "members" slider one step (keyboard on the slider handle, as a reader can).
        labels = [t.strip() for t in widget.locator(".widget-slider .widget-label").all_inner_texts()]
        assert "members" in labels, f"no members slider in the widget (sliders: {labels})"
        handle = widget.locator(".widget-slider").nth(labels.index("members")).locator("[role=slider]")
        value_before = handle.get_attribute("aria-valuenow")
        handle.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_function("([h, v]) => h.getAttribute('aria-valuenow') !== v",
                               arg=[handle.element_handle(), value_before], timeout=10_000)
        # The kernel recomputes the view: the table and the figure change.
        page.wait_for_function(
            "([w, t, i]) => w.querySelector('.widget-html-content').innerText !== t && w.querySelector('img').src !== i",
            arg=[widget.element_handle(), table_before, image_before], timeout=30_000,
        )
        assert "partitions that change owner" in widget.locator(".widget-html-content").inner_text()

        assert not problems["pageerror"], f"uncaught page errors: {problems['pageerror']}"
        assert not problems["local"], f"failed local requests: {problems['local']}"
        problems["traffic"].assert_local("the live page")
        assert any(u.startswith(("ws://127.0.0.1", "http://127.0.0.1")) and "/api/kernels" in u
                   for u in problems["traffic"].urls), "the recorded traffic has no kernel request"
    finally:
        context.close()


def test_static_page_keeps_its_twins_and_says_how_to_go_live(browser, base_url, site_dir):  # noqa: F811
    """Served as a plain static site: no kernel, the static twin, the placeholder and the note."""
    page, context, problems = _open(browser, base_url, _chapter_path(site_dir, LIVE_CHAPTER))
    try:
        page.wait_for_load_state("networkidle", timeout=60_000)
        note = page.locator(".myst-live-note")
        assert note.count() == 1 and note.get_attribute("data-live-status") == "static", "no static-page note"
        assert "make serve" in note.inner_text()
        assert page.get_by_role("button", name="Make interactive").count() == 0

        placeholder = page.locator(".thebe-ipywidgets-placeholder").first
        placeholder.wait_for(timeout=10_000)
        message = placeholder.locator(".thebe-ipywidgets-placeholder-message")
        shown = message.evaluate("e => getComputedStyle(e, '::after').content")
        assert "make serve" in shown, f"the widget placeholder does not say how to run it: {shown}"

        # The static twin: the cell before the widget prints the widget's figure and table.
        blocks = page.locator("div.myst-jp-nb-block:not(.sticky)")
        index = next(i for i in range(blocks.count()) if blocks.nth(i).locator(".thebe-ipywidgets-placeholder").count())
        twin = blocks.nth(index - 1)
        twin.scroll_into_view_if_needed()
        page.wait_for_function("b => [...b.querySelectorAll('img')].some(i => i.complete && i.naturalWidth > 0)",
                               arg=twin.element_handle(), timeout=20_000)
        assert "partitions that change owner" in twin.inner_text(), "the static twin's table is missing"

        assert not problems["pageerror"], f"uncaught page errors: {problems['pageerror']}"
        assert not problems["local"], f"failed local requests: {problems['local']}"
        problems["traffic"].assert_local("the static page")
    finally:
        context.close()


def test_serve_without_a_built_site_says_what_to_do(tmp_path):
    result = subprocess.run([sys.executable, str(SERVE), "--port", "0", "--site", str(tmp_path)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "make book" in result.stdout
