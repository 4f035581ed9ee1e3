"""A share group (KIP-932) on a real broker: real ``KafkaShareConsumer`` instances dividing one partition's records.

:func:`run_share_group` starts (or uses) a one-broker :class:`~rebalance.kafka.cluster.KafkaCluster` with
:data:`SHARE_BROKER_CONFIG`, creates the topics, sets the group's ``share.auto.offset.reset`` to ``earliest``,
produces ``records`` records to partition 0 of the first topic and runs the members as real share consumers of
the pinned release (``org.rebalance.share.ShareMembers``, the book's Java module), spread over ``jvms`` JVMs.
Each member acknowledges every record it gets by a :class:`ShareRule` of the record's offset (the same at every
delivery, whoever gets it): ``RELEASE``, ``REJECT``, ``ACCEPT``, or ``ACCEPT`` too late (``slow``: after the
acquisition lock has expired).  The run ends when the clients have seen every record reach its end and the
broker reports no lag left on the partition (``listShareGroupOffsets``: every record acknowledged or archived); then the group is
described (``describeShareGroups``) and every JVM stopped, also on failure.  The JVMs speak
:mod:`rebalance.kafka.jsonlines`: one that dies is a :class:`~rebalance.errors.LiveClientError` with the tail of
its stderr at once, a run past :data:`MAX_RUN_S` a :class:`~rebalance.errors.WaitTimeoutError`.

What the run is set against (:class:`ShareRun`):

* :meth:`ShareRun.assignment` -- the coordinator's assignment, by member (client id), and
  :meth:`ShareRun.predicted_assignment`, ``rebalance.share``'s :func:`~rebalance.share.assign_share_group`
  (``SimpleAssignor``) for the same member ids and topic ids;
* :meth:`ShareRun.outcomes` -- each record's deliveries, highest delivery count and final state as the clients
  saw them, and :func:`predict_outcomes` (:func:`rebalance.share.outcomes`), the same from
  :class:`~rebalance.share.SharePartitionModel` driven by the same rule on a virtual clock
  (:mod:`rebalance.share.delivery`).

Broker settings (found by running 4.3.1, see :data:`SHARE_BROKER_CONFIG`): none is needed to *enable* share
groups -- ``share.version`` is a feature whose ``LATEST_PRODUCTION`` level is 1 (``ShareVersion``, server-common
4.3.1) so a freshly formatted 4.3.1 cluster has it, and ``group.coordinator.rebalance.protocols`` (deprecated in
4.3) is not consulted for share groups.  The settings only make the run short: a 4 s lock (the minimum of
the minimum is 1000 ms), a delivery limit of 3, a 500 ms heartbeat, one partition for each internal topic.
"""
from __future__ import annotations

import shutil
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..errors import WaitTimeoutError
from ..validation import require
from ..share.delivery import ShareRule, share_rule
from ..share.delivery import outcomes as predict_outcomes
from .jsonlines import ShareRecord, ShareStart
from .jsonlines_jvm import JsonLinesJvm, pause

__all__ = ["SHARE_BROKER_CONFIG", "SHARE_MAIN_CLASS", "ShareRule", "ShareRun", "run_share_group",
           "predict_outcomes", "share_rule", "outcome_table", "share_summary"]

SHARE_MAIN_CLASS = "org.rebalance.share.ShareMembers"
#: broker settings for a short run (none of them enables share groups: 4.3.1 has them on by default)
SHARE_BROKER_CONFIG: Dict[str, int] = {
    "offsets.topic.num.partitions": 1,
    "share.coordinator.state.topic.num.partitions": 1,
    "group.share.min.record.lock.duration.ms": 1000,
    "group.share.record.lock.duration.ms": 4000,
    "group.share.delivery.count.limit": 3,
    "group.share.min.heartbeat.interval.ms": 500,
    "group.share.heartbeat.interval.ms": 500,
}
#: the heap of each JVM (its other flags: :data:`rebalance.kafka.jvm.CLIENT_JVM_OPTIONS`)
SHARE_HEAP = "160m"
#: the longest a run may take before it is stopped with :class:`~rebalance.errors.WaitTimeoutError`
MAX_RUN_S = 90


