"""``python -m rebalance simulate FILE``: the group simulators driven by a JSON scenario.

One scenario is a consumer group, its topics, its members and a schedule of what happens to them::

    {"id": "join", "protocol": "eager", "assignor": "sticky", "topics": {"t": 6},
     "members": [{"id": "c1"}, {"id": "c2"}, {"id": "c3"}, {"id": "c4"}],
     "config": {"session_timeout_ms": 45000},
     "events": [{"at_ms": 20000, "op": "join", "member": "c4"}],
     "until_ms": 60000}

``protocol`` picks the simulator: ``eager`` and ``cooperative`` run the classic group protocol
(:class:`rebalance.protocol.simulation.GroupSimulation`: ``ClassicGroup`` on the coordinator,
``ConsumerCoordinator`` on the client), ``consumer`` runs KIP-848's
(:class:`rebalance.kip848.simulation.KIP848Simulation`: ``GroupMetadataManager.consumerGroupHeartbeat`` and
the ``AsyncKafkaConsumer`` membership manager); both simulators were modelled on Kafka's source at commit
1eb7644 (trunk before 4.0) and follow 4.3.1 where it changed what they model (KIP-848's assignment interval);
each one's docstring lists what changed between the two and what is not followed yet.  Both are driven through
the one interface
:class:`~rebalance.protocol.driver.ConsumerGroupDriver` (:func:`driver_for`): ``join``, ``leave``, ``crash``
and ``restart`` at a time, ``run``, ``metrics`` and a listener for completed rebalances.  ``config`` sets fields of
:class:`~rebalance.protocol.config.ProtocolConfig` (classic) or :class:`~rebalance.kip848.config.KIP848Config`
(``consumer``) by name -- whatever fields those dataclasses have.  A member's ``poll_processing_ms`` gives that
consumer its own time per ``poll()`` batch (a slow member), instead of the config's.  A classic member's ``poll()``
returns at once by default, as a consumer's does when records are waiting; ``poll_timeout_ms`` makes each of its
polls last that long while it owns partitions, as a consumer's does on topics without records
(``ClassicKafkaConsumer.poll`` handles every group response that arrives within its timeout in one call):
``simulate --on kafka``'s classic members call ``poll(Duration.ofMillis(poll_timeout_ms))`` while they own partitions
and process batches (``rebalance.kafka.consumers.driver_poll_ms``), so both sides play the same application.

The output of a scenario is one line per *completed rebalance* -- classic: each time the coordinator moves
the group to ``Stable`` after the leader's ``SyncGroup`` (``ClassicGroup`` ``CompletingRebalance -> Stable``),
with the generation and the assignment the leader handed out; ``consumer``: each time the group is stable
again after a group-epoch bump (every member reconciled to the target assignment of that epoch), with the
group epoch and the coordinator's assignment -- then one summary line.  A scenario that sets
``rebuild_ms_per_partition`` (0 or more) also gets, in its summary, what the rebalances cost the application
(:class:`~rebalance.protocol.ledger.StopMeasures`): ``processing_stopped_member_seconds``, ``members_stopped``,
``rebuild_cost`` at that many ms per moved partition, and ``join_waits_ms``; without it the summary is as before.

A scenario's ``kind`` (:data:`KINDS`) says which kind of group it is: ``consumer`` (the default) is the above;
any other kind is handed whole to its own module by :func:`kind_lines` (``share``: :mod:`rebalance.share.simulate`,
and ``--on kafka`` :mod:`rebalance.kafka.share_scenarios`; ``streams``: :mod:`rebalance.streams.simulate` and
:mod:`rebalance.kafka.streams.simulate`).

Where Kafka breaks a tie by its random member ids, :func:`simulate_alternatives` runs the scenario again over
draws of member ids (``simulate --alternatives N`` puts the other assignments on each line).

The reading of the file, the size limit and the error lines follow ``run`` (:func:`rebalance.vectors.run_lines`); a run of more than
:data:`MAX_EVENTS` events is an :class:`~rebalance.errors.EventLimitError` line naming ``until_ms``, and any
other failure of a simulator is a line naming its own type (a simulator bug is never reported as the limit).
"""
from __future__ import annotations

import dataclasses
import json
import sys
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import (Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Type, TypedDict,
                    Union)

from .common import JsonRecord
from .consumer.assignor import COOPERATIVE, EAGER, assignor_name
from .consumer.assignor import assignor_for as consumer_assignor_for
from .errors import InputError
from .kip848.assignor import assignor_for
from .kip848.config import KIP848Config
from .member_ids import distinct_draws
from .protocol.clock import MAX_EVENTS
from .protocol.config import ProtocolConfig
from .protocol.driver import CompletedRebalance, ConsumerGroupDriver
from .protocol.ledger import OwnershipLedger, RebalanceMetrics, StopMeasures
from .protocol.simulation import GroupSimulation
from .validation import check_member_lives, check_size, json_object, require, scenario_event, whole
from .vectors import Line, compute_lines, parse_lines

