"""``org.apache.kafka.clients.consumer.StickyAssignor`` (Kafka 4.3.1; KIP-54, generation in user data
since KIP-341 / 2.3).

An *eager* assignor: members give up everything before they rejoin, so the leader learns what each member
owned only from the member's user data -- ``STICKY_ASSIGNOR_USER_DATA_V1`` (owned partitions + generation),
or V0 from clients older than 2.3.  The protocol's ``ownedPartitions`` field is ignored.
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from ..wire import ByteBuffer
from .abstract_sticky import AbstractStickyAssignor
from .model import Subscription, TopicPartition
from .replay import ReplayOptions
from .sticky_userdata import DEFAULT_GENERATION, MemberData, decode_sticky, encode_sticky_v1

__all__ = ["StickyAssignor"]


class StickyAssignor(AbstractStickyAssignor):
    """Kafka's ``StickyAssignor`` (name ``"sticky"``).  ``assign(scenario)`` returns an
    :class:`~rebalance.consumer.model.AssignorResult`; ``max_generation`` carries over between calls on the
    same instance, as in Kafka.

    As a member's assignor it keeps what ``onAssignment`` gave it (``memberAssignment`` and ``generation``,
    StickyAssignor.java lines 195-210 at 3.8.0) and sends them as ``STICKY_ASSIGNOR_USER_DATA_V1`` in its next
    JoinGroup -- the only way an eager member, which revoked everything, tells the leader what it owned.

    Defined in chapter 4, *The sticky assignor*."""

    NAME = "sticky"

    def __init__(self, max_generation: int = DEFAULT_GENERATION, trace: bool = False, *,
                 replay: Optional[ReplayOptions] = None) -> None:
        super().__init__(max_generation, trace, replay=replay)
        #: ``memberAssignment``: None until the first ``onAssignment``
        self.member_assignment: Optional[List[TopicPartition]] = None
        #: ``generation``
        self.generation = DEFAULT_GENERATION

    def on_assignment(self, partitions: Sequence[TopicPartition], generation: int) -> None:
        """``onAssignment``: keep the partitions and the generation (a reset generation does not clear them)."""
        self.member_assignment = [(tp[0], tp[1]) for tp in partitions]  # (a list from JSON becomes a tuple)
        self.generation = generation

    def subscription_user_data(self, topics: Sequence[str] = ()) -> Optional[bytes]:
        """``subscriptionUserData``: nothing before the first assignment, then V1 (kept partitions, generation)."""
        if self.member_assignment is None:
            return None
        return encode_sticky_v1(self.member_assignment, self.generation)

    def member_data(self, subscription: Subscription, buffer: Optional[ByteBuffer]) -> MemberData:
        """``StickyAssignor.memberData``: always from user data (consumes the buffer)."""
        return decode_sticky(buffer)
