"""``org.apache.kafka.clients.consumer.CooperativeStickyAssignor`` (Kafka 4.3.1; KIP-429, 2.4).

The same plan as :class:`~rebalance.consumer.sticky.StickyAssignor`, but for the COOPERATIVE protocol:
members keep their partitions while they rejoin and report them in the protocol's ``ownedPartitions``.
A partition that must change owner cannot be handed over in the same rebalance -- its old owner has to
revoke it first -- so it is *removed* from the new owner's assignment in this round; the old owner, seeing
it missing, revokes it and rejoins, and the follow-up rebalance gives it to the new owner.

The partitions that change owner are ``partitionsTransferringOwnership`` on the constrained path; on the
general path they are computed afterwards (assigned to a member that did not own them *and* owned by
someone who lost them).  The generation comes from ``Subscription.generationId()`` (protocol v2+, KIP-792)
or else from the ``COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0`` user data.
"""
from __future__ import annotations

from itertools import filterfalse
from typing import Dict, List, Optional, Sequence, Set, Tuple

from ..wire import ByteBuffer
from .abstract_sticky import AbstractStickyAssignor
from .abstract import COOPERATIVE, EAGER
from .model import AssignorResult, Subscription, TopicPartition
from .replay import ReplayOptions
from .sticky_userdata import DEFAULT_GENERATION, MemberData, decode_cooperative, encode_cooperative_v0

__all__ = ["CooperativeStickyAssignor", "compute_partitions_transferring_ownership"]


def compute_partitions_transferring_ownership(owned: Dict[str, List[TopicPartition]],
                                              assignment: Dict[str, List[TopicPartition]]) -> Dict[TopicPartition, str]:
    """``CooperativeStickyAssignor.computePartitionsTransferringOwnership``: partitions newly assigned to a
    member that some member owned and is now losing, mapped to the new owner."""
    # by set operations (a million partitions at Kafka's scale), revoked first: only the added partitions
    # that are also revoked are kept, in the order they were first added, each with its last new owner
    revoked: Set[TopicPartition] = set()
    for member, assigned in assignment.items():
        mine = owned.get(member, [])
        if mine:
            revoked.update(filterfalse(set(assigned).__contains__, mine))
    transferring: Dict[TopicPartition, str] = {}
    if revoked:
        for member, assigned in assignment.items():
            added = filterfalse(set(owned.get(member, [])).__contains__, assigned)
            transferring.update(dict.fromkeys(filter(revoked.__contains__, added), member))
    return transferring


class CooperativeStickyAssignor(AbstractStickyAssignor):
    """Kafka's ``CooperativeStickyAssignor`` (name ``"cooperative-sticky"``).

    ``assign(scenario).assignment`` is what members receive in *this* round: partitions transferring
    ownership are left out.  ``full_assignment`` on the result is the plan before they were left out.

    Defined in chapter 5, *The cooperative sticky assignor*."""

    NAME = "cooperative-sticky"
    #: ``supportedProtocols()``: ``[COOPERATIVE, EAGER]``
    SUPPORTED_PROTOCOLS: Tuple[str, ...] = (EAGER, COOPERATIVE)

    def __init__(self, max_generation: int = DEFAULT_GENERATION, trace: bool = False, *,
                 replay: Optional[ReplayOptions] = None) -> None:
        super().__init__(max_generation, trace, replay=replay)
        #: ``generation``, kept by ``onAssignment``
        self.generation = DEFAULT_GENERATION

    def on_assignment(self, partitions: Sequence[TopicPartition], generation: int) -> None:
        """``onAssignment``: keep the generation (the owned partitions travel in the protocol itself)."""
        self.generation = generation

    def subscription_user_data(self, topics: Sequence[str] = ()) -> Optional[bytes]:
        """``subscriptionUserData``: ``COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0``, the generation (-1 before any)."""
        return encode_cooperative_v0(self.generation)

    def member_data(self, subscription: Subscription, buffer: Optional[ByteBuffer]) -> MemberData:
        """``CooperativeStickyAssignor.memberData``: protocol fields when the generation is there (v2+),
        otherwise the generation from user data."""
        if subscription.generation_id is not None:
            return MemberData(list(subscription.owned_partitions), subscription.generation_id)
        return MemberData(list(subscription.owned_partitions), decode_cooperative(buffer))

    def _finish(self, result: AssignorResult, subscriptions: Dict[str, Subscription]) -> AssignorResult:
        result.full_assignment = {m: list(tps) for m, tps in result.assignment.items()}
        if result.partitions_transferring_ownership is None:
            owned = {m: list(sub.owned_partitions) for m, sub in subscriptions.items()}
            transferring = compute_partitions_transferring_ownership(owned, result.assignment)
        else:
            transferring = result.partitions_transferring_ownership
        for tp, member in transferring.items():
            mine = result.assignment[member]
            if tp in mine:
                mine.remove(tp)
        result.withheld = dict(transferring)
        return result