@dataclass
class ShareRun:
    """What one :func:`run_share_group` saw: every member record (``delivered``, ``acked``...), the topics'
    ids, the produced offsets, the broker's share-partition start offsets at the end and its last group
    description (members by client id).  ``start_offsets``/``lags``: ``listShareGroupOffsets`` at the end
    (``-1`` where the coordinator has no state: partitions no member fetched from); the start offset may stay
    at the last record (its persisted state says ``ARCHIVED``) while the lag is 0."""

    members: Tuple[str, ...]
    subscriptions: Dict[str, Tuple[str, ...]]
    topics: Dict[str, int]
    rule: ShareRule
    records: int
    delivery_count_limit: int
    topic_ids: Dict[str, str] = field(default_factory=dict)
    produced: List[int] = field(default_factory=list)
    events: List[ShareRecord] = field(default_factory=list)
    start_offsets: Dict[str, int] = field(default_factory=dict)
    lags: Dict[str, int] = field(default_factory=dict)
    group: Optional[ShareRecord] = None
    errors: List[str] = field(default_factory=list)

    @property
    def queue_topic(self) -> str:
        return next(iter(self.topics))

    def deliveries(self) -> List[Dict[str, Any]]:
        """One row per delivery of a record of the queue partition: ``member``, ``offset``, ``delivery_count``,
        ``ack`` (what the member's rule said), in the order the members reported them."""
        return [{"member": e["member"], "offset": e["offset"], "delivery_count": e["delivery_count"], "ack": e["ack"]}
                for e in self.events
                if e["event"] == "delivered" and e.get("topic") == self.queue_topic and e.get("partition") == 0]

    def acks(self) -> Dict[Tuple[str, int], List[bool]]:
        """``(member, offset) -> [ok, ...]``: each acknowledgement's result as the commit callback gave it."""
        out: Dict[Tuple[str, int], List[bool]] = {}
        for e in self.events:
            if e["event"] == "acked" and e.get("topic") == self.queue_topic:
                for o in e["offsets"]:
                    out.setdefault((e["member"], o), []).append(bool(e["ok"]))
        return out

    def outcomes(self) -> Dict[int, Dict[str, Any]]:
        """Each record's outcome as the clients saw it: ``deliveries`` (how many times a member got it),
        ``max_delivery_count`` (the highest ``ConsumerRecord.deliveryCount()``), ``state``: ``ACKNOWLEDGED``
        after an ``ACCEPT`` that succeeded; ``ARCHIVED`` after a ``REJECT`` that succeeded, or when its last
        delivery was at the delivery limit and ended with a ``RELEASE`` that succeeded or a lock that expired
        (a too-late ``ACCEPT``: it fails while the record is still tracked, and succeeds once the start offset has
        moved past the archived record, ``SharePartition.acknowledge`` line 1006); ``ACQUIRED``/``AVAILABLE`` otherwise (not finished)."""
        acks = self.acks()
        rows: Dict[int, Dict[str, Any]] = {o: {"deliveries": 0, "max_delivery_count": 0, "state": "AVAILABLE"}
                                           for o in range(self.records)}
        for d in self.deliveries():
            r = rows.get(d["offset"])
            if r is not None:
                r["deliveries"] += 1
                r["max_delivery_count"] = max(r["max_delivery_count"], d["delivery_count"])
        # per (member, offset): deliveries in order, matched with acknowledgements in order
        per: Dict[Tuple[str, int], List[Dict[str, Any]]] = {}
        for d in self.deliveries():
            per.setdefault((d["member"], d["offset"]), []).append(d)
        for (member, o), ds in per.items():
            if o not in rows:
                continue
            oks = acks.get((member, o), [])
            for i, d in enumerate(ds):
                ok = oks[i] if i < len(oks) else None
                if ok is None:
                    continue
                at_limit = d["delivery_count"] >= self.delivery_count_limit
                if d["ack"] == "ACCEPT" and ok:
                    rows[o]["state"] = "ACKNOWLEDGED"
                elif d["ack"] == "REJECT" and ok:
                    rows[o]["state"] = "ARCHIVED"
                elif d["ack"] == "RELEASE" and ok and at_limit:
                    rows[o]["state"] = "ARCHIVED"
                elif d["ack"] == "SLOW" and at_limit:  # ok or not: see SharePartition.acknowledge, line 1006
                    rows[o]["state"] = "ARCHIVED"
        return rows

    def finished(self, upto: Optional[int] = None) -> bool:
        """Every record (before offset ``upto``) ACKNOWLEDGED or ARCHIVED in the clients' view."""
        return all(r["state"] in ("ACKNOWLEDGED", "ARCHIVED") for o, r in self.outcomes().items()
                   if upto is None or o < upto)

    def per_member(self) -> Dict[str, int]:
        """How many deliveries each member got."""
        out = {m: 0 for m in self.members}
        for d in self.deliveries():
            out[d["member"]] = out.get(d["member"], 0) + 1
        return out

    def assignment(self) -> Dict[str, Dict[str, List[int]]]:
        """The coordinator's assignment from ``describeShareGroups``: ``{member: {topic: [partitions]}}``."""
        out: Dict[str, Dict[str, List[int]]] = {}
        for m in self.group["members"] if self.group else []:
            got: Dict[str, List[int]] = {}
            for text in m["assignment"]:
                topic, _, p = text.rpartition("-")
                got.setdefault(topic, []).append(int(p))
            out[m["client_id"]] = {t: sorted(ps) for t, ps in sorted(got.items())}
        return dict(sorted(out.items()))

    def predicted_assignment(self) -> Dict[str, Dict[str, List[int]]]:
        """``SimpleAssignor`` (:func:`rebalance.share.assign_share_group`) for the described members (their real
        member ids and subscriptions) and the topics' real ids, every partition assignable."""
        from ..share.group import assign_share_group

        by_id = {m["member_id"]: m["client_id"] for m in (self.group["members"] if self.group else [])}
        topics: List[Dict[str, object]] = [{"name": t, "id": self.topic_ids[t], "partitions": n}
                                           for t, n in self.topics.items()]
        members = [{"id": mid, "subscriptions": list(self.subscriptions[name])} for mid, name in by_id.items()]
        result = assign_share_group(topics, members).by_name()
        out = {by_id[mid]: {t: ps for t, ps in sorted(a.items()) if ps} for mid, a in result.items()}
        for name in by_id.values():
            out.setdefault(name, {})
        return dict(sorted(out.items()))


