"""A friendly front door to the KIP-848 server-side assignors: topics and members by *name*.

:func:`assign_group` builds what the group coordinator's ``TargetAssignmentBuilder`` hands to an assignor
(``GroupSpecImpl`` with a member map, ``SubscribedTopicDescriberImpl`` keyed by topic id, the inverted
target assignment), runs ``UniformAssignor`` or the server-side ``RangeAssignor`` and returns the new target
assignment by topic name.  Pass the previous :class:`GroupResult` as a member's ``assignment`` (``"carry"``)
to chain rebalances exactly as the coordinator does: the iteration orders of the previous result's Java
collections are kept, because the homogeneous builder's choices depend on them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ..errors import InputError, KafkaError
from ..java import INT_MAX, INT_MIN
from ..validation import check_size
from .assignor import ASSIGNORS, COORDINATOR, ReplayOptions, assignor_for, check_members_map
from ..jcollections import HashJSet, JMap, JSet, LinkedJSet, new_map, new_set
from .spec import Assignment, GroupAssignment, GroupSpec, MemberSpec, TopicDescriber, inverted_assignment
from .spec import subscription_type as compute_subscription_type
from .uuid import Uuid, topic_id_for_name, uuid_hash


@dataclass
class Topic:
    name: str
    id: Uuid
    partitions: int

    def to_json(self) -> Dict[str, Any]:
        return {"name": self.name, "id": str(self.id), "partitions": self.partitions}


class TopicCatalog:
    """The topics the coordinator knows (``MetadataImage`` in Kafka), by name, with their ids."""

    def __init__(self, topics: Sequence[Topic] = ()):
        self._by_name: Dict[str, Topic] = {}
        for t in topics:
            self.put(t)

    @classmethod
    def parse(cls, value: object, field: str = "topics") -> "TopicCatalog":
        """A catalog from ``{name: partitions}`` or ``[{name, id?, partitions}]`` (see :func:`parse_topics`)."""
        catalog = cls()
        for topic in parse_topics(value, field):
            catalog.put(topic)
        return catalog

    def copy(self) -> "TopicCatalog":
        return TopicCatalog(list(self._by_name.values()))

    def put(self, topic: Topic) -> None:
        """Add a topic, or replace the topic of the same name (keeping its position)."""
        self._by_name[topic.name] = topic

    def remove(self, name: str) -> None:
        self._by_name.pop(name, None)

    def topics(self) -> List[Topic]:
        return list(self._by_name.values())

    def resolve(self, ref: str, field: str) -> Uuid:
        """A topic reference: a known name, else a topic id (possibly of a topic that does not exist)."""
        if not isinstance(ref, str):
            raise InputError(field, f"a topic reference must be a topic name or id string, got {ref!r}")
        topic = self._by_name.get(ref)
        if topic is not None:
            return topic.id
        try:
            return Uuid.from_string(ref, field)
        except InputError:
            raise InputError(field, f"{ref!r} is neither a known topic name nor a topic id") from None

    def name_of(self, topic_id: Uuid) -> str:
        for t in self._by_name.values():
            if t.id == topic_id:
                return t.name
        return str(topic_id)

    def describer(self) -> TopicDescriber:
        return TopicDescriber({t.id: t.partitions for t in self._by_name.values()})


TOPIC_KEYS = ("name", "id", "partitions")


def parse_topics(value: object, field: str = "topics") -> List[Topic]:
    """``[{"name", "id"?, "partitions"}]`` or ``{"name": partitions}``; an error names the field as the
    input spells it (``topics[1].partitions``, or ``topics.t1`` in the second form)."""
    if isinstance(value, Mapping):
        # field of the name, of the partitions, of the id: all the entry itself
        entries = [((f"{field}.{k}",) * 3, {"name": k, "partitions": v}) for k, v in value.items()]
    elif isinstance(value, list):
        entries = [((f"{field}[{i}].name", f"{field}[{i}].partitions", f"{field}[{i}].id"), t)
                   for i, t in enumerate(value)]
    else:
        raise InputError(field, "must be a list of {name, id, partitions} objects or a {name: partitions} object")
    topics = []
    for i, ((name_field, parts_field, id_field), t) in enumerate(entries):
        if not isinstance(t, Mapping):
            raise InputError(f"{field}[{i}]", "must be an object {name, id, partitions}")
        for key in t:
            if key not in TOPIC_KEYS:
                raise InputError(f"{field}[{i}].{key}", f"unknown field; a topic has {', '.join(TOPIC_KEYS)}")
        name = t.get("name")
        if not isinstance(name, str) or not name:
            raise InputError(name_field, "must be a non-empty string")
        parts = t.get("partitions")
        if not isinstance(parts, int) or isinstance(parts, bool) or not 0 <= parts <= INT_MAX:
            raise InputError(parts_field, f"must be a partition count >= 0 (a Java int), got {parts!r}")
        tid = Uuid.from_string(t["id"], id_field) if t.get("id") is not None else topic_id_for_name(name)
        topics.append(Topic(name, tid, parts))
    return topics


@dataclass
class GroupResult:
    """One target-assignment computation."""

    assignor: str
    subscription_type: str
    builder: str
    assignment: GroupAssignment
    catalog: TopicCatalog = field(repr=False)

    def by_name(self) -> Dict[str, Dict[str, List[int]]]:
        """``{member: {topic name: sorted partitions}}`` (members the assignor returned)."""
        out: Dict[str, Dict[str, List[int]]] = {}
        for member, partitions in self.assignment.members.items():
            out[member] = {self.catalog.name_of(t): sorted(p) for t, p in partitions.items()}
        return out

    def member_assignment(self, member_id: str) -> Optional[Assignment]:
        return self.assignment.members.get(member_id)


def build_member_assignment(value: object, catalog: TopicCatalog, kind: str, field: str) -> Assignment:
    """A member's current assignment as the coordinator holds it: a ``Map<Uuid, Set<Integer>>`` of
    ``kind`` (``"hash"``: ``HashMap`` of ``new HashSet<>(partitions)``; ``"linked"``: insertion order),
    wrapped unmodifiable like ``Assignment``.  ``value`` is ``{topic: [partitions]}`` or a previous
    result's :class:`JMap`."""
    result: Assignment = new_map(kind, uuid_hash)
    if isinstance(value, JMap):
        # a previous result: rebuilt in its Java iteration order (as the vectors' harness does)
        value = {t: list(p) for t, p in value.items()}
    if value is None:
        value = {}
    if not isinstance(value, Mapping):
        raise InputError(field, 'must be an object {topic: [partitions]} or "carry"')
    items = []
    for ref, parts in value.items():
        tf = f"{field}.{ref}"
        tid = ref if isinstance(ref, Uuid) else catalog.resolve(ref, tf)
        if not isinstance(parts, list) or not all(isinstance(p, int) and not isinstance(p, bool)
                                                  and INT_MIN <= p <= INT_MAX for p in parts):
            raise InputError(tf, "must be a list of partition numbers (Java ints)")
        items.append((tid, parts))
    for tid, parts in items:
        result.put(tid, new_set("hash" if kind == "hash" else "linked", parts))
    result.immutable = True
    return result


