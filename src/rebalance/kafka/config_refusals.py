"""The settings Kafka refuses outright, tried on the jars of the pinned release: what the consumer or the broker says.

Chapter 17's table of rules (:mod:`rebalance.timeouts.rules`) marks four broken rules ``refused``: Kafka does not
run with them, and the rule quotes what Kafka says.  Here each is tried for real, on Kafka 4.3.1:

* a classic consumer whose ``heartbeat.interval.ms`` is not below its ``session.timeout.ms``: ``new KafkaConsumer``
  throws (``Heartbeat``'s constructor, through ``ConsumerCoordinator``);
* a classic consumer whose ``session.timeout.ms`` lies outside the broker's ``group.min.session.timeout.ms`` and
  ``group.max.session.timeout.ms``: it is created and subscribes, and its first ``poll()`` throws once the
  coordinator has answered its JoinGroup ``INVALID_SESSION_TIMEOUT`` (``GroupCoordinatorService.joinGroup``);
* a consumer of ``group.protocol=consumer`` that sets ``session.timeout.ms``: ``ConsumerConfig`` throws a
  ``ConfigException`` when it is created;
* a broker whose ``group.consumer.*`` timings break their bounds: it does not start (``GroupCoordinatorConfig``'s
  checks), a :class:`~rebalance.errors.ClusterStartError` naming the log's first exception.

:func:`consumer_refusals` starts the consumers as members of a :class:`~rebalance.kafka.consumers` member JVM
(``ScenarioMembers``, one JVM for all, since none of them lives long) against a running broker and returns, per
consumer, the first line of the exception its thread ended with (``None`` if it joined: no refusal).
:func:`broker_refusal` starts a one-broker cluster with the given settings and returns its start error's cause
(``None`` if it started).  :func:`refusals_on_kafka` runs the four cases of chapter 17 on one cluster of its own.

Defined in chapter 17, *Setting the timeouts*.
"""
from __future__ import annotations

import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, TypedDict, Union

from ..errors import ClusterStartError, LiveClientError
from ..validation import require
from .jsonlines_jvm import JsonLinesJvm

__all__ = ["ConsumerCase", "Refusal", "consumer_refusals", "broker_refusal", "refusals_on_kafka"]

#: how long a refused consumer may take to say so (a JoinGroup's answer comes in well under a second on loopback)
REFUSAL_TIMEOUT_S = 60.0
#: the record of a consumer that was not refused: it joined and got its partition
_JOINED = "assigned"


class ConsumerCase(TypedDict):
    """One consumer to try: its ``name`` and the client ``props`` it is created with (``bootstrap.servers``,
    ``group.id`` and ``client.id`` are added)."""

    name: str
    props: Dict[str, str]


class Refusal(TypedDict):
    """What Kafka did with one broken setting: the ``rule`` of :mod:`rebalance.timeouts.rules`, the ``setting``
    and its ``value``, ``where`` it was refused (``consumer``, ``JoinGroup`` or ``broker``) and ``said``: the first
    line of the exception (``None``: not refused)."""

    rule: str
    setting: str
    value: str
    where: str
    said: Optional[str]


def _root_cause(message: str) -> str:
    """The root cause of a client's ``error`` record (``consumer: org.apache...KafkaException: Failed to construct
    kafka consumer; caused by java.lang.IllegalArgumentException: text``) or of a log's exception line, as
    ``IllegalArgumentException: text``: the class's simple name and the first line of its message."""
    text = message.split("\n", 1)[0]
    if text.startswith("consumer: "):
        text = text[len("consumer: "):]
    text = text.rsplit("; caused by ", 1)[-1]
    head, sep, rest = text.partition(": ")
    return f"{head.rsplit('.', 1)[-1]}{sep}{rest}"


