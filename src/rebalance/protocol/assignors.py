"""Pluggable assignors for the protocol simulator.

The group leader is a *client*: it receives every member's subscription in its JoinGroup response and
runs the assignor named by the group's selected protocol (``ConsumerCoordinator.onLeaderElected`` in
Kafka 4.3.1).  In the simulator an assignor is any callable

    assignor(partitions, members) -> {member_id: [(topic, partition), ...]}

with the arguments in the order of :func:`rebalance.consumer.assign` (``assign(name, partitions, members)``),
where ``partitions`` is ``{topic: count}`` and ``members`` is ``{member_id: {"topics": [...], "owned": [(t, p), ...], "generation": g,
"instance_id": ...}}`` in the order the leader received them.
An optional attribute ``rebalance_protocols`` (``("eager",)`` or ``("eager", "cooperative")``) says which
rebalance protocols it supports, like ``ConsumerPartitionAssignor.supportedProtocols``.  Connect workers
or any other client can plug their own callable in.

Kafka's built-in consumer assignors are *objects with state*, one per consumer for its whole life
(``ConsumerCoordinator`` builds them once from ``partition.assignment.strategy``): ``onAssignment`` tells the
assignor what this consumer was given and in which generation, ``subscriptionUserData`` puts that into the
next JoinGroup, and the leader's ``assign`` runs on the leader's own object.  :class:`ClientAssignor` is one
such object; every simulated consumer process holds one per configured built-in assignor.  That matters for
``StickyAssignor`` (Kafka 4.3.1, ``clients/.../consumer/StickyAssignor.java``): an eager member revokes
everything before JoinGroup, so its ``ownedPartitions`` field is empty, and the leader learns the previous
assignment only from the user data -- ``memberAssignment`` and ``generation`` kept by ``onAssignment``
(``STICKY_ASSIGNOR_USER_DATA_V1``); ``AbstractStickyAssignor.maxGeneration`` also lives on the object.
"""
from __future__ import annotations

from typing import Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ..common import JsonRecord, TopicPartition
from ..errors import InputError, KafkaError

from ..consumer.assignor import ASSIGNORS as CONSUMER_ASSIGNORS
from ..consumer.assignor import COOPERATIVE, EAGER, assignor_for

#: ``supportedProtocols()`` of Kafka's built-in consumer assignors (from the consumer registry)
BUILTIN_PROTOCOLS = {name: tuple(cls.SUPPORTED_PROTOCOLS) for name, cls in CONSUMER_ASSIGNORS.items()}

#: a simulator assignor: ``assignor(partitions, members) -> {member_id: [(topic, partition), ...]}``
Assignor = Callable[[Dict[str, int], Dict[str, JsonRecord]], Dict[str, List[TopicPartition]]]


def consumer_assignor(name: str) -> Assignor:
    """The consumer assignor ``name`` from :mod:`rebalance.consumer` (``rebalance.consumer.assign``),
    wrapped as a simulator assignor.  The import happens at call time."""
    if name not in BUILTIN_PROTOCOLS:
        raise InputError("assignor", f"unknown consumer assignor {name!r}; known: {', '.join(BUILTIN_PROTOCOLS)}")

    def assign(partitions: Dict[str, int], members: Dict[str, JsonRecord]) -> Dict[str, List[TopicPartition]]:
        from .. import consumer  # the consumer area's common entry point

        return consumer.assign(name, partitions, members)

    assign.__name__ = f"consumer_{name.replace('-', '_')}"
    # the optional attribute rebalance_protocols_of reads with getattr (a plain function declares no such field)
    setattr(assign, "rebalance_protocols", BUILTIN_PROTOCOLS[name])
    return assign


