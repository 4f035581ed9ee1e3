"""A share partition's records (KIP-932, Kafka 4.3.1): InFlightState against Kafka's own class, and the
SharePartition model's rules and invariants."""
import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from rebalance.errors import InputError, KafkaError
from rebalance.share import AcknowledgeType, DeliveryCountOps, InFlightState, RecordState, SharePartitionModel
from vector_files import oracle_or_skip

STATES = [s.name for s in RecordState]


def _random_ops(rng):
    """A random operation list; ``complete`` mostly right after a started transition (the last op was a
    ``start``), where Kafka calls it, and now and then anywhere (the harness then refuses the line)."""
    ops = []
    for _ in range(rng.randint(1, 10)):
        after_start = bool(ops) and ops[-1]["op"] == "start"
        weights = [2, 2, 8, 1] if after_start else [6, 4, 0.05, 1]
        kind = rng.choices(["try_update", "start", "complete", "archive"], weights)[0]
        if kind in ("try_update", "start"):
            ops.append({"op": kind, "state": rng.choice(STATES), "delivery": rng.choice(["INCREASE", "DECREASE", "NO_OP"]),
                        "member_id": rng.choice(["", "m1", "m2"])})
        elif kind == "complete":
            ops.append({"op": kind, "commit": rng.random() < 0.5})
        else:
            ops.append({"op": kind})
    return {"kind": "share_record_state", "state": rng.choice(["AVAILABLE", "ACQUIRED", "AVAILABLE"]),
            "delivery_count": rng.randint(0, 4), "member_id": rng.choice(["", "m1"]),
            "max_delivery_count": rng.randint(1, 5), "ops": ops}


def _replay(case):
    """The Python InFlightState through ``case``'s operations, as the oracle's share_record_state kind reports
    them; ``None`` where the Java harness refuses the line (a ``complete`` without a started transition)."""
    state = InFlightState(RecordState[case["state"]], case["delivery_count"], case["member_id"])
    steps = []
    for op in case["ops"]:
        updated = None
        if op["op"] in ("try_update", "start"):
            method = state.start_state_transition if op["op"] == "start" else state.try_update_state
            updated = method(RecordState[op["state"]], DeliveryCountOps[op["delivery"]], case["max_delivery_count"],
                             op["member_id"]) is not None
        elif op["op"] == "complete":
            if not state.has_ongoing_state_transition():
                return None
            state.complete_state_transition(op["commit"])
        else:
            state.archive()
        steps.append({"updated": updated, "state": state.state.name, "delivery_count": state.delivery_count,
                      "member_id": state.member_id, "ongoing": state.has_ongoing_state_transition()})
    return {"steps": steps}


@pytest.mark.kafka
def test_in_flight_state_is_kafkas():
    rng = random.Random(932)
    cases = [_random_ops(rng) for _ in range(1000)]
    with oracle_or_skip() as kafka:
        answers = list(kafka.answers(cases))
    compared = 0
    for case, answer in zip(cases, answers):
        mine = _replay(case)
        if mine is None:
            assert answer.fault is not None and answer.fault["field"].endswith("]"), case
            continue
        assert answer.fault is None, answer.fault
        assert answer.output == mine, case
        compared += 1
    assert compared > 450


def test_record_state_transitions():
    assert RecordState.AVAILABLE.validate_transition(RecordState.ACQUIRED) is RecordState.ACQUIRED
    for target in (RecordState.AVAILABLE, RecordState.ACKNOWLEDGED, RecordState.ARCHIVED):
        assert RecordState.ACQUIRED.validate_transition(target) is target
    for current, target in [(RecordState.AVAILABLE, RecordState.ARCHIVED), (RecordState.ACKNOWLEDGED, RecordState.AVAILABLE),
                            (RecordState.ARCHIVED, RecordState.ACQUIRED), (RecordState.ACQUIRED, RecordState.ACQUIRED)]:
        with pytest.raises(KafkaError) as info:
            current.validate_transition(target)
        assert info.value.type == "IllegalStateException"


