"""``simulate --on kafka`` for ``"kind": "share"``: a share-group scenario with real ``KafkaShareConsumer``s.

The scenario (:mod:`rebalance.share.simulate`) is played on a one-broker
:class:`~rebalance.kafka.cluster.KafkaCluster` of its own, on the wall clock (1:1), by the book's
``org.rebalance.share.ShareMembers`` (:data:`~rebalance.kafka.share.SHARE_MAIN_CLASS`): one JVM per member process
(every one started before the clock starts) and one admin JVM.  ``join`` starts the member's share consumer
(``client.id`` = the member id, explicit acknowledgement, ``share.acquire.mode=record_limit`` so that a poll holds at
most ``max.poll.records`` records, as the model's); each record is acknowledged ``ACCEPT`` after
``record.processing.ms`` and each poll's batch committed (``commitSync``); ``leave`` makes it finish its batch and
``close()``; ``crash`` kills its JVM (SIGKILL: no leave heartbeat, its acquired records stay locked until their
acquisition locks expire); ``restart`` is a ``leave`` then, once closed and ``down_ms`` later, a new consumer in a
fresh JVM; ``produce`` writes ``count`` records to each partition of the topic (or to ``partition``), and the
scenario's ``records`` are produced before the clock starts (``share.auto.offset.reset=earliest``).  The ``config``
settings are the broker's (``group.share.*``, their minimums lowered to match) and the consumers'
(``max.poll.records``).

Between events the admin JVM describes the group (``describeShareGroups``) over and over; an assignment change is
completed at the first description where the target epoch is the group epoch and every member's epoch is the group
epoch, as in the model.  ``replayed``: :func:`rebalance.share.assign_share_group` (``SimpleAssignor``) returns the
broker's assignment for the described members (real member ids, topic ids, subscriptions), each starting from its
assignment in the last completed description, with the described partitions as the initialized ones (the
coordinator's ``topicPartitionAllowedMap``: the broker does not show it; ``SimpleAssignor`` assigns every allowed
partition of a subscribed topic, so the assigned ones are the allowed ones).

The summary has the model's fields, from the members' ``delivered`` and ``committed`` records (what each poll's
``commitSync()`` returned, written at once: the acknowledgement callback runs only at a later poll, which a killed
member never reaches): a record's delivery
count is the highest ``ConsumerRecord.deliveryCount()`` seen, its state ``ACKNOWLEDGED`` after an acknowledgement
that succeeded, else ``ARCHIVED`` at the delivery limit, ``ACQUIRED`` while its last lock has not expired by
``until_ms``, ``AVAILABLE`` otherwise; ``lock_expired`` counts the deliveries never acknowledged whose lock ran out
by ``until_ms``.
"""
from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from ..common import JsonRecord
from ..jcollections import TimelineHashOrder
from ..share.simulate import ShareScenario, parse_share_scenario
from ..validation import require
from .jsonlines import ShareRecord, ShareStart
from .jsonlines_jvm import JsonLinesJvm, pause
from .share import SHARE_HEAP, SHARE_MAIN_CLASS

__all__ = ["run_share_scenario", "share_broker_config", "replays", "MAX_SHARE_WALL_MS"]

#: the longest share scenario (``until_ms``) a run on the wall clock accepts
MAX_SHARE_WALL_MS = 300_000
#: the broker's own minimums of the settings a scenario may lower (``GroupCoordinatorConfig``/``ShareGroupConfig``)
_MINIMUMS = {"group.share.heartbeat.interval.ms": ("group.share.min.heartbeat.interval.ms", 5000),
             "group.share.session.timeout.ms": ("group.share.min.session.timeout.ms", 45000),
             "group.share.record.lock.duration.ms": ("group.share.min.record.lock.duration.ms", 15000)}
_MAXIMUMS = {"group.share.heartbeat.interval.ms": ("group.share.max.heartbeat.interval.ms", 15000),
             "group.share.session.timeout.ms": ("group.share.max.session.timeout.ms", 60000),
             "group.share.record.lock.duration.ms": ("group.share.max.record.lock.duration.ms", 60000)}
_TOPIC = re.compile(r"^[a-zA-Z0-9._-]{1,249}$")
_START_S = 60.0


