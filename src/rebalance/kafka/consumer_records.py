"""What the records of ``simulate --on kafka`` say (:mod:`rebalance.kafka.consumers` plays the scenario).

A run's records (:class:`ConsumerRun`: every :class:`~rebalance.kafka.jsonlines.ConsumerRecord` of each member
process, in its JVM's order) are read into:

* :func:`classic_rebalances` -- a classic group's completed rebalances: each leader's ``onPartitionsAssigned``
  that follows its ``RecordingAssignor`` record, and whether :func:`rebalance.consumer.assign` given exactly the
  recorded subscriptions (member ids, topics, owned partitions, generations, instance ids, user data, in the
  leader's map order) returns the recorded assignment;
* :func:`kip848_rebalances` -- a KIP-848 group's completed rebalances, from the observer's
  ``describeConsumerGroups`` records, and whether :func:`rebalance.kip848.assign_group` returns the broker's
  target assignment (see :mod:`rebalance.kafka.consumers`);
* :func:`ownership` -- who processed which partition when, from the listener's callbacks;
* :func:`summary` -- what the records measure over the scenario's window;
* :func:`stop_measures` -- what the rebalances cost the application (stopped member-seconds, rebuild cost,
  join waits), measured as the simulators measure it.

``replayed`` is ``False`` only when the book's assignor, given the inputs Kafka's had, returns another
assignment; an exception inside the book's code is not a disagreement and propagates as what it is.
"""
from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Mapping, Optional, Set, Tuple, TypedDict

from ..common import TopicPartition
from ..errors import LiveClientError
from ..protocol.driver import CompletedRebalance, format_assignment
from ..protocol.ledger import OwnershipLedger, StopMeasures
from ..simulate import SimulationInput, moved_partitions
from ..jcollections import TimelineHashOrder
from .jsonlines import ConsumerGroupMember, ConsumerRecord

__all__ = ["ConsumerRun", "GroupType", "RunSummary", "group_types", "classic_rebalances", "kip848_rebalances", "ownership", "stop_measures",
           "summary", "topic_partitions"]

#: ``{member id: {topic: [partitions]}}``, a KIP-848 target assignment by topic name
Targets = Dict[str, Dict[str, List[int]]]


@dataclass
class ConsumerRun:
    """Every record of one scenario's run by member process (an index in the run: a JVM's records that name
    one member, or none), in its JVM's order; which member each process ran; and the wall clock of its ``t`` =
    0."""

    records: Dict[int, List[ConsumerRecord]] = field(default_factory=dict)
    process_member: Dict[int, str] = field(default_factory=dict)
    #: the wall clock (ms since the epoch, ``time.time()``) of the records' ``t`` = 0; 0 when not known
    t0: int = 0


def topic_partitions(texts: Iterable[str]) -> List[TopicPartition]:
    """``"topic-p"`` strings as ``(topic, p)``."""
    out = []
    for text in texts:
        topic, _, p = text.rpartition("-")
        out.append((topic, int(p)))
    return out


def _names(run: ConsumerRun, s: SimulationInput) -> Dict[str, str]:
    """Kafka member id -> scenario member id, from each member's own records of ``groupMetadata().memberId()``:
    its ``member_id`` records (written once the client has an id, before any callback) and its callbacks."""
    names: Dict[str, str] = {}
    ids = {m.id for m in s.members}
    for recs in run.records.values():
        for r in recs:
            if r.get("member_id") and r.get("member") in ids:
                names[r["member_id"]] = r["member"]
    return names


def _name_of(member_id: str, names: Mapping[str, str], s: SimulationInput, instance_id: Optional[str] = None) -> str:
    if member_id in names:
        return names[member_id]
    for m in s.members:
        if instance_id is not None and m.instance_id == instance_id:
            return m.id
    prefix = member_id[:-37] if len(member_id) > 37 and member_id[-37] == "-" else member_id
    return next((m.id for m in s.members if m.id == prefix or m.instance_id == prefix), member_id)


