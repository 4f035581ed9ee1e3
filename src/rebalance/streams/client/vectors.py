"""Conformance adapter for the ``streams`` kind: Kafka Streams' client-side ``HighAvailabilityTaskAssignor``.

Input and output follow "Input schema — streams" / "Output schema — streams" of the vectors README, as the Java
oracle's ``StreamsKind`` reads and writes them: the clients (process id, capacity, previous tasks, lags, tags),
the tasks, the stateful tasks and the configs in; each client's active and standby tasks (clients in
``ProcessId`` order, tasks in ``TaskId`` order) and the probing-rebalance flag out.  Bad input raises
:class:`~rebalance.errors.InputError` naming the field, with the Java oracle's checks, in its order.
"""
from __future__ import annotations

from typing import AbstractSet, Any, Dict, FrozenSet, List, Mapping, NamedTuple, Optional, Set, Tuple

from ...errors import InputError
from .assignment_configs import AssignmentConfigs
from .client_state import ClientState
from .high_availability_task_assignor import AssignmentResult, HighAvailabilityTaskAssignor
from .legacy_task_assignor import assignor_for
from .process_id import ProcessId
from .task_id import TaskId

__all__ = ["run", "parse", "Parsed", "assignment_json", "STREAMS_FILES"]

STREAMS_FILES = ("streams_high_availability.jsonl", "streams_high_availability_unit.jsonl")

TOP_KEYS = ("id", "kind", "assignor", "configs", "tasks", "stateful_tasks", "end_offset_sums", "clients")
CONFIG_KEYS = ("acceptable_recovery_lag", "max_warmup_replicas", "num_standby_replicas",
               "probing_rebalance_interval_ms", "rack_aware_assignment_tags")
CLIENT_KEYS = ("process_id", "capacity", "prev_active", "prev_standby", "lags", "offset_sums", "tags")
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
INT_MIN, INT_MAX = -(2**31), 2**31 - 1


def _present(node: Mapping[str, Any], key: str) -> bool:
    """Java's ``Json.opt``: absent and JSON null are the same."""
    return node.get(key) is not None


def _unknown_keys(node: Mapping[str, Any], known: Tuple[str, ...], prefix: str) -> None:
    for key in node:
        if key not in known:
            raise InputError(prefix + key, f"unknown field {prefix}{key}; known: {sorted(known)}")


