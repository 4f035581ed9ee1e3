"""The conformance-vector adapter for the two sticky assignors (kind ``consumer``, assignor ``sticky`` or
``cooperative-sticky``); ``rebalance.consumer.vectors`` delegates these assignors here.

``run_scenario`` gives the vectors' full output: ``assignment`` (Kafka's list order), ``sortedAssignment``,
``stickyPath``, ``partitionsTransferringOwnership`` (``None`` on the general path) and ``maxGeneration``.
Each scenario gets a fresh assignor, as the harness did (``initialMaxGeneration`` replays the instance
state of a unit test that reused its assignor).
"""
from __future__ import annotations

from typing import List, Mapping

from ..errors import InputError
from .cooperative_sticky import CooperativeStickyAssignor
from .model import ConsumerScenario, parse_consumer_input, tp_str
from .sticky import StickyAssignor
from .vectors import assignment_output

ASSIGNORS = {"sticky": StickyAssignor, "cooperative-sticky": CooperativeStickyAssignor}


def assignor_for(name: str):
    """A fresh assignor instance for ``name`` (``"sticky"`` or ``"cooperative-sticky"``)."""
    try:
        return ASSIGNORS[name]()
    except KeyError:
        raise InputError("assignor", f"{name!r} is not a sticky assignor (sticky, cooperative-sticky)") from None


def run_scenario(scenario: ConsumerScenario) -> dict:
    """Run one parsed scenario through a fresh sticky / cooperative-sticky assignor; vectors' output schema."""
    assignor = assignor_for(scenario.assignor)
    result = assignor.assign(scenario)
    transferring = result.partitions_transferring_ownership
    return {
        **assignment_output(result.assignment),
        "stickyPath": result.path,
        "partitionsTransferringOwnership": (None if transferring is None
                                            else {tp_str(tp): m for tp, m in transferring.items()}),
        "maxGeneration": result.max_generation,
    }


def normalize_input(data: Mapping) -> dict:
    """Input details the shared parser does not know: ``java.util.Collections$SingletonMap`` (one member,
    from ``Collections.singletonMap`` in Kafka's tests) iterates like a ``LinkedHashMap``."""
    data = dict(data)
    if data.get("subscriptionMapType") == "java.util.Collections$SingletonMap":
        data["subscriptionMapType"] = "java.util.LinkedHashMap"
    return data


def run(data: Mapping) -> dict:
    """Adapter entry point for a raw ``kind: consumer`` input with a sticky assignor."""
    return run_scenario(parse_consumer_input(normalize_input(data)))


def compare(expected: dict, actual: dict) -> List[str]:
    """Differences that matter: partition sets per member, path, transfers and maxGeneration (list order is
    reported separately by :func:`list_order_matches`)."""
    problems: List[str] = []
    for key in ("sortedAssignment", "stickyPath", "partitionsTransferringOwnership", "maxGeneration"):
        if expected.get(key) != actual.get(key):
            problems.append(f"{key}: expected {expected.get(key)!r}, got {actual.get(key)!r}")
    return problems


def list_order_matches(expected: dict, actual: dict) -> bool:
    """True if every member's list is in exactly Kafka's order."""
    return expected.get("assignment") == actual.get("assignment")
