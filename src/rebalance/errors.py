"""Every exception class of the package, in one hierarchy under :class:`RebalanceError` (this module holds them
and nothing else; the checks that raise :class:`InputError` are in :mod:`rebalance.validation`).

class                          raised when
=============================  ==========================================================================
``InputError``                 **bad input**: it names the offending field (a dotted path such as
                               ``members[2].topics``) so that a reader or the command line can say
                               exactly what to fix (also a ``ValueError``)
``SimulationError``            a simulation that cannot reach the state it was asked for; its subclass
                               ``EventLimitError`` is the **simulation limit** (``max_events``)
``LiveClientError``            a **live client or cluster failure**: a real Kafka broker, a Java client,
                               librdkafka or a Jupyter server that failed or refused (also a
                               ``RuntimeError``); ``JavaUnavailableError`` says what to install,
                               ``ConnectRestError`` carries a Connect worker's HTTP status
``WaitTimeoutError``           a **timeout**: a live run that did not reach a state in time (also a
                               ``TimeoutError``)
``KafkaError``                 an exception Kafka itself throws for this input (for example
                               ``InvalidReplicationFactorException``); the conformance vectors record
                               those as ``{"error": {...}}`` outputs, and the package reproduces them
                               instead of repairing the input
``IllegalStateError``          a simulator reached a state its model forbids: a bug, never bad input
=============================  ==========================================================================
=======
The whole tree (a class's parent is the class one level up; ``also`` names a built-in base)::

    RebalanceError                      the base of the package's own errors
    |-- FieldError                      an error about one named field: ``field`` (a dotted path such as
    |   |                               ``members[2].topics``) says what to change, ``message`` why
    |   |-- InputError                  **bad input**, naming the offending field so that a reader or the
    |   |                               command line can say exactly what to fix (also ``ValueError``)
    |   `-- SimulationError             a simulation that cannot reach the state it was asked for (also
    |       |                           ``RuntimeError``)
    |       `-- EventLimitError         the **simulation limit**: more than ``max_events`` events
    |-- KafkaError                      an exception Kafka itself throws for this input, named by its Java class
    |   |                               (for example ``InvalidReplicationFactorException``); the conformance
    |   |                               vectors record those as ``{"error": {...}}`` outputs, and the package
    |   |                               reproduces them instead of repairing the input
    |   |-- SchemaError                 ``SchemaException``: a malformed protocol message (:mod:`rebalance.wire`)
    |   |-- PartitionAssignorException  the KIP-848 server-side assignors' ``PartitionAssignorException``
    |   `-- TaskAssignorException       the streams group's task assignors' ``TaskAssignorException``
    |-- IllegalStateError               a simulator reached a state its model forbids: a bug, never bad input
    |                                   (Kafka's ``IllegalStateException``; also ``RuntimeError``)
    |-- LiveClientError                 a **live client or cluster failure**: a real Kafka broker, a Java
    |   |                               client, librdkafka or a Jupyter server that failed or refused (also
    |   |                               ``RuntimeError``)
    |   |-- ClusterStartError           a Kafka cluster that did not start: which node, why, its log's tail
    |   |   `-- ConnectStartError       a Connect worker that did not start (or did not come back)
    |   |-- ConnectRestError            a Connect worker's REST answer of an error: ``status``, ``method``, ``path``
    |   |-- CoordinatorNotAvailable     ``FindCoordinator`` answered with an error code
    |   `-- JavaUnavailableError        Java 17+, Maven or the Java module's build is missing: what to install
    |-- WaitTimeoutError                a **timeout**: a live run that did not reach a state in time (also
    |                                   ``TimeoutError``)
    `-- LibrdkafkaCrash                 where librdkafka's C code would stop (a failed ``rd_assert``, a read of
                                        freed memory) in :mod:`rebalance.live.librdkafka_model`

``InputError`` and ``SimulationError`` are :class:`FieldError` instances: ``to_json`` gives the ``{"type",
"field", "message"}`` of an error line (``run``, ``conform`` and ``simulate`` print one and go on).
"""
from __future__ import annotations

import json
import re
from typing import Optional

from .common import FieldErrorJson, KafkaErrorJson


class RebalanceError(Exception):
    """Base class of the package's own errors."""


class FieldError(RebalanceError):
    """An error about one named field (a dotted path such as ``members[2].topics``): ``field`` says what to
    change, ``message`` why; ``to_json`` is the ``{"type", "field", "message"}`` of an error line."""

    def __init__(self, field: str, message: str):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")

    def to_json(self) -> FieldErrorJson:
        return {"type": type(self).__name__, "field": self.field, "message": self.message}


class InputError(FieldError, ValueError):
    """Bad input. ``field`` names the offending field, e.g. ``members[1].ownedPartitions[0]``."""


class SimulationError(FieldError, RuntimeError):
    """A simulation that could not reach the state it was asked to reach (for example a group that does
    not stabilise within ``max_ms``).  ``field`` names the parameter to change."""


class EventLimitError(SimulationError):
    """A simulation that ran more than ``limit`` events on its virtual clock without reaching ``until_ms``: a
    runaway guard, not a fault of the group.  ``field`` is ``until_ms`` (shorten the run, or the group), or
    ``max_events`` for a run with no end time (:meth:`rebalance.protocol.clock.VirtualClock.run`)."""

    def __init__(self, limit: int, until_ms: Optional[int] = None):
        self.limit = limit
        self.until_ms = until_ms
        if until_ms is None:
            super().__init__("max_events", f"the simulation did not finish within {limit:,} events")
        else:
            super().__init__("until_ms", f"more than {limit:,} simulated events before {until_ms} ms; "
                                         "shorten the run or the group")


