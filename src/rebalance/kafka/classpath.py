"""Where the book's Java module and Kafka's jars are, as ``make java`` (``java/build.sh``) left them: the module
(``java/``), its classes (``java/target/rebalance.jar``, or the folder ``java/target/classes``) and the classpaths
of the JVMs the package starts (:func:`module_classpath`, :func:`client_classpath`, :func:`broker_lib`); a
missing piece is one :class:`~rebalance.errors.JavaUnavailableError` saying what to run.  Re-exported by
:mod:`rebalance.kafka.jvm`.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import List

from ..errors import JavaUnavailableError
from ..versions import KAFKA_VERSION

__all__ = ["java_module", "module_classpath", "client_classpath", "broker_lib"]


def java_module() -> Path:
    """The book's Java module (``java/`` of this checkout, or ``$REBALANCE_JAVA_DIR``)."""
    return Path(os.environ.get("REBALANCE_JAVA_DIR") or Path(__file__).resolve().parents[3] / "java")


def _not_built(what: str, release: str) -> JavaUnavailableError:
    more = "" if release == KAFKA_VERSION else f"; another release: bash java/build.sh {release}"
    return JavaUnavailableError(f"the Java module is not built for Kafka {release} ({what} is missing): run "
                                f"'make java' (needs Java 17+ and Maven){more}")


def _module_classes(classes: Path) -> str:
    """``java/target/rebalance.jar`` (the classes as one jar, for a class-data archive), else ``classes``."""
    jar = classes.parent / "rebalance.jar"
    return str(jar if jar.exists() else classes)


def module_classpath(release: str = KAFKA_VERSION) -> List[str]:
    """The Java module's classes and the jars of ``release`` as ``make java`` resolved them
    (``java/target/rebalance.jar`` or ``java/target/classes``, ``java/target/lib-RELEASE/*``);
    ``$REBALANCE_ORACLE_EXTRA_CP`` (a folder of classes being developed) goes in front."""
    root = java_module() / "target"
    classes, lib = root / "classes", root / f"lib-{release}"
    if not (classes / "org" / "rebalance").is_dir():
        raise _not_built(str(classes), release)
    if not lib.is_dir():
        raise _not_built(str(lib), release)
    extra = os.environ.get("REBALANCE_ORACLE_EXTRA_CP")
    return ([extra] if extra else []) + [_module_classes(classes), str(lib / "*")]


def broker_lib(release: str = KAFKA_VERSION) -> Path:
    """The broker's jars (``kafka_2.13`` and log4j2: the pom's ``broker`` profile), ``java/target/broker-RELEASE``."""
    lib = java_module() / "target" / f"broker-{release}"
    if not any(lib.glob("kafka_2.13-*.jar")):
        raise JavaUnavailableError(f"Kafka's broker jars are not resolved ({lib} is missing): run 'make java' "
                                   f"(needs Java 17+ and Maven), or set KAFKA_HOME to a Kafka distribution folder")
    return lib


def client_classpath(main_class: str, release: str = KAFKA_VERSION) -> List[str]:
    """The classpath of a JVM that logs through log4j2 (a Connect worker, Streams instances): the Java module's
    classes (as in :func:`module_classpath`), the jars of ``release`` without ``slf4j-nop``, and the broker's log4j2
    jars (``log4j-api``, ``log4j-core``, the SLF4J binding), the logging backend the distribution's ``libs/`` gives
    Kafka's clients.
    ``main_class`` must be compiled (``org.rebalance.x.Y``), or the module is not built."""
    root = java_module() / "target"
    classes, lib = root / "classes", root / f"lib-{release}"
    main = classes / (main_class.replace(".", "/") + ".class")
    if not main.exists():
        raise _not_built(str(main), release)
    if not lib.is_dir():
        raise _not_built(str(lib), release)
    logging = sorted(str(p) for p in broker_lib(release).glob("log4j-*.jar"))
    if len(logging) < 3:
        raise _not_built("the broker's log4j2 jars", release)
    jars = [str(j) for j in sorted(lib.glob("*.jar")) if not j.name.startswith("slf4j-nop")]
    return [_module_classes(classes), *jars, *logging]