def classic_rebalances(run: ConsumerRun, s: SimulationInput) -> List[Tuple[CompletedRebalance, bool]]:
    """The completed rebalances of a classic group: each leader's ``onPartitionsAssigned`` that follows its
    assignor's record, with whether :func:`rebalance.consumer.assign` replays the recorded assignment (an
    exception of the book's assignor propagates: it is a bug to surface, not a disagreement)."""
    from ..consumer import assign
    from ..consumer.model import Subscription

    names = _names(run, s)
    found: Dict[int, Tuple[CompletedRebalance, bool]] = {}
    for recs in run.records.values():
        last: Optional[ConsumerRecord] = None
        for r in recs:
            if r["event"] == "assignor":
                last = r
            elif r["event"] == "assigned" and last is not None:
                gen = int(r.get("generation", -1))
                subs = {}
                for sub in last["subscriptions"]:
                    ud = sub["user_data"]
                    subs[sub["member_id"]] = Subscription(
                        list(sub["topics"]), topic_partitions(sub["owned"]), sub["generation"], sub["instance_id"],
                        sub["rack"], base64.b64decode(ud) if ud is not None else None)
                recorded = {m: sorted(topic_partitions(p)) for m, p in last["assignment"].items()}
                replay = assign(last["name"], last["partitions_per_topic"], subs)
                replayed = {m: sorted(p) for m, p in replay.items()} == recorded
                instances = {sub["member_id"]: sub["instance_id"] for sub in last["subscriptions"]}
                assignment = format_assignment({_name_of(m, names, s, instances.get(m)): tps
                                                for m, tps in recorded.items()})
                if gen not in found:
                    found[gen] = (CompletedRebalance(gen, int(r["t"]), assignment), replayed)
                last = None
    return [found[g] for g in sorted(found, key=lambda g: found[g][0].at_ms)]


def _target_by_name(members: List[ConsumerGroupMember]) -> Targets:
    out: Targets = {}
    for m in members:
        by_topic: Dict[str, List[int]] = {}
        for t, p in topic_partitions(m.get("target", [])):
            by_topic.setdefault(t, []).append(p)
        out[m["member_id"]] = {t: sorted(p) for t, p in by_topic.items() if p}
    return out


def _replay_848(s: SimulationInput, topics: List[Dict[str, object]], members: List[ConsumerGroupMember],
                prev: Targets, subs: Mapping[str, List[str]]) -> Targets:
    from ..kip848 import assign_group

    specs = [{"id": m["member_id"], "subscriptions": list(subs[m["member_id"]]),
              "assignment": prev.get(m["member_id"], {}), "instance_id": m["instance_id"]} for m in members]
    # a migrated group's KIP-848 epochs: the broker's default assignor (its members name no group.remote.assignor)
    name = s.assignors[0] if s.protocol == "consumer" else "uniform"
    result = assign_group(name, topics, specs, members_map="hash").by_name()
    return {m: {t: p for t, p in a.items() if p} for m, a in result.items()}


