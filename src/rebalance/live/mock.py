"""librdkafka's mock cluster, started in-process through ``ctypes``.

:class:`MockCluster` mirrors ``rd_kafka_mock_cluster_t`` of librdkafka (``src/rdkafka_mock.h``, librdkafka
2.x as bundled by the ``confluent-kafka`` wheel): a Kafka-protocol broker written in C that listens on
127.0.0.1 ports inside this process.  The shared library the wheel ships (``confluent_kafka.libs``) exports
``rd_kafka_mock_*``; this module calls ``rd_kafka_mock_cluster_new`` on a producer handle of its own,
``rd_kafka_mock_topic_create`` (exact partition counts: ``AdminClient.create_topics`` does not work against
the mock), ``rd_kafka_mock_broker_set_rack``, ``rd_kafka_mock_group_initial_rebalance_delay_ms`` and
``rd_kafka_mock_set_group_consumer_heartbeat_interval_ms`` (KIP-848 groups).

The mock places replicas itself (``rd_kafka_mock_partition_assign_replicas`` in ``src/rdkafka_mock.c``:
partition *p*'s first replica is broker index ``p * rf % brokers``, the others follow in broker order), so
:meth:`MockCluster.replica_racks` computes the racks of each partition's replicas without asking.
"""
from __future__ import annotations

import ctypes
import glob
import os
from types import TracebackType
from typing import Dict, List, Optional, Sequence, Type

from ..errors import InputError, LiveClientError
from ..validation import require

__all__ = ["MockCluster", "load_librdkafka"]

_LIB: Optional[ctypes.CDLL] = None


def load_librdkafka() -> ctypes.CDLL:
    """The librdkafka shared library bundled by the ``confluent-kafka`` wheel (the one its ``Consumer`` uses),
    with the argument types of the ``rd_kafka_mock_*`` functions this package calls."""
    global _LIB
    if _LIB is not None:
        return _LIB
    try:
        import confluent_kafka
    except ImportError:  # pragma: no cover - the live extra is part of the book's environment
        raise InputError("confluent-kafka", "is not installed: pip install 'rebalance[live]'") from None
    base = os.path.dirname(os.path.abspath(confluent_kafka.__file__))
    found = sorted(glob.glob(os.path.join(base, "..", "confluent_kafka.libs", "librdkafka*.so*"))
                   + glob.glob(os.path.join(base, ".dylibs", "librdkafka*.dylib")))
    require(bool(found), "confluent-kafka", f"no bundled librdkafka next to {base} (a wheel from PyPI has one)")
    lib = ctypes.CDLL(found[0])
    vp, cp, i32 = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int32
    signatures = {
        "rd_kafka_conf_new": ([], vp),
        "rd_kafka_conf_set": ([vp, cp, cp, cp, ctypes.c_size_t], ctypes.c_int),
        "rd_kafka_new": ([ctypes.c_int, vp, cp, ctypes.c_size_t], vp),
        "rd_kafka_destroy": ([vp], None),
        "rd_kafka_mock_cluster_new": ([vp, ctypes.c_int], vp),
        "rd_kafka_mock_cluster_destroy": ([vp], None),
        "rd_kafka_mock_cluster_bootstraps": ([vp], cp),
        "rd_kafka_mock_topic_create": ([vp, cp, ctypes.c_int, ctypes.c_int], ctypes.c_int),
        "rd_kafka_mock_broker_set_rack": ([vp, i32, cp], ctypes.c_int),
        "rd_kafka_mock_group_initial_rebalance_delay_ms": ([vp, i32], None),
        "rd_kafka_mock_set_group_consumer_heartbeat_interval_ms": ([vp, ctypes.c_int], None),
        "rd_kafka_mock_set_group_consumer_session_timeout_ms": ([vp, ctypes.c_int], None),
    }
    for name, (args, res) in signatures.items():
        fn = getattr(lib, name)
        fn.argtypes, fn.restype = args, res
    _LIB = lib
    return lib


