"""Peer conformance: librdkafka's assignors, run by real consumer groups, against the book's.

librdkafka implements Range, RoundRobin and CooperativeSticky in C (``src/rdkafka_range_assignor.c``,
``src/rdkafka_roundrobin_assignor.c``, ``src/rdkafka_sticky_assignor.c``), independently of Kafka's Java
classes the book mirrors.  :func:`draw_groups` draws random groups (topics, exact partition counts, random
subscriptions, ``client.rack`` over racked brokers) with a fixed seed; :func:`run_peer` runs them as real
groups, many at once on one :class:`~rebalance.live.mock.MockCluster`, through a join, a second member joining
and a member leaving; :func:`replay_round` gives every round a leader ran (the members in the leader's order,
their subscriptions, racks and -- for cooperative-sticky -- the partitions each owned when it rejoined and the
generation it owned them in) to :func:`rebalance.consumer.assign` and compares the two answers partition for
partition.
"""
from __future__ import annotations

import functools
import multiprocessing
import random
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from ..consumer import assign
from ..errors import SimulationError
from ..validation import require
from .config import MemberConfig
from .group import LiveGroup, RoundRecord
from .librdkafka_model import LibrdkafkaCrash, librdkafka_general_assign, librdkafka_range_assign
from .mock import MockCluster

__all__ = ["PeerGroup", "RoundCheck", "PeerReport", "draw_groups", "run_peer", "run_peer_isolated", "replay_round",
           "round_inputs", "book_answer", "model_answer_agrees", "cooperative_adjust",
           "RACKS"]

RACKS = ("a", "b", "c")


@dataclass(frozen=True)
class PeerGroup:
    """One random group: ``topics`` (name -> partition count, replication factor ``rf``), the members that
    start together (``members``: name -> (subscription, rack)), one that joins later (``joiner``) and the
    member that then leaves (``leaver``)."""

    name: str
    assignor: str
    topics: Mapping[str, int]
    rf: int
    members: Mapping[str, Tuple[Tuple[str, ...], Optional[str]]]
    joiner: str
    leaver: str


@dataclass(frozen=True)
class RoundCheck:
    """One leader's assignor run compared with the book's answer for the same input."""

    group: str
    assignor: str
    generation: int
    members: int
    owned: int
    agree: bool
    live: Mapping[str, Tuple[Tuple[str, int], ...]]
    book: Mapping[str, Tuple[Tuple[str, int], ...]]
    #: whether the owned partitions reconstructed from each member's callbacks match the counts the leader logged
    owned_ok: bool = True
    #: whether every member subscribed to the same topics (Kafka's sticky assignors then take the constrained
    #: path, ``AbstractStickyAssignor.ConstrainedAssignmentBuilder``; librdkafka has one general algorithm)
    same_subscriptions: bool = False
    #: rack-aware Range's known librdkafka deviation applies: two topics with the same members and partition
    #: count (co-partitioned) and one of those members without ``client.rack`` while another has one
    #: (``rd_kafka_assign_co_partitioned`` skips rackless members; Kafka's ``racksMatch`` accepts them)
    copartitioned_rackless: bool = False
    #: the round's input and librdkafka's raw output (:func:`round_inputs`), to replay it offline
    inputs: Mapping[str, Any] = field(default_factory=dict)
    #: whether the model of librdkafka's known departures from Kafka (:mod:`rebalance.live.librdkafka_model`)
    #: gives librdkafka's own output for this round (None where there is no model: roundrobin, which equals
    #: Kafka's); "crash" where the model aborts.  For cooperative-sticky the model is the whole of librdkafka's
    #: ``rd_kafka_sticky_assignor_assign_cb``, members subscribing alike or not
    model_agrees: Optional[object] = None

    @property
    def documented(self) -> bool:
        """A disagreement that the model of librdkafka's departures from Kafka reproduces exactly."""
        return not self.agree and self.owned_ok and self.model_agrees is True


