"""A cooperative-sticky group with racks that never settles -- real Kafka 3.8/3.9 behaviour, not a port bug.

Found by the Spark sweep (seed 2026, scenario 9303).  Nine members on three racks, five topics whose
partitions have two replicas each (racks rotate ``(r0,r1) (r1,r2) (r0,r2)``); ``consumer-8`` leaves and the
eight survivors rejoin owning what the first assignment gave them.  Every follow-up rebalance of the
COOPERATIVE protocol hands out 48 of the 49 partitions and revokes one, forever: ``consumer-1`` (rack r0)
alternates between ``topic-a-16`` (replicas r1, r2) and ``topic-a-8`` (replicas r0, r2), and the partition
it gives up is always withheld for ``consumer-7`` (rack r1), which never receives it.

The expected assignments below are not the port's output: they were produced by Kafka's own classes
(``CooperativeStickyAssignor`` + ``AbstractStickyAssignor`` + ``ConsumerPartitionAssignor`` from the vectors'
commit 1eb7644, compiled from the mirror with only the unused user-data decoding and
``getAssignorInstances`` stubbed out, in a one-off local check; no build recipe for Kafka's code is kept in
this repository), called once per round on one assignor instance with the
survivors' ``Subscription(topics, ownedPartitions = last assignment, generationId = g, rackId)`` and
``PartitionInfo`` replicas carrying the racks.  The Java lists matched the port's element for element in all
12 rounds tried, and did so whether owned partitions were reported in assignment order or in the order a
real client reports them (``SubscriptionState.assignFromSubscribed`` puts them in a ``HashMap`` and
``PartitionStates.update`` groups them by topic; ``assignedPartitionsList``).

Why it cycles (``clients/.../internals/AbstractStickyAssignor.java`` at 1eb7644):

* ``GeneralAssignmentBuilder.assignOwnedPartitions`` (lines 1033-1067) drops an owned partition whose
  replicas are not on the owner's rack (``rackInfo.racksMismatch``, line 1052; ``revocationRequired``,
  line 1056).  Even rounds start with ``consumer-1`` (r0) owning ``topic-a-16`` (r1, r2): the claim is
  dropped, and ``balance`` (lines 1328-1386) hands the partition out again rack-aware first
  (``maybeAssign(..., rackInfo, true)``, line 1336; ``maybeAssignPartition``, lines 1265-1276), to
  ``consumer-7`` (r1), while the free ``topic-a-8`` goes to ``consumer-5`` (r2) and is then moved by
  balancing to ``consumer-1``.
* ``performReassignments`` (lines 1388-1452) evens loads by ``reassignPartition(partition)`` (lines
  1454-1467), which picks the least-loaded subscriber in ``sortedCurrentSubscriptions`` *without* looking at
  racks (the rack test at lines 1419-1445 only decides *whether* to move).  Odd rounds start with
  ``topic-a-16`` free: the rack-aware pass puts it on ``consumer-5`` (r2), then balancing moves
  ``topic-a-8`` from ``consumer-1`` to ``consumer-7`` (r1: no replica there) and ``topic-a-16`` from
  ``consumer-5`` to ``consumer-1`` (r0: no replica there either) -- which the next round's rack check undoes.
* ``CooperativeStickyAssignor.assignPartitions`` (``clients/.../consumer/CooperativeStickyAssignor.java``
  lines 110-120; the general path leaves ``partitionsTransferringOwnership`` null, so
  ``computePartitionsTransferringOwnership``, lines 130-156, finds the partition consumer-1 owned and loses)
  removes that partition from ``consumer-7``'s assignment (``adjustAssignment``, lines 123-128).
* ``ConsumerCoordinator.onJoinComplete`` (``clients/.../internals/ConsumerCoordinator.java`` lines 382-407):
  a member whose assignment lacks an owned partition revokes it and calls ``requestRejoin``, so the group
  rebalances again; every member rejoins reporting its current assignment and generation (``metadata()``,
  lines 267-271).  The inputs of round n+2 equal those of round n, so the loop never ends.

Related upstream reports: KAFKA-15106 / apache/kafka#13920 (3.5 rack-aware cooperative-sticky groups
rebalancing hundreds of times) and KAFKA-15170 / apache/kafka#13965 (rack-aware revocations missing from
``partitionsTransferringOwnership``, fixed on the constrained path); KAFKA-8767 (a third rebalance).
"""
from rebalance.consumer.api import assign, build_scenario
from rebalance.consumer.cooperative_sticky import CooperativeStickyAssignor
from rebalance.consumer.rounds import rebalance_rounds