def run_share_group(members: Sequence[str] = ("m1", "m2", "m3"), *, records: int = 24,
                    rule: Optional[ShareRule] = None, topics: Optional[Mapping[str, int]] = None,
                    subscriptions: Optional[Mapping[str, Sequence[str]]] = None, jvms: int = 2,
                    max_poll_records: int = 5, cluster: Optional[Any] = None) -> ShareRun:
    """Run a share group on a real broker (see the module docstring) and return what it saw.

    ``topics``: ``{name: partitions}``, the first one's partition 0 gets the records (default ``{"queue": 1,
    "wide": 4}``); ``subscriptions``: each member's topics (default: all); ``jvms``: how many member JVMs (the
    members are dealt round-robin); ``cluster``: a running :class:`~rebalance.kafka.cluster.KafkaCluster` started
    with :data:`SHARE_BROKER_CONFIG` (else one is started and stopped).

    Defined in chapter 14, *Share groups: queues for Kafka*."""
    import contextlib

    from .cluster import KafkaCluster

    members = tuple(members)
    require(len(members) >= 1 and len(set(members)) == len(members), "members", "must be distinct names, at least one")
    topics = dict(topics if topics is not None else {"queue": 1, "wide": 4})
    require(bool(topics), "topics", "at least one topic")
    subs = {m: tuple(subscriptions[m]) if subscriptions else tuple(topics) for m in members}
    for m, ts in subs.items():
        for t in ts:
            require(t in topics, f"subscriptions.{m}", f"unknown topic {t!r}")
    require(isinstance(jvms, int) and 1 <= jvms <= len(members), "jvms", f"between 1 and {len(members)}")
    require(isinstance(records, int) and 1 <= records <= 1000, "records", "between 1 and 1000")
    rule = rule or ShareRule()
    require(list(rule.slow) == list(range(records - len(rule.slow), records)), "rule.slow",
            "the slow offsets must be the last ones (share_rule(..., slow=N)): they are produced last")
    require(all(o < records for o in rule.release + rule.reject), "rule", f"offsets must be below {records}")
    if cluster is not None:
        for k, v in SHARE_BROKER_CONFIG.items():
            if k in ("offsets.topic.num.partitions", "share.coordinator.state.topic.num.partitions"):
                continue
            require(cluster.broker_config.get(k) == str(v), "cluster", f"needs {k}={v}")
    limit = SHARE_BROKER_CONFIG["group.share.delivery.count.limit"]
    lock_ms = SHARE_BROKER_CONFIG["group.share.record.lock.duration.ms"]
    run = ShareRun(members, subs, topics, rule, records, limit)
    with (KafkaCluster(brokers=1, broker_config=SHARE_BROKER_CONFIG) if cluster is None
          else contextlib.nullcontext(cluster)) as c:
        _play(run, c.bootstrap_servers, jvms, max_poll_records, lock_ms)
    return run


