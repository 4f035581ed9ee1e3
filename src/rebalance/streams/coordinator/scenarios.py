"""The inputs of the ``streams_group`` vectors, generated here (seeded) and answered by Kafka's own classes
(``python -m rebalance.kafka.oracle rewrite``).

* :func:`unit_scenarios` -- the scenarios of Kafka 4.3.1's ``StickyTaskAssignorTest``
  (``group-coordinator/src/test/.../streams/assignor``): each test's inputs (members by ``Utils.mkMap``, a
  ``LinkedHashMap``, or a ``HashMap``; the topology ``TopologyDescriberImpl(numTasks, isStateful,
  subtopologies)``; ``num.standby.replicas``) and its assertions as ``expect`` checks
  (:func:`rebalance.streams.coordinator.vectors.check_expect`).  A test that calls ``assign`` twice gives two lines
  (``#1``, ``#2``).  Facts only: the tests' code is not copied.
* :func:`random_scenarios` -- seeded random groups: several subtopologies of various partition counts, stateful
  or not; members (stream threads) on shared processes; a previous assignment computed for an earlier
  membership (members since left, joined, or moved tasks), with previous standby and warm-up tasks and the odd
  conflicting claim; ``num.standby.replicas`` 0-2; member ids that exercise ``HashMap`` order.

``python -m rebalance.streams.coordinator.scenarios unit|sticky FILE`` writes the lines with ``"output": null``; the oracle
fills them in.
"""
from __future__ import annotations

import json
import random
import sys
from typing import Any, Dict, List, Optional, Sequence

from .spec import AssignmentMemberSpec, GroupSpec, Subtopology, Topology
from .sticky_task_assignor import StickyTaskAssignor

__all__ = ["random_scenarios", "unit_scenarios", "write_lines"]

KIND = "streams_group"
TEST = "StickyTaskAssignorTest"
SUB = "test-subtopology"


def _member(member_id: str, process: str, active: Optional[Dict[str, List[int]]] = None,
            standby: Optional[Dict[str, List[int]]] = None) -> Dict[str, Any]:
    m: Dict[str, Any] = {"id": member_id, "process": process}
    if active:
        m["active"] = active
    if standby:
        m["standby"] = standby
    return m


def _topology(tasks: int, stateful: bool, subtopologies: Sequence[str]) -> List[Dict[str, Any]]:
    """``TopologyDescriberImpl(numTasks, isStateful, subtopologies)`` of the test."""
    return [{"id": s, "partitions": tasks, "stateful": stateful} for s in subtopologies]


def _count(of: Any, members: Optional[List[str]] = None, each: bool = False, **bounds: Any) -> Dict[str, Any]:
    c: Dict[str, Any] = {"check": "count", "of": of}
    if members is not None:
        c["members"] = members
    if each:
        c["each"] = True
    c.update(bounds)
    return c


def _tasks(member: str, of: str, **relation: Dict[str, List[int]]) -> Dict[str, Any]:
    return {"check": "tasks", "of": of, "member": member, **relation}


def _union(of: str, members: Optional[List[str]] = None, **what: Any) -> Dict[str, Any]:
    u: Dict[str, Any] = {"check": "union", "of": of}
    if members is not None:
        u["members"] = members
    u.update(what)
    return u


def _line(test: str, members: List[Dict[str, Any]], subtopologies: List[Dict[str, Any]], standby: Optional[int],
          expect: List[Dict[str, Any]], members_map: str = "linked", part: str = "") -> Dict[str, Any]:
    scenario: Dict[str, Any] = {
        "id": f"{TEST}.{test}{part}", "kind": KIND,
        "source": f"facts of Kafka 4.3.1's {TEST}.{test} (group-coordinator tests)",
        "subtopologies": subtopologies,
        "assignment_configs": {} if standby is None else {"num.standby.replicas": str(standby)},
        "members_map": members_map, "members": members, "expect": expect}
    return scenario


