"""Kafka's own definitions of the group settings, read from the pinned release's jars (``ConfigDef``).

Kafka defines every setting once, as an entry (``ConfigDef.ConfigKey``) of a ``ConfigDef``: its name, type,
default, validator and documentation.  The book's Java class ``org.rebalance.configs.ConfigDefs`` prints the
entries of three of them as the jars of :data:`rebalance.KAFKA_VERSION` (4.3.1) define them:

* ``org.apache.kafka.clients.consumer.ConsumerConfig.configDef()`` -- the consumer's settings;
* ``org.apache.kafka.coordinator.group.GroupCoordinatorConfig.CONFIG_DEF`` -- the broker's group coordinator;
* ``org.apache.kafka.coordinator.group.GroupConfig.CONFIG_DEF`` -- the per-group overrides
  (``kafka-configs.sh --entity-type groups``).

:func:`read_config_defs` runs that class (one JVM through :class:`~rebalance.kafka.jvm.JvmProcess`);
:func:`write_cache` keeps the entries of :data:`GROUP_SETTINGS` in a JSON file of the package
(``config_defs-4.3.1.json``), which :func:`setting_defs` reads without Java; ``tests/kafka/test_config_defs.py``
checks that the file is what the jars say.  Nothing here types a default in by hand.

Defined in chapter 17, *Setting the timeouts*.
"""
from __future__ import annotations

import json
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Dict, List, Optional, Tuple, TypedDict, Union, cast

from ..errors import InputError, LiveClientError
from ..versions import KAFKA_VERSION
from .jvm import CLIENT_JVM_OPTIONS, JvmProcess, module_classpath, remove_dir

__all__ = ["ConfigKey", "GROUP_SETTINGS", "MAIN_CLASS", "read_config_defs", "group_settings", "write_cache",
           "cache_path", "setting_defs", "config_key", "default_of"]

#: the book's Java class that prints the ``ConfigDef`` entries
MAIN_CLASS = "org.rebalance.configs.ConfigDefs"

#: the settings the book keeps, by the class whose ``ConfigDef`` defines them: every timing of a group's
#: membership and rebalances, client and broker, classic and consumer protocol (and share and streams groups')
GROUP_SETTINGS: Dict[str, Tuple[str, ...]] = {
    "ConsumerConfig": ("group.protocol", "session.timeout.ms", "heartbeat.interval.ms", "max.poll.interval.ms",
                       "max.poll.records", "group.instance.id", "partition.assignment.strategy",
                       "group.remote.assignor"),
    "GroupCoordinatorConfig": (
        "group.coordinator.rebalance.protocols", "group.min.session.timeout.ms", "group.max.session.timeout.ms",
        "group.initial.rebalance.delay.ms",
        "group.consumer.session.timeout.ms", "group.consumer.min.session.timeout.ms",
        "group.consumer.max.session.timeout.ms", "group.consumer.heartbeat.interval.ms",
        "group.consumer.min.heartbeat.interval.ms", "group.consumer.max.heartbeat.interval.ms",
        "group.consumer.assignment.interval.ms", "group.consumer.min.assignment.interval.ms",
        "group.consumer.max.assignment.interval.ms",
        "group.share.session.timeout.ms", "group.share.min.session.timeout.ms", "group.share.max.session.timeout.ms",
        "group.share.heartbeat.interval.ms", "group.share.min.heartbeat.interval.ms",
        "group.share.max.heartbeat.interval.ms",
        "group.streams.session.timeout.ms", "group.streams.min.session.timeout.ms",
        "group.streams.max.session.timeout.ms", "group.streams.heartbeat.interval.ms",
        "group.streams.min.heartbeat.interval.ms", "group.streams.max.heartbeat.interval.ms",
        "group.streams.initial.rebalance.delay.ms"),
    "GroupConfig": ("consumer.session.timeout.ms", "consumer.heartbeat.interval.ms", "consumer.assignment.interval.ms",
                    "share.session.timeout.ms",
                    "share.heartbeat.interval.ms", "streams.session.timeout.ms", "streams.heartbeat.interval.ms",
                    "streams.initial.rebalance.delay.ms"),
}