def share_broker_config(s: ShareScenario) -> Dict[str, int]:
    """The broker settings of a scenario: its ``group.share.*`` values, with the broker's minimums (maximums)
    lowered (raised) to let them, and one partition for each internal topic."""
    out: Dict[str, int] = {"offsets.topic.num.partitions": 1, "share.coordinator.state.topic.num.partitions": 1}
    for key, v in s.config.items():
        if not key.startswith("group.share."):
            continue
        out[key] = v
        if key in _MINIMUMS:
            name, default = _MINIMUMS[key]
            out[name] = min(v, default)
            name, default = _MAXIMUMS[key]
            out[name] = max(v, default)
    return out


class _SharePlayer:
    """The JVMs of one scenario: ``incarnations[member]``, one per process of the member, and the admin JVM."""

    def __init__(self, s: ShareScenario, bootstrap: str):
        self.s = s
        self.bootstrap = bootstrap
        self.folder = Path(tempfile.mkdtemp(prefix="rebalance-share-scenario-"))
        self.jvms: List[JsonLinesJvm[ShareRecord]] = []
        self.descriptions: List[Tuple[int, ShareRecord]] = []
        self.kills: List[Tuple[str, int, int]] = []  # (member, jvm index, t)
        self.jvm_member: Dict[int, str] = {}
        self.topic_ids: Dict[str, str] = {}
        self.t0 = 0

    def _new_jvm(self, what: str) -> JsonLinesJvm[ShareRecord]:
        j: JsonLinesJvm[ShareRecord] = JsonLinesJvm(f"share{len(self.jvms)}", SHARE_MAIN_CLASS, self.folder, what,
                                                    heap=SHARE_HEAP, companions=self.jvms)
        self.jvms.append(j)  # held before it is spawned: stop() reaches it even if the spawn is interrupted
        j.spawn()
        return j

    def _now(self) -> int:
        return int(time.time() * 1000) - self.t0

    def _observe_until(self, admin: JsonLinesJvm[ShareRecord], group: str, at_ms: int) -> None:
        """Describe the group over and over until the scenario's clock reads ``at_ms``."""
        while self._now() < at_ms:
            since = admin.ask({"op": "describe", "bootstrap": self.bootstrap, "group": group})
            try:
                g = admin.await_record(lambda r: r["event"] == "group" or (r["event"] == "error" and r.get("op") == "describe"),
                                       30, "group description", since)
            finally:
                t = self._now()
            if g["event"] == "group":
                self.descriptions.append((t, g))
            pause(self.jvms, min(0.05, max(0.0, (at_ms - self._now()) / 1000)))

    def play(self) -> None:
        s = self.s
        group = f"share-{uuid.uuid4().hex[:8]}"
        incarnations = {m.id: [self._new_jvm(f"share member JVM of {m.id}")] for m in s.members}
        for e in s.events:
            if e.op == "restart" and e.member is not None:
                incarnations[e.member].append(self._new_jvm(f"share member JVM of {e.member} (restarted)"))
        admin = self._new_jvm("the share admin JVM (ShareMembers)")
        for j in self.jvms:
            j.await_ready(_START_S)
        created = admin.request({"op": "create_topics", "bootstrap": self.bootstrap, "topics": dict(s.topics),
                                 "group": group, "group_config": {"share.auto.offset.reset": "earliest"}},
                                "topics_created", _START_S)
        self.topic_ids = dict(created["topic_ids"])
        warming = [(j, j.ask({"op": "warm", "bootstrap": self.bootstrap})) for j in self.jvms]
        for j, since in warming:
            j.answer({"op": "warm"}, "warmed", _START_S, since)
        # the group's coordinator found before the clock starts (its first FindCoordinator creates
        # __consumer_offsets, which the first member would otherwise wait for); the group does not exist yet
        since = admin.ask({"op": "describe", "bootstrap": self.bootstrap, "group": group})
        admin.await_record(lambda r: r["event"] in ("group", "error"), _START_S, "a first description", since)

        def produce(topic: str, partition: Optional[int], count: int) -> None:
            for p in range(s.topics[topic]) if partition is None else [partition]:
                admin.request({"op": "produce", "bootstrap": self.bootstrap, "topic": topic, "partition": p,
                               "count": count}, "produced", _START_S)

        for topic, count in s.records.items():
            if count:
                produce(topic, None, count)
        props = {"bootstrap.servers": self.bootstrap, "group.id": group,
                 "max.poll.records": str(s.config["max.poll.records"]), "share.acquire.mode": "record_limit"}
        current: Dict[str, Optional[JsonLinesJvm[ShareRecord]]] = {m.id: None for m in s.members}
        used = {m.id: 0 for m in s.members}
        self.t0 = int(time.time() * 1000)

        def start(name: str) -> None:
            j = incarnations[name][used[name]]
            used[name] += 1
            m = next(x for x in s.members if x.id == name)
            command: ShareStart = {"op": "start", "member": name, "t0": self.t0, "topics": list(m.topics),
                                   "props": dict(props), "processing_ms": s.config["record.processing.ms"]}
            j.send(command)
            self.jvm_member[self.jvms.index(j)] = name
            current[name] = j

        def leave(name: str, wait: bool) -> None:
            j = current[name]
            if j is None:
                return
            current[name] = None
            j.leave(name, _START_S if wait else None)

        joins = {e.member for e in s.events if e.op == "join"}
        for m in s.members:
            if m.id not in joins:
                start(m.id)
        for e in s.events:
            self._observe_until(admin, group, e.at_ms)
            if e.op == "produce":
                produce(e.topic or "", e.partition, e.count)
            elif e.op == "join":
                start(e.member or "")
            elif e.op == "leave":
                leave(e.member or "", wait=False)
            elif e.op == "crash":
                victim = current[e.member or ""]
                if victim is not None:
                    victim.kill()
                    self.kills.append((e.member or "", self.jvms.index(victim), self._now()))
                    current[e.member or ""] = None
            else:
                leave(e.member or "", wait=True)
                if e.down_ms:
                    self._observe_until(admin, group, self._now() + e.down_ms)
                start(e.member or "")
        self._observe_until(admin, group, s.until_ms)

    def stop(self) -> None:
        for j in self.jvms:
            j.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