class _SharePlayer:
    """The JVMs of one run (an admin JVM, then ``jvms`` member JVMs, in a folder of their own) and the run's
    records: :meth:`collect` merges what each JVM wrote since the last call into ``run.events``, tagged with the
    JVM's index (each JVM's records in its order), and the error messages into ``run.errors``."""

    def __init__(self, run: ShareRun, jvms: int):
        self.run = run
        self.folder = Path(tempfile.mkdtemp(prefix="rebalance-share-"))
        self.jvms: List[JsonLinesJvm[ShareRecord]] = []
        self._seen: List[int] = []
        for i in range(jvms + 1):
            what = "the share admin JVM (ShareMembers)" if i == 0 else f"share member JVM {i} (ShareMembers)"
            j: JsonLinesJvm[ShareRecord] = JsonLinesJvm(f"share{i}", SHARE_MAIN_CLASS, self.folder, what,
                                                        heap=SHARE_HEAP, companions=self.jvms)
            self.jvms.append(j)  # held before it is spawned: stop() reaches it even if the spawn is interrupted
            self._seen.append(0)
            j.spawn()

    def collect(self) -> None:
        for k, j in enumerate(self.jvms):
            new = j.records[self._seen[k]:]
            self._seen[k] += len(new)
            for r in new:
                r["jvm"] = k
                self.run.events.append(r)
                if r["event"] == "error":
                    self.run.errors.append(r.get("message", ""))

    def watch(self, seconds: float) -> None:
        """``seconds`` with every JVM checked alive every 0.2 s, then :meth:`collect`."""
        pause(self.jvms, seconds)
        self.collect()

    def stop(self) -> None:
        for j in self.jvms:
            j.stop()
        self.collect()
        shutil.rmtree(self.folder, ignore_errors=True)


def _play(run: ShareRun, bootstrap: str, jvms: int, max_poll_records: int, lock_ms: int) -> None:
    group = f"share-{uuid.uuid4().hex[:8]}"
    player: Optional[_SharePlayer] = None
    try:
        player = _SharePlayer(run, jvms)
        for j in player.jvms:
            j.await_ready(60)
        admin = player.jvms[0]
        created = admin.request({"op": "create_topics", "bootstrap": bootstrap, "topics": dict(run.topics),
                                 "group": group, "group_config": {"share.auto.offset.reset": "earliest"}},
                                "topics_created", 60)
        run.topic_ids = dict(created["topic_ids"])
        head = min(run.rule.slow, default=run.records)

        def produce(count: int) -> None:
            produced = admin.request({"op": "produce", "bootstrap": bootstrap, "topic": run.queue_topic,
                                      "partition": 0, "count": count}, "produced", 60)
            run.produced.extend(produced["offsets"])

        produce(head)
        t0 = int(time.time() * 1000)
        props = {"bootstrap.servers": bootstrap, "group.id": group, "max.poll.records": str(max_poll_records)}
        for k, m in enumerate(run.members):
            command: ShareStart = {"op": "start", "member": m, "t0": t0, "topics": list(run.subscriptions[m]),
                                   "props": props, "release": list(run.rule.release), "reject": list(run.rule.reject),
                                   "slow": list(run.rule.slow), "slow_ms": lock_ms + 1000}
            player.jvms[1 + k % jvms].send(command)
        deadline = time.monotonic() + MAX_RUN_S
        if head < run.records:
            # the slow records only once every record before them is done with: a member asleep past its lock
            # may have fetched more records meanwhile (the consumer fetches ahead), whose locks expire too;
            # for a record released at every delivery anyway that changes nothing, for the others it would
            # add a delivery
            while not run.finished(upto=head):
                if time.monotonic() > deadline:
                    raise WaitTimeoutError(f"share group: the first {head} records did not finish within "
                                           f"{MAX_RUN_S} s (errors: {run.errors[:3]})")
                player.watch(0.2)
            produce(run.records - head)
        end = run.queue_topic + "-0"
        while True:
            if time.monotonic() > deadline:
                open_records = {o: r for o, r in run.outcomes().items()
                                if r["state"] not in ("ACKNOWLEDGED", "ARCHIVED")}
                raise WaitTimeoutError(f"share group: the records did not all finish within {MAX_RUN_S} s "
                                       f"(not finished in the clients' view: {open_records or 'none'}; the broker's "
                                       f"last lags: {run.lags or 'none asked yet'}; errors: {run.errors[:3]})")
            player.watch(0.2)
            if run.finished():  # then the broker's view: no lag left on the partition
                offsets = admin.request({"op": "offsets", "bootstrap": bootstrap, "group": group}, "offsets", 30)
                run.start_offsets = dict(offsets["start_offsets"])
                run.lags = dict(offsets["lags"])
                if run.lags.get(end, -1) == 0:
                    break
                player.watch(0.3)
        run.group = _settled_group(admin, bootstrap, group, len(run.members))
        stopping = [(j, j.ask({"op": "stop"})) for j in player.jvms[1:]]
        for j, since in stopping:
            j.answer({"op": "stop"}, "stopped", 60, since, "'stopped' (every member closed)")
    finally:
        if player is not None:
            player.stop()


