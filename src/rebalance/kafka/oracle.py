"""Kafka's own classes as the oracle of every vector.

The book's Java module (``java/``, class ``org.rebalance.oracle.Oracle``) reads scenario lines -- a vector's
``input`` -- and answers each with what Kafka's classes from the pinned jars compute, in the vectors'
``output`` schema.  This module starts that JVM, streams lines through it and compares or rewrites the
committed vectors:

* :class:`Oracle` -- one JVM for many lines (``with Oracle() as o: o.answer(scenario)``);
* :func:`check_files` -- ``make vectors-check``: every committed output must equal Kafka's;
* :func:`rewrite_files` -- ``make vectors``: the committed outputs recomputed by Kafka;
* ``python -m rebalance run FILE --oracle kafka`` answers any input file through the same JVM.

A kind runs on the release the book pins, :data:`rebalance.KAFKA_VERSION`, except ``adminutils``:
``AdminUtils`` (ZooKeeper mode's replica assignment) is gone from the pinned release, so its lines are answered
by the last release that has it, :data:`ADMINUTILS_RELEASE`.
"""
from __future__ import annotations

import json
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, TypedDict, cast

from ..errors import IllegalStateError, LiveClientError
from ..versions import ADMINUTILS_RELEASE, KAFKA_VERSION
from .jvm import CLIENT_JVM_OPTIONS, JvmProcess, find_java, module_classpath, remove_dir

if TYPE_CHECKING:
    from ..vectors import Line

__all__ = ["MAIN_CLASS", "SHORT_RUN_OPTIONS", "Oracle", "OracleAnswer", "Fault", "FileCheck", "answer_all",
           "answer_files", "check_files", "classpath", "differences", "release_for", "rewrite_files", "run_lines", "main"]

MAIN_CLASS = "org.rebalance.oracle.Oracle"

#: a JSON value as the oracle reads and writes it (a scenario, an output, a vectors line)
Json = object
#: one line of a vectors file: ``{"id", "input", "output", ...}``
VectorLine = Dict[str, Json]
#: one row ``python -m rebalance run`` prints: ``{"id", "output"}`` or ``{"id", "error": {"type", "field", "message"}}``
OutputRow = Dict[str, Json]


class Fault(TypedDict, total=False):
    """Why the oracle could not run a line: the error's ``type`` (``InputError``, a Kafka exception...),
    the ``field`` it names (when it names one) and its ``message``."""

    type: str
    field: Optional[str]
    message: str


def classpath(release: str = KAFKA_VERSION) -> str:
    """The oracle's classpath for ``release`` (:func:`rebalance.kafka.jvm.module_classpath`, joined): the
    module's classes and that release's jars as ``make java`` resolved them (``java/target/lib-RELEASE``),
    ``$REBALANCE_ORACLE_EXTRA_CP`` in front; :class:`~rebalance.errors.JavaUnavailableError` when it is not
    built."""
    return os.pathsep.join(module_classpath(release))


def release_for(kind: object, release: Optional[str] = None) -> str:
    """The Kafka release that answers ``kind``: ``release`` when given, else the pinned one (``adminutils``:
    :data:`ADMINUTILS_RELEASE`, the last release with ``AdminUtils``)."""
    if release:
        return release
    return ADMINUTILS_RELEASE if kind == "adminutils" else KAFKA_VERSION


@dataclass(frozen=True)
class OracleAnswer:
    """Kafka's answer to one scenario: ``output`` (the vectors' output schema), or ``fault`` when the line could
    not be run at all (``{"type", "field", "message"}``: bad input named by field, or a class the release lacks)."""

    id: Json
    kind: Json
    output: Optional[Dict[str, Json]] = None
    fault: Optional[Fault] = None


#: the JVM flags of an oracle's short run (:class:`Oracle`'s ``short``): the book's client JVMs' (the serial collector
#: and the first JIT tier only); the vectors' check takes about half the CPU it takes with the full JIT
SHORT_RUN_OPTIONS = CLIENT_JVM_OPTIONS