class IllegalStateError(RebalanceError, RuntimeError):
    """A call in a state that does not allow it (Kafka's ``IllegalStateException``): a simulator that reached a
    state its model forbids (a group state transition that ``ClassicGroupState`` does not allow, a partition
    owned twice): a bug in the simulator, never bad input; or an object used outside its ``with`` block."""


class KafkaError(RebalanceError):
    """An exception Kafka's own code throws for this input, named by its Java class."""

    def __init__(self, type_name: str, message: str = ""):
        self.type = type_name
        self.message = message
        super().__init__(f"{type_name}: {message}" if message else type_name)

    def to_json(self) -> KafkaErrorJson:
        return {"type": self.type, "message": self.message}


class LiveClientError(RebalanceError, RuntimeError):
    """A live client or cluster failed: a real broker that did not start, a Java client that reported an
    error, librdkafka, a Jupyter server.  The message says which and, where there is one, the log's tail."""


#: the first Java exception of a JVM's log: ``[Exception in thread "..." ]some.package.SomeException[: message]``
_JAVA_CAUSE = re.compile(r'^(?:Exception in thread "[^"]*" )?((?:[a-z_$][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error)(?:: .*)?)$')


class ClusterStartError(LiveClientError):
    """A Kafka cluster (:mod:`rebalance.kafka.cluster`) did not start: which node, why (``cause``: the first
    Java exception of its log, when there is one), and the last lines of its log (``log_tail``)."""

    def __init__(self, message: str, log_tail: str = ""):
        self.log_tail = log_tail
        self.cause = next((m.group(1) for m in map(_JAVA_CAUSE.match, log_tail.splitlines()) if m), None)
        head = f"{message}: {self.cause}" if self.cause else message
        super().__init__(f"{head}\n--- last lines of its log ---\n{log_tail}" if log_tail else head)


class ConnectStartError(ClusterStartError):
    """A Connect worker (:mod:`rebalance.kafka.connect`) did not start (or did not come back): which one, why
    (``cause``) and its log's tail."""


class ConnectRestError(LiveClientError):
    """A Connect worker's REST API (:mod:`rebalance.kafka.connect`) answered a request with an HTTP error:
    ``status`` (409 ``CONFLICT`` while the group rebalances, ``HerderRequestHandler`` at 4.3.1, and for a
    connector that exists already, ``ConnectExceptionMapper``; 404, 400, 500...), the request's ``method`` and
    ``path``, the answer's ``body`` and ``message`` (the ``message`` of Connect's ``ErrorMessage`` body
    ``{"error_code", "message"}``; the body itself when it is not one)."""

    def __init__(self, status: int, method: str, path: str, body: str):
        self.status = status
        self.method = method
        self.path = path
        self.body = body
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = None
        message = parsed.get("message") if isinstance(parsed, dict) else None
        self.message: str = message if isinstance(message, str) else body.strip()
        super().__init__(f"{method} {path}: HTTP {status} {self.message}")


class CoordinatorNotAvailable(LiveClientError):
    """``FindCoordinator`` answered with an error (e.g. 15, ``COORDINATOR_NOT_AVAILABLE``, while
    ``__consumer_offsets`` is being created)."""

    def __init__(self, error_code: int, message: Optional[str]):
        self.error_code = error_code
        super().__init__(f"FindCoordinator error {error_code}: {message}")


class WaitTimeoutError(RebalanceError, TimeoutError):
    """A live run did not reach a state in time (a broker serving, a topic's leaders, a consumer's answer):
    the message names what was awaited and for how long."""


class SchemaError(KafkaError):
    """``org.apache.kafka.common.protocol.types.SchemaException`` (``Schema.read`` also wraps a buffer
    underflow into one): raised by :mod:`rebalance.wire`."""

    def __init__(self, message: str):
        super().__init__("SchemaException", message)


class PartitionAssignorException(KafkaError):
    """``org.apache.kafka.coordinator.group.api.assignor.PartitionAssignorException``: raised by the KIP-848
    server-side assignors (:mod:`rebalance.kip848`)."""

    def __init__(self, message: str):
        super().__init__("PartitionAssignorException", message)


class TaskAssignorException(KafkaError):
    """``org.apache.kafka.coordinator.group.streams.assignor.TaskAssignorException`` (Kafka 4.3.1): raised by the
    streams group's broker-side task assignors (:mod:`rebalance.streams`), e.g. an active task and no process."""

    def __init__(self, message: str):
        super().__init__("org.apache.kafka.coordinator.group.streams.assignor.TaskAssignorException", message)


class LibrdkafkaCrash(RebalanceError):
    """Where librdkafka's C code would stop (:mod:`rebalance.live.librdkafka_model`): an ``rd_assert`` that
    fails (``line`` of ``src/rdkafka_sticky_assignor.c``, the process aborts) or a read through a pointer to
    freed memory (undefined behaviour: a segmentation fault, or a move of whatever the freed memory still
    holds)."""

    def __init__(self, line: int, what: str):
        super().__init__(f"rdkafka_sticky_assignor.c:{line}: {what}")
        self.line = line
        self.what = what


class JavaUnavailableError(LiveClientError):
    """Java 17+ or Maven (or the Java module's build) is missing where Kafka's own classes are asked for:
    the message says what to install or run."""
