"""The consumer's poll loop: ``max.poll.records``, ``max.poll.interval.ms`` and the application's time per batch.

Both of the book's group simulators model a consumer as Kafka runs it: an application thread that calls
``poll()``, gets up to ``max.poll.records`` records (500 by default, ``ConsumerConfig.DEFAULT_MAX_POLL_RECORDS``,
line 93; the defaults here are Kafka 4.3.1's, the line numbers those of Kafka's source at commit 1eb7644,
trunk before 4.0) and processes them before it calls ``poll()`` again, and a background thread that
heartbeats.  Everything the consumer does for the group that runs user code or has to see the application
between two batches -- rejoining, the rebalance callbacks, ``onPartitionsLost`` after a poll timeout --
waits for the next ``poll()``.  If a batch takes longer than ``max.poll.interval.ms`` (300 s by default,
``ConsumerConfig`` line 595) the background thread leaves the group (KIP-62): the classic consumer in
``AbstractCoordinator.HeartbeatThread`` (line 1519, ``handlePollTimeoutExpiry``), the KIP-848 consumer in
``AbstractHeartbeatRequestManager`` (line 164, ``transitionToSendingLeaveGroup(true)``).

:class:`PollLoopConfig` holds those settings for :class:`rebalance.protocol.config.ProtocolConfig` and
:class:`rebalance.kip848.config.KIP848Config`.  The application's processing time is an assumption, not a
Kafka setting: ``record_processing_ms`` per record (default 1 ms, an application doing a small piece of
work per record: about 1,000 records a second per consumer thread), so a full batch of 500 records takes
500 ms, unless ``poll_processing_ms`` gives the time per batch directly.  ``revoke_ms`` is the time
``ConsumerRebalanceListener.onPartitionsRevoked`` takes, mostly the ``commitSync`` of the revoked
partitions' offsets (default 100 ms: a round trip to the group coordinator, which appends the offsets to
``__consumer_offsets`` with ``acks=all``, plus the listener's own flush).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..validation import require

__all__ = ["PollLoopConfig", "next_poll_delay"]


@dataclass(frozen=True)
class PollLoopConfig:
    """The poll loop's settings (Kafka's defaults for the two consumer configs, stated assumptions for the
    application's times)."""

    max_poll_interval_ms: int = 300_000       # max.poll.interval.ms (also the JoinGroup rebalance timeout)
    max_poll_records: int = 500               # max.poll.records
    record_processing_ms: float = 1.0         # the application's time per record (assumption)
    poll_processing_ms: Optional[int] = None  # time per poll() batch; None: max_poll_records * record_processing_ms
    revoke_ms: int = 100                      # onPartitionsRevoked: commitSync of the revoked offsets, flush

    @property
    def rebalance_timeout_ms(self) -> int:
        """The rebalance timeout a consumer sends: its ``max.poll.interval.ms`` (``GroupRebalanceConfig``
        line 55, at commit 1eb7644 and in Kafka 4.3.1; the KIP-848 consumer sends it in its first
        ``ConsumerGroupHeartbeat``)."""
        return self.max_poll_interval_ms

    @property
    def batch_ms(self) -> int:
        """Time the application spends on one ``poll()``'s records: ``poll_processing_ms`` if given, else
        ``max_poll_records`` x ``record_processing_ms`` (rounded to the millisecond)."""
        if self.poll_processing_ms is not None:
            return self.poll_processing_ms
        return int(round(self.max_poll_records * self.record_processing_ms))

    def validate_poll_loop(self, prefix: str = "") -> None:
        """Check the poll loop's fields; ``InputError`` names the bad field (``prefix`` + its name)."""
        for name, low in (("max_poll_interval_ms", 1), ("max_poll_records", 1), ("revoke_ms", 0)):
            v = getattr(self, name)
            require(isinstance(v, int) and not isinstance(v, bool) and v >= low, prefix + name,
                    f"must be a whole number >= {low} (ConsumerConfig: atLeast({low})), got {v!r}"
                    if low else f"must be a whole number of milliseconds >= 0, got {v!r}")
        v = self.poll_processing_ms
        require(v is None or (isinstance(v, int) and not isinstance(v, bool) and v >= 0),
                prefix + "poll_processing_ms", f"must be a whole number of milliseconds >= 0 (or None), got {v!r}")
        v = self.record_processing_ms
        require(isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and 0 <= v < float("inf"),
                prefix + "record_processing_ms", f"must be a number of milliseconds >= 0, got {v!r}")


def next_poll_delay(now_ms: int, anchor_ms: int, batch_ms: int, poll_ms: int = 0) -> int:
    """Time until the application thread is inside ``poll()`` again, for a loop that started a ``poll()`` at
    ``anchor_ms`` and every ``poll_ms + batch_ms`` since, each ``poll()`` lasting ``poll_ms`` and followed by a
    batch of ``batch_ms``: 0 while a ``poll()`` lasts, and when it processes nothing (``batch_ms`` = 0)."""
    if batch_ms <= 0:
        return 0
    cycle = poll_ms + batch_ms
    at = (now_ms - anchor_ms) % cycle
    return 0 if at < poll_ms else cycle - at
