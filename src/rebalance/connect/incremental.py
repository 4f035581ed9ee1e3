"""Kafka Connect's incremental cooperative assignor (KIP-415).

Mirrors ``org.apache.kafka.connect.runtime.distributed.IncrementalCooperativeAssignor`` of Kafka
4.3.1 (unchanged since 3.9; first written from trunk commit 1eb7644), including the state the leader
keeps between rounds:

* the previous assignment and the generation it was computed in (forgotten when the last completed
  generation does not match: the previous round's assignment may never have reached the workers);
* the previous round's revocations (if a revoked connector/task is still running, the revocation did not
  take effect and the leader starts again from what the workers report);
* the scheduled rebalance and ``delay`` while the work of departed workers is held back
  (``scheduled.rebalance.max.delay.ms``), and the workers that came back empty meanwhile;
* successive load-balancing revocations, spaced by ``ExponentialBackoff(1, 40, maxDelay, 0)``.

Java collection orders that decide *content* are reproduced: the member ``HashMap`` order (which
workers keep the "+1" of a load-balancing revocation), ``HashSet`` orders of the deleted/duplicated
revocations, the ``LinkedHashSet`` of candidate workers, and ``TreeSet`` order of new/lost work.

Use :meth:`IncrementalCooperativeAssignor.perform_task_assignment` round by round::

    assignor = IncrementalCooperativeAssignor(max_delay=300_000)
    result = assignor.next_round({"conn": 4}, {"w1": ([], []), "w2": ([], [])})
    result.newly_assigned_tasks["w1"]          # what w1 starts
    result.newly_revoked_tasks.get("w1", [])   # what w1 stops
"""
from __future__ import annotations

import math
from typing import (TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple, TypeVar,
                    Union)

from ..errors import InputError
from ..java import JavaHashOrder, string_hash
from ..validation import require
from .model import (
    ClusterAssignment,
    ConnectorTaskId,
    ConnectorsAndTasks,
    WorkerLoad,
    as_connectors_and_tasks,
    connector_key,
    hash_set_retain_order,
    hashmap_member_order,
    task_hash,
    task_key,
)

if TYPE_CHECKING:
    from .leader import CoordinatorState

DEFAULT_MAX_DELAY_MS = 300_000
DEFAULT_START_TIME_MS = 1_700_000_000_000


class MockTime:
    """The leader's clock (``org.apache.kafka.common.utils.MockTime`` in Kafka's tests): milliseconds."""

    def __init__(self, now_ms: int = DEFAULT_START_TIME_MS):
        self.now_ms = int(now_ms)

    def milliseconds(self) -> int:
        return self.now_ms

    def sleep(self, ms: int) -> None:
        self.now_ms += int(ms)

    def set(self, now_ms: int) -> None:
        self.now_ms = int(now_ms)


class ExponentialBackoff:
    """``org.apache.kafka.common.utils.ExponentialBackoff`` without jitter (Kafka 3.x).

    ``backoff(n) = min(initial * multiplier ** min(n, expMax), max)`` where
    ``expMax = log(max / initial) / log(multiplier)``; the assignor uses ``(1, 40, maxDelay, 0)``, so
    successive revoking rounds wait 40 ms, 1.6 s, 64 s and then ``maxDelay``.
    """

    def __init__(self, initial_interval: int, multiplier: int, max_interval: int, jitter: float = 0.0):
        self.initial_interval = min(max_interval, initial_interval)
        self.multiplier = multiplier
        self.max_interval = max_interval
        if jitter:
            raise InputError("jitter", "only the jitter-free backoff used by the Connect assignor is modelled")
        if max_interval > self.initial_interval:
            self.exp_max = math.log(max_interval / float(max(self.initial_interval, 1))) / math.log(multiplier)
        else:
            self.exp_max = 0.0

    def backoff(self, attempts: int) -> int:
        if self.exp_max == 0:
            return self.initial_interval
        exp = min(float(attempts), self.exp_max)
        term = self.initial_interval * math.pow(self.multiplier, exp)
        return min(int(term), self.max_interval)


T = TypeVar("T")
MemberAssignments = Mapping[str, Union[ConnectorsAndTasks, Tuple[Iterable[str], Iterable[ConnectorTaskId]]]]