def unit_scenarios() -> List[Dict[str, Any]]:
    """The scenarios of ``StickyTaskAssignorTest`` at Kafka 4.3.1, in the test file's order."""
    one = [SUB]
    s12 = ["test-subtopology1", "test-subtopology2"]
    s012 = ["test-subtopology0", "test-subtopology1", "test-subtopology2"]
    M = _member
    out: List[Dict[str, Any]] = []

    out.append(_line("testToStringReturnsName", [M("member1", "process1")], _topology(1, False, one), None,
                     [{"check": "name", "equals": "sticky"}]))
    out.append(_line("shouldAssignOneActiveTaskToEachProcessWhenTaskCountSameAsProcessCount",
                     [M("member1", "process1"), M("member2", "process2"), M("member3", "process3")],
                     _topology(3, False, one), None,
                     [{"check": "members", "equals": 3},
                      _count("active_subtopologies", ["member1", "member2", "member3"], each=True, equals=1),
                      _union("active", equals={SUB: [0, 1, 2]})]))
    six = [M("member1_1", "process1"), M("member1_2", "process1"), M("member2_1", "process2"),
           M("member2_2", "process2"), M("member3_1", "process3"), M("member3_2", "process3")]
    six_ids = [m["id"] for m in six]
    for test, standby in (("shouldAssignTopicGroupIdEvenlyAcrossClientsWithNoStandByTasks", None),
                          ("shouldAssignTopicGroupIdEvenlyAcrossClientsWithStandByTasks", 1)):
        out.append(_line(test, six, _topology(3, standby is not None, s12), standby,
                         [_count("active", six_ids, each=True, equals=1),
                          _union("active", six_ids, equals={s: [0, 1, 2] for s in s12})]))
    test = "shouldNotMigrateActiveTaskToOtherProcess"
    out.append(_line(test, [M("member1", "process1", {SUB: [0]}), M("member2", "process2", {SUB: [1]})],
                     _topology(3, False, one), None,
                     [_tasks("member1", "active", contains={SUB: [0]}), _tasks("member2", "active", contains={SUB: [1]}),
                      _count("active", ["member1", "member2"], equals=3)], part="#1"))
    out.append(_line(test, [M("member2", "process2", {SUB: [1]}), M("member3", "process1", {SUB: [2]})],
                     _topology(3, False, one), None,
                     [_tasks("member2", "active", contains={SUB: [1]}), _tasks("member3", "active", contains={SUB: [2]}),
                      _count("active", ["member2", "member3"], equals=3)], part="#2"))
    out.append(_line("shouldMigrateActiveTasksToNewProcessWithoutChangingAllAssignments",
                     [M("member1", "process1", {SUB: [0, 2]}), M("member2", "process2", {SUB: [1]}),
                      M("member3", "process3")], _topology(3, False, one), None,
                     [_tasks("member1", "active", contains_any={SUB: [0, 2]}),
                      _tasks("member2", "active", contains={SUB: [1]}),
                      _tasks("member3", "active", contains_any={SUB: [2, 0]}),
                      _count("active", ["member1", "member2", "member3"], equals=3)]))
    out.append(_line("shouldAssignBasedOnCapacity",
                     [M("member1", "process1"), M("member2_1", "process2"), M("member2_2", "process2")],
                     _topology(3, False, one), None,
                     [_count("active", ["member1", "member2_1", "member2_2"], each=True, equals=1)]))
    prev = {"test-subtopology1": [0, 1, 2, 3, 4, 5], "test-subtopology2": [0]}
    out.append(_line("shouldAssignTasksEvenlyWithUnequalTopicGroupSizes",
                     [M("member1", "process1", prev), M("member2", "process2")],
                     [{"id": "test-subtopology1", "partitions": 6, "stateful": False},
                      {"id": "test-subtopology2", "partitions": 1, "stateful": False}], None,
                     [_count("active", ["member1"], equals=4), _count("active", ["member2"], equals=3),
                      _union("active", ["member1", "member2"], equals=prev)]))
    test = "shouldKeepActiveTaskStickinessWhenMoreClientThanActiveTasks"
    out.append(_line(test, [M("member1", "process1", {SUB: [0]}), M("member2", "process2", {SUB: [2]}),
                            M("member3", "process3", {SUB: [1]}), M("member4", "process4"), M("member5", "process5")],
                     _topology(3, False, one), None,
                     [_tasks("member1", "active", equals={SUB: [0]}), _tasks("member2", "active", equals={SUB: [2]}),
                      _tasks("member3", "active", equals={SUB: [1]}), _tasks("member4", "active", equals={}),
                      _tasks("member5", "active", equals={})], part="#1"))
    out.append(_line(test, [M("member1", "process1"), M("member2", "process2", {SUB: [0]}), M("member3", "process3"),
                            M("member4", "process4", {SUB: [2]}), M("member5", "process5", {SUB: [1]})],
                     _topology(3, False, one), None,
                     [_tasks("member1", "active", equals={}), _tasks("member2", "active", equals={SUB: [0]}),
                      _tasks("member3", "active", equals={}), _tasks("member4", "active", equals={SUB: [2]}),
                      _tasks("member5", "active", equals={SUB: [1]})], part="#2"))
    out.append(_line("shouldAssignTasksToClientWithPreviousStandbyTasks",
                     [M("member1", "process1", None, {SUB: [2]}), M("member2", "process2", None, {SUB: [1]}),
                      M("member3", "process3", None, {SUB: [0]})], _topology(3, False, one), None,
                     [_tasks("member1", "active", equals={SUB: [2]}), _tasks("member2", "active", equals={SUB: [1]}),
                      _tasks("member3", "active", equals={SUB: [0]})]))
    out.append(_line("shouldNotAssignStandbyTasksToClientWithPreviousStandbyTasksAndCurrentActiveTasks",
                     [M("member1", "process1", None, {SUB: [0]}), M("member2", "process2", None, {SUB: [1]})],
                     _topology(2, True, one), 1,
                     [_tasks("member1", "active", equals={SUB: [0]}), _tasks("member1", "standby", equals={SUB: [1]}),
                      _tasks("member2", "active", equals={SUB: [1]}), _tasks("member2", "standby", equals={SUB: [0]})]))
    out.append(_line("shouldAssignBasedOnCapacityWhenMultipleClientHaveStandbyTasks",
                     [M("member1", "process1", {SUB: [0]}, {SUB: [1]}), M("member2_1", "process2", {SUB: [2]}, {SUB: [1]}),
                      M("member2_2", "process2")], _topology(3, False, one), None,
                     [_tasks("member1", "active", equals={SUB: [0]}), _tasks("member2_1", "active", equals={SUB: [2]}),
                      _tasks("member2_2", "active", equals={SUB: [1]})]))
    four = ["member1", "member2", "member3", "member4"]
    out.append(_line("shouldAssignStandbyTasksToDifferentClientThanCorrespondingActiveTaskIsAssignedTo",
                     [M(f"member{i + 1}", f"process{i + 1}", {SUB: [i]}) for i in range(4)], _topology(4, True, one), 1,
                     [c for i in range(4) for c in (_tasks(f"member{i + 1}", "standby", excludes={SUB: [i]}),
                                                    _count("standby", [f"member{i + 1}"], max=2))]
                     + [{"check": "members_with", "of": "standby", "min": 3},
                        _union("standby", equals={SUB: [0, 1, 2, 3]})]))
    out.append(_line("shouldAssignMultipleReplicasOfStandbyTask",
                     [M(f"member{i + 1}", f"process{i + 1}", {SUB: [i]}) for i in range(3)], _topology(3, True, one), 2,
                     [_tasks("member1", "standby", equals={SUB: [1, 2]}), _tasks("member2", "standby", equals={SUB: [0, 2]}),
                      _tasks("member3", "standby", equals={SUB: [0, 1]})]))
    out.append(_line("shouldNotAssignStandbyTaskReplicasWhenNoClientAvailableWithoutHavingTheTaskAssigned",
                     [M("member1", "process1")], _topology(1, True, one), 1,
                     [_tasks("member1", "standby", equals={})]))
    out.append(_line("shouldAssignActiveAndStandbyTasks",
                     [M(f"member{i + 1}", f"process{i + 1}") for i in range(3)], _topology(3, True, one), 1,
                     [_union("active", equals={SUB: [0, 1, 2]}), _union("standby", equals={SUB: [0, 1, 2]})]))
    out.append(_line("shouldAssignAtLeastOneTaskToEachClientIfPossible",
                     [M("member1_1", "process1"), M("member1_2", "process1"), M("member1_3", "process1"),
                      M("member2", "process2"), M("member3", "process3")], _topology(3, False, one), None,
                     [_count("active", ["member1_1", "member1_2", "member1_3"], equals=1),
                      _count("active", ["member2"], equals=1), _count("active", ["member3"], equals=1)]))
    six_p = [M(f"member{i + 1}", f"process{i + 1}") for i in range(6)]
    six_p_ids = [m["id"] for m in six_p]
    out.append(_line("shouldAssignEachActiveTaskToOneClientWhenMoreClientsThanTasks", six_p, _topology(3, False, one), None,
                     [_count("active", six_p_ids, equals=3), _union("active", six_p_ids, equals={SUB: [0, 1, 2]})]))
    out.append(_line("shouldBalanceActiveAndStandbyTasksAcrossAvailableClients", six_p, _topology(3, True, one), 1,
                     [_count(["standby_subtopologies", "active"], each=True, equals=1)]))
    out.append(_line("shouldAssignMoreTasksToClientWithMoreCapacity",
                     [M("member1", "process1"), M("member2_1", "process2"), M("member2_2", "process2")],
                     _topology(3, False, [f"test-subtopology{i}" for i in range(4)]), None,
                     [_count("active", ["member2_1", "member2_2"], equals=8), _count("active", ["member1"], equals=4)]))
    p3_all = M("member3", "process3", {SUB: [0, 1, 2, 3]})
    out.append(_line("shouldReBalanceTasksAcrossAllClientsWhenCapacityAndTaskCountTheSame",
                     [M("member1", "process1"), M("member2", "process2"), p3_all, M("member4", "process4")],
                     _topology(4, False, one), None, [_count("active", four, each=True, equals=1)]))
    out.append(_line("shouldReBalanceTasksAcrossClientsWhenCapacityLessThanTaskCount",
                     [M("member1", "process1"), M("member2", "process2"), p3_all], _topology(4, False, one), None,
                     [_count("active", ["member1"], equals=1), _count("active", ["member2"], equals=1),
                      _count("active", ["member3"], equals=2)]))
    out.append(_line("shouldRebalanceTasksToClientsBasedOnCapacity",
                     [M("member2", "process2", {SUB: [0, 3, 2]}), M("member3_1", "process3"), M("member3_2", "process3")],
                     _topology(3, False, one), None,
                     [_count("active", ["member2"], equals=1), _count("active", ["member3_1", "member3_2"], equals=2)]))
    out.append(_line("shouldMoveMinimalNumberOfTasksWhenPreviouslyAboveCapacityAndNewClientAdded",
                     [M("member1", "process1", {SUB: [0, 2]}), M("member2", "process2", {SUB: [1, 3]}),
                      M("member3", "process3")], _topology(4, False, one), None,
                     [_count("active", ["member3"], equals=1),
                      {"check": "any_of", "options": [
                          [_tasks("member3", "active", contains_any={SUB: [0, 2]}),
                           _tasks("member2", "active", equals={SUB: [1, 3]})],
                          [_tasks("member3", "active", excludes={SUB: [0, 2]}),
                           _tasks("member1", "active", equals={SUB: [0, 2]})]]}]))
    out.append(_line("shouldNotMoveAnyTasksWhenNewTasksAdded",
                     [M("member1", "process1", {SUB: [0, 1]}), M("member2", "process2", {SUB: [2, 3]})],
                     _topology(6, False, one), None,
                     [_tasks("member1", "active", contains={SUB: [0, 1]}), _tasks("member2", "active", contains={SUB: [2, 3]})]))
    out.append(_line("shouldAssignNewTasksToNewClientWhenPreviousTasksAssignedToOldClients",
                     [M("member1", "process1", {SUB: [2, 1]}), M("member2", "process2", {SUB: [0, 3]}),
                      M("member3", "process3")], _topology(6, False, one), None,
                     [_tasks("member1", "active", contains={SUB: [2, 1]}), _tasks("member2", "active", contains={SUB: [0, 3]}),
                      _tasks("member3", "active", contains={SUB: [4, 5]})]))
    t0, t1, t2 = s012
    member1 = M("member1", "process1", {t0: [1], t1: [2, 3]}, {t0: [0], t1: [1], t2: [0, 1, 3]})
    member2 = M("member2", "process2", {t0: [0], t1: [1], t2: [2]}, {t0: [1, 2, 3], t1: [0, 2, 3], t2: [0, 1, 3]})
    wants = [_tasks("member1", "active", equals={t0: [1], t1: [2, 3]}),
             _tasks("member2", "active", equals={t0: [0], t1: [1], t2: [2]})]
    out.append(_line("shouldAssignTasksNotPreviouslyActiveToNewClient",
                     [member1, member2, M("member3", "process3", {t2: [0, 1, 3]}, {t0: [2], t1: [2]}),
                      M("newMember", "process4", None, {t: [0, 1, 2, 3] for t in s012})],
                     _topology(4, False, s012), None,
                     wants + [_tasks("member3", "active", equals={t2: [0, 1, 3]}),
                              _tasks("newMember", "active", equals={t0: [2, 3], t1: [0]})]))
    out.append(_line("shouldAssignTasksNotPreviouslyActiveToMultipleNewClients",
                     [member1, member2, M("bounce_member1", "bounce1", None, {t2: [0, 1, 3]}),
                      M("bounce_member2", "bounce2", None, {t0: [2, 3], t1: [0]})],
                     _topology(4, False, s012), None,
                     wants + [_tasks("bounce_member1", "active", equals={t2: [0, 1, 3]}),
                              _tasks("bounce_member2", "active", equals={t0: [2, 3], t1: [0]})]))
    out.append(_line("shouldAssignTasksToNewClient",
                     [M("member1", "process1", {SUB: [1, 2]}), M("member2", "process2")], _topology(2, False, one), None,
                     [_count("active", ["member1"], equals=1)]))
    out.append(_line("shouldAssignTasksToNewClientWithoutFlippingAssignmentBetweenExistingClients",
                     [M("member1", "process1", {SUB: [0, 1, 2]}), M("member2", "process2", {SUB: [3, 4, 5]}),
                      M("newMember", "process3")], _topology(6, False, one), None,
                     [_tasks("member1", "active", excludes={SUB: [3, 4, 5]}), _count("active", ["member1"], equals=2),
                      _tasks("member2", "active", excludes={SUB: [0, 1, 2]}), _count("active", ["member2"], equals=2),
                      _count("active", ["newMember"], equals=2)]))
    out.append(_line("shouldAssignTasksToNewClientWithoutFlippingAssignmentBetweenExistingAndBouncedClients",
                     [M("member1", "process1", {SUB: [0, 1, 2, 6]}), M("member2", "process2", None, {SUB: [3, 4, 5]}),
                      M("newMember", "newProcess")], _topology(7, False, one), None,
                     [_tasks("member1", "active", excludes={SUB: [3, 4, 5]}), _count("active", ["member1"], equals=3),
                      _tasks("member2", "active", excludes={SUB: [0, 1, 2]}), _count("active", ["member2"], equals=2),
                      _count("active", ["newMember"], equals=2)]))

    def numbered(n: int) -> List[Dict[str, Any]]:
        return [M(f"member{i}", f"process{i}") for i in range(n)]

    out.append(_line("shouldHandleLargeNumberOfTasksWithStandbyAssignment", numbered(5), _topology(100, True, one), 2,
                     [_union("active", size=100), _union("standby", size_min=1, size_max=200),
                      {"check": "disjoint_active_standby"}, _count("active", each=True, equals=20),
                      _count("standby", each=True, min=0), _union("standby", size_min=1)], members_map="hash"))
    out.append(_line("shouldHandleOddNumberOfClientsWithStandbyTasks", numbered(7), _topology(14, True, one), 1,
                     [_union("active", size=14), _union("standby", size=14), _count("active", each=True, equals=2)],
                     members_map="hash"))
    out.append(_line("shouldHandleHighStandbyReplicaCount", numbered(3), _topology(6, True, one), 5,
                     [_union("active", size=6), _union("standby", size_min=1, size_max=12)], members_map="hash"))
    out.append(_line("shouldHandleLargeNumberOfSubtopologiesWithStandbyTasks", numbered(4),
                     _topology(5, True, [f"subtopology-{i}" for i in range(10)]), 1,
                     [{"check": "subtopologies", "of": "active", "equals": 10},
                      {"check": "subtopologies", "of": "standby", "equals": 10}], members_map="hash"))
    out.append(_line("shouldHandleEdgeCaseWithSingleClientAndMultipleStandbyReplicas", [M("member1", "process1")],
                     _topology(10, True, one), 3,
                     [_count("active", ["member1"], equals=10), _count("standby", ["member1"], equals=0)]))
    out.append(_line("shouldHandleEdgeCaseWithMoreStandbyReplicasThanAvailableClients", numbered(2),
                     _topology(4, True, one), 5, [_union("active", size=4), _union("standby", size=4)],
                     members_map="hash"))
    three = ["member1", "member2", "member3"]
    out.append(_line("shouldReassignTasksWhenNewNodeJoinsWithExistingActiveAndStandbyAssignments",
                     [M("member1", "process1", {SUB: [0, 1]}, {SUB: [2, 3]}), M("member2", "process2", {SUB: [2, 3]}, {SUB: [0, 1]}),
                      M("member3", "process3")], _topology(4, True, one), 1,
                     [_union("active", three, equals={SUB: [0, 1, 2, 3]}), _union("standby", three, equals={SUB: [0, 1, 2, 3]}),
                      _count("active", three, each=True, min=1, max=2),
                      _count(["active", "standby"], three, each=True, max=3)]))
    for test, members in (("shouldRangeAssignTasksWhenScalingUp",
                           [M("member1", "process1", {"test-subtopology1": [0, 1], "test-subtopology2": [0, 1]}),
                            M("member2", "process2")]),
                          ("shouldRangeAssignTasksWhenStartingEmpty", [M("member1", "process1"), M("member2", "process2")])):
        out.append(_line(test, members, _topology(2, True, s12), 1,
                         [_count(of, ["member1", "member2"], each=True, subtopology=s, equals=1)
                          for of in ("active",) for s in s12]
                         + [_union("active", ["member1", "member2"], equals={s: [0, 1] for s in s12})]
                         + [_count("standby", ["member1", "member2"], each=True, subtopology=s, equals=1) for s in s12]))
    out.append(_line("shouldAssignStandbyTaskToPreviousOwnerBasedOnBelowQuotaCondition",
                     [M("member1", "process1", {SUB: [0]}, {SUB: [1]}), M("member2", "process2", {SUB: [1]}),
                      M("member3", "process3")], _topology(2, True, one), 1,
                     [_tasks("member1", "active", contains={SUB: [0]}), _tasks("member1", "standby", contains={SUB: [1]}),
                      _tasks("member1", "active", excludes={SUB: [1]}),
                      _count(["active", "standby"], ["member1"], max=2)]))
    return out