@dataclass
class PeerReport:
    """Every round of every group, and the wall-clock time of the run."""

    checks: List[RoundCheck] = field(default_factory=list)
    groups: int = 0
    #: groups that had not settled when a phase's time ran out (name -> phase), e.g. a rebalance loop
    unsettled: Dict[str, str] = field(default_factory=dict)
    #: rounds that could not be replayed (group -> count): the leader's log names a member id none of the
    #: group's members reported (a member that closed during the round and had been given a new id)
    unreplayable: Dict[str, int] = field(default_factory=dict)
    #: groups whose batch process died (name -> exit code: -6 an assertion, -11 a segmentation fault)
    crashed: Dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    def summary(self) -> Dict[str, Dict[str, int]]:
        """Per assignor: groups, rounds, rounds in agreement, rounds with owned partitions (cooperative
        rejoins) and how many of those agree, rounds of groups whose members all subscribe alike and how many
        of those agree, disagreements the model of librdkafka's departures reproduces (``documented``),
        rounds whose input could not be rebuilt (``input_unknown``) and the rest (``unexplained``);
        ``same_subscription_model``: rounds of members subscribing alike where the model gives librdkafka's
        output (the agreeing ones included)."""
        out: Dict[str, Dict[str, int]] = {}
        for c in self.checks:
            row = out.setdefault(c.assignor, {"groups": 0, "rounds": 0, "agree": 0, "rejoin_rounds": 0,
                                              "rejoin_agree": 0, "same_subscription_rounds": 0,
                                              "same_subscription_agree": 0, "same_subscription_model": 0,
                                              "documented": 0, "unexplained": 0, "input_unknown": 0})
            row["documented"] += c.documented
            row["input_unknown"] += not c.owned_ok
            # a disagreement the model of librdkafka's departures does not reproduce
            row["unexplained"] += not c.agree and c.owned_ok and not c.documented
            row["same_subscription_rounds"] += c.same_subscriptions
            row["same_subscription_agree"] += c.same_subscriptions and c.agree
            row["same_subscription_model"] += c.same_subscriptions and c.model_agrees is True
            row["rounds"] += 1
            row["agree"] += c.agree
            row["rejoin_rounds"] += c.owned > 0
            row["rejoin_agree"] += c.owned > 0 and c.agree
        for a in out:
            out[a]["groups"] = len({c.group for c in self.checks if c.assignor == a})
        return dict(sorted(out.items()))

    def disagreements(self) -> List[RoundCheck]:
        """The rounds where librdkafka and the book differ."""
        return [c for c in self.checks if not c.agree]


def draw_groups(n: int, seed: int = 0, *, assignors: Sequence[str] = ("range", "roundrobin", "cooperative-sticky"),
                max_topics: int = 3, max_partitions: int = 12, max_members: int = 4, racks: bool = True,
                cooperative_racks: bool = False) -> List[PeerGroup]:
    """``n`` random groups, the assignors taken in turn; deterministic in ``seed``.  ``racks`` gives members a
    ``client.rack`` (or none) and topics a replication factor of 1 or 2 over the racked brokers; for
    cooperative-sticky only with ``cooperative_racks``: librdkafka's rack-aware sticky assignor loops and
    crashes on such groups (see the chapter "Watch real clients rebalance")."""
    require(isinstance(n, int) and n > 0, "n", "must be a positive whole number")
    require(all(a in ("range", "roundrobin", "cooperative-sticky") for a in assignors), "assignors",
            "must be librdkafka assignors: range, roundrobin, cooperative-sticky")
    rng = random.Random(seed)
    groups = []
    for i in range(n):
        name = f"g{i:03d}"
        topics = {f"{name}-t{k}": rng.randint(1, max_partitions) for k in range(rng.randint(1, max_topics))}
        members: Dict[str, Tuple[Tuple[str, ...], Optional[str]]] = {}
        for m in range(rng.randint(2, max_members) + 1):
            sub = tuple(sorted(rng.sample(sorted(topics), rng.randint(1, len(topics)))))
            rack = rng.choice(RACKS + (None,))
            members[f"c{m + 1}"] = (sub, rack)
        names = sorted(members)
        assignor = assignors[i % len(assignors)]
        rf = rng.randint(1, 2)
        if not racks or (assignor == "cooperative-sticky" and not cooperative_racks):
            members = {m: (sub, None) for m, (sub, _) in members.items()}
        groups.append(PeerGroup(name, assignor, topics, rf, members, joiner=names[-1],
                                leaver=rng.choice(names[:-1])))
    return groups


