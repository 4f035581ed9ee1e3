"""The drivers' shape (issue 32), checked over the source: no module imports another module's ``_``-names, every
JVM of ``rebalance.kafka`` starts through ``rebalance.kafka.jvm`` (no ``subprocess.Popen`` elsewhere in the area),
and no file of the area is longer than 500 lines (a longer one is split by concern)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "rebalance"
KAFKA = SRC / "kafka"
MAX_LINES = 500


def private_imports(path: Path) -> list[str]:
    """``from x import _name`` in ``path`` (``__future__`` and dunders aside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{path.relative_to(SRC)}:{node.lineno}: from {'.' * node.level}{node.module or ''} import {a.name}"
            for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module != "__future__"
            for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]


def popen_calls(path: Path) -> list[str]:
    """Every ``subprocess.Popen``/``Popen(`` call in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if name == "Popen":
                found.append(f"{path.relative_to(SRC)}:{node.lineno}")
    return found


def test_no_module_imports_another_modules_private_names():
    found = [hit for path in sorted(SRC.rglob("*.py")) for hit in private_imports(path)]
    assert found == []


def test_every_jvm_of_the_kafka_area_starts_through_jvm_py():
    found = [hit for path in sorted(KAFKA.rglob("*.py")) if path.name != "jvm.py" for hit in popen_calls(path)]
    assert found == []


@pytest.mark.parametrize("path", sorted(KAFKA.rglob("*.py")), ids=lambda p: str(p.relative_to(KAFKA)))
def test_no_file_of_the_kafka_area_is_longer_than_500_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


def test_the_rules_see_a_planted_case(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("from .cluster import _kill_group\nimport subprocess\nsubprocess.Popen(['java'])\n")
    relative = SRC / "kafka" / "planted_for_the_test.py"
    try:
        relative.write_text(planted.read_text())
        assert private_imports(relative) and popen_calls(relative)
    finally:
        relative.unlink()
