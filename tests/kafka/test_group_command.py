"""rebalance.kafka.group_command: kafka-consumer-groups' tables read and normalised (no broker), a bad view refused."""
from __future__ import annotations

import pytest

from rebalance.errors import InputError
from rebalance.kafka import describe_group, normalise_rows, parse_table

STATE = """
GROUP              COORDINATOR (ID)          ASSIGNMENT-STRATEGY  STATE                #MEMBERS
rebalance-8ff3bd48 127.0.0.1:60981  (1)      range                Stable               3
"""
MEMBERS = """
Consumer group 'g' is rebalancing.

GROUP              CONSUMER-ID                                  HOST            CLIENT-ID       #PARTITIONS     CURRENT-EPOCH   CURRENT-ASSIGNMENT   TARGET-EPOCH    TARGET-ASSIGNMENT
rebalance-8ff3bd48 crash-b-3bc2bae0-539f-4221-9549-ccd7c0d8143d /127.0.0.1      crash-b         1               -               t-crash:2            -               -
rebalance-8ff3bd48 AAAAAAAAAAAAAAAAAAAAAA                       /127.0.0.1      crash-a         2               3               t-crash:0,1          3               t-crash:0,1

ignored after a blank line
"""


def test_the_state_table_with_its_spaced_header():
    rows = parse_table(STATE)
    assert rows == [{"GROUP": "rebalance-8ff3bd48", "COORDINATOR (ID)": "127.0.0.1:60981  (1)",
                     "ASSIGNMENT-STRATEGY": "range", "STATE": "Stable", "#MEMBERS": "3"}]
    assert normalise_rows(rows)[0]["COORDINATOR (ID)"] == "HOST:PORT (1)"
    assert normalise_rows(rows, "g")[0]["GROUP"] == "g"


def test_the_members_table_normalised():
    rows = normalise_rows(parse_table(MEMBERS))
    assert [r["CONSUMER-ID"] for r in rows] == ["crash-b-<id>", "<member-id>"]
    assert [r["HOST"] for r in rows] == ["/HOST", "/HOST"]
    assert rows[1]["CURRENT-ASSIGNMENT"] == "t-crash:0,1" and rows[0]["#PARTITIONS"] == "1"
    named = normalise_rows(parse_table(MEMBERS), names={"AAAAAAAAAAAAAAAAAAAAAA": "crash-a"})
    assert named[1]["CONSUMER-ID"] == "<crash-a's member id>"
    assert parse_table("Consumer group 'g' has no active members.\n") == []


def test_a_bad_view_is_refused_naming_the_field():
    with pytest.raises(InputError, match="view"):
        describe_group("127.0.0.1:1", "g", view="lag")
    with pytest.raises(InputError, match="group"):
        describe_group("127.0.0.1:1", "", view="state")
