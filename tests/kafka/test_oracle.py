"""Kafka's own classes as the oracle (``java/``, :mod:`rebalance.kafka.oracle`).

The oracle is only worth something if it really is Kafka at the pinned release, answers every line, and the
check that holds the committed vectors to it fails when one differs.  These tests start the JVM (about a
second each); they need ``make java``.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rebalance import KAFKA_VERSION
from rebalance.errors import JavaUnavailableError
from rebalance.kafka import oracle
from rebalance.kafka.oracle import Oracle, check_files
from rebalance.vectors import vectors_dir

pytestmark = pytest.mark.kafka

REPO = Path(__file__).resolve().parents[2]
POM = REPO / "java" / "pom.xml"


def _pinned_in_pom() -> str:
    return re.search(r"<kafka.version>([^<]+)</kafka.version>", POM.read_text()).group(1)


def test_the_package_and_the_java_module_pin_the_same_release():
    assert KAFKA_VERSION == _pinned_in_pom()


def test_the_oracle_runs_the_pinned_kafka_clients_jar():
    out = subprocess.run(["java", "-cp", oracle.classpath(), oracle.MAIN_CLASS, "--version"],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == KAFKA_VERSION


def test_adminutils_runs_on_the_last_release_that_has_it():
    from rebalance.versions import ADMINUTILS_RELEASE

    assert oracle.release_for("adminutils") == ADMINUTILS_RELEASE
    assert oracle.release_for("consumer") == KAFKA_VERSION
    out = subprocess.run(["java", "-cp", oracle.classpath(ADMINUTILS_RELEASE), oracle.MAIN_CLASS, "--version"],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == ADMINUTILS_RELEASE


def test_kafka_answers_with_its_own_utils_abs():
    """"polygenelubricants" hashes to Integer.MIN_VALUE, which Kafka's Utils.abs maps to 0."""
    with Oracle() as kafka:
        answer = kafka.answer({"kind": "coordinator_partition", "numPartitions": 50,
                               "groupIds": ["polygenelubricants", "my-group"]})
    assert answer.fault is None
    assert answer.output == {"partitions": [0, 12], "javaHashCodes": [-(1 << 31), -1906497762]}


def test_every_line_is_answered_and_bad_lines_name_their_field():
    lines = [{"id": 1, "kind": "java_random", "seed": 42, "ops": [["nextInt", 2147483647]]},
             {"id": 2, "kind": "no-such-kind"},
             {"id": 3, "kind": "coordinator_partition", "numPartitions": "fifty", "groupIds": []},
             {"id": 4, "kind": "java_random", "seed": 42, "ops": [["nextInt", 2147483647]]}]
    with Oracle() as kafka:
        answers = list(kafka.answers(lines))
    assert [a.id for a in answers] == [1, 2, 3, 4]
    assert answers[0].output == answers[3].output == {"outputs": [1562431130]}
    assert answers[1].fault["field"] == "kind"
    assert answers[2].fault == {"type": "InputError", "field": "numPartitions",
                                "message": 'numPartitions must be a 32-bit integer, got "fifty"'}


def test_run_with_the_kafka_oracle_writes_run_s_rows(tmp_path):
    scenarios = tmp_path / "in.jsonl"
    scenarios.write_text('{"id": "a", "kind": "coordinator_partition", "numPartitions": 3, "groupIds": ["g"]}\n'
                         'not json\n'
                         '{"id": "c", "kind": "java_random", "seed": 1, "ops": "x"}\n')
    proc = subprocess.run([sys.executable, "-m", "rebalance", "run", str(scenarios), "--oracle", "kafka"],
                          capture_output=True, text=True)
    rows = [json.loads(t) for t in proc.stdout.splitlines()]
    assert proc.returncode == 1
    assert rows[0] == {"id": "a", "output": {"partitions": [1], "javaHashCodes": [103]}}
    assert rows[1]["error"]["field"] == "line"
    assert rows[2]["error"] == {"type": "InputError", "field": "ops", "message": 'ops must be a list, got "x"'}


def test_vectors_check_fails_on_a_planted_difference(tmp_path):
    lines = (vectors_dir() / "coordinator_partition.jsonl").read_text().splitlines()[:3]
    planted = json.loads(lines[1])
    planted["output"]["partitions"][0] += 1
    path = tmp_path / "coordinator_partition.jsonl"
    path.write_text("\n".join([lines[0], json.dumps(planted), lines[2]]) + "\n")
    reported = []
    [result] = check_files([path], report=reported.append)
    assert (result.passed, result.failed) == (2, 1)
    assert result.differences[0][0] == planted["id"]
    assert "output.partitions[0]" in result.differences[0][1]
    assert reported[-1].endswith("2 passed, 1 failed")


def test_rewrite_restores_kafka_s_outputs(tmp_path):
    original = (vectors_dir() / "java_random.jsonl").read_text().splitlines()[:2]
    planted = json.loads(original[0])
    planted["output"] = {"outputs": []}
    path = tmp_path / "java_random.jsonl"
    path.write_text(json.dumps(planted, separators=(",", ":"), ensure_ascii=False) + "\n" + original[1] + "\n")
    assert oracle.rewrite_files([path], report=lambda _: None) == 0
    assert path.read_text().splitlines() == original


