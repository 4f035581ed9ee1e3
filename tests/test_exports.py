"""Each area of the package says what is public, as httpx's exported-members test does (issue 26).

Every area package (``consumer``, ``protocol``, ``connect``, ``replicas``, ``kip848``, ``live``, ``kafka``,
``spark``) and the package root list their public names in ``__all__``; every name there resolves (the lazy
ones load), none is private, none is listed twice, and each public class or function has a docstring.  Every
exception class of the package is defined in ``rebalance.errors`` and derives from ``RebalanceError``.

The chapters import only from ``rebalance``, an area or a top-level module (``rebalance.errors``), never from a
module inside an area; the widgets and figures of a page (``rebalance.widgets.*``, ``rebalance.viz.*``) are the
exception.  A name a chapter imports from an area is in the area's ``__all__``.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import rebalance
from rebalance import errors

AREAS = ["consumer", "protocol", "connect", "replicas", "kip848", "live", "kafka", "spark"]


@pytest.mark.parametrize("area", ["", *AREAS])
def test_area_exports_its_public_names(area):
    module = importlib.import_module(f"rebalance.{area}" if area else "rebalance")
    names = getattr(module, "__all__", None)
    assert names, f"{module.__name__} has no __all__"
    assert len(names) == len(set(names)), f"{module.__name__}.__all__ lists a name twice"
    for name in names:
        assert not name.startswith("_") or name == "__version__", f"{module.__name__}.__all__ lists {name}"
        value = getattr(module, name)  # raises if a lazy name does not resolve
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), f"{module.__name__}.{name} has no docstring"
    assert set(names) <= set(dir(module))
    assert set(getattr(module, "_EXPORTS", {})) <= set(names), f"{module.__name__} loads names it does not list"


def _modules():
    for info in pkgutil.walk_packages(rebalance.__path__, "rebalance."):
        if info.name.endswith("__main__"):
            continue
        yield importlib.import_module(info.name)


def test_every_exception_lives_in_errors():
    found = {}
    for module in _modules():
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__.startswith("rebalance"):
                found[f"{value.__module__}.{value.__qualname__}"] = value
    outside = sorted(k for k in found if not k.startswith("rebalance.errors."))
    assert outside == [], f"exception classes outside rebalance.errors: {outside}"
    assert all(issubclass(v, errors.RebalanceError) for v in found.values())


CHAPTERS = sorted((Path(__file__).resolve().parent.parent / "chapters").glob("*.md"))
_IMPORT = re.compile(r"^[ \t]*(from rebalance[\w.]* import (?:\([^)]*\)|[^\n]*)|import rebalance[^\n]*)$", re.M)


def _chapter_imports(path: Path):
    """Every ``import`` of the package in a chapter's code, cells and solutions alike: (module, names)."""
    for match in _IMPORT.finditer(path.read_text(encoding="utf-8")):
        statement = ast.parse(match.group(1).strip()).body[0]
        if isinstance(statement, ast.ImportFrom):
            yield statement.module, [alias.name for alias in statement.names]
        else:
            for alias in statement.names:
                yield alias.name, []


def test_chapters_found():
    assert len(CHAPTERS) >= 14
    assert sum(1 for path in CHAPTERS for _ in _chapter_imports(path)) > 100


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem[:2])
def test_chapters_import_only_public_names(path):
    wrong = []
    for module, names in _chapter_imports(path):
        parts = module.split(".")
        if len(parts) > 2 and parts[1] not in ("widgets", "viz"):
            wrong.append(f"{module} is deeper than an area")
        elif len(parts) == 2 and parts[1] in AREAS:
            public = set(importlib.import_module(module).__all__)
            wrong += [f"{module}.{name} is not in its __all__" for name in names if name not in public]
    assert wrong == [], f"{path.name}: {wrong}"
