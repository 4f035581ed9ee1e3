"""Every pattern of ``rebalance.diagnose.patterns`` reads a line of the form its Kafka class writes (the released
sources of 4.3.1 and 3.9.2), the reason texts become kinds, and a 3.9 Scala coordinator's log, a consumer group's
DEBUG lines and the consumers' own logs give the triggers they should.  The sample lines are written here from the
format strings of those releases, with made-up ids; the real 4.3.1 broker's lines are in ``test_fixtures.py``
and ``test_real_logs.py``."""
from __future__ import annotations

import pytest

from rebalance.diagnose import (CAUSES, LINE_PATTERNS, classify_client_reason, classify_coordinator_reason, diagnose_text,
                                match_record, split_record)
from rebalance.diagnose.causes import cause_for

GM = "org.apache.kafka.coordinator.group.GroupMetadataManager"
SCALA = "kafka.coordinator.group.GroupCoordinator"
P431 = "[GroupCoordinator id=1 topic=__consumer_offsets partition=0] "
P39 = "[GroupCoordinator 1]: "
CL = "[Consumer clientId=c1, groupId=g] "
U1 = "c1-5d283b65-fe25-4735-9143-ee3f7f195b71"
U2 = "c2-f55cefaa-71fb-4aaf-bdb7-8ea1fc58381e"

