"""Settings of the classic group protocol simulator: client and broker configs, per-member specs.

:class:`ProtocolConfig` holds the consumer configs of ``ConsumerConfig`` (with their defaults, the same in
Kafka 4.3.1, see the consumer configs documentation): ``session.timeout.ms`` (45 s since Kafka 3.0, KIP-735),
``heartbeat.interval.ms`` (3 s), ``retry.backoff.ms``, and the poll loop's ``max.poll.interval.ms`` and
``max.poll.records`` with the application's assumed processing and commit times
(:class:`~.pollloop.PollLoopConfig`); and the broker configs of ``GroupCoordinatorConfig``
(``group.initial.rebalance.delay.ms``, ``group.min/max.session.timeout.ms``).  ``network_ms`` is the
one-way latency.  :meth:`ProtocolConfig.instant` gives the idealised settings of the protocol
walkthroughs (no processing, no commit time).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Optional, Sequence, Tuple, Union

from ..validation import require
from .pollloop import PollLoopConfig

__all__ = ["ProtocolConfig", "MemberSpec", "assignor_list"]

_WHOLE_MS = ("session_timeout_ms", "heartbeat_interval_ms", "network_ms", "initial_rebalance_delay_ms",
             "retry_backoff_ms", "new_member_join_timeout_ms", "group_min_session_timeout_ms",
             "group_max_session_timeout_ms", "poll_timeout_ms")


@dataclass(frozen=True)
class ProtocolConfig(PollLoopConfig):
    """Client and broker settings with Kafka 4.3.1's defaults, and the poll loop's assumed costs
    (:class:`~.pollloop.PollLoopConfig`: ``max_poll_interval_ms``, ``max_poll_records``,
    ``record_processing_ms``, ``poll_processing_ms``, ``revoke_ms``).

    Defined in chapter 7, *Eager and incremental cooperative rebalancing*."""

    session_timeout_ms: int = 45_000          # session.timeout.ms
    heartbeat_interval_ms: int = 3_000        # heartbeat.interval.ms
    initial_rebalance_delay_ms: int = 3_000   # group.initial.rebalance.delay.ms (broker)
    new_member_join_timeout_ms: int = 300_000  # classic group new member join timeout (broker)
    network_ms: int = 1                       # one-way latency of every request and response
    retry_backoff_ms: int = 100               # retry.backoff.ms (FindCoordinator retries)
    require_known_member_id: bool = True      # JoinGroup v4+ (KIP-394)
    group_min_session_timeout_ms: int = 6_000       # group.min.session.timeout.ms (broker)
    group_max_session_timeout_ms: int = 1_800_000   # group.max.session.timeout.ms (broker)
    #: how long a ``poll()`` of a member that owns partitions lasts when no records are waiting: the
    #: application's ``poll(Duration)`` (an assumption, not a Kafka setting).  ``ClassicKafkaConsumer.poll``
    #: loops ``updateAssignmentMetadataIfNeeded`` and ``pollForFetches`` until its timeout (4.3.1 lines
    #: 647-681), so a JoinGroup response, the SyncGroup it sends and the SyncGroup response that arrive within
    #: it are all handled in that one call.  0 (the default): records are always waiting, a ``poll()`` returns
    #: at once and each response waits for the next one.  ``simulate --on kafka``'s members poll this long on empty
    #: topics while they own partitions (``rebalance.kafka.consumers.driver_poll_ms``)
    poll_timeout_ms: int = 0

    @classmethod
    def instant(cls, **overrides: Any) -> "ProtocolConfig":
        """The idealised settings of a protocol walkthrough: no time spent processing records
        (``poll_processing_ms=0``: a consumer is always ready to act on the group at once) and none
        committing on revoke (``revoke_ms=0``); everything else as given or Kafka's default."""
        return replace(cls(poll_processing_ms=0, revoke_ms=0), **overrides)

    def validate(self) -> "ProtocolConfig":
        """Check every setting; ``InputError`` names the bad field."""
        for name in _WHOLE_MS:
            v = getattr(self, name)
            require(isinstance(v, int) and not isinstance(v, bool) and v >= 0, name,
                    f"must be a whole number of milliseconds >= 0, got {v!r}")
        self.validate_poll_loop()
        require(self.heartbeat_interval_ms > 0, "heartbeat_interval_ms", "must be positive")
        require(self.heartbeat_interval_ms < self.session_timeout_ms, "heartbeat_interval_ms",
                "must be lower than session_timeout_ms (the consumer refuses this config)")
        require(self.group_min_session_timeout_ms <= self.group_max_session_timeout_ms, "group_min_session_timeout_ms",
                f"must not exceed group_max_session_timeout_ms ({self.group_max_session_timeout_ms}): no session "
                "timeout could pass the coordinator's JoinGroup check")
        return self


@dataclass(frozen=True)
class MemberSpec:
    """How one consumer process is configured (what a restart of it starts again with)."""

    name: str
    topics: Tuple[str, ...]
    assignors: Tuple[str, ...]
    protocol: str
    instance_id: Optional[str]
    session_timeout_ms: int
    max_poll_interval_ms: int
    heartbeat_interval_ms: int
    revoke_ms: int
    #: time the application spends on one poll()'s records (``ProtocolConfig.batch_ms`` unless given)
    batch_ms: int = 0
    #: how long a poll() of this member lasts while it owns partitions (``ProtocolConfig.poll_timeout_ms``)
    poll_timeout_ms: int = 0

    @property
    def rebalance_timeout_ms(self) -> int:
        """Sent in JoinGroup: ``max.poll.interval.ms`` (``GroupRebalanceConfig`` line 55)."""
        return self.max_poll_interval_ms


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
