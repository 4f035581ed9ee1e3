"""The inputs of the ``streams`` vectors, written by a seeded generator (``python -m rebalance.streams.client.scenarios
[DIR]``; the outputs are then filled by Kafka: ``python -m rebalance.kafka.oracle rewrite``).

* ``streams_high_availability.jsonl`` -- :func:`random_scenarios`: 1-6 clients of capacity 1-3 with random UUID
  process ids (half of them with the top bit set, so that ``UUID.compareTo``'s signed order shows), 1-3
  subtopologies of 1-4 partitions, stateful and stateless; a previous assignment (active owners running the task,
  lag ``Task.LATEST_OFFSET`` or 0; standbys with small or large lags), clients that join (no state: lag
  ``Long.MAX_VALUE``) and previous owners that left; ``acceptable.recovery.lag`` from 0 to ``Long.MAX_VALUE``,
  ``max.warmup.replicas`` 1-3, ``num.standby.replicas`` 0-2, sometimes KIP-708 client tags; a few lines whose
  answer is Kafka's exception (a client without a lag for a stateful task, an invalid config, stateful tasks and
  no client); and 16 groups of 5-6 clients with 2 standbys whose answer depends on ``java.util.PriorityQueue``'s
  array (:func:`queue_order_scenarios`: a plain priority list would answer them differently); and 24 groups whose
  clients report task offset sums instead of lags (:func:`offset_sum_scenarios`);
* ``streams_high_availability_unit.jsonl`` -- :data:`UNIT_SCENARIOS`: the scenarios of Kafka 4.3.1's
  ``HighAvailabilityTaskAssignorTest`` (rack-aware strategy ``none``; the random-input and the min-traffic tests
  left out), their facts only (clients, capacities, previous tasks, lags, configs) with, in ``expect``, what the
  test asserts that an output can be checked against (``tests/streams/test_vectors_streams.py`` checks them).
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from ...errors import KafkaError

__all__ = ["depends_on_queue_array", "offset_sum_scenarios", "queue_order_scenarios", "random_scenarios",
           "unit_scenarios", "write",
           "UNIT_SCENARIOS", "SEED"]

SEED = 441
LONG_MAX = 2**63 - 1
LATEST_OFFSET = -2
UNKNOWN_OFFSET_SUM = -3


def pid(n: int) -> str:
    """``AssignmentTestUtils.processIdForInt(n)``: ``new UUID(0, n)``."""
    return f"00000000-0000-0000-0000-{n:012x}"


def _random_uuid(rng: random.Random) -> str:
    value = rng.getrandbits(128)
    if rng.random() < 0.5:
        value |= 1 << 127  # a negative most significant long
    else:
        value &= ~(1 << 127)
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _one_random(rng: random.Random, index: int, clients_count: Optional[int] = None,
                standbys: Optional[int] = None, prefix: str = "streams_high_availability") -> Dict[str, Any]:
    subtopologies = rng.randint(1, 3)
    tasks: List[str] = []
    stateful: List[str] = []
    for s in range(subtopologies):
        partitions = rng.randint(1, 4)
        kind = rng.choice(["stateful", "stateful", "stateless", "mixed"])
        for p in range(partitions):
            task = f"{s}_{p}"
            tasks.append(task)
            if kind == "stateful" or (kind == "mixed" and rng.random() < 0.5):
                stateful.append(task)
    lag_choice = rng.choice([0, 100, 100, 1000, 10_000, LONG_MAX])
    configs: Dict[str, Any] = {
        "acceptable_recovery_lag": lag_choice,
        "max_warmup_replicas": rng.randint(1, 3),
        "num_standby_replicas": rng.choice([0, 0, 1, 1, 2]),
        "probing_rebalance_interval_ms": rng.choice([60_000, 600_000]),
    }
    if standbys is not None:
        configs["num_standby_replicas"] = standbys
    n_clients = rng.randint(1, 6)
    if clients_count is not None:
        n_clients = clients_count
    leaving = 1 if rng.random() < 0.3 else 0   # a previous owner that is gone
    joining = rng.randint(0, min(2, n_clients - 1)) if n_clients > 1 else 0  # new clients: no state
    ids = [_random_uuid(rng) if rng.random() < 0.7 else pid(rng.randint(1, 4095)) for _ in range(n_clients + leaving)]
    while len(set(ids)) < len(ids):
        ids = [_random_uuid(rng) for _ in ids]
    # indices into ids of the clients that were there before: the staying ones and the one that left
    old_members = list(range(n_clients - joining)) + list(range(n_clients, n_clients + leaving))
    prev_active: Dict[int, List[str]] = {i: [] for i in range(len(ids))}
    prev_standby: Dict[int, List[str]] = {i: [] for i in range(len(ids))}
    for task in tasks:
        if old_members and rng.random() < 0.85:
            owner = rng.choice(old_members)
            prev_active[owner].append(task)
            if task in stateful:
                for other in old_members:
                    if other != owner and rng.random() < 0.35:
                        prev_standby[other].append(task)
    lags: Dict[int, Dict[str, int]] = {i: {} for i in range(len(ids))}
    small = lag_choice if lag_choice not in (0, LONG_MAX) else 100
    for i in range(len(ids)):
        for task in stateful:
            if task in prev_active[i]:
                lag = rng.choice([LATEST_OFFSET, LATEST_OFFSET, 0, rng.randint(0, small)])
            elif task in prev_standby[i]:
                lag = rng.choice([0, rng.randint(0, small), rng.randint(small, 4 * small + 1), rng.randint(1, 50)])
            elif i in old_members and rng.random() < 0.3:
                lag = rng.choice([rng.randint(0, 8 * small), UNKNOWN_OFFSET_SUM if rng.random() < 0.2 else 5 * small])
            else:
                lag = LONG_MAX if rng.random() < 0.8 else rng.randint(small, 100 * small)
            lags[i][task] = lag
    tagged = configs["num_standby_replicas"] > 0 and rng.random() < 0.35
    if tagged:
        keys = rng.choice([["zone"], ["zone", "cluster"]])
        configs["rack_aware_assignment_tags"] = keys
    clients = []
    for i in range(len(ids)):
        if i >= n_clients:  # the previous owner that left (the last indices are never new)
            continue
        client: Dict[str, Any] = {"process_id": ids[i], "capacity": rng.randint(1, 3)}
        if prev_active[i]:
            client["prev_active"] = prev_active[i]
        if prev_standby[i]:
            client["prev_standby"] = prev_standby[i]
        if lags[i]:
            client["lags"] = lags[i]
        if tagged:
            client["tags"] = {"zone": rng.choice(["z1", "z2", "z3"]), "cluster": rng.choice(["k1", "k2"])}
            if rng.random() < 0.15:
                client["tags"]["host"] = f"h{rng.randint(1, 3)}"  # a tag that is not configured: ignored
        clients.append(client)
    rng.shuffle(clients)  # input order must not matter: Kafka sorts the clients (TreeMap)
    scenario: Dict[str, Any] = {"id": f"{prefix}-{index:04d}", "kind": "streams",
                                "configs": configs, "tasks": tasks, "stateful_tasks": stateful, "clients": clients}
    return scenario


def _error_scenarios(rng: random.Random, start: int) -> List[Dict[str, Any]]:
    """Lines whose answer is Kafka's exception."""
    out = []
    base = _one_random(rng, start)
    while not base["stateful_tasks"] or not base["clients"]:
        base = _one_random(rng, start)
    missing = json.loads(json.dumps(base))
    victim = missing["clients"][0]
    victim.setdefault("lags", {}).pop(base["stateful_tasks"][0], None)
    missing["id"] = f"streams_high_availability-{start:04d}"
    out.append(missing)  # IllegalStateException: Tried to lookup lag for unknown task
    for j, (key, value) in enumerate([("acceptable_recovery_lag", -1), ("max_warmup_replicas", 0),
                                      ("probing_rebalance_interval_ms", 59_999),
                                      ("rack_aware_assignment_tags", ["a", "b", "c", "d", "e", "f"])]):
        bad = json.loads(json.dumps(base))
        bad["configs"][key] = value
        bad["id"] = f"streams_high_availability-{start + 1 + j:04d}"
        out.append(bad)  # ConfigException
    out.append({"id": f"streams_high_availability-{start + 5:04d}", "kind": "streams", "tasks": ["0_0"],
                "stateful_tasks": ["0_0"], "clients": []})  # NoSuchElementException
    out.append({"id": f"streams_high_availability-{start + 6:04d}", "kind": "streams", "tasks": ["0_0"],
                "stateful_tasks": [], "clients": []})  # NullPointerException
    out.append({"id": f"streams_high_availability-{start + 7:04d}", "kind": "streams", "tasks": [],
                "stateful_tasks": [], "clients": []})  # nothing to do
    return out


