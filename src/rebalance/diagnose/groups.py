"""Per group, the coordinator's lines turned into rebalances: the classic protocol's generations and the consumer
protocol's (KIP-848) group epochs.

:class:`ClassicGroupHistory` follows a classic group as ``ClassicGroup`` (4.3.1) moves it: a member joins, leaves
or fails; ``Preparing to rebalance ... with old generation N (reason: ...)`` opens a rebalance (``Stable`` or
``CompletingRebalance`` -> ``PreparingRebalance``: its reason names the trigger); ``Stabilized group G generation
N+1 with M members`` ends the join phase (-> ``CompletingRebalance``) and ``Assignment received from leader`` the
sync (-> ``Stable``); ``Group G with generation N is now empty`` ends a rebalance that no member rejoined.  A
failure or a leave while the group is already ``PreparingRebalance`` starts nothing (the coordinator logs no
second "Preparing"): it is listed in the open rebalance's ``removed``.  A new "Preparing" while the group is
``CompletingRebalance`` ends the open rebalance unfinished.

:class:`ConsumerGroupHistory` follows a consumer group as ``GroupMetadataManager.consumerGroupHeartbeat`` changes
it: every ``Bumped group epoch to N`` is a rebalance, started by the member line just before it (a join, a leave,
a fencing), or, with none, by a subscription or metadata change that a 4.x broker logs only at DEBUG (the
metadata hash of the bump tells which: a new hash is a change of the subscribed topics' metadata).  A member that
left and then joins again *with the same member id* is the same consumer, which left on its own: the
consumer of ``group.protocol=consumer`` does that when ``max.poll.interval.ms`` expires
(``AbstractHeartbeatRequestManager``), so that leave is read as a poll timeout.  A static member that
"temporarily left" and is replaced by a new member of the same instance id was restarted within the session
timeout: no epoch bump, no rebalance (counted in ``static_restarts_without_rebalance``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from .patterns import LineEvent
from .reasons import classify_client_reason, classify_coordinator_reason, no_instance

__all__ = ["Trigger", "Rebalance", "ClassicGroupHistory", "ConsumerGroupHistory", "member_name"]

_UUID_SUFFIX = re.compile(r"^(?P<prefix>.+)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


def member_name(member_id: str) -> Optional[str]:
    """A classic member id's prefix: the ``client.id`` of a dynamic member, the ``group.instance.id`` of a static
    one (the coordinator makes a member id as ``prefix + "-" + UUID``, ``ClassicGroup.generateMemberId``); ``None``
    for a consumer protocol's member id (a bare UUID, made by the client since 4.0)."""
    m = _UUID_SUFFIX.match(member_id)
    return m.group("prefix") if m else None


@dataclass
class Trigger:
    """What started a rebalance: ``kind`` (a key of :data:`rebalance.diagnose.causes.CAUSES`), the ``member`` id
    (``None`` when the log names none), its ``instance_id``, the coordinator's reason text (``broker_reason``),
    the client's (``client_reason``, from the coordinator's line or from the client's own log) and a ``note``."""

    kind: str
    member: Optional[str] = None
    instance_id: Optional[str] = None
    broker_reason: Optional[str] = None
    client_reason: Optional[str] = None
    note: Optional[str] = None


@dataclass
class Rebalance:
    """One rebalance of one group (see the module docstring)."""

    group: str
    protocol: str
    trigger: Trigger
    started_ms: int
    started: str
    file: str
    line: int
    old_generation: Optional[int] = None
    generation: Optional[int] = None
    members_before: List[str] = field(default_factory=list)
    members_after: Optional[List[str]] = None
    member_count: Optional[int] = None
    removed: List[Tuple[str, str]] = field(default_factory=list)
    stabilized_ms: Optional[int] = None
    completed_ms: Optional[int] = None
    completed: Optional[str] = None
    ended: str = "open"   # open | completed | superseded | empty | target
    phase: str = "preparing"
    notes: List[str] = field(default_factory=list)


