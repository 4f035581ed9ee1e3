"""Class-data archives (AppCDS) for the JVMs the package starts often: brokers and controllers, member JVMs,
Streams instances, Connect workers.

A JVM maps the classes of its archive instead of reading, parsing and verifying them from the jars again.  One
archive per classpath (a classpath of jars only), trained once per build of the Java module into
``java/target/cds/``: :func:`class_data_archive`.  :class:`~rebalance.kafka.jvm.JvmProcess` (``class_data=True``)
starts a JVM with it (:func:`class_data_flags`).  The JDK's own: ``-XX:ArchiveClassesAtExit`` writes the archive
when the training JVM exits normally, ``-XX:SharedArchiveFile`` maps it (JDK 13 and later; the book needs 17).
"""
from __future__ import annotations

import fcntl
import hashlib
import os
import threading
from pathlib import Path
from typing import Callable, List, Optional

from .classpath import java_module
from .jvm import CLIENT_JVM_OPTIONS, JvmProcess, find_java, remove_dir

__all__ = ["class_data_archive", "class_data_flags", "TRAIN_CLASS"]

#: the Java module's class that trains a class-data archive (loads what the client JVMs load at start, then exits)
TRAIN_CLASS = "org.rebalance.clients.Train"
#: the JVM flags of a JVM started with a class-data archive, after ``-XX:SharedArchiveFile``: an archive that does
#: not match (a jar rebuilt since) is ignored without a word on stdout, which the JSON-lines JVMs answer on
_CLASS_DATA_QUIET = ("-Xshare:auto", "-Xlog:cds=off", "-Xlog:cds+dynamic=off")
_lock = threading.Lock()


def _classpath_files(classpath: str) -> Optional[List[Path]]:
    """The files of ``classpath`` (``dir/*`` expanded to its jars), or ``None`` when a folder is on it (a
    class-data archive takes jars only)."""
    files: List[Path] = []
    for entry in classpath.split(os.pathsep):
        if entry.endswith("*"):
            files += sorted(Path(entry[:-1]).glob("*.jar"))
        elif Path(entry).is_file():
            files.append(Path(entry))
        else:
            return None
    return files


def class_data_archive(classpath: str, java: Optional[str] = None,
                       training: Optional[Callable[[str, List[str]], None]] = None) -> Optional[Path]:
    """The class-data archive (AppCDS) of the JVMs on ``classpath``: ``java/target/cds/<key>.jsa``, trained once
    (the first time it is asked for, a few seconds) by running :data:`TRAIN_CLASS` on that classpath (a
    :class:`~rebalance.kafka.jvm.JvmProcess`) with
    ``-XX:ArchiveClassesAtExit`` -- or ``training(java, flags)``, which must run JVMs on exactly ``classpath``
    with the JVM flags ``flags`` and return once they have exited normally (the broker's: a one-node cluster
    started and stopped, :mod:`rebalance.kafka.cluster`).  A JVM started with it maps the Kafka client classes it needs at start instead
    of reading and verifying them from the jars, which halves the CPU of a member JVM's start and warm-up (0.8 s
    against 1.6 s on 2 cores, 4.3.1's clients on Java 17).  The key covers the ``java`` binary and every jar's
    path, size and time, so a rebuilt jar gets a new archive.

    ``None`` (the JVM starts as before) when ``$REBALANCE_CLASS_DATA`` is ``0``, when a folder is on the
    classpath (``$REBALANCE_ORACLE_EXTRA_CP``, a module built before ``rebalance.jar``), or when training failed
    (its output is kept in ``<key>.failed``, which stops it being tried again for that classpath).  Several
    processes asking at once train it once (a file lock)."""
    if os.environ.get("REBALANCE_CLASS_DATA", "1") == "0":
        return None
    files = _classpath_files(classpath)
    if not files:
        return None
    java = java or find_java()
    digest = hashlib.sha256(str(Path(java).resolve()).encode())
    for f in files:
        st = f.stat()
        digest.update(f"{f}:{st.st_size}:{st.st_mtime_ns}".encode())
    folder = java_module() / "target" / "cds"
    archive = folder / f"{digest.hexdigest()[:20]}.jsa"
    failed = archive.with_suffix(".failed")
    if archive.exists():
        return archive
    if failed.exists():
        return None
    with _lock:
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if archive.exists() or failed.exists():
                return archive if archive.exists() else None
            trained = archive.with_suffix(f".{os.getpid()}.training")
            flags = [f"-XX:ArchiveClassesAtExit={trained}", "-Xlog:cds=off", "-Xlog:cds+dynamic=off"]
            why, ok = "", False
            try:
                if training is not None:
                    training(java, flags)
                    ok = True
                else:
                    jvm = JvmProcess("train", TRAIN_CLASS, classpath.split(os.pathsep), folder / "training",
                                     heap="256m", jvm_options=[*CLIENT_JVM_OPTIONS, *flags], java=java)
                    try:
                        code = jvm.start().wait(180)
                        ok = code == 0
                        why = f"{' '.join(jvm.command())}\nexit code {code}\n{jvm.stderr_tail()}"
                    finally:
                        jvm.stop()
                        remove_dir(folder / "training")
            except Exception as exc:  # a failed training costs the archive only
                why += f"\n{type(exc).__name__}: {exc}"
            if ok and trained.exists():
                os.replace(trained, archive)
                return archive
            trained.unlink(missing_ok=True)
            failed.write_text(why or "the training wrote no archive\n")
            return None


def class_data_flags(classpath: str, java: str,
                     training: Optional[Callable[[str, List[str]], None]] = None) -> List[str]:
    """The JVM flags that start a JVM on ``classpath`` with its archive (:func:`class_data_archive`), or none."""
    archive = class_data_archive(classpath, java, training)
    return [f"-XX:SharedArchiveFile={archive}", *_CLASS_DATA_QUIET] if archive is not None else []
