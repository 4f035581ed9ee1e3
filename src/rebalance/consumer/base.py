"""What Kafka's built-in consumer assignors share (``ConsumerPartitionAssignor``'s default methods,
Kafka 4.3.1): the eager protocol, no user data, nothing to remember from ``onAssignment``.  The sticky
assignors override the last two; see :mod:`rebalance.consumer.assignor` for the interface."""
from __future__ import annotations

from typing import Optional, Sequence, Tuple

from .model import TopicPartition
from .replay import LEADER, ReplayOptions

#: ``ConsumerPartitionAssignor.RebalanceProtocol`` values
EAGER = "eager"
COOPERATIVE = "cooperative"


class BuiltinAssignor:
    """The defaults of ``ConsumerPartitionAssignor``: ``supportedProtocols()`` is ``[EAGER]``,
    ``subscriptionUserData`` is ``null`` and ``onAssignment`` does nothing.  ``replay`` is set only by the
    vectors adapters (:mod:`rebalance.consumer.replay`); a real leader's behaviour is the default."""

    name = "builtin"
    supported_protocols: Tuple[str, ...] = (EAGER,)

    def __init__(self, *, replay: Optional[ReplayOptions] = None):
        self.replay = replay or LEADER

    def subscription_user_data(self, topics: Sequence[str] = ()) -> Optional[bytes]:
        return None

    def on_assignment(self, partitions: Sequence[TopicPartition], generation: int) -> None:
        return None
