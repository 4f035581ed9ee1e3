"""Settings of the classic group protocol simulator: client and broker configs, per-member specs.

:class:`ProtocolConfig` holds the consumer configs of ``ConsumerConfig`` (``session.timeout.ms``,
``max.poll.interval.ms``, ``heartbeat.interval.ms``, ``retry.backoff.ms``, ``partition.assignment.strategy``)
and the broker configs of ``GroupCoordinatorConfig`` (``group.initial.rebalance.delay.ms``,
``group.min/max.session.timeout.ms``) with their Kafka 3.8/3.9 defaults, plus the time costs the model
assumes: ``network_ms`` (one-way network latency) and ``revoke_ms``
(``ConsumerRebalanceListener.onPartitionsRevoked``), the same names as in
:class:`rebalance.kip848.config.KIP848Config`, and ``poll_batch_ms`` (a rejoin waits until the application
finishes its batch and calls ``poll()``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Tuple, Union

from ..errors import require

__all__ = ["ProtocolConfig", "MemberSpec", "assignor_list"]


@dataclass(frozen=True)
class ProtocolConfig:
    """Client and broker settings (Kafka 3.x defaults).  ``revoke_ms`` and ``poll_batch_ms`` default to 0,
    which makes walkthrough traces short and exact; use realistic values when comparing protocols."""

    session_timeout_ms: int = 45_000          # session.timeout.ms
    rebalance_timeout_ms: int = 300_000       # max.poll.interval.ms (sent as the rebalance timeout)
    heartbeat_interval_ms: int = 3_000        # heartbeat.interval.ms
    initial_rebalance_delay_ms: int = 3_000   # group.initial.rebalance.delay.ms (broker)
    new_member_join_timeout_ms: int = 300_000  # classic group new member join timeout (broker)
    network_ms: int = 1                       # one-way latency of every request and response
    revoke_ms: int = 0                        # time spent in onPartitionsRevoked (commit, stop)
    poll_batch_ms: int = 0                    # time to process one batch of records between two poll()s
    retry_backoff_ms: int = 100               # retry.backoff.ms (FindCoordinator retries)
    require_known_member_id: bool = True      # JoinGroup v4+ (KIP-394)
    group_min_session_timeout_ms: int = 6_000       # group.min.session.timeout.ms (broker)
    group_max_session_timeout_ms: int = 1_800_000   # group.max.session.timeout.ms (broker)

    def validate(self) -> "ProtocolConfig":
        """Check every duration; ``InputError`` names the bad field."""
        for name in ("session_timeout_ms", "rebalance_timeout_ms", "heartbeat_interval_ms", "network_ms",
                     "initial_rebalance_delay_ms", "revoke_ms", "retry_backoff_ms", "new_member_join_timeout_ms",
                     "poll_batch_ms", "group_min_session_timeout_ms", "group_max_session_timeout_ms"):
            v = getattr(self, name)
            require(isinstance(v, int) and not isinstance(v, bool) and v >= 0, name,
                    f"must be a whole number of milliseconds >= 0, got {v!r}")
        require(self.heartbeat_interval_ms > 0, "heartbeat_interval_ms", "must be positive")
        require(self.heartbeat_interval_ms < self.session_timeout_ms, "heartbeat_interval_ms",
                "must be lower than session_timeout_ms (the consumer refuses this config)")
        require(self.group_min_session_timeout_ms <= self.group_max_session_timeout_ms, "group_min_session_timeout_ms",
                f"must not exceed group_max_session_timeout_ms ({self.group_max_session_timeout_ms}): no session "
                "timeout could pass the coordinator's JoinGroup check")
        return self


@dataclass
class MemberSpec:
    """How one consumer process is configured (what a restart of it starts again with)."""

    name: str
    topics: Tuple[str, ...]
    assignors: Tuple[str, ...]
    protocol: str
    instance_id: Optional[str]
    session_timeout_ms: int
    rebalance_timeout_ms: int
    heartbeat_interval_ms: int
    revoke_ms: int


def assignor_list(value: Union[str, Sequence[str]]) -> Tuple[str, ...]:
    """``partition.assignment.strategy`` as a tuple of names.  A string is read as Kafka's ``ConfigDef``
    ``LIST`` type reads it, comma-separated (``"range"``, ``"cooperative-sticky,range"``), never character
    by character; any other value must be a non-empty sequence of names."""
    if isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    require(isinstance(value, (list, tuple)), "assignors",
            f"must be an assignor name, a comma-separated string or a list of names, got {value!r}")
    for i, name in enumerate(value):
        require(isinstance(name, str) and name != "", f"assignors[{i}]", f"must be an assignor name, got {name!r}")
    require(len(value) > 0, "assignors", "at least one assignor is needed")
    return tuple(value)
