"""Each area of the package says what is public, as httpx's exported-members test does (issue 26).

Every area package (``consumer``, ``protocol``, ``connect``, ``replicas``, ``kip848``, ``share``, ``live``, ``kafka``,
``spark``) and the package root list their public names in ``__all__``; every name there resolves (the lazy
ones load), none is private, none is listed twice, and each public class or function has a docstring.  Every
exception class of the package is defined in ``rebalance.errors`` and derives from ``RebalanceError``.

Not checked yet (issue 26, still open): that the chapters import only from ``rebalance`` or an area.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import rebalance
from rebalance import errors

AREAS = ["consumer", "protocol", "connect", "replicas", "kip848", "share", "live", "kafka", "spark"]


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
