"""The KRaft controller's real replica placements, set against the book's ``StripedReplicaPlacer``.

A real cluster (:class:`~rebalance.kafka.cluster.KafkaCluster`) places the replicas of every topic it creates,
and of every partition added later, with ``StripedReplicaPlacer(new Random())`` -- one placer and one unseeded
``java.util.Random`` per controller (``QuorumController.Builder``, Kafka 4.3.1), fed
``ClusterControlManager.usableBrokers()``: every registered broker that is not shutting down, fenced ones
included (marked fenced), in ``HashMap<Integer, ...>`` order, i.e. by id.  The seed is unknown, so a single
placement cannot be predicted, but it must be one the placer *can* produce, and over many creations the
outcomes must follow the placer's distribution.

:func:`outcome_distribution` computes that distribution **exactly, by enumeration**: it runs the book's
:class:`~rebalance.replicas.striped.StripedReplicaPlacer` with a :class:`ScriptedRandom` whose ``nextInt(bound)``
returns scripted values, and walks every script (an odometer over the draws: the broker lists' start offsets,
the rack offset, and at each reshuffle ``Collections.shuffle``'s draws).  Every ``place()`` call only draws
``nextInt(bound)`` (checked: :class:`ScriptedRandom` refuses any other draw), and ``nextInt(bound)`` is exactly
uniform on ``[0, bound)`` for uniform random bits (Java rejects the last, incomplete block), so a script's
probability is the product of ``1/bound`` over its draws and the set of outcomes is complete, not an estimate.
The one modelling assumption: the controller's ``java.util.Random`` stream behaves as independent uniform
draws (it is a 48-bit LCG; earlier calls, such as the creation of ``__consumer_offsets``, only move it on).

Then :func:`check_placements` tells, for each real placement, whether it is in the outcome set, and
:func:`goodness_of_fit` compares the frequencies of a statistic (e.g. the leader of partition 0) with the
enumerated distribution by Pearson's chi-square test (:func:`chi2_sf`: the p-value without scipy).
"""
from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, Dict, Hashable, Iterable, List, Mapping, Optional, Sequence, Tuple

from ..common import JsonRecord
from ..errors import IllegalStateError, WaitTimeoutError
from ..validation import require
from ..replicas.brokers import Broker
from ..replicas.java_random import JavaRandom
from ..replicas.placement import PlacementSpec
from ..replicas.striped import StripedReplicaPlacer
from .jvm import wait_until

if TYPE_CHECKING:
    from .cluster import KafkaCluster

__all__ = ["Outcome", "PlacementCheck", "PlacementStep", "ScriptedRandom", "check_placements", "cluster_brokers",
           "controller_placements", "create_topics", "add_partitions", "chi2_sf", "fence_broker", "first_leader",
           "goodness_of_fit",
           "marginal", "outcome_distribution", "read_placements"]

#: one placement: each placed partition's replicas, leader first, in partition order
Outcome = Tuple[Tuple[int, ...], ...]


class ScriptedRandom(JavaRandom):
    """A ``java.util.Random`` whose ``nextInt(bound)`` answers from ``script`` (then 0), recording every draw's
    bound and value; any other draw (``nextInt()``, ``nextLong()``...) raises, so an enumeration over its
    scripts cannot silently miss a source of randomness."""

    __slots__ = ("script", "bounds", "values")

    def __init__(self, script: Sequence[int] = ()):
        super().__init__(0)
        self.script = list(script)
        self.bounds: List[int] = []
        self.values: List[int] = []

    def next(self, bits: int) -> int:  # only nextInt(bound) is expected
        raise IllegalStateError("StripedReplicaPlacer drew something other than nextInt(bound)")

    def next_int(self, bound: Optional[int] = None) -> int:
        if bound is None or bound <= 0:
            raise IllegalStateError(f"unexpected draw nextInt({bound})")
        i = len(self.values)
        value = self.script[i] if i < len(self.script) else 0
        if not 0 <= value < bound:
            raise IllegalStateError(f"scripted value {value} out of range for nextInt({bound})")
        self.bounds.append(bound)
        self.values.append(value)
        return value

    nextInt = next_int


