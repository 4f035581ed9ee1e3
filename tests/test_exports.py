"""Each area of the package says what is public, as httpx's exported-members test does (issues 26 and 32).

Every area package (``consumer``, ``protocol``, ``connect``, ``replicas``, ``kip848``, ``share``, ``streams``,
``live``, ``kafka``, ``spark``), the package root and the subpackages of an area (``streams.client``,
``streams.coordinator``) list their public names in ``__all__``, both ways:

* every name there resolves (the lazy ones load), none is private, none is listed twice, and each public class or
  function has a docstring;
* every name that a chapter, a test, a benchmark or another module of the package imports from an area (``from
  rebalance.protocol import GroupSimulation``, ``from ..protocol import GroupSimulation``) is in its ``__all__``.

Every area's ``__init__`` has one shape (``rebalance._lazy`` shows it): ``_EXPORTS`` (name -> module, loaded on
first use), ``__all__ = sorted(_EXPORTS)``, and a ``TYPE_CHECKING`` block importing exactly those names from those
modules, so that a type checker sees every exported name.  Every exception class of the package is defined in
``rebalance.errors`` and derives from ``RebalanceError``.

The chapters import only from ``rebalance``, an area or a top-level module (``rebalance.errors``), never from a
module inside an area; the widgets and figures of a page (``rebalance.widgets.*``, ``rebalance.viz.*``) are the
exception.
"""
from __future__ import annotations

import ast
import functools
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import rebalance
from rebalance import errors

AREAS = ["consumer", "protocol", "connect", "replicas", "kip848", "share", "streams", "live", "kafka", "spark",
         "diagnose", "timeouts"]
#: the packages inside an area, each with its own ``__all__`` (a chapter still imports from the area)
SUBPACKAGES = ["streams.client", "streams.coordinator"]
ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "rebalance"

@pytest.mark.parametrize("area", ["", *AREAS, *SUBPACKAGES])
def test_area_exports_its_public_names(area):
    module = importlib.import_module(f"rebalance.{area}" if area else "rebalance")
    names = getattr(module, "__all__", None)
    assert names, f"{module.__name__} has no __all__"
    assert len(names) == len(set(names)), f"{module.__name__}.__all__ lists a name twice"
    for name in names:
        assert not name.startswith("_"), f"{module.__name__}.__all__ lists {name}"
        value = getattr(module, name)  # raises if a lazy name does not resolve
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), f"{module.__name__}.{name} has no docstring"
    assert set(names) <= set(dir(module))
    assert set(getattr(module, "_EXPORTS", {})) <= set(names), f"{module.__name__} loads names it does not list"


@pytest.mark.parametrize("area", ["", *AREAS, *SUBPACKAGES])
def test_no_exported_name_is_shadowed_by_a_submodule(area):
    """Importing ``rebalance.area.x`` sets the package's attribute ``x`` to that module, so an exported function or
    class named like a submodule of its area would turn into the module once anything imported it."""
    module = importlib.import_module(f"rebalance.{area}" if area else "rebalance")
    submodules = {info.name for info in pkgutil.iter_modules(module.__path__)}
    for name in set(getattr(module, "__all__", ())) & submodules:
        importlib.import_module(f"{module.__name__}.{name}")
        module_export = getattr(module, "_EXPORTS", {}).get(name, "").endswith(":")  # "name": ".module:"
        assert inspect.ismodule(getattr(module, name)) == module_export, \
            f"{module.__name__}.{name} is shadowed by its submodule"


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


CHAPTERS = sorted((ROOT / "chapters").glob("*.md"))
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


def _module_name(path: Path) -> tuple[str, bool]:
    """The dotted name of a module of the package, and whether it is a package's ``__init__``."""
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts), parts[-1] == "__init__"