def _by_id(g: ShareRecord) -> Dict[str, Dict[str, List[int]]]:
    """A description's assignment by member id: ``{member id: {topic: [partitions]}}``."""
    out: Dict[str, Dict[str, List[int]]] = {}
    for m in g["members"]:
        got: Dict[str, List[int]] = {}
        for text in m["assignment"]:
            topic, _, p = text.rpartition("-")
            got.setdefault(topic, []).append(int(p))
        out[m["member_id"]] = {tp: sorted(ps) for tp, ps in sorted(got.items())}
    return out


def replays(s: ShareScenario, topic_ids: Dict[str, str], g: ShareRecord,
            previous: Dict[str, Dict[str, List[int]]], order: Optional[Sequence[str]] = None) -> bool:
    """Whether ``SimpleAssignor`` (:func:`rebalance.share.assign_share_group`) returns the assignment of the
    description ``g`` for its members (real member ids, subscriptions, topic ids), each starting from its
    assignment in ``previous``, with the described partitions as the initialized ones.  ``order``: the member ids
    in the order the coordinator put them into ``TargetAssignmentBuilder``'s member ``HashMap`` (which decides
    the order of two ids in one of its buckets); by default the description's."""
    from ..share.group import assign_share_group

    by_id = _by_id(g)
    subs = {m.id: list(m.topics) for m in s.members}
    allowed: Dict[str, Set[int]] = {}
    for a in by_id.values():
        for tp, ps in a.items():
            allowed.setdefault(tp, set()).update(ps)
    assignable: Dict[str, object] = {tp: sorted(ps) for tp, ps in allowed.items()}
    topics = [{"name": name, "id": topic_ids[name], "partitions": n} for name, n in s.topics.items()]
    rank = {mid: i for i, mid in enumerate(order or ())}
    members = sorted(g["members"], key=lambda m: rank.get(m["member_id"], len(rank)))
    spec = [{"id": m["member_id"], "subscriptions": subs.get(m["client_id"], []),
             "assignment": previous.get(m["member_id"], {})} for m in members]
    result = assign_share_group(topics, spec, assignable=assignable).by_name()
    return all({tp: ps for tp, ps in result.get(mid, {}).items() if ps} == a for mid, a in by_id.items())


