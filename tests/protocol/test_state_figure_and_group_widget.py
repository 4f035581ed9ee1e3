"""Chapter 1's state-machine figure (drawn from the simulator's ClassicGroupState table) and its
coordinator / timeline widget with the static twin."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from rebalance.errors import InputError  # noqa: E402
from rebalance.protocol.coordinator import partition_for  # noqa: E402
from rebalance.protocol.group import (COMPLETING_REBALANCE, DEAD, EMPTY, PREPARING_REBALANCE, STABLE,  # noqa: E402
                                      state_transitions)
from rebalance.viz.group_state import (state_machine_figure, state_tour_example, transition_counts,  # noqa: E402
                                       transition_rows)
from rebalance.widgets.coordinator import (GroupSettings, group_timeline, group_timeline_view,  # noqa: E402
                                           group_timeline_widget, milestone_table, milestones, settings_variants)


def test_state_table_is_kafkas():
    pairs = set(state_transitions())
    assert {(EMPTY, PREPARING_REBALANCE), (PREPARING_REBALANCE, COMPLETING_REBALANCE),
            (COMPLETING_REBALANCE, STABLE), (STABLE, PREPARING_REBALANCE), (COMPLETING_REBALANCE, PREPARING_REBALANCE),
            (PREPARING_REBALANCE, EMPTY)} <= pairs
    assert (EMPTY, STABLE) not in pairs and (STABLE, COMPLETING_REBALANCE) not in pairs
    assert {prev for prev, new in pairs if new == DEAD} == {EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD}


def test_every_transition_of_a_run_is_in_the_table_and_counted_on_the_figure():
    sim = state_tour_example()
    counts = transition_counts(sim)
    table = set(state_transitions())
    assert all(pair in table for pair in counts if pair[0] != "(loaded)")
    assert counts[(STABLE, DEAD)] == 1 and counts[(PREPARING_REBALANCE, EMPTY)] == 1
    # the group forms, rebalances after c2's session expires, and is loaded Stable after the failover; c3
    # hears of c1's LeaveGroup only at its next heartbeat and leaves (71 s) before it rejoins, so the last
    # round ends Empty, not Stable
    assert counts[(COMPLETING_REBALANCE, STABLE)] == 2
    rows = transition_rows(sim)
    assert [r["reason"] for r in rows if r["to"] == PREPARING_REBALANCE][:2] == ["adding member c1-1", "removing member c2-2"]
    fig = state_machine_figure(sim)
    labels = [t.get_text() for t in fig.axes[0].texts]
    assert {EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD} <= set(labels)
    # one labelled arrow per table entry except Dead -> Dead, each with the run's count
    assert sorted(l for l in labels if l.endswith("×")) == sorted(
        f"{counts.get(p, 0)}×" for p in state_transitions() if p[0] != p[1])


def test_timeline_follows_the_settings():
    base = GroupSettings()
    sim = group_timeline(base)
    assert sim.offsets_partition == partition_for("orders-service", 50)
    m = milestones(sim)
    assert m["c2 crashes"] == base.crash_at_ms
    assert m["c2 crashes"] < m["c2's session expires"] <= m["c2's partitions reassigned"]
    # the session is counted from the last heartbeat: expiry within one heartbeat interval of crash + session
    assert base.crash_at_ms + base.session_timeout_ms - base.heartbeat_interval_ms <= m["c2's session expires"] \
        <= base.crash_at_ms + base.session_timeout_ms + base.heartbeat_interval_ms
    table = milestone_table(settings_variants())
    assert table.loc["defaults", "rebalances before the crash"] == 1
    assert table.loc["no initial delay", "rebalances before the crash"] > 1
    assert table.loc["session 10 s", "c2's session expires (s)"] < table.loc["defaults", "c2's session expires (s)"]
    assert len(set(table["__consumer_offsets partition"])) == 1


def test_view_widget_and_bad_settings():
    table, fig = group_timeline_view()
    assert list(table.index) == ["run"] and fig.axes
    widget = group_timeline_widget()
    html = widget.children[2]
    assert "coordinator broker" in html.value
    widget.children[0].children[1].value = 7      # offsets.topic.num.partitions
    assert f"<td>{partition_for('orders-service', 7)}</td>" in html.value
    widget.children[1].children[1].value = 10     # heartbeat 10 s ...
    widget.children[1].children[2].value = 6      # ... not below a 6 s session: refused, named
    assert "refused" in html.value and "heartbeat_interval_ms" in html.value
    with pytest.raises(InputError, match="members"):
        group_timeline(GroupSettings(members=1))