class ClassicGroupHistory:
    """A classic group's rebalances from its coordinator's lines (see the module docstring)."""

    protocol = "classic"

    def __init__(self, group: str):
        self.group = group
        self.members: Dict[str, Optional[str]] = {}      # member id -> group.instance.id
        self.known: Dict[str, Optional[str]] = {}        # every member id seen, with its group.instance.id
        self.known_instances: Set[str] = set()
        self.generation_members: List[str] = []          # the members of the last stabilized generation
        self.rebalances: List[Rebalance] = []
        self.open: Optional[Rebalance] = None
        self.leaves: Dict[str, LineEvent] = {}
        self.expired_instances: Dict[str, Rebalance] = {}   # a static member's session timeout, by instance id
        self.static_restarts_without_rebalance: List[Tuple[str, int]] = []
        self.last_replacement: Optional[LineEvent] = None
        self.notes: List[str] = []

    def _remove(self, member: str, why: str) -> None:
        self.members.pop(member, None)
        if self.open is not None and self.open.phase == "preparing":
            self.open.removed.append((member, why))

    def _close(self, ended: str) -> None:
        if self.open is not None:
            self.open.ended = ended
            self.open = None

    @staticmethod
    def _stand_in(instance: str) -> str:
        return f"{instance}-(new member id)"

    def _resolve(self, member: str) -> None:
        """A member id seen for the first time whose prefix is a replaced static member's instance id: the new member
        id of that replacement."""
        if member in self.known:
            return
        prefix = member_name(member)
        if prefix is not None and prefix in self.known_instances:
            self.known[member] = prefix
            stand_in = self._stand_in(prefix)
            if stand_in in self.members:
                del self.members[stand_in]
                self.members[member] = prefix
            self.generation_members = sorted(member if m == stand_in else m for m in self.generation_members)

    def feed(self, e: LineEvent) -> None:
        f = e.fields
        ev = e.event
        if "member" in f:
            self._resolve(f["member"])
        if ev in ("member_added", "static_added"):
            if ev == "static_added":
                self.known_instances.add(f["instance"])
            self.members[f["member"]] = self.known[f["member"]] = no_instance(f.get("instance"))
        elif ev == "static_replaced":
            # the coordinator does not log the new member id: a stand-in until a line names it
            self.members.pop(f["old"], None)
            self.members[self._stand_in(f["instance"])] = f["instance"]
            self.known_instances.add(f["instance"])
            self.last_replacement = e
        elif ev == "static_no_rebalance":
            if self.last_replacement is not None:
                self.static_restarts_without_rebalance.append((self.last_replacement.fields["instance"],
                                                               self.last_replacement.at_ms))
                if self.open is None:  # the new member takes the old one's place in the generation
                    old, new = self.last_replacement.fields["old"], self._stand_in(self.last_replacement.fields["instance"])
                    self.generation_members = sorted(new if m == old else m for m in self.generation_members)
                self.last_replacement = None
        elif ev == "member_failed":
            self._remove(f["member"], "session timeout")
        elif ev == "left":
            self.leaves[f["member"]] = e
            self._remove(f["member"], "leave")
        elif ev == "removed_not_joined":
            for m in (x.strip() for x in f["members"].split(",")):
                if m:
                    self._remove(m, "rebalance timeout")
        elif ev == "prepare":
            self._prepare(e)
        elif ev in ("stabilized", "empty"):
            r = self.open
            generation = int(f["generation"])
            if r is None:  # the log starts inside a rebalance
                r = self._start(e, Trigger("unknown", note="the log starts after this rebalance began"))
                r.old_generation = generation - 1 if ev == "stabilized" else generation
            r.generation = generation if ev == "stabilized" else max(generation, (r.old_generation or 0) + 1)
            r.members_after = sorted(self.members) if ev == "stabilized" else []
            r.member_count = int(f["count"]) if ev == "stabilized" else 0
            if ev == "stabilized" and r.member_count != len(self.members):
                r.notes.append(f"the coordinator counts {r.member_count} members, the log named {len(self.members)} "
                               "(a join it logs only at DEBUG, or the log starts late)")
            r.stabilized_ms = e.at_ms
            r.phase = "completing"
            self.generation_members = list(r.members_after)
            if ev == "empty":
                r.completed_ms, r.completed = e.at_ms, e.record.time
                self.members.clear()
                self._close("empty")
        elif ev == "assignment_received":
            r = self.open
            if r is not None and r.generation == int(f["generation"]):
                r.completed_ms, r.completed = e.at_ms, e.record.time
                self._close("completed")
        elif ev == "leader_not_joined":
            self.notes.append(f"leader {f['member']} failed to join before the rebalance timeout{f.get('rest', '')}")
        elif ev == "instance_fenced":
            self.notes.append(f"member {f['member']} of group.instance.id {f['instance']} was fenced by "
                              f"{f['existing']} ({f['operation']}): two processes with one group.instance.id?")

    def _start(self, e: LineEvent, trigger: Trigger) -> Rebalance:
        r = Rebalance(self.group, self.protocol, trigger, e.at_ms, e.record.time, e.file, e.line,
                      members_before=list(self.generation_members))
        self.rebalances.append(r)
        self.open = r
        return r

    def _prepare(self, e: LineEvent) -> None:
        if self.open is not None:  # a new rebalance while the last one was completing: it never finished
            self._close("superseded")
        reason = e.fields["reason"]
        reading = classify_coordinator_reason(reason)
        trigger = Trigger(reading.kind, reading.member, reading.instance_id, reason, reading.client_reason)
        if reading.kind == "leave":
            leaves = [self.leaves[m] for m in (reading.members or (reading.member,)) if m in self.leaves]
            if leaves:
                left = leaves[0].fields
                trigger.client_reason = trigger.client_reason or left.get("reason")
                trigger.instance_id = trigger.instance_id or no_instance(left.get("instance"))
            trigger.kind = classify_client_reason(trigger.client_reason) or "leave"
            if trigger.kind == "join":
                trigger.kind = "leave"
            if len(reading.members) > 1:
                trigger.note = f"{len(reading.members)} members left at once: {', '.join(reading.members)}"
        if trigger.member is not None and trigger.instance_id is None:
            trigger.instance_id = self.known.get(trigger.member)
        if reading.kind == "join" and reading.member is not None:   # 3.9 logs the pending member's join at DEBUG
            self.members.setdefault(reading.member, reading.instance_id)
            self.known.setdefault(reading.member, reading.instance_id)
        if trigger.kind in ("leave", "poll timeout", "session timeout"):   # 3.9 logs the leave after "Preparing"
            for m in reading.members or ((reading.member,) if reading.member else ()):
                self.members.pop(m, None)
        r = self._start(e, trigger)
        r.old_generation = int(e.fields["generation"])
        if reading.kind == "session timeout" and trigger.instance_id is not None:
            self.expired_instances[trigger.instance_id] = r
        if reading.kind == "join" and trigger.instance_id is not None and trigger.instance_id in self.expired_instances:
            gone = self.expired_instances.pop(trigger.instance_id)
            trigger.note = (f"static member {trigger.instance_id} returns: its session had expired "
                            f"{(e.at_ms - gone.started_ms) / 1000:.1f} s before (generation {gone.old_generation})")
            gone.notes.append(f"static member {trigger.instance_id} came back {(e.at_ms - gone.started_ms) / 1000:.1f} "
                              "s later: a restart longer than session.timeout.ms")