def kip848_rebalances(run: ConsumerRun, s: SimulationInput) -> List[Tuple[CompletedRebalance, bool]]:
    """The completed rebalances of a KIP-848 group, from the observer's descriptions (see
    :mod:`rebalance.kafka.consumers`): an epoch completes at the first description where every member's epoch is
    the group epoch, the target assignment is of that epoch and every member owns its target."""
    recs = [r for rs in run.records.values() for r in rs if r["event"] in ("group", "topic_ids")]
    ids: Dict[str, str] = next((r["ids"] for r in recs if r["event"] == "topic_ids"), {})
    topics: List[Dict[str, object]] = [{"name": t, "id": ids[t], "partitions": n}
                                       for t, n in sorted(s.topics.items()) if t in ids]
    by_member = {m.id: m for m in s.members}
    snaps = [r for r in recs if r["event"] == "group"]
    targets: Dict[int, List[ConsumerGroupMember]] = {}
    for r in snaps:
        if r["target_epoch"] > 0 and r["target_epoch"] not in targets:
            targets[r["target_epoch"]] = r["members"]
        elif r.get("type") == "Classic" and r["members"] and not any(k > 0 for k in targets):
            # a group being upgraded: the broker converts the classic group's assignment into the first target
            # (ConsumerGroup.fromClassicGroup), so the last classic description is the target before any epoch
            targets[0] = [{**m, "target": m["assignment"]} for m in r["members"]]
    # the coordinator's TimelineHashMap of members, as the descriptions show them come and go: the order
    # TargetAssignmentBuilder fills its member HashMap in, which decides where two member ids share a bucket
    timeline: TimelineHashOrder[str] = TimelineHashOrder()
    orders: Dict[int, List[str]] = {}
    for r in snaps:
        if r["group_epoch"] > 0 and r["group_epoch"] not in orders:
            timeline.follow([m["member_id"] for m in r["members"]])
            orders[r["group_epoch"]] = timeline.keys()
    out: List[Tuple[CompletedRebalance, bool]] = []
    done: Set[int] = set()
    for r in snaps:
        e = r["group_epoch"]
        ms = r["members"]
        if e <= 0 or e in done or r["target_epoch"] != e or not ms:
            continue
        if not all(m["member_epoch"] == e and m.get("target") is not None and m["assignment"] == m.get("target")
                   for m in ms):
            continue
        done.add(e)
        if not topics:
            raise LiveClientError("--on kafka: the observer completed an epoch but never recorded the topics' ids "
                                  "(its topic_ids record is missing), so the broker's target cannot be replayed")
        assignment = format_assignment({m["client_id"] if m["client_id"] in by_member
                                        else _name_of(m["member_id"], {}, s, m["instance_id"]):
                                        topic_partitions(m["assignment"]) for m in ms})
        out.append((CompletedRebalance(e, int(r["t"]), assignment), _replayed_848(s, topics, targets, e, orders.get(e))))
    return out


def _replayed_848(s: SimulationInput, topics: List[Dict[str, object]], targets: Dict[int, List[ConsumerGroupMember]],
                  epoch: int, order: Optional[List[str]] = None) -> bool:
    """Whether the book's assignor gives the broker's target of ``epoch``: the members in the coordinator's
    ``TimelineHashMap`` ``order`` (see :func:`kip848_rebalances`), else in the description's."""
    described = targets[epoch]
    if order is not None and set(order) == {m["member_id"] for m in described}:
        rank = {m: k for k, m in enumerate(order)}
        timeline_order = sorted(described, key=lambda m: rank[m["member_id"]])
        if timeline_order != described and _replayed_848_in(s, topics, targets, epoch, timeline_order):
            return True
    return _replayed_848_in(s, topics, targets, epoch, described)


def _replayed_848_in(s: SimulationInput, topics: List[Dict[str, object]],
                     targets: Dict[int, List[ConsumerGroupMember]], epoch: int, now: List[ConsumerGroupMember]) -> bool:
    by_member = {m.id: m for m in s.members}
    subs = {m["member_id"]: list(by_member[m["client_id"]].topics) if m["client_id"] in by_member else sorted(s.topics)
            for es in targets.values() for m in es}
    want = _target_by_name(now)
    seen = [k for k in targets if k < epoch]
    prev_members = targets.get(max(seen), []) if seen else []
    prev = _target_by_name(prev_members)
    # the broker computes a target only when a member heartbeats after a group-epoch bump, so the target of an
    # epoch often comes straight from an older one: first from the last target observed before it
    if _replay_848(s, topics, now, prev, subs) == want:
        return True
    # else from targets the polls missed: the members that joined in between came in some order, some of them
    # together (with the assignment interval, one target for all who joined within it): every ordered grouping
    before = {m["member_id"] for m in prev_members}
    after = {m["member_id"]: m for m in now}
    added = [m for m in after if m not in before]
    if not before <= set(after) or len(added) < 2 or len(added) > 5:
        return False
    for groups in _ordered_groupings(added):
        members = [after[m] for m in after if m in before]
        target = prev
        for group in groups:
            members = members + [after[m] for m in group]
            target = _replay_848(s, topics, members, target, subs)
        if target == want:
            return True
    return False