def _python_imports(path: Path):
    """Every ``from X import names`` of a Python file, relative imports resolved for the package's own modules."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level == 0:
            yield node.module, [alias.name for alias in node.names]
        elif path.is_relative_to(SRC):
            name, is_package = _module_name(path)
            base = name.split(".")[: None if is_package else -1]
            base = base[: len(base) - (node.level - 1)]
            yield ".".join([*base, *([node.module] if node.module else [])]), [alias.name for alias in node.names]


def _area_imports():
    """(area module, name, where) for every name imported from the package root or an area (not from a module
    inside it) by the chapters, the tests, the benchmarks, the examples and the package's other modules."""
    packages = {"rebalance", *(f"rebalance.{area}" for area in AREAS)}
    for path in CHAPTERS:
        for module, names in _chapter_imports(path):
            if module in packages:
                yield from ((module, name, path.name) for name in names)
    for folder in (SRC, ROOT / "tests", ROOT / "benchmarks", ROOT / "examples"):
        for path in sorted(folder.rglob("*.py")):
            for module, names in _python_imports(path):
                if module in packages:
                    yield from ((module, name, str(path.relative_to(ROOT))) for name in names)


def test_chapters_found():
    assert len(CHAPTERS) >= 14
    assert sum(1 for path in CHAPTERS for _ in _chapter_imports(path)) > 100
    found = {(module, where.split("/")[0]) for module, _, where in _area_imports()}
    assert {("rebalance.protocol", "tests"), ("rebalance.consumer", "src"), ("rebalance.spark", "01-groups-coordinators-generations.md")} <= found


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem[:2])
def test_chapters_import_only_from_an_area(path):
    wrong = [f"{module} is deeper than an area" for module, _ in _chapter_imports(path)
             if len(module.split(".")) > 2 and module.split(".")[1] not in ("widgets", "viz")]
    assert wrong == [], f"{path.name}: {wrong}"


@functools.lru_cache(maxsize=None)
def _imported_by_area() -> dict[str, dict[str, list[str]]]:
    by_area: dict[str, dict[str, list[str]]] = {}
    for module, name, where in _area_imports():
        by_area.setdefault(module, {}).setdefault(name, []).append(where)
    return by_area


@pytest.mark.parametrize("area", ["", *AREAS])
def test_every_name_imported_from_an_area_is_in_its_all(area):
    """The other direction of ``__all__``: what the book, its tests and the package's other areas import from an area
    is public there (a submodule, ``from rebalance.kafka import oracle``, is not a name and needs no entry)."""
    module_name = f"rebalance.{area}" if area else "rebalance"
    module = importlib.import_module(module_name)
    imported = _imported_by_area().get(module_name, {})
    submodules = {info.name for info in pkgutil.iter_modules(module.__path__)}
    missing = {name: sorted(set(where))[:3] for name, where in imported.items()
               if name not in module.__all__ and name not in submodules}
    assert missing == {}, f"imported from {module_name} but not in its __all__: {missing}"


