"""Seeded scenario generators for the Spark jobs.

Every generated object is a pure function of ``(seed, index)``: the jobs start from ``spark.range(n)`` and
each executor builds its own scenarios from the row numbers, so millions of scenarios never pass through
the driver, and the result does not depend on how Spark splits the range into partitions or batches.

* :func:`sweep_scenario` -- one consumer group: members, topics, partition counts, subscription skew,
  racks, and the member that will leave (churn);
* :func:`group_ids` -- realistic ``group.id`` strings (``<service>-<env>-<purpose>``, Connect sink groups,
  console consumers, Streams application ids) with a heavy-tailed offset-commit rate per group;
* :func:`placement_cluster` -- a cluster (brokers, racks) and a stream of topic creations to place;
* :func:`restart_scenario` -- one group and one disturbance (rolling restart, crash and restart, crash)
  for the rebalance Monte Carlo;
* :func:`connect_scenario` -- a steady Kafka Connect cluster and one change (a worker bounces, a
  connector is added) for the Connect job.

Randomness: per-scenario generators use :class:`random.Random` seeded from a SplitMix64 mix of
``(seed, stream, index)``; the vectorised :func:`group_ids` uses the same mix on numpy ``uint64`` arrays
(a counter-based generator: value ``i`` does not depend on the values before it).
"""
from __future__ import annotations

import random
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Collection, Dict, List, Optional, Tuple, TypeVar

import numpy as np

from ..common import JsonRecord
from ..errors import InputError
from ..validation import require

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

P = TypeVar("P", bound="DataclassInstance")  # a parameters dataclass (SweepParams, PlacementParams, ...)

_GOLDEN = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
_MASK64 = (1 << 64) - 1

# stream numbers keep the jobs' random choices independent of each other for the same seed
STREAM_SWEEP, STREAM_GROUP_IDS, STREAM_PLACEMENT, STREAM_RESTART, STREAM_CONNECT = 1, 2, 3, 4, 5


def mix64(x: int) -> int:
    """SplitMix64's finaliser (Steele, Lea, Flood 2014) on a Python int."""
    x &= _MASK64
    x = ((x ^ (x >> 30)) * _M1) & _MASK64
    x = ((x ^ (x >> 27)) * _M2) & _MASK64
    return x ^ (x >> 31)


def mix64_array(x: np.ndarray) -> np.ndarray:
    """:func:`mix64` on a ``uint64`` array (wrapping arithmetic)."""
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * np.uint64(_M1)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(_M2)
    return x ^ (x >> np.uint64(31))


def scenario_seed(seed: int, stream: int, index: int) -> int:
    """A 64-bit seed for scenario ``index`` of ``stream`` under the experiment ``seed``."""
    return mix64(mix64(mix64(seed * _GOLDEN + stream) + index * _GOLDEN))


def scenario_rng(seed: int, stream: int, index: int) -> random.Random:
    return random.Random(scenario_seed(seed, stream, index))


def _check_index(seed: object, index: object) -> None:
    require(isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0, "seed",
            f"must be a whole number >= 0, got {seed!r}")
    require(isinstance(index, int) and not isinstance(index, bool) and index >= 0, "index",
            f"must be a whole number >= 0, got {index!r}")


def _whole(value: object, minimum: int, maximum: Optional[int] = None) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool) and value >= minimum
            and (maximum is None or value <= maximum))


def require_whole(params: object, names: Tuple[str, ...], minimum: int = 1, maximum: Optional[int] = None) -> None:
    """Each of ``params``' attributes ``names`` is a whole number >= ``minimum`` (and <= ``maximum``, if given):
    ``InputError`` naming ``params.<name>`` otherwise."""
    bounds = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
    for name in names:
        value = getattr(params, name)
        require(_whole(value, minimum, maximum), f"params.{name}", f"must be a whole number {bounds}, got {value!r}")


