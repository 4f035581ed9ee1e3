"""``rebalance.errors`` holds the package's exception classes and nothing else, and its docstring draws their whole
tree (issue 32): every class, under its parent.  The checks that raise them are ``rebalance.validation``'s.
"""
from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

from rebalance import errors

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "rebalance"

def _classes() -> dict[str, type]:
    return {name: value for name, value in vars(errors).items()
            if inspect.isclass(value) and value.__module__ == errors.__name__}


def _tree(doc: str) -> dict[str, str | None]:
    """The class -> parent drawn by a docstring's tree: the literal block after ``::``, one class a line, each level
    4 columns further right than its parent (``|-- Name`` / ```-- Name``)."""
    block = doc.split("::\n", 1)[1]
    parents: dict[str, str | None] = {}
    stack: list[tuple[int, str]] = []
    for line in block.splitlines():
        if line.strip() and not line.startswith(" "):
            break  # the end of the literal block
        match = re.match(r"([ |`-]*)(\w+)", line)
        if not match or (stack and not match.group(1).endswith("-- ")):
            continue  # a blank line, or a description's continuation
        column = len(match.group(1))
        while stack and stack[-1][0] >= column:
            stack.pop()
        parents[match.group(2)] = stack[-1][1] if stack else None
        stack.append((column, match.group(2)))
    return parents


def test_errors_holds_exception_classes_only():
    tree = ast.parse((SRC / "errors.py").read_text(encoding="utf-8"))
    public = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign))]
    names = []
    for node in public:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.append(node.name)
        else:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [t.id for t in targets if isinstance(t, ast.Name)]
    others = [n for n in names if not n.startswith("_") and n not in _classes()]
    assert others == [], f"rebalance.errors defines more than exception classes: {others}"
    assert all(issubclass(cls, BaseException) for cls in _classes().values())


def test_the_docstring_draws_the_whole_tree():
    classes = _classes()
    drawn = _tree(errors.__doc__ or "")
    assert sorted(drawn) == sorted(classes), "rebalance.errors' docstring tree and its classes differ"
    for name, cls in classes.items():
        own = [base.__name__ for base in cls.__bases__ if base.__module__ == errors.__name__]
        assert drawn[name] == (own[0] if own else None), f"{name} is drawn under {drawn[name]}, its parent is {own}"
        for base in cls.__bases__:
            if base.__module__ == "builtins" and base is not Exception:
                block = errors.__doc__.split(f"-- {name} ", 1)[1].split("-- ", 1)[0] if name != "RebalanceError" else ""
                assert f"``{base.__name__}``" in block, f"{name}: the tree does not say it is also a {base.__name__}"


def test_the_tree_reader_sees_a_misplaced_class():
    doc = "x::\n\n    Root  the root\n    |-- One  one\n    |   |    more\n    |   `-- Two  two\n    `-- Three  three\n\nmore"
    assert _tree(doc) == {"Root": None, "One": "Root", "Two": "One", "Three": "Root"}
    assert _tree(doc.replace("|   `-- Two", "`-- Two    "))["Two"] == "Root"


def _imports_from_errors(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "errors" \
                and (node.level > 0 or node.module == "rebalance.errors"):
            found += [alias.name for alias in node.names]
    return found


def test_only_exception_classes_are_imported_from_errors():
    classes = _classes()
    wrong = []
    for folder in (SRC, ROOT / "tests", ROOT / "benchmarks", ROOT / "examples"):
        for path in sorted(folder.rglob("*.py")):
            wrong += [f"{path.relative_to(ROOT)}: {name}" for name in _imports_from_errors(path) if name not in classes]
    for chapter in sorted((ROOT / "chapters").glob("*.md")):
        for match in re.finditer(r"^from rebalance\.errors import ([^\n]+)$", chapter.read_text(encoding="utf-8"), re.M):
            wrong += [f"{chapter.name}: {n.strip()}" for n in match.group(1).split(",") if n.strip() not in classes]
    assert wrong == [], f"non-exception names imported from rebalance.errors (they are in rebalance.validation): {wrong}"