class Oracle:
    """One JVM running Kafka's classes of ``release`` (default: the pinned one): a
    :class:`~rebalance.kafka.jvm.JvmProcess` that reads a scenario a line on stdin and writes its answer a line
    on stdout (``pipes="both"``), its stderr into a file of a temporary folder removed on :meth:`close`.
    ``heap``: its ``-Xmx`` (default ``$REBALANCE_ORACLE_HEAP``, else ``2g``); ``jvm_options``: more JVM flags
    (after ``-XX:+UseParallelGC``, or with ``short`` after :data:`SHORT_RUN_OPTIONS`: a run of small inputs, such as
    the vectors, where compiling is most of the JVM's CPU); ``classpath``: the JVM's classpath instead of the
    module's one for ``release`` (a release that ``make java`` does not resolve: :mod:`rebalance.known_issues` runs the jars of the releases
    on each side of a fix).

    >>> with Oracle() as kafka:                                    # doctest: +SKIP
    ...     kafka.answer({"kind": "coordinator_partition", "numPartitions": 50, "groupIds": ["my-group"]}).output
    {'partitions': [12], 'javaHashCodes': [-1906497762]}
    """

    def __init__(self, release: str = KAFKA_VERSION, heap: Optional[str] = None, jvm_options: Sequence[str] = (),
                 classpath: Optional[Sequence[str]] = None, short: bool = False):
        self.release = release
        self.heap = heap or os.environ.get("REBALANCE_ORACLE_HEAP", "2g")
        self.jvm_options = [*(SHORT_RUN_OPTIONS if short else ("-XX:+UseParallelGC",)), *jvm_options]
        self._java = find_java()  # both raise JavaUnavailableError now, not when the JVM starts
        self._classpath = list(classpath) if classpath is not None else module_classpath(release)
        self._jvm: Optional[JvmProcess] = None

    def __enter__(self) -> "Oracle":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> "Oracle":
        """Start the JVM (:class:`~rebalance.errors.IllegalStateError` if it runs already)."""
        if self._jvm is not None:
            raise IllegalStateError("the Kafka oracle JVM is running already")
        folder = Path(tempfile.mkdtemp(prefix="rebalance-oracle-"))
        self._jvm = JvmProcess("oracle", MAIN_CLASS, self._classpath, folder, heap=self.heap,
                               jvm_options=self.jvm_options, pipes="both", java=self._java)
        try:
            self._jvm.start()
        except BaseException:
            self.close()
            raise
        return self

    @property
    def jvm(self) -> Optional[JvmProcess]:
        """The JVM while the oracle is open (its pid, its stderr file), else ``None``."""
        return self._jvm

    def close(self) -> None:
        """End the JVM: its stdin closed, it exits when it has answered every line (up to 10 s, then it is
        killed), and its folder removed.  Safe to call twice."""
        jvm, self._jvm = self._jvm, None
        if jvm is None:
            return
        try:
            if jvm.running:
                try:
                    jvm.stdin.close()
                except OSError:
                    pass
                jvm.wait(timeout=10)
        finally:
            jvm.stop()
            remove_dir(jvm.folder)

    def answers(self, scenarios: Iterable[Json]) -> Iterator[OracleAnswer]:
        """Kafka's answers, in order: exactly one per scenario.  The lines are written by a thread while the
        answers are read, so any number of large lines streams through without filling a pipe; the reader knows
        how many answers to wait for before it starts, so it never waits for one that will not come.  A JVM that
        stops before the last answer raises :class:`~rebalance.errors.LiveClientError` with its stderr's tail."""
        jvm = self._jvm
        if jvm is None:
            raise IllegalStateError("use the Oracle in a 'with' block")
        stdin, stdout = jvm.stdin, jvm.stdout
        lines = [(json.dumps(s, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
                 for s in scenarios]
        failure: List[BaseException] = []

        def feed() -> None:
            try:
                for line in lines:
                    stdin.write(line)
                stdin.flush()
            except BaseException as exc:  # a broken pipe shows below as a JVM that stopped
                failure.append(exc)

        writer = threading.Thread(target=feed, daemon=True)
        writer.start()
        received = 0
        while received < len(lines):
            text = stdout.readline()
            if not text:
                break
            received += 1
            row = cast(Dict[str, Json], json.loads(text))
            yield OracleAnswer(row.get("id"), row.get("kind"), cast(Optional[Dict[str, Json]], row.get("output")),
                               cast(Optional[Fault], row.get("fault")))
        writer.join()
        if received < len(lines) or failure:
            what = f"the Kafka oracle JVM, after {received} of {len(lines)} answers,"
            if jvm.wait(timeout=5) is not None:
                raise jvm.died(what)
            raise LiveClientError(f"{what} stopped reading its input: {failure[0] if failure else 'no answer'}")

    def answer(self, scenario: Json) -> OracleAnswer:
        """Kafka's answer to one scenario."""
        return next(iter(self.answers([scenario])))


def _by_release(scenarios: Sequence[object], release: Optional[str]) -> Dict[str, List[int]]:
    groups: Dict[str, List[int]] = {}
    for i, s in enumerate(scenarios):
        kind = s.get("kind") if isinstance(s, dict) else None
        groups.setdefault(release_for(kind, release), []).append(i)
    return groups


def answer_all(scenarios: Sequence[object], release: Optional[str] = None,
               progress: Optional[Callable[[int], None]] = None, short: bool = False) -> List[OracleAnswer]:
    """Kafka's answers to ``scenarios``, each kind on its release (see :func:`release_for`); one JVM per release
    (``short``: see :class:`Oracle`)."""
    answers: List[Optional[OracleAnswer]] = [None] * len(scenarios)
    for rel, positions in _by_release(scenarios, release).items():
        with Oracle(rel, short=short) as kafka:
            for pos, ans in zip(positions, kafka.answers(scenarios[p] for p in positions)):
                answers[pos] = ans
                if progress:
                    progress(1)
    # every position is filled: Oracle.answers yields exactly one answer per scenario, or raises
    return cast(List[OracleAnswer], answers)


def run_lines(lines: Iterable["Line"], write: Callable[[OutputRow], None], release: Optional[str] = None
              ) -> Tuple[int, int]:
    """``python -m rebalance run FILE --oracle kafka``: the same rows as ``run`` (``{"id", "output"}``, or
    ``{"id", "error": {"type", "field", "message"}}`` for a line that cannot be run), computed by Kafka's own
    classes.  Lines that are not JSON or over the size limit are answered here without starting Java; the
    others go through one JVM per release, in order.  Returns (ok, errors)."""
    from ..errors import InputError
    from ..vectors import check_input_size, line_id

    rows: List[OutputRow] = []
    pending: List[Tuple[int, Json]] = []
    for line in lines:
        ident = line_id(line.value, line.where)
        scenario = line.value
        if isinstance(scenario, dict) and isinstance(scenario.get("input"), dict):
            scenario = scenario["input"]
        try:
            if line.error is not None:
                raise line.error
            if not isinstance(scenario, dict):
                raise InputError("input", f"must be a JSON object, got {type(scenario).__name__}")
            check_input_size(scenario)
        except InputError as exc:
            rows.append({"id": ident, "error": exc.to_json()})
            continue
        rows.append({"id": ident})
        pending.append((len(rows) - 1, scenario))
    answers = answer_all([s for _, s in pending], release)
    for (pos, _), ans in zip(pending, answers):
        if ans.fault is not None:
            rows[pos]["error"] = {"type": ans.fault["type"], "field": ans.fault.get("field") or "input",
                                  "message": ans.fault["message"]}
        else:
            rows[pos]["output"] = ans.output
    errors = 0
    for row in rows:
        errors += "error" in row
        write(row)
    return len(rows) - errors, errors


# ---------------------------------------------------------------------------------------------
# the committed vectors against Kafka


def _read_vectors(path: Path) -> List[VectorLine]:
    return [cast(VectorLine, json.loads(t)) for t in path.read_text(encoding="utf-8").splitlines() if t.strip()]


def differences(expected: object, actual: object, where: str = "output") -> Iterator[Tuple[str, object, object]]:
    """Every place where two JSON values differ, as ``(dotted path, expected's value, actual's value)``: a value of
    another type or that differs, a dict key only one side has (the other side's value is ``None``), a list of
    another length.  Dict keys in ``expected``'s order, then ``actual``'s own."""
    if type(expected) is not type(actual):
        yield where, expected, actual
    elif isinstance(expected, dict) and isinstance(actual, dict):
        for key in list(expected) + [k for k in actual if k not in expected]:
            if key not in actual or key not in expected:
                yield f"{where}.{key}", expected.get(key), actual.get(key)
            elif expected[key] != actual[key]:
                yield from differences(expected[key], actual[key], f"{where}.{key}")
    elif isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for i, (e, a) in enumerate(zip(expected, actual)):
            if e != a:
                yield from differences(e, a, f"{where}[{i}]")
    elif expected != actual:
        yield where, expected, actual


def _first_difference(expected: object, actual: object) -> str:
    where, e, a = next(differences(expected, actual))
    if isinstance(e, list) and isinstance(a, list):
        return f"{where}: Kafka has {len(a)} items, committed {len(e)}"
    return f"{where}: Kafka {_short(a)}, committed {_short(e)}"


def _short(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 120 else text[:117] + "..."


@dataclass
class FileCheck:
    """One vectors file held to Kafka: lines that passed and failed, and each difference (line id, what)."""

    path: Path
    passed: int = 0
    failed: int = 0
    differences: Tuple[Tuple[object, str], ...] = ()


def answer_files(paths: Iterable[Path], release: Optional[str] = None
                 ) -> List[Tuple[Path, List[VectorLine], List[OracleAnswer]]]:
    """Each vectors file's lines with Kafka's answers to their inputs; all files go through one JVM per release
    (a short run: vectors are small inputs)."""
    files = [(path, _read_vectors(path)) for path in map(Path, paths)]
    answers = answer_all([line.get("input") for _, lines in files for line in lines], release, short=True)
    out, start = [], 0
    for path, lines in files:
        out.append((path, lines, answers[start:start + len(lines)]))
        start += len(lines)
    return out


def check_files(paths: Iterable[Path], release: Optional[str] = None,
                report: Callable[[str], None] = print, shown: int = 10) -> List[FileCheck]:
    """``make vectors-check``: every line's committed ``output`` must equal Kafka's answer to its ``input``,
    value for value (list orders included).  Reports the first ``shown`` differences of each file (all are in
    the returned :class:`FileCheck`) and a summary line per file."""
    results = []
    for path, lines, answers in answer_files(paths, release):
        check = FileCheck(path)
        diffs = []
        for line, ans in zip(lines, answers):
            given = line.get("input")
            ident = line.get("id", given.get("id") if isinstance(given, dict) else None)
            if ans.fault is not None:
                problem = f"not run: {ans.fault['type']} ({ans.fault.get('field')}): {ans.fault['message']}"
            elif ans.output != line.get("output"):
                problem = _first_difference(line.get("output"), ans.output)
            else:
                check.passed += 1
                continue
            check.failed += 1
            diffs.append((ident, problem))
            if len(diffs) <= shown:
                report(f"DIFF {ident} ({path.name}): {problem}")
        check.differences = tuple(diffs)
        more = f" ({len(diffs) - shown} differences not shown)" if len(diffs) > shown else ""
        report(f"{path}: {check.passed} passed, {check.failed} failed{more}")
        results.append(check)
    return results


def rewrite_files(paths: Iterable[Path], release: Optional[str] = None,
                  report: Callable[[str], None] = print) -> int:
    """``make vectors``: rewrite each file's ``output`` fields with Kafka's answers (everything else of a line
    is kept).  A line Kafka's classes could not run is left as it is and counted; returns that count."""
    not_run = 0
    for path, lines, answers in answer_files(paths, release):
        changed = 0
        for line, ans in zip(lines, answers):
            if ans.fault is not None:
                not_run += 1
                report(f"NOT RUN {line.get('id')} ({path.name}): {ans.fault['message']}")
                continue
            if line.get("output") != ans.output:
                changed += 1
                line["output"] = ans.output
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        sep = (", ", ": ") if '": ' in first else (",", ":")  # each file keeps its own JSON spacing
        path.write_text("".join(json.dumps(line, ensure_ascii=False, separators=sep) + "\n" for line in lines),
                        encoding="utf-8")
        report(f"{path}: {len(lines)} lines, {changed} outputs changed")
    return not_run


def main(argv: Optional[Sequence[str]] = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m rebalance.kafka.oracle",
                                     description="the committed vectors against Kafka's own classes")
    parser.add_argument("command", choices=("check", "rewrite"))
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--release", default=None,
                        help=f"answer every kind with this Kafka release (default: {KAFKA_VERSION}; adminutils: {ADMINUTILS_RELEASE})")
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            results = check_files(args.files, args.release)
            passed, failed = sum(r.passed for r in results), sum(r.failed for r in results)
            print(f"{passed} passed, {failed} failed")
            return 1 if failed else 0
        return 1 if rewrite_files(args.files, args.release) else 0
    except LiveClientError as exc:  # JavaUnavailableError: nothing to run it with; else the JVM failed
        print(f"error: {exc}")
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