#: (message after the time and level, logger, the event it must become, fields it must have)
SAMPLES = [
    (P431 + f"Preparing to rebalance group g in state PreparingRebalance with old generation 3 (reason: explicit "
     f"`LeaveGroup` request for ({U2}) members.).", GM, "prepare", {"group": "g", "generation": "3"}),
    (P39 + f"Preparing to rebalance group g in state PreparingRebalance with old generation 3 (__consumer_offsets-7) "
     f"(reason: removing member {U1} on heartbeat expiration)", SCALA, "prepare", {"group": "g"}),
    (P431 + "Stabilized group g generation 4 with 2 members.", GM, "stabilized", {"generation": "4", "count": "2"}),
    (P39 + "Stabilized group g generation 4 (__consumer_offsets-7) with 2 members", SCALA, "stabilized", {"count": "2"}),
    (P431 + "Group g with generation 6 is now empty.", GM, "empty", {"generation": "6"}),
    (P39 + "Group g with generation 6 is now empty (__consumer_offsets-7)", SCALA, "empty", {"group": "g"}),
    (P431 + f"Assignment received from leader {U1} for group g for generation 4. The group has 2 members, 0 of which "
     "are static.", GM, "assignment_received", {"member": U1, "generation": "4"}),
    (P431 + f"Dynamic member with unknown member id joins group g in Stable state. Created a new member id {U1} and "
     "requesting the member to rejoin with this id.", GM, "dynamic_pending", {"member": U1}),
    (P39 + f"Dynamic member with unknown member id joins group g in Stable state. Created a new member id {U1} and "
     "request the member to rejoin with this id.", SCALA, "dynamic_pending", {"member": U1}),
    (P431 + f"Dynamic member with unknown member id joins group g in state Stable. Created a new member id {U1} and "
     "added the member to the group.", GM, "member_added", {"member": U1}),
    (P39 + f"Dynamic Member with unknown member id joins group g in Stable state. Created a new member id {U1} for this "
     "member and add to the group.", SCALA, "member_added", {"member": U1}),
    (P431 + f"Pending dynamic member with id {U1} joins group g in Stable state. Adding to the group now.", GM,
     "member_added", {"member": U1, "group": "g"}),
    (P431 + f"Static member with groupInstanceId=i1 and unknown member id joins group g in Stable state. Created a new "
     f"member id i1-5d283b65-fe25-4735-9143-ee3f7f195b71 for this member and added to the group.", GM, "static_added",
     {"instance": "i1"}),
    (P39 + "Static member with groupInstanceId=i1 and unknown member id joins group g in Stable state. Created a new "
     "member id i1-5d283b65-fe25-4735-9143-ee3f7f195b71 for this member and add to the group.", SCALA, "static_added",
     {"instance": "i1"}),
    (P431 + "Static member with groupInstanceId=i1 and unknown member id joins group g in Stable state. Replacing "
     "previously mapped member i1-5d283b65-fe25-4735-9143-ee3f7f195b71 with this groupInstanceId.", GM,
     "static_replaced", {"instance": "i1", "old": "i1-5d283b65-fe25-4735-9143-ee3f7f195b71"}),
    (P431 + "Static member which joins during Stable stage and doesn't affect the selected protocol will not trigger a "
     "rebalance.", GM, "static_no_rebalance", {}),
    (P39 + "Static member which joins during Stable stage and doesn't affect selectProtocol will not trigger rebalance.",
     SCALA, "static_no_rebalance", {}),
    (P431 + f"Member {U1} in group g has failed, removing it from the group.", GM, "member_failed", {"member": U1}),
    (P39 + f"Member {U1} in group g has failed, removing it from the group", SCALA, "member_failed", {"member": U1}),
    (P431 + f"Pending member {U1} in group g has been removed after session timeout expiration.", GM, "pending_expired",
     {"member": U1}),
    (P431 + f"[Group g] Member {U1} has left group through explicit `LeaveGroup` request; client reason: the consumer "
     "is being closed", GM, "left", {"member": U1, "reason": "the consumer is being closed"}),
    (P431 + f"[GroupId g] Dynamic member {U1} has left group through explicit `LeaveGroup` request; client reason: "
     "member was removed by an admin", GM, "left", {"member": U1}),
    (P431 + f"[GroupId g] Static member {U1} with instance id i1 has left group through explicit `LeaveGroup` request; "
     "client reason: not provided", GM, "left", {"instance": "i1"}),
    (P39 + f"Member MemberMetadata(memberId={U1}, groupInstanceId=None, clientId=c1, clientHost=/127.0.0.1, "
     "sessionTimeoutMs=45000, rebalanceTimeoutMs=300000, supportedProtocols=List(range)) has left group g through "
     "explicit `LeaveGroup`; client reason: consumer poll timeout has expired.", SCALA, "left",
     {"member": U1, "client_id": "c1", "reason": "consumer poll timeout has expired."}),
    (P431 + f"[Group g] Pending member {U1} has left group through explicit `LeaveGroup` request; client reason: x", GM,
     "pending_left", {"member": U1}),
    (P39 + f"Pending member with memberId={U1} has left group g through explicit `LeaveGroup` request", SCALA,
     "pending_left", {"member": U1}),
    (P431 + f"Group g removed dynamic members who haven't joined: [{U1}]", GM, "removed_not_joined", {"members": U1}),
    (P39 + f"Group g removed dynamic members who haven't joined: Set({U1}, {U2})", SCALA, "removed_not_joined",
     {"members": f"{U1}, {U2}"}),
    (f"Group leader [memberId: {U1}, groupInstanceId: None] failed to join before the rebalance timeout and the group "
     "couldn't proceed to the next generation because no member joined.",
     "org.apache.kafka.coordinator.group.classic.ClassicGroup", "leader_not_joined", {"member": U1}),
    (P431 + "Group g could not complete rebalance because no members rejoined.", GM, "no_rejoin", {"group": "g"}),
    (f"Request memberId={U1} for static member with groupInstanceId=i1 is fenced by existing memberId={U2} during "
     "operation join-group", "org.apache.kafka.coordinator.group.classic.ClassicGroup", "instance_fenced",
     {"existing": U2}),
    (P431 + "Loaded classic group g with 3 members.", GM, "loaded", {"count": "3"}),
    (P431 + "[GroupId=g] Unloaded group metadata for group epoch 7.", GM, "unloaded", {"generation": "7"}),
    (P39 + "Unloading group metadata for g with generation 7", SCALA, "unloaded", {"group": "g"}),
    (P431 + "[GroupId g] Member rV6t60hwQ4KYHK-X8Xawow joins the consumer group using the consumer protocol.", GM,
     "c_join", {"member": "rV6t60hwQ4KYHK-X8Xawow", "protocol": "consumer"}),
    (P431 + "[GroupId g] Static member V-Qre9bKRl68ZA_-o_osHA with instance id i1 joins the consumer group using the "
     "consumer protocol.", GM, "c_static_join", {"instance": "i1"}),
    (P431 + "[GroupId g] Static member with instance id i1 re-joins the consumer group using the consumer protocol. "
     "Created a new member 6R8SXwnOQxSJ-uCXtVYPwQ to replace the existing member V-Qre9bKRl68ZA_-o_osHA.", GM,
     "c_static_replaced", {"member": "6R8SXwnOQxSJ-uCXtVYPwQ", "old": "V-Qre9bKRl68ZA_-o_osHA"}),
    (P431 + "[GroupId g] Bumped group epoch to 5 with metadata hash -2679752444348175190.", GM, "c_bump",
     {"epoch": "5", "hash": "-2679752444348175190"}),
    (P431 + "[GroupId g] Bumped group epoch to 5.", GM, "c_bump", {"epoch": "5"}),  # 3.9.2: no hash
    (P431 + "[GroupId g] Computed a new target assignment for epoch 5 with 'uniform' assignor in 0ms.", GM, "c_target",
     {"epoch": "5", "assignor": "uniform"}),
    (P431 + "[GroupId g] Member rV6t60hwQ4KYHK-X8Xawow left the consumer group.", GM, "c_left", {"member": "rV6t60hwQ4KYHK-X8Xawow"}),
    (P431 + "[GroupId g] Static member V-Q with instance id i1 temporarily left the consumer group.", GM,
     "c_static_temporarily_left", {"instance": "i1"}),
    (P431 + "[GroupId g] Static Member V-Q with instance id i1 left the consumer group.", GM, "c_static_left",
     {"instance": "i1"}),
    (P431 + "[GroupId g] Member JwSVaMyIRSKftixXrIa3-A fenced from the group because the member session expired.", GM,
     "c_fenced", {"reason": "the member session expired"}),
    (P431 + "[GroupId g] Member JwS fenced from the group because it failed to transition from epoch 7 within 2000ms.",
     GM, "c_fenced", {"reason": "it failed to transition from epoch 7 within 2000ms"}),
    (P431 + "[GroupId g] Member JwS updated its subscribed topics to: [t, u].", GM, "c_subscription", {"topics": "[t, u]"}),
    (P431 + "[GroupId g] Computed new metadata hash: 77.", GM, "c_metadata", {"hash": "77"}),
    (P431 + "[GroupId g] Computed new subscription metadata: {t=TopicMetadata(...)}.", GM, "c_metadata", {}),
    (P431 + "[GroupId g] Member JwS new assignment state: epoch=5, previousEpoch=4, state=STABLE, assignedPartitions="
     "[t-0] and revokedPartitions=[].", GM, "c_assignment_state", {"epoch": "5", "state": "STABLE"}),
    (P431 + f"[GroupId g] Dynamic member with unknown member id joins the consumer group. Created a new member id {U1} "
     "and requesting the member to rejoin with this id.", GM, "c_unknown_classic_member", {"member": U1}),
    (P431 + "[GroupId g] Converted the empty classic group to a consumer group.", GM, "c_converted", {"to": "consumer"}),
    (P431 + "[GroupId g] Member x joins the share group using the share protocol.", GM, "other_group_type", {}),
    (P431 + "[GroupId g] Streams member x fenced from the group because the member session expired.", GM,
     "other_group_type", {}),
    (CL + "Request joining group due to: need to re-join with the given member-id: " + U1,
     "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator", "k_request_join", {"client_id": "c1"}),
    (CL + "consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than "
     "the configured max.poll.interval.ms, which typically implies that the poll loop is spending too much time "
     "processing messages.", "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator", "k_poll_timeout",
     {"group": "g"}),
    (CL + "Consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer than "
     "the configured max.poll.interval.ms.", "org.apache.kafka.clients.consumer.internals.ConsumerHeartbeatRequestManager",
     "k_poll_timeout", {}),
    (CL + "Time between subsequent calls to poll() was longer than the configured max.poll.interval.ms, exceeded "
     "approximately by 1500 ms. Member JwS will rejoin the group now.",
     "org.apache.kafka.clients.consumer.internals.ConsumerHeartbeatRequestManager", "k_poll_rejoin", {"member": "JwS"}),
    (CL + f"Member {U1} sending LeaveGroup request to coordinator localhost:9092 (id: 2147483646 rack: null) due to the "
     "consumer is being closed", "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator", "k_leave",
     {"reason": "the consumer is being closed"}),
    (CL + "Member JwS is triggering callbacks to release assignment {t-0} and leave group",
     "org.apache.kafka.clients.consumer.internals.ConsumerMembershipManager", "k_leave", {"member": "JwS"}),
    (CL + f"Successfully joined group with generation Generation{{generationId=3, memberId='{U1}', protocol='range'}}",
     "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator", "k_joined", {"member": U1, "generation": "3"}),
    (CL + f"Successfully synced group in generation Generation{{generationId=3, memberId='{U1}', protocol='range'}}",
     "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator", "k_synced", {"member": U1}),
    ("[Consumer instanceId=i1, clientId=c1, groupId=g] Member JwS with epoch 3 transitioned from RECONCILING to STABLE.",
     "org.apache.kafka.clients.consumer.internals.ConsumerMembershipManager", "k_transition",
     {"member": "JwS", "instance": "i1", "client_id": "c1"}),
    (CL + "Resetting generation and member id due to: consumer pro-actively leaving the group",
     "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator", "k_reset", {}),
    (CL + "Attempt to heartbeat with Generation{generationId=3, memberId='m', protocol='range'} and group instance id "
     "Optional.empty failed due to UNKNOWN_MEMBER_ID, resetting generation",
     "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator", "k_heartbeat_failed", {"error": "UNKNOWN_MEMBER_ID"}),
    (CL + "Adding newly assigned partitions: [t-0, t-1]",
     "org.apache.kafka.clients.consumer.internals.ConsumerRebalanceListenerInvoker", "k_assigned", {"partitions": "[t-0, t-1]"}),
    (CL + "Revoke previously assigned partitions [t-0]",
     "org.apache.kafka.clients.consumer.internals.ConsumerRebalanceListenerInvoker", "k_revoked", {}),
    (CL + "Lost previously assigned partitions [t-1]",
     "org.apache.kafka.clients.consumer.internals.ConsumerRebalanceListenerInvoker", "k_lost", {}),
    (CL + "(Re-)joining group", "org.apache.kafka.clients.consumer.internals.ConsumerCoordinator", "k_rejoining", {}),
]


