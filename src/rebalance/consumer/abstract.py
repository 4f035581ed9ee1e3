"""Kafka's ``AbstractPartitionAssignor`` (``org.apache.kafka.clients.consumer.internals.AbstractPartitionAssignor``,
Kafka 4.3.1): the base class of every built-in client-side assignor (Range, RoundRobin and, through
``AbstractStickyAssignor``, Sticky and CooperativeSticky), with the defaults of ``ConsumerPartitionAssignor``
it inherits (the eager protocol, no user data, nothing to remember from ``onAssignment``) and the helpers its
subclasses share: the order in which Kafka sees members (``MemberInfo``) and topics (``partitionsPerTopic``),
``consumersPerTopic`` and the rack rule ``useRackAwareAssignment`` (KIP-881).  See
:mod:`rebalance.consumer.assignor` for the interface (chapter 2 explains the member order, chapter 4 the
racks).
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from ..java import hashmap_order, java_string_key
from .model import ConsumerScenario, Subscription, TopicPartition
from .replay import LEADER, ReplayOptions

#: ``ConsumerPartitionAssignor.RebalanceProtocol`` values
EAGER = "eager"
COOPERATIVE = "cooperative"

_NO_RACKS: FrozenSet[str] = frozenset()


class AbstractPartitionAssignor:
    """``AbstractPartitionAssignor`` with ``ConsumerPartitionAssignor``'s defaults: ``supportedProtocols()``
    is ``[EAGER]``, ``subscriptionUserData`` is ``null`` and ``onAssignment`` does nothing.  ``replay`` is
    set only by the vectors adapters (:mod:`rebalance.consumer.replay`); a real leader's behaviour is the
    default."""

    #: what ``name()`` returns: the ``partition.assignment.strategy`` value of the assignor
    NAME = "abstract"
    #: what ``supportedProtocols()`` returns
    SUPPORTED_PROTOCOLS: Tuple[str, ...] = (EAGER,)

    def __init__(self, *, replay: Optional[ReplayOptions] = None):
        self.replay = replay or LEADER

    def name(self) -> str:
        """``name()``: the strategy name members announce in JoinGroup (:attr:`NAME`)."""
        return self.NAME

    def supported_protocols(self) -> Tuple[str, ...]:
        """``supportedProtocols()``: ``(EAGER,)`` or ``(EAGER, COOPERATIVE)`` (:attr:`SUPPORTED_PROTOCOLS`)."""
        return self.SUPPORTED_PROTOCOLS

    def subscription_user_data(self, topics: Sequence[str] = ()) -> Optional[bytes]:
        return None

    def on_assignment(self, partitions: Sequence[TopicPartition], generation: int) -> None:
        return None


def tp_sort_key(tp: TopicPartition) -> Tuple[bytes, int]:
    """Sort key of Kafka's ``TopicPartitionComparator``: topic by ``String.compareTo``, then partition."""
    return java_string_key(tp[0]), tp[1]


# the order in which Kafka sees members and topics (AbstractPartitionAssignor and ConsumerCoordinator)


def member_sort_key(member_id: str, subscription: Subscription) -> Tuple[int, bytes]:
    """``AbstractPartitionAssignor.MemberInfo.compareTo`` as a sort key: members with a
    ``group.instance.id`` first (ordered by it), then dynamic members by member id (``String.compareTo``)."""
    if subscription.group_instance_id is not None:
        return 0, java_string_key(subscription.group_instance_id)
    return 1, java_string_key(member_id)


def subscription_order(scenario: ConsumerScenario, replay: ReplayOptions = LEADER) -> List[str]:
    """Iteration order of the leader's subscriptions map: a ``java.util.HashMap`` filled in member order
    (``ConsumerCoordinator.onLeaderElected``), or the input order for the unit tests' ``LinkedHashMap`` and
    ``Collections.singletonMap``."""
    members = list(scenario.members)
    if replay.subscription_map_type == "java.util.HashMap":
        return hashmap_order(members)
    return members  # LinkedHashMap / SingletonMap: insertion order