def outcome_distribution(brokers: Sequence[Broker], num_partitions: int, replication_factor: int, *,
                         max_paths: int = 200_000) -> Dict[Outcome, Fraction]:
    """The exact distribution of ``StripedReplicaPlacer.place(PlacementSpec(_, num_partitions,
    replication_factor), brokers)`` over the placer's random draws: ``{outcome: probability}`` (probabilities
    sum to 1).  ``brokers`` in ``usableBrokers()`` order (:class:`~rebalance.replicas.brokers.Broker`, dicts or
    tuples, fenced ones marked).  Raises ``ValueError`` beyond ``max_paths`` scripts (each reshuffle -- after as
    many partitions as there are unfenced brokers -- multiplies the count)."""
    dist: Dict[Outcome, Fraction] = {}
    script: List[int] = []
    paths = 0
    while True:
        rnd = ScriptedRandom(script)
        placed = StripedReplicaPlacer(rnd).place(PlacementSpec(0, num_partitions, replication_factor), brokers)
        outcome = tuple(tuple(r) for r in placed.replica_lists())
        p = Fraction(1)
        for b in rnd.bounds:
            p /= b
        dist[outcome] = dist.get(outcome, Fraction(0)) + p
        paths += 1
        if paths > max_paths:
            raise ValueError(f"more than max_paths={max_paths} random scripts")
        i = len(rnd.values) - 1
        while i >= 0 and rnd.values[i] + 1 >= rnd.bounds[i]:
            i -= 1
        if i < 0:
            break
        script = rnd.values[:i] + [rnd.values[i] + 1]
    assert sum(dist.values()) == 1
    return dist


def first_leader(outcome: Outcome) -> int:
    """The leader (first replica) of the first placed partition: the statistic of a one-partition topic's
    leader, for :func:`marginal` and :func:`goodness_of_fit`."""
    return outcome[0][0]


def marginal(dist: Mapping[Outcome, Fraction], statistic: Callable[[Outcome], Hashable]) -> Dict[Hashable, Fraction]:
    """The distribution of ``statistic(outcome)`` under ``dist``."""
    out: Dict[Hashable, Fraction] = {}
    for outcome, p in dist.items():
        k = statistic(outcome)
        out[k] = out.get(k, Fraction(0)) + p
    return out


def chi2_sf(x: float, dof: int) -> float:
    """``P(X >= x)`` for a chi-square variable with ``dof`` degrees of freedom: the regularized upper
    incomplete gamma function ``Q(dof/2, x/2)`` (series below ``a + 1``, Lentz's continued fraction above;
    Numerical Recipes' ``gammq``, to about 1e-14).  scipy is not a dependency of the book, so the p-value is
    computed here (``scipy.stats.chi2.sf`` gives the same, tested where scipy is installed).

    >>> round(chi2_sf(11.0705, 5), 4), round(chi2_sf(35.1725, 23), 4)     # the 5% critical values
    (0.05, 0.05)
    """
    if dof <= 0:
        raise ValueError("dof must be positive")
    if x <= 0:
        return 1.0
    a, z = dof / 2.0, x / 2.0
    log_front = -z + a * math.log(z) - math.lgamma(a)
    if z < a + 1:  # P by its series, Q = 1 - P
        term = total = 1.0 / a
        ap = a
        for _ in range(10_000):
            ap += 1
            term *= z / ap
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = z + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-16:
            break
    return math.exp(log_front) * h


def goodness_of_fit(observed: Iterable[Hashable], expected: Mapping[Hashable, Fraction]) -> JsonRecord:
    """Pearson's chi-square goodness-of-fit test of the observed values against ``expected`` probabilities
    (every value of ``expected`` is a cell; statistic ``sum((O - E)^2 / E)``, dof = cells - 1, p-value
    :func:`chi2_sf`, as ``scipy.stats.chisquare``).  Returns ``{"n", "cells", "observed", "expected",
    "statistic", "dof", "p_value", "outside"}`` (``outside``: observed values the distribution gives
    probability 0, which alone refute it; they are not cells of the test)."""
    obs = Counter(observed)
    cells = sorted(expected, key=repr)
    n = sum(obs.get(c, 0) for c in cells)
    f_obs = [obs.get(c, 0) for c in cells]
    f_exp = [float(expected[c]) * n for c in cells]
    stat = sum((o - e) ** 2 / e for o, e in zip(f_obs, f_exp) if e > 0)
    dof = len(cells) - 1
    return {"n": n, "cells": len(cells), "observed": dict(zip(map(repr, cells), f_obs)),
            "expected": dict(zip(map(repr, cells), f_exp)), "statistic": stat,
            "dof": dof, "p_value": chi2_sf(stat, dof) if dof > 0 else 1.0,
            "outside": sorted((repr(k) for k in obs if k not in expected))}


# ------------------------------------------------------------------------------------------ the real cluster
def cluster_brokers(cluster: KafkaCluster, fenced: Iterable[int] = ()) -> List[Broker]:
    """The brokers of a :class:`~rebalance.kafka.cluster.KafkaCluster` as ``usableBrokers()`` gives them to the
    placer: by id, with their racks, ``fenced`` ones marked."""
    fenced = set(fenced)
    return [Broker(n.node_id, n.rack, n.node_id in fenced) for n in sorted(cluster.broker_nodes,
                                                                            key=lambda n: n.node_id)]