def _line(message: str, logger: str, time: str = "2026-11-29 03:51:14,480", level: str = "INFO") -> str:
    return f"[{time}] {level} {message} ({logger})"


@pytest.mark.parametrize("message,logger,event,fields", SAMPLES, ids=[f"{i}-{s[2]}" for i, s in enumerate(SAMPLES)])
def test_each_sample_line_becomes_its_event(message, logger, event, fields):
    record = split_record(_line(message, logger))
    assert record is not None and record.logger == logger
    got = match_record(record, "f", 1)
    assert got is not None, message
    assert got.event == event
    for key, value in fields.items():
        assert got.fields.get(key) == value, (key, got.fields)


def test_every_pattern_has_a_sample():
    """A pattern no sample reaches is untested: each one must read at least one sample line."""
    matched = set()
    for message, logger, _, _ in SAMPLES:
        got = match_record(split_record(_line(message, logger)), "f", 1)
        if got is not None:
            matched.add(id(got.pattern))
    missing = [(p.event, p.kafka_class, p.releases) for p in LINE_PATTERNS if id(p) not in matched]
    assert missing == []


@pytest.mark.parametrize("reason,kind,member", [
    (f"Adding new member {U1} with group instance id null; client reason: need to re-join with the given member-id: "
     f"{U1}", "join", U1),
    (f"Adding new member {U1} with group instance id Some(i1); client reason: not provided", "join", U1),
    (f"removing member {U1} on heartbeat expiration.", "session timeout", U1),
    (f"removing member {U1} on heartbeat expiration", "session timeout", U1),
    (f"explicit `LeaveGroup` request for ({U1}, {U2}) members.", "leave", U1),
    (f"Removing member {U1} on LeaveGroup; client reason: consumer poll timeout has expired.", "leave", U1),
    (f"Leader {U1} re-joining group during Stable; client reason: need to revoke partitions and re-join",
     "cooperative rejoin", U1),
    (f"Leader {U1} re-joining group during Stable; client reason: cached metadata has changed", "metadata change", U1),
    (f"Updating metadata for member {U1} during Stable; client reason: subscription has changed", "subscription change", U1),
    (f"Updating metadata for member {U1} during CompletingRebalance; client reason: rebalance failed due to "
     "UnknownMemberIdException", "rejoin", U1),
    (f"Member {U1} is joining group during PreparingRebalance; client reason: rebalance enforced by user",
     "enforced rebalance", U1),
    (f"Updating metadata for static member {U1} with instance id i1; client reason: not provided", "static replacement", U1),
    (f"Group's selectedProtocol will change because static member {U1} with instance id i1 joined with change of "
     "protocol; client reason: not provided", "static replacement", U1),
    (f"Removing [{U1}] on pending sync request expiration", "sync timeout", None),
    (f"Error COORDINATOR_NOT_AVAILABLE when storing group assignmentduring SyncGroup (member: {U1}).",
     "coordinator error", U1),
    ("Freshly-loaded group g (size 9) is over capacity 5. Rebalancing in order to give a chance for consumers to "
     "commit offsets", "group over capacity", None),
    ("Downgrade group g from consumer to classic for member leaving.", "protocol migration", None),
    ("something no release writes", "other", None),
])
def test_coordinator_reasons(reason, kind, member):
    r = classify_coordinator_reason(reason)
    assert r.kind == kind
    if member is not None:
        assert r.member == member


