"""The book's table of contents, read from ``myst.yml`` the way mystmd reads it (for the site and PDF tests)."""

from __future__ import annotations

import glob
from pathlib import Path


def read_toc(book_dir: Path) -> tuple[list[str], list[str]]:
    """(source files, part titles) of ``book_dir/myst.yml``'s ``project.toc``, in order.

    Files are paths relative to ``book_dir``; a ``pattern`` entry is expanded and sorted, a file listed twice
    counts once.  A part is an entry with a ``title`` and ``children`` but no file of its own.  Without a
    ``myst.yml`` both lists are empty.
    """
    import yaml

    config_file = book_dir / "myst.yml"
    if not config_file.is_file():
        return [], []
    project = (yaml.safe_load(config_file.read_text(encoding="utf-8")) or {}).get("project") or {}
    files: list[str] = []
    parts: list[str] = []

    def walk(entries) -> None:
        for entry in entries or []:
            if "file" in entry:
                files.append(entry["file"])
            elif "pattern" in entry:
                matches = sorted(glob.glob(str(book_dir / entry["pattern"]), recursive=True))
                files.extend(Path(m).relative_to(book_dir).as_posix() for m in matches)
            elif entry.get("title") and entry.get("children"):
                parts.append(entry["title"])
            walk(entry.get("children"))

    walk(project.get("toc"))
    return list(dict.fromkeys(files)), parts
