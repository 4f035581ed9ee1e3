"""A Connect worker's REST API as the driver uses it (Kafka 4.3.1's ``ConnectorsResource``).

:func:`rest_request` sends one request to the first of several workers that answers it: a worker answers ``409
CONFLICT`` while its group rebalances (``HerderRequestHandler``) and ``503`` while it is not ready, so the next
one is tried; any other HTTP error is raised at once as :class:`~rebalance.errors.ConnectRestError` with its
status.  :func:`placement` reads who runs what from the answer to ``GET /connectors?expand=status``
(:data:`StatusByConnector`).
"""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, TypedDict, cast

from ...errors import ConnectRestError, LiveClientError
from .logs import task_key

__all__ = ["ConnectorState", "ConnectorStatus", "ExpandedConnector", "StatusByConnector", "TaskState",
           "all_running", "placement", "rest_request", "status_of_connectors", "RETRIED_STATUSES"]

#: a JSON value as the REST API reads and writes it
Json = object

#: the HTTP statuses after which the next worker is asked: 409 while the group rebalances, 503 not ready
RETRIED_STATUSES = (409, 503)


class ConnectorState(TypedDict, total=False):
    """A connector's entry of ``ConnectorStateInfo``: its ``state`` (``RUNNING``, ``UNASSIGNED``...), the
    ``worker_id`` running it, the ``trace`` of a failure."""

    state: str
    worker_id: str
    trace: str


class TaskState(TypedDict, total=False):
    """A task's entry of ``ConnectorStateInfo``: its ``id`` (the task number), ``state``, ``worker_id``,
    ``trace``."""

    id: int
    state: str
    worker_id: str
    trace: str


class ConnectorStatus(TypedDict, total=False):
    """``ConnectorStateInfo``: the connector's ``name``, its ``connector`` and ``tasks`` states, its ``type``."""

    name: str
    connector: ConnectorState
    tasks: List[TaskState]
    type: str


class ExpandedConnector(TypedDict, total=False):
    """One connector of ``GET /connectors?expand=status``: ``{"status": ConnectorStatus}``."""

    status: ConnectorStatus


#: the answer to ``GET /connectors?expand=status``: connector name -> its status
StatusByConnector = Dict[str, ExpandedConnector]


def rest_request(urls: Sequence[str], method: str, path: str, body: Optional[Mapping[str, Json]] = None,
                 timeout: float = 30.0) -> Json:
    """``method path`` (with ``body`` as JSON) to the first worker of ``urls`` that answers it; the answer's JSON
    (``None`` for an empty one).  An HTTP error of :data:`RETRIED_STATUSES` goes on to the next worker, any other
    raises :class:`~rebalance.errors.ConnectRestError` at once; when no worker answered, the last such error is
    raised, or :class:`~rebalance.errors.LiveClientError` when none could be reached."""
    refused: Optional[ConnectRestError] = None
    unreachable: Optional[OSError] = None
    data = None if body is None else json.dumps(body).encode()
    for url in urls:
        req = urllib.request.Request(url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json", "Accept": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                text = r.read().decode()
                return cast(Json, json.loads(text)) if text else None
        except urllib.error.HTTPError as e:
            error = ConnectRestError(e.code, method, path, e.read().decode(errors="replace"))
            e.close()
            if e.code not in RETRIED_STATUSES:
                raise error from None
            refused = error
        except OSError as e:  # urllib.error.URLError, a refused connection, a timeout
            unreachable = e
    if refused is not None:
        raise refused
    raise LiveClientError(f"{method} {path}: no Connect worker answered ({unreachable or 'none is running'})")


def status_of_connectors(urls: Sequence[str], timeout: float = 30.0) -> StatusByConnector:
    """``GET /connectors?expand=status`` (:func:`rest_request`)."""
    answer = rest_request(urls, "GET", "/connectors?expand=status", timeout=timeout)
    if not isinstance(answer, dict):
        raise LiveClientError(f"GET /connectors?expand=status: not a JSON object: {answer!r}")
    return cast(StatusByConnector, answer)


def placement(status: StatusByConnector, names: Mapping[str, str]) -> Dict[str, Tuple[List[str], List[str]]]:
    """Who runs what by ``status``: ``{worker name: (connectors, tasks)}`` (tasks as ``connector-N``, sorted) for
    every worker of ``names`` (worker id -> name).  States are not looked at: a connector or task counts for the
    worker the status topic names (``UNASSIGNED`` ones for none)."""
    out: Dict[str, Tuple[List[str], List[str]]] = {name: ([], []) for name in names.values()}
    for conn, value in status.items():
        s = value.get("status", {})
        c = s.get("connector", {})
        if c.get("state") != "UNASSIGNED" and c.get("worker_id") in names:
            out[names[c["worker_id"]]][0].append(conn)
        for t in s.get("tasks", []):
            if t.get("state") != "UNASSIGNED" and t.get("worker_id") in names:
                out[names[t["worker_id"]]][1].append(f"{conn}-{t['id']}")
    return {k: (sorted(c), sorted(t, key=task_key)) for k, (c, t) in out.items()}


def all_running(status: StatusByConnector) -> bool:
    """Every connector and every task of ``status`` is ``RUNNING``."""
    return all(v.get("status", {}).get("connector", {}).get("state") == "RUNNING"
               and all(t.get("state") == "RUNNING" for t in v.get("status", {}).get("tasks", []))
               for v in status.values())
