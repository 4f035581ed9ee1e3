"""``simulate FILE --on kafka`` for ``"kind": "connect"``: the scenario's workers as real ``ConnectDistributed``
workers of Kafka 4.3.1 (:class:`~rebalance.kafka.connect.workers.ConnectDistributedCluster`) on a one-broker
:class:`~rebalance.kafka.cluster.KafkaCluster` of its own, on the wall clock.

The scenario's members are the workers ``w1``, ``w2``, ... in the order of
:attr:`~rebalance.connect.simulate.ConnectScenario.worker_order` (their worker ids, and so their member ids, sort
in that order: the eager deal's order, as in the simulator).  The members without a ``join`` event start at 0 (``w1`` first,
so that it leads), the others when their ``join`` comes; ``leave`` is a graceful stop (SIGTERM: the herder leaves
the group), ``crash`` a SIGKILL (the group notices at ``session.timeout.ms``), ``restart`` a graceful stop (unless
the worker is down already), ``down_ms`` of sleep once it has exited and a start of the same worker (same port, same worker id, a new member
id); ``add_connector`` and ``remove_connector`` are REST calls (``POST /connectors`` with the book's idle source
connector and its ``tasks.max``, ``DELETE /connectors/{name}``).  Each worker's events, and the REST calls, run
in a thread of their own: an event runs at its ``at_ms`` or, when its worker's previous one took longer (a
worker's JVM takes seconds to start and join), as soon as that one is done; no event waits for another worker.
``config``: ``connect.protocol``, ``scheduled.rebalance.max.delay.ms``, ``session.timeout.ms``,
``heartbeat.interval.ms`` and ``rebalance.timeout.ms`` are the workers' settings, ``group.initial.rebalance.delay.ms``
the broker's (whose ``group.min.session.timeout.ms`` is lowered to 1000).

The rounds are read from the workers' logs (:func:`~rebalance.kafka.connect.logs.parse_rounds`) after
``until_ms``: one line per generation completed by then, as :func:`rebalance.connect.simulate.rebalance_row` writes
it (``at_ms`` when the last member logged its assignment, from the moment the initial workers had all joined: the
scenario's clock starts then, and the rounds of their joining are at 0), plus ``"replayed"``: whether
the book's model, replaying that round with its real members, member ids, leader and generation
(:func:`~rebalance.kafka.connect.replay.compare_rounds`), gives the same connectors and tasks to the same workers,
revokes the same ones and sends a delay exactly when the real leader did.
"""
from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from ...common import JsonRecord
from ...connect.simulate import ConnectEvent, ConnectScenario, connect_summary, parse_connect_scenario, rebalance_row
from ...validation import require
from ..cluster import KafkaCluster
from .logs import RealRound
from .replay import compare_rounds, real_shares
from .workers import ConnectDistributedCluster

__all__ = ["MAX_UNTIL_MS", "ConnectRun", "broker_config", "compute", "play_connect_scenario", "run_connect_scenario"]

#: the longest scenario the wall clock plays
MAX_UNTIL_MS = 600_000
_WORKER_SETTINGS = ("session.timeout.ms", "heartbeat.interval.ms", "rebalance.timeout.ms")


def broker_config(s: ConnectScenario) -> Dict[str, int]:
    """The broker settings the scenario needs."""
    return {"group.min.session.timeout.ms": 1000,
            "group.initial.rebalance.delay.ms": int(s.config["group.initial.rebalance.delay.ms"])}


def _check(s: ConnectScenario) -> None:
    require(s.until_ms <= MAX_UNTIL_MS, "until_ms", f"the wall clock plays at most {MAX_UNTIL_MS} ms, got {s.until_ms}")
    require(len(s.members) <= 9, "members", f"a real Connect cluster here has at most 9 workers, got {len(s.members)}")
    gone = set()
    for e in s.events:
        require(not (e.op == "add_connector" and e.connector in gone), "events",
                f"connector {e.connector!r} is added again after its removal, which the real cluster's replay cannot "
                "follow (it rebuilds the configuration from the workers' logs)")
        if e.op == "remove_connector":
            gone.add(e.connector)
    require(int(s.config["session.timeout.ms"]) >= 1000, "config.session.timeout.ms",
            "must be at least 1000 on the real cluster (the broker's group.min.session.timeout.ms)")


def _rows(s: ConnectScenario, rounds: Sequence[RealRound], t0: float, removed: Dict[str, float]) -> List[JsonRecord]:
    names = {f"w{i + 1}": m for i, m in enumerate(s.worker_order)}
    comparisons = {c.generation: c for c in compare_rounds(rounds, s.connect_protocol, s.max_delay_ms, -1, removed)}
    rows: List[JsonRecord] = []
    for r, shares in zip(rounds, real_shares(rounds, s.connect_protocol)):
        at_ms = int(round((r.time - t0) * 1000))
        if not shares or at_ms > s.until_ms:
            continue
        after = {names[w]: (sh.connectors, sh.tasks) for w, sh in shares.items()}
        revoked = {names[w]: sh.revoked_connectors + sh.revoked_tasks for w, sh in shares.items()}
        assigned = {names[w]: sh.started_connectors + sh.started_tasks for w, sh in shares.items()}
        row = rebalance_row(r.generation, max(0, at_ms), names.get(r.leader or "", r.leader), after, revoked,
                            assigned, r.delay)
        c = comparisons.get(r.generation)
        row["replayed"] = c is not None and c.identical
        rows.append(row)
    return rows


