"""The consumer properties a live member runs with, checked before any client starts.

:class:`MemberConfig` names librdkafka's consumer properties (``CONFIGURATION.md`` of librdkafka 2.x, the
same names as Kafka's ``ConsumerConfig``): ``partition.assignment.strategy``, ``group.instance.id``,
``session.timeout.ms``, ``heartbeat.interval.ms``, ``max.poll.interval.ms``, ``client.rack`` and
``group.protocol`` (``classic``, or ``consumer`` for KIP-848, where ``group.remote.assignor`` names the
broker-side assignor and the client refuses the session and heartbeat settings: the broker owns them).
A bad value raises :class:`~rebalance.errors.InputError` naming the field, before librdkafka sees it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Optional, Sequence, Tuple

from ..validation import require

__all__ = ["MemberConfig", "STRATEGIES", "GROUP_PROTOCOLS", "EAGER_STRATEGIES"]

#: librdkafka's built-in client-side assignors (``rdkafka_range_assignor.c``, ``rdkafka_roundrobin_assignor.c``,
#: ``rdkafka_sticky_assignor.c``); the first two are eager, ``cooperative-sticky`` is cooperative (KIP-429)
STRATEGIES = ("range", "roundrobin", "cooperative-sticky")
EAGER_STRATEGIES = ("range", "roundrobin")
GROUP_PROTOCOLS = ("classic", "consumer")
REMOTE_ASSIGNORS = ("uniform", "range")


def _whole(value: object, field_name: str, low: int) -> None:
    require(isinstance(value, int) and not isinstance(value, bool) and value >= low, field_name,
            f"must be a whole number of milliseconds >= {low}, got {value!r}")


@dataclass(frozen=True)
class MemberConfig:
    """One consumer's configuration.

    * ``topics`` -- the subscription (``Consumer.subscribe``);
    * ``strategy`` -- ``partition.assignment.strategy``: one of :data:`STRATEGIES`, or several in preference
      order (all eager or all cooperative: librdkafka refuses a mix);
    * ``instance_id`` -- ``group.instance.id`` (static membership, KIP-345);
    * ``session_timeout_ms``, ``heartbeat_interval_ms``, ``max_poll_interval_ms`` -- the classic protocol's
      timers (short here so that a run takes seconds; heartbeat below the session timeout, the poll interval
      at least the session timeout, as librdkafka requires);
    * ``rack`` -- ``client.rack`` (rack-aware assignment, KIP-881);
    * ``group_protocol`` -- ``classic`` or ``consumer`` (KIP-848); ``remote_assignor`` is
      ``group.remote.assignor`` for the latter.
    """

    topics: Tuple[str, ...]
    strategy: Tuple[str, ...] = ("range",)
    instance_id: Optional[str] = None
    session_timeout_ms: int = 2000
    heartbeat_interval_ms: int = 200
    max_poll_interval_ms: int = 3000
    rack: Optional[str] = None
    group_protocol: str = "classic"
    remote_assignor: Optional[str] = None
    extra: Dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        topics = self.topics
        require(isinstance(topics, (list, tuple)) and len(topics) > 0
                and all(isinstance(t, str) and t for t in topics), "topics",
                f"must be a non-empty list of topic names, got {topics!r}")
        object.__setattr__(self, "topics", tuple(topics))
        strategy = (self.strategy,) if isinstance(self.strategy, str) else self.strategy
        require(isinstance(strategy, (list, tuple)) and len(strategy) > 0, "partition.assignment.strategy",
                f"must name one or more of {', '.join(STRATEGIES)}")
        for s in strategy:
            require(s in STRATEGIES, "partition.assignment.strategy",
                    f"unknown assignor {s!r}; librdkafka has {', '.join(STRATEGIES)}")
        require(len({s in EAGER_STRATEGIES for s in strategy}) == 1, "partition.assignment.strategy",
                "mixes eager and cooperative assignors, which librdkafka refuses")
        object.__setattr__(self, "strategy", tuple(strategy))
        require(self.instance_id is None or (isinstance(self.instance_id, str) and self.instance_id != ""),
                "group.instance.id", f"must be a non-empty string or None, got {self.instance_id!r}")
        require(self.rack is None or (isinstance(self.rack, str) and self.rack != ""), "client.rack",
                f"must be a non-empty string or None, got {self.rack!r}")
        require(self.group_protocol in GROUP_PROTOCOLS, "group.protocol",
                f"must be one of {', '.join(GROUP_PROTOCOLS)}, got {self.group_protocol!r}")
        _whole(self.session_timeout_ms, "session.timeout.ms", 1)
        _whole(self.heartbeat_interval_ms, "heartbeat.interval.ms", 1)
        _whole(self.max_poll_interval_ms, "max.poll.interval.ms", 1)
        require(self.heartbeat_interval_ms < self.session_timeout_ms, "heartbeat.interval.ms",
                f"must be below session.timeout.ms ({self.session_timeout_ms}), got {self.heartbeat_interval_ms}")
        require(self.max_poll_interval_ms >= self.session_timeout_ms, "max.poll.interval.ms",
                f"must be at least session.timeout.ms ({self.session_timeout_ms}), librdkafka refuses less")
        if self.group_protocol == "consumer":
            require(self.remote_assignor is None or self.remote_assignor in REMOTE_ASSIGNORS,
                    "group.remote.assignor", f"must be one of {', '.join(REMOTE_ASSIGNORS)} or None")
        else:
            require(self.remote_assignor is None, "group.remote.assignor",
                    "is a KIP-848 setting: only with group.protocol=consumer")
        require(isinstance(self.extra, dict) and all(isinstance(k, str) and isinstance(v, str)
                                                     for k, v in self.extra.items()), "extra",
                "must map librdkafka property names to string values")

    @property
    def cooperative(self) -> bool:
        """Whether the member uses the cooperative protocol (KIP-429) or KIP-848's reconciliation."""
        return self.group_protocol == "consumer" or self.strategy[0] not in EAGER_STRATEGIES

    def properties(self, bootstrap_servers: str, group_id: str) -> Dict[str, object]:
        """The librdkafka property dict for ``confluent_kafka.Consumer`` (loopback mock cluster only)."""
        require(all(h.startswith("127.0.0.1:") for h in bootstrap_servers.split(",")), "bootstrap.servers",
                f"the live lab talks to the loopback mock cluster only, got {bootstrap_servers!r}")
        props: Dict[str, object] = {
            "bootstrap.servers": bootstrap_servers, "group.id": group_id,
            "enable.auto.commit": False, "auto.offset.reset": "earliest",
            "topic.metadata.refresh.interval.ms": 60_000, "socket.connection.setup.timeout.ms": 10_000,
            "group.protocol": self.group_protocol,
        }
        if self.group_protocol == "classic":
            props.update({"partition.assignment.strategy": ",".join(self.strategy),
                          "session.timeout.ms": self.session_timeout_ms,
                          "heartbeat.interval.ms": self.heartbeat_interval_ms})
        elif self.remote_assignor is not None:
            props["group.remote.assignor"] = self.remote_assignor
        props["max.poll.interval.ms"] = self.max_poll_interval_ms
        if self.instance_id is not None:
            props["group.instance.id"] = self.instance_id
        if self.rack is not None:
            props["client.rack"] = self.rack
        props.update(self.extra)
        return props

    @staticmethod
    def many(topics: Sequence[str], n: int, **kwargs: object) -> "Dict[str, MemberConfig]":
        """``n`` members ``c1``..``cn`` with the same subscription and settings."""
        require(isinstance(n, int) and n > 0, "n", "must be a positive whole number")
        return {f"c{i + 1}": MemberConfig(topics=tuple(topics), **kwargs) for i in range(n)}  # type: ignore[arg-type]
