"""The inputs of ``kafka-vectors/share_simple.jsonl`` and ``share_unit.jsonl``, generated from a seed.

* :func:`random_scenario` -- one random share group replayed over 1 to 4 steps: homogeneous or heterogeneous
  subscriptions, members with and without current assignments (shared partitions, partitions of topics nobody
  subscribes to any more, partition numbers past the topic's end), more members than partitions, assignable
  (initialized) subsets, topics that grow, disappear or are missing from the metadata, members joining and
  leaving, and now and then the harness's other Java collections;
* :func:`unit_scenarios` -- the scenarios of Kafka's ``SimpleAssignorTest`` (group-coordinator tests, Kafka 4.3.1,
  from the released ``kafka-group-coordinator-4.3.1-test-sources.jar``): the same topics, members, subscriptions,
  current assignments and allowed maps, with what each test asserts as the step's ``expect`` (an exact assignment
  where the test gives one, else the number of distinct partitions assigned, ``assertEveryPartitionGetsAssignment``).
  The tests draw topic ids with ``Uuid.randomUuid()``; here they are fixed.

``python -m rebalance.share.scenarios DIR`` writes both files with ``"output": null``; ``python -m
rebalance.kafka.oracle rewrite DIR/share_*.jsonl`` then fills the outputs with Kafka's answers.  Nothing here
computes an output.
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from ..common import JsonRecord
from ..kip848.uuid import Uuid

__all__ = ["SEED", "SIMPLE_COUNT", "random_scenario", "unit_scenarios", "write_files"]

SEED = 932
SIMPLE_COUNT = 120
SOURCE = "random scenario of rebalance.share.scenarios (seed 932)"
UNIT_SOURCE = "SimpleAssignorTest.{test} (Kafka 4.3.1, group-coordinator tests)"


def _topic_id(rng: random.Random) -> str:
    return str(Uuid.from_bytes(bytes(rng.getrandbits(8) for _ in range(16))))


def _random_assignment(rng: random.Random, topics: Dict[str, int], subscriptions: Sequence[str]) -> Dict[str, List[int]]:
    """A current assignment: mostly partitions of subscribed topics, now and then of another topic or past the
    topic's last partition (a topic that shrank in the input: Kafka's builders count such partitions)."""
    names = list(subscriptions) if subscriptions and rng.random() < 0.85 else list(topics)
    out: Dict[str, List[int]] = {}
    for name in rng.sample(names, rng.randint(0, len(names))) if names else []:
        count = topics.get(name, 0)
        top = count + (3 if rng.random() < 0.1 else 0)
        if top == 0:
            continue
        parts = sorted(rng.sample(range(top), rng.randint(0, min(top, 6))))
        if parts:
            rng.shuffle(parts)
            out[name] = parts
    return out


def _members(rng: random.Random, topics: Dict[str, int], n: int, homogeneous: bool, assigned: bool,
             first: int = 0) -> List[JsonRecord]:
    names = list(topics)
    common = rng.sample(names, rng.randint(1, len(names))) if names else []
    members = []
    for i in range(first, first + n):
        subs = list(common) if homogeneous else (rng.sample(names, rng.randint(0 if rng.random() < 0.1 else 1,
                                                                                len(names))) if names else [])
        member: JsonRecord = {"id": f"m{i:02d}", "subscriptions": subs}
        if assigned and rng.random() < 0.8:
            member["assignment"] = _random_assignment(rng, topics, subs)
        members.append(member)
    return members


def _assignable(rng: random.Random, topics: Dict[str, int]) -> JsonRecord:
    out = {}
    for name, count in topics.items():
        if rng.random() < 0.85:
            out[name] = sorted(rng.sample(range(count), rng.randint(0, count))) if count else []
    return out


def random_scenario(rng: random.Random, index: int) -> JsonRecord:
    """One random ``share`` input (see the module docstring); ``index`` names it ``share_simple-NNNN``."""
    n_topics = rng.randint(1, 5)
    crowded = rng.random() < 0.25  # more members than partitions
    topics: Dict[str, int] = {}
    topic_list = []
    for t in range(n_topics):
        count = rng.randint(1, 3) if crowded else (0 if rng.random() < 0.05 else rng.randint(1, 16))
        name = f"topic-{t}"
        topics[name] = count
        topic_list.append({"name": name, "id": _topic_id(rng), "partitions": count})
    homogeneous = rng.random() < 0.5
    n_members = rng.randint(4, 14) if crowded else rng.randint(1, 9)
    scenario: JsonRecord = {"id": f"share_simple-{index:04d}", "kind": "share", "source": SOURCE,
                      "topics": topic_list}
    if rng.random() < 0.35:
        scenario["assignable"] = _assignable(rng, topics)
    switches = rng.random()
    if switches < 0.1:
        scenario["subscription_set"] = "linked"
    elif switches < 0.2:
        scenario["assignment_map"] = "linked"
    elif switches < 0.25:
        scenario["members_map"] = rng.choice(["tree", "linked"])
    members = _members(rng, topics, n_members, homogeneous, rng.random() < 0.6)
    if rng.random() < 0.05:  # a subscription to a topic the metadata does not have
        members[0]["subscriptions"] = members[0]["subscriptions"] + [_topic_id(rng)]
    scenario["members"] = members
    n_steps = rng.randint(1, 4)
    if n_steps == 1:
        return scenario
    steps: List[JsonRecord] = [{}]
    current = [dict(m) for m in members]
    next_member = n_members
    removed = False
    last_assignable = scenario.get("assignable")
    for _ in range(n_steps - 1):
        step: JsonRecord = {}
        carried = [{"id": m["id"], "subscriptions": m["subscriptions"]} for m in current]  # assignment: carry
        change = rng.random()
        if change < 0.25 and len(carried) > 1:  # members leave
            for _ in range(rng.randint(1, max(1, len(carried) // 3))):
                carried.pop(rng.randrange(len(carried)))
        elif change < 0.5:  # members join
            joining = _members(rng, topics, rng.randint(1, 3), homogeneous, False, next_member)
            if homogeneous and carried:
                for m in joining:
                    m["subscriptions"] = list(carried[0]["subscriptions"])
            carried.extend(joining)
            next_member += len(joining)
        elif change < 0.65:  # a topic grows
            name = rng.choice(list(topics))
            topics[name] += rng.randint(1, 4)
            grown = next(t for t in topic_list if t["name"] == name)
            grown = dict(grown, partitions=topics[name])
            step["add_topics"] = [grown]
        elif change < 0.75 and not homogeneous:  # a member changes its subscription
            m = rng.choice(carried)
            m["subscriptions"] = rng.sample(list(topics), rng.randint(1, len(topics)))
        elif change < 0.85:  # the initialized partitions change
            step["assignable"] = _assignable(rng, topics) if rng.random() < 0.8 else {}  # {}: none initialized
        elif change < 0.9 and len(topics) > 1:  # a topic is deleted: its name no longer resolves to an id, so
            # it leaves the subscriptions (TargetAssignmentBuilder resolves names through the metadata image),
            # while carried assignments still hold its partitions by id
            name = rng.choice(list(topics))
            del topics[name]
            topic_list = [t for t in topic_list if t["name"] != name]
            step["remove_topics"] = [name]
            removed = True
            for m in carried:
                m["subscriptions"] = [t for t in m["subscriptions"] if t != name]
            if "assignable" in scenario:
                step["assignable"] = _assignable(rng, topics)
        else:  # a rebalance with nothing changed
            pass
        if "assignable" in step:
            last_assignable = step["assignable"]
        elif removed and "assignable" in scenario:  # the line's own would name the deleted topic
            step["assignable"] = last_assignable
        if carried and rng.random() < 0.15:  # one member restarts from an empty assignment
            rng.choice(carried)["assignment"] = {}
        step["members"] = carried
        current = carried
        steps.append(step)
    scenario["steps"] = steps
    return scenario


# --- SimpleAssignorTest (Kafka 4.3.1) -------------------------------------------------------------------------

#: fixed ids for the test's TOPIC_1_UUID .. TOPIC_4_UUID (``Uuid.randomUuid()`` in the test)
_UNIT_IDS = {"topic1": "bTOnPU-dQT2zvOfhtp3q6g", "topic2": "Sf-1V4NXSh-Ae5O7QxhUmQ",
             "topic3": "Kb2ycFXTTW6ADoTKc3hcxw", "topic4": "0kZgB6KOQG2OX0z3hr3Xyw"}


def _topics(**counts: int) -> List[JsonRecord]:
    return [{"name": name, "id": _UNIT_IDS[name], "partitions": count} for name, count in counts.items()]


def _unit(test: str, suffix: str = "", **fields: Any) -> JsonRecord:
    line: JsonRecord = {"id": f"SimpleAssignorTest.{test}{suffix}", "kind": "share",
                  "source": UNIT_SOURCE.format(test=test)}
    line.update(fields)
    return line


def _member(member_id: str, subscriptions: Sequence[str], assignment: Optional[JsonRecord] = None) -> JsonRecord:
    out: JsonRecord = {"id": member_id, "subscriptions": list(subscriptions)}
    if assignment is not None:
        out["assignment"] = assignment
    return out


def _incremental(test: str, topics: List[JsonRecord], subscriptions: List[List[str]], subscription_type: str,
                 increasing: bool, carry_last_two: bool) -> JsonRecord:
    """The tests that add members ``M0..M100`` one at a time, or start with 101 and remove ``M100..M1``; every
    step must assign all 24 partitions.  ``carry_last_two``: the heterogeneous increasing test only copies the
    result back to the members before the one just added, so the two newest members start empty."""
    def sub(m: int) -> List[str]:
        return subscriptions[m % len(subscriptions)]

    steps: List[JsonRecord] = []
    expect = {"partitions_assigned": 24}
    if increasing:
        for k in range(101):
            members = []
            for m in range(k + 1):
                empty = m == k or (carry_last_two and m == k - 1)
                members.append(_member(f"M{m}", sub(m), {} if empty else None))
            steps.append({"members": members, "expect": expect})
    else:
        steps.append({"members": [_member(f"M{m}", sub(m), {}) for m in range(101)], "expect": expect})
        for k in range(100, 0, -1):
            steps.append({"members": [_member(f"M{m}", sub(m)) for m in range(k)], "expect": expect})
    return _unit(test, topics=topics, subscription_set="linked", subscription_type=subscription_type, steps=steps)


def unit_scenarios() -> List[JsonRecord]:
    """The scenarios of ``SimpleAssignorTest`` at Kafka 4.3.1, in the test's order (``testName`` has no scenario:
    the name ``"simple"`` is checked by the package's tests)."""
    t123 = _topics(topic1=3, topic2=3, topic3=2)
    hetero_members = [_member("A", ["topic1", "topic2"]), _member("B", ["topic3"]), _member("C", ["topic2", "topic3"])]
    return [
        _unit("testAssignWithEmptyMembers", topics=[], members=[], steps=[
            {"subscription_type": "HOMOGENEOUS", "expect": {"assignment": {}}},
            {"subscription_type": "HETEROGENEOUS", "expect": {"assignment": {}}}]),
        _unit("testAssignWithNoSubscribedTopic", topics=_topics(topic1=3), subscription_type="HOMOGENEOUS",
              members=[_member("A", [])], expect={"assignment": {}}),
        _unit("testAssignWithSubscribedToNonExistentTopic", topics=_topics(topic1=3), subscription_type="HOMOGENEOUS",
              members=[_member("A", [_UNIT_IDS["topic2"]])], expect={"error": "PartitionAssignorException"}),
        _unit("testAssignWithTwoMembersAndTwoTopicsHomogeneous", topics=_topics(topic1=3, topic3=2),
              subscription_set="linked", subscription_type="HOMOGENEOUS",
              members=[_member("A", ["topic1", "topic3"]), _member("B", ["topic1", "topic3"])],
              expect={"partitions_assigned": 5}),
        _unit("testAssignWithTwoMembersAndTwoTopicsHomogeneousWithAllowedMap", topics=_topics(topic1=3, topic3=3),
              subscription_set="linked", subscription_type="HOMOGENEOUS",
              members=[_member("A", ["topic1", "topic3"]), _member("B", ["topic1", "topic3"])],
              assignable={"topic1": [0, 1, 2], "topic3": [0, 1]}, expect={"partitions_assigned": 5}),
        _unit("testAssignWithTwoMembersAndTwoTopicsHomogeneousWithNonAssignableTopic",
              topics=_topics(topic1=3, topic3=2), subscription_set="linked", subscription_type="HOMOGENEOUS",
              members=[_member("A", ["topic1", "topic3"]), _member("B", ["topic1", "topic3"])],
              assignable={"topic1": [0, 1, 2]}, expect={"partitions_assigned": 3}),
        _unit("testAssignWithThreeMembersThreeTopicsHeterogeneous", topics=t123, subscription_set="linked",
              subscription_type="HETEROGENEOUS", members=hetero_members, expect={"partitions_assigned": 8}),
        _unit("testAssignWithThreeMembersThreeTopicsHeterogeneousWithAllowedMap", topics=t123,
              subscription_set="linked", subscription_type="HETEROGENEOUS", members=hetero_members,
              assignable={"topic1": [0, 1], "topic2": [0, 2], "topic3": [1]}, expect={"partitions_assigned": 5}),
        _unit("testAssignWithThreeMembersThreeTopicsHeterogeneousWithNonAssignableTopic", topics=t123,
              subscription_set="linked", subscription_type="HETEROGENEOUS", members=hetero_members,
              assignable={"topic1": [0, 1, 2], "topic2": [0, 1, 2]},
              expect={"partitions_assigned": 6, "assignment": {"A": {"topic1": [0, 1, 2], "topic2": [0, 2]}, "B": {},
                                                               "C": {"topic2": [1]}}}),
        _unit("testAssignWithOneMemberNoAssignedTopicHeterogeneous", topics=_topics(topic1=3, topic2=2),
              subscription_set="linked", subscription_type="HETEROGENEOUS",
              members=[_member("A", ["topic1", "topic2"]), _member("B", [])],
              expect={"partitions_assigned": 5, "assignment": {"A": {"topic1": [0, 1, 2], "topic2": [0, 1]}, "B": {}}}),
        _incremental("testIncrementalAssignmentIncreasingMembersHomogeneous", _topics(topic1=24), [["topic1"]],
                     "HOMOGENEOUS", True, False),
        _incremental("testIncrementalAssignmentDecreasingMembersHomogeneous", _topics(topic1=24), [["topic1"]],
                     "HOMOGENEOUS", False, False),
        _unit("testAssignWithCurrentAssignmentHeterogeneous", topics=t123, subscription_set="linked",
              subscription_type="HETEROGENEOUS", members=hetero_members, steps=[
                  {"expect": {"partitions_assigned": 8}},
                  {"add_topics": _topics(topic4=1),
                   "members": [_member("A", ["topic1", "topic2", "topic3"], {"topic1": [0, 1, 2], "topic2": [0, 2]}),
                               _member("B", ["topic3", "topic4"], {"topic3": [0, 1]})],
                   "expect": {"partitions_assigned": 9}}]),
        _incremental("testIncrementalAssignmentIncreasingMembersHeterogeneous", _topics(topic1=12, topic2=8, topic3=4),
                     [["topic1", "topic2", "topic3"], ["topic2"], ["topic3"], ["topic1", "topic2"]],
                     "HETEROGENEOUS", True, True),
        _incremental("testIncrementalAssignmentDecreasingMembersHeterogeneous", _topics(topic1=12, topic2=8, topic3=4),
                     [["topic1", "topic2", "topic3"], ["topic2"], ["topic3"], ["topic1", "topic2"]],
                     "HETEROGENEOUS", False, False),
    ]


def write_files(directory: Path, seed: int = SEED, count: int = SIMPLE_COUNT) -> List[Path]:
    """Write ``share_simple.jsonl`` (``count`` random scenarios from ``seed``) and ``share_unit.jsonl`` into
    ``directory``, each line ``{"input": ..., "output": null}``; returns the paths."""
    rng = random.Random(seed)
    files = {"share_simple.jsonl": [random_scenario(rng, i) for i in range(count)],
             "share_unit.jsonl": unit_scenarios()}
    paths = []
    for name, scenarios in files.items():
        path = Path(directory) / name
        path.write_text("".join(json.dumps({"input": s, "output": None}, separators=(",", ":")) + "\n"
                                for s in scenarios), encoding="utf-8")
        paths.append(path)
    return paths


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m rebalance.share.scenarios DIR``: write the two input files (outputs null)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m rebalance.share.scenarios DIR", file=sys.stderr)
        return 2
    for path in write_files(Path(args[0])):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
