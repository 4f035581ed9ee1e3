"""Properties of the ported HighAvailabilityTaskAssignor over random groups (hypothesis), and of the Java
emulations it rests on (signed UUID order, TaskId hash, PriorityQueue)."""
import heapq
import json
import random
import uuid

from hypothesis import given, settings
from hypothesis import strategies as st

from rebalance.streams import (AssignmentConfigs, ClientState, HighAvailabilityTaskAssignor, JavaPriorityQueue,
                               ProcessId, TaskId)
from rebalance.streams.client.scenarios import _one_random
from rebalance.streams.client.vectors import parse, run
from rebalance.vectors import run_input

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True, database=None)
LONG_MAX = 2**63 - 1


@st.composite
def groups(draw):
    """A group: 0-6 clients (capacity 1-4), 0-12 tasks over 3 subtopologies, any subset stateful, lags from
    LATEST_OFFSET (-2) to Long.MAX_VALUE, any of the configs' ranges, sometimes client tags."""
    tasks = sorted(draw(st.sets(st.tuples(st.integers(0, 2), st.integers(0, 4)), max_size=12)))
    names = [f"{s}_{p}" for s, p in tasks]
    stateful = [t for t in names if draw(st.booleans())]
    ids = draw(st.lists(st.uuids(), max_size=6, unique=True))
    lag = st.one_of(st.sampled_from([-2, -3, 0, LONG_MAX]), st.integers(0, 5000))
    tags = draw(st.sampled_from([[], ["zone"], ["zone", "rack"]]))
    clients = []
    for pid in ids:
        client = {"process_id": str(pid), "capacity": draw(st.integers(1, 4)),
                  "lags": {t: draw(lag) for t in stateful}}
        if tags:
            client["tags"] = {k: draw(st.sampled_from(["a", "b", "c"])) for k in tags}
        clients.append(client)
    configs = {"acceptable_recovery_lag": draw(st.sampled_from([0, 10, 100, 10_000, LONG_MAX])),
               "max_warmup_replicas": draw(st.integers(1, 3)),
               "num_standby_replicas": draw(st.integers(0, 2)),
               "rack_aware_assignment_tags": tags}
    return {"kind": "streams", "configs": configs, "tasks": names, "stateful_tasks": stateful, "clients": clients}


def _assign(scenario):
    parsed = parse(scenario)
    result = HighAvailabilityTaskAssignor().assign_detailed(parsed.clients, parsed.all_tasks, parsed.stateful_tasks,
                                                            parsed.configs)
    return result, parsed.all_tasks | parsed.stateful_tasks, parsed.configs


@SETTINGS
@given(groups())
def test_every_task_has_exactly_one_active_when_clients_exist(scenario):
    if not scenario["clients"]:
        return
    result, tasks, _ = _assign(scenario)
    owners = {}
    for pid, state in result.clients.items():
        for task in state.active_tasks():
            assert task not in owners, f"{task} active on {owners[task]} and {pid}"
            owners[task] = pid
    assert set(owners) == tasks


@SETTINGS
@given(groups())
def test_standbys_and_warmups_never_share_a_client_with_the_active(scenario):
    if not scenario["clients"]:
        return
    result, _, _ = _assign(scenario)
    for pid, state in result.clients.items():
        assert not set(state.active_tasks()) & set(state.standby_tasks())
        assert not set(state.active_tasks()) & result.warmups.get(pid, set())
        assert result.warmups.get(pid, set()) <= set(state.standby_tasks())


@SETTINGS
@given(groups())
def test_warmups_within_max_warmup_replicas_and_standbys_only_for_stateful_tasks(scenario):
    if not scenario["clients"]:
        return
    result, _, configs = _assign(scenario)
    assert result.warmup_count() <= configs.max_warmup_replicas
    stateful = {TaskId.parse(t, "t") for t in scenario["stateful_tasks"]}
    copies = {}
    for state in result.clients.values():
        assert set(state.standby_tasks()) <= stateful
        for task in state.standby_tasks():
            copies[task] = copies.get(task, 0) + 1
    # each task: at most num.standby.replicas standbys, plus the warm-ups of that task
    warm = {}
    for tasks in result.warmups.values():
        for task in tasks:
            warm[task] = warm.get(task, 0) + 1
    for task, n in copies.items():
        assert n <= max(configs.num_standby_replicas, 0) + warm.get(task, 0)
    # no movement needed: no warm-up was handed out
    if not result.probing_rebalance_needed:
        assert result.warmup_count() == 0


