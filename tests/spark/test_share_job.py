"""The share job (SimpleAssignor over random share groups), checked against direct calls of the share area, and
Spark's tables against the plain local implementation."""
import pytest

from rebalance.errors import InputError
from rebalance.share import assign_share_group
from rebalance.spark import single_process as local
from rebalance.spark.jobs import share


def test_a_row_is_the_share_areas_assignment():
    params = share.ShareJobParams()
    for index in range(40):
        sc = share.share_scenario(0, index, params)
        row = share.evaluate(index, sc)
        result = assign_share_group(sc["topics"], sc["members"]).by_name()
        got = sorted(sum(len(ps) for ps in result.get(m["id"], {}).values()) for m in sc["members"])
        assert (row["min_partitions_per_member"], row["max_partitions_per_member"]) == (got[0], got[-1])
        assert row["members"] == len(sc["members"]) and row["partitions"] == sum(sc["topics"].values())
        if row["subscription"] == "homogeneous" and row["members"] > row["partitions"]:
            assert row["shared_partitions"] > 0  # more members than partitions: some partition is shared
        if row["members"] <= row["partitions"] and row["subscription"] == "homogeneous":
            assert row["max_members_per_partition"] == 1


def test_scenarios_are_reproducible_and_params_checked():
    p = share.ShareJobParams()
    assert share.share_scenario(3, 7, p) == share.share_scenario(3, 7, p)
    assert share.share_scenario(3, 7, p) != share.share_scenario(3, 8, p)
    with pytest.raises(InputError, match="max_members"):
        share.ShareJobParams(max_members=0).check()
    with pytest.raises(InputError, match="heterogeneous"):
        local.run("share", 5, heterogeneous=2.0)


@pytest.mark.spark
def test_spark_equals_local(spark):
    params = {"max_members": 8, "max_partitions": 5}
    got = share.run(spark, 300, seed=1, params=params).tables
    want = local.run("share", 300, seed=1, **params)
    assert got["summary"].round(9).equals(want["summary"].round(9))
    assert got["rows"].equals(want["rows"])
