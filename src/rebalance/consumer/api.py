"""The one call every consumer chapter uses: ``assign(assignor, partitions, members)``.

It builds what a Kafka consumer group leader has in hand when it runs a client-side assignor
(``ConsumerPartitionAssignor.assign(Cluster, GroupSubscription)``, Kafka 4.3.1): the partition count of
each topic (optionally the racks of each partition's replicas, KIP-881) and every member's
``Subscription`` (topics, owned partitions, generation, ``group.instance.id``, rack).  Members are put
into the leader's ``HashMap`` in the order given, so list orders are exactly Kafka's.

>>> assign("range", {"t0": 3, "t1": 3}, {"C0": {"topics": ["t0", "t1"]}, "C1": {"topics": ["t0", "t1"]}})
{'C0': [('t0', 0), ('t0', 1), ('t1', 0), ('t1', 1)], 'C1': [('t0', 2), ('t1', 2)]}
"""
from __future__ import annotations

from collections.abc import Sized
from dataclasses import replace
from typing import Any, Dict, FrozenSet, Iterable, List, Mapping, Optional, Union

from ..errors import InputError
from ..validation import check_size, require
from .assignor import assignor_for, assignor_name
from .model import AssignorResult, ConsumerScenario, Subscription, TopicPartition, parse_tp, validate_assignment_inputs
from .sticky_userdata import auto_user_data

MemberSpec = Union[Subscription, Mapping[str, Any]]

_MEMBER_KEYS = ("topics", "owned", "generation", "instance_id", "rack")

def _owned(value: object, where: str) -> List[TopicPartition]:
    if not isinstance(value, (list, tuple)):
        raise InputError(where, "must be a list of (topic, partition) or 'topic-partition'")
    out: List[TopicPartition] = []
    for j, item in enumerate(value):
        at = f"{where}[{j}]"
        if isinstance(item, str):
            out.append(parse_tp(item, at))
        else:
            require(isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], str)
                    and isinstance(item[1], int) and not isinstance(item[1], bool), at,
                    f"must be (topic, partition), got {item!r}")
            require(item[1] >= 0, at, f"partition number must not be negative, got {item[1]}")
            out.append((item[0], item[1]))
    return out


def to_subscription(member_id: str, spec: MemberSpec) -> Subscription:
    """A :class:`Subscription` from a plain dict ``{"topics", "owned", "generation", "instance_id",
    "rack"}`` (only ``topics`` is required) or a :class:`Subscription` itself."""
    where = f"members.{member_id}"
    if isinstance(spec, Subscription):
        return spec
    require(isinstance(spec, Mapping), where, "must be a Subscription or a dict with 'topics'")
    unknown = [k for k in spec if k not in _MEMBER_KEYS]
    require(not unknown, f"{where}.{unknown[0] if unknown else ''}",
            f"unknown field; a member has {', '.join(_MEMBER_KEYS)}")
    require("topics" in spec, f"{where}.topics", "is required (the member's subscription)")
    topics = spec["topics"]
    require(isinstance(topics, (list, tuple)) and all(isinstance(t, str) and t for t in topics),
            f"{where}.topics", "must be a list of topic names")
    owned = _owned(spec.get("owned", []), f"{where}.owned")
    generation = spec.get("generation")
    require(generation is None or (isinstance(generation, int) and not isinstance(generation, bool)),
            f"{where}.generation", f"must be a whole number or None, got {generation!r}")
    if generation is not None and generation < 0:
        generation = None  # -1 on the wire is Optional.empty()
    instance = spec.get("instance_id")
    require(instance is None or isinstance(instance, str), f"{where}.instance_id", "must be a string or None")
    rack = spec.get("rack")
    require(rack is None or isinstance(rack, str), f"{where}.rack", "must be a string or None")
    return Subscription(topics=list(topics), owned_partitions=owned, generation_id=generation,
                        group_instance_id=instance, rack_id=rack)


def require_members(members: Sized) -> None:
    """One rule for an empty group, the same for every assignor: at least one member.

    Kafka never runs a client-side assignor without members: the leader runs it in
    ``ConsumerCoordinator.onLeaderElected`` (Kafka 4.3.1, lines 653-690; lines 612-649 at commit 1eb7644)
    over the JoinGroup response's members, and the leader is one of them.  Kafka's classes called directly
    on an empty group disagree (``RangeAssignor`` returns an empty map, ``RoundRobinAssignor``'s ``CircularIterator`` throws
    ``IllegalArgumentException``, ``AbstractStickyAssignor``'s constrained builder divides by the member
    count, ``ArithmeticException``), so none of those is "Kafka's answer"; the conformance adapter, which
    drives the classes directly, still reproduces each.  Partitions without members, or members without
    partitions, are fine: every member gets an empty list."""
    require(len(members) > 0, "members", "a group needs at least one member (Kafka's assignors run on the leader, "
            "which is a member; ConsumerCoordinator.onLeaderElected)")