@SETTINGS
@given(groups(), st.randoms(use_true_random=False))
def test_deterministic_and_independent_of_input_order(scenario, rnd):
    first = run_input(json.loads(json.dumps(scenario)))  # Kafka's exceptions (no clients) as {"error"}
    shuffled = json.loads(json.dumps(scenario))
    rnd.shuffle(shuffled["clients"])
    rnd.shuffle(shuffled["tasks"])
    rnd.shuffle(shuffled["stateful_tasks"])
    for client in shuffled["clients"]:
        items = list(client["lags"].items())
        rnd.shuffle(items)
        client["lags"] = dict(items)
    assert run_input(shuffled) == first
    assert run_input(json.loads(json.dumps(scenario))) == first


@SETTINGS
@given(st.integers(0, 2**32))
def test_generated_scenarios_are_valid_and_stable(seed):
    """The vectors' own generator: any seed gives a line the adapter runs, clients capacity 1-3, 1-6 of them."""
    scenario = _one_random(random.Random(seed), 0)
    assert 1 <= len(scenario["clients"]) <= 6
    assert all(1 <= c["capacity"] <= 3 for c in scenario["clients"])
    out = run(scenario)
    assert [c["process_id"] for c in out["clients"]] == [
        str(p) for p in sorted(ProcessId(uuid.UUID(c["process_id"])) for c in scenario["clients"])]


# -- the Java emulations --------------------------------------------------------------------------

def test_process_ids_order_as_signed_longs():
    low = ProcessId(uuid.UUID("00000000-0000-0000-0000-000000000001"))
    high = ProcessId(uuid.UUID("80000000-0000-0000-0000-000000000000"))
    mid = ProcessId(uuid.UUID("00000000-0000-0000-8000-000000000000"))  # negative least significant long
    assert sorted([low, high, mid]) == [high, mid, low]
    assert high.compare_to(low) == -1 and low.compare_to(low) == 0
    # UUID.hashCode: (int) (hilo >> 32) ^ (int) hilo, hilo = msb ^ lsb
    assert ProcessId(uuid.UUID(int=1)).java_hash_code() == 1
    assert ProcessId(uuid.UUID(int=(1 << 64) | 1)).java_hash_code() == 0
    assert high.java_hash_code() == -(2**31)


def test_task_id_order_hash_and_text():
    assert sorted([TaskId(1, 0), TaskId(0, 10), TaskId(0, 2)]) == [TaskId(0, 2), TaskId(0, 10), TaskId(1, 0)]
    assert TaskId(0, 0).java_hash_code() == 29791  # Objects.hash(0, 0, null)
    assert TaskId(1, 2).java_hash_code() == 31 * (31 * (31 + 1) + 2)
    assert str(TaskId.parse("3_14", "t")) == "3_14"


@SETTINGS
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 50))))
def test_java_priority_queue_with_a_fixed_order_polls_like_a_heap(ops):
    """With keys that do not change, the emulated PriorityQueue polls in priority order (as heapq does); the
    exact array matters only when the keys change while queued, which the vectors check against Kafka."""
    queue = JavaPriorityQueue(lambda a, b: (a > b) - (a < b))
    heap = []
    for is_poll, value in ops:
        if is_poll:
            assert queue.poll() == (heapq.heappop(heap) if heap else None)
        else:
            queue.offer(value)
            heapq.heappush(heap, value)
    assert [queue.poll() for _ in range(len(heap))] == sorted(heap)


def test_java_priority_queue_removes_by_equality_from_array_order():
    queue = JavaPriorityQueue(lambda a, b: (a > b) - (a < b))
    for v in [5, 3, 8, 1, 9, 2]:
        queue.offer(v)
    assert queue._queue == [1, 3, 2, 5, 9, 8]  # java.util.PriorityQueue's array after these offers
    assert queue.remove(3) and not queue.remove(3)
    assert queue._queue == [1, 5, 2, 8, 9]
    assert [queue.poll() for _ in range(5)] == [1, 2, 5, 8, 9]


def test_client_state_refuses_a_second_copy():
    state = ClientState([], [], {}, {}, 1, ProcessId(uuid.UUID(int=1)))
    state.assign_active(TaskId(0, 0))
    try:
        state.assign_standby(TaskId(0, 0))
    except Exception as exc:  # Kafka's IllegalArgumentException
        assert "already assigned" in str(exc)
    else:
        raise AssertionError("a task assigned twice to one client")
    assert AssignmentConfigs().max_warmup_replicas == 2