def test_release_at_the_delivery_limit_archives():
    state = InFlightState()
    state.try_update_state(RecordState.ACQUIRED, DeliveryCountOps.INCREASE, 2, "m")
    state.try_update_state(RecordState.AVAILABLE, DeliveryCountOps.NO_OP, 2, "")
    assert (state.state, state.delivery_count) == (RecordState.AVAILABLE, 1)
    state.try_update_state(RecordState.ACQUIRED, DeliveryCountOps.INCREASE, 2, "m")
    state.try_update_state(RecordState.AVAILABLE, DeliveryCountOps.NO_OP, 2, "")
    assert (state.state, state.delivery_count, state.member_id) == (RecordState.ARCHIVED, 2, "")


def test_a_rolled_back_transition_whose_lock_expired_becomes_available():
    state = InFlightState(RecordState.ACQUIRED, 1, "m")
    state.start_state_transition(RecordState.ACKNOWLEDGED, DeliveryCountOps.NO_OP, 5, "")
    assert state.try_update_state(RecordState.AVAILABLE, DeliveryCountOps.NO_OP, 5, "") is None  # ongoing
    state.complete_state_transition(False, lock_expired=True)
    assert (state.state, state.member_id, state.has_ongoing_state_transition()) == (RecordState.AVAILABLE, "", False)


# --- the SharePartition model ---------------------------------------------------------------------------------

def test_accept_moves_the_start_offset():
    sp = SharePartitionModel()
    sp.append(5)
    assert sp.acquire("m1", 3, now_ms=0) == [0, 1, 2]
    assert sp.acquire("m2", 10, now_ms=0) == [3, 4]  # another member gets the next records
    sp.acknowledge("m1", [1], AcknowledgeType.ACCEPT, now_ms=10)
    assert sp.start_offset == 0  # offset 0 still acquired
    sp.acknowledge("m1", [0, 2], AcknowledgeType.ACCEPT, now_ms=10)
    assert sp.start_offset == 3 and sp.state_of(3) is RecordState.ACQUIRED


def test_release_redelivers_and_the_limit_archives():
    sp = SharePartitionModel(delivery_count_limit=2)
    sp.append(1)
    assert sp.acquire("m1", 1, now_ms=0) == [0]
    sp.acknowledge("m1", [0], AcknowledgeType.RELEASE, now_ms=1)
    assert sp.state_of(0) is RecordState.AVAILABLE and sp.records[0].delivery_count == 1
    assert sp.acquire("m2", 1, now_ms=2) == [0]  # redelivered, to anyone
    sp.acknowledge("m2", [0], AcknowledgeType.RELEASE, now_ms=3)
    assert sp.start_offset == 1 and 0 not in sp.records  # ARCHIVED at the limit, then past the start offset


def test_the_acquisition_lock_times_out():
    sp = SharePartitionModel(record_lock_duration_ms=1000)
    sp.append(2)
    sp.acquire("m1", 2, now_ms=0)
    assert sp.expire_locks(999) == []
    assert sp.expire_locks(1000) == [0, 1]
    assert sp.state_of(0) is RecordState.AVAILABLE and sp.records[0].member_id == ""
    with pytest.raises(KafkaError, match="not acquired"):
        sp.acknowledge("m1", [0], AcknowledgeType.ACCEPT, now_ms=1001)
    sp.acquire("m2", 1, now_ms=1500)
    sp.acknowledge("m2", [0], AcknowledgeType.RENEW, now_ms=2400)  # lock until 3400
    assert sp.expire_locks(3000) == [] and sp.state_of(0) is RecordState.ACQUIRED


def test_acknowledgements_are_all_or_nothing_and_by_the_owner():
    sp = SharePartitionModel()
    sp.append(2)
    sp.acquire("m1", 1, now_ms=0)
    sp.acquire("m2", 1, now_ms=0)
    with pytest.raises(KafkaError) as info:
        sp.acknowledge("m1", [0, 1], AcknowledgeType.ACCEPT, now_ms=1)
    assert info.value.type == "InvalidRecordStateException" and "owner" in info.value.message
    assert sp.state_of(0) is RecordState.ACQUIRED and sp.start_offset == 0