def _changes(s: ShareScenario, player: _SharePlayer) -> List[JsonRecord]:
    """The completed assignment changes among the descriptions, each with ``replayed``: from each member's
    assignment in the last description before the group epoch reached the change's (the coordinator's current
    assignment when it computed the target), else from the last completed change's."""
    rows: List[JsonRecord] = []
    last_epoch = -1
    last_named: Dict[str, List[str]] = {}
    last_completed: Dict[str, Dict[str, List[int]]] = {}
    latest: Dict[str, Dict[str, List[int]]] = {}
    before: Dict[int, Dict[str, Dict[str, List[int]]]] = {}  # group epoch -> assignments just before it
    # the coordinator's TimelineHashMap of members, as the descriptions show them come and go; the orders it can
    # fill TargetAssignmentBuilder's member map in: its own, or (a target computed in a newcomer's own heartbeat,
    # before the newcomer is in the map) the members before the epoch in it, then the newcomers; and, as before
    # the emulation, the description's order (members that joined between two descriptions came in some order)
    timeline: TimelineHashOrder[str] = TimelineHashOrder()
    orders: Dict[int, List[List[str]]] = {}
    for t, g in player.descriptions:
        members = g["members"]
        epoch = g["group_epoch"]
        before.setdefault(epoch, dict(latest))
        ids = [m["member_id"] for m in members]
        if epoch not in orders:
            kept = timeline.follow(ids)
            new = [i for i in ids if i not in kept]
            orders[epoch] = [timeline.keys(), kept + new, [m["member_id"] for m in members]]
        latest = _by_id(g)
        if epoch <= last_epoch or not members or g["target_epoch"] != epoch \
                or any(m["member_epoch"] != epoch for m in members):
            continue
        named = {m["client_id"]: sorted(f"{tp}-{p}" for tp, ps in latest[m["member_id"]].items() for p in ps)
                 for m in sorted(members, key=lambda m: m["client_id"])}
        replayed = any(replays(s, player.topic_ids, g, prev, order) for prev in (before[epoch], last_completed)
                       for order in orders[epoch])
        moved = sum(1 for mid, tps in last_named.items() if mid in named for tp in tps if tp not in named[mid])
        rows.append({"epoch": epoch, "at_ms": t, "assignment": named, "moved": moved, "replayed": replayed})
        last_epoch, last_named, last_completed = epoch, named, latest
    return rows