def _id(rng: random.Random, prefix: str = "") -> str:
    """A Kafka-like id (``Uuid.toString``: 22 URL-safe base64 characters), or a short readable one."""
    if rng.random() < 0.3:
        return f"{prefix}{rng.randrange(100)}"
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    return "".join(rng.choice(alphabet) for _ in range(22))


def _subtopology_ids(rng: random.Random, n: int) -> List[str]:
    style = rng.random()
    if style < 0.5:
        ids = [str(i) for i in range(n)]
    elif style < 0.8:
        ids = [f"subtopology-{chr(ord('a') + i)}" for i in range(n)]
    else:
        ids = [str(i) for i in rng.sample(range(20), n)]
    if rng.random() < 0.7:
        ids.sort()  # as TopologyMetadata gives them (a SortedMap's keys)
    return ids


def _previous(rng: random.Random, subtopologies: List[Dict[str, Any]], members: List[Dict[str, Any]],
              standby: int) -> Dict[str, Any]:
    """The assignment of an earlier membership, as StickyTaskAssignor computed it from scratch."""
    earlier = [m for m in members if rng.random() < 0.8]
    topology = Topology(Subtopology(s["id"], max(0, s["partitions"] - (rng.randrange(3) if rng.random() < 0.2 else 0)),
                                    s["stateful"]) for s in subtopologies)
    specs = [(m["id"], AssignmentMemberSpec(m["process"])) for m in earlier]
    if not specs:
        return {}
    try:
        result = StickyTaskAssignor().assign(GroupSpec.of(specs, {"num.standby.replicas": str(standby)}), topology)
    except Exception:  # pragma: no cover - an earlier group has members
        return {}
    return {m: a.to_json() for m, a in result.members.items()}


