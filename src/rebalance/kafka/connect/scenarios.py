"""The scenarios of chapter 11, scaled down, on a real Connect cluster and replayed through the book's model.

:func:`connectors_added` adds connectors one after another; :func:`worker_bounced` stops a worker and starts it
again, back before ``scheduled.rebalance.max.delay.ms`` runs out or only after.  Each returns a
:class:`ScenarioResult`: the rounds the scenario caused, each next to the model's
(:func:`rebalance.kafka.connect.replay.compare_rounds`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import List, Mapping, Optional, Sequence, TypedDict

from ...validation import require
from .replay import ComparisonRow, RoundComparison, compare_rounds
from .workers import ConnectDistributedCluster

__all__ = ["ScenarioResult", "ScenarioSummary", "connectors_added", "summary_table", "worker_bounced"]

#: :meth:`ScenarioResult.summary`: run-independent figures of one scenario
ScenarioSummary = TypedDict("ScenarioSummary", {
    "scenario": str, "connect.protocol": str, "rounds": int, "rounds equal": int, "rounds identical": int,
    "delay scheduled (real)": bool, "delay scheduled (model)": bool, "revocations (real)": int,
    "revocations (model)": int})


@dataclass
class ScenarioResult:
    """A scenario played on a real Connect cluster and replayed through the model: its rounds side by side."""

    scenario: str
    connect_protocol: str
    comparisons: List[RoundComparison]
    #: the bounced worker (bounces only) and whether it rejoined before the scheduled delay ran out
    worker: Optional[str] = None
    back_in_time: Optional[bool] = None
    seconds: float = 0.0

    def summary(self) -> ScenarioSummary:
        """Run-independent figures: rounds compared, equal and identical, whether any delay was sent."""
        c = self.comparisons
        return {"scenario": self.scenario, "connect.protocol": self.connect_protocol, "rounds": len(c),
                "rounds equal": sum(r.equal for r in c), "rounds identical": sum(r.identical for r in c),
                "delay scheduled (real)": any(r.real_delay > 0 for r in c),
                "delay scheduled (model)": any(r.model_delay > 0 for r in c),
                "revocations (real)": sum(sum(map(sum, (s.revoked for s in r.real.values()))) for r in c),
                "revocations (model)": sum(sum(map(sum, (s.revoked for s in r.model.values()))) for r in c)}

    def table(self) -> List[ComparisonRow]:
        """One :meth:`RoundComparison.row` per round."""
        return [r.row() for r in self.comparisons]


def _result(connect: ConnectDistributedCluster, scenario: str, since: int, began: float,
            worker: Optional[str] = None, back_in_time: Optional[bool] = None) -> ScenarioResult:
    comparisons = compare_rounds(connect.rounds(), connect.connect_protocol, connect.max_delay_ms, since)
    return ScenarioResult(scenario, connect.connect_protocol, comparisons, worker, back_in_time,
                          seconds=time.monotonic() - began)


def connectors_added(connect: ConnectDistributedCluster, connectors: Mapping[str, int], timeout: float = 60.0) -> ScenarioResult:
    """Add each connector (``{name: tasks.max}``) in turn, waiting until the cluster has settled after each
    (``DistributedHerder`` rebalances once for the connector's config and once more when its task configs are
    written)."""
    require(isinstance(connectors, Mapping) and len(connectors) > 0, "connectors",
            "must be a non-empty dict {name: tasks.max}")
    began, since = time.monotonic(), connect.generation()
    for name, tasks in connectors.items():
        connect.add_connector(name, tasks)
        connect.wait_until_settled(timeout)
    return _result(connect, "connectors added", since, began)


def worker_bounced(connect: ConnectDistributedCluster, worker: str, longer_than_delay: bool, timeout: float = 90.0
                   ) -> ScenarioResult:
    """Stop ``worker`` (gracefully: it leaves the group) and start it again with the same port: at once
    (``longer_than_delay=False``: it is back while ``scheduled.rebalance.max.delay.ms`` still runs, unless the
    restart takes longer), or only after the scheduled rebalance has given its work to the others
    (``longer_than_delay=True``).  Then wait until the cluster has settled."""
    require(isinstance(longer_than_delay, bool), "longer_than_delay", "must be True or False")
    began, since = time.monotonic(), connect.generation()
    connect.stop_worker(worker)
    left = time.monotonic()
    if longer_than_delay:
        if connect.connect_protocol == "eager":
            time.sleep(connect.max_delay_ms / 1000 + 1)
        connect.wait_until_settled(timeout)  # the survivors run everything: the scheduled rebalance has run
    connect.start_worker(worker)
    back_after = time.monotonic() - left
    connect.wait_until_settled(timeout)
    scenario = f"worker bounced, {'longer' if longer_than_delay else 'shorter'} than the delay"
    return _result(connect, scenario, since, began, worker=worker,
                   back_in_time=back_after * 1000 < connect.max_delay_ms)


def summary_table(results: Sequence[ScenarioResult]) -> List[ScenarioSummary]:
    """One :meth:`ScenarioResult.summary` per scenario."""
    return [r.summary() for r in results]
