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
a negative partition count is bad input here as in a direct call (Kafka's callers never pass one:
``CreateTopics`` turns ``-1`` into the broker default before placing replicas).  Each kind converts its JSON
and calls the same validated entry point as the Python API (``assign_replicas_to_brokers``,
:func:`~rebalance.replicas.placement.placement_spec` and a placer from :func:`~rebalance.replicas.placer.placer_for`).
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from ..errors import InputError, KafkaError
from ..java import LONG_MAX, LONG_MIN
from ..validation import require
from .adminutils import assign_replicas_to_brokers, rack_alternated_broker_list
from .brokers import check_int, parse_brokers
from .java_random import make_random, replay_ops
from .placement import BrokerCluster, PlacementSpec, placement_spec
from .placer import placer_for


#: How many of Kafka's recorded cases the conformance vectors hold for each kind of this adapter (the
#: vector files of each kind, e.g. ``adminutils.jsonl`` and ``adminutils_unit_tests.jsonl``); the replica
#: placement chapter quotes these, and ``tests/replicas/test_vector_counts.py`` checks them against the files.
VECTOR_FILES = {
    "adminutils": ("adminutils.jsonl", "adminutils_unit_tests.jsonl"),
    "striped": ("striped.jsonl", "striped_unit_tests.jsonl"),
    "java_random": ("java_random.jsonl",),
}
VECTOR_CASES = {"adminutils": 82, "striped": 70, "java_random": 40}

def run(scenario: Dict[str, Any]) -> Dict[str, Any]:
    """Replay one ``adminutils``, ``striped`` or ``java_random`` scenario (see the module docstring)."""
    require(isinstance(scenario, dict), "input", "must be a JSON object")
    kind = scenario.get("kind")
    if kind == "adminutils":
        return run_adminutils(scenario)
    if kind == "striped":
        return run_striped(scenario)
    if kind == "java_random":
        return run_java_random(scenario)
    raise InputError("kind", f"the replicas adapter handles adminutils, striped and java_random, not {kind!r}")


def _required(scenario: Dict[str, Any], key: str, prefix: str = "") -> Any:
    if key not in scenario:
        raise InputError(f"{prefix}{key}", "missing")
    return scenario[key]


def _seed(scenario: Dict[str, Any]) -> Optional[int]:
    seed = scenario.get("seed")
    return None if seed is None else check_int(seed, "seed", lo=LONG_MIN, hi=LONG_MAX, what="a Java long")


def run_adminutils(scenario: Dict[str, Any]) -> Dict[str, Any]:
    """``AdminUtils.assignReplicasToBrokers`` with the scenario's arguments, which it validates itself
    (the same checks and field names as a direct call)."""
    brokers = parse_brokers(_required(scenario, "brokers"), "brokers")
    assignment = assign_replicas_to_brokers(brokers, _required(scenario, "partitions"),
                                            _required(scenario, "replicationFactor"),
                                            scenario.get("fixedStartIndex", -1), scenario.get("startPartitionId", -1),
                                            seed=_seed(scenario))
    out: Dict[str, Any] = {"assignment": {str(p): replicas for p, replicas in sorted(assignment.items())}}
    if all(b.rack is not None for b in brokers):
        out["rackAlternatedBrokerList"] = rack_alternated_broker_list(
            {b.id: b.rack for b in brokers if b.rack is not None})
    return out


def run_striped(scenario: Dict[str, Any]) -> Dict[str, Any]:
    """One ``StripedReplicaPlacer`` from the registry and one random stream for all placements; each
    placement is validated by :func:`~rebalance.replicas.placement.placement_spec`, as a direct call's."""
    kind = scenario.get("random", "java.util.Random")
    seed = _seed(scenario)
    if seed is None and kind == "java.util.Random":
        raise InputError("seed", "a java.util.Random scenario needs a seed to be reproducible")
    placer = placer_for("StripedReplicaPlacer", make_random(kind, seed))
    cluster = BrokerCluster(_required(scenario, "brokers"), "brokers")
    placements = _required(scenario, "placements")
    require(isinstance(placements, list), "placements", "must be a list of placement specs")
    specs: List[PlacementSpec] = []
    for i, p in enumerate(placements):
        require(isinstance(p, dict), f"placements[{i}]", f"must be an object, got {p!r}")
        specs.append(placement_spec(p, f"placements[{i}]."))
    results: List[Dict[str, Any]] = []
    for spec in specs:
        try:
            results.append({"partitions": placer.place(spec, cluster).replica_lists()})
        except KafkaError as exc:
            results.append({"error": exc.to_json()})
    return {"placements": results}


def run_java_random(scenario: Dict[str, Any]) -> Dict[str, Any]:
    """``java.util.Random(seed)`` driven through the scenario's ``ops``."""
    seed = check_int(_required(scenario, "seed"), "seed", lo=LONG_MIN, hi=LONG_MAX, what="a Java long")
    return {"outputs": replay_ops(seed, _required(scenario, "ops"))}