def test_the_3_9_leave_reason_keeps_the_client_reason_and_a_leave_of_many_names_them_all():
    r = classify_coordinator_reason(f"Removing member {U1} on LeaveGroup; client reason: consumer poll timeout has expired.")
    assert classify_client_reason(r.client_reason) == "poll timeout"
    assert classify_coordinator_reason(f"explicit `LeaveGroup` request for ({U1}, {U2}) members.").members == (U1, U2)


def test_every_kind_has_a_cause_and_the_consumer_protocol_names_the_brokers_session_timeout():
    kinds = {"join", "leave", "session timeout", "poll timeout", "rebalance timeout", "sync timeout",
             "static replacement", "subscription change", "metadata change", "cooperative rejoin", "rejoin",
             "enforced rebalance", "coordinator error", "group over capacity", "protocol migration", "unknown", "other"}
    assert kinds <= set(CAUSES)
    assert "session.timeout.ms" in cause_for("session timeout", "classic").settings
    consumer = cause_for("session timeout", "consumer").settings
    assert "broker:group.consumer.session.timeout.ms" in consumer and "session.timeout.ms" not in consumer
    assert cause_for("poll timeout", "classic").settings == ("max.poll.interval.ms", "max.poll.records")
    assert "broker:group.initial.rebalance.delay.ms" in cause_for("join", "classic").settings
    assert "group.initial.rebalance.delay.ms" not in cause_for("join", "consumer").prevent