def _play(s: ConnectScenario, connect: ConnectDistributedCluster, t0: float) -> Dict[str, float]:
    """Play the events; returns when each removed connector's ``DELETE`` was sent (seconds since the epoch).

    Each worker's events run in a thread of their own, and the operator's REST calls in another, so that no
    event waits for another worker's stop or start (a JVM's start takes seconds): an event runs at its ``at_ms``,
    or when its worker's previous one is done.  A ``restart`` stops the worker (graceful) and starts it again
    ``down_ms`` after it has exited, unless that worker's next event is due by then (as in the simulator, the
    return is called off)."""
    removed: Dict[str, float] = {}
    names = {m: f"w{i + 1}" for i, m in enumerate(s.worker_order)}
    lines: Dict[Optional[str], List[ConnectEvent]] = {}
    for e in s.events:
        lines.setdefault(e.member, []).append(e)
    failures: List[BaseException] = []

    def wait_until(at_ms: int) -> None:
        time.sleep(max(0.0, t0 + at_ms / 1000 - time.time()))

    def play(events: List[ConnectEvent]) -> None:
        try:
            for i, e in enumerate(events):
                wait_until(e.at_ms)
                if e.op == "add_connector":
                    connect.add_connector(str(e.connector), e.tasks_max)
                    continue
                if e.op == "remove_connector":
                    removed[str(e.connector)] = time.time()
                    connect.delete_connector(str(e.connector))
                    continue
                w = names[str(e.member)]
                running = connect.worker(w).running
                if e.op == "join":
                    connect.start_worker(w)
                elif e.op in ("leave", "crash"):
                    if running:
                        connect.stop_worker(w, graceful=e.op == "leave")
                else:  # restart
                    if running:
                        connect.stop_worker(w)
                    back = time.time() + e.down_ms / 1000
                    if i + 1 < len(events) and t0 + events[i + 1].at_ms / 1000 <= back:
                        continue  # its next event comes first: the return is called off
                    time.sleep(max(0.0, back - time.time()))
                    connect.start_worker(w)
        except BaseException as exc:  # re-raised in the calling thread once every line has ended
            failures.append(exc)

    threads = [threading.Thread(target=play, args=(events,), name=f"connect-scenario-{m or 'rest'}", daemon=True)
               for m, events in lines.items()]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if failures:
        raise failures[0]
    wait_until(s.until_ms)
    return removed


@dataclass
class ConnectRun:
    """One scenario's run on a real Connect cluster: its rebalance lines (each with ``replayed``) and summary line,
    the rounds read from the workers' logs (with the real member ids: for a benchmark's record, not a notebook),
    and when each removed connector's ``DELETE`` was sent (seconds since the epoch), which the replay needs."""

    rows: List[JsonRecord]
    rounds: List[RealRound]
    removed: Dict[str, float]


def play_connect_scenario(value: object, kafka: Optional[KafkaCluster] = None) -> ConnectRun:
    """One ``kind: connect`` scenario on a real Connect cluster (see the module docstring).  ``kafka``: a running
    cluster to use (its broker settings must be :func:`broker_config`'s), else one of its own."""
    s = value if isinstance(value, ConnectScenario) else parse_connect_scenario(value)
    _check(s)
    broker = broker_config(s)
    if kafka is not None:
        for key, v in broker.items():
            require(str(kafka.broker_config.get(key)) == str(v), "cluster",
                    f"the cluster runs {key}={kafka.broker_config.get(key)}, the scenario needs {v}")
    joins = {e.member for e in s.events if e.op == "join"}
    initial = [m for m in s.members if m not in joins]
    worker_config = {k: int(s.config[k]) for k in _WORKER_SETTINGS}
    with (KafkaCluster(brokers=1, broker_config=broker) if kafka is None else contextlib.nullcontext(kafka)) as k:
        connect = ConnectDistributedCluster(k.bootstrap_servers, workers=len(s.members),
                                            connect_protocol=s.connect_protocol, max_delay_ms=s.max_delay_ms,
                                            worker_config=worker_config, start_only=len(initial))
        with connect:
            # the scenario's clock starts when the initial workers have joined: a JVM's start (seconds, more on a
            # loaded machine) would otherwise eat into until_ms and cut the last rounds off
            t0 = time.time()
            removed = _play(s, connect, t0)
            rounds = list(connect.rounds())
            rows = _rows(s, rounds, t0, removed)
    return ConnectRun(rows + [{"summary": connect_summary(rows, s.connect_protocol == "eager")}], rounds, removed)


def run_connect_scenario(value: object, kafka: Optional[KafkaCluster] = None) -> List[JsonRecord]:
    """One ``kind: connect`` scenario on a real Connect cluster (:func:`play_connect_scenario`): its rebalance
    lines, each with ``replayed``, and its summary line."""
    return play_connect_scenario(value, kafka).rows


def compute(value: object) -> List[JsonRecord]:
    """``simulate --on kafka``'s ``compute`` for a ``kind: connect`` line (:func:`run_connect_scenario`)."""
    return run_connect_scenario(value)