def depends_on_queue_array(scenario: Dict[str, Any]) -> bool:
    """Whether the port answers ``scenario`` differently when its priority queues poll as plain priority lists
    (``JavaPriorityQueue.naive``): a group whose answer depends on ``java.util.PriorityQueue``'s array -- ties
    between standby movements of one task, or a client queued before its load changed."""
    from .vectors import run
    from ..priority_queue import JavaPriorityQueue

    exact = run(json.loads(json.dumps(scenario)))
    JavaPriorityQueue.naive = True
    try:
        naive = run(json.loads(json.dumps(scenario)))
    finally:
        JavaPriorityQueue.naive = False
    return naive != exact


def queue_order_scenarios(count: int = 16, seed: int = SEED + 1, attempts: int = 20_000) -> List[Dict[str, Any]]:
    """``count`` groups of 5-6 clients with 2 standby replicas each whose answer depends on the queue's array
    (:func:`depends_on_queue_array`), the first ones of a seeded stream of candidates."""
    rng = random.Random(seed)
    found: List[Dict[str, Any]] = []
    for _ in range(attempts):
        candidate = _one_random(rng, len(found), clients_count=rng.randint(5, 6), standbys=2,
                                prefix="streams_high_availability-queue")
        try:
            if depends_on_queue_array(candidate):
                found.append(candidate)
        except KafkaError:  # a candidate Kafka answers with an exception: not one of these
            continue
        if len(found) == count:
            break
    return found


