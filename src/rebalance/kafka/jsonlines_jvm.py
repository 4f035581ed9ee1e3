"""The Python side of the JSON-lines protocol (:mod:`rebalance.kafka.jsonlines`): :class:`JsonLinesJvm`.

It runs one JVM of the book's Java module through :class:`~rebalance.kafka.jvm.JvmProcess` (``pipes="both"``):
a reader thread keeps every record, in order (:attr:`JsonLinesJvm.records`); :meth:`~JsonLinesJvm.send` writes a
command, :meth:`~JsonLinesJvm.request` writes one and waits for its answer; :meth:`~JsonLinesJvm.await_record`
waits for a record, checking every :data:`CHECK_INTERVAL_S` that the JVM (and its companions) are alive, so a
JVM that died is a :class:`~rebalance.errors.LiveClientError` with the tail of its stderr at once, not at the
timeout; a send to a dead one is one too.  A wait that runs out is a :class:`~rebalance.errors.WaitTimeoutError`.
"""
from __future__ import annotations

import json
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable, Generic, Iterable, List, Optional, Sequence, TypeVar, cast

from ..errors import LiveClientError, WaitTimeoutError
from .jsonlines import AnyCommand, Record
from .jvm import CLIENT_JVM_OPTIONS, JvmProcess, kill_and_reap, module_classpath

__all__ = ["JsonLinesJvm", "pause", "CHECK_INTERVAL_S"]

#: how often a wait checks that the JVMs it waits on are alive
CHECK_INTERVAL_S = 0.2

R = TypeVar("R", bound=Record)


