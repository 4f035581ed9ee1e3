"""Which chapters ``make book`` must execute: those whose stored notebook is not the executed twin of its text.

Each chapter is a jupytext pair: ``NN-name.md`` (the text, edited by hand) and ``NN-name.ipynb`` (the same cells,
executed, with their outputs; committed).  A chapter is *stale* when its notebook is missing, when the notebook's
cells (kind and source, in order) differ from the text's, or when one of its code cells was never executed.  The
others are not executed again by ``make book``: their stored outputs are what the current code computes, because
``make test`` re-executes every chapter under nbval and fails when one output differs.  ``--all`` names every
chapter (``make book EXECUTE=all``).

Prints the stale chapters' ``.md`` paths, one per line, in the order given; the reason for each goes to stderr.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List, Optional, Tuple

import jupytext


def cells(notebook) -> List[Tuple[str, str]]:
    return [(c.cell_type, c.source.strip()) for c in notebook.cells]


def why_stale(md: Path) -> Optional[str]:
    """Why the chapter ``md`` must be executed, or ``None`` when its stored notebook is current."""
    ipynb = md.with_suffix(".ipynb")
    if not ipynb.is_file():
        return "no stored notebook"
    text, stored = jupytext.read(md), jupytext.read(ipynb)
    if cells(text) != cells(stored):
        return "its text differs from the stored notebook"
    unexecuted = [i for i, c in enumerate(stored.cells) if c.cell_type == "code" and c.source.strip()
                  and c.get("execution_count") is None]
    if unexecuted:
        return f"{len(unexecuted)} code cell(s) of the stored notebook were never executed"
    return None


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="name every chapter")
    parser.add_argument("chapters", nargs="+", type=Path)
    args = parser.parse_args(argv)
    stale = []
    for md in args.chapters:
        why = "EXECUTE=all" if args.all else why_stale(md)
        if why:
            stale.append(md)
            print(f"{md}: to execute ({why})", file=sys.stderr)
    print(f"{len(stale)} of {len(args.chapters)} chapters to execute; the stored notebooks of the others are current "
          "(make test re-executes every chapter under nbval; make book EXECUTE=all re-executes them here)",
          file=sys.stderr)
    for md in stale:
        print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