def require_choices(params: object, names: Tuple[str, ...], minimum: int = 1) -> None:
    """Each of ``params``' attributes ``names`` is a non-empty tuple of whole numbers >= ``minimum`` (the values
    a scenario draws from)."""
    for name in names:
        values = getattr(params, name)
        require(isinstance(values, (tuple, list)) and len(values) > 0 and all(_whole(v, minimum) for v in values),
                f"params.{name}", f"must be a non-empty tuple of whole numbers >= {minimum}, got {values!r}")


def require_subset(params: object, name: str, allowed: Collection[str]) -> None:
    """``params``' attribute ``name`` is a non-empty tuple of names from ``allowed``."""
    values = getattr(params, name)
    require(isinstance(values, (tuple, list)) and len(values) > 0 and all(v in allowed for v in values),
            f"params.{name}", f"must be a non-empty subset of {', '.join(allowed)}, got {values!r}")


# --------------------------------------------------------------------------------------------------------
# consumer group scenarios (scenario sweep)


@dataclass(frozen=True)
class SweepParams:
    """Ranges the consumer-group scenarios are drawn from (all bounds inclusive)."""

    min_members: int = 2
    max_members: int = 12
    max_topics: int = 5
    max_partitions: int = 24
    #: probability that every member subscribes to every topic (Kafka's common case, and the sticky
    #: assignors' "constrained" path); otherwise subscriptions are skewed subsets
    p_identical: float = 0.5
    #: choices for the number of racks (0 = no rack ids at all); drawn uniformly from this tuple
    rack_choices: Tuple[int, ...] = (0, 0, 2, 3)
    #: replication factor of the generated topics' partitions (capped by the number of racks)
    replication_factor: int = 2

    def check(self) -> "SweepParams":
        require_whole(self, ("min_members", "max_members", "max_topics", "max_partitions", "replication_factor"))
        require(self.min_members >= 2, "params.min_members", "a member must be able to leave: need at least 2")
        require(self.max_members >= self.min_members, "params.max_members", "must be >= min_members")
        require(0.0 <= self.p_identical <= 1.0, "params.p_identical", "must be a probability in [0, 1]")
        require_choices(self, ("rack_choices",), minimum=0)
        return self


@dataclass
class GroupScenario:
    """One consumer group, in the shape ``rebalance.consumer.assign`` takes, plus what the sweep measures."""

    index: int
    partitions: Dict[str, int]
    #: ``{member_id: {"topics", "owned", "generation", "instance_id", "rack"}}``, in JoinGroup order
    members: Dict[str, JsonRecord]
    #: the racks holding replicas of each partition: ``{topic: [sorted rack tuple per partition]}``
    partition_racks: Dict[str, List[Tuple[str, ...]]] = field(default_factory=dict)
    #: the member that leaves in the churn step
    leaver: str = ""
    identical_subscriptions: bool = True
    racks: int = 0

    @property
    def total_partitions(self) -> int:
        return sum(self.partitions.values())

    def to_dict(self) -> JsonRecord:
        return asdict(self)


def _member_ids(rng: random.Random, n: int) -> List[str]:
    # Kafka's member ids are "<client.id>-<UUID>"; the UUID part decides Range/RoundRobin's sort order
    return [f"consumer-{i + 1}-{rng.getrandbits(32):08x}" for i in range(n)]