def round_inputs(group: PeerGroup, cluster: MockCluster, record: RoundRecord) -> Dict[str, Any]:
    """What the leader's assignor had in hand in one live round, as plain JSON-able data: ``assignor``,
    ``partitions`` (topic -> count), ``partition_racks`` (topic -> the racks of each partition's replicas, or
    None without racks) and ``members``, in the order librdkafka passed them to its assignor, each with its
    ``name``, member ``id``, ``topics``, ``rack``, ``owned`` partitions (from its callbacks), the owned count
    librdkafka's leader logged (``owned_logged``), the generation of its previous JoinGroup (``joined``) and of
    its last successful SyncGroup (``synced``, the generation librdkafka's sticky assignor reports)."""
    racks = ({t: [sorted(r) for r in cluster.replica_racks(t)] for t in group.topics} if cluster.racks else None)
    members = []
    for name in record.members:
        topics, rack = group.members[name.split("~")[0]]
        members.append({"name": name, "id": record.member_ids[name], "topics": list(topics), "rack": rack,
                        "owned": [list(tp) for tp in record.owned[name]],
                        "owned_logged": record.owned_counts.get(name, 0),
                        "joined": record.previous_generation.get(name),
                        "synced": record.synced_generation.get(name),
                        "owned_from": "callbacks" if name in record.from_callbacks else "join"})
    return {"group": group.name, "generation": record.generation, "assignor": group.assignor,
            "partitions": dict(group.topics), "partition_racks": racks, "members": members,
            "live": {n: [list(tp) for tp in sorted(record.assignment.get(n, ()))] for n in record.members}}


def book_answer(inputs: Mapping[str, Any], generation: str = "synced") -> Dict[str, Tuple[Tuple[str, int], ...]]:
    """The book's answer (:func:`rebalance.consumer.assign`, Kafka's Java assignors) for one round's
    :func:`round_inputs`, by member name: the leader's member ids in the leader's order, each member's
    subscription and rack, and for cooperative-sticky what it owned and the generation it reports
    (``generation``: ``"synced"``, the generation of its last successful SyncGroup, which is what
    librdkafka sends, or ``"joined"``, that of its previous JoinGroup)."""
    require(generation in ("synced", "joined"), "generation", "must be 'synced' or 'joined'")
    specs: Dict[str, Dict[str, object]] = {}
    for m in inputs["members"]:
        spec: Dict[str, object] = {"topics": list(m["topics"]), "rack": m["rack"]}
        if inputs["assignor"] == "cooperative-sticky":
            spec["owned"] = [tuple(tp) for tp in m["owned"]]
            spec["generation"] = m[generation]
        specs[m["id"]] = spec
    book = assign(inputs["assignor"], dict(inputs["partitions"]), specs,
                  partition_racks=inputs["partition_racks"])
    return {m["name"]: tuple(sorted(book[m["id"]])) for m in inputs["members"]}


def replay_round(group: PeerGroup, cluster: MockCluster, record: RoundRecord) -> RoundCheck:
    """The book's answer for one live round (:func:`book_answer` of :func:`round_inputs`) compared with the
    leader's; for cooperative-sticky the leader's raw output is first adjusted as KIP-429 asks
    (:func:`cooperative_adjust`)."""
    inputs = round_inputs(group, cluster, record)
    book_by_name = book_answer(inputs)
    live = {n: tuple(sorted(record.assignment.get(n, ()))) for n in record.members}
    if group.assignor == "cooperative-sticky":
        live = cooperative_adjust(live, record.owned)
    owned_ok = all(m["owned_logged"] == len(m["owned"]) for m in inputs["members"])
    same = len({group.members[n.split("~")[0]][0] for n in record.members}) == 1
    return RoundCheck(group.name, group.assignor, record.generation, len(record.members),
                      sum(len(v) for v in record.owned.values()), live == book_by_name and owned_ok, live,
                      book_by_name, owned_ok, same, _copartitioned_rackless(group, record), inputs,
                      model_answer_agrees(inputs))


