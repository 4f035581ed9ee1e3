"""The book's list of chapters, read from its table of contents (``myst.yml``), for the opening chapter.

Defined for chapter 00: "What the chapters cover" is this table, so it names every chapter the book has, in
the order and under the parts of ``myst.yml``'s ``project.toc`` (the order of the website and the PDF), each
with the title of its notebook's first heading.
"""
from __future__ import annotations

import importlib
import json
import re
from pathlib import Path
from typing import Any, Optional, Union

import pandas as pd

#: the repository folder that holds ``myst.yml`` and ``chapters/``
BOOK_DIR = Path(__file__).resolve().parents[3]
_CHAPTER = re.compile(r"(?:^|/)(\d\d)-[^/]+\.(?:ipynb|md)$")


def _toc(book_dir: Path) -> list[tuple[Optional[str], str]]:
    """(part title or None, file) for every file entry of ``project.toc``, in order."""
    yaml: Any = importlib.import_module("yaml")      # PyYAML, which jupytext (the book extra) brings
    config = yaml.safe_load((book_dir / "myst.yml").read_text(encoding="utf-8")) or {}
    entries: list[tuple[Optional[str], str]] = []

    def walk(items: Any, part: Optional[str]) -> None:
        for item in items or []:
            if "file" in item:
                entries.append((part, item["file"]))
            walk(item.get("children"), item.get("title") if "file" not in item else part)

    walk((config.get("project") or {}).get("toc"), None)
    return entries


def chapter_title(path: Path) -> str:
    """The text of a chapter's first ``# `` heading (its ``.ipynb`` or its ``.md``)."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    else:
        text = path.read_text(encoding="utf-8")
    match = re.search(r"^# (.+)$", text, flags=re.M)
    if match is None:
        raise ValueError(f"{path.name} has no '# ' heading")
    return match.group(1).strip()


def chapter_table(book_dir: Union[str, Path, None] = None) -> pd.DataFrame:
    """Every chapter of the book's table of contents: its number, its part and its title, in reading order.

    Chapters are the toc's files named ``NN-slug``; the pages around them (the preface, the glossary, the
    references, the API reference) are left out.
    """
    root = Path(book_dir) if book_dir is not None else BOOK_DIR
    rows = []
    for part, file in _toc(root):
        match = _CHAPTER.search(file)
        if match is None:
            continue
        rows.append({"chapter": match.group(1), "part": part or "", "title": chapter_title(root / file)})
    return pd.DataFrame(rows).set_index("chapter")


__all__ = ["chapter_table", "chapter_title"]