def _log(*lines: str) -> str:
    return "".join(line + "\n" for line in lines)


def test_a_3_9_scala_coordinator_log():
    """3.9's lines: the partition in "Preparing"/"Stabilized", the leave after "Preparing" with the member's
    MemberMetadata, the heartbeat expiration without a full stop."""
    m3 = "c3-d147fbd8-0275-4da7-ad5b-24ee4b48e267"
    log = _log(
        _line(P39 + f"Dynamic member with unknown member id joins group g in Empty state. Created a new member id {U1} "
              "and request the member to rejoin with this id.", SCALA, "2026-01-01 10:00:00,000"),
        _line(P39 + f"Preparing to rebalance group g in state PreparingRebalance with old generation 0 (__consumer_offsets-7) "
              f"(reason: Adding new member {U1} with group instance id None; client reason: need to re-join with the "
              f"given member-id: {U1})", SCALA, "2026-01-01 10:00:00,010"),
        _line(P39 + "Stabilized group g generation 1 (__consumer_offsets-7) with 1 members", SCALA, "2026-01-01 10:00:00,020"),
        _line(P39 + f"Assignment received from leader {U1} for group g for generation 1. The group has 1 members, 0 of "
              "which are static.", SCALA, "2026-01-01 10:00:00,030"),
        _line(P39 + f"Preparing to rebalance group g in state PreparingRebalance with old generation 1 (__consumer_offsets-7) "
              f"(reason: Adding new member {m3} with group instance id None; client reason: need to re-join with the "
              f"given member-id: {m3})", SCALA, "2026-01-01 10:00:05,000"),
        _line(P39 + "Stabilized group g generation 2 (__consumer_offsets-7) with 2 members", SCALA, "2026-01-01 10:00:05,500"),
        _line(P39 + f"Assignment received from leader {U1} for group g for generation 2. The group has 2 members, 0 of "
              "which are static.", SCALA, "2026-01-01 10:00:05,600"),
        _line(P39 + f"Preparing to rebalance group g in state PreparingRebalance with old generation 2 (__consumer_offsets-7) "
              f"(reason: Removing member {m3} on LeaveGroup; client reason: consumer poll timeout has expired.)", SCALA,
              "2026-01-01 10:00:09,000"),
        _line(P39 + f"Member MemberMetadata(memberId={m3}, groupInstanceId=None, clientId=c3, clientHost=/127.0.0.1, "
              "sessionTimeoutMs=45000, rebalanceTimeoutMs=300000, supportedProtocols=List(range)) has left group g "
              "through explicit `LeaveGroup`; client reason: consumer poll timeout has expired.", SCALA, "2026-01-01 10:00:09,001"),
        _line(P39 + "Stabilized group g generation 3 (__consumer_offsets-7) with 1 members", SCALA, "2026-01-01 10:00:09,100"),
        _line(P39 + f"Member {U1} in group g has failed, removing it from the group", SCALA, "2026-01-01 10:00:20,000"),
        _line(P39 + f"Preparing to rebalance group g in state PreparingRebalance with old generation 3 (__consumer_offsets-7) "
              f"(reason: removing member {U1} on heartbeat expiration)", SCALA, "2026-01-01 10:00:20,000"),
        _line(P39 + "Group g with generation 4 is now empty (__consumer_offsets-7)", SCALA, "2026-01-01 10:00:20,001"),
    )
    d = diagnose_text(log)
    got = [(r["generation"], r["trigger"]["kind"], r["trigger"]["name"], r["members_after"]) for r in d.rebalances]
    assert got == [(1, "join", "c1", [U1]), (2, "join", "c3", sorted([U1, m3])), (3, "poll timeout", "c3", [U1]),
                   (4, "session timeout", "c1", [])]
    assert d.rebalances[2]["trigger"]["client_reason"] == "consumer poll timeout has expired."
    assert d.logs[0]["not_recognised"] == 0 and d.logs[0]["recognised"] == 13


