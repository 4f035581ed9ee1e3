"""Issue 25, item 2: every replica placement of a real KRaft controller is one the book's
``StripedReplicaPlacer`` can produce, and over many creations the outcomes follow its distribution.

One cluster: six brokers in three racks (``a a b b c c``) and one dedicated controller (seven JVMs; the
dedicated controller keeps the quorum whole when a broker is killed below).  The placer's distribution is
enumerated exactly (:func:`rebalance.kafka.placement.outcome_distribution`), not sampled.

* 120 topics of one partition, replication factor 3: each replica list is in the outcome set (24 equally likely
  outcomes), and a chi-square test compares the 24 outcomes' counts (5 expected in each) and the leader's
  broker (6 cells) with the placer's distribution;
* 10 topics of 8 partitions (the placer reshuffles racks and brokers after 6): each in the 1,152 outcomes;
* those topics grown to 12 partitions (``CreatePartitions``): the 4 new partitions are one ``place()`` call;
* broker 6 killed and fenced by the controller (``broker.session.timeout.ms=3000``), then 20 topics of
  3 partitions: each in the outcome set of a cluster whose broker 6 is fenced (12 outcomes; 6 never leads).
"""
from __future__ import annotations

import math
import time
from fractions import Fraction

import pytest

from rebalance.kafka.cluster import KafkaCluster
from rebalance.kafka.placement import (add_partitions, chi2_sf, check_placements, cluster_brokers, controller_placements,
                                       create_topics, fence_broker, first_leader, goodness_of_fit, marginal,
                                       outcome_distribution, read_placements)
from rebalance.replicas.brokers import Broker
from rebalance.replicas.striped import place

from .built import needs_broker
from .processes import alive

RACKS = ["a", "a", "b", "b", "c", "c"]
BROKERS = [Broker(i + 1, r) for i, r in enumerate(RACKS)]
ALPHA = 0.001  # a fit rejected at this level fails the test (a correct placer: 1 run in 1,000)
kafka = pytest.mark.kafka
needs_java = needs_broker


# ------------------------------------------------------------------------------- the enumeration, no cluster
def test_enumeration_is_exact_and_complete():
    for partitions, count in ((1, 24), (3, 24), (8, 1152)):
        dist = outcome_distribution(BROKERS, partitions, 3)
        assert len(dist) == count and sum(dist.values()) == 1
        assert set(dist.values()) == {Fraction(1, count)}
    # the seeded placer never leaves the enumerated set, and reaches all of it
    dist = outcome_distribution(BROKERS, 8, 3)
    seen = {tuple(map(tuple, place(BROKERS, 8, 3, seed=s))) for s in range(12_000)}
    assert seen == set(dist)
    fenced = [Broker(b.id, b.rack, b.id == 6) for b in BROKERS]
    fdist = outcome_distribution(fenced, 3, 3)
    assert len(fdist) == 12 and all(o[p][0] != 6 for o in fdist for p in range(3))
    assert set(marginal(outcome_distribution(BROKERS, 1, 3), lambda o: o[0][0]).values()) == {Fraction(1, 6)}


