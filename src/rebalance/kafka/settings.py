"""Kafka settings as the drivers of real processes write them: a broker's ``server.properties``, a Connect
worker's ``worker.properties``, a client's ``Properties``.

* :func:`config_value` -- one setting's value as Kafka reads it (``true``/``false``, numbers, one-line text);
* :func:`checked_settings` -- a dict of settings given by a caller, each name and value checked, the names a
  driver writes itself refused;
* :func:`properties_text` -- a Java properties file;
* :func:`pick` -- the node or worker of a cluster by its id or name.

Every refusal is an :class:`~rebalance.errors.InputError` naming the field, e.g. ``broker_config['log.dirs']``.
"""
from __future__ import annotations

import re
from typing import Callable, Collection, Dict, Mapping, Sequence, TypeVar, cast

from ..errors import InputError
from ..validation import require

__all__ = ["config_value", "checked_settings", "properties_text", "pick"]

_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_T = TypeVar("_T")


def config_value(field: str, value: object) -> str:
    """``value`` as the text of a Kafka setting: a boolean as ``true``/``false``, a number or a string as it
    prints; anything else, NaN or a value of more than one line is refused naming ``field``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    require(isinstance(value, (str, int, float)) and not (isinstance(value, float) and value != value), field,
            f"must be a string, a number or a boolean, got {type(value).__name__} {value!r}")
    text = str(value)
    require("\n" not in text and "\r" not in text, field, "must be one line")
    return text


def properties_text(settings: Mapping[str, str]) -> str:
    """A Java properties file: one ``key=value`` a line (a value's backslashes escaped)."""
    return "".join(f"{k}={v.replace(chr(92), chr(92) * 2)}\n" for k, v in settings.items())


def checked_settings(given: object, field: str, kind: str, owner: str, reserved: Collection[str],
                     hints: Mapping[str, str]) -> Dict[str, str]:
    """``given`` (a dict of ``kind`` settings, e.g. ``"Kafka broker"``) as ``{name: text}``: each name a setting
    name, none of ``reserved`` (``hints``: what to use instead, by name), each value one :func:`config_value`
    takes; :class:`~rebalance.errors.InputError` naming ``field[name]`` otherwise."""
    require(given is None or isinstance(given, Mapping), field,
            f"must be a dict of {kind} settings by name, got {type(given).__name__}")
    settings: Dict[str, str] = {}
    for key, value in cast(Mapping[str, object], given or {}).items():
        where = f"{field}[{key!r}]"
        require(isinstance(key, str) and bool(_KEY.match(key)), where,
                f"must be a {kind.split()[0]} setting name (letters, digits, '.', '_', '-')")
        require(key not in reserved, where, f"is set by {owner} itself" + hints.get(key, ""))
        settings[key] = config_value(where, value)
    return settings


def pick(items: Sequence[_T], key: Callable[[_T], object], value: object, field: str, noun: str) -> _T:
    """The item of ``items`` whose ``key`` is ``value``; :class:`~rebalance.errors.InputError` naming ``field``
    and listing the keys otherwise (``no node 9 (nodes: [1, 2, 3])``)."""
    for item in items:
        if key(item) == value:
            return item
    raise InputError(field, f"no {noun} {value!r} ({noun}s: {[key(i) for i in items]})")
