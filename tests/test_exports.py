"""Each area of the package says what is public, as httpx's exported-members test does (issue 26).

Every area package (``consumer``, ``protocol``, ``connect``, ``replicas``, ``kip848``, ``share``, ``streams``,
``live``, ``kafka``, ``spark``), the package root and the subpackages of an area (``streams.client``,
``streams.coordinator``) list their public names in ``__all__``; every name there resolves (the lazy ones load), none is private, none is listed twice, and each public class or function has a docstring.  Every
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

AREAS = ["consumer", "protocol", "connect", "replicas", "kip848", "share", "streams", "live", "kafka", "spark"]
#: the packages inside an area, each with its own ``__all__`` (a chapter still imports from the area)
SUBPACKAGES = ["streams.client", "streams.coordinator"]


@pytest.mark.parametrize("area", ["", *AREAS, *SUBPACKAGES])
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
 "rebalance.connect.cluster.ConnectCluster": 9, "rebalance.connect.incremental.IncrementalCooperativeAssignor": 9,
 "rebalance.connect.eager.EagerAssignor": 9,
 "rebalance.replicas.striped.StripedReplicaPlacer": 10, "rebalance.replicas.adminutils.assign_replicas_to_brokers": 10,
 "rebalance.kip848.assignor.UniformAssignor": 11, "rebalance.kip848.assignor.RangeAssignor": 11,
 "rebalance.kip848.scenarios.simulate": 11, "rebalance.kip848.config.KIP848Config": 11,
 "rebalance.spark.exercise.exercise": 12,
 "rebalance.live.mock.MockCluster": 13, "rebalance.live.group.LiveGroup": 13,
 "rebalance.kafka.cluster.KafkaCluster": 13, "rebalance.kafka.consumers.run_scenario": 13,
 "rebalance.kafka.connect.ConnectDistributedCluster": 9, "rebalance.kafka.coordinators.compare_coordinators": 1,
 "rebalance.kafka.placement.controller_placements": 10,
 "rebalance.share.simple.SimpleAssignor": 14, "rebalance.share.share_partition.SharePartitionModel": 14,
 "rebalance.kafka.share.run_share_group": 14, "rebalance.kafka.share.outcome_table": 14,
 "rebalance.kafka.share.share_summary": 14, "rebalance.widgets.share.delivery_log": 14,
 "rebalance.streams.client.high_availability_task_assignor.HighAvailabilityTaskAssignor": 15,
 "rebalance.streams.coordinator.sticky_task_assignor.StickyTaskAssignor": 15,
 "rebalance.streams.client.experiment.probing_rounds": 15, "rebalance.kafka.streams.scale_out_and_in": 15,
}


@pytest.mark.parametrize("target, chapter", sorted(DEFINED_IN.items()))
def test_docstrings_say_which_chapter_defines_them(target, chapter):
    module_name, name = target.rsplit(".", 1)
    obj = getattr(importlib.import_module(module_name), name)
    assert f"Defined in chapter {chapter}, *" in inspect.getdoc(obj)
    page = next(p for p in CHAPTERS if p.name.startswith(f"{chapter:02d}-"))
    assert name in page.read_text(encoding="utf-8"), f"chapter {chapter} never names {name}"