PARTITIONS = {"topic-a": 20, "topic-b": 2, "topic-c": 11, "topic-d": 9, "topic-e": 7}
_PAIRS = [("r0", "r1"), ("r1", "r2"), ("r0", "r2")]
_OFFSET = {"topic-a": 0, "topic-b": 2, "topic-c": 1, "topic-d": 2, "topic-e": 0}
RACKS = {t: [_PAIRS[(_OFFSET[t] + p) % 3] for p in range(n)] for t, n in PARTITIONS.items()}

C1, C2, C3, C4 = "consumer-1-11fc9c8c", "consumer-2-f2b6d154", "consumer-3-b293c418", "consumer-4-e79e8247"
C5, C6, C7, C8, C9 = ("consumer-5-83bda625", "consumer-6-13cc5f9a", "consumer-7-8004e2d3", "consumer-8-85fe2d50",
                      "consumer-9-eb28e5bb")
SPECS = {
    C1: ("r0", ["topic-a", "topic-b", "topic-d"]), C2: ("r1", ["topic-a"]),
    C3: ("r0", ["topic-a", "topic-b", "topic-c"]), C4: ("r2", ["topic-a", "topic-b"]),
    C5: ("r2", ["topic-a", "topic-b", "topic-e"]), C6: ("r0", ["topic-a", "topic-d"]),
    C7: ("r1", ["topic-a", "topic-b"]), C8: ("r1", ["topic-a", "topic-b", "topic-d"]),
    C9: ("r2", ["topic-a", "topic-d"]),
}


def _tps(text):
    return [(t, int(p)) for t, p in (x.rsplit("-", 1) for x in text.split())]


# what each survivor owns when consumer-8 has left (the group's first assignment, minus consumer-8)
OWNED_AT_CHURN = {
    C1: _tps("topic-d-0 topic-d-4 topic-d-7 topic-a-11 topic-a-17"),
    C2: _tps("topic-a-0 topic-a-1 topic-a-4 topic-a-10 topic-a-18"),
    C3: _tps("topic-c-1 topic-c-2 topic-c-4 topic-c-5 topic-c-7 topic-c-8 topic-c-10 topic-c-0 topic-c-3 topic-c-6 "
             "topic-c-9"),
    C4: _tps("topic-b-0 topic-a-2 topic-a-5 topic-a-13 topic-a-19"),
    C5: _tps("topic-e-1 topic-e-2 topic-e-4 topic-e-5 topic-e-0 topic-e-3 topic-e-6"),
    C6: _tps("topic-d-1 topic-d-6 topic-a-6 topic-a-12"),
    C7: _tps("topic-b-1 topic-a-3 topic-a-7 topic-a-15"),
    C9: _tps("topic-d-3 topic-d-8 topic-a-8 topic-a-14"),
}
LEAVERS_PARTITIONS = _tps("topic-d-2 topic-d-5 topic-a-9 topic-a-16")

# Kafka's CooperativeStickyAssignor output (lists in Kafka's order) in odd and even rounds
ODD = {
    C1: _tps("topic-d-0 topic-d-4 topic-d-7 topic-a-11 topic-a-17 topic-a-16"),
    C2: OWNED_AT_CHURN[C2], C3: OWNED_AT_CHURN[C3], C4: OWNED_AT_CHURN[C4], C5: OWNED_AT_CHURN[C5],
    C6: _tps("topic-d-1 topic-d-6 topic-a-6 topic-a-12 topic-a-9"),
    C7: OWNED_AT_CHURN[C7],
    C9: _tps("topic-d-3 topic-d-8 topic-a-14 topic-d-2 topic-d-5"),
}
EVEN = {**ODD, C1: _tps("topic-d-0 topic-d-4 topic-d-7 topic-a-11 topic-a-17 topic-a-8")}


def _members(owned, generation):
    return {m: {"topics": SPECS[m][1], "owned": owned[m], "generation": generation, "rack": SPECS[m][0]}
            for m in OWNED_AT_CHURN}


