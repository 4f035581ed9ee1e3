"""Conformance adapter for the kinds ``adminutils``, ``striped`` and ``java_random``
(``kafka-vectors``; the runner maps all three here and :func:`run` dispatches on ``kind``).

* ``adminutils``: ``{"brokers": [{"id", "rack"?}], "partitions", "replicationFactor", "fixedStartIndex",
  "startPartitionId", "seed"?}`` -> ``{"assignment": {"<partition>": [replicas]}, "rackAlternatedBrokerList"?}``
  (the list only when every broker has a rack), via ``AdminUtils.assignReplicasToBrokers``.
  ``seed`` (optional, ours) seeds the random start used when ``fixedStartIndex < 0``.
* ``striped``: ``{"random": "java.util.Random"|"MockRandom", "seed", "brokers": [{"id", "rack", "fenced"}],
  "placements": [{"startPartition", "numPartitions", "numReplicas"}]}`` -> ``{"placements": [{"partitions":
  [[...]]} | {"error": {...}}]}``: one ``StripedReplicaPlacer`` and one random stream for all placements.
* ``java_random``: ``{"seed", "ops": [["nextInt", bound] | ["shuffle", [...]]]}`` -> ``{"outputs": [...]}``.

Bad input raises :class:`~rebalance.errors.InputError` naming the field (e.g. ``placements[1].numReplicas``);
a negative partition count in the JSON input is treated as bad input too (Kafka's callers never pass one:
``CreateTopics`` turns ``-1`` into the broker default before placing replicas).
"""
from __future__ import annotations

from typing import List

from ..errors import InputError, KafkaError, require
from .adminutils import assign_replicas_to_brokers, rack_alternated_broker_list
from .brokers import SHORT_MAX, SHORT_MIN, check_int, parse_brokers
from .java_random import make_random, replay_ops
from .striped import PlacementSpec, StripedReplicaPlacer


#: How many of Kafka's recorded cases the conformance vectors hold for each kind of this adapter (the
#: vector files of each kind, e.g. ``adminutils.jsonl`` and ``adminutils_unit_tests.jsonl``); the replica
#: placement chapter quotes these, and ``tests/replicas/test_vector_counts.py`` checks them against the files.
VECTOR_FILES = {
    "adminutils": ("adminutils.jsonl", "adminutils_unit_tests.jsonl"),
    "striped": ("striped.jsonl", "striped_unit_tests.jsonl"),
    "java_random": ("java_random.jsonl",),
}
VECTOR_CASES = {"adminutils": 82, "striped": 70, "java_random": 40}

def run(scenario: dict) -> dict:
    require(isinstance(scenario, dict), "input", "must be a JSON object")
    kind = scenario.get("kind")
    if kind == "adminutils":
        return run_adminutils(scenario)
    if kind == "striped":
        return run_striped(scenario)
    if kind == "java_random":
        return run_java_random(scenario)
    raise InputError("kind", f"the replicas adapter handles adminutils, striped and java_random, not {kind!r}")


def _required(scenario: dict, key: str):
    if key not in scenario:
        raise InputError(key, "missing")
    return scenario[key]


def run_adminutils(scenario: dict) -> dict:
    brokers = parse_brokers(_required(scenario, "brokers"), "brokers")
    partitions = check_int(_required(scenario, "partitions"), "partitions")
    require(partitions >= 0, "partitions", f"must not be negative, got {partitions}")
    rf = check_int(_required(scenario, "replicationFactor"), "replicationFactor")
    fixed = check_int(scenario.get("fixedStartIndex", -1), "fixedStartIndex")
    start = check_int(scenario.get("startPartitionId", -1), "startPartitionId")
    seed = scenario.get("seed")
    if seed is not None:
        seed = check_int(seed, "seed", lo=-(1 << 63), hi=(1 << 63) - 1, what="a Java long")
    assignment = assign_replicas_to_brokers(brokers, partitions, rf, fixed, start, seed=seed)
    out = {"assignment": {str(p): replicas for p, replicas in sorted(assignment.items())}}
    if all(b.rack is not None for b in brokers):
        out["rackAlternatedBrokerList"] = rack_alternated_broker_list({b.id: b.rack for b in brokers})
    return out


def run_striped(scenario: dict) -> dict:
    kind = scenario.get("random", "java.util.Random")
    seed = scenario.get("seed")
    if seed is not None:
        seed = check_int(seed, "seed", lo=-(1 << 63), hi=(1 << 63) - 1, what="a Java long")
    elif kind == "java.util.Random":
        raise InputError("seed", "a java.util.Random scenario needs a seed to be reproducible")
    placer = StripedReplicaPlacer(make_random(kind, seed))
    brokers = parse_brokers(_required(scenario, "brokers"), "brokers", with_fenced=True)
    placements = _required(scenario, "placements")
    require(isinstance(placements, list), "placements", "must be a list of placement specs")
    specs: List[PlacementSpec] = []
    for i, p in enumerate(placements):
        where = f"placements[{i}]"
        require(isinstance(p, dict), where, f"must be an object, got {p!r}")
        start = check_int(p.get("startPartition", 0), f"{where}.startPartition")
        num = check_int(_required_in(p, "numPartitions", where), f"{where}.numPartitions")
        require(num >= 0, f"{where}.numPartitions", f"must not be negative, got {num}")
        rf = check_int(_required_in(p, "numReplicas", where), f"{where}.numReplicas", lo=SHORT_MIN, hi=SHORT_MAX,
                       what="a Java short")
        specs.append(PlacementSpec(start, num, rf))
    results = []
    for spec in specs:
        try:
            results.append({"partitions": placer.place(spec, brokers)})
        except KafkaError as exc:
            results.append({"error": exc.to_json()})
    return {"placements": results}


def _required_in(obj: dict, key: str, where: str):
    if key not in obj:
        raise InputError(f"{where}.{key}", "missing")
    return obj[key]


def run_java_random(scenario: dict) -> dict:
    seed = check_int(_required(scenario, "seed"), "seed", lo=-(1 << 63), hi=(1 << 63) - 1, what="a Java long")
    return {"outputs": replay_ops(seed, _required(scenario, "ops"))}
