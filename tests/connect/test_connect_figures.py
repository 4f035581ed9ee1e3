"""Chapter 11's sequence diagram and derived-sets diagram agree with the computed rounds they draw."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

from rebalance.connect.examples import derived_sets_example, pretty, three_workers_example  # noqa: E402
from rebalance.viz.connect import derived_sets_figure, round_messages, sequence_figure  # noqa: E402


def test_derived_sets_example_fills_all_four_sets():
    derived, result, reported = derived_sets_example()
    sets = {k: list(v.connectors) + list(v.tasks) for k, v in derived.items()}
    assert sets["deleted"] == ["ct3", ("ct3", 0)]
    assert sets["created"] == ["ct4", ("ct4", 0)]
    assert sets["lost"] == ["ct2", ("ct1", 1)]
    assert sets["duplicated"] == [("ct1", 0)]
    # every copy of the duplicated task is revoked, deleted work is stopped, lost work waits for the delay
    revoked = {w: r.revoked_connectors + r.revoked_tasks for w, r in result.workers.items()}
    assert all(("ct1", 0) in revoked[w] for w in reported if ("ct1", 0) in reported[w][1])
    assert result.delay > 0
    started = [x for r in result.workers.values() for x in r.assigned_connectors + r.assigned_tasks]
    assert sorted(map(str, started)) == sorted(map(str, ["ct4", ("ct4", 0)]))
    fig = derived_sets_figure(derived, reported)
    assert fig.axes


def test_sequence_messages_follow_the_rounds():
    rounds = three_workers_example("incremental")
    msgs = round_messages(rounds, pretty, "c3 joins")
    assert len(msgs) == sum(2 * len(r.members_in) + 1 + len(r.workers) for r in rounds)
    assert msgs[0]["note"] == "c3 joins" and msgs[0]["label"] == "JoinGroup(runs ct1, t1, t2)"
    responses = [m["label"] for m in msgs if str(m["label"]).startswith("SyncGroupResponse")]
    assert responses.count("SyncGroupResponse(-t1)") == 1 and responses.count("SyncGroupResponse(+t1)") == 1
    fig = sequence_figure(rounds, pretty, "c3 joins")
    assert sum(1 for t in fig.axes[0].texts if t.get_text().startswith("round ")) == len(rounds)
