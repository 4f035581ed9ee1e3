"""Which partition a share fetch takes its records from (``rebalance.share.share_fetch``), against Kafka 4.3.1's
``PartitionRotateStrategy`` and a real broker's request log."""
import json
from pathlib import Path

import pytest

from rebalance.share import SharePartitionModel
from rebalance.share.share_fetch import ShareSession, acquire_order, rotate_round_robin
from rebalance.share.share_partition import AcknowledgeType

RECORDED = Path(__file__).parent / "recorded" / "share-fetch-order-s042.json"


@pytest.mark.parametrize("epoch, expected", [
    (0, [1, 2, 3]),  # the initial epoch: no rotation
    (-1, [1, 2, 3]),  # the final epoch
    (1, [2, 3, 1]),  # moved left, as PartitionRotateStrategy's comment says: [1,2,3] by 1 is [2,3,1]
    (2, [3, 1, 2]),
    (3, [1, 2, 3]),
    (5, [3, 1, 2]),
])
def test_round_robin_rotation_is_kafkas(epoch, expected):
    assert rotate_round_robin([1, 2, 3], epoch) == expected
    assert rotate_round_robin([7], epoch) == [7] and rotate_round_robin([], epoch) == []


def test_partitions_read_again_go_last_and_the_read_offset_is_kept():
    read = {"a": 0, "b": 5, "c": 0}
    # a and c are read at their next fetch offsets already, b moved on since it was read
    assert acquire_order(["b", "a", "c"], {"a": 0, "b": 10, "c": 0}, read) == ["a", "c", "b"]
    assert read == {"a": 0, "b": 10, "c": 0}
    # never read: read now, in the rotated order
    assert acquire_order(["x", "y"], {"x": 0, "y": 0}, {}) == ["x", "y"]


def test_a_session_moves_the_partitions_that_had_records_to_its_end_after_its_first_fetch():
    s = ShareSession()
    s.update([("t", 0), ("t", 1), ("t", 2)])
    s.fetched([("t", 0)])  # epoch 0 creates the session: no move
    assert s.partitions == [("t", 0), ("t", 1), ("t", 2)] and s.epoch == 1
    s.acknowledged()
    assert s.fetch_order() == [("t", 2), ("t", 0), ("t", 1)]  # epoch 2
    s.fetched([("t", 2)])
    assert s.partitions == [("t", 0), ("t", 1), ("t", 2)] and s.epoch == 3
    s.update([("t", 1), ("t", 2), ("u", 0)])  # t-0 lost, u-0 assigned
    assert s.partitions == [("t", 1), ("t", 2), ("u", 0)]


def _replay(run, log_end_offsets, max_records, *, rotate=True, stale_last=True, move=True):
    """The member's fetches as the model makes them, on share partitions with the recorded logs (every fetched
    batch acknowledged before the next fetch, as the member did)."""
    partitions = {p: SharePartitionModel(record_lock_duration_ms=30_000) for p in run["partitions"]}
    for p, sp in partitions.items():
        sp.append(log_end_offsets[p])
    session, read, out = ShareSession(), {}, []
    session.update(run["partitions"])
    for fetch in run["fetches"]:
        assert session.epoch == fetch["epoch"]
        rotated = session.fetch_order() if rotate else list(session.partitions)
        nxt = {p: partitions[p].next_fetch_offset for p in rotated}
        order = acquire_order(rotated, nxt, read) if stale_last else rotated
        got, room = [], max_records
        for p in order:
            offsets = partitions[p].acquire("m2", room, 0) if room > 0 else []
            if offsets:
                got.append([p, offsets[0], offsets[-1]])
                room -= len(offsets)
        out.append(got)
        session.fetched([p for p, _, _ in got] if move else [])
        for p, first, last in got:
            partitions[p].acknowledge("m2", list(range(first, last + 1)), AcknowledgeType.ACCEPT, 0)
        session.acknowledged()
    return out


def test_the_model_takes_every_fetch_from_the_partition_the_real_broker_did():
    doc = json.loads(RECORDED.read_text())
    for run in doc["runs"]:
        real = [f["acquired"] for f in run["fetches"]]
        assert _replay(run, doc["log_end_offsets"], doc["max_records"]) == real
        # each of the three broker rules is needed: without any one of them, fetches differ
        assert _replay(run, doc["log_end_offsets"], doc["max_records"], rotate=False) != real
        assert _replay(run, doc["log_end_offsets"], doc["max_records"], stale_last=False) != real
        assert _replay(run, doc["log_end_offsets"], doc["max_records"], move=False) != real
