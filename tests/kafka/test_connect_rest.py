"""A Connect worker's REST errors say what happened (:mod:`rebalance.kafka.connect.rest`): the HTTP status as an
attribute of :class:`~rebalance.errors.ConnectRestError`, and ``add_connector`` retrying by that status.

No Java: a scripted HTTP server on loopback answers as Connect's ``ConnectExceptionMapper`` does (a JSON
``ErrorMessage`` body, ``{"error_code", "message"}``).
"""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator, List, Tuple

import pytest

from rebalance.errors import ConnectRestError, LiveClientError, WaitTimeoutError
from rebalance.kafka.connect import ConnectDistributedCluster
from rebalance.kafka.connect.rest import placement, rest_request

REBALANCING = (409, "Cannot complete request momentarily due to stale configuration (typically caused by a "
                    "concurrent config change)")


class Script:
    """The answers a server gives, in order (the last one repeated), and the requests it got."""

    def __init__(self, *answers: Tuple[int, object]):
        self.answers = list(answers)
        self.requests: List[Tuple[str, str, object]] = []


def _handler(script: Script) -> type:
    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            size = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(size)) if size else None
            script.requests.append((self.command, self.path, body))
            status, payload = script.answers.pop(0) if len(script.answers) > 1 else script.answers[0]
            text = (json.dumps({"error_code": status, "message": payload}) if status >= 400 and isinstance(payload, str)
                    else json.dumps(payload)).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            self.wfile.write(text)

        do_GET = do_POST = _answer

        def log_message(self, *args: object) -> None:  # quiet
            pass

    return Handler


@pytest.fixture
def serve() -> Iterator:
    servers = []

    def start(script: Script) -> str:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(script))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def test_an_http_error_carries_its_status_method_path_and_message(serve):
    url = serve(Script((400, "Connector configuration is invalid")))
    with pytest.raises(ConnectRestError) as caught:
        rest_request([url], "POST", "/connectors", {"name": "c1"})
    e = caught.value
    assert (e.status, e.method, e.path) == (400, "POST", "/connectors")
    assert e.message == "Connector configuration is invalid" and json.loads(e.body)["error_code"] == 400
    assert str(e) == "POST /connectors: HTTP 400 Connector configuration is invalid"
    assert isinstance(e, LiveClientError)


def test_a_conflict_asks_the_next_worker_and_other_errors_do_not(serve):
    busy, ready = Script(REBALANCING), Script((201, {"name": "c1"}))
    assert rest_request([serve(busy), serve(ready)], "POST", "/connectors", {"name": "c1"}) == {"name": "c1"}
    assert len(busy.requests) == len(ready.requests) == 1
    broken, unused = Script((500, "boom")), Script((201, {}))
    with pytest.raises(ConnectRestError) as caught:
        rest_request([serve(broken), serve(unused)], "GET", "/connectors")
    assert caught.value.status == 500 and not unused.requests
    # every worker rebalancing: the last 409 itself, with its status
    with pytest.raises(ConnectRestError) as caught:
        rest_request([serve(Script(REBALANCING))], "GET", "/connectors")
    assert caught.value.status == 409


def test_no_worker_to_ask_is_a_live_client_error_without_a_status():
    with pytest.raises(LiveClientError, match="no Connect worker answered") as caught:
        rest_request([], "GET", "/connectors")
    assert not isinstance(caught.value, ConnectRestError)


def _cluster(url: str, monkeypatch) -> ConnectDistributedCluster:
    c = ConnectDistributedCluster("127.0.0.1:9092", 1)
    monkeypatch.setattr(c, "_urls", lambda: [url])  # no JVM: the scripted server stands in for the workers
    return c


def test_add_connector_retries_while_the_group_rebalances(serve, monkeypatch):
    script = Script(REBALANCING, REBALANCING, (201, {"name": "c1"}))
    c = _cluster(serve(script), monkeypatch)
    c.add_connector("c1", 3, timeout=10)
    assert c.connectors == {"c1": 3} and len(script.requests) == 3
    assert script.requests[0] == ("POST", "/connectors", {"name": "c1", "config": {
        "connector.class": "org.rebalance.connect.IdleSourceConnector", "tasks.max": "3"}})


def test_add_connector_takes_an_existing_connector_as_created(serve, monkeypatch):
    """An earlier POST whose answer was lost: Connect answers 409 with AlreadyExistsException's message."""
    script = Script((409, "Connector c1 already exists"))
    c = _cluster(serve(script), monkeypatch)
    c.add_connector("c1", 2, timeout=10)
    assert c.connectors == {"c1": 2} and len(script.requests) == 1


def test_add_connector_raises_other_statuses_at_once_and_times_out_on_conflicts(serve, monkeypatch):
    c = _cluster(serve(Script((400, "Connector configuration is invalid"))), monkeypatch)
    with pytest.raises(ConnectRestError) as caught:
        c.add_connector("c1", 2, timeout=10)
    assert caught.value.status == 400 and c.connectors == {}
    c = _cluster(serve(Script(REBALANCING)), monkeypatch)
    with pytest.raises(WaitTimeoutError, match="connector 'c1' was not created within 1 s: .*HTTP 409") as caught:
        c.add_connector("c1", 2, timeout=1)
    assert isinstance(caught.value.__cause__, ConnectRestError) and caught.value.__cause__.status == 409


def test_placement_reads_the_status_topic_by_worker():
    status = {"c1": {"status": {"name": "c1", "connector": {"state": "RUNNING", "worker_id": "127.0.0.1:2"},
                                "tasks": [{"id": 1, "state": "RUNNING", "worker_id": "127.0.0.1:1"},
                                          {"id": 0, "state": "UNASSIGNED", "worker_id": "127.0.0.1:1"},
                                          {"id": 10, "state": "RUNNING", "worker_id": "127.0.0.1:1"},
                                          {"id": 2, "state": "RUNNING", "worker_id": "127.0.0.1:1"}]}}}
    assert placement(status, {"127.0.0.1:1": "w1", "127.0.0.1:2": "w2", "127.0.0.1:3": "w3"}) == {
        "w1": ([], ["c1-1", "c1-2", "c1-10"]), "w2": (["c1"], []), "w3": ([], [])}
