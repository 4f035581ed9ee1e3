"""The chapters' numbers follow the reading order: myst.yml's toc lists the chapter files ``chapters/NN-slug``
with NN = 00, 01, 02, ... in that order, none missing, none repeated, so the contents read 1, 2, 3, ... (the
figures, exercises and cross-references carry the file's number: ``tests/test_chapter_scaffold.py``).  Every
numbered chapter file is in the toc; the pages without a number (the preface, an appendix, the glossary) are
left out of the count.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests"))
from book_toc import read_toc  # noqa: E402

CHAPTER = re.compile(r"^chapters/(\d\d)-[^/]+\.(?:ipynb|md)$")


def toc_chapters(book_dir: Path) -> list[tuple[int, str]]:
    """(number, file) of each numbered chapter of ``book_dir/myst.yml``'s toc, in toc order."""
    files, _ = read_toc(book_dir)
    return [(int(m.group(1)), f) for f in files if (m := CHAPTER.match(f))]


def numbering_problems(book_dir: Path) -> list[str]:
    """Where the toc's chapter numbers depart from 0, 1, 2, ... in reading order (empty: none)."""
    return [f"position {i} of the toc's chapters is {f} (its number should be {i:02d})"
            for i, (number, f) in enumerate(toc_chapters(book_dir)) if number != i]


def test_the_toc_numbers_the_chapters_in_reading_order():
    assert toc_chapters(REPO), "myst.yml's toc lists no chapters/NN-*.ipynb"
    problems = numbering_problems(REPO)
    assert not problems, "the chapters are not numbered in reading order: " + "; ".join(problems)


def test_every_numbered_chapter_is_in_the_toc():
    on_disk = {p.stem for p in (REPO / "chapters").glob("[0-9][0-9]-*.ipynb")}
    in_toc = {Path(f).stem for _, f in toc_chapters(REPO)}
    assert on_disk == in_toc, f"not in the toc: {sorted(on_disk - in_toc)}; no such file: {sorted(in_toc - on_disk)}"


def test_a_swap_in_the_toc_is_found(tmp_path: Path):
    """The check reads what it should: two chapters listed in the wrong order are both reported."""
    (tmp_path / "myst.yml").write_text(
        "project:\n  toc:\n    - file: index.md\n    - file: chapters/00-a.ipynb\n"
        "    - title: Part\n      children:\n        - file: chapters/02-c.ipynb\n        - file: chapters/01-b.ipynb\n"
        "    - file: chapters/appendix-x.ipynb\n", encoding="utf-8")
    problems = numbering_problems(tmp_path)
    assert [p.split(" is ")[1].split(" ")[0] for p in problems] == ["chapters/02-c.ipynb", "chapters/01-b.ipynb"]
