"""Which broker a real Kafka cluster names as a group's coordinator, set against the book's ``partition_for``.

The book says (:mod:`rebalance.protocol.coordinator`) that a group's coordinator is the leader of
``__consumer_offsets`` partition ``Utils.abs(groupId.hashCode()) % offsets.topic.num.partitions``.  Here a
running cluster (:class:`~rebalance.kafka.cluster.KafkaCluster`, or any bootstrap address) answers: for each
group id, Kafka's own answer to a ``FindCoordinator`` request (API key 10, version 2, key type 0 = group; sent by
:func:`find_coordinator` over a plain socket, to each broker in turn -- the group need not exist, Kafka names a
coordinator for any id) and the leader of that partition from a ``Metadata`` request (librdkafka's
``AdminClient.list_topics``).  librdkafka's ``describe_consumer_groups`` also asks ``FindCoordinator``, but
Kafka 4.3.1 answers ``DescribeGroups`` for a group that does not exist with ``GROUP_ID_NOT_FOUND``, and
librdkafka then reports no coordinator, so the request is sent directly.

>>> rows = compare_coordinators(c.bootstrap_servers, group_ids(300), num_partitions=12)   # doctest: +SKIP
>>> all(r.agree for r in rows)                                                            # doctest: +SKIP
True

:func:`group_ids` gives seeded random ids plus the ones that test ``Utils.abs``: ids whose Java ``hashCode`` is
``Integer.MIN_VALUE`` (``"polygenelubricants"``; ``Math.abs`` would leave it negative, ``Utils.abs`` masks it to 0)
and ids with a negative ``hashCode``.
"""
from __future__ import annotations

import random
import string
import struct
import time
from dataclasses import asdict, dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ..common import JsonRecord
from ..errors import CoordinatorNotAvailable as CoordinatorNotAvailable  # re-exported; defined in errors
from ..errors import WaitTimeoutError
from ..validation import require
from ..java import INT_MIN, string_hash
from ..protocol.coordinator import OFFSETS_TOPIC, partition_for
from .broker_requests import CLIENT_ID, round_trip

__all__ = ["CoordinatorNotAvailable", "CoordinatorRow", "MIN_VALUE_IDS", "cluster_leaders", "compare_coordinators",
           "find_coordinator", "find_coordinators", "group_ids", "load_by_leader", "offsets_leaders", "coordinator_summary"]

#: group ids whose ``String.hashCode()`` is ``Integer.MIN_VALUE`` (checked by the tests with ``string_hash``)
MIN_VALUE_IDS = ("polygenelubricants", "GydZG_", "DESIGNING WORKHOUSES")


@dataclass(frozen=True)
class CoordinatorRow:
    """One group: its id, its ``hashCode``, the book's ``partition_for``, the leader of that
    ``__consumer_offsets`` partition (Metadata), the coordinator Kafka named (FindCoordinator), and whether
    the two brokers are the same."""

    group: str
    hash_code: int
    partition_for: int
    leader: Optional[int]
    coordinator: Optional[int]

    @property
    def agree(self) -> bool:
        return self.leader is not None and self.leader == self.coordinator

    def to_json(self) -> JsonRecord:
        return {**asdict(self), "agree": self.agree}


def group_ids(count: int = 300, seed: int = 25) -> List[str]:
    """``count`` distinct group ids: the :data:`MIN_VALUE_IDS`, then seeded random ids (letters, digits,
    ``-``, ``_``, ``.``; 1 to 24 characters), about half of which have a negative ``hashCode``."""
    rng = random.Random(seed)
    alphabet = string.ascii_letters + string.digits + "-_."
    out: List[str] = list(MIN_VALUE_IDS)[:count]
    seen = set(out)
    while len(out) < count:
        g = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 24)))
        if g not in seen:
            seen.add(g)
            out.append(g)
    return out


def _admin(bootstrap_servers: str) -> Any:
    from confluent_kafka.admin import AdminClient
    return AdminClient({"bootstrap.servers": bootstrap_servers, "log_level": 0})


def offsets_leaders(admin: Any, timeout: float = 10.0) -> Dict[int, Optional[int]]:
    """``{partition: leader broker id}`` of ``__consumer_offsets`` (``None``: no leader, -1 in Metadata)."""
    md = admin.list_topics(topic=OFFSETS_TOPIC, timeout=timeout)
    topic = md.topics.get(OFFSETS_TOPIC)
    if topic is None or topic.error is not None:
        return {}
    return {p: (m.leader if m.leader >= 0 else None) for p, m in topic.partitions.items()}



def find_coordinator(port: int, group: str, *, host: str = "127.0.0.1", timeout: float = 5.0) -> int:
    """The coordinator's broker id for ``group``, asked of the broker at ``host:port`` with one
    ``FindCoordinator`` v2 request (``Key`` = the group id, ``KeyType`` = 0); raises
    :class:`CoordinatorNotAvailable` on an error code."""
    key = group.encode("utf-8")
    body = (struct.pack(">hhih", 10, 2, 7, len(CLIENT_ID)) + CLIENT_ID
            + struct.pack(">h", len(key)) + key + struct.pack(">b", 0))
    data = round_trip(port, body, host=host, timeout=timeout)
    # correlation id, throttle_time_ms, error_code, error_message (nullable string), node_id, host, port
    _corr, _throttle, error = struct.unpack_from(">iih", data, 0)
    pos = 10
    (n,) = struct.unpack_from(">h", data, pos)
    pos += 2
    message = None if n < 0 else data[pos:pos + n].decode("utf-8", "replace")
    pos += max(n, 0)
    (node_id,) = struct.unpack_from(">i", data, pos)
    if error != 0:
        raise CoordinatorNotAvailable(error, message)
    return int(node_id)


