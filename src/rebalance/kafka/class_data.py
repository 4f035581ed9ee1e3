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
import sys
import threading
import time
from pathlib import Path
from typing import Callable, List, Optional

from .classpath import java_module
from .jvm import CLIENT_JVM_OPTIONS, JvmProcess, find_java, remove_dir

__all__ = ["class_data_archive", "class_data_flags", "TRAIN_CLASS", "RETRY_AFTER_S"]

#: the Java module's class that trains a class-data archive (loads what the client JVMs load at start, then exits)
TRAIN_CLASS = "org.rebalance.clients.Train"
#: the JVM flags of a JVM started with a class-data archive, after ``-XX:SharedArchiveFile``: an archive that does
#: not match (a jar rebuilt since) is ignored without a word on stdout, which the JSON-lines JVMs answer on
_CDS_LOG_OFF = ("-Xlog:cds=off", "-Xlog:cds+dynamic=off")
_CLASS_DATA_QUIET = ("-Xshare:auto", *_CDS_LOG_OFF)
_lock = threading.Lock()
#: seconds after a failed training before it is tried again
RETRY_AFTER_S = 600


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
    :class:`~rebalance.kafka.jvm.JvmProcess`) with ``-XX:ArchiveClassesAtExit`` -- or ``training(java, flags)``,
    which must run JVMs on exactly ``classpath`` with the JVM flags ``flags`` and return once they have exited
    normally, raising if they did not (the broker's: a one-node cluster started and stopped,
    :mod:`rebalance.kafka.cluster`).  A JVM started with it maps the Kafka classes it needs at start instead of
    reading and verifying them from the jars, which halves the CPU of a member JVM's start and warm-up (0.8 s
    against 1.6 s on 2 cores, 4.3.1's clients on Java 17).  The key covers the JDK (the ``java`` binary and its
    ``lib/modules``) and every jar's path, size and time, so a rebuilt jar or an updated JDK gets a new archive.

    ``None`` (the JVM starts as before) when ``$REBALANCE_CLASS_DATA`` is ``0``, when a folder is on the
    classpath (``$REBALANCE_ORACLE_EXTRA_CP``, a module built before ``rebalance.jar``), when the folder cannot
    be written, or when training failed: one line on stderr says so, its output is kept in ``<key>.failed``, and
    it is not tried again for :data:`RETRY_AFTER_S`.  Several processes asking at once train it once (a file lock
    per archive)."""
    if os.environ.get("REBALANCE_CLASS_DATA", "1") == "0":
        return None
    files = _classpath_files(classpath)
    if not files:
        return None
    java = java or find_java()
    home = Path(java).resolve().parent.parent
    digest = hashlib.sha256(str(home).encode())
    for f in [home / "lib" / "modules", *files]:
        if f.exists():
            st = f.stat()
            digest.update(f"{f}:{st.st_size}:{st.st_mtime_ns}".encode())
    folder = java_module() / "target" / "cds"
    key = digest.hexdigest()[:20]
    archive, failed = folder / f"{key}.jsa", folder / f"{key}.failed"

    def failed_lately() -> bool:
        return failed.exists() and time.time() - failed.stat().st_mtime < RETRY_AFTER_S

    if archive.exists():
        return archive
    if failed_lately():
        return None
    try:
        with _lock:
            folder.mkdir(parents=True, exist_ok=True)
            with open(folder / f"{key}.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)
                if archive.exists():
                    return archive
                if failed_lately():
                    return None
                trained = folder / f"{key}.{os.getpid()}.training"
                why = _train(classpath, java, training, trained)
                if not why:
                    os.replace(trained, archive)
                    failed.unlink(missing_ok=True)
                    return archive
                failed.write_text(why)
        print(f"rebalance: no class-data archive for a classpath (its training failed, see {failed}); its JVMs "
              f"start without one", file=sys.stderr)
    except OSError:  # a folder that cannot be written: the JVMs start without an archive
        pass
    return None


def _train(classpath: str, java: str, training: Optional[Callable[[str, List[str]], None]], trained: Path) -> str:
    """Train the archive into ``trained``: ``""`` when it is there, else why not."""
    flags = [f"-XX:ArchiveClassesAtExit={trained}", *_CDS_LOG_OFF]
    why = ""
    try:
        if training is not None:
            training(java, flags)
        else:
            work = trained.with_suffix(".folder")
            jvm = JvmProcess("train", TRAIN_CLASS, classpath.split(os.pathsep), work, heap="256m",
                             jvm_options=[*CLIENT_JVM_OPTIONS, *flags], java=java)
            try:
                code = jvm.start().wait(180)
                if code != 0:
                    why = f"{' '.join(jvm.command())}\nexit code {code}\n{jvm.stderr_tail()}"
            finally:
                jvm.stop()
                remove_dir(work)
    except Exception as exc:  # a failed training costs the archive only
        why = f"{type(exc).__name__}: {exc}"
    if not why and not trained.exists():
        why = "the training run wrote no archive"
    if why:
        trained.unlink(missing_ok=True)
    return why


def class_data_flags(classpath: str, java: str,
                     training: Optional[Callable[[str, List[str]], None]] = None) -> List[str]:
    """The JVM flags that start a JVM on ``classpath`` with its archive (:func:`class_data_archive`), or none."""
    archive = class_data_archive(classpath, java, training)
    return [f"-XX:SharedArchiveFile={archive}", *_CLASS_DATA_QUIET] if archive is not None else []
