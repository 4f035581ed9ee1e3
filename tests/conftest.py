"""Fixtures shared by the test folders.

``browser``: one headless Chromium for every browser test of the session (tests/site, tests/book),
launched with tests/headless.py's flags on first use and closed at the end.  pytest puts this folder on
``sys.path`` for this file, which is how the browser tests ``import headless``.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def browser():
    import headless

    with headless.launch() as chromium:
        yield chromium
