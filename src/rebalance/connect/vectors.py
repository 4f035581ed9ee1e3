"""The ``connect`` kind of the conformance vectors: run a whole scenario line.

A scenario is a sequence of steps against ONE assignor instance (see the vectors README, "Input schema
-- Connect"): rebalances with their members and config changes, the herder's follow-up rounds when
``settle`` is on, leader changes (``reset``), and direct calls of ``handleLostAssignments`` and of
``assignConnectors``/``assignTasks``.  :func:`run` returns the output in the README's schema;
:func:`compare` checks it against Kafka's.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional

from ..errors import InputError
from ..java import INT_MAX, INT_MIN, LONG_MAX, LONG_MIN
from ..validation import require
from ..vectors import diff_summary
from .assignor import ReplayOptions
from .cluster import ConnectCluster, RoundResult, Running, WorkerRound
from .incremental import IncrementalCooperativeAssignor
from .leader import worker_url
from .model import (
    ConnectorsAndTasks,
    ConnectorTaskId,
    WorkerLoad,
    check_connectors,
    parse_task,
    task_str,
)

DETAILS = ("full", "compact", "verbose", "totals")


def count_string(connectors: int, tasks: int) -> str:
    """``"Nc/Nt"``: a number of connectors and of tasks as the vectors' ``"detail": "totals"`` writes them
    (an idle member is ``"0c/0t"``; the letters are literal, see the vectors README, output schema)."""
    return f"{connectors}c/{tasks}t"


def totals_string(wr: WorkerRound) -> str:
    """``"+Ac/At -Rc/Rt =Nc/Nt"``: what one worker started (A), stopped (R) and runs after the round (N),
    e.g. ``"+2c/20t -0c/0t =9c/90t"`` (the vectors README's ``"detail": "totals"`` format)."""
    return (f"+{count_string(len(wr.assigned_connectors), len(wr.assigned_tasks))} "
            f"-{count_string(len(wr.revoked_connectors), len(wr.revoked_tasks))} "
            f"={count_string(wr.n_connectors, wr.n_tasks)}")


def _int(value: object, field: str, java: str = "int", minimum: Optional[int] = None) -> int:
    """A Java ``int`` (generations, delays, counts) or ``long`` (times), at least ``minimum`` if given."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError(field, f"must be an integer, got {value!r}")
    lo, hi = (INT_MIN, INT_MAX) if java == "int" else (LONG_MIN, LONG_MAX)
    require(lo <= value <= hi, field, f"{value} does not fit a Java {java}")
    require(minimum is None or value >= minimum, field, f"must be >= {minimum}, got {value}")
    return value


def _long(value: object, field: str) -> int:
    return _int(value, field, "long")


def _bool(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise InputError(field, f"must be true or false, got {value!r}")
    return value


def _str_list(value: object, field: str) -> List[str]:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise InputError(field, f"must be a list of strings, got {value!r}")
    return list(value)


def _int_list(value: object, field: str) -> List[int]:
    if not isinstance(value, list):
        raise InputError(field, f"must be a list of whole numbers, got {value!r}")
    return [_int(x, f"{field}[{i}]") for i, x in enumerate(value)]


def _workers(value: object, field: str) -> List[str]:
    """A list of distinct, non-empty worker ids."""
    workers = _str_list(value, field)
    for i, w in enumerate(workers):
        require(w != "", f"{field}[{i}]", "worker ids must be non-empty strings")
    require(len(set(workers)) == len(workers), field, "lists a worker twice")
    return workers


def _loads(value: object, field: str) -> List[WorkerLoad]:
    """``[{worker, connectors, tasks}]``: the ``WorkerLoad`` list of ``handleLostAssignments`` and ``assign``."""
    if not isinstance(value, list):
        raise InputError(field, "must be a list of {worker, connectors, tasks}")
    loads = []
    for i, item in enumerate(value):
        f = f"{field}[{i}]"
        require(isinstance(item, dict) and isinstance(item.get("worker"), str), f, "needs a 'worker' id")
        for key in item:
            require(key in ("worker", "connectors", "tasks"), f"{f}.{key}",
                    "unknown field (a worker load has worker, connectors, tasks)")
        loads.append(WorkerLoad(item["worker"], _str_list(item.get("connectors", []), f"{f}.connectors"),
                                _task_list(item.get("tasks", []), f"{f}.tasks")))
    return loads


#: Kafka's protocol ``STRING`` holds at most this many UTF-8 bytes: on the protocol path (and eager's) every
#: connector name and worker url (``http://<worker>:8083``) the leader serializes must fit
STRING_BYTES = 32767
_URL_BYTES = len(worker_url("").encode("utf-8"))


def _wire_name(name: str, field: str, extra: int = 0) -> None:
    """Raise ``InputError(field)`` when ``name`` (plus ``extra`` bytes around it) does not fit a ``STRING``;
    only names of more than a quarter of the limit in characters are encoded to find out."""
    if len(name) > (STRING_BYTES - extra) // 4:
        size = len(name.encode("utf-8", "surrogatepass")) + extra
        require(size <= STRING_BYTES, field, f"{size - extra:,} UTF-8 bytes: too long for Kafka's protocol STRING "
                                             f"(at most {STRING_BYTES - extra:,} here)")


#: how an expectation's value is checked: ``check(value, field)`` raises ``InputError`` if it is wrong
Check = Callable[[Any, str], object]

#: the expectations each step may carry (the vectors README) and the check of each value
_REBALANCE_EXPECT: Dict[str, Check] = {
    "delay": _int, "delay_gt": _int, "workers": _str_list, "connector_allocations": _int_list,
    "task_allocations": _int_list, "no_revocations": _bool, "empty_assignment": _bool,
    "balanced_and_complete": _bool, "leader_state_set": _bool, "protocol_version": _int,
}
_LOST_EXPECT: Dict[str, Check] = {
    "candidate_workers": _str_list, "delay": _int, "scheduled_rebalance": _long,
    "scheduled_rebalance_minus_now": _long, "to_reassign_contains_lost": _bool, "to_reassign_equals_lost": _bool,
    "workers_contain_lost": _str_list,
}
_ASSIGN_EXPECT: Dict[str, Check] = {"worker_loads": _loads, "each_connectors": _int, "each_tasks": _int}


def _expectations(value: object, field: str, schema: Mapping[str, Check]) -> Dict[str, Any]:
    """A step's ``expect`` checked against ``schema`` (key -> check of its value); absent: none."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(field, f"must be an object of expectations, got {value!r}")
    for key, want in value.items():
        check = schema.get(key)
        if check is None:
            raise InputError(f"{field}.{key}", f"unknown expectation (expected one of {', '.join(schema)})")
        check(want, f"{field}.{key}")
    return dict(value)


def _task_list(value: object, field: str) -> List[ConnectorTaskId]:
    if not isinstance(value, list):
        raise InputError(field, f"must be a list of 'connector-task' strings, got {value!r}")
    return [parse_task(x, f"{field}[{i}]") for i, x in enumerate(value)]


def _running(value: object, field: str) -> Running:
    if not isinstance(value, Mapping):
        raise InputError(field, f"must be 'carry', 'empty' or {{connectors, tasks}}, got {value!r}")
    for key in value:
        require(key in ("connectors", "tasks"), f"{field}.{key}", "unknown field (expected connectors, tasks)")
    return (_str_list(value.get("connectors", []), f"{field}.connectors"),
            _task_list(value.get("tasks", []), f"{field}.tasks"))


class _Scenario:
    def __init__(self, scenario: Dict[str, Any]):
        require(isinstance(scenario, dict), "input", "must be a JSON object")
        self.id = scenario.get("id")
        assignor = scenario.get("assignor", "incremental")
        detail = scenario.get("detail")
        verbose = _bool(scenario.get("verbose", True), "verbose")
        if detail is None:
            detail = "full" if verbose else "compact"
        require(detail in DETAILS, "detail", f"must be one of {', '.join(DETAILS)}, got {detail!r}")
        self.detail = "compact" if detail == "verbose" else detail
        self.settle = _bool(scenario.get("settle", False), "settle")
        self.settle_delay = _bool(scenario.get("settle_delay", True), "settle_delay")
        self.max_follow_ups = _int(scenario.get("max_follow_ups", 20), "max_follow_ups", minimum=0)
        # the same validated entry point as the chapters' (ConnectCluster checks every field and names it);
        # only this adapter passes the harness switches
        self.cluster = ConnectCluster(
            assignor=assignor, mode=scenario.get("mode", "direct"), protocol=scenario.get("protocol", "sessioned"),
            max_delay_ms=scenario.get("max_delay_ms", 300000),
            initial_time_ms=scenario.get("initial_time_ms", 1700000000000),
            initial_generation_id=scenario.get("initial_generation_id", 1000),
            connectors=scenario.get("connectors", {}),
            replay=ReplayOptions(members_map=scenario.get("members_map", "hash"),
                                 initial_previous_generation_id=scenario.get("initial_previous_generation_id")))
        self.assignor_name = assignor
        self._wire_names(self.cluster.connectors, "connectors")
        steps = scenario.get("steps", [])
        require(isinstance(steps, list), "steps", "must be a list of step objects")
        self.steps = steps
        self.last_members: List[str] = []
        self.out_steps: List[Dict[str, Any]] = []
        self.ok = True

    # ------------------------------------------------------------------------------------------
    def run(self) -> Dict[str, Any]:
        for i, step in enumerate(self.steps):
            field = f"steps[{i}]"
            require(isinstance(step, dict), field, "must be an object")
            self._clock(step, field)
            op = step.get("op", "rebalance")
            if op == "rebalance":
                self._rebalance(step, i, field)
            elif op == "reset":
                prev = step.get("previous_generation_id")
                prev = self.cluster.reset(None if prev is None else _int(prev, f"{field}.previous_generation_id"))
                self._emit({"op": "reset", "previous_generation_id": prev}, i)
            elif op == "set_previous_members":
                members = _str_list(step.get("members", []), f"{field}.members")
                self._incremental(field).previous_members = members
                self._emit({"op": "set_previous_members", "members": list(members)}, i)
            elif op == "handle_lost_assignments":
                self._handle_lost(step, i, field)
            elif op == "assign":
                self._assign(step, i, field)
            else:
                raise InputError(f"{field}.op", f"unknown op {op!r}")
        return {"id": self.id, "kind": "connect", "assignor": self.assignor_name, "mode": self.cluster.mode,
                "steps": self.out_steps, "ok": self.ok}

    def _wire_names(self, connectors: Iterable[str], field: str) -> None:
        """On the protocol path, every connector name of ``connectors`` (``field.<name>``) must fit a STRING."""
        if self.cluster.mode == "protocol":
            for name in connectors:
                _wire_name(name, f"{field}.{name}")

    def _emit(self, record: Dict[str, Any], scenario_step: int) -> Dict[str, Any]:
        record["step"] = len(self.out_steps)
        record["scenario_step"] = scenario_step
        self.out_steps.append(record)
        return record

    def _incremental(self, field: str) -> IncrementalCooperativeAssignor:
        require(self.assignor_name == "incremental", f"{field}.op", "only the incremental assignor has this state")
        return self.cluster.incremental_assignor()

    def _clock(self, step: Dict[str, Any], field: str) -> None:
        time = self.cluster.time
        if "time_ms" in step:
            time.set(_long(step["time_ms"], f"{field}.time_ms"))
        if "sleep_ms" in step:
            value = step["sleep_ms"]
            if isinstance(value, dict):
                for key in value:
                    require(key in ("of", "div", "plus"), f"{field}.sleep_ms.{key}",
                            "unknown field (a computed sleep has of, div, plus)")
                of = value.get("of")
                require(of in ("delay", "max_delay"), f"{field}.sleep_ms.of", f"must be 'delay' or 'max_delay', got {of!r}")
                base = self.cluster.delay if of == "delay" else self.cluster.max_delay_ms
                div = _int(value.get("div", 1), f"{field}.sleep_ms.div")
                require(div != 0, f"{field}.sleep_ms.div", "must not be 0")
                plus = _int(value.get("plus", 0), f"{field}.sleep_ms.plus")
                q = abs(base) // abs(div)
                q = q if (base >= 0) == (div > 0) else -q  # Java int division truncates towards zero
                time.sleep(q + plus)
            else:
                time.sleep(_long(value, f"{field}.sleep_ms"))

    # ------------------------------------------------------------------------------------------
    def _rebalance(self, step: Dict[str, Any], index: int, field: str) -> None:
        cluster = self.cluster
        if "connectors" in step:
            cluster.connectors = check_connectors(step["connectors"], f"{field}.connectors")
            self._wire_names(cluster.connectors, f"{field}.connectors")
        if "add_connectors" in step:
            added = check_connectors(step["add_connectors"], f"{field}.add_connectors")
            self._wire_names(added, f"{field}.add_connectors")
            cluster.connectors.update(added)
        if "remove_connectors" in step:
            for name in _str_list(step["remove_connectors"], f"{field}.remove_connectors"):
                cluster.connectors.pop(name, None)
        members = self._members(step.get("members"), f"{field}.members")
        gen = step.get("generation_id")
        if gen is None:  # the next generation, which must still be a Java int
            gen = cluster.generation_id + 1
            require(gen <= INT_MAX, f"{field}.generation_id", f"the next generation, {gen}, does not fit a Java int")
        else:
            gen = _int(gen, f"{field}.generation_id")
        last = step.get("last_completed_generation_id")
        mismatch = _bool(step.get("generation_mismatch", False), f"{field}.generation_mismatch")
        if last is None:
            last = gen - 2 if mismatch else gen - 1
            require(last >= INT_MIN, f"{field}.last_completed_generation_id",
                    f"the generation before, {last}, does not fit a Java int")
        else:
            last = _int(last, f"{field}.last_completed_generation_id")
        failed = _bool(step.get("failed", False), f"{field}.failed")
        require(len(members) > 0, f"{field}.members", "a rebalance needs at least one member")
        leader = step.get("leader")
        if leader is not None:
            require(isinstance(leader, str), f"{field}.leader", "must be a worker id")
            if cluster.mode == "protocol":
                require(leader in members, f"{field}.leader", f"{leader!r} is not a member of this round")
        settle = _bool(step.get("settle", self.settle), f"{field}.settle")
        expect = _expectations(step.get("expect"), f"{field}.expect", _REBALANCE_EXPECT)
        result = cluster.rebalance(members, gen, last, failed=failed, leader=leader)
        self.last_members = list(members)
        record = self._round_record(result, index)
        if expect:
            failures = self._check_expect(expect, result)
            if failures:
                record["expect_failures"] = failures
                self.ok = False
        if settle and not failed:
            for follow in cluster.settle(result, self.settle_delay, self.max_follow_ups):
                self._round_record(follow, index)

    def _members(self, spec: object, field: str) -> Dict[str, Running]:
        cluster = self.cluster
        protocol = cluster.mode == "protocol"
        if spec is None:
            return cluster.carried_members(self.last_members or list(cluster.running))
        if isinstance(spec, list):
            workers = _workers(spec, field)
            if protocol:
                for i, w in enumerate(workers):
                    _wire_name(w, f"{field}[{i}]", _URL_BYTES)
            return cluster.carried_members(workers)
        if not isinstance(spec, Mapping):
            raise InputError(field, "must be a list of worker ids or an object worker -> running state")
        out: Dict[str, Running] = {}
        for w, value in spec.items():
            require(w != "", f"{field}.{w}", "worker ids must be non-empty strings")
            if protocol:
                _wire_name(w, f"{field}.{w}", _URL_BYTES)
            if value == "carry":
                out.update(cluster.carried_members([w]))
            elif value == "empty":
                out[w] = ([], [])
            else:
                out[w] = _running(value, f"{field}.{w}")
                if protocol:
                    connectors, tasks = out[w]
                    for j, name in enumerate(connectors):
                        _wire_name(name, f"{field}.{w}.connectors[{j}]")
                    for j, (name, _) in enumerate(tasks):
                        _wire_name(name, f"{field}.{w}.tasks[{j}]")
        return out

    # ------------------------------------------------------------------------------------------
    def _round_record(self, r: RoundResult, index: int) -> Dict[str, Any]:
        detail = self.detail
        record = {"op": "rebalance", "time_ms": r.time_ms, "generation_id": r.generation_id,
                  "last_completed_generation_id": r.last_completed_generation_id}
        if r.follow_up:
            record["follow_up"] = r.follow_up
        if detail == "totals":
            members: Dict[str, Any] = {w: count_string(len(c), len(t)) for w, (c, t) in r.members_in.items()}
        else:
            members = {w: {"connectors": list(c), "tasks": [task_str(x) for x in t]} for w, (c, t) in r.members_in.items()}
        record["input"] = {"connectors": dict(r.connectors), "members": members}
        if r.failed:
            record["failed"] = True
        if r.protocol_versions is not None:
            record["protocol_versions"] = dict(r.protocol_versions)
            record["leader"] = r.leader
            record["leader_state_set"] = True
        record["delay"] = r.delay
        workers: Dict[str, Any] = {}
        for w, wr in r.workers.items():
            if detail == "totals":
                workers[w] = totals_string(wr)
                continue
            entry: Dict[str, Any] = {"assigned_connectors": list(wr.assigned_connectors),
                     "assigned_tasks": [task_str(t) for t in wr.assigned_tasks],
                     "revoked_connectors": list(wr.revoked_connectors),
                     "revoked_tasks": [task_str(t) for t in wr.revoked_tasks]}
            if detail == "full":
                entry["all_connectors"] = list(wr.all_connectors)
                entry["all_tasks"] = [task_str(t) for t in wr.all_tasks]
            entry["n_connectors"] = wr.n_connectors
            entry["n_tasks"] = wr.n_tasks
            workers[w] = entry
        record["workers"] = workers
        record["totals"] = r.totals()
        if self.assignor_name == "incremental" and detail != "totals":
            record["state"] = self.cluster.incremental_assignor().state_json(detail)
        if detail == "full":
            record["running_after"] = {w: {"connectors": list(c), "tasks": [task_str(t) for t in ts]}
                                       for w, (c, ts) in self.cluster.running.items()}
        return self._emit(record, index)

    def _check_expect(self, expect: Dict[str, Any], r: RoundResult) -> List[str]:
        """The failed expectations of a round (``expect`` checked by :func:`_expectations`)."""
        cluster = self.cluster
        fails = []
        running = cluster.running
        for key, want in expect.items():
            if key == "delay":
                if cluster.delay != want:
                    fails.append(f"delay {cluster.delay} != {want}")
            elif key == "delay_gt":
                if not cluster.delay > want:
                    fails.append(f"delay {cluster.delay} not > {want}")
            elif key == "workers":
                if set(r.workers) != set(want):
                    fails.append(f"workers {sorted(r.workers)} != {sorted(want)}")
            elif key in ("connector_allocations", "task_allocations"):
                idx = 0 if key == "connector_allocations" else 1
                got = sorted(len(v[idx]) for v in running.values())
                if got != sorted(want):
                    fails.append(f"{key} {got} != {sorted(want)}")
            elif key == "no_revocations":
                if want and r.revoked_anything():
                    fails.append("revocations were issued")
            elif key == "empty_assignment":
                t = r.totals()
                if want and any(t.values()):
                    fails.append(f"assignment not empty: {t}")
            elif key == "balanced_and_complete":
                if want:
                    fails.extend(_balanced_and_complete(running, cluster.connectors))
            elif key == "leader_state_set":
                if want and r.protocol_versions is None:
                    fails.append("leader state is only set on the protocol path")
            elif key == "protocol_version":
                if r.protocol_versions is None or any(v != want for v in r.protocol_versions.values()):
                    fails.append(f"protocol versions {r.protocol_versions} != {want}")
        return fails

    # ------------------------------------------------------------------------------------------
    def _handle_lost(self, step: Dict[str, Any], index: int, field: str) -> None:
        assignor = self._incremental(field)
        lost_spec = step.get("lost", {})
        require(isinstance(lost_spec, dict), f"{field}.lost", "must be {connectors, tasks}")
        lost = ConnectorsAndTasks(*_running(lost_spec, f"{field}.lost"))
        loads = _loads(step.get("worker_loads", []), f"{field}.worker_loads")
        expect = _expectations(step.get("expect"), f"{field}.expect", _LOST_EXPECT)
        if "previous_members" in step:
            assignor.previous_members = _str_list(step["previous_members"], f"{field}.previous_members")
        to_reassign = ConnectorsAndTasks()
        assignor.handle_lost_assignments(lost, to_reassign, loads)
        now = assignor.now_ms()
        record = {"op": "handle_lost_assignments", "time_ms": now, "to_reassign": to_reassign.to_json(),
                  "worker_loads": [wl.to_json() for wl in loads],
                  "candidate_workers_for_reassignment": list(assignor.candidate_workers_for_reassignment),
                  "scheduled_rebalance": assignor.scheduled_rebalance, "delay": assignor.delay}
        fails = []
        for key, want in expect.items():
            if key == "candidate_workers":
                if set(assignor.candidate_workers_for_reassignment) != set(want):
                    fails.append(f"candidate workers {list(assignor.candidate_workers_for_reassignment)} != {want}")
            elif key == "delay":
                if assignor.delay != want:
                    fails.append(f"delay {assignor.delay} != {want}")
            elif key == "scheduled_rebalance":
                if assignor.scheduled_rebalance != want:
                    fails.append(f"scheduled rebalance {assignor.scheduled_rebalance} != {want}")
            elif key == "scheduled_rebalance_minus_now":
                if assignor.scheduled_rebalance - now != want:
                    fails.append(f"scheduled rebalance - now {assignor.scheduled_rebalance - now} != {want}")
            elif key == "to_reassign_contains_lost":
                if want and not (set(lost.connectors) <= set(to_reassign.connectors) and set(lost.tasks) <= set(to_reassign.tasks)):
                    fails.append("lost work not all in to_reassign")
            elif key == "to_reassign_equals_lost":
                if want and to_reassign != lost:
                    fails.append("to_reassign differs from the lost work")
            elif key == "workers_contain_lost":
                chosen = [wl for wl in loads if wl.worker in set(want)]
                have_c = set().union(*(wl.connectors for wl in chosen)) if chosen else set()
                have_t = set().union(*(wl.tasks for wl in chosen)) if chosen else set()
                if not (set(lost.connectors) <= have_c and set(lost.tasks) <= have_t):
                    fails.append(f"lost work not all on workers {want}")
        self._emit_checked(record, fails, index)

    def _emit_checked(self, record: Dict[str, Any], fails: List[str], index: int) -> None:
        """Emit a step's record with the expectations it failed (which fail the whole line)."""
        if fails:
            record["expect_failures"] = fails
            self.ok = False
        self._emit(record, index)

    def _assign(self, step: Dict[str, Any], index: int, field: str) -> None:
        loads = _loads(step.get("worker_loads", []), f"{field}.worker_loads")
        require(len(loads) > 0, f"{field}.worker_loads", "needs at least one worker")
        connectors = _str_list(step.get("connectors", []), f"{field}.connectors")
        tasks = _task_list(step.get("tasks", []), f"{field}.tasks")
        expect = _expectations(step.get("expect"), f"{field}.expect", _ASSIGN_EXPECT)
        IncrementalCooperativeAssignor.assign_connectors(loads, connectors)
        IncrementalCooperativeAssignor.assign_tasks(loads, tasks)
        record = {"op": "assign", "worker_loads": [wl.to_json() for wl in loads]}
        fails = []
        for key, want in expect.items():
            if key == "worker_loads":
                if [wl.to_json() for wl in loads] != want:
                    fails.append("worker loads differ")
            elif key == "each_connectors":
                if any(len(wl.connectors) != want for wl in loads):
                    fails.append(f"not every worker has {want} connectors")
            elif key == "each_tasks":
                if any(len(wl.tasks) != want for wl in loads):
                    fails.append(f"not every worker has {want} tasks")
        self._emit_checked(record, fails, index)


def _balanced_and_complete(running: Mapping[str, Running], connectors: Mapping[str, int]) -> List[str]:
    fails = []
    if running:
        nc = sorted(len(c) for c, _ in running.values())
        nt = sorted(len(t) for _, t in running.values())
        if nc[-1] - nc[0] > 1 or nt[-1] - nt[0] > 1:
            fails.append(f"imbalanced: connectors {nc}, tasks {nt}")
    have_c = [c for cs, _ in running.values() for c in cs]
    have_t = [t for _, ts in running.values() for t in ts]
    if set(have_c) != set(connectors):
        fails.append("connectors assigned do not match the configured connectors")
    want_t = {(c, i) for c, n in connectors.items() for i in range(n)}
    if set(have_t) != want_t:
        fails.append("tasks assigned do not match the configured tasks")
    return fails


def run(scenario: Dict[str, Any]) -> Dict[str, Any]:
    """Run one ``connect`` scenario (the vectors' ``input``) and return its output."""
    return _Scenario(scenario).run()


# ---------------------------------------------------------------------------------------------
# comparison

#: lists whose order in Kafka's output comes from Java's collections (hash iteration, the wire's grouping): their
#: order is Kafka's too, and :func:`compare` names a difference in it alone as such
_ORDERED_BY_KAFKA = {
    "assigned_connectors", "assigned_tasks", "revoked_connectors", "revoked_tasks", "all_connectors",
    "all_tasks", "connectors", "tasks", "previous_members", "candidate_workers_for_reassignment",
}


def _as_sets(value: Any, key: Optional[str] = None) -> Any:
    """``value`` with the lists of :data:`_ORDERED_BY_KAFKA` sorted (the same work, any order)."""
    if isinstance(value, dict):
        return {k: _as_sets(v, k) for k, v in value.items()}
    if isinstance(value, list):
        items = [_as_sets(v) for v in value]
        if key in _ORDERED_BY_KAFKA and all(isinstance(x, str) for x in items):
            return sorted(items)
        return items
    return value


def compare(expected: Dict[str, Any], actual: Dict[str, Any]) -> List[str]:
    """Differences from Kafka's output: every value must be equal, every list in Kafka's order.  The order of
    a worker's connectors and tasks is part of Kafka's answer (a worker runs its work in that order, and a later
    load-balancing revocation takes from it in that order), and the lists the harness reports from the
    assignor's state are sorted or a ``LinkedHashSet``'s order.  A difference in list order alone is named as
    such."""
    if expected == actual:
        return []
    if _as_sets(expected) == _as_sets(actual):
        return ["the same connectors and tasks in another order: " + diff_summary(expected, actual)]
    return [diff_summary(expected, actual)]


def exact_match(expected: Dict[str, Any], actual: Dict[str, Any]) -> bool:
    """True when the output equals Kafka's including every list order."""
    return expected == actual


__all__ = ["compare", "count_string", "exact_match", "run", "totals_string"]