def _shape_problems(path: Path) -> list[str]:
    """What differs between an ``__init__`` and the one shape (see ``rebalance._lazy``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    body = list(tree.body)
    root = path.parent == SRC
    expected = ["from __future__ import annotations", "from typing import TYPE_CHECKING",
                f"from {'.' if root else '..'}_lazy import lazy_exports"]
    if not (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)):
        return ["no docstring"]
    body = body[1:]
    statements = [ast.unparse(node) for node in body]
    if root and len(statements) > 3 and statements[3].startswith("__version__ = "):
        statements.pop(3), body.pop(3)
    if len(body) != 6:
        return [f"{len(body)} statements after the docstring; the shape has 6: {statements}"]
    problems = [f"statement {i + 1} is {got!r}, not {want!r}" for i, (got, want) in enumerate(zip(statements, expected))
                if got != want]
    exports_node, all_node, block = body[3], body[4], body[5]
    if not (isinstance(exports_node, ast.Assign) and ast.unparse(exports_node.targets[0]) == "_EXPORTS"
            and isinstance(exports_node.value, ast.Dict)):
        return [*problems, "no _EXPORTS = {...} dict"]
    exports = ast.literal_eval(exports_node.value)
    if ast.unparse(all_node) != "__all__ = sorted(_EXPORTS)":
        problems.append(f"{ast.unparse(all_node)!r}, not '__all__ = sorted(_EXPORTS)'")
    if not (isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"):
        return [*problems, "no `if TYPE_CHECKING:` block last"]
    if [ast.unparse(node) for node in block.orelse] != ["__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)"]:
        problems.append("the `else:` of the TYPE_CHECKING block is not `__getattr__, __dir__ = lazy_exports(...)`")
    typed: dict[str, str] = {}
    for node in block.body:
        if not isinstance(node, ast.ImportFrom):
            problems.append(f"not an import in the TYPE_CHECKING block: {ast.unparse(node)}")
            continue
        source = "." * node.level + (node.module or "")
        for alias in node.names:
            if alias.asname is None:
                problems.append(f"{alias.name} is imported without `as {alias.name}` (not an explicit re-export)")
            name = alias.asname or alias.name
            if name in typed:
                problems.append(f"{name} is imported twice")
            # a name exported as a module ("name": ".module:") is imported as `from . import module as name`
            is_module = exports.get(name, "").endswith(":")
            joined = source + ("" if source.endswith(".") else ".") + alias.name
            typed[name] = joined + ":" if is_module else source
            if not is_module and alias.name != name:
                problems.append(f"{alias.name} is imported as {name}")
    problems += [f"{name} is exported but not in the TYPE_CHECKING block" for name in exports if name not in typed]
    problems += [f"{name} is in the TYPE_CHECKING block but not exported" for name in typed if name not in exports]
    problems += [f"{name}: _EXPORTS says {exports[name]}, the TYPE_CHECKING block {typed[name]}"
                 for name in exports if name in typed and typed[name] != exports[name]]
    return problems


SHAPED = ["", *AREAS]


@pytest.mark.parametrize("area", SHAPED)
def test_every_area_init_has_the_one_shape(area):
    path = SRC / area / "__init__.py" if area else SRC / "__init__.py"
    assert _shape_problems(path) == []


def test_the_shape_check_sees_a_drift(tmp_path):
    """A planted drift in each part of the shape is reported."""
    original = (SRC / "protocol" / "__init__.py").read_text(encoding="utf-8")
    package = tmp_path / "rebalance" / "protocol"
    package.mkdir(parents=True)
    drifts = {
        "a name exported but not typed": ('"VirtualClock": ".clock",', '"VirtualClock": ".clock", "Ghost": ".clock",'),
        "a name typed but not exported": ("from .clock import VirtualClock as VirtualClock",
                                          "from .clock import VirtualClock as VirtualClock, Ghost as Ghost"),
        "a name typed from another module": ("from .clock import VirtualClock as VirtualClock",
                                             "from .config import VirtualClock as VirtualClock"),
        "a plain import": ("from .clock import VirtualClock as VirtualClock", "from .clock import VirtualClock"),
        "an eager import": ("from .._lazy import lazy_exports", "from .._lazy import lazy_exports\nfrom .clock import VirtualClock"),
        "a hand-written __all__": ("__all__ = sorted(_EXPORTS)", "__all__ = ['VirtualClock']"),
    }
    (package / "__init__.py").write_text(original, encoding="utf-8")
    assert _shape_problems(package / "__init__.py") == []
    for what, (old, new) in drifts.items():
        assert old in original, what
        (package / "__init__.py").write_text(original.replace(old, new, 1), encoding="utf-8")
        assert _shape_problems(package / "__init__.py"), f"not seen: {what}"


def test_pages_packages_export_nothing():
    """``rebalance.widgets`` and ``rebalance.viz`` are folders of page modules (a chapter imports the module it
    shows): their ``__init__`` is a docstring alone."""
    for area in ("widgets", "viz"):
        tree = ast.parse((SRC / area / "__init__.py").read_text(encoding="utf-8"))
        assert len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr), area


def test_one_naming_convention_for_assignors_and_placers():
    """Every assignor and placer, in every area, has a ``NAME`` constant and a ``name()`` method returning it
    (Kafka's ``String name()``), and its registry is keyed by that name."""
    from rebalance import connect, consumer, kip848, replicas, streams
    from rebalance.replicas import AdminUtilsPlacer, StripedReplicaPlacer

    classes = [*consumer.ASSIGNORS.values(), *[type(a) for a in kip848.ASSIGNORS.values()],
               *connect.ASSIGNORS.values(), AdminUtilsPlacer, StripedReplicaPlacer,
               *[type(a) if not isinstance(a, type) else a for a in streams.ASSIGNORS.values()],
               *[type(a) if not isinstance(a, type) else a for a in streams.TASK_ASSIGNORS.values()]]
    assert len(classes) >= 12
    for cls in classes:
        instance = cls()
        assert isinstance(cls.NAME, str) and cls.NAME and instance.name() == cls.NAME, cls
    assert all(name == cls.NAME for name, cls in consumer.ASSIGNORS.items())
    assert all(name == a.name() for name, a in kip848.ASSIGNORS.items())
    assert set(replicas.PLACERS) == {AdminUtilsPlacer.NAME, StripedReplicaPlacer.NAME}



#: where the book explains a class or function (d2l's "Defined in"): its docstring says so, and the chapter names it
DEFINED_IN = {
 "rebalance.consumer.range.RangeAssignor": 2, "rebalance.consumer.roundrobin.RoundRobinAssignor": 3,
 "rebalance.consumer.sticky.StickyAssignor": 4, "rebalance.consumer.cooperative_sticky.CooperativeStickyAssignor": 5,
 "rebalance.consumer.rounds.rebalance_rounds": 5, "rebalance.consumer.abstract_sticky.balance_score": 4,
 "rebalance.protocol.coordinator.partition_for": 1, "rebalance.protocol.coordinator.find_coordinator": 1,
 "rebalance.protocol.simulation.GroupSimulation": 1, "rebalance.protocol.group.ClassicGroupState": 1,
 "rebalance.protocol.config.ProtocolConfig": 7, "rebalance.protocol.listener.listener_calls": 7,
 "rebalance.protocol.scenarios.rolling_restart": 8,
 "rebalance.connect.cluster.ConnectCluster": 11, "rebalance.connect.incremental.IncrementalCooperativeAssignor": 11,
 "rebalance.connect.eager.EagerAssignor": 11,
 "rebalance.replicas.striped.StripedReplicaPlacer": 12, "rebalance.replicas.adminutils.assign_replicas_to_brokers": 12,
 "rebalance.kip848.assignor.UniformAssignor": 9, "rebalance.kip848.assignor.RangeAssignor": 9,
 "rebalance.kip848.scenarios.simulate": 9, "rebalance.kip848.config.KIP848Config": 9,
 "rebalance.spark.exercises.exercise": 13,
 "rebalance.live.mock.MockCluster": 10, "rebalance.live.group.LiveGroup": 10,
 "rebalance.kafka.cluster.KafkaCluster": 10, "rebalance.kafka.consumers.run_scenario": 10,
 "rebalance.kafka.connect.ConnectDistributedCluster": 11, "rebalance.kafka.coordinators.compare_coordinators": 1,
 "rebalance.kafka.placement.controller_placements": 12,
 "rebalance.share.simple.SimpleAssignor": 14, "rebalance.share.share_partition.SharePartitionModel": 14,
 "rebalance.kafka.share.run_share_group": 14, "rebalance.kafka.share.outcome_table": 14,
 "rebalance.kafka.share.share_summary": 14, "rebalance.widgets.share.delivery_log": 14,
 "rebalance.streams.client.high_availability_task_assignor.HighAvailabilityTaskAssignor": 15,
 "rebalance.streams.coordinator.sticky_task_assignor.StickyTaskAssignor": 15,
 "rebalance.streams.client.experiment.probing_rounds": 15, "rebalance.kafka.streams.scale_out_and_in": 15,
 "rebalance.connect.simulate.simulate_connect": 11, "rebalance.share.simulate.simulate_share": 14,
 "rebalance.streams.simulate.simulate_streams": 15,
 "rebalance.timeouts.rules.Broken": 17, "rebalance.timeouts.deployments.recommend": 17,
 "rebalance.timeouts.runs.stall_run": 17, "rebalance.kafka.config_defs.setting_defs": 17,
 "rebalance.kafka.config_refusals.refusals_on_kafka": 17,
}


@pytest.mark.parametrize("target, chapter", sorted(DEFINED_IN.items()))
def test_docstrings_say_which_chapter_defines_them(target, chapter):
    module_name, name = target.rsplit(".", 1)
    obj = getattr(importlib.import_module(module_name), name)
    assert f"Defined in chapter {chapter}, *" in inspect.getdoc(obj)
    page = next(p for p in CHAPTERS if p.name.startswith(f"{chapter:02d}-"))
    assert name in page.read_text(encoding="utf-8"), f"chapter {chapter} never names {name}"