def sweep_scenario(seed: int, index: int, params: SweepParams = SweepParams()) -> GroupScenario:
    """Consumer group scenario ``index`` of the sweep with experiment seed ``seed``.

    Shape: ``2..max_members`` members, ``1..max_topics`` topics of ``1..max_partitions`` partitions.  With
    probability ``p_identical`` every member subscribes to every topic; otherwise topic ``k`` is picked by
    each member with a probability that falls off as ``1/(k+1)`` (popular and niche topics), and every
    member has at least one topic.  With racks, member ``i`` sits in rack ``r{i mod racks}`` (shuffled), and
    each partition has replicas in ``replication_factor`` consecutive racks starting at a random rack.
    """
    _check_index(seed, index)
    rng = scenario_rng(seed, STREAM_SWEEP, index)
    n_members = rng.randint(params.min_members, params.max_members)
    n_topics = rng.randint(1, params.max_topics)
    topics = [f"topic-{chr(ord('a') + k)}" for k in range(n_topics)]
    partitions = {t: rng.randint(1, params.max_partitions) for t in topics}
    identical = rng.random() < params.p_identical
    n_racks = rng.choice(params.rack_choices)
    rack_names = [f"r{k}" for k in range(n_racks)]
    member_racks: List[Optional[str]] = [rack_names[i % n_racks] if n_racks else None for i in range(n_members)]
    rng.shuffle(member_racks)

    ids = _member_ids(rng, n_members)
    members: Dict[str, JsonRecord] = {}
    for i, member_id in enumerate(ids):
        if identical:
            subscribed = list(topics)
        else:
            subscribed = [t for k, t in enumerate(topics) if rng.random() < 1.0 / (k + 1)]
            if not subscribed:
                subscribed = [rng.choice(topics)]
        members[member_id] = {"topics": subscribed, "owned": [], "generation": -1, "instance_id": None,
                              "rack": member_racks[i]}

    partition_racks: Dict[str, List[Tuple[str, ...]]] = {}
    if n_racks:
        rf = min(params.replication_factor, n_racks)
        for t in topics:
            start = rng.randrange(n_racks)
            partition_racks[t] = [tuple(sorted(rack_names[(start + p + r) % n_racks] for r in range(rf)))
                                  for p in range(partitions[t])]
    leaver = ids[rng.randrange(n_members)]
    return GroupScenario(index=index, partitions=partitions, members=members, partition_racks=partition_racks,
                         leaver=leaver, identical_subscriptions=identical, racks=n_racks)


# --------------------------------------------------------------------------------------------------------
# group ids (coordinator hot spots)

SERVICES = np.array([
    "payments", "orders", "inventory", "checkout", "search", "billing", "shipping", "fraud", "ledger",
    "notifications", "recommendations", "catalog", "pricing", "analytics", "identity", "auth", "profile",
    "reviews", "ads", "clickstream", "metrics", "logging", "audit", "cart", "wishlist", "loyalty", "returns",
    "warehouse", "delivery", "routing", "tracking", "invoices", "refunds", "subscriptions", "accounts",
    "risk", "compliance", "kyc", "email", "sms", "push", "chat", "support", "tickets", "crm", "marketing",
    "campaigns", "coupons", "promotions", "geo", "maps", "weather", "telemetry", "iot", "devices", "sensors",
    "video", "images", "media", "transcode", "feeds", "timeline", "social", "graph", "ranking", "ml-features",
    "training", "scoring", "experiments", "flags", "config", "scheduler", "jobs", "workflow", "etl", "lake",
    "warehouse-sync", "cdc", "debezium", "users", "sessions", "gateway", "edge", "cdn-logs", "dns", "security",
])
ENVS = np.array(["prod", "prod", "prod", "prod", "staging", "staging", "dev", "qa", "perf", "canary"])
PURPOSES = np.array([
    "consumer", "processor", "indexer", "aggregator", "enricher", "archiver", "replicator", "validator",
    "dedup", "router", "sink", "loader", "exporter", "alerts", "reporting", "reconciler", "materializer",
    "projector", "scorer", "notifier", "cache-warmer", "compactor", "auditor", "mirror", "backfill",
])
SINKS = np.array(["s3", "elasticsearch", "jdbc", "bigquery", "snowflake", "hdfs", "mongodb", "redis", "http"])


def _pick(table: np.ndarray, u: np.ndarray) -> np.ndarray:
    return table[np.minimum((u * len(table)).astype(np.int64), len(table) - 1)]


