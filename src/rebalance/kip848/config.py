"""Timings of the KIP-848 reconciliation model and the brokers' bounds on them.

:class:`KIP848Config` holds the group coordinator's consumer-group configs of ``GroupCoordinatorConfig``
(Kafka 4.3.1's defaults: ``group.consumer.heartbeat.interval.ms``, ``group.consumer.session.timeout.ms``,
``group.consumer.assignors``), the client's poll loop (:class:`rebalance.protocol.pollloop.PollLoopConfig`,
shared with the classic simulator's :class:`rebalance.protocol.config.ProtocolConfig`:
``max.poll.interval.ms``, ``max.poll.records``, the application's time per record or per batch, and
``revoke_ms``, the commit in ``ConsumerRebalanceListener.onPartitionsRevoked``), and the time costs the
model assumes, named as in the classic simulator: ``network_ms`` (one-way network latency), ``assignment_ms``
(``onPartitionsAssigned``) and ``restart_ms`` (a bounced process is back after that long).  ``assignor`` is
the ``group.remote.assignor``, looked up in :data:`rebalance.kip848.assignor.ASSIGNORS`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Dict, Mapping, Optional, Tuple

from ..errors import InputError
from ..protocol.pollloop import PollLoopConfig
from .assignor import assignor_for

__all__ = ["KIP848Config", "BROKER_BOUNDS_MS", "GROUP_CONFIGS", "group_config"]

#: The brokers' bounds on the two KIP-848 timings (``GroupCoordinatorConfig``, Kafka 4.3.1's defaults,
#: lines 186-204; lines 95-115 at commit 1eb7644:
#: ``group.consumer.min/max.heartbeat.interval.ms`` and ``group.consumer.min/max.session.timeout.ms``);
#: a client cannot ask for a value outside them.
BROKER_BOUNDS_MS = {"group.consumer.heartbeat.interval.ms": (5_000, 15_000),
                    "group.consumer.session.timeout.ms": (45_000, 60_000),
                    # lines 244-250 of 4.3.1 (new in 4.3.0): group.consumer.min/max.assignment.interval.ms
                    "group.consumer.assignment.interval.ms": (0, 15_000)}


@dataclass(frozen=True)
class KIP848Config(PollLoopConfig):
    """Timings of the model.  Kafka defaults: heartbeat 5 s (``group.consumer.heartbeat.interval.ms``, a
    broker setting), session 45 s (``group.consumer.session.timeout.ms``), ``max.poll.interval.ms`` 300 s and
    ``max.poll.records`` 500 (:class:`~rebalance.protocol.pollloop.PollLoopConfig`).  ``network_ms``,
    ``revoke_ms``, ``assignment_ms``, ``restart_ms`` and the application's processing time are assumptions
    of the model (network, commit + callbacks, process restart, work per record).

    Defined in chapter 9, *KIP-848: rebalancing without the barrier*."""

    heartbeat_interval_ms: int = 5000
    session_timeout_ms: int = 45000
    network_ms: int = 2
    assignment_ms: int = 10
    restart_ms: int = 10000
    assignor: str = "uniform"
    #: ``group.consumer.assignment.interval.ms`` (Kafka 4.3.0 and later, KIP-1263; 1 s by default): the least time
    #: between two target assignments of a group; 0 computes one at every group-epoch bump, as before 4.3
    assignment_interval_ms: int = 1000

    def validate(self) -> "KIP848Config":
        """Check every timing; ``InputError`` names the bad field."""
        self.validate_poll_loop("config.")
        for name in ("heartbeat_interval_ms", "session_timeout_ms"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) <= 0:
                raise InputError(f"config.{name}", f"must be a positive number of ms, got {getattr(self, name)!r}")
        for name in ("network_ms", "assignment_ms", "restart_ms", "assignment_interval_ms"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 0:
                raise InputError(f"config.{name}", f"must be >= 0 ms, got {getattr(self, name)!r}")
        if self.heartbeat_interval_ms >= self.session_timeout_ms:
            # GroupCoordinatorConfig (Kafka 4.3.1 line 597, line 341 at commit 1eb7644; not in 3.9):
            # require(consumerGroupHeartbeatIntervalMs < consumerGroupSessionTimeoutMs); otherwise every
            # member is fenced between two heartbeats
            raise InputError("config.heartbeat_interval_ms",
                             f"must be less than config.session_timeout_ms ({self.session_timeout_ms}), "
                             f"got {self.heartbeat_interval_ms}")
        assignor_for(self.assignor, "config.assignor")  # one of group.consumer.assignors
        return self


#: The per-group overrides of the timings, ``GroupConfig`` (new in 4.0; modelled on commit 1eb7644,
#: trunk before 4.0; KAFKA-14511 / KAFKA-17327: set with ``kafka-configs.sh --alter --entity-type groups --entity-name G --add-config ...``;
#: not in 3.9; ``consumer.assignment.interval.ms`` new in 4.3.0, ``GroupConfig`` line 56 in 4.3.1): group config
#: name -> the :class:`KIP848Config` field it overrides.
GROUP_CONFIGS = {"consumer.heartbeat.interval.ms": "heartbeat_interval_ms",
                 "consumer.session.timeout.ms": "session_timeout_ms",
                 "consumer.assignment.interval.ms": "assignment_interval_ms"}


def group_config(overrides: Mapping[str, int], base: Optional[KIP848Config] = None,
                 bounds: Optional[Mapping[str, Tuple[int, int]]] = None) -> KIP848Config:
    """The timings one group runs with after ``overrides`` (group config name -> value) are applied to the
    broker-wide ``base``, validated as ``GroupConfig.validateNames`` and ``GroupConfig.validateValues`` do
    (at Kafka's commit 1eb7644, trunk before 4.0): an unknown name is refused, each value must lie within the broker's
    ``group.consumer.min/max.*`` bounds (``bounds``, default :data:`BROKER_BOUNDS_MS`), and the session
    timeout must exceed the heartbeat interval.  ``InputError`` names the bad override with Kafka's message."""
    base = (base if base is not None else KIP848Config()).validate()
    bounds = BROKER_BOUNDS_MS if bounds is None else bounds
    if not isinstance(overrides, Mapping):
        raise InputError("overrides", f"must map group config names to values, got {overrides!r}")
    changes: Dict[str, Any] = {}
    for name, value in overrides.items():
        if name not in GROUP_CONFIGS:
            raise InputError(f"overrides[{name!r}]", f"Unknown group config name: {name} "
                             f"(known: {', '.join(sorted(GROUP_CONFIGS))})")
        least = 0 if name == "consumer.assignment.interval.ms" else 1   # GroupConfig: atLeast(0), the others atLeast(1)
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise InputError(f"overrides[{name!r}]", f"must be an integer >= {least} (ms), got {value!r}")
        low, high = bounds["group." + name]
        if value < low:
            raise InputError(f"overrides[{name!r}]", f"{name} must be greater than or equal to "
                             f"group.{name.replace('consumer.', 'consumer.min.')} ({low})")
        if value > high:
            raise InputError(f"overrides[{name!r}]", f"{name} must be less than or equal to "
                             f"group.{name.replace('consumer.', 'consumer.max.')} ({high})")
        changes[GROUP_CONFIGS[name]] = value
    merged = replace(base, **changes)
    if merged.session_timeout_ms <= merged.heartbeat_interval_ms:
        raise InputError("overrides['consumer.session.timeout.ms']",
                         "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms "
                         f"({merged.session_timeout_ms} <= {merged.heartbeat_interval_ms})")
    return merged