def consumer_refusals(bootstrap: str, cases: List[ConsumerCase], timeout: float = REFUSAL_TIMEOUT_S
                      ) -> Dict[str, Optional[str]]:
    """Each case's consumer created in one member JVM and subscribed to a topic of its own (one partition, in a
    group of its own): by name, the first line of the exception its thread ended with, or ``None`` when it got
    its partition instead (Kafka accepted the settings).  Every JVM is stopped on return or failure."""
    require(isinstance(cases, list) and bool(cases), "cases", "must be a non-empty list of consumers to try")
    given = [c.get("name") if isinstance(c, dict) else None for c in cases]
    require(all(isinstance(n, str) and n for n in given) and len(set(given)) == len(given), "cases",
            f"each needs a name of its own, got {given!r}")
    names = [str(n) for n in given]
    from .consumers import MAIN_CLASS, MEMBER_HEAP

    folder = Path(tempfile.mkdtemp(prefix="rebalance-refusals-"))
    tag = uuid.uuid4().hex[:8]
    jvm: JsonLinesJvm[Any] = JsonLinesJvm("refusals", MAIN_CLASS, folder, "the consumers' JVM (ScenarioMembers)",
                                          heap=MEMBER_HEAP)
    try:
        jvm.start()
        topics = {f"refusal-{tag}-{c['name']}": 1 for c in cases}
        jvm.send({"op": "create_topics", "bootstrap": bootstrap, "topics": topics})
        jvm.await_record(lambda r: r["event"] in ("topics_created", "error"), timeout, "the topics created")
        for c, topic in zip(cases, topics):
            props = {**c["props"], "bootstrap.servers": bootstrap, "group.id": f"refusal-{tag}-{c['name']}"}
            jvm.send({"op": "start", "member": c["name"], "topics": [topic], "props": props})
        out: Dict[str, Optional[str]] = {}
        deadline = time.monotonic() + timeout
        while len(out) < len(cases):
            for r in list(jvm.records):
                name = r.get("member")
                if name in names and name not in out:
                    if r["event"] == "error":
                        out[name] = _root_cause(str(r.get("message", "")))
                    elif r["event"] == _JOINED and r.get("partitions"):
                        out[name] = None
            if len(out) < len(cases):
                if time.monotonic() > deadline:
                    raise LiveClientError(f"no answer within {timeout:g} s for "
                                          f"{', '.join(n for n in names if n not in out)}")
                time.sleep(0.1)
        return {n: out[n] for n in names}
    finally:
        jvm.stop()
        shutil.rmtree(folder, ignore_errors=True)


def broker_refusal(broker_config: Mapping[str, Union[str, int, float, bool]]) -> Optional[str]:
    """A one-broker cluster started with ``broker_config``: the first Java exception of its log when it does not
    start, ``None`` when it does (it is stopped at once)."""
    from .cluster import KafkaCluster

    try:
        with KafkaCluster(broker_config=dict(broker_config), start_timeout=120):
            return None
    except ClusterStartError as e:
        return _root_cause(e.cause or str(e))


def refusals_on_kafka() -> List[Refusal]:
    """The four refused rules of chapter 17 tried on Kafka's jars, each broken as the chapter's table breaks it
    (from the jars' defaults: a heartbeat equal to the 45 s session; a 5 s session under the broker's 6 s minimum; a
    consumer-protocol consumer that sets ``session.timeout.ms``; a broker whose ``group.consumer.heartbeat.interval.ms``
    is 50 s, above its 15 s maximum): one broker for the three consumers, one more that fails to start.

    Defined in chapter 17, *Setting the timeouts*."""
    from .cluster import KafkaCluster
    from .config_defs import default_of

    session = int(default_of("session.timeout.ms"))
    short = 5_000
    consumers: List[ConsumerCase] = [
        {"name": "heartbeat", "props": {"session.timeout.ms": str(session), "heartbeat.interval.ms": str(session)}},
        {"name": "session", "props": {"session.timeout.ms": str(short), "heartbeat.interval.ms": "1000"}},
        {"name": "protocol", "props": {"group.protocol": "consumer", "session.timeout.ms": str(session)}},
    ]
    with KafkaCluster(brokers=1) as kafka:
        said = consumer_refusals(kafka.bootstrap_servers, consumers)
    heartbeat = 50_000
    broker = broker_refusal({"group.consumer.heartbeat.interval.ms": heartbeat})
    return [
        {"rule": "heartbeat_interval", "setting": "heartbeat.interval.ms", "value": str(session),
         "where": "consumer", "said": said["heartbeat"]},
        {"rule": "session_bounds", "setting": "session.timeout.ms", "value": str(short), "where": "JoinGroup",
         "said": said["session"]},
        {"rule": "consumer_protocol_client", "setting": "session.timeout.ms", "value": str(session),
         "where": "consumer", "said": said["protocol"]},
        {"rule": "consumer_group_timings", "setting": "group.consumer.heartbeat.interval.ms", "value": str(heartbeat),
         "where": "broker", "said": broker},
    ]
