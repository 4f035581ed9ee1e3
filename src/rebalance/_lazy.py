"""Public names loaded on first use, for the package and its areas (PEP 562 module ``__getattr__``).

An area's ``__init__`` lists its public names and the module of each; ``from rebalance.protocol import
GroupSimulation`` then imports ``rebalance.protocol.simulation`` only when the name is first asked for, so
importing an area stays cheap and the areas' submodules may import one another freely.
"""
from __future__ import annotations

import importlib
import sys
from typing import Any, Callable, List, Mapping, Tuple


def lazy_exports(package: str, exports: Mapping[str, str]) -> Tuple[Callable[[str], Any], Callable[[], List[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` whose public names are ``exports`` (name -> the module
    that defines it: absolute, or relative to ``package`` when it starts with a dot).  A name exported as
    ``"name": "module:"`` (a trailing colon) is that module itself, for areas that publish a submodule as a
    namespace (``rebalance.spark.single_process``)."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        if module.endswith(":"):
            value = importlib.import_module(module[:-1], package)
        else:
            value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)  # found directly from now on
        return value

    def __dir__() -> List[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__