def find_coordinators(ports: Sequence[int], groups: Sequence[str], timeout: float = 30.0
                      ) -> Dict[str, Optional[int]]:
    """``{group: coordinator broker id}``, each group asked of the next broker in ``ports`` (round robin); a
    group whose lookup still fails after retries until ``timeout`` maps to ``None``."""
    out: Dict[str, Optional[int]] = {}
    deadline = time.monotonic() + timeout
    for i, g in enumerate(groups):
        out[g] = None
        while True:
            try:
                out[g] = find_coordinator(ports[i % len(ports)], g)
                break
            except (CoordinatorNotAvailable, OSError, struct.error):
                if time.monotonic() > deadline:
                    break
                time.sleep(0.2)
    return out


def _wait_offsets_topic(admin: Any, ports: Sequence[int], num_partitions: int, timeout: float) -> Dict[int, Optional[int]]:
    """Ask for one coordinator (which makes Kafka create ``__consumer_offsets``) until every partition of the
    topic has a leader."""
    deadline = time.monotonic() + timeout
    leaders: Dict[int, Optional[int]] = {}
    while time.monotonic() < deadline:
        find_coordinators(ports, ["rebalance-warm-up"], timeout=max(1.0, deadline - time.monotonic()))
        leaders = offsets_leaders(admin)
        if len(leaders) == num_partitions and all(v is not None for v in leaders.values()):
            return leaders
        time.sleep(0.5)
    raise WaitTimeoutError(f"{OFFSETS_TOPIC} did not get a leader for each of its {num_partitions} partitions "
                       f"within {timeout:g} s (got {leaders})")


def compare_coordinators(bootstrap_servers: str, groups: Sequence[str], num_partitions: int,
                         timeout: float = 60.0) -> List[CoordinatorRow]:
    """One :class:`CoordinatorRow` per group: ``partition_for(group, num_partitions)`` (``num_partitions`` must
    be the cluster's ``offsets.topic.num.partitions``), the leader of that partition, and the coordinator the
    cluster names.  The leaders are read before and after the lookups; if leadership moved in between (a
    broker failing over), the lookup is repeated, up to three times.

    Defined in chapter 1, *Groups, coordinators and generations*."""
    admin = _admin(bootstrap_servers)
    ports = [int(hp.rsplit(":", 1)[1]) for hp in bootstrap_servers.split(",")]
    leaders = _wait_offsets_topic(admin, ports, num_partitions, timeout)
    for _ in range(3):
        coordinators = find_coordinators(ports, groups, timeout)
        after = offsets_leaders(admin)
        if after == leaders:
            break
        leaders = after
    rows = []
    for g in groups:
        p = partition_for(g, num_partitions)
        rows.append(CoordinatorRow(g, string_hash(g), p, leaders.get(p), coordinators.get(g)))
    return rows


def coordinator_summary(rows: Sequence[CoordinatorRow]) -> JsonRecord:
    """Counts for a README line: groups, agreeing, with ``hashCode == Integer.MIN_VALUE``, with a negative
    ``hashCode``, and the partitions reached."""
    return {"groups": len(rows), "agree": sum(r.agree for r in rows),
            "min_value": sum(r.hash_code == INT_MIN for r in rows),
            "negative": sum(r.hash_code < 0 for r in rows),
            "partitions": len({r.partition_for for r in rows}),
            "coordinators": sorted({r.coordinator for r in rows if r.coordinator is not None})}


def cluster_leaders(bootstrap_servers: str, timeout: float = 10.0) -> Dict[int, Optional[int]]:
    """``{partition: leader broker id}`` of a running cluster's ``__consumer_offsets`` (empty before the topic
    exists: :func:`compare_coordinators` creates it)."""
    return offsets_leaders(_admin(bootstrap_servers), timeout)


def load_by_leader(partition_load: Any, leaders: Mapping[int, Optional[int]]) -> Any:
    """The coordinators' load on a cluster whose ``__consumer_offsets`` partition ``p`` is led by
    ``leaders[p]``: from per-partition counts (a pandas frame with ``partition``, ``groups`` and
    ``commits_per_s``, one ``num_partitions`` -- e.g. the coordinator job's ``partition_load``), one row per
    broker with the partitions it leads, its groups and commits, and those relative to an even share
    (``groups_vs_even``, ``commits_vs_even``; 1.0 = even), brokers by id."""
    require(len(set(partition_load["partition"])) == len(partition_load), "partition_load",
            "must hold one num_partitions (one row per partition)")
    require(set(partition_load["partition"]) == set(leaders), "leaders",
            f"must name a leader for each of the {len(partition_load)} partitions, got {len(leaders)}")
    frame = partition_load.assign(broker=partition_load["partition"].map(dict(leaders)))
    out = (frame.groupby("broker").agg(offsets_partitions=("partition", "size"), groups=("groups", "sum"),
                                        commits_per_s=("commits_per_s", "sum")).reset_index())
    out["groups_vs_even"] = out["groups"] / out["groups"].mean()
    out["commits_vs_even"] = out["commits_per_s"] / out["commits_per_s"].mean()
    return out
