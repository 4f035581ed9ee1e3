"""A real Streams application's assignments replayed through the book's model.

* classic protocol: :func:`predict_rebalance` gives the clients the leader logged (:class:`StreamsRebalance`:
  process ids, capacities, previous tasks, lags, tags) and the application's configs (:func:`streams_configs`)
  to the book's :class:`rebalance.streams.HighAvailabilityTaskAssignor`; :func:`compare_rebalance` sets the two
  side by side, per process;
* ``group.protocol=streams`` (KIP-1071): :func:`sticky_prediction` is the book's broker-side
  :class:`rebalance.streams.StickyTaskAssignor` for the members the coordinator described, in its member-map
  order (:func:`next_group_spec`).
"""
from __future__ import annotations

from typing import Dict, List, Mapping, Sequence, Tuple

from ...streams import (AssignmentConfigs, AssignmentMemberSpec, AssignmentResult, ClientState, GroupSpec,
                        HighAvailabilityTaskAssignor, StickyTaskAssignor, Subtopology, Topology)
from ..jsonlines import StreamsRecord
from .assignor_log import StreamsRebalance

__all__ = ["predict_rebalance", "streams_configs", "compare_rebalance", "sticky_prediction", "next_group_spec"]


def predict_rebalance(rebalance: StreamsRebalance, configs: AssignmentConfigs) -> AssignmentResult:
    """The book's ``HighAvailabilityTaskAssignor`` given the clients the leader logged (process ids, capacities,
    previous tasks, lags, tags) and the tasks."""
    clients = {pid: ClientState(c["prev_active"], c["prev_standby"], c["lags"], c["tags"], c["capacity"], pid)
               for pid, c in rebalance.clients.items()}
    return HighAvailabilityTaskAssignor().assign_detailed(clients, set(rebalance.stateful) | set(rebalance.stateless),
                                                          set(rebalance.stateful), configs)


def streams_configs(settings: Mapping[str, object]) -> AssignmentConfigs:
    """The ``AssignmentConfigs`` of an application's Streams settings (Kafka's defaults where unset)."""
    return AssignmentConfigs(int(str(settings.get("acceptable.recovery.lag", 10_000))),
                             int(str(settings.get("max.warmup.replicas", 2))),
                             int(str(settings.get("num.standby.replicas", 0))),
                             int(str(settings.get("probing.rebalance.interval.ms", 600_000))))


def compare_rebalance(rebalance: StreamsRebalance, configs: AssignmentConfigs) -> List[Dict[str, object]]:
    """One row per instance: its lag on each stateful task before, the real and the predicted active and standby
    tasks, the predicted warm-ups, and whether they agree."""
    result = predict_rebalance(rebalance, configs)
    rows: List[Dict[str, object]] = []
    for pid in sorted(rebalance.assignment, key=lambda p: rebalance.instances.get(p, "?")):
        real_a, real_s = rebalance.assignment[pid]
        state = result.clients[pid]
        pa, ps = state.active_tasks(), state.standby_tasks()
        lags = rebalance.clients[pid]["lags"]
        rows.append({
            "instance": rebalance.instances.get(pid, "?"),
            "caught_up_on": sum(1 for t in rebalance.stateful
                                if lags.get(t, 0) == -2 or 0 <= lags.get(t, 0) <= configs.acceptable_recovery_lag),
            "real_active": " ".join(str(t) for t in real_a), "real_standby": " ".join(str(t) for t in real_s),
            "book_active": " ".join(str(t) for t in pa), "book_standby": " ".join(str(t) for t in ps),
            "book_warmups": " ".join(str(t) for t in sorted(result.warmups.get(pid, set()))),
            "equal": (pa, ps) == (real_a, real_s)})
    return rows


def sticky_prediction(members: Sequence[Tuple[str, str, Sequence[str]]], partitions: int,
                      members_map: str = "hash") -> Dict[str, List[str]]:
    """The book's broker-side ``StickyTaskAssignor`` (KIP-1071) for one stateful subtopology ``0`` over
    ``partitions`` partitions: ``members`` as ``(member id, process id, active tasks "0_p")`` in the order the
    coordinator puts them into its member map (``TargetAssignmentBuilder.build``: the group's members, then the
    member whose heartbeat triggered the computation), that map a ``HashMap`` (``members_map="hash"``) as in
    the coordinator; no standbys (``num.standby.replicas`` 0).  Returns each member's active tasks."""
    specs = [(member_id, AssignmentMemberSpec(process_id=process_id, active_tasks={"0": frozenset(
        int(t.split("_")[1]) for t in tasks)} if tasks else {})) for member_id, process_id, tasks in members]
    result = StickyTaskAssignor().assign(GroupSpec.of(specs, members_map=members_map),
                                         Topology([Subtopology("0", partitions, stateful=True)]))
    return {m: [f"0_{p}" for p in sorted(a.active_tasks.get("0", ()))] for m, a in result.members.items()}


def next_group_spec(before: StreamsRecord, after: StreamsRecord) -> List[Tuple[str, str, List[str]]]:
    """The members of the target-assignment computation between two descriptions of a streams group (``group``
    records), in the order the coordinator put them into its member map: the members described before that are
    still there (with their target tasks then), then the newcomers (with none)."""
    now = {m["member_id"]: m for m in after["members"]}
    kept = [(m["member_id"], m["process_id"], m["target_assignment"]["active"]) for m in before["members"]
            if m["member_id"] in now]
    seen = {m["member_id"] for m in before["members"]}
    return kept + [(m["member_id"], m["process_id"], []) for m in after["members"] if m["member_id"] not in seen]