def build_scenario(assignor: str, partitions: Mapping[str, int], members: Mapping[str, MemberSpec], *,
                   partition_racks: Optional[Mapping[str, Iterable[Iterable[str]]]] = None) -> ConsumerScenario:
    """Validate the public inputs and build the :class:`ConsumerScenario` an assignor class takes."""
    name = assignor_name(assignor)
    require(isinstance(partitions, Mapping), "partitions", "must map topic names to partition counts")
    for topic in partitions:
        require(isinstance(topic, str) and topic != "", "partitions", f"topic names must be non-empty strings, got {topic!r}")
    require(isinstance(members, Mapping), "members", "must map member ids to subscriptions")
    require_members(members)
    counts = {t: n for t, n in partitions.items() if isinstance(n, int) and not isinstance(n, bool) and n > 0}
    if counts:  # partitions + subscriptions + owned partitions, before anything is allocated
        largest = max(counts, key=counts.__getitem__)
        specs = [s for s in members.values()]
        pairs = sum(len(s.topics if isinstance(s, Subscription) else (s.get("topics") or ()))
                    for s in specs if isinstance(s, (Subscription, Mapping)))
        owned = sum(len(s.owned_partitions if isinstance(s, Subscription) else (s.get("owned") or ()))
                    for s in specs if isinstance(s, (Subscription, Mapping)))
        total = sum(counts.values())
        check_size(f"partitions.{largest}", total + pairs + owned,
                   f"{total:,} partitions + {pairs:,} subscriptions + {owned:,} owned partitions")
    subs: Dict[str, Subscription] = {}
    for member_id, spec in members.items():
        require(isinstance(member_id, str) and member_id != "", "members",
                f"member ids (memberId) must be non-empty strings, got {member_id!r}")
        subs[member_id] = to_subscription(member_id, spec)
    validate_assignment_inputs(partitions, subs)
    racks: Dict[str, List[FrozenSet[str]]] = {}
    for topic, per_partition in (partition_racks or {}).items():
        where = f"partition_racks.{topic}"
        require(topic in partitions, where, f"unknown topic {topic!r}")
        per_partition = list(per_partition)
        require(len(per_partition) == partitions[topic], where,
                f"needs one set of racks per partition ({partitions[topic]}), got {len(per_partition)}")
        converted = []
        for p, rack_set in enumerate(per_partition):
            require(not isinstance(rack_set, str), f"{where}[{p}]", "must be a set of rack names, not a string")
            rack_set = frozenset(rack_set)
            require(all(isinstance(r, str) for r in rack_set), f"{where}[{p}]", "rack names must be strings")
            converted.append(rack_set)
        racks[topic] = converted
    # each member sends the user data its own assignor would (``subscriptionUserData``), unless given
    for member_id, sub in subs.items():
        if sub.user_data is None:  # a copy: a Subscription given by the caller is never changed
            subs[member_id] = replace(sub, user_data=auto_user_data(name, sub.owned_partitions, sub.generation_id))
    return ConsumerScenario(assignor=name, partitions=dict(partitions), members=subs, partition_racks=racks)


def run_assignor(scenario: ConsumerScenario) -> AssignorResult:
    """Run the scenario's assignor and return its result object (``.assignment`` and more)."""
    return assignor_for(scenario.assignor).assign(scenario)


def assign(assignor: str, partitions: Mapping[str, int], members: Mapping[str, MemberSpec], *,
           partition_racks: Optional[Mapping[str, Iterable[Iterable[str]]]] = None
           ) -> Dict[str, List[TopicPartition]]:
    """Assign ``partitions`` (``{topic: count}``) to ``members`` with Kafka's ``assignor``
    (``"range"``, ``"roundrobin"``, ``"sticky"`` or ``"cooperative-sticky"``).

    ``members`` maps member ids to a :class:`~rebalance.consumer.model.Subscription` or a dict
    ``{"topics": [...], "owned": [(topic, p), ...], "generation": g, "instance_id": ..., "rack": ...}``;
    ``partition_racks`` optionally maps a topic to one set of replica racks per partition (KIP-881).
    Returns ``{member_id: [(topic, partition), ...]}`` with every member, each list in Kafka's order.
    Bad input raises :class:`~rebalance.errors.InputError` naming the field, including an empty group
    (:func:`require_members`) and a group over :data:`~rebalance.validation.MAX_INPUT_CELLS` cells (partitions + subscriptions + owned partitions).
    """
    scenario = build_scenario(assignor, partitions, members, partition_racks=partition_racks)
    result = run_assignor(scenario)
    return {m: list(result.assignment.get(m, [])) for m in scenario.members}
