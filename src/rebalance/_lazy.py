"""Public names loaded on first use, for the package and its areas (PEP 562 module ``__getattr__``).

Every area's ``__init__`` (and the package's own) has one shape, which ``tests/test_exports.py`` checks::

    from __future__ import annotations

    from typing import TYPE_CHECKING

    from .._lazy import lazy_exports

    _EXPORTS = {"GroupSimulation": ".simulation", "ProtocolConfig": ".config", ...}
    __all__ = sorted(_EXPORTS)

    if TYPE_CHECKING:  # what type checkers and IDEs see: the same names, from the same modules
        from .config import ProtocolConfig as ProtocolConfig
        from .simulation import GroupSimulation as GroupSimulation
    else:
        __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

``_EXPORTS`` maps each public name to the module that defines it; ``from rebalance.protocol import
GroupSimulation`` then imports ``rebalance.protocol.simulation`` only when the name is first asked for, so importing
an area stays cheap and the areas' submodules may import one another freely.  The ``TYPE_CHECKING`` block imports
the same names from the same modules for type checkers, in the ``name as name`` form that marks an explicit
re-export (mypy's ``no_implicit_reexport``, and the rule for a ``py.typed`` library); ``__getattr__`` is hidden
from them, so a name missing from the block is an error rather than an ``Any``.
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
