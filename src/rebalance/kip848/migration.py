"""Moving a running group between the classic and the consumer protocol, member by member.

Kafka 4.3.1's group coordinator converts a group in ``GroupMetadataManager``: a classic group becomes a consumer
group when a member heartbeats with ``ConsumerGroupHeartbeat`` (``convertToConsumerGroup``, after
``validateOnlineUpgrade``), and a consumer group becomes a classic group again when its last member on the
consumer protocol leaves and the others are classic (``convertToClassicGroup``, after
``validateOnlineDowngradeWithFencedMembers``).  The broker's ``group.consumer.migration.policy``
(``ConsumerGroupMigrationPolicy``) says which of the two it allows.

* :class:`ConsumerGroupMigrationPolicy` -- the four policies and what each allows;
* :func:`online_migration_scenario` -- a ``simulate --on kafka`` scenario of a classic group whose members are
  bounced one by one to ``group.protocol=consumer`` and then back (a member's ``group_protocol``);
* :func:`migration_steps` -- what the run of that scenario says: the group's type after each bounce.

Defined in chapter 18, *Moving to KIP-848*.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Sequence

from ..common import KafkaName
from ..errors import InputError
from ..validation import require

__all__ = ["ConsumerGroupMigrationPolicy", "online_migration_scenario", "migration_steps"]


class ConsumerGroupMigrationPolicy(KafkaName):
    """Kafka 4.3.1's ``org.apache.kafka.coordinator.group.ConsumerGroupMigrationPolicy``: the values of the broker's
    ``group.consumer.migration.policy`` (default ``bidirectional`` since Kafka 4.0, ``disabled`` before).

    Defined in chapter 18, *Moving to KIP-848*."""

    BIDIRECTIONAL = "bidirectional"
    UPGRADE = "upgrade"
    DOWNGRADE = "downgrade"
    DISABLED = "disabled"

    @property
    def is_upgrade_enabled(self) -> bool:
        """Whether a non-empty classic group is converted when a member heartbeats on the consumer protocol
        (else that member's heartbeat fails with ``GROUP_ID_NOT_FOUND``, ``validateOnlineUpgrade``)."""
        return self in (ConsumerGroupMigrationPolicy.BIDIRECTIONAL, ConsumerGroupMigrationPolicy.UPGRADE)

    @property
    def is_downgrade_enabled(self) -> bool:
        """Whether a consumer group is converted back when its last consumer-protocol member leaves and the rest
        are classic (else it stays a consumer group with classic members)."""
        return self in (ConsumerGroupMigrationPolicy.BIDIRECTIONAL, ConsumerGroupMigrationPolicy.DOWNGRADE)

    @property
    def classic_members_may_join_consumer_group(self) -> bool:
        """Whether a classic member may join or rejoin a consumer group (``DISABLED`` refuses it with
        ``INCONSISTENT_GROUP_PROTOCOL``, ``throwIfClassicMemberCannotJoinConsumerGroup``)."""
        return self is not ConsumerGroupMigrationPolicy.DISABLED

    @classmethod
    def parse(cls, name: object) -> "ConsumerGroupMigrationPolicy":
        """The policy of a setting's value, case-insensitive; a value the broker's config validator
        (``CaseInsensitiveValidString``) refuses is an :class:`~rebalance.errors.InputError`."""
        for p in cls:
            if isinstance(name, str) and name.lower() == p.value:
                return p
        raise InputError("group.consumer.migration.policy",
                         f"must be one of {', '.join(p.value for p in cls)}, got {name!r}")


def online_migration_scenario(members: int = 3, *, partitions: int = 6, first_bounce_ms: int = 10_000,
                              step_ms: int = 4_000, down_ms: int = 500, heartbeat_interval_ms: int = 1_000,
                              session_timeout_ms: int = 10_000) -> Dict[str, Any]:
    """A ``simulate --on kafka`` scenario (:func:`rebalance.kafka.run_scenario`) of an online migration and its
    rollback: a cooperative classic group of ``members`` consumers (``c1``...) on a topic of ``partitions``
    partitions; from ``first_bounce_ms``, every ``step_ms``, one member is bounced (closed, and ``down_ms`` later
    its replacement joins): first each ``cN`` to ``kN`` on ``group.protocol=consumer`` (the upgrade), then each
    ``kN`` to ``dN`` on the classic protocol again (the downgrade).  Every member, whatever its protocol, gets
    the scenario's ``heartbeat_interval_ms`` and ``session_timeout_ms`` (the consumer-protocol members from the
    broker's ``group.consumer.*``).  The run ends ``step_ms`` after the last bounce.

    Defined in chapter 18, *Moving to KIP-848*."""
    for value, field, low in ((members, "members", 1), (partitions, "partitions", 1), (first_bounce_ms, "first_bounce_ms", 0),
                              (step_ms, "step_ms", 1), (down_ms, "down_ms", 0),
                              (heartbeat_interval_ms, "heartbeat_interval_ms", 1),
                              (session_timeout_ms, "session_timeout_ms", 1)):
        require(isinstance(value, int) and not isinstance(value, bool) and value >= low, field,
                f"must be a whole number >= {low}, got {value!r}")
    require(down_ms < step_ms, "down_ms", f"must be shorter than step_ms ({step_ms}), got {down_ms}")
    names = [[f"{prefix}{i + 1}" for i in range(members)] for prefix in ("c", "k", "d")]
    group: List[Dict[str, Any]] = [{"id": n} for n in names[0]]
    group += [{"id": n, "group_protocol": "consumer"} for n in names[1]]
    group += [{"id": n} for n in names[2]]
    events: List[Dict[str, Any]] = [{"at_ms": 0, "op": "join", "member": n} for n in names[0]]
    at = first_bounce_ms
    for old, new in list(zip(names[0], names[1])) + list(zip(names[1], names[2])):
        events += [{"at_ms": at, "op": "leave", "member": old}, {"at_ms": at + down_ms, "op": "join", "member": new}]
        at += step_ms
    return {"id": "online-migration", "protocol": "cooperative", "topics": {"migrating": partitions},
            "members": group, "config": {"heartbeat_interval_ms": heartbeat_interval_ms,
                                         "session_timeout_ms": session_timeout_ms},
            "events": events, "until_ms": at, "measure_from_ms": first_bounce_ms}


def migration_steps(scenario: Mapping[str, Any], lines: Sequence[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """The group's type after each bounce of a migration run: ``scenario`` (as :func:`online_migration_scenario`
    gives it) and the ``lines`` :func:`rebalance.kafka.run_scenario` returned for it, whose summary carries the
    ``group_types`` the observer saw.  One row per bounce: the member that left, the one that joined and its
    ``group.protocol``, and the group's type from that join until the next bounce (the last type observed
    before the next member left; the type at the start for the first rows if none changed).

    Defined in chapter 18, *Moving to KIP-848*."""
    require(bool(lines) and "summary" in lines[-1], "lines", "must end with run_scenario's summary line")
    types = lines[-1]["summary"].get("group_types")
    require(isinstance(types, list) and len(types) > 0, "lines",
            "the summary has no group_types: run a scenario whose members differ in group_protocol")
    protocol = {m["id"]: m.get("group_protocol", "classic") for m in scenario["members"]}
    events = list(scenario["events"])
    leaves = [e for e in events if e["op"] == "leave"]
    rows = []
    for i, leave in enumerate(leaves):
        join = next(e for e in events if e["op"] == "join" and e["at_ms"] >= leave["at_ms"])
        until = leaves[i + 1]["at_ms"] if i + 1 < len(leaves) else scenario["until_ms"]
        seen = [t["type"] for t in types if t["at_ms"] < until]
        rows.append({"step": i + 1, "left": leave["member"], "joined": join["member"],
                     "its group.protocol": protocol[join["member"]],
                     "group type after": seen[-1] if seen else types[0]["type"]})
    return rows