class MockCluster:
    """An in-process librdkafka mock cluster of ``brokers`` brokers (ids 1..N) on 127.0.0.1.

    ``racks`` gives each broker's rack (``rd_kafka_mock_broker_set_rack``, broker *i+1* gets ``racks[i]``);
    ``initial_rebalance_delay_ms`` is the mock's ``group.initial.rebalance.delay.ms`` (0 here: the first
    JoinGroup round closes at once, default 3000 in the mock as on a broker); ``consumer_heartbeat_interval_ms``
    and ``consumer_session_timeout_ms`` are the KIP-848 group settings a broker keeps
    (``group.consumer.heartbeat.interval.ms``, ``group.consumer.session.timeout.ms``).

    Use it as a context manager: leaving the ``with`` block (also on an exception) destroys the cluster and its
    handle.  Close the consumers first (:class:`~rebalance.live.group.LiveGroup` does).

    Defined in chapter 10, *Watch real clients rebalance*."""

    def __init__(self, brokers: int = 3, *, racks: Optional[Sequence[str]] = None,
                 initial_rebalance_delay_ms: int = 0, consumer_heartbeat_interval_ms: Optional[int] = None,
                 consumer_session_timeout_ms: Optional[int] = None):
        require(isinstance(brokers, int) and not isinstance(brokers, bool) and 1 <= brokers <= 32, "brokers",
                f"must be a whole number from 1 to 32, got {brokers!r}")
        if racks is not None:
            require(isinstance(racks, (list, tuple)) and len(racks) == brokers
                    and all(isinstance(r, str) and r for r in racks), "racks",
                    f"must list one non-empty rack name per broker ({brokers}), got {racks!r}")
        for field, value in (("initial_rebalance_delay_ms", initial_rebalance_delay_ms),
                             ("consumer_heartbeat_interval_ms", consumer_heartbeat_interval_ms),
                             ("consumer_session_timeout_ms", consumer_session_timeout_ms)):
            require(value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0),
                    field, f"must be a whole number of milliseconds >= 0, got {value!r}")
        self.brokers = brokers
        self.racks: Optional[List[str]] = list(racks) if racks is not None else None
        self.topics: Dict[str, int] = {}
        self._rf: Dict[str, int] = {}
        self._lib = load_librdkafka()
        self._rk: Optional[int] = None
        self._mc: Optional[int] = None
        err = ctypes.create_string_buffer(512)
        conf = self._lib.rd_kafka_conf_new()
        self._lib.rd_kafka_conf_set(conf, b"log_level", b"0", err, 512)  # the mock's own log stays quiet
        rk = self._lib.rd_kafka_new(0, conf, err, 512)  # RD_KAFKA_PRODUCER; takes ownership of conf
        if not rk:
            raise LiveClientError(f"librdkafka could not create a handle for the mock cluster: {err.value.decode()}")
        self._rk = rk
        try:
            mc = self._lib.rd_kafka_mock_cluster_new(rk, brokers)
            require(bool(mc), "brokers", "librdkafka could not start the mock cluster")
            self._mc = mc
            self.bootstrap_servers: str = self._lib.rd_kafka_mock_cluster_bootstraps(mc).decode()
            for i, rack in enumerate(self.racks or []):
                require(self._lib.rd_kafka_mock_broker_set_rack(mc, i + 1, rack.encode()) == 0,
                        f"racks[{i}]", "the mock refused the rack")
            self._lib.rd_kafka_mock_group_initial_rebalance_delay_ms(mc, initial_rebalance_delay_ms)
            if consumer_heartbeat_interval_ms is not None:
                self._lib.rd_kafka_mock_set_group_consumer_heartbeat_interval_ms(mc, consumer_heartbeat_interval_ms)
            if consumer_session_timeout_ms is not None:
                self._lib.rd_kafka_mock_set_group_consumer_session_timeout_ms(mc, consumer_session_timeout_ms)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ topics
    def create_topic(self, name: str, partitions: int, replication_factor: int = 1) -> None:
        """Create ``name`` with exactly ``partitions`` partitions (``rd_kafka_mock_topic_create``)."""
        require(self._mc is not None, "cluster", "the mock cluster is closed")
        require(isinstance(name, str) and name != "" and all(c.isalnum() or c in "._-" for c in name),
                "topic", f"must be a Kafka topic name (letters, digits, '.', '_', '-'), got {name!r}")
        require(name not in self.topics, f"topics.{name}", "already exists")
        require(isinstance(partitions, int) and not isinstance(partitions, bool) and 1 <= partitions <= 10_000,
                f"topics.{name}", f"partition count must be a whole number from 1 to 10000, got {partitions!r}")
        require(isinstance(replication_factor, int) and 1 <= replication_factor <= self.brokers,
                f"topics.{name}.replication_factor", f"must be from 1 to the broker count ({self.brokers})")
        code = self._lib.rd_kafka_mock_topic_create(self._mc, name.encode(), partitions, replication_factor)
        require(code == 0, f"topics.{name}", f"the mock refused the topic (librdkafka error code {code})")
        self.topics[name] = partitions
        self._rf[name] = replication_factor

    def replica_racks(self, topic: str) -> List[List[str]]:
        """The racks of each partition's replicas, as the mock places them
        (``rd_kafka_mock_partition_assign_replicas``: first replica at broker index ``p*rf % brokers``);
        empty lists when the brokers have no racks."""
        require(topic in self.topics, "topic", f"unknown topic {topic!r}")
        if not self.racks:
            return [[] for _ in range(self.topics[topic])]
        rf = self._rf[topic]
        return [sorted({self.racks[(p * rf + k) % self.brokers] for k in range(rf)})
                for p in range(self.topics[topic])]

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        """Destroy the mock cluster and its handle (idempotent)."""
        if self._mc is not None:
            self._lib.rd_kafka_mock_cluster_destroy(self._mc)
            self._mc = None
        if self._rk is not None:
            self._lib.rd_kafka_destroy(self._rk)
            self._rk = None

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has run."""
        return self._mc is None

    def __enter__(self) -> "MockCluster":
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self.close()
