"""Every public function of the package is typed (issue 13).

An AST scan over every module of ``src/rebalance``: a public function or method (its name does not start
with ``_``) must annotate every parameter other than ``self``/``cls`` (``*args``/``**kwargs`` included) and
its return value (``__init__`` excepted, and dunder methods are checked like any other method only if
public, i.e. they are skipped since they start with ``_``). The test fails listing ``file:function`` (methods
as ``Class.method``) for each untyped one.

Exempt: functions nested inside other functions (local helpers and closures, e.g. widget callbacks), which are
not part of the public interface; functions inside a private class (name starting with ``_``) are still
checked, since their instances may be returned to callers.

mypy itself runs in tests/test_typecheck.py (issue 26); this scan needs only the standard library, so it runs
in the core install too.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "rebalance"


def _functions(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, bool]]:
    """Yield (qualified name, node, is_method) for module-level functions and methods of (nested) classes."""

    def walk(body: list[ast.stmt], prefix: str, in_class: bool) -> Iterator[
        tuple[str, ast.FunctionDef | ast.AsyncFunctionDef, bool]
    ]:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield prefix + node.name, node, in_class
            elif isinstance(node, ast.ClassDef):
                yield from walk(node.body, f"{prefix}{node.name}.", True)
            elif isinstance(node, (ast.If, ast.Try)):
                # functions defined under `if TYPE_CHECKING:` / `try: ... except ImportError:`
                for block in (node.body, node.orelse, getattr(node, "finalbody", []),
                              *[h.body for h in getattr(node, "handlers", [])]):
                    yield from walk(block, prefix, in_class)

    yield from walk(tree.body, "", False)


def untyped(node: ast.FunctionDef | ast.AsyncFunctionDef, is_method: bool) -> list[str]:
    """The parameters (and ``return``) of ``node`` that carry no annotation."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    is_static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
    if is_method and not is_static and positional and positional[0].arg in ("self", "cls"):
        positional = positional[1:]
    missing = [a.arg for a in [*positional, *args.kwonlyargs] if a.annotation is None]
    for star in (args.vararg, args.kwarg):
        if star is not None and star.annotation is None:
            missing.append("*" + star.arg)
    if node.returns is None and node.name != "__init__":
        missing.append("return")
    return missing


def scan(root: Path = SRC) -> list[str]:
    """``file:function (missing...)`` for every public function of ``root`` lacking an annotation."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name, node, is_method in _functions(tree):
            if node.name.startswith("_"):
                continue
            missing = untyped(node, is_method)
            if missing:
                found.append(f"{path.relative_to(root.parent)}:{name} ({', '.join(missing)})")
    return found


def test_scan_sees_untyped_functions() -> None:
    tree = ast.parse(
        "def f(a, b: int): pass\n"
        "def g(a: int) -> int:\n    def inner(x): pass\n    return a\n"
        "class C:\n    def __init__(self, x: int): pass\n    def m(self, y): pass\n"
        "    @staticmethod\n    def s(self) -> None: pass\n"
    )
    result = {name: untyped(node, is_method) for name, node, is_method in _functions(tree)}
    assert result == {"f": ["a", "return"], "g": [], "C.__init__": [], "C.m": ["y", "return"], "C.s": ["self"]}


def test_every_public_function_is_typed() -> None:
    found = scan()
    assert not found, f"{len(found)} public functions are not fully typed:\n" + "\n".join(found)
