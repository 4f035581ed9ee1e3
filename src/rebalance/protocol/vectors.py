"""Conformance adapter for kind ``coordinator_partition`` (``kafka-vectors``).

Input ``{"kind": "coordinator_partition", "numPartitions": n, "groupIds": [...]}``; output
``{"partitions": [Utils.abs(groupId.hashCode()) % n ...], "javaHashCodes": [...]}`` as computed by
``GroupCoordinatorService.partitionFor`` (Kafka 4.3.1).
"""
from __future__ import annotations

from ..common import JsonRecord
from ..errors import InputError
from ..java import java_abs, string_hash
from ..validation import require
from .coordinator import OFFSETS_TOPIC_PARTITIONS_DEFAULT, check_num_partitions


def run(scenario: JsonRecord) -> JsonRecord:
    require(isinstance(scenario, dict), "input", "must be a JSON object")
    n = check_num_partitions(scenario.get("numPartitions", OFFSETS_TOPIC_PARTITIONS_DEFAULT), "numPartitions")
    group_ids = scenario.get("groupIds")
    if not isinstance(group_ids, list):
        raise InputError("groupIds", f"must be a list of group id strings, got {group_ids!r}")
    partitions, hashes = [], []
    for i, g in enumerate(group_ids):
        require(isinstance(g, str), f"groupIds[{i}]", f"must be a string, got {g!r}")
        h = string_hash(g)
        hashes.append(h)
        partitions.append(java_abs(h) % n)
    return {"partitions": partitions, "javaHashCodes": hashes}