def _uniforms(seed: int, stream: int, index: np.ndarray, k: int) -> np.ndarray:
    """``k`` independent uniforms in [0, 1) per index (shape ``(k, n)``), counter-based."""
    base = mix64_array(np.asarray(index, dtype=np.uint64) + np.uint64(scenario_seed(seed, stream, 0) & _MASK64))
    out = np.empty((k, len(base)), dtype=np.float64)
    with np.errstate(over="ignore"):
        for j in range(k):
            bits = mix64_array(base + np.uint64((j + 1) * _GOLDEN & _MASK64))
            out[j] = (bits >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))
    return out


def group_ids(seed: int, start: int, stop: int, commit_alpha: float = 1.2) -> Tuple[np.ndarray, np.ndarray]:
    """Group ids ``start..stop-1`` of experiment ``seed`` and each group's offset-commit rate.

    Returns ``(ids, commits_per_s)``: an object array of ``str`` and a ``float64`` array.  The mix: 75%
    ``<service>-<env>-<purpose>-<n>`` (a team's consumer, ``n`` an instance/shard number below 10^6),
    15% ``connect-<service>-<sink>-sink-<n>`` (the groups of Kafka Connect sink connectors, named
    ``connect-<connector>``), 10% Kafka Streams application ids ``<service>-<purpose>-app-<n>``.  With
    about 10^10 possible names, ids are distinct with overwhelming probability even at 10^7 groups.
    Commit rates are Pareto(``commit_alpha``) distributed, capped at 10^4 per second (most groups commit
    about once per second, a few hundreds of times more often), so a hot spot is a broker that draws
    several heavy groups.
    """
    _check_index(seed, start)
    require(isinstance(stop, int) and stop >= start, "stop", f"must be a whole number >= start, got {stop!r}")
    require(commit_alpha > 0, "commit_alpha", "must be > 0")
    index = np.arange(start, stop, dtype=np.uint64)
    u = _uniforms(seed, STREAM_GROUP_IDS, index, 7)
    kind = u[0]
    service, env, purpose = _pick(SERVICES, u[1]).astype(object), _pick(ENVS, u[2]).astype(object), \
        _pick(PURPOSES, u[3]).astype(object)
    number = (u[4] * 1_000_000).astype(np.int64).astype(str).astype(object)
    dash = np.full(len(index), "-", dtype=object)
    ids = service + dash + env + dash + purpose + dash + number
    connect = (kind >= 0.75) & (kind < 0.9)
    ids[connect] = ("connect-" + service[connect] + dash[connect] + _pick(SINKS, u[5][connect]).astype(object)
                    + "-sink-" + number[connect])
    streams = kind >= 0.9
    ids[streams] = service[streams] + dash[streams] + purpose[streams] + "-app-" + number[streams]
    commits = np.minimum((1.0 - u[6]) ** (-1.0 / commit_alpha), 1e4)
    return ids, commits


# --------------------------------------------------------------------------------------------------------
# clusters and topic creations (replica placement audit)


@dataclass(frozen=True)
class PlacementParams:
    """Clusters and topic creations for the placement audit."""

    broker_choices: Tuple[int, ...] = (3, 5, 6, 9, 12)
    rack_choices: Tuple[int, ...] = (0, 2, 3)
    max_partitions: int = 60
    replication_choices: Tuple[int, ...] = (3, 3, 3, 2, 1)
    #: probability that a rack-aware cluster has one rack with an extra broker (uneven racks)
    p_uneven: float = 0.5


@dataclass
class PlacementCluster:
    index: int
    #: ``[{"id", "rack"}]`` in broker-id order (rack ``None`` without racks)
    brokers: List[JsonRecord]
    #: ``[(partitions, replication_factor)]`` one per topic, in creation order
    topics: List[Tuple[int, int]]
    #: seeds the placers' random source (``java.util.Random``): AdminUtils' random start index and
    #: shift, StripedReplicaPlacer's shuffles
    seed: int

    @property
    def racks(self) -> int:
        return len({b["rack"] for b in self.brokers if b["rack"] is not None})


