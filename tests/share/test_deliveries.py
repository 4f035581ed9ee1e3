"""rebalance.share.delivery: what each rule of acknowledgement does to a record, over random rules and groups
(the outcomes chapter 14 describes), and the two readers of the one delivery loop agreeing."""
from hypothesis import given, settings
from hypothesis import strategies as st

from rebalance.share import ShareRule, deliveries, outcomes, share_rule
from rebalance.widgets.share import delivery_log

RULES = st.builds(lambda n, rel, rej, slow: (n, share_rule(n, rel, rej, min(slow, n))),
                  st.integers(1, 20), st.integers(0, 6), st.integers(0, 6), st.integers(0, 3))


@settings(max_examples=200, deadline=None)
@given(RULES, st.integers(1, 4), st.integers(1, 5), st.integers(1, 6))
def test_each_rule_ends_as_kafka_says(sized_rule, members, limit, max_records):
    records, rule = sized_rule
    names = [f"m{i}" for i in range(1, members + 1)]
    result = outcomes(records, rule, names, delivery_count_limit=limit, max_records=max_records)
    assert sorted(result) == list(range(records))                   # every record delivered and finished
    for offset, r in result.items():
        action = rule.action(offset)
        if action in ("ACCEPT", "REJECT"):                           # ended by the first delivery
            assert r["deliveries"] == r["max_delivery_count"] == 1
            assert r["state"] == ("ACKNOWLEDGED" if action == "ACCEPT" else "ARCHIVED")
        else:                                                         # released or held: redelivered to the limit
            assert r["deliveries"] == r["max_delivery_count"] == limit and r["state"] == "ARCHIVED"


@settings(max_examples=50, deadline=None)
@given(RULES, st.integers(1, 3), st.integers(1, 4))
def test_the_log_and_the_outcomes_read_the_same_deliveries(sized_rule, members, limit):
    records, rule = sized_rule
    names = [f"m{i}" for i in range(1, members + 1)]
    log = delivery_log(records, rule, names, delivery_count_limit=limit, max_records=500)
    result = outcomes(records, rule, names, delivery_count_limit=limit)
    assert log.groupby("offset").size().to_dict() == {o: r["deliveries"] for o, r in result.items()}
    assert log.groupby("offset")["state"].last().to_dict() == {o: r["state"] for o, r in result.items()}
    assert len(log) == sum(1 for _ in deliveries(records, rule, names, delivery_count_limit=limit))


def test_a_held_record_expires_then_is_archived_at_the_limit():
    rule = ShareRule(slow=(0,))
    ends = [(d.member, d.delivery_count, d.outcome) for d in deliveries(1, rule, ["m1", "m2"], delivery_count_limit=2)]
    assert ends == [("m1", 1, "lock expired"), ("m1", 2, "archived (limit)")]
