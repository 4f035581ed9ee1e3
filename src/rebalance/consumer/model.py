"""The inputs of a client-side consumer partition assignor, as Kafka's leader sees them.

Mirrors ``org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.{Subscription, GroupSubscription}``
and the parts of ``org.apache.kafka.common.Cluster`` an assignor reads (Kafka 4.3.1).

A topic-partition is a plain tuple ``(topic, partition)``; lists of them are what the assignors return.
``parse_consumer_input`` turns a scenario in the conformance vectors' schema (see
``kafka-vectors/README.md``, kind ``consumer``) into a :class:`ConsumerScenario`, and names the
field of any bad value.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import repeat
from operator import itemgetter
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Set, Tuple

from ..errors import InputError
from ..java import INT_MAX
from ..validation import parse_dashed_id, require

from ..common import TopicPartition as TopicPartition, tp_str as tp_str  # re-exported: the one definition is rebalance.common

_HEAD, _SEP, _TAIL = itemgetter(0), itemgetter(1), itemgetter(2)


def parse_tp(text: object, field_name: str) -> TopicPartition:
    """Read ``"topic-partition"`` (split at the last ``-``), naming ``field_name`` if it is malformed."""
    return parse_dashed_id(text, field_name, "topic", "partition")


def parse_tps(texts: Sequence[Any], field_name: str) -> List[TopicPartition]:
    """:func:`parse_tp` (``TopicPartition.toString`` read back) over a list (``field_name[j]`` names a bad
    element).  A million owned partitions are
    split in one pass; only a list with a bad element is re-read element by element to name it."""
    result = None
    try:
        parts = list(map(str.rpartition, texts, repeat("-")))
        heads = list(map(_HEAD, parts))
        tails = list(map(_TAIL, parts))
        # (the number follows the last "-", so it is never negative: only a missing part, a number that is
        # not plain ASCII digits -- int() would take '+5', ' 5', '1_0' -- or one over a Java int can be wrong)
        if all(heads) and all(map(_SEP, parts)) and all(map(str.isdigit, tails)) and "".join(tails).isascii():
            numbers = list(map(int, tails))
            if not numbers or max(numbers) <= INT_MAX:
                result = list(zip(heads, numbers))
    except (TypeError, ValueError):
        pass
    if result is None:
        result = [parse_tp(text, f"{field_name}[{j}]") for j, text in enumerate(texts)]
    return result


@dataclass
class Subscription:
    """One member's JoinGroup metadata (``ConsumerPartitionAssignor.Subscription``, protocol v3)."""

    topics: List[str]
    owned_partitions: List[TopicPartition] = field(default_factory=list)
    generation_id: Optional[int] = None  # None is Kafka's Optional.empty() (generation -1 on the wire)
    group_instance_id: Optional[str] = None
    rack_id: Optional[str] = None
    user_data: Optional[bytes] = None


@dataclass
class ConsumerScenario:
    """Everything one ``assign`` call sees.

    ``partitions`` maps each topic to its partition count; ``partition_racks`` (optional) maps a topic to
    one frozenset of replica racks per partition (KIP-881).  ``members`` keeps the input order, which is
    the order Kafka's leader fills its subscription ``HashMap`` in.
    """

    assignor: str
    partitions: Dict[str, int]
    members: Dict[str, Subscription]
    partition_racks: Dict[str, List[FrozenSet[str]]] = field(default_factory=dict)


@dataclass
class AssignorResult:
    """What every consumer assignor returns (``ConsumerPartitionAssignor.GroupAssignment`` plus what the book
    shows of the computation).

    ``assignment`` maps every member id (in input order) to its list of ``(topic, partition)`` in the order
    Kafka's ``List<TopicPartition>`` has.  ``counters`` holds counted operations (for the book's scaling
    tables; never timings); ``rack_aware`` says whether the KIP-881 rack pass ran.

    The sticky assignors also fill: ``path`` (``"constrained"`` or ``"general"``), ``max_generation`` (the
    assignor's ``maxGeneration`` after the call), ``partitions_transferring_ownership`` (partition -> new
    owner, filled by the constrained path; ``None`` after the general path), ``owned`` (each member's owned
    partitions after double claims were settled), ``partitions_with_multiple_previous_owners``,
    ``movements`` (the general path's partition movements, partition -> (from, to)) and ``trace`` (the
    builder's steps, when the assignor was made with ``trace=True``).  ``CooperativeStickyAssignor`` also
    fills ``full_assignment`` (the plan before partitions transferring ownership were left out) and
    ``withheld`` (those partitions -> the member that gets them in the follow-up rebalance).
    """

    assignment: Dict[str, List[TopicPartition]]
    counters: Dict[str, int] = field(default_factory=dict)
    rack_aware: bool = False
    path: Optional[str] = None
    max_generation: Optional[int] = None
    partitions_transferring_ownership: Optional[Dict[TopicPartition, str]] = None
    owned: Dict[str, List[TopicPartition]] = field(default_factory=dict)
    partitions_with_multiple_previous_owners: Set[TopicPartition] = field(default_factory=set)
    movements: Dict[TopicPartition, Tuple[str, str]] = field(default_factory=dict)
    full_assignment: Optional[Dict[str, List[TopicPartition]]] = None
    withheld: Dict[TopicPartition, str] = field(default_factory=dict)
    trace: Optional[List[Dict[str, Any]]] = None