class IncrementalCooperativeAssignor:
    """``IncrementalCooperativeAssignor`` (KIP-415): one instance = one leader, called once per round.

    ``max_delay`` is ``scheduled.rebalance.max.delay.ms``; ``time`` the leader's clock (a
    :class:`MockTime`, or any object with ``now_ms`` such as the simulators' ``VirtualClock``).  The protected
    fields of the Java class are plain attributes here (``delay``, ``scheduled_rebalance``,
    ``previous_generation_id``, ``previous_members``, ``candidate_workers_for_reassignment``...).
    It is the :class:`~rebalance.connect.assignor.ConnectAssignor` of ``connect.protocol=compatible`` and
    ``sessioned``.

    Defined in chapter 11, *Kafka Connect: from stop-the-world to incremental*."""

    #: the assignor family name the vectors use (``"assignor": "incremental"``)
    NAME = "incremental"
    #: ``connect.protocol`` values this assignor serves (``ConnectProtocolCompatibility.COMPATIBLE``/``SESSIONED``)
    PROTOCOLS: Tuple[str, ...] = ("compatible", "sessioned")

    def name(self) -> str:
        """The registry name, :attr:`NAME` (the package's one convention: a ``NAME`` constant on the class and a
        ``name()`` method, as Kafka's assignors have ``String name()``)."""
        return self.NAME

    def __init__(self, max_delay: int = DEFAULT_MAX_DELAY_MS, time: Optional[MockTime] = None,
                 previous_generation_id: int = -1):
        require(isinstance(max_delay, int) and not isinstance(max_delay, bool) and max_delay >= 0,
                "max_delay_ms", f"must be a whole number of milliseconds >= 0, got {max_delay!r}")
        self.time = time if time is not None else MockTime()
        self.max_delay = max_delay
        self.previous_assignment = ConnectorsAndTasks()
        self.previous_revocation = ConnectorsAndTasks()
        self.scheduled_rebalance = 0
        self.revoked_in_previous = False
        self.candidate_workers_for_reassignment: Dict[str, None] = {}
        self.delay = 0
        self.previous_generation_id = previous_generation_id
        self.previous_members: List[str] = []
        self.num_successive_revoking_rebalances = 0
        self.consecutive_revoking_rebalances_backoff = ExponentialBackoff(0 if max_delay == 0 else 1, 40, max_delay, 0)
        self.last_derived: Dict[str, ConnectorsAndTasks] = {}
        #: the ClusterAssignment of the last round (the leader state ``WorkerCoordinator.leaderState`` keeps)
        self.last_cluster_assignment: Optional[ClusterAssignment] = None

    def now_ms(self) -> int:
        """The leader's clock: a :class:`MockTime` (``milliseconds()``) or any clock with ``now_ms``, such
        as the simulators' :class:`rebalance.protocol.clock.VirtualClock`."""
        t = self.time
        return t.milliseconds() if hasattr(t, "milliseconds") else int(t.now_ms)

    # ------------------------------------------------------------------------------------------
    def perform_task_assignment(self, connectors: Mapping[str, int], last_completed_generation_id: int,
                                current_generation_id: int, member_assignments: MemberAssignments,
                                member_order: Optional[Sequence[str]] = None) -> ClusterAssignment:
        """``performTaskAssignment(configSnapshot, lastCompletedGenerationId, currentGenerationId,
        memberAssignments)``: one round of the leader's computation.

        ``connectors`` maps each configured connector to its task count (tasks ``0..n-1``).
        ``member_assignments`` maps each member to what it currently runs (``(connectors, tasks)`` or a
        :class:`ConnectorsAndTasks`), in the order the members joined.  Kafka keeps them in a
        ``HashMap``; ``member_order`` overrides the iteration order (default: Java ``HashMap`` order of the
        given keys).
        """
        require(len(member_assignments) > 0, "members", "a rebalance needs at least one member")
        if member_order is None:
            member_order = hashmap_member_order(list(member_assignments))
        members: Dict[str, ConnectorsAndTasks] = {w: as_connectors_and_tasks(member_assignments[w]) for w in member_order}

        if self.previous_generation_id != last_completed_generation_id:
            self.previous_assignment = ConnectorsAndTasks()

        configured_connectors = sorted(connectors, key=connector_key)
        configured_task_set = set()
        for name in configured_connectors:
            for i in range(connectors[name]):
                configured_task_set.add((name, i))
        configured_connector_set = set(configured_connectors)

        active = ConnectorsAndTasks()
        for cat in members.values():
            active.connectors.update(dict.fromkeys(cat.connectors))
            active.tasks.update(dict.fromkeys(cat.tasks))

        if not self.previous_revocation.is_empty():
            if (any(c in active.connectors for c in self.previous_revocation.connectors)
                    or any(t in active.tasks for t in self.previous_revocation.tasks)):
                self.previous_assignment = active.copy()
            self.previous_revocation.clear()

        previous = self.previous_assignment
        # deleted = previous - configured (TreeSet order)
        deleted_connectors = sorted((c for c in previous.connectors if c not in configured_connector_set), key=connector_key)
        deleted_tasks = sorted((t for t in previous.tasks if t not in configured_task_set), key=task_key)
        deleted_c_set, deleted_t_set = set(deleted_connectors), set(deleted_tasks)

        # connectors and tasks running on more than one worker
        seen_c: Dict[str, int] = {}
        seen_t: Dict[ConnectorTaskId, int] = {}
        for cat in members.values():
            for c in cat.connectors:
                seen_c[c] = seen_c.get(c, 0) + 1
            for t in cat.tasks:
                seen_t[t] = seen_t.get(t, 0) + 1
        duplicated_c = {c for c, n in seen_c.items() if n > 1}
        duplicated_t = {t for t, n in seen_t.items() if n > 1}

        # lost = previous - active - deleted; created = configured - previous - active
        lost = ConnectorsAndTasks(
            sorted((c for c in previous.connectors if c not in active.connectors and c not in deleted_c_set), key=connector_key),
            sorted((t for t in previous.tasks if t not in active.tasks and t not in deleted_t_set), key=task_key),
        )
        created = ConnectorsAndTasks(
            [c for c in configured_connectors if c not in previous.connectors and c not in active.connectors],
            sorted((t for t in configured_task_set if t not in previous.tasks and t not in active.tasks), key=task_key),
        )

        #: the sets the leader derived in its last round (for explanations; not used by the algorithm)
        self.last_derived = {
            "configured": ConnectorsAndTasks(configured_connectors, sorted(configured_task_set, key=task_key)),
            "previous": ConnectorsAndTasks(previous.connectors, previous.tasks),
            "active": active.copy(),
            "deleted": ConnectorsAndTasks(deleted_connectors, deleted_tasks),
            "duplicated": ConnectorsAndTasks(sorted(duplicated_c, key=connector_key), sorted(duplicated_t, key=task_key)),
            "lost": lost.copy(),
            "created": created.copy(),
        }

        # the current assignment without what is deleted (membership is all that is used later)
        current_c = {w: {c for c in cat.connectors if c not in deleted_c_set} for w, cat in members.items()}
        current_t = {w: {t for t in cat.tasks if t not in deleted_t_set} for w, cat in members.items()}

        to_revoke: Dict[str, ConnectorsAndTasks] = {}
        deleted_to_revoke = self._intersection(deleted_c_set, deleted_t_set, members)
        self._add_all(to_revoke, deleted_to_revoke)
        duplicated_to_revoke = self._intersection(duplicated_c, duplicated_t, members)
        self._add_all(to_revoke, duplicated_to_revoke)

        next_loads: List[WorkerLoad] = [WorkerLoad(w, cat.connectors, cat.tasks) for w, cat in members.items()]
        self._remove_all(next_loads, deleted_to_revoke)
        self._remove_all(next_loads, duplicated_to_revoke)

        lost_to_reassign = ConnectorsAndTasks()
        self.handle_lost_assignments(lost, lost_to_reassign, next_loads)

        if self.delay == 0:
            lb = self._perform_load_balancing_revocations(len(configured_connector_set), len(configured_task_set), next_loads)
            if self.revoked_in_previous and lb:
                self.num_successive_revoking_rebalances += 1
                self.delay = int(self.consecutive_revoking_rebalances_backoff.backoff(self.num_successive_revoking_rebalances))
                if self.delay != 0:
                    self.scheduled_rebalance = self.now_ms() + self.delay
                else:
                    self._add_all(to_revoke, lb)
                    self._remove_all(next_loads, lb)
            elif lb:
                self._add_all(to_revoke, lb)
                self._remove_all(next_loads, lb)
                self.revoked_in_previous = True
            elif self.revoked_in_previous:
                self.revoked_in_previous = False
                self.num_successive_revoking_rebalances = 0
        else:
            self.revoked_in_previous = False

        to_assign = ConnectorsAndTasks(created.connectors, created.tasks).add_all(lost_to_reassign)
        self.assign_connectors(next_loads, list(to_assign.connectors))
        self.assign_tasks(next_loads, list(to_assign.tasks))

        next_c = {wl.worker: list(wl.connectors) for wl in next_loads}
        next_t = {wl.worker: list(wl.tasks) for wl in next_loads}
        incremental_c = {w: [c for c in cs if c not in current_c.get(w, ())] for w, cs in next_c.items()}
        incremental_t = {w: [t for t in ts if t not in current_t.get(w, ())] for w, ts in next_t.items()}

        revoked = to_revoke
        self.previous_assignment = self._compute_previous_assignment(revoked, next_loads, lost)
        self.previous_generation_id = current_generation_id
        self.previous_members = list(members)

        revoked_c = {w: list(r.connectors) for w, r in revoked.items()}
        revoked_t = {w: list(r.tasks) for w, r in revoked.items()}
        all_c = {w: [c for c in cs if c not in revoked[w].connectors] if w in revoked else list(cs) for w, cs in next_c.items()}
        all_t = {w: [t for t in ts if t not in revoked[w].tasks] if w in revoked else list(ts) for w, ts in next_t.items()}
        self.last_cluster_assignment = ClusterAssignment(incremental_c, incremental_t, revoked_c, revoked_t, all_c, all_t)
        return self.last_cluster_assignment

    def perform_assignment(self, leader_id: str, protocol: str, all_member_metadata: Sequence[Tuple[str, bytes]],
                           coordinator: "CoordinatorState") -> Dict[str, bytes]:
        """``ConnectAssignor.performAssignment`` on serialized metadata (see
        :func:`rebalance.connect.leader.leader_assignment`)."""
        from .leader import leader_assignment

        return leader_assignment(self, leader_id, protocol, all_member_metadata, coordinator)

    def next_round(self, connectors: Mapping[str, int], members: MemberAssignments,
                           generation_id: Optional[int] = None, last_completed_generation_id: Optional[int] = None,
                           member_order: Optional[Sequence[str]] = None) -> ClusterAssignment:
        """One round with the generations filled in the usual way: ``generation_id`` defaults to the
        previous round's + 1 and ``last_completed_generation_id`` to ``generation_id - 1`` (every round
        completed).  See :meth:`perform_task_assignment`."""
        if generation_id is None:
            generation_id = (self.previous_generation_id if self.previous_generation_id >= 0 else 0) + 1
        if last_completed_generation_id is None:
            last_completed_generation_id = generation_id - 1
        return self.perform_task_assignment(connectors, last_completed_generation_id, generation_id, members, member_order)

    # ------------------------------------------------------------------------------------------
    def _compute_previous_assignment(self, revoked: Dict[str, ConnectorsAndTasks], next_loads: List[WorkerLoad],
                                     lost: ConnectorsAndTasks) -> ConnectorsAndTasks:
        # Kafka collects the next assignment through a HashMap keyed by worker (Collectors.toMap)
        by_worker = {wl.worker: wl for wl in next_loads}
        order = hashmap_member_order([wl.worker for wl in next_loads])
        previous = ConnectorsAndTasks()
        for w in order:
            previous.connectors.update(dict.fromkeys(by_worker[w].connectors))
            previous.tasks.update(dict.fromkeys(by_worker[w].tasks))
        for r in revoked.values():
            for c in r.connectors:
                previous.connectors.pop(c, None)
            for t in r.tasks:
                previous.tasks.pop(t, None)
            self.previous_revocation.add_all(r)
        previous.add_all(lost)
        return previous

    @staticmethod
    def _intersection(connectors: Set[str], tasks: Set[ConnectorTaskId], members: Dict[str, ConnectorsAndTasks]
                      ) -> Dict[str, ConnectorsAndTasks]:
        """``intersection(connectorsAndTasks, memberAssignments)``: per worker, ``new HashSet<>(own)``
        ``.retainAll(given)`` -- so the order is the worker's own ``HashSet`` iteration order."""
        out: Dict[str, ConnectorsAndTasks] = {}
        for w, cat in members.items():
            cs = hash_set_retain_order(list(cat.connectors), connectors, string_hash) if connectors else []
            ts = hash_set_retain_order(list(cat.tasks), tasks, task_hash) if tasks else []
            out[w] = ConnectorsAndTasks(cs, ts)
        return out

    @staticmethod
    def _add_all(base: Dict[str, ConnectorsAndTasks], to_add: Dict[str, ConnectorsAndTasks]) -> None:
        for w, cat in to_add.items():
            base.setdefault(w, ConnectorsAndTasks()).add_all(cat)

    @staticmethod
    def _remove_all(loads: List[WorkerLoad], to_remove: Dict[str, ConnectorsAndTasks]) -> None:
        for wl in loads:
            r = to_remove.get(wl.worker)
            if r is None:
                continue
            for c in r.connectors:
                wl.connectors.pop(c, None)
            for t in r.tasks:
                wl.tasks.pop(t, None)

    # ------------------------------------------------------------------------------------------
    def handle_lost_assignments(self, lost: ConnectorsAndTasks, lost_to_reassign: ConnectorsAndTasks,
                                complete_worker_assignment: List[WorkerLoad]) -> None:
        """``handleLostAssignments``: hold the work of departed workers back for the scheduled delay, then
        give it to the workers that came back empty (or treat it as new work)."""
        if lost.is_empty() and not self.revoked_in_previous:
            self._reset_delay()
            return
        now = self.now_ms()
        active_members = {wl.worker for wl in complete_worker_assignment}
        if self.scheduled_rebalance <= 0 and all(m in active_members for m in self.previous_members):
            lost_to_reassign.add_all(lost)
            return
        if self.max_delay == 0:
            lost_to_reassign.add_all(lost)
            return

        if self.scheduled_rebalance > 0 and now >= self.scheduled_rebalance:
            candidates: List[WorkerLoad] = []
            if self.candidate_workers_for_reassignment:
                active = {wl.worker: wl for wl in complete_worker_assignment}
                candidates = [active[w] for w in self.candidate_workers_for_reassignment if w in active]
            if candidates:
                # round robin over the candidates, from the first one for the connectors and again for the
                # tasks (IncrementalCooperativeAssignor lines 482-499 in 4.3.1, 485-502 at commit 1eb7644:
                # a fresh iterator each time)
                for i, connector in enumerate(lost.connectors):
                    candidates[i % len(candidates)].assign_connector(connector)
                for i, task in enumerate(lost.tasks):
                    candidates[i % len(candidates)].assign_task(task)
            else:
                lost_to_reassign.add_all(lost)
            self._reset_delay()
            self.revoked_in_previous = False
        else:
            # Collectors.toSet(): a HashSet of the empty workers, filled in list order
            empty = [wl.worker for wl in complete_worker_assignment if wl.is_empty()]
            for w in JavaHashOrder(string_hash).put_all(empty).keys():
                self.candidate_workers_for_reassignment.setdefault(w, None)
            if now < self.scheduled_rebalance:
                self.delay = self._calculate_delay(now)
            else:
                self.delay = self.max_delay
            self.scheduled_rebalance = now + self.delay

    def _reset_delay(self) -> None:
        self.candidate_workers_for_reassignment.clear()
        self.scheduled_rebalance = 0
        self.delay = 0

    def _calculate_delay(self, now: int) -> int:
        diff = self.scheduled_rebalance - now
        return int(min(diff, self.max_delay)) if diff > 0 else 0

    # ------------------------------------------------------------------------------------------
    def _perform_load_balancing_revocations(self, n_connectors: int, n_tasks: int,
                                            workers: List[WorkerLoad]) -> Dict[str, ConnectorsAndTasks]:
        """``performLoadBalancingRevocations``: revoke from every worker above its fair share
        (floor or ceil of total / workers), visiting workers in member-map order."""
        if all(wl.is_empty() for wl in workers):
            return {}
        if n_connectors == 0 and n_tasks == 0:
            return {}
        result: Dict[str, ConnectorsAndTasks] = {}
        conn_rev = load_balancing_revocations(n_connectors, workers, lambda wl: wl.connectors)
        task_rev = load_balancing_revocations(n_tasks, workers, lambda wl: wl.tasks)
        for w, revoked in conn_rev.items():
            result.setdefault(w, ConnectorsAndTasks()).connectors.update(dict.fromkeys(revoked))
        for w, revoked_tasks in task_rev.items():
            result.setdefault(w, ConnectorsAndTasks()).tasks.update(dict.fromkeys(revoked_tasks))
        return result

    # ------------------------------------------------------------------------------------------
    @staticmethod
    def assign_connectors(worker_assignment: List[WorkerLoad], connectors: Sequence[str]) -> None:
        """``assignConnectors``: sort workers by (connector count, worker id), then deal the connectors
        round-robin to the least-loaded level, widening the level as it fills up."""
        worker_assignment.sort(key=lambda wl: (len(wl.connectors), connector_key(wl.worker)))
        _deal(worker_assignment, connectors, lambda wl: len(wl.connectors), WorkerLoad.assign_connector)

    @staticmethod
    def assign_tasks(worker_assignment: List[WorkerLoad], tasks: Sequence[ConnectorTaskId]) -> None:
        """``assignTasks``: as :meth:`assign_connectors`, by task count."""
        worker_assignment.sort(key=lambda wl: (len(wl.tasks), connector_key(wl.worker)))
        _deal(worker_assignment, tasks, lambda wl: len(wl.tasks), WorkerLoad.assign_task)

    # ------------------------------------------------------------------------------------------
    def state_json(self, detail: str = "full") -> Dict[str, Any]:
        """The leader state the vectors record after each round."""
        state: Dict[str, Any] = {
            "delay": self.delay,
            "scheduled_rebalance": self.scheduled_rebalance,
            "previous_generation_id": self.previous_generation_id,
            "previous_members": sorted(self.previous_members, key=connector_key),
            "candidate_workers_for_reassignment": list(self.candidate_workers_for_reassignment),
            "revoked_in_previous": self.revoked_in_previous,
            "num_successive_revoking_rebalances": self.num_successive_revoking_rebalances,
        }
        if detail == "full":
            state["previous_assignment"] = self.previous_assignment.to_json(sort=True)
            state["previous_revocation"] = self.previous_revocation.to_json(sort=True)
        else:
            state["previous_assignment_size"] = self.previous_assignment.size()
            state["previous_revocation_size"] = self.previous_revocation.size()
        return state