__all__ = ["PROTOCOLS", "GROUP_PROTOCOLS", "OPS", "play_scenario", "MemberInput", "EventInput", "SimulationInput", "CompletedRebalance",
           "SimulationOutput", "SimulationSummary", "parse_scenario", "config_from_json", "driver_for", "simulate_scenario",
           "moved_partitions", "join_waits", "read_scenarios", "simulate_lines", "KINDS", "kind_compute",
           "ALTERNATIVE_DRAWS", "simulate_alternatives", "simulate_draw", "line_alternatives"]

#: ``protocol`` values: the classic protocol's two rebalance protocols, and KIP-848's ``group.protocol=consumer``
PROTOCOLS = (EAGER, COOPERATIVE, "consumer")
#: what an event does to a member (``subscribe``: its subscription changes to the event's ``topics``; only a real
#: cluster runs it, the simulators keep each member's subscription)
OPS = ("join", "leave", "crash", "restart", "subscribe")
#: the assignor when the scenario names none: Range for eager (``partition.assignment.strategy``'s first
#: default), CooperativeSticky for cooperative, ``uniform`` for KIP-848 (``group.consumer.assignors``' first)
DEFAULT_ASSIGNOR = {EAGER: "range", COOPERATIVE: "cooperative-sticky", "consumer": "uniform"}

SCENARIO_KEYS = ("kind", "id", "protocol", "assignor", "topics", "members", "config", "events", "until_ms",
                 "measure_from_ms", "rebuild_ms_per_partition")
MEMBER_KEYS = ("id", "topics", "instance_id", "poll_processing_ms", "group_protocol")
#: a member's ``group_protocol`` (Kafka's ``group.protocol``): ``classic`` (JoinGroup/SyncGroup) or ``consumer``
GROUP_PROTOCOLS = ("classic", "consumer")
EVENT_KEYS = ("at_ms", "op", "member", "down_ms", "topics")
Config = Union[ProtocolConfig, KIP848Config]


@dataclass(frozen=True)
class MemberInput:
    """One consumer: its ``client.id`` (the scenario's member id), subscription and ``group.instance.id``, its
    own time per ``poll()`` batch (``None``: the config's), and its own ``group.protocol`` (``None``: the
    scenario's; ``"consumer"`` in a classic scenario: a member of a group being migrated, which only a real
    cluster runs)."""

    id: str
    topics: Tuple[str, ...]
    instance_id: Optional[str] = None
    poll_processing_ms: Optional[int] = None
    group_protocol: Optional[str] = None


@dataclass(frozen=True)
class EventInput:
    """``op`` happens to ``member`` at ``at_ms``; a ``restart``'s new process starts ``down_ms`` after the old
    one has stopped (a process's restart takes time: the broker sees a leave, then a join); a ``subscribe``
    makes the running member subscribe to ``topics`` instead (``KafkaConsumer.subscribe`` called again)."""

    at_ms: int
    op: str
    member: str
    down_ms: int = 0
    topics: Tuple[str, ...] = ()


@dataclass(frozen=True)
class SimulationInput:
    """A validated scenario (see the module docstring)."""

    id: object
    protocol: str
    assignors: Tuple[str, ...]
    topics: Dict[str, int]
    members: Tuple[MemberInput, ...]
    config: Config
    events: Tuple[EventInput, ...]
    until_ms: int
    measure_from_ms: int = 0
    #: ms of state or cache rebuilt per moved partition; set: the summary adds the stop measures
    rebuild_ms_per_partition: Optional[int] = None

    def group_protocol_of(self, member: MemberInput) -> str:
        """The ``group.protocol`` a member runs: its own, else ``consumer`` in a ``consumer`` scenario and
        ``classic`` in an eager or cooperative one."""
        if member.group_protocol is not None:
            return member.group_protocol
        return "consumer" if self.protocol == "consumer" else "classic"

    @property
    def mixed(self) -> bool:
        """Whether the members do not all run one ``group.protocol`` (a group migrated between the classic and
        the consumer protocol, member by member)."""
        return len({self.group_protocol_of(m) for m in self.members}) > 1


class _SummaryFigures(TypedDict):
    """The figures every summary line of a scenario carries."""

    rebalances: int
    moved_partitions: int
    unowned_partition_seconds: float
    double_ownership: int
    zombie_overlap: int
    rebalances_started: int
    revocations: int
    partitions_stopped: int
    generation: int
    settled: bool
    messages: Dict[str, int]