def _int(value: object, field_name: str, minimum: Optional[int] = None) -> int:
    """``value`` as a Java ``int`` (broker ids, partition counts, generations are ints in Kafka), at least
    ``minimum`` if given; anything else is an :class:`InputError` naming ``field_name``."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(field_name, f"must be a whole number, got {value!r}")
    require(-INT_MAX - 1 <= value <= INT_MAX, field_name, f"{value} does not fit a Java int")
    if minimum is not None:
        require(value >= minimum, field_name, f"must be at least {minimum}, got {value}")
    return value


#: Kafka's protocol ``STRING`` (an INT16 length): a topic name of more UTF-8 bytes cannot travel in a
#: subscription (``ConsumerProtocolSubscription.topics``, the sticky assignors' user data)
MAX_STRING_BYTES = 32767


def check_name_length(name: str, field_name: str) -> None:
    """Raise :class:`InputError` naming ``field_name`` when ``name`` has more UTF-8 bytes than Kafka's
    ``STRING`` holds (only names of more than 8191 characters are encoded to find out)."""
    if len(name) > MAX_STRING_BYTES // 4:
        size = len(name.encode("utf-8", "surrogatepass"))
        require(size <= MAX_STRING_BYTES, field_name,
                f"a name of {size:,} UTF-8 bytes does not fit Kafka's STRING (at most {MAX_STRING_BYTES:,})")


def check_tp_names(tps: Sequence[TopicPartition], field_name: str) -> None:
    """:func:`check_name_length` for the topic of each partition (``field_name[j]`` names a bad one)."""
    if tps and max(map(len, map(_HEAD, tps))) > MAX_STRING_BYTES // 4:
        for j, (topic, _) in enumerate(tps):
            check_name_length(topic, f"{field_name}[{j}]")


def parse_consumer_input(data: Mapping[str, Any]) -> ConsumerScenario:
    """Validate and convert a ``kind: consumer`` scenario.  Raises :class:`InputError` naming the field.
    The harness switches of the same input (``entry``, ``userData``, ...) are read by
    :func:`rebalance.consumer.replay.parse_replay_options`."""
    from .assignor import assignor_name

    require(isinstance(data, Mapping), "input", "must be a JSON object")
    assignor = data.get("assignor")
    require(isinstance(assignor, str), "assignor", f"must be a string, got {assignor!r}")
    assignor = assignor_name(assignor)

    brokers: Dict[int, Optional[str]] = {}
    raw_brokers = data.get("brokers", [])
    require(isinstance(raw_brokers, list), "brokers", "must be a list of {id, rack} objects")
    for i, broker in enumerate(raw_brokers):
        require(isinstance(broker, Mapping), f"brokers[{i}]", "must be an object with 'id' and 'rack'")
        bid = _int(broker.get("id"), f"brokers[{i}].id")
        rack = broker.get("rack")
        require(rack is None or isinstance(rack, str), f"brokers[{i}].rack", "must be a string or null")
        require(bid not in brokers, f"brokers[{i}].id", f"broker {bid} is listed twice")
        brokers[bid] = rack

    raw_topics = data.get("topics")
    if not isinstance(raw_topics, Mapping):
        raise InputError("topics", "must be an object mapping topic names to partition counts")
    partitions: Dict[str, int] = {}
    partition_racks: Dict[str, List[FrozenSet[str]]] = {}
    for topic, spec in raw_topics.items():
        where = f"topics.{topic}"
        require(isinstance(topic, str) and topic != "", where, "topic names must be non-empty strings")
        check_name_length(topic, where)
        if isinstance(spec, list):
            racks: List[FrozenSet[str]] = []
            for p, replicas in enumerate(spec):
                require(isinstance(replicas, list), f"{where}[{p}]", "must be a list of broker ids")
                names: Set[str] = set()
                for r, broker_id in enumerate(replicas):
                    _int(broker_id, f"{where}[{p}][{r}]")
                    require(broker_id in brokers, f"{where}[{p}][{r}]",
                            f"broker {broker_id} is not in 'brokers'")
                    broker_rack = brokers[broker_id]
                    if broker_rack is not None:
                        names.add(broker_rack)
                racks.append(frozenset(names))
            partitions[topic] = len(spec)
            partition_racks[topic] = racks
        else:
            partitions[topic] = _int(spec, where, minimum=0)

    raw_members = data.get("members")
    if not isinstance(raw_members, list):
        raise InputError("members", "must be a list of member objects")
    members: Dict[str, Subscription] = {}
    for i, member in enumerate(raw_members):
        where = f"members[{i}]"
        require(isinstance(member, Mapping), where, "must be an object")
        member_id = member.get("memberId")
        require(isinstance(member_id, str), f"{where}.memberId", "is required and must be a string")
        require(member_id not in members, f"{where}.memberId", f"{member_id!r} appears twice")
        topics = member.get("topics", [])
        require(isinstance(topics, list) and set(map(type, topics)) <= {str}, f"{where}.topics",
                "must be a list of topic names")
        if topics and max(map(len, topics)) > MAX_STRING_BYTES // 4:
            for j, topic in enumerate(topics):
                check_name_length(topic, f"{where}.topics[{j}]")
        owned_raw = member.get("ownedPartitions", [])
        require(isinstance(owned_raw, list), f"{where}.ownedPartitions", "must be a list of 'topic-partition'")
        owned = parse_tps(owned_raw, f"{where}.ownedPartitions")
        check_tp_names(owned, f"{where}.ownedPartitions")
        generation = member.get("generationId", -1)
        generation = _int(generation, f"{where}.generationId")
        rack = member.get("rackId")
        require(rack is None or isinstance(rack, str), f"{where}.rackId", "must be a string or null")
        instance = member.get("groupInstanceId")
        require(instance is None or isinstance(instance, str), f"{where}.groupInstanceId",
                "must be a string or null")
        members[member_id] = Subscription(
            topics=list(topics),
            owned_partitions=owned,
            generation_id=None if generation == -1 else generation,
            group_instance_id=instance,
            rack_id=rack,
        )

    return ConsumerScenario(assignor=assignor, partitions=partitions, members=members,
                            partition_racks=partition_racks)


def validate_assignment_inputs(partitions: Mapping[str, int], members: Mapping[str, Subscription]) -> None:
    """Checks shared by every assignor's public entry point (not used on the vectors' replay path, where
    Kafka's own behaviour for odd input is reproduced instead).  Names the bad field."""
    for topic, count in partitions.items():
        _int(count, f"partitions.{topic}", minimum=0)
    for member_id, sub in members.items():
        for t in sub.topics:
            if t not in partitions:  # message built only on failure: groups can have millions of subscriptions
                known = sorted(partitions)
                shown = ", ".join(known[:20]) + (f", ... ({len(known)} topics)" if len(known) > 20 else "")
                raise InputError(f"members.{member_id}.topics",
                                 f"subscribed to unknown topic {t!r} (known: {shown or 'none'})")
    # A partition claimed by two members is an error only within one generation; claims from different
    # generations are Kafka's "zombie" case, which the sticky assignors resolve (KIP-341, KAFKA-12984).
    seen: Dict[Tuple[TopicPartition, Optional[int]], str] = {}
    for member_id, sub in members.items():
        for tp in sub.owned_partitions:
            topic, p = tp
            if topic in partitions and not 0 <= p < partitions[topic]:
                raise InputError(f"members.{member_id}.ownedPartitions",
                                 f"{tp_str(tp)} does not exist (topic {topic!r} has {partitions[topic]} partitions)")
            key = (tp, sub.generation_id)
            if key in seen and seen[key] != member_id:
                raise InputError(f"members.{member_id}.ownedPartitions",
                                 f"{tp_str(tp)} is also owned by {seen[key]!r} in the same generation"
                                 f" ({-1 if sub.generation_id is None else sub.generation_id})")
            seen[key] = member_id
