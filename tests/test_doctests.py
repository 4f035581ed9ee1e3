"""The examples in the package's docstrings run and print what they show (issue 26).

Every module of ``src/rebalance`` whose source holds a ``>>>`` example is imported and its doctests run with
the standard library's ``doctest`` (``# doctest: +SKIP`` marks the examples that need Java, Spark or a
cluster).  A module that needs an optional dependency which is not installed (the core install) is
skipped.  The same examples run with ``pytest --doctest-modules src/rebalance``; this file runs them in
``make test`` without collecting the package a second time.
"""
from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"


def _modules_with_examples() -> list[str]:
    names = []
    for path in sorted((SRC / "rebalance").rglob("*.py")):
        if ">>>" in path.read_text(encoding="utf-8"):
            parts = path.relative_to(SRC).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = _modules_with_examples()


def test_some_modules_have_examples() -> None:
    assert "rebalance.replicas.adminutils" in MODULES and len(MODULES) >= 10, MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and not exc.name.startswith("rebalance"):
            pytest.skip(f"{name} needs {exc.name}, an optional dependency that is not installed")
        raise
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner()
    failures: list[str] = []
    for test in finder.find(module, name):
        out: list[str] = []
        result = runner.run(test, out=out.append)
        if result.failed:
            failures.append("".join(out))
    assert not failures, "\n".join(failures)
