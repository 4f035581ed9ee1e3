"""The area keeps Kafka's two sides apart (issue 32): ``rebalance.streams.client`` (the classic protocol's
client-side assignment, ``org.apache.kafka.streams.processor.internals.assignment``) and
``rebalance.streams.coordinator`` (the streams group's broker-side assignor,
``org.apache.kafka.coordinator.group.streams.assignor``) never import each other, and the area exports both."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rebalance.streams as area
from rebalance.streams import client, coordinator

AREA = Path(area.__file__).resolve().parent
SIDES = {"client": client, "coordinator": coordinator}


def imported_modules(path: Path, package: str) -> set[str]:
    """The absolute names of the modules a file of ``package`` imports (relative imports resolved)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def crossings(side: str, root: Path = AREA) -> list[str]:
    """The imports of one side's modules that reach the other side or the area's ``__init__``."""
    other = next(s for s in SIDES if s != side)
    found = []
    for path in sorted((root / side).glob("*.py")):
        for name in sorted(imported_modules(path, f"rebalance.streams.{side}")):
            if name.startswith(f"rebalance.streams.{other}") or name in ("rebalance.streams", "rebalance"):
                found.append(f"{side}/{path.name} imports {name}")
    return found


@pytest.mark.parametrize("side", sorted(SIDES))
def test_neither_side_imports_the_other(side):
    assert crossings(side) == []


def test_a_crossing_is_found(tmp_path):
    (tmp_path / "client").mkdir()
    (tmp_path / "client" / "bad.py").write_text("from ..coordinator.task_id import TaskId\n", encoding="utf-8")
    (tmp_path / "client" / "fine.py").write_text("from ..priority_queue import JavaPriorityQueue\n", encoding="utf-8")
    assert crossings("client", tmp_path) == ["client/bad.py imports rebalance.streams.coordinator.task_id",
                                             "client/bad.py imports rebalance.streams.coordinator.task_id.TaskId"]


def test_the_area_exports_both_sides():
    # what both sides share, and simulate's kind streams, which drives both (the classic assignor and the streams
    # group's)
    shared = {"JavaPriorityQueue", "simulate_streams"}
    assert set(area.__all__) == set(client.__all__) | set(coordinator.__all__) | shared
    for name in area.__all__:
        if name not in shared:
            side = client if name in client.__all__ else coordinator
            assert getattr(area, name) is getattr(side, name), name


def test_two_task_ids_of_two_shapes():
    """Kafka's two ``TaskId`` classes differ: the client's has an ``int`` subtopology in ``Integer.compare`` order,
    the coordinator's a string subtopology id in ``String.compareTo`` order.  The area's ``TaskId`` is the
    client's."""
    assert area.TaskId is client.TaskId is not coordinator.TaskId
    assert sorted([client.TaskId(10, 0), client.TaskId(9, 0)]) == [client.TaskId(9, 0), client.TaskId(10, 0)]
    ids = [coordinator.TaskId("10", 0), coordinator.TaskId("9", 0)]
    assert [str(t) for t in sorted(ids, key=coordinator.TaskId.sort_key)] == ["10_0", "9_0"]