def test_a_leaving_member_releases_its_records_and_locks_are_capped():
    sp = SharePartitionModel(max_record_locks=3)
    sp.append(10)
    assert sp.acquire("m1", 10, now_ms=0) == [0, 1, 2]  # group.share.partition.max.record.locks
    assert sp.acquire("m2", 10, now_ms=0) == []
    assert sp.release_acquired_records("m1") == [0, 1, 2]
    assert sp.acquire("m2", 10, now_ms=0) == [0, 1, 2]
    assert [sp.records[o].delivery_count for o in (0, 1, 2)] == [2, 2, 2]


def test_bad_input_names_the_field():
    with pytest.raises(InputError) as info:
        SharePartitionModel(delivery_count_limit=0)
    assert info.value.field == "delivery_count_limit"
    sp = SharePartitionModel()
    with pytest.raises(InputError) as info:
        sp.acquire("", 1, now_ms=0)
    assert info.value.field == "member_id"
    with pytest.raises(InputError) as info:
        sp.acknowledge("m", [0], "ACCEPT", now_ms=0)
    assert info.value.field == "ack_type"


@st.composite
def operations(draw):
    return draw(st.lists(st.tuples(st.sampled_from(["append", "acquire", "ack", "leave", "tick"]),
                                   st.sampled_from(["m1", "m2", "m3"]), st.integers(0, 4),
                                   st.sampled_from(list(AcknowledgeType))), max_size=40))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations(), st.integers(1, 4))
def test_invariants_of_the_model(ops, limit):
    sp = SharePartitionModel(delivery_count_limit=limit, record_lock_duration_ms=100, max_record_locks=6)
    now = 0
    deliveries = {}
    for op, member, n, ack in ops:
        if op == "append":
            sp.append(n)
        elif op == "acquire":
            for offset in sp.acquire(member, n, now):
                deliveries[offset] = deliveries.get(offset, 0) + 1
        elif op == "ack":
            mine = [o for o, s in sorted(sp.records.items()) if s.state is RecordState.ACQUIRED and s.member_id == member]
            try:
                sp.acknowledge(member, mine[:n], ack, now)
            except KafkaError:
                pass  # a lock expired at ``now``: nothing changed
        elif op == "leave":
            sp.release_acquired_records(member)
        else:
            now += 40 * n
        for offset, state in sp.records.items():
            assert offset >= sp.start_offset and not state.has_ongoing_state_transition()
            assert state.delivery_count <= limit  # a record is delivered at most group.share.delivery.count.limit times
            if state.state is RecordState.ACQUIRED:
                assert state.member_id and offset in sp.locks
            else:
                assert state.member_id == "" and offset not in sp.locks
            if state.state is RecordState.AVAILABLE:
                assert state.delivery_count < limit
        if sp.start_offset in sp.records:
            assert not sp.records[sp.start_offset].state.terminal  # the start offset moved past terminal records
        assert len(sp.records) <= 6 and sp.end_offset <= sp.log_end_offset
    assert all(count <= limit for count in deliveries.values())


def test_a_late_acknowledgement_of_an_archived_record_is_skipped():
    # SharePartition.acknowledge (4.3.1, line 1006): a batch before the start offset is "already archived" and
    # skipped, so the acknowledgement succeeds; while the record is still tracked it fails
    sp = SharePartitionModel(record_lock_duration_ms=1000, delivery_count_limit=2)
    sp.append(1)
    sp.acquire("m1", 1, now_ms=0)
    with pytest.raises(KafkaError, match="not acquired"):
        sp.acknowledge("m1", [0], AcknowledgeType.ACCEPT, now_ms=1000)  # AVAILABLE again, count 1 < 2
    sp.acquire("m1", 1, now_ms=1000)
    sp.acknowledge("m1", [0], AcknowledgeType.ACCEPT, now_ms=2000)  # ARCHIVED at the limit, start offset past it
    assert sp.start_offset == 1 and 0 not in sp.records