def _integer(value: object, field: str, low: int, high: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(field, f"{field} must be a {what} integer, got {value!r}")
    return value


def _string(value: object, field: str) -> str:
    if not isinstance(value, str):
        raise InputError(field, f"{field} must be a string, got {value!r}")
    return value


def _list(node: Mapping[str, Any], key: str, field: str) -> List[Any]:
    value = node.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(field, f"{field} must be a list, got {value!r}")
    return value


def _task_set(node: Mapping[str, Any], key: str, field: str) -> Set[TaskId]:
    out: Dict[TaskId, None] = {}
    for i, item in enumerate(_list(node, key, field)):
        where = f"{field}[{i}]"
        if not isinstance(item, str):
            raise InputError(where, f"{where} must be a task id string, got {item!r}")
        task = TaskId.parse(item, where)
        if task in out:
            raise InputError(where, f"duplicate task {item} in {field}")
        out[task] = None
    return set(out)


def _configs(node: object) -> AssignmentConfigs:
    if node is None:
        return AssignmentConfigs()
    if not isinstance(node, dict):
        raise InputError("configs", f"configs must be an object, got {node!r}")
    _unknown_keys(node, CONFIG_KEYS, "configs.")

    def long_field(key: str, default: int) -> int:
        value = node.get(key)
        return default if value is None else _integer(value, f"configs.{key}", LONG_MIN, LONG_MAX, "64-bit")

    def int_field(key: str, default: int) -> int:
        value = node.get(key)
        return default if value is None else _integer(value, f"configs.{key}", INT_MIN, INT_MAX, "32-bit")

    lag = long_field("acceptable_recovery_lag", 10_000)
    warmups = int_field("max_warmup_replicas", 2)
    standbys = int_field("num_standby_replicas", 0)
    probing = long_field("probing_rebalance_interval_ms", 600_000)
    tags = [_string(t, f"configs.rack_aware_assignment_tags[{i}]")
            for i, t in enumerate(_list(node, "rack_aware_assignment_tags", "configs.rack_aware_assignment_tags"))]
    # the constructor validates (Kafka's ConfigException is the line's output, not an input error)
    return AssignmentConfigs(lag, warmups, standbys, probing, tags)


def _task_longs(node: object, where: str) -> Optional[Dict[TaskId, int]]:
    """``{"<task>": long}`` (lags, offset sums, end offset sums), or None when absent."""
    if node is None:
        return None
    if not isinstance(node, dict):
        raise InputError(where, f"{where} must be an object task -> 64-bit integer, got {node!r}")
    out: Dict[TaskId, int] = {}
    for key, value in node.items():
        field = f"{where}.{key}"
        task = TaskId.parse(key, field)
        out[task] = _integer(value, field, LONG_MIN, LONG_MAX, "64-bit")
    return out


class Parsed(NamedTuple):
    """One input as ``StreamsKind`` builds it."""

    clients: Dict[ProcessId, ClientState]
    all_tasks: Set[TaskId]
    stateful_tasks: Set[TaskId]
    configs: AssignmentConfigs
    #: the clients built from offset sums (their derived lags and previous tasks are part of the output)
    from_offset_sums: FrozenSet[ProcessId]


def parse(scenario: Mapping[str, Any]) -> Parsed:
    """The clients, all tasks, stateful tasks and the configs of one input, as ``StreamsKind`` builds them.
    Raises ``InputError`` (the field named) or, for invalid configs, Kafka's ``ConfigException``."""
    _unknown_keys(scenario, TOP_KEYS, "")
    if _present(scenario, "assignor"):
        name = _string(scenario["assignor"], "assignor")
        if name != HighAvailabilityTaskAssignor.NAME:
            raise InputError("assignor", f"assignor must be high_availability, got {name}")
    all_tasks = _task_set(scenario, "tasks", "tasks")
    stateful = _task_set(scenario, "stateful_tasks", "stateful_tasks")
    end_offset_sums = _task_longs(scenario.get("end_offset_sums"), "end_offset_sums")
    clients: Dict[ProcessId, ClientState] = {}
    from_offset_sums: Set[ProcessId] = set()
    for i, c in enumerate(_list(scenario, "clients", "clients")):
        where = f"clients[{i}]"
        if not isinstance(c, dict):
            raise InputError(where, f"{where} must be an object, got {c!r}")
        _unknown_keys(c, CLIENT_KEYS, where + ".")
        if not _present(c, "process_id"):
            raise InputError(f"{where}.process_id", "missing field process_id")
        pid = ProcessId.parse(_string(c["process_id"], f"{where}.process_id"), f"{where}.process_id")
        if not _present(c, "capacity"):
            raise InputError(f"{where}.capacity", "missing field capacity")
        capacity = _integer(c["capacity"], f"{where}.capacity", INT_MIN, INT_MAX, "32-bit")
        if capacity < 1:
            raise InputError(f"{where}.capacity",
                             f"capacity (the client's stream threads) must be at least 1, got {capacity}")
        prev_active = _task_set(c, "prev_active", f"{where}.prev_active")
        prev_standby = _task_set(c, "prev_standby", f"{where}.prev_standby")
        lags = _task_longs(c.get("lags"), f"{where}.lags")
        offset_sums = _task_longs(c.get("offset_sums"), f"{where}.offset_sums")
        tags: Dict[str, str] = {}
        tag_node = c.get("tags")
        if tag_node is not None:
            if not isinstance(tag_node, dict):
                raise InputError(f"{where}.tags", f"tags must be an object key -> value, got {tag_node!r}")
            for key, value in tag_node.items():
                if not isinstance(value, str):
                    raise InputError(f"{where}.tags.{key}", f"a tag value must be a string, got {value!r}")
                tags[key] = value
        if offset_sums is not None:
            for derived in ("lags", "prev_active", "prev_standby"):
                if _present(c, derived):
                    raise InputError(f"{where}.{derived}", f"a client with offset_sums gets its {derived} from them "
                                                           "(ClientState.computeTaskLags / initializePrevTasks): "
                                                           "give one or the other")
            if end_offset_sums is None:
                raise InputError("end_offset_sums", "missing field end_offset_sums: clients with offset_sums need "
                                                    "the tasks' end offset sums")
        if pid in clients:
            raise InputError(f"{where}.process_id", f"duplicate process_id {pid}")
        if offset_sums is None:
            clients[pid] = ClientState(prev_active, prev_standby, lags or {}, tags, capacity, pid)
        else:
            assert end_offset_sums is not None
            clients[pid] = ClientState.from_offset_sums(pid, capacity, tags, offset_sums, end_offset_sums)
            from_offset_sums.add(pid)
    return Parsed(clients, all_tasks, stateful, _configs(scenario.get("configs")), frozenset(from_offset_sums))


def assignment_json(result: AssignmentResult, from_offset_sums: AbstractSet[ProcessId] = frozenset()
                    ) -> Dict[str, Any]:
    """The output schema: clients in ``ProcessId`` order with their sorted active and standby tasks (and, for a
    client built from offset sums, the previous tasks and lags Kafka derived)."""
    clients = []
    for pid, state in sorted(result.clients.items()):
        client: Dict[str, Any] = {"process_id": str(pid), "active": [str(t) for t in state.active_tasks()],
                                  "standby": [str(t) for t in state.standby_tasks()]}
        if pid in from_offset_sums:
            client["prev_active"] = [str(t) for t in state.previous_active_tasks]
            client["prev_standby"] = [str(t) for t in state.previous_standby_tasks]
            client["lags"] = {str(t): lag for t, lag in sorted(state.task_lag_totals.items())}
        clients.append(client)
    return {"clients": clients, "probing_rebalance_needed": result.probing_rebalance_needed}


def run(scenario: Dict[str, Any]) -> Dict[str, Any]:
    """One ``streams`` input -> its output (Kafka's exceptions propagate as ``KafkaError``)."""
    if not isinstance(scenario, dict):
        raise InputError("input", "must be a JSON object")
    parsed = parse(scenario)
    assignor = assignor_for(scenario.get("assignor") or HighAvailabilityTaskAssignor.NAME)
    assert isinstance(assignor, HighAvailabilityTaskAssignor)
    result = assignor.assign_detailed(parsed.clients, parsed.all_tasks, parsed.stateful_tasks, parsed.configs)
    return assignment_json(result, parsed.from_offset_sums)