def _summary(s: ShareScenario, player: _SharePlayer, rows: List[JsonRecord]) -> JsonRecord:
    """The model's summary fields from the members' records (see the module docstring)."""
    lock_ms = s.config["group.share.record.lock.duration.ms"]
    limit = s.config["group.share.delivery.count.limit"]
    delivered: List[Tuple[int, str, str, int, int, int]] = []  # (t, jvm-member key, tp, offset, count, jvm)
    acked: Dict[Tuple[int, str, int], int] = {}  # (jvm, tp, offset) -> successful acks
    errors = 0
    for k, j in enumerate(player.jvms):
        for r in j.records:
            if r["event"] == "delivered":
                delivered.append((r["t"], r.get("member", ""), f"{r['topic']}-{r['partition']}", r["offset"],
                                  r["delivery_count"], k))
            elif r["event"] == "committed" and r.get("ok"):  # commitSync's answer, not the later callback
                for o in r["offsets"]:
                    key = (k, f"{r['topic']}-{r['partition']}", o)
                    acked[key] = acked.get(key, 0) + 1
            elif r["event"] == "error" and r.get("op") != "describe":  # a describe before the group exists fails
                errors += 1
    acked_once = {key for key, n in acked.items() if n > 0}
    produced = sum(count * s.topics[t] for t, count in s.records.items())
    produced += sum(e.count * (s.topics[e.topic or ""] if e.partition is None else 1) for e in s.events if e.op == "produce")
    state: Dict[Tuple[str, int], Tuple[str, int]] = {}
    for topic, n in s.topics.items():
        ends: Dict[int, int] = {p: s.records.get(topic, 0) for p in range(n)}
        for e in s.events:
            if e.op == "produce" and e.topic == topic:
                for p in range(n) if e.partition is None else [e.partition]:
                    ends[p] += e.count
        for p, end in ends.items():
            for o in range(end):
                state[(f"{topic}-{p}", o)] = ("AVAILABLE", 0)
    counters = {"produced": produced, "acquired": len(delivered), "acknowledged": 0, "redelivered": 0, "lock_expired": 0}
    for t, member, tp, o, count, k in sorted(delivered):
        ok = acked.get((k, tp, o), 0) > 0
        if ok:
            acked[(k, tp, o)] -= 1
        counters["redelivered"] += count > 1
        if ok:
            counters["acknowledged"] += 1
            state[(tp, o)] = ("ACKNOWLEDGED", count)
        elif state.get((tp, o), ("", 0))[0] != "ACKNOWLEDGED":
            expired = t + lock_ms <= s.until_ms
            counters["lock_expired"] += expired
            state[(tp, o)] = ("ARCHIVED" if expired and count >= limit else "AVAILABLE" if expired else "ACQUIRED", count)
    crashes = []
    for member, k, t in player.kills:  # the victim's deliveries never acknowledged: in flight when it died
        held = [(tp, o, count, dt) for dt, _, tp, o, count, kk in delivered if kk == k and dt <= t
                and (k, tp, o) not in acked_once]
        in_flight: Dict[str, List[int]] = {}
        for tp, o, _, _ in held:
            in_flight.setdefault(tp, []).append(o)
        crashes.append({"member": member, "at_ms": t, "in_flight": len(held),
                        "in_flight_records": {tp: sorted(os) for tp, os in sorted(in_flight.items())},
                        "locks_expire_ms": min((dt + lock_ms for _, _, _, dt in held), default=None),
                        "redelivered": sum(1 for tp, o, count, _ in held if state[(tp, o)][1] > count)})
    final: Dict[str, List[List[object]]] = {}
    counts: Dict[str, int] = {}
    for (tp, o), (st, count) in sorted(state.items(), key=lambda kv: (kv[0][0].rpartition("-")[0],
                                                                        int(kv[0][0].rpartition("-")[2]), kv[0][1])):
        runs = final.setdefault(tp, [])
        counts[str(count)] = counts.get(str(count), 0) + 1
        if runs and runs[-1][2] == st and runs[-1][3] == count and runs[-1][1] == o - 1:
            runs[-1][1] = o
        else:
            runs.append([o, o, st, count])
    return {"changes": len(rows), "epoch": max((r["epoch"] for r in rows), default=0), "records": counters,
            "crashes": crashes, "delivery_counts": dict(sorted(counts.items(), key=lambda kv: int(kv[0]))),
            "final": final, "replayed": all(r["replayed"] for r in rows), "errors": errors}


def run_share_scenario(value: object, cluster: Optional[Any] = None) -> List[JsonRecord]:
    """One ``kind: share`` scenario on a real broker (see the module docstring): its completed assignment changes
    (with ``replayed``) and its summary line.  ``cluster``: a running
    :class:`~rebalance.kafka.cluster.KafkaCluster` whose broker settings are the scenario's
    (:func:`share_broker_config`), else one is started and stopped."""
    from .cluster import KafkaCluster

    s = parse_share_scenario(value)
    require(s.until_ms <= MAX_SHARE_WALL_MS, "until_ms",
            f"--on kafka runs on the wall clock; at most {MAX_SHARE_WALL_MS} ms, got {s.until_ms}")
    for name in s.topics:
        require(name not in (".", "..") and bool(_TOPIC.match(name)), f"topics.{name}",
                "is not a Kafka topic name (1-249 characters of a-z A-Z 0-9 . _ -)")
    broker = share_broker_config(s)
    if cluster is not None:
        for key, v in broker.items():
            if key.startswith("group.share."):
                require(cluster.broker_config.get(key) == str(v), "cluster", f"needs {key}={v}")
    with (KafkaCluster(brokers=1, broker_config=broker) if cluster is None else contextlib.nullcontext(cluster)) as c:
        player = _SharePlayer(s, c.bootstrap_servers)
        try:
            player.play()
        finally:
            player.stop()
    rows = _changes(s, player)
    return rows + [{"summary": _summary(s, player, rows)}]