def sorted_members(scenario: ConsumerScenario, order: Optional[Sequence[str]] = None,
                   replay: ReplayOptions = LEADER) -> List[str]:
    """Member ids sorted by ``MemberInfo`` order; ties (two members with the same instance id) keep the
    subscriptions map order, as Java's stable ``List.sort`` does."""
    order = subscription_order(scenario, replay) if order is None else order
    members = scenario.members
    return sorted(order, key=lambda m: member_sort_key(m, members[m]))


def partitions_per_topic(scenario: ConsumerScenario, order: Optional[Sequence[str]] = None,
                         replay: ReplayOptions = LEADER) -> List[str]:
    """The topics of Kafka's ``partitionsPerTopic`` map, in its iteration order.

    * entry ``"cluster"`` (``AbstractPartitionAssignor.assign(Cluster, GroupSubscription)``): the
      ``HashSet`` of all subscribed topics is filled in subscriptions-map order, then every topic with
      metadata and at least one partition is put into a ``HashMap`` in that set's order;
    * entry ``"assignPartitions"`` (the unit tests' direct call): a ``HashMap`` of the input topics.
    """
    if replay.entry == "assignPartitions":
        return hashmap_order(list(replay.topic_order or scenario.partitions))
    order = subscription_order(scenario, replay) if order is None else order
    subscribed: List[str] = []
    for member in order:
        subscribed.extend(scenario.members[member].topics)
    topic_set = hashmap_order(list(dict.fromkeys(subscribed)))
    present = [t for t in topic_set if scenario.partitions.get(t, 0) > 0]
    return hashmap_order(present)


def topic_subscribers(ordered: Sequence[str], topic_lists: Mapping[str, Sequence[str]],
                      values: Optional[Sequence[Any]] = None, repeats: bool = False) -> Dict[str, List[Any]]:
    """``AbstractPartitionAssignor.consumersPerTopic`` (Kafka 4.3.1): each topic's subscribers in the order of ``ordered`` (``topic_lists[m]`` is
    member m's topics), or their entries in ``values`` (parallel to ``ordered``).  A member that lists a
    topic twice counts once, or once per listing with ``repeats``.  Members with the same topic list share
    the work: Kafka's large groups have thousands of members and one or two distinct subscriptions."""
    values = ordered if values is None else values
    kinds: Dict[Tuple[str, ...], int] = {}
    kind_of: List[int] = []
    for member in ordered:
        key = tuple(topic_lists[member])
        kind = kinds.get(key)
        if kind is None:
            kind = kinds[key] = len(kinds)
        kind_of.append(kind)
    signature: Dict[str, List[Tuple[int, int]]] = {}
    for key, kind in kinds.items():
        for topic, times in (Counter(key) if repeats else dict.fromkeys(key, 1)).items():
            signature.setdefault(topic, []).append((kind, times))
    shared: Dict[Tuple[Tuple[int, int], ...], List[Any]] = {}
    result: Dict[str, List[Any]] = {}
    for topic, sig in signature.items():
        sig_key = tuple(sig)
        lst = shared.get(sig_key)
        if lst is None:
            times_of = dict(sig)
            lst = shared[sig_key] = [v for v, kind in zip(values, kind_of) if kind in times_of
                                     for _ in range(times_of[kind])]
        result[topic] = list(lst)
    return result


def partition_racks_of(scenario: ConsumerScenario, topic: str) -> List[FrozenSet[str]]:
    """Racks of the replicas of each partition of ``topic`` (KIP-881); no replicas means no racks."""
    racks = scenario.partition_racks.get(topic)
    count = scenario.partitions.get(topic, 0)
    if racks is None:
        return [_NO_RACKS] * count
    return list(racks)


def use_rack_aware_assignment(consumer_racks: Set[str], partition_racks: Set[str],
                              racks_per_partition: Iterable[FrozenSet[str]],
                              prefer_rack_aware_logic: bool = False) -> bool:
    """``AbstractPartitionAssignor.useRackAwareAssignment`` (3.5+): only if some consumer has a rack that
    holds replicas, and not every partition has replicas on all the racks (unless the test-only
    ``preferRackAwareLogic`` hook is set)."""
    if not consumer_racks or consumer_racks.isdisjoint(partition_racks):
        return False
    if prefer_rack_aware_logic:
        return True
    return not all(r == partition_racks for r in racks_per_partition)
