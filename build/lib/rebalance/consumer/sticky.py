"""``org.apache.kafka.clients.consumer.StickyAssignor`` (Kafka 3.8/3.9; KIP-54, generation in user data
since KIP-341 / 2.3).

An *eager* assignor: members give up everything before they rejoin, so the leader learns what each member
owned only from the member's user data -- ``STICKY_ASSIGNOR_USER_DATA_V1`` (owned partitions + generation),
or V0 from clients older than 2.3.  The protocol's ``ownedPartitions`` field is ignored.
"""
from __future__ import annotations

from typing import Optional

from .abstract_sticky import AbstractStickyAssignor, StickyAssignment
from .model import ConsumerScenario, Subscription
from .sticky_userdata import ByteBuffer, MemberData, decode_sticky

__all__ = ["StickyAssignor", "StickyAssignment"]


class StickyAssignor(AbstractStickyAssignor):
    """Kafka's ``StickyAssignor`` (name ``"sticky"``).  ``assign(scenario)`` returns a
    :class:`~rebalance.consumer.abstract_sticky.StickyAssignment`; ``max_generation`` carries over between
    calls on the same instance, as in Kafka."""

    name = "sticky"

    def member_data(self, subscription: Subscription, buffer: Optional[ByteBuffer]) -> MemberData:
        """``StickyAssignor.memberData``: always from user data (consumes the buffer)."""
        return decode_sticky(buffer)
