"""What started a rebalance, read from the reason texts Kafka writes.

A classic group's coordinator logs every rebalance with its reason (``GroupMetadataManager.prepareRebalance``
4.3.1, ``GroupCoordinator.prepareRebalance`` 3.9.2): who joined, left or failed, and, when a member's
``JoinGroup`` or ``LeaveGroup`` started it, the *client's* reason after ``client reason:`` -- the short reason the
consumer sent (``AbstractCoordinator.requestRejoin``'s ``shortReason`` 4.3.1, or its leave reason).
:func:`classify_coordinator_reason` reads the first, :func:`classify_client_reason` the second.  Every kind is a
key of :data:`rebalance.diagnose.causes.CAUSES`.

>>> t = classify_coordinator_reason("Adding new member c3-8f1e with group instance id null; client reason: "
...                                 "need to re-join with the given member-id: c3-8f1e")
>>> t.kind, t.member, t.instance_id
('join', 'c3-8f1e', None)
>>> classify_coordinator_reason("removing member c1-77 on heartbeat expiration.").kind
'session timeout'
>>> classify_client_reason("consumer poll timeout has expired.")
'poll timeout'
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional, Pattern, Tuple

__all__ = ["ReasonReading", "classify_coordinator_reason", "classify_client_reason", "no_instance"]


@dataclass(frozen=True)
class ReasonReading:
    """A reason read: the ``kind`` of trigger, the ``member`` id it names (or ``None``; several for a
    ``LeaveGroup`` of many: ``members``), its ``instance_id`` (``group.instance.id``), and the ``client_reason``
    inside it."""

    kind: str
    member: Optional[str] = None
    instance_id: Optional[str] = None
    client_reason: Optional[str] = None
    members: Tuple[str, ...] = ()


def no_instance(text: Optional[str]) -> Optional[str]:
    """``group.instance.id`` as printed -- ``null`` (4.x, Java), ``None`` (3.9, Scala), ``Some(x)`` -- or ``None``."""
    if text is None or text in ("null", "None", ""):
        return None
    m = re.fullmatch(r"Some\((.*)\)", text)
    return m.group(1) if m else text


#: the consumer's short reasons (kafka-clients 4.3.1: ``AbstractCoordinator``, ``ConsumerCoordinator``,
#: ``ClassicKafkaConsumer``) -> kind; first match wins
_CLIENT_REASONS: List[Tuple[Pattern[str], str]] = [
    (re.compile(r"^consumer poll timeout has expired"), "poll timeout"),
    (re.compile(r"^the consumer is being closed"), "leave"),
    (re.compile(r"^the consumer unsubscribed from all topics"), "leave"),
    (re.compile(r"^need to re-join with the given member-id"), "join"),
    (re.compile(r"^need to revoke partitions and re-join"), "cooperative rejoin"),
    (re.compile(r"^cached metadata has changed"), "metadata change"),
    (re.compile(r"^subscription has changed"), "subscription change"),
    (re.compile(r"^received assignment does not match the current subscription"), "subscription change"),
    (re.compile(r"^rebalance enforced by user"), "enforced rebalance"),
    (re.compile(r"^(?:rebalance failed|encountered \w+ from \w+ response|group is already rebalancing|"
                r"offset commit failed since group is already rebalancing|consumer pro-actively leaving)"), "rejoin"),
]


def classify_client_reason(reason: Optional[str]) -> Optional[str]:
    """The kind a consumer's own reason names (``"consumer poll timeout has expired."`` -> ``poll timeout``), or
    ``None`` when it names none (``not provided``, an application's own reason text)."""
    if not reason:
        return None
    for regex, kind in _CLIENT_REASONS:
        if regex.match(reason.strip()):
            return kind
    return None


_MEMBER = r"(?P<member>\S+?)"
_CR = r"(?:; client reason: (?P<client>.*))?"
#: the coordinator's reasons (GroupMetadataManager 4.3.1; GroupCoordinator 3.9.2 where it differs) -> kind (a
#: kind of ``None``: the client's reason decides, else ``rejoin``)
_COORDINATOR_REASONS: List[Tuple[Pattern[str], Optional[str]]] = [
    (re.compile(rf"^Adding new member {_MEMBER} with group instance id (?P<instance>.+?){_CR}\.?$"), "join"),
    (re.compile(rf"^[Rr]emoving member {_MEMBER} on heartbeat expiration\.?$"), "session timeout"),
    (re.compile(r"^explicit `LeaveGroup` request for \((?P<members>[^)]*)\) members\.?$"), "leave"),
    (re.compile(rf"^Removing member {_MEMBER} on LeaveGroup{_CR}\.?$"), "leave"),   # 3.9.2
    (re.compile(rf"^Updating metadata for static member {_MEMBER} with instance id (?P<instance>.+?){_CR}\.?$"),
     "static replacement"),
    (re.compile(rf"^Group's selectedProtocol will change because static member {_MEMBER} with instance id "
                rf"(?P<instance>.+?) joined with change of protocol{_CR}\.?$"), "static replacement"),
    (re.compile(rf"^Leader {_MEMBER} re-joining group during \w+{_CR}\.?$"), None),
    (re.compile(rf"^Updating metadata for member {_MEMBER} during \w+{_CR}\.?$"), None),
    (re.compile(rf"^Member {_MEMBER} is joining group during \w+{_CR}\.?$"), None),
    (re.compile(r"^Removing (?P<members>.*) on pending sync request expiration\.?$"), "sync timeout"),
    (re.compile(rf"^Error \w+ when storing group assignment ?during SyncGroup \(member: {_MEMBER}\)\.?$"),
     "coordinator error"),
    (re.compile(r"^Freshly-loaded group .*(?:is )?over capacity.*$"), "group over capacity"),
    (re.compile(r"^Downgrade group .* from consumer to classic.*$"), "protocol migration"),
]


def classify_coordinator_reason(reason: str) -> ReasonReading:
    """The trigger a classic coordinator's ``(reason: ...)`` names; an unknown text is kind ``other``."""
    text = reason.strip()
    for regex, kind in _COORDINATOR_REASONS:
        m = regex.match(text)
        if m is None:
            continue
        groups = m.groupdict()
        client = groups.get("client")
        members: Tuple[str, ...] = ()
        if groups.get("members") is not None:
            members = tuple(x.strip() for x in re.split(r",\s*", groups["members"].strip("[]() ").removeprefix("Set("))
                            if x.strip())
        member = groups.get("member") or (members[0] if members else None)
        instance = no_instance(groups.get("instance"))
        if kind is None:  # a known member's JoinGroup: its own reason says why
            kind = classify_client_reason(client) or "rejoin"
        return ReasonReading(kind, member, instance, client, members)
    return ReasonReading("other")
