"""Write the book's API reference page (``api.md``) from the package's docstrings.

Run by ``site/build.sh`` before every site build, so the page always shows the code that built the book:

    python site/api_reference.py [OUTPUT]        # default: api.md at the repository's top

For each public module it lists the names of ``__all__`` (or the module's own public functions and classes
where it has no ``__all__``) with their signatures and docstrings.  The page is generated, never edited by
hand (``api.md`` is ignored by git).
"""
from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: the modules of the reference, in reading order: the core first, then the book's helpers
MODULES = (
    "rebalance",
    "rebalance.consumer",
    "rebalance.protocol",
    "rebalance.connect",
    "rebalance.replicas",
    "rebalance.kip848",
    "rebalance.share",
    "rebalance.streams",
    "rebalance.timeouts",
    "rebalance.common",
    "rebalance.vectors",
    "rebalance.simulate",
    "rebalance.errors",
    "rebalance.validation",
    "rebalance.java",
    "rebalance.spark",
    "rebalance.live",
    "rebalance.kafka",
)

HEADER = """---
title: API reference
---

# API reference

The public interface of the `rebalance` package, generated from its docstrings each time the book is built
(`site/api_reference.py`). `pip install .` gives the core (every algorithm, the vectors runner and the command
line, pure Python); the extras `viz`, `widgets`, `spark`, `live` and `book` add the rest.
"""


def _clean(doc: str | None) -> str:
    """A docstring as MyST: Sphinx roles (``:class:`X` ``) become inline code; doctest blocks become code."""
    if not doc:
        return "*(no docstring)*"
    text = inspect.cleandoc(doc)
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text)
    lines, out, in_doctest = text.splitlines(), [], False
    for line in lines:
        is_doctest = line.lstrip().startswith(">>>")
        if is_doctest and not in_doctest:
            out.append("```python")
            in_doctest = True
        elif in_doctest and not line.strip():
            out.append("```")
            in_doctest = False
        out.append(line.strip() if in_doctest else line)
    if in_doctest:
        out.append("```")
    return "\n".join(out)


def _signature(name: str, obj) -> str:
    try:
        return f"{name}{inspect.signature(obj)}"
    except (TypeError, ValueError):
        return name


def _public_names(module) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    return sorted(n for n, v in vars(module).items()
                  if not n.startswith("_") and (inspect.isfunction(v) or inspect.isclass(v))
                  and getattr(v, "__module__", "") == module.__name__)


def _entry(qualified: str, name: str, obj) -> list[str]:
    kind = "class" if inspect.isclass(obj) else "function" if callable(obj) else "data"
    lines = [f"### `{name}`", ""]
    if kind == "data":
        lines += [f"`{qualified}.{name}` = `{obj!r}`"[:300], ""]
        return lines
    lines += ["```python", f"{'class ' if kind == 'class' else ''}{_signature(name, obj)}", "```", "",
              _clean(inspect.getdoc(obj)), ""]
    if kind == "class":
        for attr, member in sorted(vars(obj).items()):
            if attr.startswith("_") or not (inspect.isfunction(member) or isinstance(member, property)):
                continue
            target = member.fget if isinstance(member, property) else member
            doc = inspect.getdoc(target)
            if not doc:
                continue
            label = attr if isinstance(member, property) else _signature(attr, target)
            lines += [f"* `{label}`: {_clean(doc).splitlines()[0]}"]
        lines.append("")
    return lines


def render() -> str:
    parts = [HEADER]
    for module_name in MODULES:
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:  # an extra that is not installed
            parts.append(f"## `{module_name}`\n\n*(not importable here: {exc})*\n")
            continue
        parts += [f"## `{module_name}`", "", _clean(module.__doc__), ""]
        for name in _public_names(module):
            obj = getattr(module, name)
            if inspect.ismodule(obj):
                continue
            parts += _entry(module_name, name, obj)
    return "\n".join(parts).rstrip() + "\n"


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else REPO / "api.md"
    out.write_text(render(), encoding="utf-8")
    print(f"[site/api] wrote {out.relative_to(REPO) if out.is_relative_to(REPO) else out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