class SimulationSummary(_SummaryFigures, total=False):
    """The summary line of a scenario (:meth:`SimulationOutput.summary`); the last four only for a scenario
    that sets ``rebuild_ms_per_partition``."""

    processing_stopped_member_seconds: float
    members_stopped: int
    rebuild_cost: float
    join_waits_ms: Dict[str, Optional[int]]


@dataclass(frozen=True)
class SimulationOutput:
    """The completed rebalances of one run, its :class:`~rebalance.protocol.ledger.RebalanceMetrics` and
    :class:`~rebalance.protocol.ledger.StopMeasures` (charged the scenario's ``rebuild_ms_per_partition``, 0
    if it sets none), and ``join_waits_ms``: for each member that joins in ``[measure_from_ms, until_ms)``, the
    ms from its ``join`` to the last time it took up a partition before ``until_ms`` (when it had the share
    it ended with), ``None`` if it never got one."""

    rebalances: List[CompletedRebalance]
    metrics: RebalanceMetrics
    unowned_partition_seconds: float
    stops: Optional[StopMeasures] = None
    join_waits_ms: Dict[str, Optional[int]] = dataclasses.field(default_factory=dict)
    #: the scenario asked for the stop measures in its summary (it set ``rebuild_ms_per_partition``)
    stop_summary: bool = False
    #: who processed which partition when, the whole run (not part of the summary line)
    ownership: Optional[OwnershipLedger] = dataclasses.field(default=None, compare=False, repr=False)

    def summary(self) -> SimulationSummary:
        """The summary line's figures, all over ``[measure_from_ms, until_ms)`` (``metrics.start_ms`` to
        ``metrics.end_ms``): ``rebalances`` (the completed ones, the lines above), ``moved_partitions`` (see
        :func:`moved_partitions`), ``unowned_partition_seconds`` (over the partitions of subscribed topics),
        ``double_ownership`` and the other figures of :class:`~rebalance.protocol.ledger.RebalanceMetrics`
        (``rebalances_started`` is its ``rebalances``, ``generation`` its ``group_epoch``).  For a scenario that
        sets ``rebuild_ms_per_partition``, also ``processing_stopped_member_seconds``, ``members_stopped`` and
        ``rebuild_cost`` (:class:`~rebalance.protocol.ledger.StopMeasures`) and ``join_waits_ms``."""
        m = self.metrics
        out: SimulationSummary = {"rebalances": sum(1 for r in self.rebalances if r.at_ms >= m.start_ms),
                                  "moved_partitions": moved_partitions(self.rebalances, m.start_ms),
                                  "unowned_partition_seconds": round(self.unowned_partition_seconds, 3),
                                  "double_ownership": m.double_ownership, "zombie_overlap": m.zombie_overlap,
                                  "rebalances_started": m.rebalances, "revocations": m.revocations,
                                  "partitions_stopped": m.partitions_stopped, "generation": m.group_epoch,
                                  "settled": m.settled,
                                  "messages": dict(m.messages)}
        if self.stop_summary and self.stops is not None:
            out["processing_stopped_member_seconds"] = self.stops.processing_stopped_member_seconds
            out["members_stopped"] = self.stops.members_stopped
            out["rebuild_cost"] = self.stops.rebuild_cost
            out["join_waits_ms"] = dict(self.join_waits_ms)
        return out


def moved_partitions(rebalances: Sequence[CompletedRebalance], since_ms: int = 0) -> int:
    """Partitions whose owner changed between consecutive rebalances, over the rebalances completed at or
    after ``since_ms``: each time a rebalance gives a partition to another member than the last one a
    rebalance gave it to.  A partition left unassigned in between (the first rebalance of a cooperative
    move) is one move, not two; a partition's first owner is no move."""
    last: Dict[str, str] = {}
    moved = 0
    for rebalance in rebalances:
        for member in sorted(rebalance.assignment):
            for tp in rebalance.assignment[member]:
                if last.get(tp, member) != member and rebalance.at_ms >= since_ms:
                    moved += 1
                last[tp] = member
    return moved


# ---------------------------------------------------------------------------------------------
# validation