def _settled_group(admin: JsonLinesJvm[ShareRecord], bootstrap: str, group: str, members: int) -> ShareRecord:
    """The group as the coordinator has it once every member has its target (member epoch = group epoch); a
    description that failed is asked again, up to 30 s."""
    deadline = time.monotonic() + 30
    last = "no description yet"
    while True:
        since = admin.ask({"op": "describe", "bootstrap": bootstrap, "group": group})
        g = admin.await_record(lambda r: r["event"] == "group" or (r["event"] == "error" and r.get("op") == "describe"),
                               30, "group description", since)
        if g["event"] == "group":
            if len(g["members"]) == members and g["target_epoch"] == g["group_epoch"] \
                    and all(m["member_epoch"] == g["group_epoch"] for m in g["members"]):
                return g
            last = f"group epoch {g['group_epoch']}, target epoch {g['target_epoch']}, {len(g['members'])} members"
        else:
            last = f"describe failed: {g.get('message')}"
        if time.monotonic() > deadline:
            raise WaitTimeoutError(f"share group: the group did not settle within 30 s (last: {last})")
        time.sleep(0.3)


def outcome_table(run: ShareRun) -> List[Dict[str, Any]]:
    """One row per acknowledgement rule (``ACCEPT``, ``RELEASE``, ``REJECT``, ``SLOW``): how many records, and
    for the real run and :func:`predict_outcomes` the deliveries per record, the highest delivery count and the
    final state (each a sorted list of the distinct values over the rule's records), and whether the two agree
    record by record.  Deterministic: nothing in it depends on which member got what, or when.

    Defined in chapter 14, *Share groups: queues for Kafka*."""
    real = run.outcomes()
    model = predict_outcomes(run.records, run.rule, run.members, delivery_count_limit=run.delivery_count_limit)
    rows = []
    for action in ("ACCEPT", "RELEASE", "REJECT", "SLOW"):
        offsets = [o for o in range(run.records) if run.rule.action(o) == action]
        if not offsets:
            continue
        rows.append({"rule": action, "records": len(offsets),
                     "deliveries": sorted({real[o]["deliveries"] for o in offsets}),
                     "max_delivery_count": sorted({real[o]["max_delivery_count"] for o in offsets}),
                     "state": sorted({real[o]["state"] for o in offsets}),
                     "model_deliveries": sorted({model[o]["deliveries"] for o in offsets}),
                     "model_state": sorted({model[o]["state"] for o in offsets}),
                     "agree": all(real[o] == model[o] for o in offsets)})
    return rows


def share_summary(run: ShareRun) -> Dict[str, Any]:
    """The run's deterministic facts: members, records, every record delivered at least once, every record
    finished (``ACKNOWLEDGED`` or ``ARCHIVED``) in the clients' view, the broker's lag 0 on the partition,
    the coordinator's assignment equal to ``SimpleAssignor``'s, every record's outcome equal to the model's,
    the members that shared the queue partition (from the assignment), errors.

    Defined in chapter 14, *Share groups: queues for Kafka*."""
    real = run.outcomes()
    model = predict_outcomes(run.records, run.rule, run.members, delivery_count_limit=run.delivery_count_limit)
    assignment = run.assignment()
    return {"members": len(run.members), "records": run.records,
            "every_record_delivered": all(r["deliveries"] >= 1 for r in real.values()),
            "all_finished": run.finished(),
            "broker_lag_zero": run.lags.get(f"{run.queue_topic}-0") == 0,
            "assignment_equal": assignment == run.predicted_assignment(),
            "outcomes_equal": real == model,
            "queue_partition_shared_by": sum(1 for a in assignment.values() if 0 in a.get(run.queue_topic, [])),
            "errors": len(run.errors)}
