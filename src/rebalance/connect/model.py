"""The vocabulary of Kafka Connect's distributed herder, as the assignors see it (Kafka 4.3.1).

* a **connector** is a name (``str``);
* a **task** is ``org.apache.kafka.connect.util.ConnectorTaskId``: here a tuple ``(connector, task)``,
  written ``"connector-task"`` (split at the last ``-``), ordered as ``ConnectorTaskId.compareTo``
  (connector name with ``String.compareTo``, then task number) and hashed as ``ConnectorTaskId.hashCode``
  (``31 * connector.hashCode() + task``);
* :class:`ConnectorsAndTasks` mirrors ``WorkerCoordinator.ConnectorsAndTasks`` (two ``LinkedHashSet``s,
  modelled by insertion-ordered dicts);
* :class:`WorkerLoad` mirrors ``WorkerCoordinator.WorkerLoad`` (one worker's connectors and tasks).

A Python ``dict`` whose values are ``None`` plays the part of Java's ``LinkedHashSet`` throughout: it keeps
insertion order, ignores re-insertion, and removal keeps the order of the rest.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import (Any, Callable, Container, Dict, Hashable, Iterable, List, Mapping, Optional, Sequence, Tuple,
                    TypeVar, Union)

from ..errors import InputError
from ..java import INT_MAX, JavaHashOrder, hash_set_copy_capacity, java_string_key, string_hash, to_int32
from ..validation import parse_dashed_id, require

ConnectorTaskId = Tuple[str, int]
T = TypeVar("T", bound=Hashable)

#: the task number ``ConnectProtocol`` uses on the wire for "the connector itself"
CONNECTOR_TASK = -1


def task_str(task: ConnectorTaskId) -> str:
    """``ConnectorTaskId.toString``: ``connector-task``."""
    return f"{task[0]}-{task[1]}"


def parse_task(text: object, field: str) -> ConnectorTaskId:
    """Read ``"connector-task"`` (split at the last ``-``), naming ``field`` if it is malformed."""
    return parse_dashed_id(text, field, "connector", "task")


def task_key(task: ConnectorTaskId) -> Tuple[bytes, int]:
    """Sort key equal to ``ConnectorTaskId.compareTo`` (the order of a ``TreeSet<ConnectorTaskId>``)."""
    return java_string_key(task[0]), task[1]


def connector_key(connector: str) -> bytes:
    """Sort key equal to ``String.compareTo`` (the order of a ``TreeSet<String>``)."""
    return java_string_key(connector)


_TASK_HASH_CACHE: Dict[ConnectorTaskId, int] = {}


def task_hash(task: ConnectorTaskId) -> int:
    """``ConnectorTaskId.hashCode()``: ``31 * connector.hashCode() + task`` as a Java ``int``."""
    h = _TASK_HASH_CACHE.get(task)
    if h is None:
        h = to_int32(31 * string_hash(task[0]) + task[1])
        if len(_TASK_HASH_CACHE) < 1_000_000:
            _TASK_HASH_CACHE[task] = h
    return h


def hash_set_copy_order(items: Sequence[T], hash_fn: Optional[Callable[[T], int]] = None) -> List[T]:
    """Iteration order of ``new HashSet<>(items)`` (Java's copy constructor sizes the table for ``items``)."""
    order = JavaHashOrder(hash_fn, hash_set_copy_capacity(len(items)))
    order.put_all(items)
    return order.keys()


def hash_set_retain_order(items: Sequence[T], keep: Container[T],
                          hash_fn: Optional[Callable[[T], int]] = None) -> List[T]:
    """``new HashSet<>(items)`` followed by ``retainAll(keep)``: the kept items in hash iteration order."""
    if not items:
        return []
    order = JavaHashOrder(hash_fn, hash_set_copy_capacity(len(items)))
    order.put_all(items)
    return [x for x in order.keys() if x in keep]


class ConnectorsAndTasks:
    """``WorkerCoordinator.ConnectorsAndTasks``: a set of connectors and a set of tasks, insertion-ordered."""

    __slots__ = ("connectors", "tasks")

    def __init__(self, connectors: Iterable[str] = (), tasks: Iterable[ConnectorTaskId] = ()):
        self.connectors: Dict[str, None] = dict.fromkeys(connectors)
        self.tasks: Dict[ConnectorTaskId, None] = dict.fromkeys(tasks)

    def add_all(self, other: "ConnectorsAndTasks") -> "ConnectorsAndTasks":
        self.connectors.update(dict.fromkeys(other.connectors))
        self.tasks.update(dict.fromkeys(other.tasks))
        return self

    def copy(self) -> "ConnectorsAndTasks":
        return ConnectorsAndTasks(self.connectors, self.tasks)

    def is_empty(self) -> bool:
        return not self.connectors and not self.tasks

    def size(self) -> int:
        return len(self.connectors) + len(self.tasks)

    def clear(self) -> None:
        self.connectors.clear()
        self.tasks.clear()

    def to_json(self, sort: bool = False) -> Dict[str, Any]:
        connectors = list(self.connectors)
        tasks = list(self.tasks)
        if sort:
            connectors.sort(key=connector_key)
            tasks.sort(key=task_key)
        return {"connectors": connectors, "tasks": [task_str(t) for t in tasks]}

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ConnectorsAndTasks) and set(self.connectors) == set(other.connectors)
                and set(self.tasks) == set(other.tasks))

    def __repr__(self) -> str:
        return f"ConnectorsAndTasks(connectors={list(self.connectors)}, tasks={[task_str(t) for t in self.tasks]})"


