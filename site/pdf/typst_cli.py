"""The two `typst` commands mystmd runs, over PyPI's `typst` wheel: `typst --version` and
`typst compile IN.typ [OUT.pdf]`.

The book's layout (template/book.typ) needs two facts that Typst cannot see from inside the document,
passed as `sys.inputs`, both read off the main file mystmd wrote (its part titles are level-1 headings
written in it; its pages are `#include "NAME-SLUG.typ"` lines in the order of myst.yml's toc):
`rebalance-parts`, the part titles one a line; `rebalance-chapters`, for each included page its chapter
number, the NN of `chapters/NN-SLUG.ipynb` (the number the site's figure and exercise numbers carry), empty for
the pages outside chapters/; and `rebalance-enumerators`, for each included page the prefix of its figure and
exercise numbers (`2.` when the chapter's front matter says `numbering: enumerator: 2.%s`), so that an
exercise box says "Exercise 2.1" as the site and the cross-references do.

Pages of the site only (`SITE_ONLY`: the API reference, 60-odd pages of signatures generated from the docstrings)
are left out of the printed book: the main file is compiled without their `#include` lines (a copy,
`NAME.print.typ`, next to it).  They stay in myst.yml's table of contents, so the site keeps them.

Typst packages (`#import "@preview/..."`) are resolved from site/pdf/packages only, never downloaded:
the book's generated pages import `@preview/tablex:0.0.9`, which site/pdf/packages maps onto Typst's
native tables.  The fonts are the ones embedded in the compiler (no system font is read), so the PDF
is the same on every machine.
"""
from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import typst

HERE = Path(__file__).resolve().parent
PACKAGES = HERE / "packages"
REPO = HERE.parents[1]
# Fonts besides those embedded in the compiler (Libertinus Serif, New Computer Modern, DejaVu Sans Mono), from
# Debian packages that `make pdf-tools` installs: DejaVu Sans for labels and running heads (fonts-dejavu-core)
# and a CJK font for the glossary's Chinese terms (fonts-wqy-microhei).  No other system font is read.
FONT_DIRS = [d for d in ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/wqy") if Path(d).is_dir()]
# Pages of myst.yml's toc that belong to the site only, by their source file.
SITE_ONLY = ("api.md",)


def book_inputs(main: Path, stem: str | None = None) -> dict[str, str]:
    """The part titles and the chapter number of each included page, read off mystmd's main file (whose pages are
    `STEM-SLUG.typ`, STEM the main file's own stem unless given)."""
    parts, numbers, prefixes = [], [], []
    for line in main.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"^=\s+(.+?)\s*$", line)
        if heading:
            parts.append(heading.group(1))
        include = re.match(r'^#include\s+"(.+)\.typ"', line)
        if include:
            number, prefix = chapter_numbering(include.group(1).removeprefix((stem or main.stem) + "-"))
            numbers.append(number)
            prefixes.append(prefix)
    return {"rebalance-parts": "\n".join(parts), "rebalance-chapters": ",".join(numbers),
            "rebalance-enumerators": ",".join(prefixes)}


def chapter_numbering(slug: str) -> tuple[str, str]:
    """The chapter number and the enumerator prefix of the page whose mystmd slug is `slug` (mystmd drops
    the NN- of chapters/NN-SLUG.*): ("2", "2.") for chapters/02-range-assignor.md with `enumerator: 2.%s`."""
    for path in sorted((REPO / "chapters").glob(f"[0-9]*-{slug}.md")):
        enumerator = re.search(r"^\s+enumerator:\s*['\"]?([^'\"\n]*)%s", path.read_text(encoding="utf-8"), re.M)
        return str(int(path.name.split("-", 1)[0])), enumerator.group(1) if enumerator else ""
    return "", ""


def slug_of(source: str) -> str:
    """mystmd's slug of a toc file: its stem without a leading NN- (chapters/02-range-assignor.md: range-assignor)."""
    return re.sub(r"^\d+-", "", Path(source).stem).lower()


def print_main(main: Path) -> Path:
    """The main file without the `#include` lines of the site-only pages (and the page break before each): a copy
    next to it, or the main file itself when it includes none."""
    skip = {f'#include "{main.stem}-{slug_of(name)}.typ"' for name in SITE_ONLY}
    lines = main.read_text(encoding="utf-8").splitlines()
    kept: list[str] = []
    for line in lines:
        if line.strip() in skip:
            while kept and kept[-1].strip() in ("", "#pagebreak()"):
                kept.pop()
            continue
        kept.append(line)
    if len(kept) == len(lines):
        return main
    printed = main.with_name(f"{main.stem}.print.typ")
    printed.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return printed


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: typst --version | typst compile IN.typ [OUT.pdf]")
        return 0 if argv else 2
    if argv[0] in ("--version", "-V"):
        version = getattr(typst, "__version__", "unknown")
        print(f"typst {version} (python binding)")
        return 0
    if argv[0] != "compile":
        print(f"typst: only `compile` and `--version` are provided here, not {argv[0]!r}", file=sys.stderr)
        return 2
    paths = [a for a in argv[1:] if not a.startswith("-")]
    if not paths:
        print("typst compile: missing input file", file=sys.stderr)
        return 2
    source = Path(paths[0]).resolve()
    output = Path(paths[1]).resolve() if len(paths) > 1 else source.with_suffix(".pdf")
    started = time.monotonic()
    try:
        printed = print_main(source)
        _, warnings = typst.compile_with_warnings(
            str(printed), output=str(output), root="/", package_path=str(PACKAGES),
            ignore_system_fonts=True, font_paths=FONT_DIRS, sys_inputs=book_inputs(printed, source.stem))
    except Exception as exc:  # the binding raises one exception type carrying Typst's diagnostics
        print(f"typst compile {source.name}: {exc}", file=sys.stderr)
        return 1
    for warning in warnings:
        print(f"typst warning: {warning.message}", file=sys.stderr)
    print(f"typst: wrote {output} in {time.monotonic() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
