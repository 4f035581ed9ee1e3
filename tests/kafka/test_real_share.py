"""Issue 27 (share groups): real ``KafkaShareConsumer`` instances (4.3.1) dividing one partition's records on a real broker
(:mod:`rebalance.kafka.share`), set against the book's ``SimpleAssignor`` and ``SharePartitionModel``.

One broker for the module.  Three members in two JVMs share the partition of ``queue`` (one of them also
subscribes to ``wide``: a heterogeneous group); every record is acknowledged by a rule of its offset (ACCEPT,
RELEASE, REJECT, or ACCEPT after the acquisition lock has expired).  The coordinator's assignment must be
``SimpleAssignor``'s for the same member ids and topic ids, and every record's outcome (deliveries, highest
delivery count, final state) the model's.  A run stopped by its deadline must leave no JVM behind.
"""
from __future__ import annotations

import contextlib
import time

import pytest

from rebalance.errors import InputError, WaitTimeoutError
from rebalance.kafka import share as share_module
from rebalance.kafka.cluster import KafkaCluster
from rebalance.kafka.share import (SHARE_BROKER_CONFIG, SHARE_MAIN_CLASS, ShareRule, outcome_table, predict_outcomes,
                                   run_share_group, share_rule, share_summary)
from .built import needs_class
from .processes import our_processes_mentioning

kafka = pytest.mark.kafka
needs_java = needs_class("share/ShareMembers")

RECORDS = 20
RULE = share_rule(RECORDS, release_every=7, reject_every=9, slow=1)
SUBSCRIPTIONS = {"m1": ["queue"], "m2": ["queue"], "m3": ["queue", "wide"]}


def test_the_model_prediction_needs_no_cluster():
    limit = SHARE_BROKER_CONFIG["group.share.delivery.count.limit"]
    model = predict_outcomes(RECORDS, RULE, ["m1", "m2", "m3"], delivery_count_limit=limit)
    for o, r in model.items():
        action = RULE.action(o)
        want = {"ACCEPT": (1, "ACKNOWLEDGED"), "REJECT": (1, "ARCHIVED"),
                "RELEASE": (limit, "ARCHIVED"), "SLOW": (limit, "ARCHIVED")}[action]
        assert (r["deliveries"], r["state"]) == want, (o, action, r)
    assert RULE.release and RULE.reject and RULE.slow == (RECORDS - 1,)


def test_bad_input_is_refused_before_anything_starts():
    with pytest.raises(InputError, match="slow"):
        run_share_group(records=5, rule=ShareRule(slow=(1,)))
    with pytest.raises(InputError, match="members"):
        run_share_group(members=["a", "a"])
    with pytest.raises(InputError, match="release"):
        ShareRule(release=(1,), reject=(1,))


@pytest.fixture(scope="module")
def cluster():
    with KafkaCluster(brokers=1, broker_config=SHARE_BROKER_CONFIG) as c:
        yield c


@kafka
@needs_java
def test_real_share_group_matches_the_book(cluster, monkeypatch):
    # a run takes well under 45 s; one that has not finished by 40 s is played once more: in a CI run under load
    # the slow record's second delivery (at the delivery limit) was reported with no acknowledgement matched to it,
    # so the clients' view never saw the record finish (its members' records were not kept)
    # The second play runs on a cluster of its own: the first one's topics exist on the shared one (a fresh-clone
    # make test on 2 cores saw the retry fail with TopicExistsException)
    monkeypatch.setattr(share_module, "MAX_RUN_S", 40)
    for attempt in range(2):
        with (contextlib.nullcontext(cluster) if attempt == 0
              else KafkaCluster(brokers=1, broker_config=SHARE_BROKER_CONFIG)) as on:
            began = time.monotonic()
            try:
                run = run_share_group(["m1", "m2", "m3"], records=RECORDS, rule=RULE, topics={"queue": 1, "wide": 3},
                                      subscriptions=SUBSCRIPTIONS, jvms=2, cluster=on)
                break
            except WaitTimeoutError as exc:
                if attempt:
                    raise
                print(f"played once more after: {exc}")
    summary = share_summary(run)
    assert summary["errors"] == 0, run.errors
    assert summary["every_record_delivered"] and summary["all_finished"] and summary["broker_lag_zero"]
    assert run.assignment() == run.predicted_assignment(), (run.assignment(), run.predicted_assignment())
    assert summary["queue_partition_shared_by"] == 3  # one partition, three members: all of them fetch from it
    assert run.assignment()["m3"]["wide"] == [0, 1, 2]  # its only subscriber
    table = outcome_table(run)
    assert all(row["agree"] for row in table), table
    by_rule = {row["rule"]: row for row in table}
    limit = run.delivery_count_limit
    assert by_rule["RELEASE"]["deliveries"] == [limit] and by_rule["RELEASE"]["state"] == ["ARCHIVED"]
    assert by_rule["SLOW"]["deliveries"] == [limit] and by_rule["SLOW"]["state"] == ["ARCHIVED"]
    assert by_rule["REJECT"]["deliveries"] == [1] and by_rule["ACCEPT"]["state"] == ["ACKNOWLEDGED"]
    # the slow record's too-late ACCEPTs were refused while it was still tracked (InvalidRecordStateException)
    slow = RULE.slow[0]
    refused = [ok for (m, o), oks in run.acks().items() if o == slow for ok in oks if not ok]
    assert refused, run.acks()
    assert not our_processes_mentioning(SHARE_MAIN_CLASS)
    assert time.monotonic() - began < 45


@kafka
@needs_java
def test_a_run_past_its_deadline_stops_every_jvm(cluster, monkeypatch):
    monkeypatch.setattr(share_module, "MAX_RUN_S", 0.5)
    with pytest.raises(WaitTimeoutError):
        run_share_group(["a", "b"], records=3, topics={"late": 1}, jvms=2, cluster=cluster)
    deadline = time.monotonic() + 10
    while our_processes_mentioning(SHARE_MAIN_CLASS) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not our_processes_mentioning(SHARE_MAIN_CLASS)