def _admin(bootstrap_servers: str) -> Any:
    from confluent_kafka.admin import AdminClient
    return AdminClient({"bootstrap.servers": bootstrap_servers, "log_level": 0})


def create_topics(admin: Any, names: Sequence[str], num_partitions: int, replication_factor: int,
                  timeout: float = 60.0) -> None:
    """Create topics through the Admin API (``CreateTopics``; the controller places their replicas), one
    request for all, and wait for every result.  A request that timed out (librdkafka may still send it to a
    broker that just died, e.g. the one it was told forwards to the controller) is sent again for the topics
    not created yet (``TOPIC_ALREADY_EXISTS`` counts as created), until ``timeout``; other errors raise."""
    from confluent_kafka import KafkaError, KafkaException
    from confluent_kafka.admin import NewTopic

    deadline = time.monotonic() + timeout
    pending = list(names)
    while pending:
        left = max(1.0, deadline - time.monotonic())
        futures = admin.create_topics([NewTopic(n, num_partitions, replication_factor) for n in pending],
                                      request_timeout=min(15.0, left), operation_timeout=min(15.0, left))
        retry = []
        for name, f in futures.items():
            try:
                f.result(timeout=left + 5)
            except KafkaException as e:
                code = e.args[0].code() if e.args and isinstance(e.args[0], KafkaError) else None
                if code == KafkaError.TOPIC_ALREADY_EXISTS:
                    continue
                if code in (KafkaError._TIMED_OUT, KafkaError.REQUEST_TIMED_OUT, KafkaError._TRANSPORT,
                            KafkaError.NOT_CONTROLLER) and time.monotonic() < deadline:
                    retry.append(name)
                    continue
                raise
        pending = retry


def add_partitions(admin: Any, totals: Mapping[str, int], timeout: float = 60.0) -> None:
    """``CreatePartitions``: grow each topic to ``totals[topic]`` partitions (the controller places the new
    ones with the same placer: ``PlacementSpec(startPartition, additional, replicationFactor)``)."""
    from confluent_kafka.admin import NewPartitions

    futures = admin.create_partitions([NewPartitions(t, n) for t, n in totals.items()], request_timeout=timeout)
    for f in futures.values():
        f.result(timeout=timeout)


def read_placements(admin: Any, names: Sequence[str], timeout: float = 30.0) -> Dict[str, List[Tuple[int, ...]]]:
    """``{topic: [replicas of partition 0, 1, ...]}`` from ``Metadata`` (the replicas in the controller's
    order, the preferred leader first), retried until every named topic is known with all its partitions."""
    deadline = time.monotonic() + timeout
    while True:
        md = admin.list_topics(timeout=timeout)
        out = {}
        for n in names:
            t = md.topics.get(n)
            if t is None or t.error is not None or not t.partitions:
                break
            ps = sorted(t.partitions)
            if ps != list(range(len(ps))):
                break
            out[n] = [tuple(t.partitions[p].replicas) for p in ps]
        if len(out) == len(names):
            return out
        if time.monotonic() > deadline:
            raise WaitTimeoutError(f"topics not all visible in Metadata within {timeout:g} s: "
                               f"{sorted(set(names) - set(out))[:5]}")
        time.sleep(0.2)


@dataclass(frozen=True)
class PlacementCheck:
    """One real placement: the topic, the first placed partition, the replicas Kafka chose for the placed
    partitions, and their probability under the book's placer (0: not an outcome it can produce)."""

    topic: str
    start_partition: int
    replicas: Outcome
    probability: Fraction

    @property
    def in_outcome_set(self) -> bool:
        return self.probability > 0


def check_placements(placements: Mapping[str, Sequence[Sequence[int]]], dist: Mapping[Outcome, Fraction],
                     start_partition: int = 0) -> List[PlacementCheck]:
    """For each topic, its partitions from ``start_partition`` on (the ones one ``place()`` call placed) looked
    up in ``dist`` (from :func:`outcome_distribution` for that call's cluster and counts)."""
    rows = []
    for topic, replicas in placements.items():
        outcome = tuple(tuple(r) for r in replicas[start_partition:])
        rows.append(PlacementCheck(topic, start_partition, outcome, Fraction(dist.get(outcome, 0))))
    return rows


