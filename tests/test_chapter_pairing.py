"""Every chapter is a MyST Markdown file paired with an executed notebook, and the two say the same."""
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("*.md"))


def _cells(nb):
    return [(c.cell_type, c.source.strip()) for c in nb.cells]


def test_there_are_chapters():
    assert CHAPTERS, "no chapters/*.md found"


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.name)
def test_pair_exists_and_is_in_sync(md):
    ipynb = md.with_suffix(".ipynb")
    assert ipynb.exists(), f"{md.name} has no paired {ipynb.name} (run: make chapter CH=chapters/{md.name})"
    text_nb = jupytext.read(md)
    stored_nb = jupytext.read(ipynb)
    assert _cells(text_nb) == _cells(stored_nb), (
        f"{md.name} and {ipynb.name} are out of sync (run: make chapter CH=chapters/{md.name})"
    )
    assert text_nb.metadata.get("kernelspec", {}).get("name") == "python3", f"{md.name}: kernelspec must be python3"


@pytest.mark.parametrize("md", CHAPTERS, ids=lambda p: p.name)
def test_notebook_is_executed(md):
    nb = jupytext.read(md.with_suffix(".ipynb"))
    code = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
    assert code, f"{md.name} has no code cells"
    unexecuted = [i for i, c in enumerate(code) if c.get("execution_count") is None]
    assert not unexecuted, f"{md.name}: code cells {unexecuted} have not been executed"