def _deal(workers: List[WorkerLoad], items: Sequence[T], size: Callable[[WorkerLoad], int],
          assign: Callable[[WorkerLoad, T], None]) -> None:
    """The shared loop of ``assignConnectors``/``assignTasks``: ``first`` is the least-loaded worker
    (fixed after the sort); each pass gives one item to every worker whose load is not above ``first``'s."""
    if not items:
        return
    if not workers:
        raise InputError("members", "no worker to assign to")
    first = workers[0]
    n = len(items)
    pos = 0
    nw = len(workers)
    while pos < n:
        first_load = size(first)
        up_to = nw
        for i in range(nw):
            if size(workers[i]) > first_load:
                up_to = i
                break
        for i in range(up_to):
            assign(workers[i], items[pos])
            pos += 1
            if pos >= n:
                break


def load_balancing_revocations(total_to_allocate: int, workers: Sequence[WorkerLoad],
                               allocation: Callable[[WorkerLoad], Dict[T, None]]) -> Dict[str, List[T]]:
    """``IncrementalCooperativeAssignor.loadBalancingRevocations`` (Kafka 3.6+).

    Every worker should end with ``floor(total / n)`` items, and ``total % n`` of them with one more.
    If the current counts already fit, nothing is revoked.  Otherwise workers are visited in order:
    a worker above the floor takes one of the "+1" slots while any remain (keeping floor+1 items), the
    others are cut to the floor; the items revoked are the first ones in the worker's own order.
    """
    n_workers = len(workers)
    if n_workers == 0:
        return {}
    min_per_worker = total_to_allocate // n_workers
    extra = total_to_allocate % n_workers
    sizes = [len(allocation(wl)) for wl in workers]
    at_min = sum(1 for s in sizes if s == min_per_worker)
    at_extra = sum(1 for s in sizes if s == min_per_worker + 1)
    if at_extra == extra and at_min + at_extra == n_workers:
        return {}
    result: Dict[str, List[T]] = {}
    allocated_extras = 0
    for wl, current in zip(workers, sizes):
        if current <= min_per_worker:
            continue
        if allocated_extras < extra:
            allocated_extras += 1
            if current == min_per_worker + 1:
                continue
            max_for_worker = min_per_worker + 1
        else:
            max_for_worker = min_per_worker
        revoked: List[T] = []
        result[wl.worker] = revoked
        items = iter(allocation(wl))
        for _ in range(current - max_for_worker):
            try:
                revoked.append(next(items))
            except StopIteration:  # pragma: no cover - Kafka only logs a warning here
                break
    return result


__all__ = [
    "ClusterAssignment", "DEFAULT_MAX_DELAY_MS", "ExponentialBackoff", "IncrementalCooperativeAssignor",
    "MockTime", "load_balancing_revocations",
]
