"""``simulate --on kafka`` for ``kind: connect`` (:mod:`rebalance.kafka.connect.simulate`): one small scenario on a
real Connect cluster of two workers (about a minute; 55 s of scenario leave a loaded machine time to settle the bounce), next to the simulator.  Every real round must be replayed by the
book's model; the two sides must end on the same assignment, both with a delayed rebalance for the bounce."""
from __future__ import annotations

import pytest

from rebalance.connect import simulate_connect
from rebalance.errors import InputError
from rebalance.kafka.connect.simulate import run_connect_scenario
from .built import needs_class
from .processes import processes_mentioning

SCENARIO = {"kind": "connect", "id": "bounce", "members": [{"id": "a"}, {"id": "b"}],
            "config": {"scheduled.rebalance.max.delay.ms": 8000, "session.timeout.ms": 6000,
                       "heartbeat.interval.ms": 1000, "group.initial.rebalance.delay.ms": 0},
            "events": [{"at_ms": 2000, "op": "add_connector", "connector": "c1", "tasks.max": 4},
                       {"at_ms": 15000, "op": "restart", "member": "b", "down_ms": 1000}],
            "until_ms": 55000}


@pytest.mark.parametrize("change, field", [({"until_ms": 700_000}, "until_ms"),
                                           ({"members": [{"id": f"m{i}"} for i in range(10)], "events": []}, "members"),
                                           ({"config": {"session.timeout.ms": 900, "heartbeat.interval.ms": 100}},
                                            "config.session.timeout.ms")])
def test_what_the_real_cluster_refuses_names_the_field(change, field):
    with pytest.raises(InputError) as caught:
        run_connect_scenario({**SCENARIO, **change})
    assert caught.value.field == field


@pytest.mark.kafka
@needs_class("connect/IdleSourceConnector")
def test_a_bounce_within_the_delay_on_a_real_cluster_agrees_with_the_simulator():
    sim = simulate_connect(SCENARIO)
    # twice seen on a loaded machine (2 cores, load 10+): b's bounce showed no delayed round, or the cluster had not
    # handed out the tasks by until_ms; the scenario is run once more then, and both runs must be replayed by the model
    for attempt in range(2):
        real = run_connect_scenario(SCENARIO)
        rounds = real[:-1]
        assert rounds and all(r["replayed"] for r in rounds), rounds
        handed_out = sum(len(share["tasks"]) for share in rounds[-1]["assignment"].values())
        if any(r["delayed"] for r in rounds) and real[-1]["summary"]["settled"] and handed_out == 4:
            break
    assert real[-1]["summary"]["settled"] and sim[-1]["summary"]["settled"], rounds
    assert any(r["delayed"] for r in rounds) and any(r["delayed"] for r in sim[:-1]), rounds
    assert rounds[-1]["assignment"] == sim[-2]["assignment"]
    assert processes_mentioning("rebalance-connect-") == []


class _FakeWorker:
    def __init__(self) -> None:
        self.running = True


class _FakeConnect:
    """Stands in for ConnectDistributedCluster in the driver's event loop: a stop takes 0.3 s and a start 0.6 s
    (a real JVM's take seconds), and each call's time is recorded."""

    def __init__(self, t0: float) -> None:
        self.t0, self.calls = t0, []
        self.workers = {"w1": _FakeWorker(), "w2": _FakeWorker()}

    def worker(self, name: str) -> _FakeWorker:
        return self.workers[name]

    def _log(self, what: str, name: str) -> None:
        import time
        self.calls.append((what, name, time.time() - self.t0))

    def stop_worker(self, name: str, graceful: bool = True) -> None:
        import time
        self._log("stop", name)
        time.sleep(0.3)
        self.workers[name].running = False

    def start_worker(self, name: str) -> None:
        import time
        self._log("start", name)
        time.sleep(0.6)
        self.workers[name].running = True


def test_no_event_waits_for_another_workers_restart():
    """The driver plays each worker's events in a thread of its own: w2's leave at 0.5 s is not held up by w1's
    restart (a stop, 0.2 s down, a start), and a restart whose worker's next event comes first is called off."""
    import time

    from rebalance.connect.simulate import parse_connect_scenario
    from rebalance.kafka.connect.simulate import _play
    s = parse_connect_scenario({"kind": "connect", "id": "x", "members": [{"id": "w1"}, {"id": "w2"}],
                                "events": [{"at_ms": 0, "op": "restart", "member": "w1", "down_ms": 200},
                                           {"at_ms": 500, "op": "leave", "member": "w2"},
                                           {"at_ms": 1400, "op": "restart", "member": "w1", "down_ms": 5000},
                                           {"at_ms": 1600, "op": "crash", "member": "w1"}],
                                "until_ms": 2000})
    t0 = time.time()
    fake = _FakeConnect(t0)
    _play(s, fake, t0)  # type: ignore[arg-type]
    expected = [("stop", "w1", 0.0), ("stop", "w2", 0.5), ("start", "w1", 0.5),  # w1 back 0.2 s after its stop
                ("stop", "w1", 1.4)]  # its return at 6.7 s is called off by the crash at 1.6 s (w1 is down then)
    calls = sorted(fake.calls, key=lambda c: c[2])
    assert [c[:2] for c in calls] == [e[:2] for e in expected] or [c[:2] for c in calls] == [
        e[:2] for e in (expected[0], expected[2], expected[1], expected[3])], calls  # 0.5 s twice: either first
    assert all(abs(c[2] - e[2]) < 0.25 for c, e in zip(sorted(calls), sorted(expected))), calls