@dataclass
class MemberInput:
    """A member as given to :func:`assign_group`."""

    member_id: str
    subscriptions: List[str]
    assignment: Union[None, str, Mapping[Any, Any], Assignment] = None
    instance_id: Optional[str] = None
    rack: Optional[str] = None


#: the fields of a member (``memberId`` and ``topics`` are accepted as spellings of ``id`` and
#: ``subscriptions``); any other key is refused, so that a typo cannot silently empty a subscription
MEMBER_KEYS = ("id", "subscriptions", "assignment", "instance_id", "rack")
MEMBER_ALIASES = {"memberId": "id", "topics": "subscriptions"}


def parse_member(value: object, field: str) -> MemberInput:
    """One member of the input, validated (unknown keys refused, ``memberId``/``topics`` accepted)."""
    if isinstance(value, MemberInput):
        return value
    if not isinstance(value, Mapping):
        raise InputError(field, "must be an object {id, subscriptions, assignment?, instance_id?, rack?}")
    for key in value:
        if key not in MEMBER_KEYS and key not in MEMBER_ALIASES:
            raise InputError(f"{field}.{key}", f"unknown field; a member has {', '.join(MEMBER_KEYS)}")
    for alias, name in MEMBER_ALIASES.items():
        if alias in value and name in value:
            raise InputError(f"{field}.{alias}", f"{alias!r} is another spelling of {name!r}; give only one")
    member_id = value.get("id", value.get("memberId"))
    if not isinstance(member_id, str) or not member_id:
        raise InputError(f"{field}.id", "must be a non-empty string")
    subs = value.get("subscriptions", value.get("topics", []))
    if not isinstance(subs, list) or not all(isinstance(s, str) for s in subs):
        raise InputError(f"{field}.subscriptions", "must be a list of topic names (or ids)")
    instance = value.get("instance_id")
    if instance is not None and not isinstance(instance, str):
        raise InputError(f"{field}.instance_id", "must be a string or null")
    if value.get("rack") is not None and not isinstance(value.get("rack"), str):
        raise InputError(f"{field}.rack", "must be a string or null")
    return MemberInput(member_id, list(subs), value.get("assignment"), instance, value.get("rack"))