def model_answer_agrees(inputs: Mapping[str, Any]) -> Optional[object]:
    """Whether :mod:`rebalance.live.librdkafka_model` gives librdkafka's raw output of one round
    (:func:`round_inputs`): True or False, ``"crash"`` where the model stops at an assertion, None for
    assignors without a model (roundrobin)."""
    specs: Dict[str, Dict[str, object]] = {}
    for m in inputs["members"]:
        spec: Dict[str, object] = {"topics": list(m["topics"]), "rack": m["rack"]}
        if inputs["assignor"] == "cooperative-sticky":
            spec["owned"] = [tuple(tp) for tp in m["owned"]]
            spec["generation"] = m["synced"]
        specs[m["id"]] = spec
    args = (dict(inputs["partitions"]), specs)
    if inputs["assignor"] == "range":
        model = librdkafka_range_assign(*args, partition_racks=inputs["partition_racks"])
    elif inputs["assignor"] == "cooperative-sticky":
        try:
            model = dict(librdkafka_general_assign(*args, partition_racks=inputs["partition_racks"]).assignment)
        except LibrdkafkaCrash:
            return "crash"
    else:
        return None
    return all(sorted(map(tuple, model[m["id"]])) == sorted(map(tuple, inputs["live"][m["name"]]))
               for m in inputs["members"])


def _copartitioned_rackless(group: PeerGroup, record: RoundRecord) -> bool:
    buckets: Dict[Tuple[Tuple[str, ...], int], int] = {}
    for topic, count in group.topics.items():
        members = tuple(sorted(n for n in record.members if topic in group.members[n.split("~")[0]][0]))
        if members:
            buckets[(members, count)] = buckets.get((members, count), 0) + 1
    for (members, _), topics in buckets.items():
        racks = [group.members[n.split("~")[0]][1] for n in members]
        if topics > 1 and None in racks and any(r is not None for r in racks):
            return True
    return False


def cooperative_adjust(assignment: Mapping[str, Sequence[Tuple[str, int]]],
                       owned: Mapping[str, Sequence[Tuple[str, int]]]) -> Dict[str, Tuple[Tuple[str, int], ...]]:
    """KIP-429's first-round rule, applied to the assignor's raw output: a partition still owned by another
    member is withheld from its new owner until the owner has revoked it.  librdkafka applies it after the
    assignor has run and logged (``rd_kafka_cooperative_protocol_adjust_assignment`` in
    ``src/rdkafka_cgrp.c``); Kafka's Java client inside ``ConsumerCoordinator.onLeaderElected`` via
    ``AbstractPartitionAssignor``'s cooperative adjustment, which :func:`rebalance.consumer.assign` returns."""
    owner = {tp: m for m, tps in owned.items() for tp in tps}
    return {m: tuple(sorted(tp for tp in tps if owner.get(tp, m) == m)) for m, tps in assignment.items()}


def run_peer(groups: Sequence[PeerGroup], *, concurrency: int = 60, timeout_s: float = 30.0,
             cluster: Optional[MockCluster] = None) -> PeerReport:
    """Run ``groups`` as real consumer groups, ``concurrency`` at a time on one mock cluster (three brokers in
    racks :data:`RACKS`, unless ``cluster`` is given): all members but the joiner start, the group settles,
    the joiner joins, it settles, the leaver closes, it settles.  Every round any leader ran is replayed
    through the book (:func:`replay_round`)."""
    require(isinstance(concurrency, int) and concurrency > 0, "concurrency", "must be a positive whole number")
    report = PeerReport(groups=len(groups))
    t0 = time.monotonic()
    for start in range(0, len(groups), concurrency):
        batch = list(groups[start:start + concurrency])
        # a fresh mock cluster per batch unless one is given (the mock keeps every group it has seen)
        mc = cluster if cluster is not None else MockCluster(len(RACKS), racks=list(RACKS))
        try:
            _run_batch(batch, mc, timeout_s, report)
        finally:
            if cluster is None:
                mc.close()
    report.seconds = time.monotonic() - t0
    return report


def _batch_in_child(batch: Sequence[PeerGroup], timeout_s: float, conn: "multiprocessing.connection.Connection"
                    ) -> None:
    report = PeerReport(groups=len(batch))
    mc = MockCluster(len(RACKS), racks=list(RACKS))
    try:
        _run_batch(batch, mc, timeout_s, report)
    finally:
        mc.close()
    conn.send(report)
    conn.close()