class ClientAssignor:
    """One consumer's instance of Kafka's built-in assignor ``name`` (``ConsumerPartitionAssignor``, Kafka
    4.3.1), kept for the life of the consumer process.

    * :meth:`on_assignment` is ``onAssignment(Assignment, ConsumerGroupMetadata)``: ``StickyAssignor`` keeps
      the partitions and the generation (``memberAssignment``, ``generation``), ``CooperativeStickyAssignor``
      the generation; Range and RoundRobin keep nothing.  A reset generation (``ILLEGAL_GENERATION``) does
      not clear what the assignor kept, as in Kafka.
    * :meth:`subscription_user_data` is ``subscriptionUserData``: ``StickyAssignor`` sends nothing until its
      first assignment, then ``STICKY_ASSIGNOR_USER_DATA_V1`` (kept partitions + generation);
      ``CooperativeStickyAssignor`` its generation (``COOPERATIVE_STICKY_ASSIGNOR_USER_DATA_V0``, -1 before
      any assignment).
    * calling the object is the leader's ``assign``: it runs this consumer's own Kafka assignor object, so
      ``AbstractStickyAssignor.maxGeneration`` carries over from one rebalance to the next.
    """

    def __init__(self, name: str):
        if name not in BUILTIN_PROTOCOLS:
            raise InputError("assignor", f"unknown consumer assignor {name!r}; known: {', '.join(BUILTIN_PROTOCOLS)}")
        self._name = name
        self.rebalance_protocols = BUILTIN_PROTOCOLS[name]
        #: the consumer's own assignor object (``rebalance.consumer.assignor``), with Kafka's state
        self.kafka_assignor = assignor_for(name)

    def name(self) -> str:
        """``name()`` of the Kafka assignor this object runs."""
        return self._name

    def on_assignment(self, partitions: Sequence[Tuple[str, int]], generation: int) -> None:
        self.kafka_assignor.on_assignment(partitions, generation)

    def subscription_user_data(self, topics: Sequence[str] = ()) -> Optional[bytes]:
        return self.kafka_assignor.subscription_user_data(topics)

    def __call__(self, partitions: Dict[str, int], members: Dict[str, JsonRecord]) -> Dict[str, List[TopicPartition]]:
        """The leader's ``assign``: ``members`` as the simulator's assignors get them, each with the
        ``user_data`` bytes its consumer sent (None for none).

        The metadata comes from the simulation's own members (checked when they were added), so the
        subscriptions are built directly, without :func:`rebalance.consumer.api.build_scenario`'s input
        checks, which a rolling restart of 1,000 members would otherwise repeat 2,000 times."""
        from ..consumer.model import ConsumerScenario, Subscription
        from ..consumer.sticky_userdata import auto_user_data

        subs = {}
        for m, meta in members.items():
            generation = meta.get("generation")
            if generation is not None and generation < 0:
                generation = None  # -1 on the wire is Optional.empty()
            owned = [tuple(tp) for tp in meta.get("owned", ())]
            # exactly what the member sent (None for nothing), else what its assignor would send
            user_data = meta["user_data"] if "user_data" in meta else auto_user_data(self._name, owned, generation)
            subs[m] = Subscription(topics=list(meta["topics"]), owned_partitions=owned, generation_id=generation,
                                   group_instance_id=meta.get("instance_id"), rack_id=meta.get("rack"),
                                   user_data=user_data)
        scenario = ConsumerScenario(assignor=self._name, partitions=dict(partitions), members=subs)
        result = self.kafka_assignor.assign(scenario)
        return {m: list(result.assignment.get(m, [])) for m in scenario.members}


def rebalance_protocols_of(assignor: object) -> Tuple[str, ...]:
    """A simulator assignor's ``rebalance_protocols`` (its ``ConsumerPartitionAssignor.supportedProtocols``):
    ``(eager,)`` unless the assignor says otherwise."""
    return tuple(getattr(assignor, "rebalance_protocols", (EAGER,)))


def rebalance_protocol_for(assignors: Iterable[object]) -> str:
    """``ConsumerCoordinator``'s choice: the highest rebalance protocol supported by *every* configured
    assignor (cooperative only when all of them support it)."""
    common = None
    for a in assignors:
        p = set(rebalance_protocols_of(a))
        common = p if common is None else common & p
    if not common:
        raise KafkaError("IllegalArgumentException",
                         "Specified assignors do not have commonly supported rebalance protocol")
    return COOPERATIVE if COOPERATIVE in common else EAGER


def validate_cooperative_assignment(owned: Mapping[str, Iterable[Sequence[object]]],
                                    assignment: Mapping[str, Iterable[Sequence[object]]]) -> None:
    """``ConsumerCoordinator.validateCooperativeAssignment``: under the cooperative protocol no partition
    may be given to a member in the same rebalance in which another member still owns it."""
    owner = {}
    for mid, tps in owned.items():
        for tp in tps:
            owner[tuple(tp)] = mid
    for mid, tps in assignment.items():
        for tp in tps:
            prev = owner.get(tuple(tp))
            if prev is not None and prev != mid:
                raise KafkaError("IllegalStateException",
                                 f"Assignor supporting the COOPERATIVE protocol violates its requirements: "
                                 f"{tp[0]}-{tp[1]} is owned by {prev} and assigned to {mid}")