def random_scenarios(n: int = 120, seed: int = 27) -> List[Dict[str, Any]]:
    """``n`` seeded random ``streams_group`` inputs (see the module docstring)."""
    rng = random.Random(seed)
    out: List[Dict[str, Any]] = []
    for i in range(n):
        sub_ids = _subtopology_ids(rng, rng.randint(1, 4))
        subtopologies: List[Dict[str, Any]] = [{"id": s, "partitions": rng.choice([0, 1, 2, 3, 3, 4, 4, 5, 6, 8, 12]) if rng.random() > 0.05 else 0,
                          "stateful": rng.random() < 0.6} for s in sub_ids]
        standby = rng.choice([0, 1, 1, 2, 2])
        configs: Dict[str, str] = {} if standby == 0 and rng.random() < 0.5 else {"num.standby.replicas": str(standby)}
        members: List[Dict[str, Any]] = []
        for _ in range(rng.randint(1, 5)):
            process = _id(rng, "process-")
            for _ in range(rng.choice([1, 1, 2, 2, 3])):
                members.append({"id": _id(rng, "member-"), "process": process})
        unique: Dict[str, Dict[str, Any]] = {}
        for m in members:
            unique.setdefault(m["id"], m)
        members = list(unique.values())
        ids = set(unique)
        leavers = [{"id": _id(rng, "gone-"), "process": rng.choice(members)["process"] if rng.random() < 0.5
                    else _id(rng, "old-process-")} for _ in range(rng.choice([0, 0, 1, 2]))]
        leavers = [m for m in leavers if m["id"] not in ids]
        previous = _previous(rng, subtopologies, members + leavers, standby if standby else rng.choice([0, 1]))
        for m in members:
            before = previous.get(m["id"])
            if before is not None:
                if before["active"]:
                    m["active"] = before["active"]
                if before["standby"]:
                    m["standby"] = before["standby"]
            if rng.random() < 0.1:  # a restarted instance: a new process id, the same member id
                m["process"] = _id(rng, "process-")
        actives = [(m, s, p) for m in members for s, parts in m.get("active", {}).items() for p in parts]
        if actives and rng.random() < 0.2:  # two members claim one active task: the later in the map wins
            _, s, p = rng.choice(actives)
            claimer = rng.choice(members)
            claimer.setdefault("active", {}).setdefault(s, [])
            if p not in claimer["active"][s]:
                claimer["active"][s] = sorted(claimer["active"][s] + [p])
        if rng.random() < 0.15:  # a task of a subtopology or partition that no longer exists
            m = rng.choice(members)
            key = rng.choice(["active", "standby"])
            m.setdefault(key, {}).setdefault(rng.choice(["gone", sub_ids[0]]), []).append(99)
        for m in members:
            if rng.random() < 0.15 and subtopologies:  # warm-up tasks (the sticky assignor ignores them)
                s = rng.choice(subtopologies)
                if s["partitions"]:
                    m["warmup"] = {s["id"]: sorted(rng.sample(range(s["partitions"]), 1))}
        rng.shuffle(members)
        scenario: Dict[str, Any] = {
            "id": f"streams_group_sticky-{i:04d}", "kind": KIND,
            "source": f"random (rebalance.streams.coordinator.scenarios.random_scenarios, seed {seed}, #{i})",
            "subtopologies": subtopologies, "assignment_configs": configs, "members": members}
        if rng.random() < 0.15:
            scenario["members_map"] = "linked"
        out.append(scenario)
    base = {"kind": KIND, "source": "edge case (rebalance.streams.coordinator.scenarios)"}
    out.append({**base, "id": "streams_group_sticky-no-members", "subtopologies": [{"id": "0", "partitions": 2}],
                "members": []})
    out.append({**base, "id": "streams_group_sticky-no-members-no-tasks",
                "subtopologies": [{"id": "0", "partitions": 0, "stateful": True}], "members": []})
    out.append({**base, "id": "streams_group_sticky-no-subtopologies", "subtopologies": [],
                "assignment_configs": {"num.standby.replicas": "1"},
                "members": [{"id": "m1", "process": "p1", "active": {"0": [0]}}]})
    # a task's previous standby owners are tried as findPrevMemberWithLeastLoad (lines 282-309 at 4.3.1) has it:
    # the "does not hold the task" test looks at the first owner's process, so standby 2 leaves member2 although
    # member2 had it and only member1 (now its active) cannot keep it.  The scenario of a later trunk test
    # (StickyTaskAssignorTest.shouldAssignStandbyToPreviousStandbyThatDoesNotHoldTheActiveTask), which 4.3.1
    # does not pass.
    out.append({**base, "id": "streams_group_sticky-first-previous-standby-owner",
                "source": "edge case (rebalance.streams.coordinator.scenarios): the scenario of a post-4.3.1 trunk test that "
                          "4.3.1 does not pass, StickyTaskAssignorTest.shouldAssignStandbyToPreviousStandbyThatDoesNotHoldTheActiveTask",
                "subtopologies": [{"id": "test-subtopology", "partitions": 3, "stateful": True}],
                "assignment_configs": {"num.standby.replicas": "1"}, "members_map": "linked",
                "members": [{"id": "member1", "process": "process1", "standby": {"test-subtopology": [2]}},
                            {"id": "member2", "process": "process2", "active": {"test-subtopology": [0]},
                             "standby": {"test-subtopology": [2]}},
                            {"id": "member3", "process": "process3", "active": {"test-subtopology": [1]}},
                            {"id": "member4", "process": "process4"}]})
    return out


def write_lines(scenarios: List[Dict[str, Any]], path: str) -> None:
    """One vectors line per scenario, ``{"id", "kind", "source", "input", "output": null}``."""
    with open(path, "w", encoding="utf-8") as f:
        for s in scenarios:
            f.write(json.dumps({"id": s["id"], "kind": KIND, "source": s["source"], "input": s, "output": None},
                               ensure_ascii=False) + "\n")


def main(argv: Optional[List[str]] = None) -> int:
    """``python -m rebalance.streams.coordinator.scenarios unit|sticky FILE``."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] not in ("unit", "sticky"):
        print("usage: python -m rebalance.streams.coordinator.scenarios unit|sticky FILE", file=sys.stderr)
        return 2
    write_lines(unit_scenarios() if args[0] == "unit" else random_scenarios(), args[1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