class JsonLinesJvm(Generic[R]):
    """One JVM speaking the protocol: ``main_class`` of the Java module, named ``name`` (its files ``NAME.err``...
    in ``folder``), ``what`` naming it in every error (e.g. ``"member JVM 3 (ScenarioMembers)"``).  ``heap``,
    ``jvm_options``, ``classpath`` (default :func:`~rebalance.kafka.jvm.module_classpath`) and ``log4j2`` go to
    :class:`~rebalance.kafka.jvm.JvmProcess`, which starts it with its classpath's class-data archive.

    ``companions``: the other JVMs of the same run (a list the driver may still extend), checked alive too
    while this one is awaited, so a member JVM that dies while the driver waits on the admin JVM is reported
    at once.

    :meth:`start` spawns it and waits for ``ready``; :attr:`records` holds every record it wrote, in order.
    :meth:`stop` (or :meth:`kill`, the same: SIGKILL) ends it; a JVM stopped so is no longer checked."""

    def __init__(self, name: str, main_class: str, folder: Path, what: str, *, heap: str,
                 jvm_options: Sequence[str] = CLIENT_JVM_OPTIONS, classpath: Optional[Sequence[str]] = None,
                 log4j2: Optional[str] = None, companions: Sequence["JsonLinesJvm[R]"] = ()):
        self.process = JvmProcess(name, main_class, list(classpath) if classpath is not None else module_classpath(),
                                  folder, heap=heap, jvm_options=jvm_options, log4j2=log4j2, pipes="both",
                                  class_data=True)
        self.what = what
        self.companions = companions
        self.records: List[R] = []
        self._cond = threading.Condition()
        self._eof = False
        self._stopped = False
        self._reader: Optional[threading.Thread] = None

    # -------------------------------------------------------------------- life
    def start(self, timeout: float = 60.0) -> "JsonLinesJvm[R]":
        """Spawn the JVM and wait (``timeout`` s) for its ``ready``."""
        self.spawn()
        self.await_ready(timeout)
        return self

    def spawn(self) -> None:
        """Spawn the JVM and its reader thread, without waiting (several JVMs start side by side; then
        :meth:`await_ready` each)."""
        self.process.start()
        self._reader = threading.Thread(target=self._read, name=f"jsonlines-{self.process.name}", daemon=True)
        self._reader.start()

    def await_ready(self, timeout: float) -> R:
        """The ``ready`` record (the JVM's handshake)."""
        return self.await_record(lambda r: r["event"] == "ready", timeout, "'ready' (the JVM's start)")

    def stop(self) -> None:
        """SIGKILL to the JVM (its process group) and reap it, keep the records it wrote before (the reader
        reads its stdout to the end), close its pipes; from now on it is not checked.  Safe twice."""
        self._stopped = True
        p = self.process.process
        if p is not None:
            kill_and_reap(p)
            if self._reader is not None and self._reader is not threading.current_thread():
                self._reader.join(timeout=2.0)
        self.process.stop()

    kill = stop

    @property
    def stopped(self) -> bool:
        """:meth:`stop` was called."""
        return self._stopped

    # -------------------------------------------------------------------- records
    def _read(self) -> None:
        stdout = self.process.stdout
        try:
            for raw in stdout:
                self._keep(raw)
        except (OSError, ValueError):  # the pipe closed under us by stop()
            pass
        finally:
            with self._cond:
                self._eof = True
                self._cond.notify_all()

    def _keep(self, raw: bytes) -> None:
        text = raw.decode("utf-8", "replace").strip()
        if not text:
            return
        try:
            obj = json.loads(text)
        except ValueError:
            obj = None
        if not isinstance(obj, dict) or not isinstance(obj.get("event"), str) or not isinstance(obj.get("t"), int):
            obj = {"event": "error", "t": -1, "message": f"the JVM wrote a line that is not a record: {text[:200]}"}
        self.note(cast(R, obj))

    def note(self, record: R) -> None:
        """Keep a record the driver adds itself (e.g. ``killed``) in the JVM's order."""
        with self._cond:
            self.records.append(record)
            self._cond.notify_all()

    def errors(self) -> List[R]:
        """The ``error`` records so far."""
        with self._cond:
            return [r for r in self.records if r["event"] == "error"]

    # -------------------------------------------------------------------- talking
    def send(self, command: AnyCommand) -> None:
        """Write one command; :class:`~rebalance.errors.LiveClientError` (with the tail of its stderr) when the
        JVM has exited or its stdin is closed."""
        self.send_line(json.dumps(command))

    def send_line(self, line: str) -> None:
        """Write one line as it is (a test writes what is not a command)."""
        self.check_alive()
        try:
            self.process.stdin.write(line.encode("utf-8") + b"\n")
            self.process.stdin.flush()
        except (OSError, ValueError) as exc:  # BrokenPipeError: the JVM is gone; ValueError: the pipe is closed
            raise self._dead(f"its stdin failed ({type(exc).__name__})") from None

    def request(self, command: AnyCommand, answer: str, timeout: float, what: Optional[str] = None) -> R:
        """Send ``command`` and return the first record after it whose event is ``answer`` (about the same
        ``member`` when the command names one).  An ``error`` record of the command's ``op`` (and member) is a
        :class:`~rebalance.errors.LiveClientError` naming the op, the field and the message."""
        return self.answer(command, answer, timeout, self.ask(command), what)

    def ask(self, command: AnyCommand) -> int:
        """Send ``command`` without waiting; returns where its answer's search starts (for :meth:`answer`), so
        that several JVMs work on a command side by side."""
        with self._cond:
            since = len(self.records)
        self.send(command)
        return since

    def leave(self, member: str, timeout: Optional[float] = None) -> None:
        """Ask ``member`` to close its client (``leave``) and, with a ``timeout`` (s), wait for its ``closed`` or
        ``error`` record."""
        since = self.ask({"op": "leave", "member": member})
        if timeout is not None:
            self.await_record(lambda r: r.get("member") == member and r["event"] in ("closed", "error"), timeout,
                              f"close() of {member}", since)

    def answer(self, command: AnyCommand, answer: str, timeout: float, since: int, what: Optional[str] = None) -> R:
        """The answer to ``command`` sent by :meth:`ask` (which returned ``since``): see :meth:`request`."""
        op, member = command["op"], command.get("member")

        def answered(r: R) -> bool:
            if member is not None and r.get("member") != member:
                return False
            return r["event"] == answer or (r["event"] == "error" and r.get("op") == op)

        rec = self.await_record(answered, timeout, what or f"'{answer}' (the answer to {op})", since=since)
        if rec["event"] == "error":
            field = rec.get("field")
            raise LiveClientError(f"{self.what}: command {op!r} failed"
                                  + (f" (field {field!r})" if field else "") + f": {rec.get('message')}")
        return rec

    def await_record(self, ready: Callable[[R], bool], timeout: float, what: str, since: int = 0) -> R:
        """The first record from index ``since`` on for which ``ready`` holds, waiting up to ``timeout`` s for
        it: :class:`~rebalance.errors.WaitTimeoutError` (``<what JVM>: no <what> within <timeout> s``) when
        none came; :class:`~rebalance.errors.LiveClientError` with the tail of its stderr as soon as the JVM
        is found dead (checked every :data:`CHECK_INTERVAL_S`)."""
        deadline = time.monotonic() + timeout
        seen = since
        with self._cond:
            while True:
                for k in range(seen, len(self.records)):
                    if ready(self.records[k]):
                        return self.records[k]
                seen = max(seen, len(self.records))
                if self._eof or not self.process.running:
                    raise self._dead("it closed its stdout" if self._eof else "")
                for other in self.companions:
                    if other is not self:
                        other.check_alive()
                left = deadline - time.monotonic()
                if left <= 0:
                    raise WaitTimeoutError(f"{self.what}: no {what} within {timeout:g} s")
                self._cond.wait(min(left, CHECK_INTERVAL_S))

    def check_alive(self) -> None:
        """:class:`~rebalance.errors.LiveClientError` with the tail of its stderr if the JVM has exited (a JVM
        stopped on purpose is not checked)."""
        if not self._stopped and self.process.exit_code() is not None:
            raise self._dead("")

    def _dead(self, how: str) -> LiveClientError:
        """The error of a JVM that is gone: its exit code and stderr's tail (once it has exited: up to 2 s)."""
        if self._stopped:
            return LiveClientError(f"{self.what} was stopped")
        p = self.process.process
        if p is not None:
            try:
                p.wait(timeout=2.0)
            except subprocess.TimeoutExpired:  # still running 2 s after closing its pipes: say so
                return LiveClientError(f"{self.what}: {how}, and it has not exited")
        return self.process.died(self.what)

    def __repr__(self) -> str:
        return f"JsonLinesJvm({self.what!r}, {len(self.records)} records, {self.process!r})"


def pause(jvms: Iterable[JsonLinesJvm[R]], seconds: float) -> None:
    """Sleep ``seconds``, checking every :data:`CHECK_INTERVAL_S` that each of ``jvms`` not stopped on purpose is
    alive (:class:`~rebalance.errors.LiveClientError` with its stderr's tail otherwise)."""
    deadline = time.monotonic() + seconds
    watched = list(jvms)
    while True:
        for j in watched:
            j.check_alive()
        left = deadline - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, CHECK_INTERVAL_S))