def fence_broker(cluster: KafkaCluster, node_id: int, timeout: float = 30.0) -> float:
    """Kill broker ``node_id`` of a running :class:`~rebalance.kafka.cluster.KafkaCluster`
    (:meth:`~rebalance.kafka.cluster.KafkaCluster.kill_node`: SIGKILL to its JVM, a machine that died, no
    controlled shutdown) and wait until the controller has fenced it, i.e. until a ``Metadata`` request to
    another broker no longer lists it (a fenced broker drops out of the list).  The node stays registered, so
    the placer still sees it, marked fenced.  Returns the seconds waited after the kill; raises
    :class:`~rebalance.errors.WaitTimeoutError` after ``timeout``."""
    from .broker_requests import metadata_brokers

    others = [n.port for n in cluster.broker_nodes if n.node_id != node_id and n.port is not None]
    require(bool(others), "node_id", f"fencing broker {node_id} leaves no broker to ask")
    cluster.kill_node(node_id)
    began = time.monotonic()

    def fenced() -> bool:
        try:
            return node_id not in metadata_brokers(others[0])
        except OSError:
            return False

    wait_until(fenced, timeout, f"Metadata answer without broker {node_id} (its fencing)", pause=0.3)
    return time.monotonic() - began


@dataclass(frozen=True)
class PlacementStep:
    """One batch of real placements: what was asked (``step``), the brokers as the placer saw them, the
    partitions one ``place()`` call placed per topic, the size of the placer's outcome set for that call, and
    each topic's :class:`PlacementCheck`."""

    step: str
    brokers: Tuple[Broker, ...]
    partitions: int
    outcomes: int
    checks: Tuple[PlacementCheck, ...]

    @property
    def in_outcome_set(self) -> int:
        return sum(c.in_outcome_set for c in self.checks)


def controller_placements(cluster: KafkaCluster, *, single: int = 90, multi: int = 10, partitions: int = 8,
                          grow_to: int = 12, fence: Optional[int] = None, after_fence: int = 20,
                          after_fence_partitions: int = 3, replication_factor: int = 3,
                          timeout: float = 60.0) -> List[PlacementStep]:
    """The KRaft controller of a running ``cluster`` places replicas, and each placement is looked up in the
    book's placer's exact outcome distribution (:func:`outcome_distribution`, :func:`check_placements`).
    The steps, each through the Admin API:

    1. ``single`` topics of one partition (``CreateTopics``): the sample for a goodness-of-fit test;
    2. ``multi`` topics of ``partitions`` partitions (more partitions than unfenced brokers make the placer
       reshuffle within one call);
    3. those topics grown to ``grow_to`` partitions (``CreatePartitions``: the new partitions are one
       ``place()`` call, ``PlacementSpec(partitions, grow_to - partitions, ...)``);
    4. if ``fence`` is a broker id: that broker killed and fenced (:func:`fence_broker`; the cluster needs a
       ``broker.session.timeout.ms`` of a few seconds), then ``after_fence`` topics of
       ``after_fence_partitions`` partitions, checked against the placer with that broker marked fenced.

    Returns one :class:`PlacementStep` per step, in order (topic names ``single-NNN``, ``multi-NN``,
    ``fenced-NN``).

    Defined in chapter 12, *Placing replicas*."""
    admin = _admin(cluster.bootstrap_servers)
    brokers = tuple(cluster_brokers(cluster))
    steps: List[PlacementStep] = []

    def check(step: str, names: List[str], count: int, bs: Tuple[Broker, ...], placements: Any, start: int = 0) -> None:
        dist = outcome_distribution(bs, count, replication_factor)
        steps.append(PlacementStep(step, bs, count, len(dist), tuple(check_placements(placements, dist, start))))

    names = [f"single-{i:03d}" for i in range(single)]
    create_topics(admin, names, 1, replication_factor, timeout)
    check(f"{single} topics of 1 partition", names, 1, brokers, read_placements(admin, names))
    if multi:
        names = [f"multi-{i:02d}" for i in range(multi)]
        create_topics(admin, names, partitions, replication_factor, timeout)
        check(f"{multi} topics of {partitions} partitions", names, partitions, brokers, read_placements(admin, names))
        if grow_to > partitions:
            add_partitions(admin, {n: grow_to for n in names}, timeout)
            deadline = time.monotonic() + timeout
            while True:
                placed = read_placements(admin, names)
                if all(len(p) == grow_to for p in placed.values()):
                    break
                if time.monotonic() > deadline:
                    raise WaitTimeoutError(f"the added partitions were not all visible within {timeout:g} s")
                time.sleep(0.2)
            check(f"the same grown to {grow_to}", names, grow_to - partitions, brokers, placed, start=partitions)
    if fence is not None:
        fence_broker(cluster, fence, timeout)
        fenced = tuple(cluster_brokers(cluster, fenced=[fence]))
        admin = _admin(cluster.bootstrap_servers)  # a new client: the old one may route requests to the dead broker
        names = [f"fenced-{i:02d}" for i in range(after_fence)]
        create_topics(admin, names, after_fence_partitions, replication_factor, timeout)
        check(f"broker {fence} fenced, {after_fence} topics of {after_fence_partitions} partitions", names,
              after_fence_partitions, fenced, read_placements(admin, names))
    return steps
