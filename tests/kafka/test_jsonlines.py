"""The one JSON-lines protocol of the client drivers (rebalance.kafka.jsonlines, org.rebalance.clients.JsonLines).

No broker: each driver's JVM (ScenarioMembers, ShareMembers, StreamsInstances) answers a line that is not JSON,
an unknown command and a command with a bad field with an error record naming what was wrong, and then still
answers a good command.  A member JVM killed while its driver waits (the consumer player, the share player, the
Streams instances, each against a bootstrap address where nothing listens, so that their first answer never
comes) is a LiveClientError carrying the tail of its stderr within two seconds of the kill, not a timeout a
minute later; and every JVM they started is gone afterwards.
"""
from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional

import pytest

from rebalance.errors import LiveClientError
from rebalance.kafka.jsonlines_jvm import JsonLinesJvm

from .built import needs_class
from .processes import alive, descends_from_us, processes_mentioning

pytestmark = [pytest.mark.kafka, needs_class("clients/JsonLines"), needs_class("streams/StreamsInstances")]

NOWHERE = "127.0.0.1:1"  # nothing listens: an Admin or consumer there waits for its timeout
DRIVERS = {
    # main class: (a command with a bad field, that field, a good command needing no broker, its answer)
    "org.rebalance.consumers.ScenarioMembers": (
        {"op": "start", "member": "c1", "topics": "t", "props": {}}, "topics", {"op": "warm"}, "warmed"),
    "org.rebalance.share.ShareMembers": (
        {"op": "produce", "bootstrap": NOWHERE, "topic": "q", "count": "many"}, "count", {"op": "stop"}, "stopped"),
    "org.rebalance.streams.StreamsInstances": ({"op": "stop"}, "member", {"op": "count"}, "count"),
}


@pytest.mark.parametrize("main_class", sorted(DRIVERS), ids=lambda c: c.rsplit(".", 1)[1])
def test_a_bad_line_is_an_error_record_and_the_jvm_goes_on(tmp_path, main_class):
    bad, field, good, answer = DRIVERS[main_class]
    j: JsonLinesJvm = JsonLinesJvm("probe", main_class, tmp_path, f"the {main_class} JVM", heap="256m")
    try:
        j.start(60)
        assert [r.get("driver") for r in j.records] == [main_class.rsplit(".", 1)[1]]  # "ready", unprompted
        j.send_line("this is not JSON")
        rec = j.await_record(lambda r: r["event"] == "error", 30, "an error record")
        assert "not JSON" in rec["message"] and "op" not in rec
        with pytest.raises(LiveClientError, match=r"command 'frob' failed \(field 'op'\): unknown command 'frob'"):
            j.request({"op": "frob"}, "frobbed", 30)
        with pytest.raises(LiveClientError, match=rf"command '{bad['op']}' failed \(field '{field}'\)"):
            j.request(bad, "never", 30)
        assert j.request(good, answer, 30)["event"] == answer  # still serving
        assert [r.get("op") for r in j.errors()] == [None, "frob", bad["op"]]
        # a send to a JVM that is gone is an error too, with its stderr (it says what it served)
        os.kill(j.process.pid, signal.SIGKILL)
        j.process.process.wait(10)
        with pytest.raises(LiveClientError, match="exited .code -9.(.|\n)*serving JSON-lines commands"):
            j.send(good)
    finally:
        j.stop()


class _Killer(threading.Thread):
    """Kills (SIGKILL) the JVM of ``main_class`` started by this test whose stderr file is named ``err_name``,
    once it has said it serves commands; ``killed_at`` is when."""

    def __init__(self, main_class: str, err_name: str):
        super().__init__(daemon=True)
        self.main_class, self.err_name = main_class, err_name
        self.killed_at: Optional[float] = None
        self.pid: Optional[int] = None

    def run(self) -> None:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and self.killed_at is None:
            for pid in processes_mentioning(self.main_class):
                try:
                    err = Path(os.readlink(f"/proc/{pid}/fd/2"))
                except OSError:
                    continue
                if descends_from_us(pid) and err.name == self.err_name and "serving" in err.read_text():
                    time.sleep(0.5)  # let the driver get into its wait
                    os.kill(pid, signal.SIGKILL)
                    self.pid, self.killed_at = pid, time.monotonic()
                    return
            time.sleep(0.05)


class _Cluster:
    """A stand-in for a running KafkaCluster whose bootstrap address answers nothing."""

    def __init__(self, config: Dict[str, str]):
        self.broker_config, self.running, self.bootstrap_servers = config, True, NOWHERE


def _consumer_run() -> None:
    from rebalance.kafka.consumers import CLASSIC_SETTINGS, run_scenario
    from rebalance.kafka.settings import config_value
    from rebalance.simulate import parse_scenario

    scenario = {"protocol": "eager", "topics": {"t": 2}, "members": [{"id": "c1"}], "until_ms": 5000}
    s = parse_scenario(scenario)
    config = {"offsets.topic.num.partitions": "1", **{setting: config_value(setting, getattr(s.config, name))
                                                      for name, (where, setting) in CLASSIC_SETTINGS.items()
                                                      if where == "broker"}}
    run_scenario(scenario, cluster=_Cluster(config))


def _share_run() -> None:
    from rebalance.kafka.share import SHARE_BROKER_CONFIG, run_share_group

    run_share_group(["a", "b"], records=3, topics={"q": 1}, jvms=2,
                    cluster=_Cluster({k: str(v) for k, v in SHARE_BROKER_CONFIG.items()}))


def _streams_run() -> None:
    from rebalance.kafka.streams import StreamsInstances

    with StreamsInstances(NOWHERE):
        pass


CASES = {  # the run, its main class, the stderr file of the JVM killed, how the error names it
    "consumer member": (_consumer_run, "org.rebalance.consumers.ScenarioMembers", "jvm0.err", "member JVM 0"),
    "share member": (_share_run, "org.rebalance.share.ShareMembers", "share1.err", "share member JVM 1"),
    "streams instances": (_streams_run, "org.rebalance.streams.StreamsInstances", "streams.err",
                          "the Streams instances' JVM"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_killed_jvm_is_a_live_client_error_within_two_seconds(case):
    run, main_class, err_name, named = CASES[case]
    killer = _Killer(main_class, err_name)
    killer.start()
    with pytest.raises(LiveClientError) as failure:
        run()
    failed_at = time.monotonic()
    killer.join(5)
    assert killer.killed_at is not None, "the JVM to kill was never found serving"
    assert failed_at - killer.killed_at < 2.0, f"reported {failed_at - killer.killed_at:.1f} s after the kill"
    message = str(failure.value)
    assert named in message and "exited (code -9)" in message, message
    assert f"{main_class.rsplit('.', 1)[1]}: serving JSON-lines commands" in message  # the tail of its stderr
    left: List[int] = [p for p in processes_mentioning(main_class) if descends_from_us(p) and alive(p)]
    assert left == []


def test_metrics_of_a_member_not_started_is_an_error_naming_the_member(tmp_path):
    """``metrics`` (ScenarioMembers): the answer for a member this JVM never started is an error naming the field."""
    j: JsonLinesJvm = JsonLinesJvm("probe", "org.rebalance.consumers.ScenarioMembers", tmp_path, "ScenarioMembers",
                                   heap="256m")
    try:
        j.start(60)
        with pytest.raises(LiveClientError, match=r"command 'metrics' failed \(field 'member'\): no member nobody"):
            j.request({"op": "metrics", "member": "nobody"}, "metrics", 30)
    finally:
        j.stop()