#: one ``ConfigDef.ConfigKey`` as ``ConfigDefs`` prints it: ``class`` (the Kafka class whose ``ConfigDef`` holds
#: it), ``name``, ``type`` (``ConfigDef.Type``), ``default`` (a number, a boolean, the text
#: ``ConfigDef.convertToString`` gives, or ``None``), ``required`` (no default), ``valid`` (the validator's
#: ``toString``, ``None`` without one), ``importance`` and ``documentation``
ConfigKey = TypedDict("ConfigKey", {"class": str, "name": str, "type": str, "default": Union[int, float, bool, str, None],
                                    "required": bool, "valid": Optional[str], "importance": Optional[str],
                                    "documentation": Optional[str]})


def read_config_defs(release: str = KAFKA_VERSION, timeout: float = 60.0) -> Tuple[str, List[ConfigKey]]:
    """Every entry of the three ``ConfigDef``\\ s as the jars of ``release`` define them, and the release the
    jars report (``AppInfoParser.getVersion()``).  Needs the Java module (``make java``)."""
    folder = Path(tempfile.mkdtemp(prefix="rebalance-configdefs-"))
    jvm = JvmProcess("configdefs", MAIN_CLASS, module_classpath(release), folder, heap="128m",
                     jvm_options=CLIENT_JVM_OPTIONS, pipes="both")
    try:
        jvm.start()
        text = jvm.stdout.read().decode("utf-8")
        code = jvm.wait(timeout)
        if code != 0:
            raise jvm.died(f"{MAIN_CLASS} for Kafka {release}")
        try:
            out = json.loads(text)
        except ValueError as exc:
            raise LiveClientError(f"{MAIN_CLASS} printed no JSON: {exc}") from None
    finally:
        jvm.stop()
        remove_dir(folder)
    return str(out["release"]), cast(List[ConfigKey], out["configs"])


def group_settings(configs: List[ConfigKey]) -> List[ConfigKey]:
    """The entries of :data:`GROUP_SETTINGS`, in its order; :class:`~rebalance.errors.InputError` naming one that
    ``configs`` lacks (a setting renamed or removed in the release read)."""
    by_key = {(c["class"], c["name"]): c for c in configs}
    out = []
    for cls, names in GROUP_SETTINGS.items():
        for name in names:
            if (cls, name) not in by_key:
                raise InputError("GROUP_SETTINGS", f"{cls} defines no {name!r} in the jars read")
            out.append(by_key[(cls, name)])
    return out


def cache_path(release: str = KAFKA_VERSION) -> Path:
    """The package's JSON file of :data:`GROUP_SETTINGS` for ``release``."""
    return Path(__file__).with_name(f"config_defs-{release}.json")


def write_cache(release: str = KAFKA_VERSION) -> Path:
    """Read the jars of ``release`` (:func:`read_config_defs`) and write :func:`cache_path`."""
    reported, configs = read_config_defs(release)
    path = cache_path(release)
    path.write_text(json.dumps({"release": reported, "configs": group_settings(configs)}, indent=1) + "\n",
                    encoding="utf-8")
    setting_defs.cache_clear()
    return path


@lru_cache(maxsize=4)
def setting_defs(release: str = KAFKA_VERSION) -> Dict[str, ConfigKey]:
    """The entries of :data:`GROUP_SETTINGS` for ``release`` from the package's file (no Java needed), by
    name (a ``GroupConfig`` override's name differs from every broker and consumer setting's).

    Defined in chapter 17, *Setting the timeouts*."""
    path = cache_path(release)
    if not path.exists():
        raise InputError("release", f"no file of Kafka {release}'s settings ({path.name}); "
                         f"write it with rebalance.kafka.config_defs.write_cache({release!r})")
    data = json.loads(path.read_text(encoding="utf-8"))
    return {c["name"]: cast(ConfigKey, c) for c in data["configs"]}


def config_key(name: str, release: str = KAFKA_VERSION) -> ConfigKey:
    """The entry of setting ``name``; :class:`~rebalance.errors.InputError` naming ``name`` if the book keeps none."""
    defs = setting_defs(release)
    if name not in defs:
        raise InputError("name", f"{name!r} is not one of the group settings the book keeps "
                         f"(rebalance.kafka.config_defs.GROUP_SETTINGS)")
    return defs[name]


def default_of(name: str, release: str = KAFKA_VERSION) -> int:
    """The default of a whole-number setting ``name`` (``INT``, ``LONG`` or ``SHORT``), as the jars define it."""
    key = config_key(name, release)
    value = key["default"]
    if key["type"] not in ("INT", "LONG", "SHORT") or not isinstance(value, int) or isinstance(value, bool):
        raise InputError("name", f"{name!r} is a {key['type']} setting with default {value!r}, not a number")
    return value