def build_group_spec(members: Sequence[MemberInput], catalog: TopicCatalog, *, members_map: str = "hash",
                     replay: Optional[ReplayOptions] = None, field: str = "members",
                     inverted_field: str = "inverted_assignment") -> GroupSpec:
    """``GroupSpecImpl`` as ``TargetAssignmentBuilder`` builds it (Kafka 4.3.1; member map filled in input
    order, a ``HashMap`` unless ``members_map`` says ``"tree"``/``"linked"``).  ``replay`` (vectors only)
    overrides the harness's collection kinds, the subscription type and the inverted assignment."""
    check_members_map(members_map)
    replay = (replay or COORDINATOR).check()
    spec_map: JMap[str, MemberSpec] = new_map(members_map)
    names_by_id: Optional[Dict[Uuid, str]] = None
    seen = set()
    specs = []
    for i, m in enumerate(members):
        f = f"{field}[{i}]"
        if m.member_id in seen:
            raise InputError(f"{f}.id", f"duplicate member id {m.member_id!r}")
        seen.add(m.member_id)
        subs = [catalog.resolve(s, f"{f}.subscriptions[{j}]") for j, s in enumerate(m.subscriptions)]
        if replay.subscription_set == "names":  # TopicIds over new HashSet<>(names): the names' hash order
            if names_by_id is None:
                names_by_id = {t.id: t.name for t in catalog.topics()}
            by_name = {names_by_id.get(t, str(t)): t for t in subs}  # an unknown id stays (the assignor refuses it)
            subscribed: JSet[Uuid] = LinkedJSet(by_name[n] for n in HashJSet.copy_of(list(by_name)))
        elif replay.subscription_set == "hash":
            subscribed = HashJSet.copy_of(subs, uuid_hash)
        else:
            subscribed = LinkedJSet(subs)
        assignment = m.assignment
        if isinstance(assignment, str):
            raise InputError(f"{f}.assignment", f"unexpected {assignment!r} (only a step may carry)")
        spec = MemberSpec(m.member_id, subscribed,
                          build_member_assignment(assignment, catalog, replay.assignment_map, f"{f}.assignment"),
                          m.instance_id, m.rack)
        specs.append(spec)
        spec_map.put(m.member_id, spec)
    subscription_type = replay.subscription_type
    if subscription_type is None:
        subscription_type = compute_subscription_type(m.subscriptions for m in members)
    if replay.inverted_assignment is None:
        inverted = inverted_assignment(specs)
    else:
        inverted = parse_inverted(replay.inverted_assignment, catalog, inverted_field)
    return GroupSpec(spec_map, subscription_type, inverted)


def parse_inverted(value: object, catalog: TopicCatalog, field: str = "inverted_assignment"
                   ) -> Dict[Uuid, Dict[int, str]]:
    """A hand-written inverted assignment ``{topic: {partition: member}}`` (the vectors' override)."""
    if not isinstance(value, Mapping):
        raise InputError(field, "must be an object {topic: {partition: member}}")
    out: Dict[Uuid, Dict[int, str]] = {}
    for ref, owners in value.items():
        tid = catalog.resolve(ref, f"{field}.{ref}")
        if not isinstance(owners, Mapping):
            raise InputError(f"{field}.{ref}", "must be an object {partition: member}")
        partitions: Dict[int, str] = {}
        for p, member in owners.items():
            where = f"{field}.{ref}.{p}"
            text = str(p)
            digits = text[1:] if text.startswith("-") else text
            if not (digits.isascii() and digits.isdigit() and len(digits) <= 10 and INT_MIN <= int(text) <= INT_MAX):
                raise InputError(where, f"partition keys must be whole numbers (Java ints), got {p!r}")
            if not isinstance(member, str):
                raise InputError(where, f"must be a member id string, got {member!r}")
            partitions[int(text)] = member
        out[tid] = partitions
    return out


def check_group_size(catalog: TopicCatalog, members: int, field: str = "topics") -> None:
    """Refuse a group over :data:`~rebalance.validation.MAX_INPUT_CELLS` before anything is allocated, naming
    the largest topic: its partitions plus, at most, every member subscribed to every topic."""
    topics = catalog.topics()
    if not topics:
        return
    total = sum(t.partitions for t in topics)
    largest = max(topics, key=lambda t: t.partitions)
    pairs = max(1, members) * len(topics)
    check_size(f"{field}.{largest.name}", total + pairs,
               f"{total:,} partitions + {pairs:,} member-topic pairs")