def test_first_assignment_is_what_the_survivors_own():
    """The group before the churn: a fresh assignment of all nine members (no owned partitions)."""
    first = assign("cooperative-sticky", PARTITIONS,
                   {m: {"topics": topics, "rack": rack} for m, (rack, topics) in SPECS.items()},
                   partition_racks=RACKS)
    assert {m: first[m] for m in OWNED_AT_CHURN} == OWNED_AT_CHURN
    assert first[C8] == LEAVERS_PARTITIONS


def test_rounds_alternate_and_never_settle():
    scenario = build_scenario("cooperative-sticky", PARTITIONS, _members(OWNED_AT_CHURN, 1), partition_racks=RACKS)
    rounds = rebalance_rounds(scenario, max_rounds=12)
    assert len(rounds) == 12 and all(r.withheld for r in rounds)   # 12 rounds, each withholding a partition
    for n, result in enumerate(rounds, start=1):
        assert result.path == "general"
        expected = ODD if n % 2 else EVEN
        assert {m: result.assignment[m] for m in OWNED_AT_CHURN} == expected, f"round {n}"
        assert sum(map(len, result.assignment.values())) == 48   # of 49: one partition is always in flight
        # the partition consumer-1 gives up is planned for consumer-7 and withheld from it
        assert result.withheld == ({("topic-a", 8): C7} if n % 2 else {("topic-a", 16): C7}), f"round {n}"
    # round 1 also hands the leaver's partitions out, and takes topic-a-8 from consumer-9
    assert rounds[0].owned[C9] == OWNED_AT_CHURN[C9]


def _steps(owned, generation):
    scenario = build_scenario("cooperative-sticky", PARTITIONS, _members(owned, generation), partition_racks=RACKS)
    result = CooperativeStickyAssignor(trace=True).assign(scenario)
    assigns = {s["partition"]: s["member"] for s in result.trace if s["step"] == "assign"}
    moves = [(s["partition"], s["from"], s["to"]) for s in result.trace if s["step"] == "move"]
    return result, assigns, moves


def rack(member):
    return SPECS[member][0]


def test_cycle_comes_from_rack_blind_balancing_and_the_rack_check_on_owned_partitions():
    """Trace of the general builder in both halves of the loop (port's trace; the results equal Kafka's)."""
    a8, a16 = ("topic-a", 8), ("topic-a", 16)
    # even rounds: consumer-1 owns topic-a-16 but its rack r0 holds no replica of it, so
    # assignOwnedPartitions drops the claim and the rack-aware first pass hands it out again, to consumer-7
    assert rack(C1) not in RACKS["topic-a"][16] and rack(C7) in RACKS["topic-a"][16]
    result, assigns, moves = _steps(ODD, 2)
    assert a16 in ODD[C1] and assigns[a16] == C7 and assigns[a8] == C5
    assert moves == [(a8, C5, C1)]                   # balancing then gives the free topic-a-8 to consumer-1
    assert result.withheld == {a16: C7}              # consumer-1 must revoke topic-a-16 first
    # odd rounds: topic-a-16 is free; the rack-aware pass puts it on consumer-5, then balancing moves the
    # most loaded member's partitions to the least loaded members whatever their racks
    result, assigns, moves = _steps(EVEN, 3)
    assert assigns[a16] == C5
    assert moves == [(a8, C1, C7), (a16, C5, C1)]
    assert rack(C7) not in RACKS["topic-a"][8] and rack(C1) not in RACKS["topic-a"][16]
    assert result.withheld == {a8: C7}               # consumer-1 must revoke topic-a-8 first ...
    assert a16 in result.assignment[C1]              # ... and gets topic-a-16 (owned by nobody) at once
    assert {m: result.assignment[m] for m in OWNED_AT_CHURN} == ODD   # the next round's input is ODD again


def test_without_racks_the_same_churn_settles_in_two_rebalances():
    """The loop needs KIP-881's rack matching: drop the racks and the usual two rounds suffice."""
    scenario = build_scenario("cooperative-sticky", PARTITIONS, _members(OWNED_AT_CHURN, 1))
    rounds = rebalance_rounds(scenario, max_rounds=12)
    assert len(rounds) <= 2 and not rounds[-1].withheld
    assert sum(map(len, rounds[-1].assignment.values())) == 49
