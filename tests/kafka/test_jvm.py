"""Every JVM started one way (:mod:`rebalance.kafka.jvm`): its own process group, stderr into its file, a stop
that reaps it, and whatever is still running stopped when the interpreter exits.

The tests need only Java: their JVMs run a main class that does not exist (it fails at once, saying so on
stderr) or a one-file program in source-file mode (``java Sleep.java``, JEP 330) that says so on stderr and
sleeps until it is stopped.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rebalance.errors import IllegalStateError, InputError, LiveClientError, WaitTimeoutError
from rebalance.kafka import class_data, jvm
from rebalance.kafka.jvm import JvmProcess, StopAtExit, find_java, stop_together, wait_until
from .processes import alive, wait_gone

REPO = Path(__file__).resolve().parents[2]
kafka = pytest.mark.kafka
SLEEP = """public class Sleep {
    public static void main(String[] args) throws Exception {
        System.err.println("sleeping");
        Thread.sleep(600_000);
    }
}
"""


def _sleeping(folder: Path, name: str = "sleeps") -> JvmProcess:
    """A JVM that runs until it is stopped (stdin /dev/null: it never reads it)."""
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "Sleep.java"
    source.write_text(SLEEP)
    return JvmProcess(name, str(source), [str(folder)], folder, heap="32m")


def test_a_name_that_is_not_a_file_name_is_refused(tmp_path):
    with pytest.raises(InputError) as caught:
        JvmProcess("../x", "Sleep", [], tmp_path)
    assert caught.value.field == "name"
    with pytest.raises(InputError) as caught:
        JvmProcess("x", "Sleep", [], tmp_path, pipes="stdout")
    assert caught.value.field == "pipes"


@kafka
def test_a_jvm_that_fails_says_why_from_its_stderr_file(tmp_path):
    find_java()
    j = JvmProcess("nomain", "no.such.Main", [str(tmp_path)], tmp_path / "f").start()
    assert j.wait(timeout=30) == 1
    assert "Could not find or load main class no.such.Main" in j.err_file.read_text()
    with pytest.raises(LiveClientError, match=r"JVM nomain exited \(code 1\)\n--- last lines of its stderr ---\n"
                                              r"Error: Could not find or load main class no\.such\.Main"):
        j.check_alive()
    assert "Could not find or load main class" in j.last_lines()
    j.stop()
    assert j.process is None and j not in jvm._RUNNING


@kafka
def test_own_process_group_stderr_file_and_a_stop_that_reaps(tmp_path):
    j = _sleeping(tmp_path).start()
    pid = j.pid
    try:
        assert j.running and j in jvm._RUNNING
        wait_until(lambda: "sleeping" in j.err_file.read_text(), 30, "line on stderr")
        assert os.getpgid(pid) == pid != os.getpgid(0)  # its own group: a kill reaches all it started
        with pytest.raises(IllegalStateError, match="running already"):
            j.start()
        assert j.wait(timeout=0.5) is None  # still running
    finally:
        j.stop()
    assert not alive(pid) and not j.running and j not in jvm._RUNNING
    with pytest.raises(ChildProcessError):  # reaped: no zombie left for anyone to wait for
        os.waitpid(pid, os.WNOHANG)
    j.stop()  # twice: nothing happens
    assert j.out_file.read_text() == ""


@kafka
def test_stop_together_gives_sigterm_a_grace_period(tmp_path):
    jvms = [_sleeping(tmp_path / f"w{i}").start() for i in range(2)]
    for j in jvms:
        wait_until(lambda: "sleeping" in j.err_file.read_text(), 30, "line on stderr")
    pids = [j.pid for j in jvms]
    procs = [j.process for j in jvms]  # their exit codes stay on the Popen objects
    began = time.monotonic()
    stop_together(jvms, grace=20)
    assert time.monotonic() - began < 10
    assert not any(alive(p) for p in pids)
    # ended by SIGTERM (the JVM's handler exits with 143; before it is installed the signal ends it: -15), not
    # killed (-9)
    assert all(p.returncode in (143, -15) for p in procs), [p.returncode for p in procs]


def test_wait_until_names_what_it_waited_for_and_checks_every_pass():
    with pytest.raises(WaitTimeoutError, match=r"^no answer within 0\.2 s$"):
        wait_until(lambda: None, 0.2, "answer", pause=0.05)
    calls = []

    def died() -> None:
        calls.append(1)
        raise LiveClientError("JVM x exited (code 1)")

    with pytest.raises(LiveClientError):
        wait_until(lambda: None, 30, "answer", check=died)
    assert calls == [1]  # at once, not at the timeout
    assert wait_until(lambda: 5, 1, "five") == 5


_CHILD = textwrap.dedent("""
    import os, sys, threading
    from pathlib import Path
    from rebalance.kafka.jvm import JvmProcess
    held = []
    def start():  # from a thread: no parent-death signal, so only StopAtExit can stop it
        source = Path(sys.argv[1]) / "Sleep.java"
        held.append(JvmProcess("left", str(source), [sys.argv[1]], Path(sys.argv[1]), heap="32m").start())
    t = threading.Thread(target=start)
    t.start()
    t.join()
    print(held[0].pid, flush=True)
    if sys.argv[2] == "os._exit":
        os._exit(0)  # no atexit: the JVM outlives the interpreter
