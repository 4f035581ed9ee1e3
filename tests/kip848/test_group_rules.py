"""The three rules of the ``group`` harness that change Kafka's answer and that kafka-vectors/README.md states
("Input schema — group", "Output schema — group"), each held by a line of ``group_rules.jsonl``: each test plants
the other reading of its rule and checks that the line then fails."""
import pytest

from rebalance.kip848 import vectors as adapter
from rebalance.vectors import compare_output, run_input
from vector_files import load_vectors

LINES = {line["input"]["id"]: line for line in load_vectors("group_rules.jsonl")}
needs_lines = pytest.mark.skipif(len(LINES) != 4, reason="group_rules.jsonl not found")


def _passes(line):
    return compare_output("group", line["output"], run_input(line["input"])) == []


@needs_lines
def test_kept_revoked_moved_are_counted_member_by_member():
    """Kafka's result gives t7-18 to mbr_000, which had it, and to another member; mbr_000 keeps it (and the revoked
    copy of the other member that had it moved), in whatever order the members of the result come."""
    for name, other in (("group_rules-double-holder", "mbr_002"), ("group_rules-double-holder-result-order", "mbr_001")):
        line = LINES[name]
        step = line["output"]["steps"][0]
        holders = [m for m, topics in step["assignment"].items() if 18 in topics.get("t7", [])]
        assert sorted(holders) == sorted(["mbr_000", other])
        assert {k: step["stats"][k] for k in ("kept", "revoked", "moved")} == {"kept": 8, "revoked": 1, "moved": 1}
        inputs = {m["id"]: m["assignment"] for m in step["input"]["members"]}
        for order in (sorted(step["assignment"]), sorted(step["assignment"], reverse=True)):
            assert adapter.step_stats(inputs, {m: step["assignment"][m] for m in order}) == step["stats"]
        assert _passes(line)


def _last_holder_stats(inputs, result):
    """kept/revoked/moved with one holder per partition: the last member holding it in ``result``'s order."""
    owner = {(t, p): m for m, topics in result.items() for t, parts in topics.items() for p in parts}
    held = [(m, owner.get((t, p))) for m, topics in inputs.items() for t, parts in topics.items() for p in parts]
    kept = sum(now == m for m, now in held)
    counts = {m: sum(len(p) for p in a.values()) for m, a in result.items()}
    return {"partition_counts": counts, "kept": kept, "revoked": len(held) - kept,
            "moved": sum(now not in (None, m) for m, now in held), "assigned_total": sum(counts.values()),
            "min": min(counts.values()), "max": max(counts.values())}


@needs_lines
@pytest.mark.parametrize("order, failing", [
    # the port once took the last holder in its member map's order (a TreeMap in these lines)
    ("tree", ["group_rules-double-holder", "group_rules-double-holder-result-order"]),
    # the oracle took the last holder in the order of Kafka's result map (GroupAssignment.members())
    ("result", ["group_rules-double-holder-result-order"]),
])
def test_a_last_holder_in_a_map_s_order_is_not_the_rule(monkeypatch, order, failing):
    """Either reading counts 7 kept, 2 revoked, 2 moved on the lines it fails (8/1/1 member by member)."""
    def planted(inputs, result):
        members = sorted(result) if order == "tree" else list(result)
        return _last_holder_stats(inputs, {m: result[m] for m in members})

    monkeypatch.setattr(adapter, "step_stats", planted)
    for name in ("group_rules-double-holder", "group_rules-double-holder-result-order"):
        line = LINES[name]
        if order == "result":  # Kafka's result map order is the recorded output's (the port's dict is another)
            step = line["output"]["steps"][0]
            stats = planted({m["id"]: m["assignment"] for m in step["input"]["members"]}, step["assignment"])
            assert ({k: stats[k] for k in ("kept", "revoked", "moved")} != {k: step["stats"][k] for k in (
                "kept", "revoked", "moved")}) == (name in failing)
            continue
        actual = run_input(line["input"])["steps"][0]["stats"]
        assert ({k: actual[k] for k in ("kept", "revoked", "moved")} == {"kept": 7, "revoked": 2, "moved": 2}) \
            == (name in failing)
        assert _passes(line) == (name not in failing)


@needs_lines
def test_a_hash_assignment_set_is_a_presized_copy(monkeypatch):
    """A holds 12 partitions: ``new HashSet<>(list)`` has 32 buckets and keeps 0-5 and 16-19; a set grown one
    partition at a time has 16 buckets (12 is not past 0.75 x 16), iterates 0, 16, 1, 17, ... and keeps others."""
    from rebalance import jcollections

    line = LINES["group_rules-presized-hash-set"]
    step = line["output"]["steps"][0]
    assert step["assignment"]["A"] == {"orders": [0, 1, 2, 3, 4, 5, 16, 17, 18, 19]}
    assert _passes(line)
    monkeypatch.setattr(jcollections, "hash_set_copy_capacity", lambda size: 16 if size <= 12 else 32)
    actual = run_input(line["input"])
    assert actual["steps"][0]["assignment"]["A"] == {"orders": [0, 1, 2, 3, 4, 16, 17, 18, 19, 20]}
    assert not _passes(line)


@needs_lines
def test_the_subscription_type_counts_each_reference_string(monkeypatch):
    """A names orders and B gives its id: two strings, so HETEROGENEOUS, although both subscribe to one topic;
    once both name it, HOMOGENEOUS.  Counting topics (ids resolved) would make step 0 homogeneous."""
    from rebalance.kip848 import group

    line = LINES["group_rules-name-and-id"]
    steps = line["output"]["steps"]
    assert [s["subscription_type"] for s in steps] == ["HETEROGENEOUS", "HOMOGENEOUS"]
    assert [s["builder"] for s in steps] == ["UniformHeterogeneousAssignmentBuilder",
                                              "UniformHomogeneousAssignmentBuilder"]
    assert _passes(line)
    names = {t["id"]: t["name"] for t in line["input"]["topics"]}
    counted = group.compute_subscription_type
    monkeypatch.setattr(group, "compute_subscription_type",
                        lambda subscriptions: counted([names.get(t, t) for t in topics] for topics in subscriptions))
    assert run_input(line["input"])["steps"][0]["subscription_type"] == "HOMOGENEOUS"
    assert not _passes(line)