def test_a_consumer_group_bump_without_a_member_line_is_a_subscription_or_metadata_change():
    g = "[GroupId g] "
    log = _log(
        _line(P431 + g + "Member m1 joins the consumer group using the consumer protocol.", GM, "2026-01-01 10:00:00,000"),
        _line(P431 + g + "Bumped group epoch to 1 with metadata hash 11.", GM, "2026-01-01 10:00:00,001"),
        _line(P431 + g + "Bumped group epoch to 2 with metadata hash 22.", GM, "2026-01-01 10:00:05,000"),
        _line(P431 + g + "Bumped group epoch to 3 with metadata hash 22.", GM, "2026-01-01 10:00:09,000"),
        _line(P431 + g + "Member m1 updated its subscribed topics to: [t, u].", GM, "2026-01-01 10:00:12,000", "DEBUG"),
        _line(P431 + g + "Bumped group epoch to 4 with metadata hash 33.", GM, "2026-01-01 10:00:12,001"),
    )
    kinds = [(r["epoch"], r["trigger"]["kind"], r["trigger"]["member"]) for r in diagnose_text(log).rebalances]
    assert kinds == [(1, "join", "m1"), (2, "metadata change", None), (3, "subscription change", None),
                     (4, "subscription change", "m1")]


def test_clients_logs_name_consumer_members_confirm_a_poll_timeout_and_measure_unowned_partitions():
    """A consumer-protocol member's leave is a poll timeout when its client says so; the client's lines give its
    client id; a partition revoked at 10:00:05,000 and assigned again at 10:00:06,500 stood unowned 1500 ms."""
    g = "[GroupId g] "
    broker = _log(
        _line(P431 + g + "Member m1 joins the consumer group using the consumer protocol.", GM, "2026-01-01 10:00:00,000"),
        _line(P431 + g + "Bumped group epoch to 1 with metadata hash 11.", GM, "2026-01-01 10:00:00,001"),
        _line(P431 + g + "Member m2 joins the consumer group using the consumer protocol.", GM, "2026-01-01 10:00:01,000"),
        _line(P431 + g + "Bumped group epoch to 2 with metadata hash 11.", GM, "2026-01-01 10:00:01,001"),
        _line(P431 + g + "Member m2 left the consumer group.", GM, "2026-01-01 10:00:05,000"),
        _line(P431 + g + "Bumped group epoch to 3 with metadata hash 11.", GM, "2026-01-01 10:00:05,001"),
    )
    ctx = "[Consumer clientId=app-2, groupId=g] "
    client = _log(
        _line(ctx + "Member m2 with epoch 2 transitioned from RECONCILING to STABLE.",
              "org.apache.kafka.clients.consumer.internals.ConsumerMembershipManager", "2026-01-01 10:00:01,200"),
        _line(ctx + "Consumer poll timeout has expired. This means the time between subsequent calls to poll() was longer "
              "than the configured max.poll.interval.ms.",
              "org.apache.kafka.clients.consumer.internals.ConsumerHeartbeatRequestManager", "2026-01-01 10:00:04,990", "WARN"),
        _line(ctx + "Lost previously assigned partitions [t-2, t-3]",
              "org.apache.kafka.clients.consumer.internals.ConsumerRebalanceListenerInvoker", "2026-01-01 10:00:05,000"),
        _line("[Consumer clientId=app-1, groupId=g] Adding newly assigned partitions: [t-2, t-3]",
              "org.apache.kafka.clients.consumer.internals.ConsumerRebalanceListenerInvoker", "2026-01-01 10:00:06,500"),
    )
    left = diagnose_text(broker + client).rebalances[2]
    assert left["trigger"]["kind"] == "poll timeout" and left["trigger"]["client_id"] == "app-2"
    assert left["trigger"]["name"] == "app-2"
    assert left["unowned_partitions"] == 2 and left["unowned_partition_ms"] == 3000
    without_client = diagnose_text(broker).rebalances[2]
    assert without_client["trigger"]["kind"] == "leave" and without_client["unowned_partitions"] is None