def _ordered_groupings(items: List[str]) -> Iterable[List[List[str]]]:
    """Every split of ``items`` into non-empty groups, in every order of the groups (each group keeps ``items``'
    order): the ways a few members can join between two observed targets."""
    if not items:
        yield []
        return
    n = len(items)
    for mask in range(1, 2 ** n):  # the first group: any non-empty subset
        first = [items[k] for k in range(n) if mask >> k & 1]
        rest = [items[k] for k in range(n) if not mask >> k & 1]
        for tail in _ordered_groupings(rest):
            yield [first] + tail


def ownership(s: SimulationInput, run: ConsumerRun) -> OwnershipLedger:
    """Who processed which partition when, from the listener's callbacks: each member process (one member's
    consumer in one JVM) owns a partition from the ``onPartitionsAssigned`` that gave it to the
    ``onPartitionsRevoked``/``Lost`` that took it, or to the process's kill (``crash``).  The same ledger as the
    simulators' (eager callbacks carry the whole assignment, cooperative and KIP-848 ones the change: adding and
    removing covers both)."""
    partitions: List[TopicPartition] = [(t, p) for t in sorted({t for m in s.members for t in m.topics})
                  for p in range(s.topics[t])]
    ledger = OwnershipLedger(partitions)
    events = sorted(((r["t"], k, idx, r) for idx, recs in run.records.items() for k, r in enumerate(recs)
                     if r["event"] in ("assigned", "revoked", "lost", "killed")),
                    key=lambda x: (x[0], x[2], x[1]))
    owned: Dict[int, Set[TopicPartition]] = {}
    for t, _, idx, r in events:
        who = f"jvm{idx}"
        mine = owned.setdefault(idx, set())
        if r["event"] == "assigned":
            got = topic_partitions(r.get("partitions", []))
            ledger.acquire(who, got, t)
            mine.update(got)
        else:
            gone = sorted(mine) if r["event"] == "killed" else topic_partitions(r.get("partitions", []))
            ledger.release(who, gone, t, "crash" if r["event"] == "killed" else r["event"])
            mine.difference_update(gone)
    return ledger


class _RunFigures(TypedDict):
    """The figures every summary line of a run on Kafka carries."""

    rebalances: int
    moved_partitions: int
    unowned_partition_seconds: float
    ownership_overlaps: int
    revocations: int
    partitions_stopped: int
    lost: int
    generation: int
    errors: List[str]


class GroupType(TypedDict):
    """From ``at_ms`` on, the observer described the group as of this ``type`` (``Classic`` or ``Consumer``)."""

    at_ms: int
    type: str


class RunSummary(_RunFigures, total=False):
    """The summary line of a run on Kafka (:func:`summary`); ``processing_stopped_member_seconds`` to
    ``join_waits_ms`` only for a scenario that sets ``rebuild_ms_per_partition``, as in ``simulate``'s;
    ``group_types`` only for a scenario whose members differ in ``group_protocol`` (a migration)."""

    processing_stopped_member_seconds: float
    members_stopped: int
    rebuild_cost: float
    join_waits_ms: Dict[str, Optional[int]]
    group_types: List[GroupType]


def group_types(run: ConsumerRun) -> List[GroupType]:
    """The group's type over time, from the observer's ``describeConsumerGroups`` records: one entry at the first
    description and at every one whose type differs from the one before (``ConsumerGroupDescription.type()``:
    ``Classic`` or ``Consumer``; an empty or dead group's description is skipped)."""
    out: List[GroupType] = []
    snaps = sorted((r for rs in run.records.values() for r in rs if r["event"] == "group"), key=lambda r: r["t"])
    for r in snaps:
        if r["state"] in ("Empty", "Dead", "EMPTY", "DEAD") or not r["members"]:
            continue
        if not out or out[-1]["type"] != r["type"]:
            out.append({"at_ms": int(r["t"]), "type": r["type"]})
    return out


