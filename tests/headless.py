"""Headless Chromium for the browser tests (the book site, its live pages, JupyterLab).

One place for what every browser test needs:

* ``CHROMIUM`` (env ``CHROMIUM``, default Debian's ``/usr/bin/chromium``; ``make chromium`` installs it) and
  the flags it is launched with (``launch``); ``tests/conftest.py`` turns that into the session-wide
  ``browser`` fixture;
* ``OfflineTraffic``: a browser context whose network stops at 127.0.0.1.  It records the URL of every
  request the pages of the context make (HTTP and WebSocket), lets the local ones through, aborts the
  others, and names the first one that left the machine (``first_external``).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
# The machine itself: the site, `make serve`'s Jupyter server (HTTP and its kernel WebSockets), JupyterLab.
_LOCAL = re.compile(r"(?:https?|wss?)://127\.0\.0\.1(?::\d+)?(?:[/?#]|$)")
_INLINE = ("data:", "blob:", "about:")


def is_local(url: str) -> bool:
    """True for URLs that stay on this machine (127.0.0.1, any port) or inside the page."""
    return url.startswith(_INLINE) or bool(_LOCAL.match(url))


def require_chromium() -> None:
    if not Path(CHROMIUM).exists() and not shutil.which(CHROMIUM):
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: install Debian's package "
            "(apt-get update && apt-get install -y chromium chromium-driver, or `make chromium`) "
            "or set CHROMIUM=/path/to/chromium"
        )


@contextlib.contextmanager
def launch() -> Iterator[object]:
    """Headless Chromium (a Playwright ``Browser``), closed on exit."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


class OfflineTraffic:
    """Every URL a context's pages request, in order; requests outside 127.0.0.1 are aborted.

    ``OfflineTraffic(context)`` routes the context (call it before the first page is opened) and
    ``watch(page)`` adds a page's WebSockets, which routes do not see.
    """

    def __init__(self, context) -> None:
        self.urls: list[str] = []
        context.route("**/*", self._route)
        context.on("page", self.watch)

    def _route(self, route) -> None:
        url = route.request.url
        self.urls.append(url)
        if is_local(url):
            route.continue_()
        else:
            route.abort()

    def watch(self, page) -> None:
        page.on("websocket", lambda ws: self.urls.append(ws.url))

    def __repr__(self) -> str:
        return f"OfflineTraffic({len(self.urls)} requests, first outside 127.0.0.1: {self.first_external()})"

    def external(self) -> list[str]:
        return [url for url in self.urls if not is_local(url)]

    def first_external(self) -> str | None:
        """The first URL that was not on 127.0.0.1 (None: the pages stayed on this machine)."""
        return next(iter(self.external()), None)

    def assert_local(self, what: str = "the page") -> None:
        first = self.first_external()
        assert first is None, (
            f"{what} requested {first}, outside 127.0.0.1 (no CDN at run time); "
            f"{len(self.external())} of {len(self.urls)} requests left the machine"
        )