def placement_cluster(seed: int, index: int, topics: int, params: PlacementParams = PlacementParams()) -> PlacementCluster:
    """Cluster ``index``: its brokers (ids ``0..n-1``, racks ``r0..``) and ``topics`` topic creations.

    Rack-aware clusters spread brokers over racks round-robin; with probability ``p_uneven`` one more
    broker is added to rack ``r0`` (an uneven rack, where Kafka's rack-aware placement cannot stay even).
    Each topic draws a partition count and a replication factor (capped by the broker count); the placers'
    own random choices come from ``java.util.Random(seed)``, one stream per cluster as in one controller.
    """
    _check_index(seed, index)
    require(isinstance(topics, int) and topics >= 1, "topics", f"must be a whole number >= 1, got {topics!r}")
    rng = scenario_rng(seed, STREAM_PLACEMENT, index)
    n_brokers = rng.choice(params.broker_choices)
    n_racks = rng.choice(params.rack_choices)
    n_racks = min(n_racks, n_brokers)
    racks = [f"r{i % n_racks}" if n_racks else None for i in range(n_brokers)]
    if n_racks and rng.random() < params.p_uneven:
        racks.append("r0")
    brokers = [{"id": i, "rack": r} for i, r in enumerate(racks)]
    created = []
    for _ in range(topics):
        created.append((rng.randint(1, params.max_partitions),
                        min(rng.choice(params.replication_choices), len(brokers))))
    return PlacementCluster(index=index, brokers=brokers, topics=created, seed=scenario_seed(seed, STREAM_PLACEMENT, index) % (1 << 48))


# --------------------------------------------------------------------------------------------------------
# disturbances for the rebalance Monte Carlo


#: the Monte Carlo's disturbances: every member bounced in turn, one member crashing and coming back, one
#: member crashing for good
RESTART_EVENTS = ("rolling-restart", "crash-restart", "crash")


@dataclass(frozen=True)
class RestartParams:
    """Ranges the Monte Carlo's groups and disturbances are drawn from (all bounds inclusive)."""

    min_members: int = 3
    max_members: int = 12
    max_topics: int = 2
    max_partitions: int = 24
    #: disturbances drawn uniformly from :data:`RESTART_EVENTS`
    events: Tuple[str, ...] = RESTART_EVENTS
    #: a bounced or crashed process is down for this many milliseconds (uniform)
    min_down_ms: int = 5_000
    max_down_ms: int = 60_000


@dataclass
class RestartScenario:
    """One disturbance of one group for the rebalance Monte Carlo (virtual milliseconds)."""

    index: int
    members: int
    topics: Dict[str, int]
    event: str
    #: the crashing member (``c<k>``) for crash events; the restart order for a rolling restart
    order: List[str]
    #: how long a restarting member is down
    down_ms: int
    #: rolling restart: time between two members' shutdowns
    gap_ms: int
    #: time a member spends in ``onPartitionsRevoked`` (commit offsets, stop work)
    revoke_ms: int
    #: one-way network latency
    network_ms: int

    @property
    def partitions(self) -> int:
        return sum(self.topics.values())


def restart_scenario(seed: int, index: int, params: RestartParams = RestartParams()) -> RestartScenario:
    """Disturbance ``index``: group size, topics, what happens, to whom, and how long members stay down.

    The downtime is drawn between ``min_down_ms`` and ``max_down_ms`` (by default 5 to 60 s, so some
    restarts outlast the default 45 s ``session.timeout.ms`` and even a static member is then replaced)."""
    _check_index(seed, index)
    rng = scenario_rng(seed, STREAM_RESTART, index)
    n = rng.randint(params.min_members, params.max_members)
    topics = {f"t{k}": rng.randint(1, params.max_partitions) for k in range(rng.randint(1, params.max_topics))}
    event = rng.choice(params.events)
    names = [f"c{i + 1}" for i in range(n)]
    rng.shuffle(names)
    if event != "rolling-restart":
        names = names[:1]
    return RestartScenario(index=index, members=n, topics=topics, event=event, order=names,
                           down_ms=rng.randint(params.min_down_ms, params.max_down_ms),
                           gap_ms=rng.randint(20_000, 90_000), revoke_ms=rng.choice([0, 50, 200, 1_000]),
                           network_ms=rng.choice([1, 2, 5]))


