"""Worked examples for the book, computed by the ported assignors.

:func:`three_workers_example` -- two workers ``c1``, ``c2`` run two connectors ``ct1``, ``ct2`` and three
tasks ``t1``, ``t2``, ``t3`` (``c1`` runs ``ct1, t1, t2``; ``c2`` runs ``ct2, t3``), then a third worker
``c3`` joins.  In Kafka's vocabulary ``t1, t2`` are tasks ``ct1-0, ct1-1`` and ``t3`` is ``ct2-0``.

:func:`interleaved_round_robin` is a *counterfactual* (not Kafka code): the round-robin that deals each
connector immediately followed by its tasks, which ``EagerAssignor``'s comment warns against.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Sequence, Tuple, Union

from .cluster import ConnectCluster, Running, RoundResult
from .model import ConnectorTaskId, connector_key, task_str

#: the names of the article "Eager Rebalance VS Incremental Cooperative Rebalance" -> Kafka ids
TASK_NAMES: Dict[ConnectorTaskId, str] = {("ct1", 0): "t1", ("ct1", 1): "t2", ("ct2", 0): "t3"}
EXAMPLE_CONNECTORS = {"ct1": 2, "ct2": 1}
EXAMPLE_RUNNING = {"c1": (["ct1"], [("ct1", 0), ("ct1", 1)]), "c2": (["ct2"], [("ct2", 0)])}


def pretty(item: Union[str, ConnectorTaskId]) -> str:
    """``t1`` for task ``ct1-0`` etc.; connectors unchanged."""
    if isinstance(item, tuple):
        return TASK_NAMES.get(item, task_str(item))
    return item


def three_workers_example(assignor: str, mode: str = "direct") -> List[RoundResult]:
    """The rounds (including the herder's follow-ups) after ``c3`` joins ``c1``, ``c2``."""
    cluster = ConnectCluster(assignor=assignor, mode=mode, connectors=EXAMPLE_CONNECTORS)
    members = {w: (list(c), list(t)) for w, (c, t) in EXAMPLE_RUNNING.items()}
    members["c3"] = ([], [])
    first = cluster.rebalance(members)
    return [first] + cluster.settle(first)


def derived_sets_table(mode: str = "direct") -> List[Dict[str, Any]]:
    """For each incremental round of the example, the sets the leader derives (``configured``,
    ``previous``, ``active``, ``deleted``, ``duplicated``, ``lost``, ``created``), with the article's names (``t1`` for ``ct1-0``)."""
    cluster = ConnectCluster(assignor="incremental", mode=mode, connectors=EXAMPLE_CONNECTORS)
    members = {w: (list(c), list(t)) for w, (c, t) in EXAMPLE_RUNNING.items()}
    members["c3"] = ([], [])
    rows = []
    result = cluster.rebalance(members)
    rounds = [result]
    while True:
        derived = cluster.incremental_assignor().last_derived
        rows.append({"round": len(rounds), **{name: ", ".join(pretty(x) for x in list(cat.connectors) + list(cat.tasks)) or "-"
                                              for name, cat in derived.items()}})
        reason = cluster.needs_follow_up(result)
        if reason is None or len(rounds) > 10:
            break
        result = cluster.rebalance(cluster.carried_members(list(result.members_in)))
        rounds.append(result)
    return rows


#: the connectors of :func:`derived_sets_example` before and after the configuration change
DERIVED_BEFORE = {"ct1": 2, "ct2": 1, "ct3": 1}
DERIVED_AFTER = {"ct1": 2, "ct2": 1, "ct4": 1}


def derived_sets_example() -> Tuple[Dict[str, object], RoundResult, Dict[str, Running]]:
    """One incremental round where every derived set is non-empty.  Three workers settle on
    :data:`DERIVED_BEFORE`; then ``ct3`` is deleted and ``ct4`` created (:data:`DERIVED_AFTER`), ``w2``
    disappears, and ``w3`` reports one of ``w1``'s tasks as its own too (a worker that kept running it after
    losing touch with the group).  Returns the leader's derived sets of that round
    (``IncrementalCooperativeAssignor.last_derived``), the round, and what the workers reported."""
    cluster = ConnectCluster(connectors=DERIVED_BEFORE)
    first = cluster.rebalance({w: ([], []) for w in ("w1", "w2", "w3")})
    cluster.settle(first)
    running = {w: (list(c), list(t)) for w, (c, t) in cluster.running.items()}
    stolen = running["w1"][1][0]
    reported = {"w1": running["w1"], "w3": (running["w3"][0], running["w3"][1] + [stolen])}
    cluster.connectors = dict(DERIVED_AFTER)
    result = cluster.rebalance(reported)
    return dict(cluster.incremental_assignor().last_derived), result, reported


def round_table(rounds: Sequence[RoundResult]) -> List[Dict[str, Any]]:
    """One row per (round, worker): what it ran, what it stopped, what it started, what it runs after."""
    rows = []
    for i, r in enumerate(rounds):
        for w in sorted(r.workers, key=connector_key):
            wr = r.workers[w]
            c, t = r.members_in[w]
            after_c = [x for x in c if x not in wr.revoked_connectors]
            after_c += [x for x in wr.assigned_connectors if x not in after_c]
            after_t = [x for x in t if x not in wr.revoked_tasks]
            after_t += [x for x in wr.assigned_tasks if x not in after_t]
            rows.append({
                "round": i + 1,
                "why": r.follow_up or "c3 joins",
                "worker": w,
                "running before": ", ".join(pretty(x) for x in list(c) + list(t)) or "-",
                "stopped": ", ".join(pretty(x) for x in wr.revoked_connectors + wr.revoked_tasks) or "-",
                "started": ", ".join(pretty(x) for x in wr.assigned_connectors + wr.assigned_tasks) or "-",
                "running after": ", ".join(pretty(x) for x in after_c + after_t) or "-",
            })
    return rows


def interleaved_round_robin(connectors: Mapping[str, int], workers: Sequence[str]
                            ) -> Dict[str, Tuple[List[str], List[ConnectorTaskId]]]:
    """NOT Kafka: deal connector, its tasks, next connector, ... over the sorted workers.  With
    one-task connectors on an even number of workers, connectors land only on even positions and tasks
    only on odd ones -- the imbalance ``EagerAssignor`` avoids by dealing all connectors first."""
    ws = sorted(workers, key=connector_key)
    out: Dict[str, Tuple[List[str], List[ConnectorTaskId]]] = {w: ([], []) for w in ws}
    pos = 0
    for name in sorted(connectors, key=connector_key):
        out[ws[pos % len(ws)]][0].append(name)
        pos += 1
        for i in range(connectors[name]):
            out[ws[pos % len(ws)]][1].append((name, i))
            pos += 1
    return out


__all__ = ["DERIVED_AFTER", "DERIVED_BEFORE", "EXAMPLE_CONNECTORS", "EXAMPLE_RUNNING", "derived_sets_example", "derived_sets_table", "interleaved_round_robin", "pretty", "round_table",
           "three_workers_example"]