def parse_members(members: object, previous: Optional[GroupResult] = None, field: str = "members"
                  ) -> List[MemberInput]:
    """Validate a member list (``[{id, subscriptions, assignment?, instance_id?, rack?}]``); a member whose
    ``assignment`` is omitted or ``"carry"`` starts from its assignment in ``previous`` (empty without one)."""
    if not isinstance(members, (list, tuple)):
        raise InputError(field, "must be a list of members")
    parsed = []
    for i, m in enumerate(members):
        mi = parse_member(m, f"{field}[{i}]")
        if mi.assignment is None or mi.assignment == "carry":
            carried = previous.member_assignment(mi.member_id) if previous is not None else None
            mi = MemberInput(mi.member_id, mi.subscriptions, carried, mi.instance_id, mi.rack)
        parsed.append(mi)
    return parsed


def prepare_group(catalog: TopicCatalog, members: object, *, previous: Optional[GroupResult] = None,
                  members_map: str = "hash", replay: Optional[ReplayOptions] = None, prefix: str = ""
                  ) -> Tuple[List[MemberInput], GroupSpec]:
    """The one validation path of every input shape (:func:`assign_group` and the ``group`` vectors): the
    members parsed, the size checked, the ``GroupSpec`` built.  ``prefix`` (``"steps[2]."``) is put in front
    of every field an error names."""
    parsed = parse_members(members, previous, f"{prefix}members")
    check_group_size(catalog, len(parsed), f"{prefix}topics")
    spec = build_group_spec(parsed, catalog, members_map=members_map, replay=replay, field=f"{prefix}members",
                            inverted_field=f"{prefix}inverted_assignment")
    return parsed, spec


def run_assignor(assignor: str, spec: GroupSpec, catalog: TopicCatalog) -> GroupResult:
    """``assignor.assign(spec, describer)`` by registry name, as the one result type :class:`GroupResult`.
    Raises :class:`~rebalance.errors.KafkaError` where Kafka's assignor throws."""
    impl = assignor_for(assignor)
    result = impl.assign(spec, catalog.describer())
    return GroupResult(impl.name(), spec.subscription_type, result.builder, result, catalog)


def assign_group(assignor: str, topics: object, members: Sequence[object], *, members_map: str = "hash",
                 previous: Optional[GroupResult] = None, replay: Optional[ReplayOptions] = None) -> GroupResult:
    """Compute a KIP-848 target assignment (``TargetAssignmentBuilder.build`` then
    ``ConsumerGroupPartitionAssignor.assign``, Kafka 4.3.1).

    ``assignor``: a name in :data:`~rebalance.kip848.assignor.ASSIGNORS`; ``topics``: ``{name: partitions}``
    or ``[{name, id?, partitions}]`` (or a :class:`TopicCatalog`); ``members``: ``[{id, subscriptions,
    assignment?, instance_id?}]``.  A member whose ``assignment`` is omitted or ``"carry"`` starts from its
    assignment in ``previous`` (empty without one).  ``members_map`` is the ``Map`` the member specs are kept
    in (``"hash"`` as the coordinator; ``"tree"``/``"linked"`` as some of Kafka's tests).  ``replay`` is for
    the vectors adapter only (:class:`~rebalance.kip848.assignor.ReplayOptions`).
    Raises :class:`~rebalance.errors.KafkaError` where Kafka's assignor throws.
    """
    assignor_for(assignor)
    catalog = topics if isinstance(topics, TopicCatalog) else TopicCatalog.parse(topics)
    _, spec = prepare_group(catalog, members, previous=previous, members_map=members_map, replay=replay)
    return run_assignor(assignor, spec, catalog)


def moved_partitions(before: Mapping[str, Mapping[str, Sequence[int]]],
                     after: Mapping[str, Mapping[str, Sequence[int]]]) -> List[Dict[str, Optional[str]]]:
    """The partitions that change owner between two ``{member: {topic: [partitions]}}`` assignments (for
    instance the members' ``assignment`` inputs and :meth:`GroupResult.by_name`): one row
    ``{"partition": "t-3", "from": member or None, "to": member or None}`` per move, sorted by partition."""
    def owners(assignment: Mapping[str, Mapping[str, Sequence[int]]]) -> Dict[Tuple[str, int], str]:
        return {(t, p): m for m, topics in assignment.items() for t, parts in topics.items() for p in parts}

    old, new = owners(before), owners(after)
    rows: List[Dict[str, Optional[str]]] = []
    for t, p in sorted(set(old) | set(new)):
        if old.get((t, p)) != new.get((t, p)):
            rows.append({"partition": f"{t}-{p}", "from": old.get((t, p)), "to": new.get((t, p))})
    return rows


__all__ = ["ASSIGNORS", "assign_group", "moved_partitions", "prepare_group", "parse_members", "run_assignor", "GroupResult", "Topic", "TopicCatalog", "MemberInput", "build_group_spec",
           "parse_member", "parse_topics", "parse_inverted", "KafkaError"]