def _path_without(*tools: str) -> str:
    """A PATH with every command of this one except ``tools`` (symlinked into a temporary folder)."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="path-without-"))
    for entry in os.environ["PATH"].split(os.pathsep):
        if not os.path.isdir(entry):
            continue
        for name in os.listdir(entry):
            if name not in tools and not (folder / name).exists():
                try:
                    (folder / name).symlink_to(Path(entry) / name)
                except OSError:
                    pass
    return str(folder)


def test_a_missing_java_is_one_clear_message(tmp_path):
    env = {**os.environ, "PATH": _path_without("java"), "JAVA_HOME": ""}
    scenarios = tmp_path / "in.jsonl"
    scenarios.write_text('{"kind": "java_random", "seed": 1, "ops": []}\n')
    proc = subprocess.run([sys.executable, "-m", "rebalance", "run", str(scenarios), "--oracle", "kafka"],
                          capture_output=True, text=True, env=env)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "error: Kafka's classes need Java 17 or newer: install a JDK (Debian: apt-get install "
        "openjdk-17-jdk-headless maven; macOS: brew install openjdk@17 maven) or set JAVA_HOME"]
    shutil.rmtree(env["PATH"], ignore_errors=True)


@pytest.mark.parametrize("missing, says", [("mvn", "The Java module needs Maven: apt-get install maven"),
                                           ("java", "The Java module needs Java 17 or newer")])
def test_the_java_build_names_what_is_missing(missing, says):
    path = _path_without(missing)
    proc = subprocess.run(["bash", str(REPO / "java" / "build.sh")], capture_output=True, text=True,
                          env={**os.environ, "PATH": path, "JAVA_HOME": ""})
    shutil.rmtree(path, ignore_errors=True)
    assert proc.returncode == 3
    assert proc.stderr.startswith(says) and len(proc.stderr.strip().splitlines()) == 1


def test_without_the_built_module_the_error_says_make_java(monkeypatch, tmp_path):
    monkeypatch.setenv("REBALANCE_JAVA_DIR", str(tmp_path))
    with pytest.raises(JavaUnavailableError, match="run 'make java'"):
        oracle.classpath()


def test_one_jvm_answers_call_after_call():
    """The reader waits for exactly one answer per line, so the same JVM serves any number of calls."""
    with Oracle() as kafka:
        first = kafka.answer({"kind": "java_random", "seed": 42, "ops": [["nextInt", 2147483647]]})
        both = list(kafka.answers([{"kind": "java_random", "seed": 42, "ops": [["nextInt", 2147483647]]}] * 2))
        empty = list(kafka.answers([]))
    assert first.output == both[0].output == both[1].output == {"outputs": [1562431130]}
    assert empty == []


def test_a_jvm_killed_mid_run_says_so_with_its_stderr_tail():
    """The JVM dies while answers stream (SIGKILL: no last words of its own, so it is started logging the GC
    to stderr): the reader stops at once with a LiveClientError carrying the exit code and stderr's tail."""
    import signal
    import time

    from rebalance.errors import LiveClientError

    scenario = {"kind": "java_random", "seed": 42, "ops": [["nextInt", 2147483647]]}
    with Oracle(jvm_options=["-Xlog:gc:stderr"]) as kafka:
        answers = kafka.answers([scenario] * 200_000)
        assert next(answers).output == {"outputs": [1562431130]}
        os.kill(kafka.jvm.pid, signal.SIGKILL)
        began = time.monotonic()
        with pytest.raises(LiveClientError) as caught:
            for _ in answers:
                pass
        took = time.monotonic() - began
        folder = kafka.jvm.folder
    assert took < 2, f"the dead JVM was reported after {took:.1f} s"
    message = str(caught.value)
    assert re.match(r"the Kafka oracle JVM, after \d+ of 200000 answers, exited \(code -9\)", message), message
    assert "last lines of its stderr" in message and "Using Parallel" in message
    assert not folder.exists()


def test_a_short_run_uses_the_serial_collector_and_answers_the_same():
    """``short=True`` (the vectors' check): the flags of :data:`SHORT_RUN_OPTIONS` (the serial collector, the first
    JIT tier only) instead of the parallel collector, and the same answers."""
    scenario = {"kind": "coordinator_partition", "numPartitions": 50, "groupIds": ["my-group", "orders", "g-7"]}
    answers, collectors = {}, {}
    for short in (False, True):
        with Oracle(jvm_options=["-Xlog:gc:stderr"], short=short) as kafka:
            answers[short] = kafka.answer(scenario).output
            collectors[short] = kafka.jvm.stderr_tail()
    assert answers[True] == answers[False] and answers[True]["partitions"][0] == 12
    assert "Using Parallel" in collectors[False] and "Using Serial" in collectors[True], collectors