# --------------------------------------------------------------------------------------------------------
# Kafka Connect clusters and changes (Connect job)

#: the Connect job's changes: one worker leaves and comes back empty; one connector is added
CONNECT_EVENTS = ("worker-bounce", "connector-added")


@dataclass(frozen=True)
class ConnectParams:
    """Ranges the Connect job's clusters and changes are drawn from (all bounds inclusive)."""

    min_workers: int = 3
    max_workers: int = 20
    max_connectors: int = 60
    #: tasks per connector (``tasks.max``), the same for every connector of a cluster
    max_tasks: int = 16
    #: changes drawn uniformly from :data:`CONNECT_EVENTS`
    events: Tuple[str, ...] = CONNECT_EVENTS
    #: a bounced worker is away this long (uniform): by default 5 s to 10 min, on both sides of the 5 min
    #: default of ``scheduled.rebalance.max.delay.ms``
    min_away_ms: int = 5_000
    max_away_ms: int = 600_000

    def check(self) -> "ConnectParams":
        require_whole(self, ("min_workers", "max_workers", "max_connectors", "max_tasks", "min_away_ms", "max_away_ms"))
        require(self.min_workers >= 2, "params.min_workers", "a worker must be able to leave: need at least 2")
        require(self.max_workers >= self.min_workers, "params.max_workers", "must be >= min_workers")
        require(self.max_away_ms >= self.min_away_ms, "params.max_away_ms", "must be >= min_away_ms")
        require_subset(self, "events", CONNECT_EVENTS)
        return self


@dataclass
class ConnectScenario:
    """One steady Connect cluster (every connector running ``tasks_per_connector`` tasks) and one change."""

    index: int
    workers: List[str]
    #: ``{connector: tasks}`` running before the change, named as :func:`rebalance.connect.experiment.connector_names`
    connectors: Dict[str, int]
    event: str
    #: worker-bounce: the worker that leaves (``worker-01``) is back after this long
    away_ms: int
    #: connector-added: the new connector and its task count
    new_connector: str
    new_tasks: int

    @property
    def tasks(self) -> int:
        return sum(self.connectors.values())


def connect_scenario(seed: int, index: int, params: ConnectParams = ConnectParams()) -> ConnectScenario:
    """Cluster ``index``: workers ``worker-01..``, connectors ``conn01..`` with the same ``tasks.max``, and
    the change (a bounce of ``worker-01`` and how long it is away, or a new connector and its tasks)."""
    from ..connect.experiment import connector_names, worker_names

    _check_index(seed, index)
    rng = scenario_rng(seed, STREAM_CONNECT, index)
    n_workers = rng.randint(params.min_workers, params.max_workers)
    n_connectors = rng.randint(1, params.max_connectors)
    tasks = rng.randint(1, params.max_tasks)
    event = rng.choice(params.events)
    names = connector_names(n_connectors + 1)
    return ConnectScenario(index=index, workers=worker_names(n_workers),
                           connectors={name: tasks for name in names[:-1]}, event=event,
                           away_ms=rng.randint(params.min_away_ms, params.max_away_ms),
                           new_connector=names[-1], new_tasks=rng.randint(1, params.max_tasks))


def check_params(params: object, cls: type[P]) -> P:
    """``params`` as a ``cls`` instance (a dict of overrides is accepted); bad keys raise ``InputError``."""
    if params is None:
        return cls()
    if isinstance(params, cls):
        return params
    if not isinstance(params, dict):
        raise InputError("params", f"must be a dict or {cls.__name__}")
    known = cls.__dataclass_fields__
    for key in params:
        require(key in known, f"params.{key}", f"unknown parameter (known: {', '.join(known)})")
    try:
        return cls(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in params.items()})
    except TypeError as exc:  # pragma: no cover - dataclass signature errors
        raise InputError("params", str(exc)) from None