class WorkerLoad:
    """``WorkerCoordinator.WorkerLoad``: one worker and the connectors and tasks it is (to be) running.

    ``connectors``/``tasks`` are insertion-ordered; the order decides which of them a load-balancing
    revocation picks first.
    """

    __slots__ = ("worker", "connectors", "tasks")

    def __init__(self, worker: str, connectors: Iterable[str] = (), tasks: Iterable[ConnectorTaskId] = ()):
        self.worker = worker
        self.connectors: Dict[str, None] = dict.fromkeys(connectors)
        self.tasks: Dict[ConnectorTaskId, None] = dict.fromkeys(tasks)

    def connectors_size(self) -> int:
        return len(self.connectors)

    def tasks_size(self) -> int:
        return len(self.tasks)

    def assign_connector(self, connector: str) -> None:
        self.connectors[connector] = None

    def assign_task(self, task: ConnectorTaskId) -> None:
        self.tasks[task] = None

    def is_empty(self) -> bool:
        return not self.connectors and not self.tasks

    def to_json(self) -> Dict[str, Any]:
        return {"worker": self.worker, "connectors": list(self.connectors),
                "tasks": [task_str(t) for t in self.tasks]}

    def __repr__(self) -> str:
        return f"WorkerLoad({self.worker!r}, connectors={list(self.connectors)}, tasks={[task_str(t) for t in self.tasks]})"


@dataclass
class ClusterAssignment:
    """``IncrementalCooperativeAssignor.ClusterAssignment`` (Kafka 4.3.1): what each worker starts, stops
    and ends with -- the one result type of every Connect assignor here (the eager assignor's complete
    assignment is "start all of it, after stopping everything", ``WorkerCoordinator.onJoinPrepare``).

    Maps are keyed by worker id; lists keep the order Kafka produced.
    """

    newly_assigned_connectors: Dict[str, List[str]]
    newly_assigned_tasks: Dict[str, List[ConnectorTaskId]]
    newly_revoked_connectors: Dict[str, List[str]]
    newly_revoked_tasks: Dict[str, List[ConnectorTaskId]]
    all_assigned_connectors: Dict[str, List[str]]
    all_assigned_tasks: Dict[str, List[ConnectorTaskId]]

    @property
    def all_workers(self) -> List[str]:
        """Every worker any of the maps names, in first-seen order."""
        seen: Dict[str, None] = {}
        for m in (self.newly_assigned_connectors, self.newly_assigned_tasks, self.newly_revoked_connectors,
                  self.newly_revoked_tasks, self.all_assigned_connectors, self.all_assigned_tasks):
            seen.update(dict.fromkeys(m))
        return list(seen)

    def revoked_anything(self) -> bool:
        """Whether any worker is told to stop a connector or a task."""
        return any(self.newly_revoked_connectors.values()) or any(self.newly_revoked_tasks.values())


def as_connectors_and_tasks(value: Union["ConnectorsAndTasks", "WorkerLoad",
                                         Tuple[Iterable[str], Iterable[ConnectorTaskId]]]) -> ConnectorsAndTasks:
    """A worker's running work as a fresh :class:`ConnectorsAndTasks`, from a ``ConnectorsAndTasks``, a
    :class:`WorkerLoad` or a ``(connectors, tasks)`` pair."""
    if isinstance(value, ConnectorsAndTasks):
        return value.copy()
    if isinstance(value, WorkerLoad):
        return ConnectorsAndTasks(value.connectors, value.tasks)
    connectors, tasks = value
    return ConnectorsAndTasks(connectors, tasks)


def configured_tasks(connectors: Mapping[str, int]) -> List[ConnectorTaskId]:
    """Every task of the configured connectors, in ``ConnectorTaskId`` order."""
    tasks: List[ConnectorTaskId] = []
    for name in sorted(connectors, key=connector_key):
        tasks.extend((name, i) for i in range(connectors[name]))
    return tasks


def check_connectors(connectors: object, field: str) -> Dict[str, int]:
    """Validate a ``{connector: task count}`` mapping."""
    if not isinstance(connectors, Mapping):
        raise InputError(field, f"must be an object of connector -> task count, got {connectors!r}")
    out: Dict[str, int] = {}
    for name, count in connectors.items():
        require(isinstance(name, str) and name != "", f"{field}.{name}", "connector names must be non-empty strings")
        require(isinstance(count, int) and not isinstance(count, bool) and 0 <= count <= INT_MAX, f"{field}.{name}",
                f"task count must be a whole number >= 0 (a Java int), got {count!r}")
        out[name] = count
    return out


def hashmap_member_order(members: Sequence[str]) -> List[str]:
    """Iteration order of a ``java.util.HashMap`` keyed by worker id and filled in ``members`` order."""
    order = JavaHashOrder(string_hash)
    order.put_all(members)
    return order.keys()


__all__ = [
    "CONNECTOR_TASK", "ClusterAssignment", "as_connectors_and_tasks", "ConnectorTaskId", "ConnectorsAndTasks", "WorkerLoad", "check_connectors",
    "configured_tasks", "connector_key", "hash_set_copy_order", "hash_set_retain_order",
    "hashmap_member_order", "parse_task", "task_hash", "task_key", "task_str",
]