def summary(s: SimulationInput, rebalances: List[CompletedRebalance], run: ConsumerRun) -> RunSummary:
    """What the records measure over ``[measure_from_ms, until_ms)``: completed rebalances, moved partitions,
    ``unowned_partition_seconds`` (subscribed partitions no process owned, from :func:`ownership`),
    ``ownership_overlaps`` (instants at which a partition got a second owner while a live process still held
    it: the simulator's ``double_ownership`` plus ``zombie_overlap``, which clients cannot tell apart),
    revocations (callbacks that gave up partitions) and the partitions they stopped, lost callbacks, and the
    last generation (classic) or group epoch (KIP-848); ``errors``: the messages of the clients' error records.
    ``simulate``'s ``messages``, ``rebalances_started`` and ``settled`` are the broker's and are not measured
    here.  A scenario that sets ``rebuild_ms_per_partition`` also gets :func:`stop_measures`' figures, as
    ``simulate`` gives them."""
    since = s.measure_from_ms
    ledger = ownership(s, run)
    cb = [r for rs in run.records.values() for r in rs
          if r["event"] in ("revoked", "lost") and since <= r["t"] < s.until_ms]
    revocations = [r for r in cb if r["event"] == "revoked" and r["partitions"]]
    out: RunSummary = {"rebalances": sum(1 for r in rebalances if r.at_ms >= since),
                       "moved_partitions": moved_partitions(rebalances, since),
                       "unowned_partition_seconds": round(ledger.unowned_ms(since, s.until_ms) / 1000.0, 3),
                       "ownership_overlaps": sum(1 for t, _, _ in ledger.violations if since <= t < s.until_ms),
                       "revocations": len(revocations),
                       "partitions_stopped": sum(len(r["partitions"]) for r in cb),
                       "lost": sum(1 for r in cb if r["event"] == "lost" and r["partitions"]),
                       "generation": rebalances[-1].generation if rebalances else 0,
                       "errors": [r.get("message", "") for rs in run.records.values() for r in rs
                                  if r["event"] == "error"]}
    if s.rebuild_ms_per_partition is not None:
        stops, waits = stop_measures(s, run, ledger)
        out["processing_stopped_member_seconds"] = stops.processing_stopped_member_seconds
        out["members_stopped"] = stops.members_stopped
        out["rebuild_cost"] = stops.rebuild_cost
        out["join_waits_ms"] = waits
    if s.mixed:
        out["group_types"] = group_types(run)
    return out


def stop_measures(s: SimulationInput, run: ConsumerRun, ledger: Optional[OwnershipLedger] = None
                  ) -> Tuple[StopMeasures, Dict[str, Optional[int]]]:
    """What the rebalances cost the application, from the listener's callbacks, as the simulators measure it:
    :class:`~rebalance.protocol.ledger.StopMeasures` over ``[measure_from_ms, until_ms)`` (a member process is
    stopped from the callback that took its last partition to the ``onPartitionsAssigned`` that gives it one
    again; a restarted member's next consumer, in a JVM of its own, is a new process) charged the scenario's
    ``rebuild_ms_per_partition`` (0 if it sets none), and the join waits of :func:`rebalance.simulate.join_waits`
    by scenario member id."""
    ledger = ownership(s, run) if ledger is None else ledger
    stops = ledger.stop_measures(s.measure_from_ms, s.until_ms, s.rebuild_ms_per_partition or 0)
    by_member: Dict[str, List[str]] = {}
    for idx, name in run.process_member.items():
        by_member.setdefault(name, []).append(f"jvm{idx}")
    waits: Dict[str, Optional[int]] = {}
    for e in s.events:
        if e.op == "join" and s.measure_from_ms <= e.at_ms < s.until_ms:
            times = sorted(t for jvm in by_member.get(e.member, [])
                           for t in ledger.acquired_ms(jvm, e.at_ms, s.until_ms))
            waits[e.member] = times[-1] - e.at_ms if times else None
    return stops, waits
