"""Scale-out and scale-in of a Kafka Streams application, rebalance by rebalance, through the book's
:class:`~rebalance.streams.HighAvailabilityTaskAssignor` (chapter 15 and the Spark job ``streams``).

The model of the clients' lags between rebalances (the assignor itself is Kafka's, exactly):

* a task a client ran as active in the last assignment: ``Task.LATEST_OFFSET`` (-2), as a running task reports;
* a task it held as a standby or warm-up replica: lag 0 -- the *probing* assumption: by the time of the next
  probing rebalance (``probing.rebalance.interval.ms``, 10 minutes by default) its replica has caught up;
* any other task: ``behind`` records (default 10,000,000: far beyond any ``acceptable.recovery.lag``) -- a new
  instance has no state, and state a client dropped is stale.

:func:`steady_clients` builds a settled application (every task active on the client the assignor put it on,
standbys caught up); :func:`probing_rounds` adds or removes clients and runs the assignor until it returns
"no probing rebalance needed"; :func:`random_process_ids` draws process ids from a seed.
"""
from __future__ import annotations

import random
import uuid
from dataclasses import dataclass
from typing import AbstractSet, Dict, List, Mapping, Optional, Sequence, Union

from .assignment_configs import AssignmentConfigs
from .client_state import LATEST_OFFSET, ClientState
from .high_availability_task_assignor import AssignmentResult, HighAvailabilityTaskAssignor
from .process_id import ProcessId
from .task_id import TaskId

__all__ = ["BEHIND", "ProbingRound", "assign_round", "probing_rounds", "random_process_ids", "steady_clients", "tasks_of"]

#: the lag of a task a client holds no state for
BEHIND = 10_000_000


def tasks_of(subtopologies: int, partitions: int) -> List[TaskId]:
    """Every task ``s_p`` of ``subtopologies`` subtopologies over ``partitions`` input partitions."""
    return [TaskId(s, p) for s in range(subtopologies) for p in range(partitions)]


def random_process_ids(count: int, seed: int) -> List[ProcessId]:
    """``count`` process ids as ``UUID.randomUUID()`` draws them (version 4), from ``seed``."""
    rng = random.Random(seed)
    return [ProcessId(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(count)]


@dataclass
class ProbingRound:
    """One rebalance: who runs what afterwards, the warm-ups handed out, and the assignor's answer."""

    number: int                               #: 1: the rebalance the change caused; 2...: probing rebalances
    active: Dict[ProcessId, List[TaskId]]
    standby: Dict[ProcessId, List[TaskId]]    #: standbys and warm-ups
    warmups: Dict[ProcessId, List[TaskId]]
    probing_rebalance_needed: bool
    moved_actives: int                        #: active tasks on another client than before this rebalance

    def warmup_count(self) -> int:
        return sum(len(t) for t in self.warmups.values())

    def active_counts(self, order: Sequence[ProcessId]) -> List[int]:
        return [len(self.active.get(p, [])) for p in order]


def _lags(pid: ProcessId, tasks: Sequence[TaskId], active: Mapping[ProcessId, List[TaskId]],
          replicas: AbstractSet[TaskId], behind: Union[int, Mapping[TaskId, int]]) -> Dict[TaskId, int]:
    mine = set(active.get(pid, []))
    return {t: LATEST_OFFSET if t in mine else 0 if t in replicas else
            behind if isinstance(behind, int) else behind[t] for t in tasks}


def assign_round(pids: Sequence[ProcessId], capacities: Mapping[ProcessId, int], tasks: Sequence[TaskId],
                 active: Mapping[ProcessId, List[TaskId]], standby: Mapping[ProcessId, List[TaskId]],
                 configs: AssignmentConfigs, behind: Union[int, Mapping[TaskId, int]] = BEHIND,
                 stored: Optional[Mapping[ProcessId, AbstractSet[TaskId]]] = None,
                 restoring: Optional[Mapping[ProcessId, AbstractSet[TaskId]]] = None) -> AssignmentResult:
    """One rebalance of the clients ``pids`` under this module's model of their lags: ``active`` (the tasks
    each ran as active in the last assignment: ``Task.LATEST_OFFSET``), ``standby`` (its standbys and warm-ups:
    lag 0, caught up) and ``stored`` (other tasks whose state it still has on disk and has kept up to date:
    lag 0, and so previous standbys, as a subscription's offset sums make them); any other task lags ``behind``
    (one figure, or one per task: its changelogs' end offset sum, a client without state restores it all) -- also
    the tasks of ``restoring`` (replicas handed out so recently that they have not caught up yet: previous
    standbys, lagging ``behind``).
    Returns :class:`~rebalance.streams.HighAvailabilityTaskAssignor`'s answer (the clients hold it)."""
    clients = {}
    for p in pids:
        replicas = set(standby.get(p, [])) | set((stored or {}).get(p, set()))
        replicas -= set(active.get(p, []))
        behind_ones = set((restoring or {}).get(p, set())) - replicas - set(active.get(p, []))
        clients[p] = ClientState(active.get(p, []), sorted(replicas | behind_ones),
                                 _lags(p, tasks, active, replicas, behind), {}, capacities[p], p)
    return HighAvailabilityTaskAssignor().assign_detailed(clients, set(tasks), set(tasks), configs)


def steady_clients(pids: Sequence[ProcessId], tasks: Sequence[TaskId], configs: AssignmentConfigs,
                   capacities: Optional[Mapping[ProcessId, int]] = None
                   ) -> "tuple[Dict[ProcessId, List[TaskId]], Dict[ProcessId, List[TaskId]]]":
    """A settled application: the assignor's answer when every client is caught up on every task (the
    assignment of a first start, before any state exists) -- (active, standby) per process id."""
    caps = dict(capacities or {p: 1 for p in pids})
    clients = {p: ClientState([], [], {t: 0 for t in tasks}, {}, caps[p], p) for p in pids}
    HighAvailabilityTaskAssignor().assign_detailed(clients, set(tasks), set(tasks), configs)
    return ({p: c.active_tasks() for p, c in clients.items()}, {p: c.standby_tasks() for p, c in clients.items()})


def probing_rounds(before: Sequence[ProcessId], after: Sequence[ProcessId], tasks: Sequence[TaskId],
                   configs: AssignmentConfigs, capacities: Optional[Mapping[ProcessId, int]] = None,
                   behind: int = BEHIND, max_rounds: int = 100) -> List[ProbingRound]:
    """The application settled on the clients ``before``; then the group is ``after`` (new clients added,
    some gone): the rebalance this causes, and every probing rebalance after it (warm-ups caught up by then),
    until the assignor says none is needed (or ``max_rounds``).

    Defined in chapter 15, *Kafka Streams: who runs which task*."""
    caps = dict(capacities or {p: 1 for p in set(before) | set(after)})
    active, standby = steady_clients(before, tasks, configs, caps)
    rounds: List[ProbingRound] = []
    for number in range(1, max_rounds + 1):
        result = assign_round(after, caps, tasks, active, standby, configs, behind)
        new_active = {p: c.active_tasks() for p, c in result.clients.items()}
        owner = {t: p for p, ts in active.items() for t in ts}
        moved = sum(1 for p, ts in new_active.items() for t in ts if owner.get(t) not in (None, p)
                    and owner.get(t) in result.clients)
        rounds.append(ProbingRound(number, new_active, {p: c.standby_tasks() for p, c in result.clients.items()},
                                   {p: sorted(ts) for p, ts in result.warmups.items()},
                                   result.probing_rebalance_needed, moved))
        active, standby = new_active, rounds[-1].standby
        if not result.probing_rebalance_needed:
            break
    return rounds