class ConsumerGroupHistory:
    """A consumer group's (KIP-848) rebalances from its coordinator's lines (see the module docstring)."""

    protocol = "consumer"

    def __init__(self, group: str):
        self.group = group
        self.members: Dict[str, Optional[str]] = {}
        self.rebalances: List[Rebalance] = []
        self.by_epoch: Dict[int, Rebalance] = {}
        self.epoch: Optional[int] = None
        self.hash: Optional[str] = None
        self.pending: Optional[Tuple[LineEvent, Trigger, List[str]]] = None
        self.left: Dict[str, Rebalance] = {}          # a dynamic member's leave, by member id
        self.fenced: Dict[str, Rebalance] = {}        # a session timeout, by member id
        self.temporarily_left: Dict[str, Tuple[str, int]] = {}   # instance id -> (member id, time)
        self.expired_instances: Dict[str, Rebalance] = {}
        self.static_restarts_without_rebalance: List[Tuple[str, int]] = []
        self.member_epochs: Dict[str, int] = {}
        self.notes: List[str] = []

    def _pending(self, e: LineEvent, trigger: Trigger) -> None:
        self.pending = (e, trigger, sorted(self.members))

    def feed(self, e: LineEvent) -> None:
        f = e.fields
        ev = e.event
        member = f.get("member")
        if ev in ("c_join", "c_static_join"):
            assert member is not None
            instance = no_instance(f.get("instance"))
            trigger = Trigger("join", member, instance)
            self._pending(e, trigger)
            self.members[member] = instance
            if member in self.left:   # the same consumer is back: it had left on its own
                gone = self.left.pop(member)
                if gone.trigger.client_reason is None and gone.trigger.kind == "leave":
                    gone.trigger.kind = "poll timeout"
                    gone.trigger.note = ("inferred: the member left and rejoined with the same member id "
                                         f"{(e.at_ms - gone.started_ms) / 1000:.1f} s later, as a consumer does when "
                                         "max.poll.interval.ms expires (the client's log says it for sure)")
                trigger.note = "the same member id rejoins after leaving"
            if member in self.fenced:
                gone = self.fenced.pop(member)
                gone.notes.append(f"the member rejoined with the same member id {(e.at_ms - gone.started_ms) / 1000:.1f}"
                                  " s later: the process was alive (a pause or a lost connection, not a crash)")
                trigger.note = "the same member id rejoins after being fenced"
            if instance is not None and instance in self.expired_instances:
                gone = self.expired_instances.pop(instance)
                trigger.note = (f"static member {instance} returns: its session had expired "
                                f"{(e.at_ms - gone.started_ms) / 1000:.1f} s before (epoch {gone.generation})")
                gone.notes.append(f"static member {instance} came back {(e.at_ms - gone.started_ms) / 1000:.1f} s later: "
                                  "a restart longer than the session timeout")
        elif ev == "c_static_replaced":
            assert member is not None
            instance, old = f["instance"], f["old"]
            self.members.pop(old, None)
            self.members[member] = instance
            if instance in self.temporarily_left:
                self.temporarily_left.pop(instance)
                self.static_restarts_without_rebalance.append((instance, e.at_ms))
            self._pending(e, Trigger("static replacement", member, instance,
                                     note=f"replaces member {old} of the same group.instance.id"))
        elif ev in ("c_left", "c_static_left"):
            assert member is not None
            instance = no_instance(f.get("instance")) or self.members.get(member)
            self._pending(e, Trigger("leave", member, instance))
            self.members.pop(member, None)
        elif ev == "c_static_temporarily_left":
            assert member is not None
            self.temporarily_left[f["instance"]] = (member, e.at_ms)
        elif ev == "c_fenced":
            assert member is not None
            reason = f["reason"]
            kind = ("session timeout" if "session expired" in reason else
                    "rebalance timeout" if ("failed to transition" in reason or "rebalance timeout" in reason) else
                    "sync timeout" if "sync" in reason else "other")
            instance = self.members.get(member)
            trigger = Trigger(kind, member, instance, broker_reason=f"fenced from the group because {reason}")
            for inst, (mid, at) in list(self.temporarily_left.items()):
                if mid == member:
                    instance = trigger.instance_id = inst
                    trigger.note = (f"static member {inst} left temporarily {(e.at_ms - at) / 1000:.1f} s before and "
                                    "did not return within the session timeout")
                    self.temporarily_left.pop(inst)
            self._pending(e, trigger)
            self.members.pop(member, None)
        elif ev == "c_subscription":
            assert member is not None
            self._pending(e, Trigger("subscription change", member, self.members.get(member),
                                     broker_reason=f"updated its subscribed {f['what']} to: {f['topics']}"))
        elif ev == "c_metadata":
            if self.pending is None:
                self._pending(e, Trigger("metadata change", broker_reason=e.record.message))
        elif ev == "c_bump":
            self._bump(e)
        elif ev == "c_target":
            r = self.by_epoch.get(int(f["epoch"]))
            if r is not None and r.completed_ms is None:
                r.completed_ms, r.completed = e.at_ms, e.record.time
                r.ended = "target"
        elif ev == "c_assignment_state":
            assert member is not None
            self.member_epochs[member] = int(f["epoch"])
        elif ev == "c_converted":
            self.notes.append(e.record.message)

    def _bump(self, e: LineEvent) -> None:
        epoch = int(e.fields["epoch"])
        for earlier in self.rebalances:   # an epoch whose target was never computed: a newer epoch replaced it
            if earlier.ended == "open":
                earlier.ended = "superseded"
        new_hash = e.fields.get("hash")
        if self.pending is not None:
            source, trigger, before = self.pending
        else:
            source, before = e, sorted(self.members)
            changed = new_hash is not None and self.hash is not None and new_hash != self.hash
            trigger = Trigger("metadata change" if changed else "subscription change",
                              note=("the metadata hash changed: the subscribed topics' partitions, or the set of "
                                    "topics the group subscribes, changed" if changed else
                                    "no member line before the bump and the same metadata hash: a member's "
                                    "subscription or metadata changed") +
                              " (a 4.x broker names the member only at DEBUG)")
        r = Rebalance(self.group, self.protocol, trigger, source.at_ms, source.record.time, source.file, source.line,
                      old_generation=self.epoch, generation=epoch, members_before=before,
                      members_after=sorted(self.members), member_count=len(self.members), phase="target")
        self.rebalances.append(r)
        self.by_epoch[epoch] = r
        if trigger.kind == "leave" and trigger.member is not None and trigger.instance_id is None:
            self.left[trigger.member] = r
        if trigger.kind == "session timeout" and trigger.member is not None:
            self.fenced[trigger.member] = r
            if trigger.instance_id is not None:
                self.expired_instances[trigger.instance_id] = r
        self.epoch, self.pending = epoch, None
        if new_hash is not None:
            self.hash = new_hash
