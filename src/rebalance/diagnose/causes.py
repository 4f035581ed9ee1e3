"""Each kind of rebalance trigger, what it means, and the setting that would have prevented it.

:data:`CAUSES` maps every ``kind`` that :mod:`rebalance.diagnose` writes to a :class:`Cause`: one line of
explanation, the Kafka settings involved (client settings of the consumer, ``broker:`` for a broker setting,
``group:`` for a group config of ``kafka-configs.sh --entity-type groups``, 4.x), and the advice.  The classic
protocol's session timeout is the consumer's ``session.timeout.ms``; the consumer protocol's (KIP-848) is the
broker's ``group.consumer.session.timeout.ms`` or the group's ``consumer.session.timeout.ms``: :func:`cause_for`
gives the settings of the group's protocol.

:data:`SERIES_CAUSES` are the causes a group's *series* of rebalances shows (a join storm, a rolling restart, a
static member that came back after its session had expired), found by :mod:`rebalance.diagnose.summary`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Tuple

__all__ = ["Cause", "CAUSES", "SERIES_CAUSES", "cause_for", "KINDS"]


@dataclass(frozen=True)
class Cause:
    """A kind of trigger: ``what`` happened, the ``settings`` involved and the ``prevent`` advice."""

    kind: str
    what: str
    settings: Tuple[str, ...]
    prevent: str


def _c(kind: str, what: str, settings: Tuple[str, ...], prevent: str) -> Cause:
    return Cause(kind, what, settings, prevent)


_SESSION_CLASSIC = ("session.timeout.ms", "heartbeat.interval.ms")
_SESSION_CONSUMER = ("broker:group.consumer.session.timeout.ms", "group:consumer.session.timeout.ms",
                     "broker:group.consumer.heartbeat.interval.ms")

#: kind -> cause; the classic protocol's settings (see :func:`cause_for` for the consumer protocol's)
CAUSES: Dict[str, Cause] = {c.kind: c for c in (
    _c("join", "a member joined the group", ("broker:group.initial.rebalance.delay.ms", "group.instance.id"),
       "expected when the group grows; when members start together, a longer group.initial.rebalance.delay.ms lets "
       "the first rebalance of an empty group wait for them all; a restarted member that joins as new: see leave"),
    _c("leave", "a member left the group (LeaveGroup: the consumer was closed)", ("group.instance.id", "session.timeout.ms"),
       "expected when the group shrinks; if the member restarts (a deploy, a rolling restart), static membership: "
       "group.instance.id, with session.timeout.ms longer than the restart (a static member sends no LeaveGroup on "
       "close, and its return within the session timeout causes no rebalance)"),
    _c("session timeout", "the coordinator heard no heartbeat from the member for a session timeout: the process "
       "died, or paused (GC, a blocked heartbeat thread, the network) longer than the session", _SESSION_CLASSIC,
       "a crash: nothing to tune; a pause: session.timeout.ms longer than the longest pause, heartbeat.interval.ms at "
       "most a third of it, and look at GC logs"),
    _c("poll timeout", "the member did not call poll() within max.poll.interval.ms and left the group",
       ("max.poll.interval.ms", "max.poll.records"),
       "max.poll.interval.ms longer than the slowest batch, or fewer records per poll (max.poll.records), or faster "
       "processing"),
    _c("rebalance timeout", "a member did not rejoin (classic) or did not revoke its partitions (consumer protocol) "
       "within the rebalance timeout, max.poll.interval.ms, and was removed", ("max.poll.interval.ms", "max.poll.records"),
       "a shorter onPartitionsRevoked and batches shorter than max.poll.interval.ms"),
    _c("sync timeout", "members did not send SyncGroup within the rebalance timeout after the join phase",
       ("max.poll.interval.ms",), "look at the members named: they joined but never synced (stalled or died)"),
    _c("static replacement", "a static member's new process joined while the group was rebalancing, or with a "
       "changed protocol, so the coordinator rebalanced", ("group.instance.id", "partition.assignment.strategy"),
       "restart static members while the group is Stable, with an unchanged partition.assignment.strategy"),
    _c("subscription change", "a member changed its subscription (subscribe() to other topics, or a pattern that "
       "matched another topic)", ("subscribe()", "metadata.max.age.ms"),
       "expected; give every member of the group the same subscription, and change it on all at once"),
    _c("metadata change", "the subscribed topics changed: partitions added, or a topic created or deleted",
       ("metadata.max.age.ms",), "expected once per change; add partitions rarely and in one step"),
    _c("cooperative rejoin", "the second rebalance of an incremental cooperative rebalance: a member revoked "
       "partitions in the first and rejoins so they can be assigned", ("partition.assignment.strategy",),
       "expected after a cooperative rebalance that moved partitions; its cause is the rebalance before it"),
    _c("rejoin", "a member rejoined after a failed rebalance or an error response", ("session.timeout.ms",
       "max.poll.interval.ms"), "see the client's reason: an error (REBALANCE_IN_PROGRESS, UNKNOWN_MEMBER_ID, "
       "ILLEGAL_GENERATION) means the member missed the previous rebalance"),
    _c("enforced rebalance", "the application called enforceRebalance()", ("enforceRebalance()",),
       "the application's own decision"),
    _c("coordinator error", "the coordinator could not store the group's assignment", ("broker:offsets.topic.*",),
       "look at the broker's __consumer_offsets partition (replicas, disk)"),
    _c("group over capacity", "the loaded group had more members than group.max.size", ("broker:group.max.size",),
       "raise group.max.size or run fewer members"),
    _c("protocol migration", "the group moved between the classic and the consumer protocol",
       ("group.protocol", "broker:group.consumer.migration.policy"), "move all members at once"),
    _c("unknown", "the log does not show what started it (a line before it is missing, or the release writes it only "
       "at DEBUG)", (), "give the clients' logs too, or the broker's at DEBUG for "
       "org.apache.kafka.coordinator.group.GroupMetadataManager"),
    _c("other", "the coordinator gave a reason this reader does not know", (), "read the broker's reason text"),
)}

#: every kind a rebalance line may carry
KINDS = tuple(CAUSES)

#: causes of a series of rebalances (see :mod:`rebalance.diagnose.summary`)
SERIES_CAUSES: Dict[str, Cause] = {c.kind: c for c in (
    _c("join storm", "members joined one after another, each join a rebalance of its own",
       ("broker:group.initial.rebalance.delay.ms",),
       "start the members together and let group.initial.rebalance.delay.ms (3 s by default) cover their starts; "
       "the consumer protocol does not stop the group for a join"),
    _c("rolling restart", "members left and the same clients joined again as new members: restarts",
       ("group.instance.id", "session.timeout.ms"),
       "static membership: group.instance.id on each member and session.timeout.ms longer than one restart"),
    _c("restart", "a member left and the same client joined again as a new member: a restart",
       ("group.instance.id", "session.timeout.ms"),
       "static membership: group.instance.id and session.timeout.ms longer than the restart"),
    _c("static member restart beyond session timeout", "a static member was away longer than its session "
       "timeout: it was removed, and its return was a join", _SESSION_CLASSIC,
       "session.timeout.ms longer than the restart"),
    _c("repeated poll timeouts", "a member's processing exceeded max.poll.interval.ms again and again",
       ("max.poll.interval.ms", "max.poll.records"),
       "max.poll.interval.ms longer than the slowest batch, or fewer records per poll (max.poll.records)"),
    _c("repeated session timeouts", "members kept losing their sessions", _SESSION_CLASSIC,
       "session.timeout.ms longer than the longest pause; look at GC logs and the members' load"),
)}


def cause_for(kind: str, protocol: str) -> Cause:
    """The cause of ``kind`` for a group of ``protocol`` (``classic`` or ``consumer``): the consumer protocol's
    session timeout and heartbeat interval are the broker's (or the group's) settings, and its joins wait for no
    initial delay (``group.initial.rebalance.delay.ms`` is the classic protocol's)."""
    cause = CAUSES.get(kind) or SERIES_CAUSES.get(kind) or CAUSES["other"]
    if protocol == "consumer" and kind == "join":
        return Cause(kind, cause.what, ("group.instance.id",),
                     "expected when the group grows: the consumer protocol moves only the partitions the new member "
                     "gets, and stops no other member; a restarted member that joins as new: see leave")
    if protocol == "consumer" and set(cause.settings) & set(_SESSION_CLASSIC):
        settings = tuple(s for s in cause.settings if s not in _SESSION_CLASSIC) + _SESSION_CONSUMER
        prevent = cause.prevent.replace("session.timeout.ms", "group.consumer.session.timeout.ms (broker) or the "
                                        "group's consumer.session.timeout.ms").replace(
            "heartbeat.interval.ms", "group.consumer.heartbeat.interval.ms")
        return Cause(cause.kind, cause.what, settings, prevent)
    return cause