def offset_sum_scenarios(count: int = 24, seed: int = SEED + 2) -> List[Dict[str, Any]]:
    """``count`` groups whose clients report task offset sums, as a member's subscription does, instead of lags:
    ``end_offset_sums`` per stateful task (the changelogs' end offsets summed) and, per client, the offset sums of
    the tasks it has state for -- ``Task.LATEST_OFFSET`` (-2) for a task it runs, an offset behind the end for a
    standby's state, now and then one past the end (a corrupted store) or ``UNKNOWN_OFFSET_SUM`` (-3); no entry for
    a task without state.  Kafka derives the lags and the previous tasks (``ClientState.computeTaskLags``)."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        scenario = _one_random(rng, i, prefix="streams_high_availability-offsets")
        ends = {t: rng.randint(0, 50_000) for t in scenario["stateful_tasks"]}
        scenario["end_offset_sums"] = ends
        for client in scenario["clients"]:
            lags = client.pop("lags", {})
            client.pop("prev_active", None)
            client.pop("prev_standby", None)
            sums = {}
            for task, lag in lags.items():
                if lag in (LATEST_OFFSET, UNKNOWN_OFFSET_SUM):
                    sums[task] = lag
                elif lag == LONG_MAX or lag > ends[task]:
                    if rng.random() < 0.1:
                        sums[task] = ends[task] + rng.randint(1, 1000)  # past the end: corrupted
                else:
                    sums[task] = ends[task] - lag
            client["offset_sums"] = sums
        # the id after the group's other fields, the end offset sums before the clients (readability)
        scenario = {k: scenario[k] for k in ("id", "kind", "configs", "tasks", "stateful_tasks", "end_offset_sums",
                                             "clients")}
        out.append(scenario)
    return out


def random_scenarios(count: int = 160, seed: int = SEED) -> List[Dict[str, Any]]:
    """``count`` random scenarios, the error lines after them, then :func:`queue_order_scenarios` and
    :func:`offset_sum_scenarios`."""
    rng = random.Random(seed)
    scenarios = [_one_random(rng, i) for i in range(count)]
    return scenarios + _error_scenarios(rng, count) + queue_order_scenarios() + offset_sum_scenarios()


# ---------------------------------------------------------------------------------------------
# HighAvailabilityTaskAssignorTest (Kafka 4.3.1), strategy "none"

TEST = "HighAvailabilityTaskAssignorTest"
NINE = ["0_0", "0_1", "0_2", "1_0", "1_1", "1_2", "2_0", "2_1", "2_2"]
FOUR = ["0_0", "0_1", "0_2", "0_3"]
SEVEN = ["0_0", "0_1", "0_2", "0_3", "1_0", "1_1", "1_2"]
#: getConfigWithoutStandbys / getConfigWithStandbys
WITHOUT = {"acceptable_recovery_lag": 100, "max_warmup_replicas": 2, "num_standby_replicas": 0,
           "probing_rebalance_interval_ms": 60_000}
WITH = dict(WITHOUT, num_standby_replicas=1)
BALANCE = {"acceptable_recovery_lag": 0, "max_warmup_replicas": 1, "num_standby_replicas": 0,
           "probing_rebalance_interval_ms": 60_000}


def _client(n: int, capacity: int = 1, lags: Optional[Dict[str, int]] = None, prev_active: Sequence[str] = (),
            prev_standby: Sequence[str] = ()) -> Dict[str, Any]:
    c: Dict[str, Any] = {"process_id": pid(n), "capacity": capacity}
    if prev_active:
        c["prev_active"] = list(prev_active)
    if prev_standby:
        c["prev_standby"] = list(prev_standby)
    if lags:
        c["lags"] = lags
    return c


def _same(tasks: Sequence[str], lag: int) -> Dict[str, int]:
    return {t: lag for t in tasks}


def _mock(n: int, caught_up: Sequence[str], stateful: Sequence[str]) -> Dict[str, Any]:
    """``getMockClientWithPreviousCaughtUpTasks``: previous active ``caught_up`` (lag 0), lag ``Long.MAX_VALUE`` on the
    other stateful tasks, capacity 1."""
    return _client(n, 1, {t: 0 if t in caught_up else LONG_MAX for t in stateful}, prev_active=caught_up)


def _unit(name: str, tasks: Sequence[str], stateful: Sequence[str], clients: List[Dict[str, Any]],
          configs: Dict[str, Any], expect: Dict[str, Any]) -> Dict[str, Any]:
    return {"input": {"id": f"{TEST}.{name}", "kind": "streams", "configs": configs, "tasks": list(tasks),
                      "stateful_tasks": list(stateful), "clients": clients},
            "source": f"scenario of Kafka 4.3.1's {TEST}.{name} (rack-aware strategy none)", "expect": expect}


def _even(name: str, tasks: Sequence[str], capacities: Sequence[int], extra: Optional[Dict[str, Any]] = None
          ) -> Dict[str, Any]:
    clients = [_client(i + 1, c, _same(tasks, 10)) for i, c in enumerate(capacities)]
    return _unit(name, tasks, tasks, clients, BALANCE, dict({"probing_rebalance_needed": False}, **(extra or {})))


def _stateless(name: str, capacities: Sequence[int], prev: bool = False) -> Dict[str, Any]:
    clients = [_client(i + 1, c, prev_active=SEVEN if prev and i == 0 else ()) for i, c in enumerate(capacities)]
    return _unit(name, SEVEN, [], clients, BALANCE, {"probing_rebalance_needed": False, "no_standbys": True})


def unit_scenarios() -> List[Dict[str, Any]]:
    """The unit-test lines (``input``, ``source``, ``expect``)."""
    two, nine4 = ["0_0", "0_1"], ["0_0", "0_1", "0_2", "0_3", "1_0", "1_1", "1_2", "1_3", "2_0"]
    warm1, warm2 = "0_1", "1_0"
    return [
        _unit("shouldBeStickyForActiveAndStandbyTasksWhileWarmingUp", NINE, NINE,
              [_client(1, 1, _same(NINE, 0), prev_active=NINE), _client(2, 1, _same(NINE, 10), prev_standby=NINE),
               _client(3, 1, _same(NINE, LONG_MAX))],
              {"acceptable_recovery_lag": 11, "max_warmup_replicas": 2, "num_standby_replicas": 1,
               "probing_rebalance_interval_ms": 60_000},
              {"probing_rebalance_needed": True, "assigned_count": {"1": 9, "2": 9, "3": 2}}),
        _unit("shouldSkipWarmupsWhenAcceptableLagIsMax", NINE, NINE,
              [_client(1, 1, _same(NINE, 0), prev_active=NINE), _client(2, 1, _same(NINE, LONG_MAX)),
               _client(3, 1, _same(NINE, LONG_MAX))],
              {"acceptable_recovery_lag": LONG_MAX, "max_warmup_replicas": 1, "num_standby_replicas": 1,
               "probing_rebalance_interval_ms": 60_000},
              {"probing_rebalance_needed": False, "assigned_count": {"1": 6, "2": 6, "3": 6}}),
        _even("shouldAssignActiveStatefulTasksEvenlyOverClientsWhereNumberOfClientsIntegralDivisorOfNumberOfTasks",
              NINE, [1, 1, 1]),
        _even("shouldAssignActiveStatefulTasksEvenlyOverClientsWhereNumberOfThreadsIntegralDivisorOfNumberOfTasks",
              NINE, [3, 3, 3]),
        _even("shouldAssignActiveStatefulTasksEvenlyOverClientsWhereNumberOfClientsNotIntegralDivisorOfNumberOfTasks",
              NINE, [1, 1]),
        _even("shouldAssignActiveStatefulTasksEvenlyOverUnevenlyDistributedStreamThreads",
              ["0_0", "0_1", "0_2", "1_0", "1_1", "1_2"], [1, 2, 3], {"active_count": {"1": 1, "2": 2, "3": 3}}),
        _even("shouldAssignActiveStatefulTasksEvenlyOverClientsWithMoreClientsThanTasks", two, [1, 1, 1]),
        _even("shouldAssignActiveStatefulTasksEvenlyOverClientsAndStreamThreadsWithEqualStreamThreadsPerClientAsTasks",
              NINE, [9, 9, 9]),
        _unit("shouldAssignWarmUpTasksIfStatefulActiveTasksBalancedOverStreamThreadsButNotOverClients",
              ["0_0", "0_1", "1_0", "1_1"], ["0_0", "0_1", "1_0", "1_1"],
              [_client(1, 5, _same(["0_0", "0_1", "1_0", "1_1"], 0), prev_active=["0_0", "0_1", "1_0", "1_1"]),
               _client(2, 5, _same(["0_0", "0_1", "1_0", "1_1"], LONG_MAX)),
               _client(3, 5, _same(["0_0", "0_1", "1_0", "1_1"], LONG_MAX))],
              dict(BALANCE, max_warmup_replicas=2),
              {"probing_rebalance_needed": True, "min_standby_count": {"2": 1, "3": 1}}),
        _unit("shouldEvenlyAssignActiveStatefulTasksIfClientsAreWarmedUpToBalanceTaskOverClients",
              ["0_0", "0_1", "1_0", "1_1"], ["0_0", "0_1", "1_0", "1_1"],
              [_client(1, 5, _same(["0_0", "0_1", "1_0", "1_1"], 0), prev_active=["0_0", "0_1", "1_0", "1_1"]),
               _client(2, 5, dict(_same(["0_0", "0_1", "1_0", "1_1"], LONG_MAX), **{warm1: 0}), prev_standby=[warm1]),
               _client(3, 5, dict(_same(["0_0", "0_1", "1_0", "1_1"], LONG_MAX), **{warm2: 0}), prev_standby=[warm2])],
              dict(BALANCE, max_warmup_replicas=2), {"probing_rebalance_needed": False}),
        _even("shouldAssignActiveStatefulTasksEvenlyOverStreamThreadsButBestEffortOverClients", NINE, [6, 3],
              {"active_count": {"1": 6, "2": 3}}),
        _unit("shouldComputeNewAssignmentIfThereAreUnassignedActiveTasks", two, ["0_0"],
              [_client(1, 1, {"0_0": 0}, prev_active=["0_0"])], WITHOUT,
              {"probing_rebalance_needed": False, "active_count": {"1": 2}, "standby_count": {"1": 0}}),
        _unit("shouldComputeNewAssignmentIfThereAreUnassignedStandbyTasks", ["0_0"], ["0_0"],
              [_client(1, 1, {"0_0": 0}, prev_active=["0_0"]), _client(2, 1, {"0_0": 0})], WITH,
              {"probing_rebalance_needed": False, "min_standby_count": {"2": 1}}),
        _unit("shouldComputeNewAssignmentIfActiveTasksWasNotOnCaughtUpClient", two, ["0_0"],
              [_client(1, 1, {"0_0": 500}, prev_active=["0_0"]), _client(2, 1, {"0_0": 0}, prev_active=["0_1"])],
              WITHOUT, {"probing_rebalance_needed": True, "active": {"1": ["0_1"], "2": ["0_0"]}}),
        _unit("shouldAssignToMostCaughtUpIfActiveTasksWasNotOnCaughtUpClient", ["0_0"], ["0_0"],
              [_client(1, 1, {"0_0": LONG_MAX}), _client(2, 1, {"0_0": 1000}), _client(3, 1, {"0_0": 500})], WITH,
              {"probing_rebalance_needed": True, "active": {"1": [], "2": [], "3": ["0_0"]},
               "standby": {"1": ["0_0"], "2": ["0_0"], "3": []}}),
        _unit("shouldAssignStandbysForStatefulTasks", two, two, [_mock(1, ["0_0"], two), _mock(2, ["0_1"], two)], WITH,
              {"probing_rebalance_needed": False, "active": {"1": ["0_0"], "2": ["0_1"]},
               "standby": {"1": ["0_1"], "2": ["0_0"]}}),
        _unit("shouldNotAssignStandbysForStatelessTasks", two, [], [_mock(1, [], []), _mock(2, [], [])], WITH,
              {"probing_rebalance_needed": False, "active_count": {"1": 1, "2": 1}, "no_standbys": True}),
        _unit("shouldAssignWarmupReplicasEvenIfNoStandbyReplicasConfigured", two, two,
              [_mock(1, two, two), _mock(2, [], two)], WITHOUT,
              {"probing_rebalance_needed": True, "active": {"1": two, "2": []}, "standby_count": {"1": 0, "2": 1}}),
        _unit("shouldNotAssignMoreThanMaxWarmupReplicas", FOUR, FOUR, [_mock(1, FOUR, FOUR), _mock(2, [], FOUR)],
              dict(WITHOUT, max_warmup_replicas=1),
              {"probing_rebalance_needed": True, "active": {"1": FOUR, "2": []}, "standby_count": {"1": 0, "2": 1}}),
        _unit("shouldNotAssignWarmupAndStandbyToTheSameClient", FOUR, FOUR, [_mock(1, FOUR, FOUR), _mock(2, [], FOUR)],
              dict(WITHOUT, max_warmup_replicas=1, num_standby_replicas=1),
              {"probing_rebalance_needed": True, "active": {"1": FOUR, "2": []}, "standby": {"1": [], "2": FOUR}}),
        _unit("shouldNotAssignAnyStandbysWithInsufficientCapacity", two, two, [_mock(1, two, two)], WITH,
              {"probing_rebalance_needed": False, "active": {"1": two}, "no_standbys": True}),
        _unit("shouldAssignActiveTasksToNotCaughtUpClientIfNoneExist", two, two, [_mock(1, [], two)], WITH,
              {"probing_rebalance_needed": False, "active": {"1": two}, "no_standbys": True}),
        _unit("shouldNotAssignMoreThanMaxWarmupReplicasWithStandbys", FOUR, FOUR,
              [_mock(1, FOUR, FOUR), _mock(2, [], FOUR), _mock(3, [], FOUR)], WITH,
              {"probing_rebalance_needed": True, "max_standby_copies_per_task": 3}),
        _unit("shouldDistributeStatelessTasksToBalanceTotalTaskLoad", SEVEN, FOUR,
              [_mock(1, FOUR, FOUR), _mock(2, [], FOUR)], WITH, {"probing_rebalance_needed": True}),
        _unit("shouldDistributeStatefulActiveTasksToAllClients", nine4, nine4,
              [_client(1, 100, _same(nine4, 0)), _client(2, 50, _same(nine4, 0)), _client(3, 1, _same(nine4, 0))],
              WITHOUT, {"probing_rebalance_needed": False, "min_active_count": {"1": 1, "2": 1, "3": 1}}),
        _unit("shouldReturnFalseIfPreviousAssignmentIsReused", FOUR, FOUR,
              [_mock(1, ["0_0", "0_2"], FOUR), _mock(2, ["0_1", "0_3"], FOUR)], WITHOUT,
              {"probing_rebalance_needed": False, "active": {"1": ["0_0", "0_2"], "2": ["0_1", "0_3"]}}),
        _unit("shouldReturnFalseIfNoWarmupTasksAreAssigned", FOUR, [], [_mock(1, [], []), _mock(2, [], [])], WITHOUT,
              {"probing_rebalance_needed": False, "no_standbys": True}),
        _unit("shouldReturnTrueIfWarmupTasksAreAssigned", two, two, [_mock(1, two, two), _mock(2, [], two)], WITHOUT,
              {"probing_rebalance_needed": True, "standby_count": {"2": 1}}),
        _stateless("shouldDistributeStatelessTasksEvenlyOverClientsWithEqualStreamThreadsPerClientAsTasksAndNoStatefulTasks",
                   [7, 7, 7]),
        _stateless("shouldDistributeStatelessTasksEvenlyOverClientsWithLessStreamThreadsPerClientAsTasksAndNoStatefulTasks",
                   [2, 2, 2]),
        _stateless("shouldDistributeStatelessTasksEvenlyOverClientsWithUnevenlyDistributedStreamThreadsAndNoStatefulTasks",
                   [1, 2, 3]),
        _stateless("shouldDistributeStatelessTasksEvenlyWithPreviousAssignmentAndNoStatefulTasks", [3, 3, 3], prev=True),
    ]


#: the unit-test lines, built once
UNIT_SCENARIOS = unit_scenarios()


def _line(entry: Dict[str, Any], source: str) -> Dict[str, Any]:
    scenario = entry.get("input", entry)
    line: Dict[str, Any] = {"id": scenario["id"], "kind": "streams", "source": entry.get("source", source),
                            "input": scenario}
    if "expect" in entry:
        line["expect"] = entry["expect"]
    return line


def write(directory: Path, existing_outputs: bool = True) -> Dict[str, int]:
    """Write both files' lines (keeping the ``output`` of a line whose input is unchanged); returns line counts."""
    files = {
        "streams_high_availability.jsonl": [
            _line(s, f"random scenario of rebalance.streams.client.scenarios (seed {SEED})") for s in random_scenarios()],
        "streams_high_availability_unit.jsonl": [_line(s, "") for s in UNIT_SCENARIOS],
    }
    counts = {}
    for name, lines in files.items():
        path = directory / name
        old: Dict[str, Any] = {}
        if existing_outputs and path.exists():
            for text in path.read_text(encoding="utf-8").splitlines():
                if text.strip():
                    previous = json.loads(text)
                    old[json.dumps(previous.get("input"), sort_keys=True)] = previous.get("output")
        for line in lines:
            output = old.get(json.dumps(line["input"], sort_keys=True))
            if output is not None:
                line["output"] = output
        path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines), encoding="utf-8")
        counts[name] = len(lines)
    return counts


def main(argv: Optional[List[str]] = None) -> int:
    """``python -m rebalance.streams.client.scenarios [DIR]`` (default: the package's ``kafka-vectors/``)."""
    args = sys.argv[1:] if argv is None else argv
    if args:
        directory = Path(args[0])
    else:
        from ...vectors import vectors_dir

        directory = vectors_dir()
    for name, count in write(directory).items():
        print(f"{directory / name}: {count} lines (outputs: python -m rebalance.kafka.oracle rewrite)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