def _check_type(value: object, hint: object, field: str) -> object:
    """``value`` (from JSON) as a field of type ``hint``: ``int``, ``float``, ``bool``, ``str``,
    ``Optional[X]`` and ``Tuple[X, ...]`` are checked (a JSON list becomes a tuple); any other type is
    left to the dataclass's own ``validate``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Union:
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _check_type(value, inner[0], field) if len(inner) == 1 else value
    if hint is bool:
        require(isinstance(value, bool), field, f"must be true or false, got {value!r}")
    elif hint is int:
        require(isinstance(value, int) and not isinstance(value, bool), field, f"must be a whole number, got {value!r}")
    elif hint is float:
        require(isinstance(value, (int, float)) and not isinstance(value, bool), field, f"must be a number, got {value!r}")
    elif hint is str:
        require(isinstance(value, str), field, f"must be a string, got {value!r}")
    elif origin in (tuple, list) or hint in (tuple, list):
        require(isinstance(value, list), field, f"must be a list, got {value!r}")
        item = args[0] if args else object
        return tuple(_check_type(v, item, f"{field}[{i}]") for i, v in enumerate(typing.cast(List[object], value)))
    return value


def config_from_json(cls: Type[Config], value: object, field: str = "config") -> Config:
    """``cls(**value)`` for a config dataclass, by field name: every key must be one of ``cls``'s fields
    (an unknown key is an ``InputError`` naming it), each value of the field's type; then ``validate()``,
    whose errors are named under ``field`` (``config.session_timeout_ms``)."""
    if value is None:
        value = {}
    require(isinstance(value, Mapping), field, f"must be an object {{name: value}} of {cls.__name__} fields")
    known = {f.name for f in dataclasses.fields(cls) if f.init}
    hints = typing.get_type_hints(cls)
    kwargs: Dict[str, Any] = {}
    for key, v in typing.cast(Mapping[str, Any], value).items():
        if key not in known:
            raise InputError(f"{field}.{key}", f"unknown config; {cls.__name__} has {', '.join(sorted(known))}")
        kwargs[key] = _check_type(v, hints[key], f"{field}.{key}")
    try:
        return cls(**kwargs).validate()
    except InputError as exc:
        name = exc.field if exc.field.startswith(f"{field}.") else f"{field}.{exc.field}"
        raise InputError(name, exc.message) from None




def _topics(value: object) -> Dict[str, int]:
    require(isinstance(value, Mapping) and len(value) > 0, "topics",
            f"must be a non-empty object {{topic: partition count}}, got {value!r}")
    topics = {}
    for name, count in typing.cast(Mapping[str, Any], value).items():
        require(name != "", "topics", "a topic name must not be empty")
        topics[name] = whole(count, f"topics.{name}")
    return topics


def _members(value: object, topics: Mapping[str, int], protocol: str = EAGER) -> Tuple[MemberInput, ...]:
    require(isinstance(value, list) and len(value) > 0, "members",
            f"must be a non-empty list of {{id, topics, instance_id}} objects, got {value!r}")
    members: List[MemberInput] = []
    ids: Dict[str, int] = {}
    instances: Dict[str, str] = {}
    for i, m in enumerate(typing.cast(List[object], value)):
        f = f"members[{i}]"
        m = json_object(m, MEMBER_KEYS, f, "a member")
        mid = m.get("id")
        if not (isinstance(mid, str) and mid != "" and "~" not in mid):
            raise InputError(f"{f}.id", f"must be a non-empty string without '~', got {mid!r}")
        require(mid not in ids, f"{f}.id", f"duplicate member id {mid!r} (also members[{ids.get(mid)}])")
        ids[mid] = i
        subs = m.get("topics", sorted(topics))
        require(isinstance(subs, list) and len(subs) > 0, f"{f}.topics", f"must be a non-empty list of topic names, got {subs!r}")
        for j, t in enumerate(subs):
            require(isinstance(t, str) and t in topics, f"{f}.topics[{j}]",
                    f"{t!r} is not one of the scenario's topics ({', '.join(sorted(topics))})")
        require(len(set(subs)) == len(subs), f"{f}.topics", "a topic is listed twice")
        batch = m.get("poll_processing_ms")
        if batch is not None:
            batch = whole(batch, f"{f}.poll_processing_ms")
        instance = m.get("instance_id")
        require(instance is None or (isinstance(instance, str) and instance != ""), f"{f}.instance_id",
                f"must be a non-empty string (group.instance.id) or null, got {instance!r}")
        if instance is not None:
            require(instance not in instances, f"{f}.instance_id",
                    f"{instance!r} is also the instance id of {instances.get(instance)!r}")
            instances[instance] = mid
        group_protocol = m.get("group_protocol")
        require(group_protocol is None or group_protocol in GROUP_PROTOCOLS, f"{f}.group_protocol",
                f"must be one of {', '.join(GROUP_PROTOCOLS)} (group.protocol) or null, got {group_protocol!r}")
        require(not (protocol == "consumer" and group_protocol == "classic"), f"{f}.group_protocol",
                "a classic member needs a classic scenario (protocol eager or cooperative), whose assignor it "
                "runs; give the scenario that protocol and its KIP-848 members group_protocol consumer")
        members.append(MemberInput(mid, tuple(subs), instance, batch, group_protocol))
    return tuple(members)


def _events(value: object, members: Sequence[MemberInput], until_ms: int,
            topics: Optional[Mapping[str, int]] = None) -> Tuple[EventInput, ...]:
    """The events in time order (events at the same instant keep their order), checked against each
    member's life: ``join`` only as a member's first event (it then starts at that time instead of 0),
    ``leave``, ``crash`` and ``subscribe`` (with ``topics``, a non-empty list of the scenario's topics) only while
    it runs; ``restart`` any time (a running member is closed and a new process starts ``down_ms``, default 0,
    after the close has finished; a stopped one starts at once)."""
    if value is None:
        value = []
    require(isinstance(value, list), "events", f"must be a list of {{at_ms, op, member}} objects, got {value!r}")
    events = []
    for i, e in enumerate(typing.cast(List[object], value)):
        f = f"events[{i}]"
        e, at, op = scenario_event(e, EVENT_KEYS, f, OPS, until_ms)
        name = e.get("member")
        require(isinstance(name, str) and any(m.id == name for m in members), f"{f}.member",
                f"{name!r} is not the id of one of the scenario's members")
        down = 0
        if "down_ms" in e:
            require(op == "restart", f"{f}.down_ms", f"only a 'restart' has a down time, not {op!r}")
            down = whole(e.get("down_ms"), f"{f}.down_ms")
        subs: Tuple[str, ...] = ()
        if op == "subscribe" or "topics" in e:
            require(op == "subscribe", f"{f}.topics", f"only a 'subscribe' has topics, not {op!r}")
            raw = e.get("topics")
            require(isinstance(raw, list) and len(raw) > 0, f"{f}.topics",
                    f"must be a non-empty list of topic names, got {raw!r}")
            for j, topic in enumerate(typing.cast(List[object], raw)):
                require(isinstance(topic, str) and (topics is None or topic in topics), f"{f}.topics[{j}]",
                        f"{topic!r} is not one of the scenario's topics ({', '.join(sorted(topics or {}))})")
            subs = tuple(typing.cast(List[str], raw))
            require(len(set(subs)) == len(subs), f"{f}.topics", "a topic is listed twice")
        events.append((at, i, EventInput(at, op, typing.cast(str, name), down, subs)))
    events.sort(key=lambda x: (x[0], x[1]))
    check_member_lives([(i, e) for _, i, e in events], (m.id for m in members),
                       ("leave", "crash", "subscribe"), ("join", "restart", "subscribe"))
    return tuple(e for _, _, e in events)


def _classic_assignors(value: object, protocol: str) -> Tuple[str, ...]:
    """``partition.assignment.strategy``: a name, a comma-separated string or a list of names, each of them
    supporting ``protocol`` (``supportedProtocols()``)."""
    if value is None:
        value = DEFAULT_ASSIGNOR[protocol]
    text = isinstance(value, str)
    if text:  # partition.assignment.strategy is a comma-separated list
        value = [part.strip() for part in typing.cast(str, value).split(",") if part.strip()]
    require(isinstance(value, list) and len(value) > 0, "assignor",
            f"must be an assignor name or a list of names (partition.assignment.strategy), got {value!r}")
    names = []
    for i, name in enumerate(typing.cast(List[object], value)):
        try:
            names.append(assignor_name(name))
        except InputError as exc:
            raise InputError("assignor" if text else f"assignor[{i}]", exc.message) from None
        if protocol == COOPERATIVE:
            require(COOPERATIVE in consumer_assignor_for(names[-1]).supported_protocols(), "assignor",
                    f"{names[-1]!r} does not support the cooperative protocol (supportedProtocols() is "
                    f"{', '.join(consumer_assignor_for(names[-1]).supported_protocols())})")
    return tuple(names)


def _check_size(topics: Mapping[str, int], members: Sequence[MemberInput], n_events: int) -> None:
    """Partitions + subscriptions + events, against :data:`rebalance.validation.MAX_INPUT_CELLS` (as ``run``
    counts a consumer group's partitions and subscriptions)."""
    total = sum(topics.values())
    largest = max(topics, key=lambda t: topics[t])
    pairs = sum(len(m.topics) for m in members)
    check_size(f"topics.{largest}", total + pairs + n_events,
               f"{total:,} partitions (the largest, topics.{largest}, has {topics[largest]:,}) + {pairs:,} "
               f"subscriptions + {n_events:,} events")


def parse_scenario(value: object) -> SimulationInput:
    """Validate one scenario; an :class:`InputError` names the first bad field."""
    s = json_object(value, SCENARIO_KEYS, "", "a scenario")
    require(s.get("kind", "consumer") == "consumer", "kind", f"a consumer scenario's kind is 'consumer', got {s.get('kind')!r}")
    protocol = s.get("protocol")
    require(protocol in PROTOCOLS, "protocol", f"must be one of {', '.join(PROTOCOLS)}, got {protocol!r}")
    protocol = typing.cast(str, protocol)
    topics = _topics(s.get("topics"))
    members = _members(s.get("members"), topics, protocol)
    until_ms = whole(s.get("until_ms"), "until_ms", 1)
    measure_from = whole(s.get("measure_from_ms", 0), "measure_from_ms")
    require(measure_from < until_ms, "measure_from_ms", f"must be before until_ms ({until_ms}), got {measure_from}")
    rebuild = s.get("rebuild_ms_per_partition")
    if rebuild is not None:
        rebuild = whole(rebuild, "rebuild_ms_per_partition")
    raw_events = s.get("events")
    _check_size(topics, members, len(raw_events) if isinstance(raw_events, list) else 0)
    events = _events(raw_events, members, until_ms, topics)
    if protocol != "consumer":
        return SimulationInput(s.get("id"), protocol, _classic_assignors(s.get("assignor"), protocol), topics,
                               members, config_from_json(ProtocolConfig, s.get("config")), events, until_ms,
                               measure_from, rebuild)
    config_json = s.get("config")
    if "assignor" in s:  # the group.remote.assignor: the model's config.assignor
        name = s["assignor"]
        assignor_for(name, "assignor")
        require(not isinstance(config_json, Mapping) or config_json.get("assignor", name) == name, "assignor",
                f"{name!r} differs from config.assignor; give one of them")
        if config_json is None or isinstance(config_json, Mapping):
            config_json = dict(config_json or {}, assignor=name)
    config = typing.cast(KIP848Config, config_from_json(KIP848Config, config_json))
    return SimulationInput(s.get("id"), protocol, (config.assignor,), topics, members, config, events, until_ms,
                           measure_from, rebuild)


# ---------------------------------------------------------------------------------------------
# running


def driver_for(s: SimulationInput, member_id_seed: Optional[int] = None) -> ConsumerGroupDriver:
    """The simulator of ``s.protocol``, with the scenario's topics and config, not yet started: a
    :class:`~rebalance.protocol.simulation.GroupSimulation` whose members use ``s.assignors`` and
    ``s.protocol`` (eager or cooperative), or a :class:`~rebalance.kip848.simulation.KIP848Simulation`.  A
    simulator runs one protocol per group: a scenario whose members differ in ``group_protocol`` (a migration)
    is an :class:`InputError` naming the first member that differs (run it ``--on kafka``).  ``member_id_seed``:
    member ids drawn at random as Kafka's are (see :class:`~rebalance.protocol.simulation.GroupSimulation` and
    :class:`~rebalance.kip848.simulation.KIP848Simulation`); ``None``: numbered in join order (classic), the
    member's name (KIP-848)."""
    if s.mixed:
        first = next(i for i, m in enumerate(s.members) if s.group_protocol_of(m) != s.group_protocol_of(s.members[0]))
        raise InputError(f"members[{first}].group_protocol",
                         "the simulators run one protocol per group; a group whose members differ in group.protocol "
                         "(a migration) runs only on a real cluster (simulate --on kafka)")
    if s.protocol == "consumer":
        from .kip848.group import check_group_size
        from .kip848.simulation import KIP848Simulation

        sim = KIP848Simulation(s.topics, typing.cast(KIP848Config, s.config), member_id_seed=member_id_seed)
        check_group_size(sim.catalog, len(s.members))
        return sim
    return GroupSimulation(s.topics, typing.cast(ProtocolConfig, s.config), record_heartbeats=False,
                           default_assignors=s.assignors, default_protocol=s.protocol, member_id_seed=member_id_seed)


def simulate_scenario(scenario: Union[SimulationInput, Mapping[str, Any]]) -> SimulationOutput:
    """Run one scenario (a :class:`SimulationInput` or its JSON object) to ``until_ms`` through the
    :class:`~rebalance.protocol.driver.ConsumerGroupDriver` of its protocol (:func:`driver_for`): each member
    without a ``join`` event joins at 0, then every event in time order.  More than the simulators' event
    limit (:data:`MAX_EVENTS`) is an :class:`~rebalance.errors.EventLimitError` naming ``until_ms``; any
    other failure of a simulator surfaces as itself."""
    s = scenario if isinstance(scenario, SimulationInput) else parse_scenario(scenario)
    completed: List[CompletedRebalance] = []
    sim = play_scenario(s, completed.append)
    metrics = sim.metrics(s.measure_from_ms, s.until_ms)
    subscribed = sorted({t for m in s.members for t in m.topics})
    partitions = [(t, p) for t in subscribed for p in range(s.topics[t])]
    unowned = sim.ownership.unowned_ms(s.measure_from_ms, s.until_ms, partitions) / 1000.0
    stops = sim.ownership.stop_measures(s.measure_from_ms, s.until_ms, s.rebuild_ms_per_partition or 0)
    return SimulationOutput(completed, metrics, unowned, stops, join_waits(sim.ownership, s),
                            s.rebuild_ms_per_partition is not None, sim.ownership)


def play_scenario(scenario: Union[SimulationInput, Mapping[str, Any]],
                  on_rebalance: Optional[Callable[[CompletedRebalance], None]] = None,
                  member_id_seed: Optional[int] = None) -> ConsumerGroupDriver:
    """The simulator of a scenario (:func:`driver_for`) after its run to ``until_ms``: each member without a
    ``join`` event joins at 0, then every event in time order; ``on_rebalance`` hears each completed rebalance.
    Its ``events`` are the run's log (a classic coordinator's ``rebalance`` events carry its ``reason``).
    ``member_id_seed``: as :func:`driver_for`."""
    s = scenario if isinstance(scenario, SimulationInput) else parse_scenario(scenario)
    for k, e in enumerate(s.events):
        require(e.op != "subscribe", f"events[{k}].op", "a subscription change runs only on a real cluster "
                "(simulate --on kafka): the simulators keep each member's subscription")
    sim = driver_for(s, member_id_seed)
    sim.max_events = MAX_EVENTS
    if on_rebalance is not None:
        sim.on_rebalance_completed(on_rebalance)
    by_id = {m.id: m for m in s.members}
    joins = {e.member for e in s.events if e.op == "join"}
    for m in s.members:
        if m.id not in joins:
            sim.join(m.id, 0, topics=m.topics, instance_id=m.instance_id, poll_processing_ms=m.poll_processing_ms)
    for e in s.events:
        if e.op == "join":
            m = by_id[e.member]
            sim.join(m.id, e.at_ms, topics=m.topics, instance_id=m.instance_id, poll_processing_ms=m.poll_processing_ms)
        elif e.op == "leave":
            sim.leave(e.member, e.at_ms)
        elif e.op == "crash":
            sim.crash(e.member, e.at_ms)
        else:
            sim.restart(e.member, e.at_ms, down_ms=e.down_ms)
    sim.run(s.until_ms)
    return sim


#: member-id draws of :func:`simulate_alternatives` unless told otherwise
ALTERNATIVE_DRAWS = 32


def simulate_draw(scenario: Union[SimulationInput, Mapping[str, Any]], seed: Optional[int]) -> List[CompletedRebalance]:
    """The completed rebalances of one draw of :func:`simulate_alternatives`: ``seed`` ``None`` is the simulator's
    own run (:func:`simulate_scenario`'s); otherwise the member ids are drawn at random from ``seed`` (the
    simulators' ``member_id_seed``: classic ``c1-<uuid>`` as ``ClassicGroup.generateMemberId`` makes them,
    KIP-848 a random part in front of the name) and, for KIP-848, the members that start at 0 join in an order
    drawn from it."""
    import random

    s = scenario if isinstance(scenario, SimulationInput) else parse_scenario(scenario)
    if seed is not None and s.protocol == "consumer":
        joining = {e.member for e in s.events if e.op == "join"}
        starters = [m for m in s.members if m.id not in joining]
        order = random.Random(seed).sample(starters, len(starters)) + [m for m in s.members if m.id in joining]
        s = dataclasses.replace(s, members=tuple(order))
    got: List[CompletedRebalance] = []
    play_scenario(s, got.append, member_id_seed=seed)
    return got


def simulate_alternatives(scenario: Union[SimulationInput, Mapping[str, Any]],
                          draws: int = ALTERNATIVE_DRAWS) -> List[List[CompletedRebalance]]:
    """The distinct rebalance sequences (generation and assignment of each completed rebalance) a consumer-group
    scenario shows when its member ids are drawn as a real group draws them, the simulator's own run first.

    A real group's member ids are random, and Kafka breaks some ties by them: a classic leader fills its
    subscription ``HashMap`` in the order the ids hash to (``ConsumerCoordinator.onLeaderElected``), so which of
    equally loaded members gives up a partition follows them; a KIP-848 group's ids are random UUIDs, which the
    coordinator's assignors order (a restarted member's new id anywhere among the others), and which of the
    members started together heartbeats first decides who is assigned first (with the assignment interval, the
    first member alone gets every partition, and the uniform assignor keeps its share sticky).  The draws are
    :func:`simulate_draw`'s with seeds 0 to ``draws - 1``.  Each sequence is one a real
    group can show; the set is a sample (of ``draws`` draws), not a proof that no other exists."""
    s = scenario if isinstance(scenario, SimulationInput) else parse_scenario(scenario)
    return distinct_draws(lambda seed: simulate_draw(s, seed), draws,
                          lambda r: [[x.generation, x.assignment] for x in r])


def line_alternatives(sequences: Sequence[Sequence[CompletedRebalance]]) -> List[List[Dict[str, List[str]]]]:
    """For each rebalance of the first sequence, the other assignments the same rebalance has in the sequences of
    as many rebalances (:func:`simulate_alternatives`), each once, in the order found."""
    first = sequences[0]
    out: List[List[Dict[str, List[str]]]] = []
    for i, r in enumerate(first):
        seen = [r.assignment]
        for seq in sequences[1:]:
            if len(seq) == len(first) and seq[i].assignment not in seen:
                seen.append(seq[i].assignment)
        out.append(seen[1:])
    return out


def join_waits(ledger: OwnershipLedger, s: SimulationInput) -> Dict[str, Optional[int]]:
    """For each member whose ``join`` falls in ``[measure_from_ms, until_ms)``: the ms from the join to the
    last time it took up a partition before ``until_ms`` (the share it ended with), ``None`` if it got none.
    ``ledger`` names processes as the simulators do (the member id; ``process_of`` maps restarts back)."""
    waits: Dict[str, Optional[int]] = {}
    for e in s.events:
        if e.op == "join" and s.measure_from_ms <= e.at_ms < s.until_ms:
            times = ledger.acquired_ms(e.member, e.at_ms, s.until_ms)
            waits[e.member] = times[-1] - e.at_ms if times else None
    return waits


# ---------------------------------------------------------------------------------------------
# files


def read_scenarios(path: str) -> Iterator[Line]:
    """The scenarios of a file (``-``: stdin): a whole file that is one JSON object or a JSON array of
    objects (pretty-printed or not), else one JSON object per line.  A scenario's place is its line
    number, or its position (from 1) in the array."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        yield Line(path, 1, error=InputError("file", f"not UTF-8 text (byte {exc.start}: {exc.reason})"))
        return
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        yield from parse_lines(path, text.splitlines())
        return
    if isinstance(whole, list):
        for number, value in enumerate(whole, 1):
            yield Line(path, number, value)
    else:
        yield Line(path, 1, whole)


#: ``kind`` -> (its simulator, its real-cluster driver) as ``module:function``, each function taking the scenario's
#: JSON object and returning its output lines; a scenario without ``kind`` is a consumer group's (this module's
#: and :mod:`rebalance.kafka.consumers`')
KINDS: Dict[str, Tuple[str, str]] = {
    "consumer": ("", ""),
    "connect": ("rebalance.connect.simulate:compute", "rebalance.kafka.connect.simulate:compute"),
    "share": ("rebalance.share.simulate:share_lines", "rebalance.kafka.share_scenarios:run_share_scenario"),
    "streams": ("rebalance.streams.simulate:streams_lines", "rebalance.kafka.streams.simulate:run_streams_scenario"),
}


def kind_compute(value: object, on_kafka: bool = False) -> Optional[Callable[[object], List[JsonRecord]]]:
    """The function that computes a scenario of its ``kind`` (``None``: a consumer group's); an unknown kind is an
    :class:`InputError` naming ``kind``.  The kind's module is imported only when asked (``--on kafka`` starts
    Kafka)."""
    kind = value.get("kind", "consumer") if isinstance(value, Mapping) else "consumer"
    require(kind in KINDS, "kind", f"must be one of {', '.join(KINDS)}, got {kind!r}")
    target = KINDS[kind][1 if on_kafka else 0]
    if not target:
        return None
    import importlib

    module, function = target.split(":")
    return typing.cast(Callable[[object], List[JsonRecord]], getattr(importlib.import_module(module), function))


def simulate_lines(lines: Iterable[Line], write: Callable[[JsonRecord], None], alternatives: int = 0) -> Tuple[int, int]:
    """Simulate each scenario: its rebalance lines and summary line, or one error line naming the bad
    field (the other scenarios still run).  Returns (ok, errors), as :func:`rebalance.vectors.run_lines`.
    A scenario of another ``kind`` goes to that kind's simulator (:func:`kind_compute`).  ``alternatives`` > 0
    (``simulate --alternatives N``): each consumer group's rebalance line also has ``"alternatives"``, the other
    assignments that rebalance gets over that many member-id draws (:func:`simulate_alternatives`; ``[]``: the
    ids decide nothing there)."""

    def compute(value: object) -> List[JsonRecord]:
        other = kind_compute(value)
        if other is not None:
            return other(value)
        s = parse_scenario(value)
        out = simulate_scenario(s)
        rows: List[JsonRecord] = [{"generation": r.generation, "at_ms": r.at_ms, "assignment": r.assignment}
                            for r in out.rebalances]
        if alternatives > 0:
            for row, alt in zip(rows, line_alternatives(simulate_alternatives(s, alternatives))):
                row["alternatives"] = alt
        return rows + [{"summary": out.summary()}]

    return compute_lines(lines, write, compute)