""")


@kafka
@pytest.mark.parametrize("ending, stopped", [("normal", True), ("os._exit", False)])
def test_stop_at_exit_stops_a_jvm_nobody_stopped(tmp_path, ending, stopped):
    """Started outside any ``with`` and never stopped: a normal interpreter exit stops it; ``os._exit`` (no
    atexit) leaves it running, which shows that it is the exit hook that stopped it."""
    (tmp_path / "Sleep.java").write_text(SLEEP)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run([sys.executable, "-c", _CHILD, str(tmp_path), ending], capture_output=True, text=True,
                         env=env, timeout=120)
    pid = int(out.stdout.split()[0])
    try:
        assert (not wait_gone([pid], 5)) == stopped, f"{ending}: JVM {pid} {'alive' if alive(pid) else 'gone'}"
    finally:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_stop_at_exit_holds_what_runs_and_stops_it():
    class Held:
        stopped = 0

        def stop(self) -> None:
            self.stopped += 1
            registry.discard(self)

    registry: StopAtExit[Held] = StopAtExit()
    a, b = Held(), Held()
    registry.add(a)
    registry.add(b)
    registry.discard(b)
    assert a in registry and b not in registry and len(registry) == 1
    registry.stop_all()
    assert (a.stopped, b.stopped, len(registry)) == (1, 0, 0)


needs_module = pytest.mark.skipif(not (REPO / "java" / "target" / "rebalance.jar").exists(),
                                  reason="the Java module is not built as a jar: make java")


@kafka
@needs_module
def test_a_client_jvm_maps_the_kafka_classes_from_its_class_data_archive(tmp_path, monkeypatch):
    """A JVM started with ``class_data=True`` on the module's classpath is given the archive trained for that
    classpath and loads ``KafkaConsumer`` from it ("shared objects file"), not from the jar; without the flag, or
    with ``$REBALANCE_CLASS_DATA=0``, it reads the jar."""
    monkeypatch.delenv("REBALANCE_CLASS_DATA", raising=False)
    classpath = jvm.module_classpath()
    archive = class_data.class_data_archive(os.pathsep.join(classpath))
    assert archive is not None and archive.exists()

    def source_of_kafka_consumer(shared: bool) -> str:
        log = tmp_path / f"load{int(shared)}.txt"
        j = JvmProcess(f"cds{int(shared)}", class_data.TRAIN_CLASS, classpath, tmp_path, heap="256m",
                       jvm_options=[*jvm.CLIENT_JVM_OPTIONS, f"-Xlog:class+load=info:file={log}"], class_data=shared)
        try:
            j.start()
            assert j.wait(120) == 0, j.stderr_tail()
        finally:
            j.stop()
        return next(line for line in log.read_text().splitlines()
                    if "org.apache.kafka.clients.consumer.KafkaConsumer " in line)

    assert "shared objects file" in source_of_kafka_consumer(True)
    assert "shared objects file" not in source_of_kafka_consumer(False)
    monkeypatch.setenv("REBALANCE_CLASS_DATA", "0")
    assert not any("SharedArchiveFile" in a for a in
                   JvmProcess("x", class_data.TRAIN_CLASS, classpath, tmp_path, class_data=True).command())


@needs_module
def test_a_classpath_with_a_folder_has_no_class_data_archive(tmp_path):
    """An archive takes jars only: a folder on the classpath (classes being developed) means none."""
    assert class_data.class_data_archive(os.pathsep.join([str(tmp_path), *jvm.module_classpath()])) is None


def test_a_failed_training_is_said_once_and_tried_again_later(tmp_path, monkeypatch, capsys):
    """A training that fails leaves no archive, says so in one line on stderr and is not tried again until
    ``RETRY_AFTER_S`` has passed; one that writes the archive makes it the classpath's (no JVM: the training is a
    function here, the classpath one empty jar)."""
    monkeypatch.setenv("REBALANCE_JAVA_DIR", str(tmp_path / "java"))
    monkeypatch.delenv("REBALANCE_CLASS_DATA", raising=False)
    jar = tmp_path / "one.jar"
    jar.write_bytes(b"")
    calls = []

    def failing(java, flags):
        calls.append(flags)
        raise RuntimeError("no broker today")

    assert class_data.class_data_archive(str(jar), "java", failing) is None
    assert class_data.class_data_archive(str(jar), "java", failing) is None
    assert len(calls) == 1 and any(f.startswith("-XX:ArchiveClassesAtExit=") for f in calls[0])
    err = capsys.readouterr().err
    assert err.count("no class-data archive") == 1, err
    (failed,) = (tmp_path / "java" / "target" / "cds").glob("*.failed")
    assert "no broker today" in failed.read_text()

    def writing(java, flags):
        calls.append(flags)
        Path(next(f for f in flags if f.startswith("-XX:ArchiveClassesAtExit=")).split("=", 1)[1]).write_bytes(b"x")

    old = time.time() - class_data.RETRY_AFTER_S - 1
    os.utime(failed, (old, old))
    archive = class_data.class_data_archive(str(jar), "java", writing)
    assert archive is not None and archive.read_bytes() == b"x" and not failed.exists() and len(calls) == 2
    assert class_data.class_data_archive(str(jar), "java", failing) == archive and len(calls) == 2
