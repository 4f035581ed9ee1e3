"""The group lines of Kafka's logs, one pattern per line Kafka writes, per release.

Each :class:`LinePattern` names the Kafka class that writes the line, the releases that write it in that form, the
level it is written at, and the event it becomes (:class:`LineEvent`).  The texts are those of the released
sources: the broker's group coordinator of 4.3.1 (``org.apache.kafka.coordinator.group.GroupMetadataManager``,
``classic.ClassicGroup``), of 3.9.2 (the Scala ``kafka.coordinator.group.GroupCoordinator``, the default there,
and the Java ``GroupMetadataManager`` of its new coordinator, where some lines differ: ``Bumped group epoch to N.``
without the metadata hash, ``Static Member``, subscription and assignment lines at INFO), and the consumer's
group code in ``kafka-clients`` 4.3.1 (``AbstractCoordinator``, ``ConsumerCoordinator``,
``ConsumerRebalanceListenerInvoker`` of the classic consumer; ``AbstractMembershipManager`` and
``AbstractHeartbeatRequestManager`` of the consumer of ``group.protocol=consumer``).

What a 4.3.1 broker logs at INFO (its default level), and what it does not:

* classic groups (``ClassicGroup``): every rebalance, with its reason: ``Preparing to rebalance group G in state
  PreparingRebalance with old generation N (reason: ...)``, the member that joined, left or failed, ``Stabilized
  group G generation N with M members``, ``Assignment received from leader ...``;
* consumer groups (KIP-848): a member's join, leave and fencing, each ``Bumped group epoch to N with metadata
  hash H`` and ``Computed a new target assignment for epoch N``; *not* (DEBUG only since 4.0) a member's new
  subscription (``updated its subscribed topics``), the new metadata hash of a partition count change, nor the
  members' reconciliation (``new assignment state: epoch=...``), so a bump with no member line before it is a
  subscription or metadata change whose member the log does not name, and when a member has reached the new
  epoch is not in the log.

The clients' lines start with their ``LogContext``: ``[Consumer clientId=C, groupId=G] `` (``[Consumer
instanceId=I, clientId=C, groupId=G] `` for a static member), which gives the client id of a member id.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Pattern, Tuple

from .layout import LogRecord

__all__ = ["LinePattern", "LineEvent", "LINE_PATTERNS", "GROUP_LOGGERS", "match_record"]


@dataclass(frozen=True)
class LinePattern:
    """One line Kafka writes: ``event`` (what it becomes), ``side`` (``broker`` or ``client``), the Kafka class
    and releases that write it, the level, and the regular expression of its message (named groups: ``group``,
    ``member``, ``instance``, ``generation``, ``epoch``, ``reason``...)."""

    event: str
    side: str
    kafka_class: str
    releases: str
    level: str
    regex: Pattern[str]


@dataclass(frozen=True)
class LineEvent:
    """A recognised line: its pattern's ``event`` and ``side``, the named ``fields`` of the match (plus
    ``client_id``, ``instance`` and ``group`` from a client's ``LogContext``), its record, and where it is
    (``file``, ``line`` number from 1)."""

    event: str
    side: str
    fields: Dict[str, str]
    record: LogRecord
    file: str
    line: int
    pattern: LinePattern = field(compare=False, repr=False)

    @property
    def group(self) -> Optional[str]:
        return self.fields.get("group")

    @property
    def at_ms(self) -> int:
        return self.record.at_ms


_G = r"(?P<group>.+?)"           # a group id: any text, up to the words that follow it
_M = r"(?P<member>\S+?)"         # a member id: no spaces
_GM = "org.apache.kafka.coordinator.group.GroupMetadataManager"
_SCALA = "kafka.coordinator.group.GroupCoordinator"
_CLASSIC = "org.apache.kafka.coordinator.group.classic.ClassicGroup"
_CLIENT = "org.apache.kafka.clients.consumer.internals."


def _p(event: str, side: str, kafka_class: str, releases: str, level: str, regex: str) -> LinePattern:
    return LinePattern(event, side, kafka_class, releases, level, re.compile(regex + r"\s*$"))


#: every pattern, broker lines first; the first that matches a message wins
LINE_PATTERNS: Tuple[LinePattern, ...] = (
    # ---- classic groups: the 4.3.1 GroupMetadataManager (ClassicGroup) and the 3.9.2 Scala GroupCoordinator
    _p("prepare", "broker", _GM + " / " + _SCALA, "3.9, 4.x", "INFO",
       rf"^Preparing to rebalance group {_G} in state (?P<state>\w+) with old generation (?P<generation>-?\d+)"
       r"(?: \(__consumer_offsets-\d+\))? \(reason: (?P<reason>.*)\)\.?"),
    _p("stabilized", "broker", _GM + " / " + _SCALA, "3.9, 4.x", "INFO",
       rf"^Stabilized group {_G} generation (?P<generation>-?\d+)(?: \(__consumer_offsets-\d+\))? with "
       r"(?P<count>\d+) members\.?"),
    _p("empty", "broker", _GM + " / " + _SCALA, "3.9, 4.x", "INFO",
       rf"^Group {_G} with generation (?P<generation>-?\d+) is now empty(?: \(__consumer_offsets-\d+\))?\.?"),
    _p("assignment_received", "broker", _GM + " / " + _SCALA, "3.9, 4.x", "INFO",
       rf"^Assignment received from leader {_M} for group {_G} for generation (?P<generation>-?\d+)\. "
       r"The group has (?P<count>\d+) members, (?P<static>\d+) of which are static\.?"),
    _p("dynamic_pending", "broker", _GM + " / " + _SCALA, "3.9, 4.x", "INFO",
       rf"^Dynamic member with unknown member id joins group {_G} in (?:state )?(?P<state>\w+)(?: state)?\. "
       rf"Created a new member id {_M} and request(?:ing)? the member to rejoin with this id\.?"),
    _p("member_added", "broker", _GM, "4.x", "INFO",
       rf"^Dynamic member with unknown member id joins group {_G} in state (?P<state>\w+)\. "
       rf"Created a new member id {_M} and added the member to the group\.?"),
    _p("member_added", "broker", _SCALA, "3.9", "INFO",
       rf"^Dynamic Member with unknown member id joins group {_G} in (?P<state>\w+) state\. "
       rf"Created a new member id {_M} for this member and add to the group\.?"),
    _p("member_added", "broker", _GM + " / " + _SCALA, "4.x (3.9 at DEBUG)", "INFO",
       rf"^Pending dynamic member with id {_M} joins group {_G} in (?P<state>\w+) state\. Adding to the group now\.?"),
    _p("static_added", "broker", _GM + " / " + _SCALA, "3.9, 4.x", "INFO",
       r"^Static member with groupInstanceId=(?P<instance>.+?) and unknown member id joins group "
       rf"{_G} in (?P<state>\w+) state\. Created a new member id {_M} for this member and add(?:ed)? to the group\.?"),
    _p("static_replaced", "broker", _GM + " / " + _SCALA, "3.9, 4.x", "INFO",
       r"^Static member with groupInstanceId=(?P<instance>.+?) and unknown member id joins group "
       rf"{_G} in (?P<state>\w+) state\. Replacing previously mapped member (?P<old>\S+?) with this groupInstanceId\.?"),
    _p("static_no_rebalance", "broker", _GM + " / " + _SCALA, "3.9, 4.x", "INFO",
       r"^Static member which joins during Stable stage and doesn't affect (?:the selected protocol|selectProtocol) "
       r"will not trigger (?:a )?rebalance\.?"),
    _p("member_failed", "broker", _GM + " / " + _SCALA, "3.9, 4.x", "INFO",
       rf"^Member {_M} in group {_G} has failed, removing it from the group\.?"),
    _p("pending_expired", "broker", _GM + " / " + _SCALA, "3.9, 4.x", "INFO",
       rf"^Pending member {_M} in group {_G} has been removed after session timeout expiration\.?"),
    _p("left", "broker", _GM, "4.x", "INFO",
       rf"^\[Group {_G}\] Member {_M} has left group through explicit `LeaveGroup` request; client reason: "
       r"(?P<reason>.*)"),
    _p("left", "broker", _GM, "4.x", "INFO",
       rf"^\[GroupId {_G}\] Dynamic member {_M} has left group through explicit `LeaveGroup` request; "
       r"client reason: (?P<reason>.*)"),
    _p("left", "broker", _GM, "4.x", "INFO",
       rf"^\[GroupId {_G}\] Static member {_M} with instance id (?P<instance>.+?) has left group through explicit "
       r"`LeaveGroup` request; client reason: (?P<reason>.*)"),
    _p("left", "broker", _SCALA, "3.9", "INFO",
       r"^Member MemberMetadata\(memberId=(?P<member>[^,]+), groupInstanceId=(?:Some\((?P<instance>[^)]*)\)|None), "
       rf"clientId=(?P<client_id>[^,]*),.*\) has left group {_G} through explicit `LeaveGroup`; client reason: "
       r"(?P<reason>.*)"),
    _p("pending_left", "broker", _GM, "4.x", "INFO",
       rf"^\[Group {_G}\] Pending member {_M} has left group through explicit `LeaveGroup` request; client reason: "
       r"(?P<reason>.*)"),
    _p("pending_left", "broker", _SCALA, "3.9", "INFO",
       rf"^Pending member with memberId={_M} has left group {_G} through explicit `LeaveGroup` request"),
    _p("removed_not_joined", "broker", _GM + " / " + _SCALA, "3.9, 4.x", "INFO",
       rf"^Group {_G} removed dynamic members who haven't joined: (?:Set\(|\[)(?P<members>[^\])]*)[\])]\.?"),
    _p("leader_not_joined", "broker", _CLASSIC, "4.x", "INFO",
       r"^Group leader \[memberId: (?P<member>[^,]+), groupInstanceId: (?P<instance>[^\]]+)\] failed to join "
       r"before the rebalance timeout(?P<rest>.*)"),
    _p("no_rejoin", "broker", _GM + " / " + _SCALA, "3.9, 4.x", "ERROR",
       rf"^Group {_G} could not complete rebalance because no members rejoined\.?"),
    _p("instance_fenced", "broker", _CLASSIC + " / " + _SCALA, "3.9, 4.x", "INFO",
       r"^Request memberId=(?P<member>\S+) for static member with groupInstanceId=(?P<instance>\S+) is fenced by "
       r"(?:existing|current) memberId=(?P<existing>\S+) during operation (?P<operation>\S+)"),
    _p("loaded", "broker", _GM, "4.x", "INFO",
       rf"^Loaded (?P<type>classic|consumer|share|streams) group {_G} with (?P<count>\d+) members\.?"),
    _p("unloaded", "broker", _GM, "3.9, 4.x", "INFO",
       rf"^\[GroupId={_G}\] Unload(?:ed|ing) group metadata for (?:group epoch|generation) (?P<generation>-?\d+)\.?"),
    _p("unloaded", "broker", _SCALA, "3.9", "INFO",
       rf"^(?:Unloading|Loading) group metadata for {_G} with generation (?P<generation>-?\d+)"),
    # ---- consumer groups (KIP-848): the GroupMetadataManager of 4.3.1 and of 3.9.2's new coordinator
    _p("c_join", "broker", _GM, "3.9, 4.x", "INFO",
       rf"^\[GroupId {_G}\] Member {_M} joins the consumer group using the (?P<protocol>\w+) protocol\.?"),
    _p("c_static_join", "broker", _GM, "3.9, 4.x", "INFO",
       rf"^\[GroupId {_G}\] Static member {_M} with instance id (?P<instance>.+?) joins the consumer group "
       r"using the (?P<protocol>\w+) protocol\.?"),
    _p("c_static_replaced", "broker", _GM, "3.9, 4.x", "INFO",
       rf"^\[GroupId {_G}\] Static member with instance id (?P<instance>.+?) re-joins the consumer group using the "
       rf"(?P<protocol>\w+) protocol\. Created a new member {_M} to replace the existing member (?P<old>\S+?)\.?"),
    _p("c_bump", "broker", _GM, "4.x (3.9 without the hash)", "INFO",
       rf"^\[GroupId {_G}\] Bumped group epoch to (?P<epoch>-?\d+)(?: with metadata hash (?P<hash>-?\d+))?\.?"),
    _p("c_target", "broker", _GM, "3.9, 4.x", "INFO",
       rf"^\[GroupId {_G}\] Computed a new target assignment for epoch (?P<epoch>-?\d+) with '(?P<assignor>[^']*)' "
       r"assignor in (?P<ms>\d+)ms(?::.*|\.)?"),
    _p("c_left", "broker", _GM, "3.9, 4.x", "INFO",
       rf"^\[GroupId {_G}\] Member {_M} left the consumer group\.?"),
    _p("c_static_temporarily_left", "broker", _GM, "3.9 ('Static Member'), 4.x", "INFO",
       rf"^\[GroupId {_G}\] Static [Mm]ember {_M} with instance id (?P<instance>.+?) temporarily left the consumer "
       r"group\.?"),
    _p("c_static_left", "broker", _GM, "3.9 ('Static Member'), 4.x", "INFO",
       rf"^\[GroupId {_G}\] Static [Mm]ember {_M} with instance id (?P<instance>.+?) left the consumer group\.?"),
    _p("c_fenced", "broker", _GM, "3.9, 4.x", "INFO",
       rf"^\[GroupId {_G}\] Member {_M} fenced from the group because (?P<reason>.*?)\.?"),
    _p("c_subscription", "broker", _GM, "3.9 (4.x at DEBUG)", "INFO",
       rf"^\[GroupId {_G}\] Member {_M} updated its subscribed (?P<what>topics|regex) to: (?P<topics>.*?)\.?"),
    _p("c_metadata", "broker", _GM, "4.x at DEBUG", "DEBUG",
       rf"^\[GroupId {_G}\] Computed new metadata hash: (?P<hash>-?\d+)\.?"),
    _p("c_metadata", "broker", _GM, "3.9", "INFO",
       rf"^\[GroupId {_G}\] Computed new subscription metadata: (?P<metadata>.*?)\.?"),
    _p("c_assignment_state", "broker", _GM, "3.9 (4.x at DEBUG)", "INFO",
       rf"^\[GroupId {_G}\] Member {_M} new assignment state: epoch=(?P<epoch>-?\d+), previousEpoch=(?P<previous>-?\d+), "
       r"state=(?P<state>\w+), assignedPartitions=(?P<assigned>.*?)(?: and revokedPartitions=(?P<revoked>.*?))?\.?"),
    _p("c_unknown_classic_member", "broker", _GM, "3.9, 4.x", "INFO",
       rf"^\[GroupId {_G}\] Dynamic member with unknown member id joins the consumer group\. Created a new member id "
       rf"{_M} and requesting the member to rejoin with this id\.?"),
    _p("c_converted", "broker", _GM, "4.x", "INFO",
       rf"^\[GroupId {_G}\] Converted the (?:empty )?(?P<from>classic|consumer|streams) group to an? "
       r"(?P<to>classic|consumer|streams) group\.?"),
    _p("other_group_type", "broker", _GM, "4.x", "INFO",
       rf"^\[GroupId {_G}\](?:\[MemberId [^\]]*\])? .*\b(?:share|streams) (?:group|member)\b.*"),
    _p("other_group_type", "broker", _GM, "4.x", "INFO",
       rf"^\[GroupId {_G}\] Streams member .*"),
    # ---- clients (after their LogContext prefix): kafka-clients 4.3.1
    _p("k_request_join", "client", _CLIENT + "AbstractCoordinator", "3.9, 4.x", "INFO",
       r"^Request joining group due to: (?P<reason>.*)"),
    _p("k_poll_timeout", "client", _CLIENT + "AbstractCoordinator / AbstractHeartbeatRequestManager", "3.9, 4.x",
       "WARN", r"^[Cc]onsumer poll timeout has expired\..*"),
    _p("k_poll_rejoin", "client", _CLIENT + "AbstractHeartbeatRequestManager", "4.x", "WARN",
       r"^Time between subsequent calls to poll\(\) was longer than the configured max\.poll\.interval\.ms, exceeded "
       rf"approximately by (?P<ms>\d+) ms\. Member {_M} will rejoin the group now\.?"),
    _p("k_leave", "client", _CLIENT + "AbstractCoordinator", "3.9, 4.x", "INFO",
       rf"^Member {_M} sending LeaveGroup request to coordinator (?P<coordinator>.+?) due to (?P<reason>.*)"),
    _p("k_leave", "client", _CLIENT + "ConsumerMembershipManager", "4.x", "INFO",
       rf"^Member {_M} is triggering callbacks to release assignment (?P<assignment>.*) and leave group"),
    _p("k_joined", "client", _CLIENT + "AbstractCoordinator", "3.9, 4.x", "INFO",
       r"^Successfully joined group with generation Generation\{generationId=(?P<generation>-?\d+), "
       r"memberId='(?P<member>[^']*)', protocol='(?P<protocol>[^']*)'\}"),
    _p("k_synced", "client", _CLIENT + "AbstractCoordinator", "3.9, 4.x", "INFO",
       r"^Successfully synced group in generation Generation\{generationId=(?P<generation>-?\d+), "
       r"memberId='(?P<member>[^']*)', protocol='(?P<protocol>[^']*)'\}"),
    _p("k_transition", "client", _CLIENT + "AbstractMembershipManager", "3.9, 4.x", "INFO",
       rf"^Member {_M} with epoch (?P<epoch>-?\d+) transitioned from (?P<from>\w+) to (?P<to>\w+)\.?"),
    _p("k_reset", "client", _CLIENT + "AbstractCoordinator", "3.9, 4.x", "INFO",
       r"^Resetting generation (?:and member id )?due to: (?P<reason>.*)"),
    _p("k_heartbeat_failed", "client", _CLIENT + "AbstractCoordinator", "3.9, 4.x", "INFO",
       r"^Attempt to heartbeat with (?P<generation>Generation\{.*\}) and group instance id (?P<instance>\S+) failed "
       r"due to (?P<error>\w+), resetting generation"),
    _p("k_assigned", "client", _CLIENT + "ConsumerRebalanceListenerInvoker", "3.9, 4.x", "INFO",
       r"^Adding newly assigned partitions: ?(?P<partitions>.*)"),
    _p("k_revoked", "client", _CLIENT + "ConsumerRebalanceListenerInvoker", "3.9, 4.x", "INFO",
       r"^Revoke previously assigned partitions ?(?P<partitions>.*)"),
    _p("k_lost", "client", _CLIENT + "ConsumerRebalanceListenerInvoker", "3.9, 4.x", "INFO",
       r"^Lost previously assigned partitions ?(?P<partitions>.*)"),
    _p("k_rejoining", "client", _CLIENT + "AbstractCoordinator", "3.9, 4.x", "INFO", r"^\(Re-\)joining group"),
)

#: the loggers whose every line is a group coordinator's: a line of theirs that no pattern reads is counted as
#: "not recognised" (a release whose text differs); the other loggers' lines are other news of the broker
GROUP_LOGGERS = ("org.apache.kafka.coordinator.group.GroupMetadataManager", "kafka.coordinator.group.GroupCoordinator",
                 "org.apache.kafka.coordinator.group.classic.ClassicGroup")

_BROKER_PREFIX = re.compile(r"^\[GroupCoordinator[^\]]{0,200}\]:?\s+")
_CLIENT_PREFIX = re.compile(r"^\[Consumer (?:instanceId=(?P<instance>[^,\]]*), )?clientId=(?P<client_id>[^,\]]*), "
                            r"groupId=(?P<group>[^\]]*)\]\s+")


def _candidates(side: str) -> List[LinePattern]:
    return [p for p in LINE_PATTERNS if p.side == side]


_BROKER = _candidates("broker")
_CLIENTS = _candidates("client")


def match_record(record: LogRecord, file: str, line: int) -> Optional[LineEvent]:
    """The event of a record that one of :data:`LINE_PATTERNS` reads, else ``None``.  A client's line must carry a
    consumer's ``LogContext`` (its client id and group); a broker's may carry the coordinator's prefix."""
    message = record.message
    client = _CLIENT_PREFIX.match(message)
    if client is not None:
        text = message[client.end():]
        for p in _CLIENTS:
            m = p.regex.match(text)
            if m is not None:
                fields = {k: v for k, v in m.groupdict().items() if v is not None}
                fields.update({k: v for k, v in client.groupdict().items() if v is not None})
                return LineEvent(p.event, "client", fields, record, file, line, p)
        return None
    text = _BROKER_PREFIX.sub("", message, count=1)
    for p in _BROKER:
        m = p.regex.match(text)
        if m is not None:
            return LineEvent(p.event, "broker", {k: v for k, v in m.groupdict().items() if v is not None}, record,
                             file, line, p)
    return None