def run_peer_isolated(groups: Sequence[PeerGroup], *, concurrency: int = 10, parallel: int = 3,
                      timeout_s: float = 30.0) -> PeerReport:
    """:func:`run_peer` with each batch of ``concurrency`` groups in its own process (``multiprocessing``,
    spawned), ``parallel`` processes at a time: librdkafka's sticky assignor can abort the leader's process on
    some rounds (``rd_assert`` in ``PartitionMovements_movePartition``, ``src/rdkafka_sticky_assignor.c`` line
    404), which would end the whole run; a crashed batch is recorded in :attr:`PeerReport.crashed` and the run
    goes on."""
    require(isinstance(concurrency, int) and concurrency > 0, "concurrency", "must be a positive whole number")
    require(isinstance(parallel, int) and parallel > 0, "parallel", "must be a positive whole number")
    report = PeerReport(groups=len(groups))
    t0 = time.monotonic()
    ctx = multiprocessing.get_context("spawn")
    batches = [list(groups[i:i + concurrency]) for i in range(0, len(groups), concurrency)]
    for start in range(0, len(batches), parallel):
        running = []
        for batch in batches[start:start + parallel]:
            parent, child = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_batch_in_child, args=(batch, timeout_s, child), daemon=True)
            proc.start()
            child.close()
            running.append((batch, parent, proc))
        for batch, parent, proc in running:
            try:
                result: Optional[PeerReport] = parent.recv()
            except EOFError:
                result = None
            proc.join(timeout=60)
            if result is None:
                report.crashed.update({g.name: proc.exitcode if proc.exitcode is not None else -1 for g in batch})
                continue
            report.checks.extend(result.checks)
            report.unsettled.update(result.unsettled)
            report.unreplayable.update(result.unreplayable)
    report.seconds = time.monotonic() - t0
    return report


def _run_batch(batch: Sequence[PeerGroup], mc: MockCluster, timeout_s: float, report: PeerReport) -> None:
    for g in batch:
        for t, n in g.topics.items():
            mc.create_topic(t, n, min(g.rf, mc.brokers))
    live = [LiveGroup(mc, g.name) for g in batch]
    try:
        for g, lg in zip(batch, live):
            for name, (topics, rack) in g.members.items():
                if name != g.joiner:
                    lg.join(name, MemberConfig(topics=topics, strategy=(g.assignor,), rack=rack))
        _settle_all(live, timeout_s, report, "start")
        for g, lg in zip(batch, live):
            topics, rack = g.members[g.joiner]
            lg.join(g.joiner, MemberConfig(topics=topics, strategy=(g.assignor,), rack=rack))
        _settle_all(live, timeout_s, report, "join")
        _all_at_once([functools.partial(lg.leave, g.leaver) for g, lg in zip(batch, live)])
        _settle_all(live, timeout_s, report, "leave")
    finally:
        _all_at_once([lg.close for lg in live])
    for g, lg in zip(batch, live):
        for record in lg.rounds():
            if all(n.split("~")[0] in g.members for n in record.members):
                report.checks.append(replay_round(g, mc, record))
            else:  # a member id of the leader's log that no member of ours reported: no input to replay
                report.unreplayable[g.name] = report.unreplayable.get(g.name, 0) + 1


def _all_at_once(actions: Sequence[Callable[[], None]], workers: int = 32) -> None:
    """Run ``actions`` on a pool of threads (a consumer's ``close`` waits on the network); errors re-raised."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for future in [pool.submit(a) for a in actions]:
            future.result()


def _settle_all(groups: Sequence[LiveGroup], timeout_s: float, report: PeerReport, phase: str) -> None:
    """Wait for every group of the batch (one deadline for all); a group still rebalancing at the deadline
    is recorded in ``report.unsettled`` and the run goes on."""
    deadline = time.monotonic() + timeout_s
    for lg in groups:
        try:
            lg.wait_settled(timeout_s=max(0.1, deadline - time.monotonic()), quiet_ms=1200)
        except SimulationError:
            report.unsettled.setdefault(lg.group_id, phase)