def test_chi2_sf_matches_tables():
    # (x, dof, P(X >= x)) from the chi-square table; and scipy where it is installed
    for x, dof, p in ((3.841459, 1, 0.05), (11.070498, 5, 0.05), (15.086272, 5, 0.01), (35.172462, 23, 0.05),
                      (49.727653, 23, 0.001), (1.0, 2, 0.60653066)):
        assert chi2_sf(x, dof) == pytest.approx(p, rel=1e-3)  # the tables give 5 to 6 digits
    # closed forms: even dof, Q = exp(-x/2) sum_{k < dof/2} (x/2)^k / k!; dof 1, Q = erfc(sqrt(x/2))
    for x, dof in ((100, 24), (30, 24), (5, 4), (10, 2)):
        closed = math.exp(-x / 2) * sum((x / 2) ** k / math.factorial(k) for k in range(dof // 2))
        assert chi2_sf(x, dof) == pytest.approx(closed, rel=1e-12)
    for x in (0.5, 3, 20):
        assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-12)
    assert chi2_sf(0, 5) == 1.0
    try:
        from scipy.stats import chi2
    except ImportError:
        return
    for x in (0.1, 1, 5, 22, 23, 24, 60):
        for dof in (1, 2, 5, 23):
            assert chi2_sf(x, dof) == pytest.approx(chi2.sf(x, dof), rel=1e-9, abs=1e-300)


# ------------------------------------------------------------------------------------------- the real cluster
@pytest.fixture(scope="module")
def six():
    pytest.importorskip("confluent_kafka")
    with KafkaCluster(brokers=6, racks=RACKS, controllers="dedicated", start_timeout=120,
                      broker_config={"broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500,
                                     "offsets.topic.num.partitions": 3}) as c:
        yield c


def _admin(c):
    from confluent_kafka.admin import AdminClient
    return AdminClient({"bootstrap.servers": c.bootstrap_servers, "log_level": 0})


RESULTS: dict = {}


@kafka
@needs_java
def test_single_partition_topics_fit_the_placer(six):
    admin = _admin(six)
    assert cluster_brokers(six) == BROKERS
    names = [f"one-{i:03d}" for i in range(120)]
    create_topics(admin, names, 1, 3)
    placements = read_placements(admin, names)
    dist = outcome_distribution(BROKERS, 1, 3)
    rows = check_placements(placements, dist)
    assert all(r.in_outcome_set for r in rows), [r for r in rows if not r.in_outcome_set][:5]
    full = goodness_of_fit([r.replicas for r in rows], dist)
    leader = goodness_of_fit([r.replicas[0][0] for r in rows], marginal(dist, lambda o: o[0][0]))
    RESULTS.update(outcome_fit=full, leader_fit=leader)
    print(f"\n24 outcomes: chi2={full['statistic']:.2f} dof={full['dof']} p={full['p_value']:.3f}; "
          f"leader: chi2={leader['statistic']:.2f} dof={leader['dof']} p={leader['p_value']:.3f}")
    assert not full["outside"] and full["p_value"] > ALPHA and leader["p_value"] > ALPHA


@kafka
@needs_java
def test_reshuffled_and_added_partitions_are_outcomes(six):
    admin = _admin(six)
    names = [f"eight-{i:02d}" for i in range(10)]
    create_topics(admin, names, 8, 3)
    rows = check_placements(read_placements(admin, names), outcome_distribution(BROKERS, 8, 3))
    assert len(rows) == 10 and all(r.in_outcome_set for r in rows), [r for r in rows if not r.in_outcome_set]
    add_partitions(admin, {n: 12 for n in names})
    deadline = time.monotonic() + 30
    while True:
        placements = read_placements(admin, names)
        if all(len(p) == 12 for p in placements.values()) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    rows = check_placements(placements, outcome_distribution(BROKERS, 4, 3), start_partition=8)
    assert all(len(r.replicas) == 4 and r.in_outcome_set for r in rows), rows[:3]


@kafka
@needs_java
def test_a_fenced_broker_gets_followers_only(six):
    admin = _admin(six)
    pid = six.node(6).process.pid
    # one broker dies (KafkaCluster.kill_node) and drops out of Metadata's broker list once fenced (asked of
    # broker 1 directly: librdkafka's describe_cluster may be routed to the dead broker)
    waited = fence_broker(six, 6, timeout=30)
    assert not alive(pid) and not six.node(6).running and 0 <= waited < 30
    fenced = cluster_brokers(six, fenced=[6])
    admin = _admin(six)  # a new client: the old one may still route CreateTopics through broker 6
    names = [f"fenced-{i:02d}" for i in range(20)]
    create_topics(admin, names, 3, 3)
    dist = outcome_distribution(fenced, 3, 3)
    rows = check_placements(read_placements(admin, names), dist)
    assert all(r.in_outcome_set for r in rows), [r for r in rows if not r.in_outcome_set][:5]
    assert all(p[0] != 6 for r in rows for p in r.replicas)
    # the same placements are not all outcomes of the unfenced cluster's placer (6 is a last resort now)
    # and none is an outcome of the same cluster with broker 6 unfenced: the controller did see it fenced
    unfenced = outcome_distribution(BROKERS, 3, 3)
    assert not any(r.replicas in unfenced for r in rows)


# ------------------------------------------------------------------------------------------ unbalanced racks
UNBALANCED = ["a", "a", "a", "b", "b", "c"]


@kafka
@needs_java
def test_unbalanced_racks_and_a_fenced_lone_broker():
    """Chapter 12's real-controller section, through :func:`controller_placements`: six brokers in racks
    ``a a a b b c`` (and a dedicated controller, so the quorum survives the kill).  The leader of a
    one-partition topic is not uniform over the brokers (rack offset uniform over the 3 racks, then a broker of
    that rack: 1/9, 1/6 or 1/3), and the real leaders follow that distribution; reshuffled and added partitions
    are outcomes; broker 6, alone in rack ``c``, killed and fenced, leads nothing but holds a replica of every
    new partition, in placements the placer makes only with 6 fenced."""
    pytest.importorskip("confluent_kafka")
    brokers = [Broker(i + 1, r) for i, r in enumerate(UNBALANCED)]
    with KafkaCluster(brokers=6, racks=UNBALANCED, controllers="dedicated", start_timeout=120,
                      broker_config={"broker.session.timeout.ms": 3000, "broker.heartbeat.interval.ms": 500,
                                     "offsets.topic.num.partitions": 1}) as c:
        assert cluster_brokers(c) == brokers
        steps = controller_placements(c, single=90, multi=10, partitions=8, grow_to=12, fence=6,
                                      after_fence=20, after_fence_partitions=3)
        assert not c.node(6).running  # the fenced broker's JVM is dead
    assert [(len(s.checks), s.partitions, s.outcomes) for s in steps] == [(90, 1, 18), (10, 8, 1296), (10, 4, 18),
                                                                          (20, 3, 18)]
    for s in steps:
        assert s.in_outcome_set == len(s.checks), [r for r in s.checks if not r.in_outcome_set][:5]
    assert [len(r.replicas) for r in steps[2].checks] == [4] * 10 and steps[2].checks[0].start_partition == 8
    assert [b.fenced for b in steps[3].brokers] == [False] * 5 + [True]
    dist = outcome_distribution(brokers, 1, 3)
    expected = marginal(dist, first_leader)
    assert expected == {1: Fraction(1, 9), 2: Fraction(1, 9), 3: Fraction(1, 9), 4: Fraction(1, 6),
                        5: Fraction(1, 6), 6: Fraction(1, 3)}
    leader = goodness_of_fit([first_leader(r.replicas) for r in steps[0].checks], expected)
    full = goodness_of_fit([r.replicas for r in steps[0].checks], dist)
    print(f"\nunbalanced racks, leader: {leader['observed']} chi2={leader['statistic']:.2f} "
          f"dof={leader['dof']} p={leader['p_value']:.3f}; 18 outcomes: chi2={full['statistic']:.2f} "
          f"dof={full['dof']} p={full['p_value']:.3f}")
    assert not leader["outside"] and leader["p_value"] > ALPHA and full["p_value"] > ALPHA
    fenced = [p for r in steps[3].checks for p in r.replicas]
    assert all(p[0] != 6 and 6 in p for p in fenced)
    unfenced = outcome_distribution(brokers, 3, 3)
    assert not any(r.replicas in unfenced for r in steps[3].checks)
