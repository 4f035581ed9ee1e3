"""Properties of the ported assignors over random cluster histories (hypothesis)."""
from hypothesis import HealthCheck, given, settings, strategies as st

from rebalance.connect.cluster import ConnectCluster
from rebalance.connect.eager import eager_assignment

WORKERS = [f"w{i}" for i in range(1, 7)]
CONNECTORS = [f"conn-{c}" for c in "abcdefg"]

event = st.one_of(
    st.tuples(st.just("add"), st.sampled_from(CONNECTORS), st.integers(0, 7)),
    st.tuples(st.just("remove"), st.sampled_from(CONNECTORS), st.just(0)),
    st.tuples(st.just("join"), st.sampled_from(WORKERS), st.just(0)),
    st.tuples(st.just("leave"), st.sampled_from(WORKERS), st.just(0)),
    st.tuples(st.just("sleep"), st.just(""), st.integers(0, 400_000)),
    st.tuples(st.just("failed"), st.just(""), st.just(0)),
)


def _check_round(before, result):
    """Cooperative safety: nothing newly assigned is already running, and no task runs twice."""
    running_c = {c for c, _ in before.values() for c in c}
    running_t = {t for _, ts in before.values() for t in ts}
    revoked_c = {c for w in result.workers.values() for c in w.revoked_connectors}
    revoked_t = {t for w in result.workers.values() for t in w.revoked_tasks}
    for w in result.workers.values():
        assert not set(w.assigned_connectors) & (running_c - revoked_c)
        assert not set(w.assigned_tasks) & (running_t - revoked_t)


def _disjoint(running):
    tasks = [t for _, ts in running.values() for t in ts]
    conns = [c for cs, _ in running.values() for c in cs]
    assert len(tasks) == len(set(tasks)) and len(conns) == len(set(conns))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=st.lists(event, min_size=1, max_size=20), max_delay=st.sampled_from([0, 1, 10_000, 300_000]),
       mode=st.sampled_from(["direct", "protocol"]))
def test_incremental_settles_complete_balanced_and_never_runs_a_task_twice(events, max_delay, mode):
    cluster = ConnectCluster(mode=mode, max_delay_ms=max_delay)
    members = ["w1"]
    for kind, name, number in events:
        if kind == "add":
            cluster.connectors[name] = number
        elif kind == "remove":
            cluster.connectors.pop(name, None)
        elif kind == "join" and name not in members:
            members.append(name)
        elif kind == "leave" and name in members and len(members) > 1:
            members.remove(name)
        elif kind == "sleep":
            cluster.time.sleep(number)
        before = cluster.carried_members(members)
        if kind == "failed":  # the assignment never reaches the workers; the next round is a normal one
            cluster.rebalance(before, failed=True)
            before = cluster.carried_members(members)
        result = cluster.rebalance(before)
        _check_round(before, result)
        _disjoint(cluster.running)
        last = result
        for _ in range(30):
            reason = cluster.needs_follow_up(last)
            if reason is None:
                break
            if reason == "scheduled_delay":
                cluster.time.sleep(cluster.delay)
            before = cluster.carried_members(members)
            last = cluster.rebalance(before)
            _check_round(before, last)
            _disjoint(cluster.running)
        assert cluster.needs_follow_up(last) is None, "did not settle"
        # settled: every configured connector and task runs exactly once ...
        running_c = sorted(c for cs, _ in cluster.running.values() for c in cs)
        running_t = sorted(t for _, ts in cluster.running.values() for t in ts)
        assert running_c == sorted(cluster.connectors)
        assert running_t == sorted((c, i) for c, n in cluster.connectors.items() for i in range(n))
        # ... and the load is balanced within one, for connectors and for tasks separately
        nc = [len(c) for c, _ in cluster.running.values()]
        nt = [len(t) for _, t in cluster.running.values()]
        assert max(nc) - min(nc) <= 1 and max(nt) - min(nt) <= 1
        # ... with no delay pending, and the leader's memory equal to what runs
        assert cluster.delay == 0
        prev = cluster.assignor.previous_assignment
        assert sorted(prev.connectors) == running_c and sorted(prev.tasks) == running_t


@settings(max_examples=100, deadline=None)
@given(connectors=st.dictionaries(st.sampled_from(CONNECTORS), st.integers(0, 9)),
       workers=st.lists(st.sampled_from(WORKERS), min_size=1, unique=True))
def test_eager_assigns_everything_once_and_deals_evenly(connectors, workers):
    a = eager_assignment(connectors, workers)
    assert sorted(c for cs, _ in a.values() for c in cs) == sorted(connectors)
    assert sorted(t for _, ts in a.values() for t in ts) == sorted((c, i) for c, n in connectors.items() for i in range(n))
    sizes = [len(c) + len(t) for c, t in a.values()]
    assert max(sizes) - min(sizes) <= 1


timed_event = st.one_of(
    st.tuples(st.just("join"), st.sampled_from(WORKERS), st.integers(0, 200_000)),
    st.tuples(st.just("leave"), st.sampled_from(WORKERS), st.integers(0, 200_000)),
    st.tuples(st.just("add"), st.sampled_from(CONNECTORS), st.integers(0, 200_000)),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=st.lists(timed_event, min_size=1, max_size=12), max_delay=st.sampled_from([1, 10_000, 300_000]))
def test_herder_clock_never_sleeps_past_a_scheduled_rebalance(events, max_delay):
    # workers come and go at random moments, without waiting for the delays to run out; between two
    # events the herders' clocks run (ConnectCluster.advance): every scheduled rebalance fires on time
    # (DistributedHerder at commit 1eb7644, lines 1818-1825), so work that nobody runs waits at most the delay
    cluster = ConnectCluster(max_delay_ms=max_delay, connectors={"conn-a": 3})
    members = ["w1", "w2"]
    idle_since = {}

    def observe(r):
        _check_round(r.members_in, r)
        _disjoint(cluster.running)
        running = {t for _, ts in cluster.running.values() for t in ts}
        configured = [(c, i) for c, n in cluster.connectors.items() for i in range(n)]
        for t in set(idle_since) - set(configured):   # deleted from the config: nobody should run it
            del idle_since[t]
        for t in configured:
            if t in running:
                idle_since.pop(t, None)
            else:
                idle_since.setdefault(t, r.time_ms)
                assert r.time_ms - idle_since[t] <= max_delay, f"{t} waited {r.time_ms - idle_since[t]} ms"

    last = cluster.rebalance(cluster.carried_members(members))
    observe(last)
    for kind, name, gap in events:
        for r in cluster.advance(gap, after=last):
            observe(r)
            last = r
        assert cluster.scheduled_rebalance is None or cluster.scheduled_rebalance > cluster.time.milliseconds()
        if kind == "join" and name not in members:
            members.append(name)
        elif kind == "leave" and name in members and len(members) > 1:
            members.remove(name)
        elif kind == "add":
            cluster.connectors[name] = 2
        last = cluster.rebalance(cluster.carried_members(members))
        observe(last)
    for r in cluster.settle(last):
        observe(r)
    assert not idle_since   # settled: everything runs
