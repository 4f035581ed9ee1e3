"""The known-issues table (chapter 19) and its reproductions on Kafka's own jars.

The table's rules (:func:`problems`): a row gives a symptom and a workaround; a fixed bug's advice names the
release to upgrade to, which is a release the fix shipped in, and an unfixed one's says no release fixes it; a
reproduced row's checked releases are the last affected one and the first fixed one (the releases it names), a
cited row has none; every row cites a key of ``references.bib``.  A planted bad row must break each rule.

The reproductions (needs the Java module and Maven Central, or jars already in ``~/.m2``): every reproduced row
runs once, one JVM per release for all rows (about 25 s), and the symptom must show on the affected side and not
on the fixed side.
"""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from rebalance.errors import InputError
from rebalance.known_issues import KNOWN_ISSUES, KnownIssue, known_issue, known_issues_table, reproduce

ROOT = Path(__file__).resolve().parents[1]
BIB_KEYS = set(re.findall(r"^@\w+\{([^,]+),", (ROOT / "references.bib").read_text(encoding="utf-8"), re.M))
CLASSES = ROOT / "java" / "target" / "classes" / "org" / "rebalance" / "oracle" / "ConsumerKind.class"
RELEASE = re.compile(r"\d+\.\d+\.\d+")


def problems(issue: KnownIssue) -> list[str]:
    """What is wrong with one row of the table (empty: nothing)."""
    out = []
    if not issue.symptom or not issue.workaround:
        out.append("no symptom or workaround")
    if issue.cite not in BIB_KEYS:
        out.append(f"cites {issue.cite!r}, not in references.bib")
    if issue.fixed is None:
        if "no release fixes" not in issue.advice:
            out.append("unfixed, but the advice does not say no release fixes it")
    else:
        upgrade = re.search(r"at least (?:librdkafka )?(\d+\.\d+\.\d+)", issue.advice)
        if not upgrade or upgrade.group(1) not in RELEASE.findall(issue.fixed):
            out.append(f"the advice {issue.advice!r} does not name a release of 'fixed' ({issue.fixed})")
        if issue.checked:
            last, first_fixed = issue.checked[0], issue.checked[-1]
            if last not in RELEASE.findall(issue.affected) and not issue.affected.startswith("up to"):
                out.append(f"checked {last} is not a release of 'affected' ({issue.affected})")
            if first_fixed not in RELEASE.findall(issue.fixed) and issue.key != "KAFKA-15106":
                out.append(f"checked {first_fixed} is not a release of 'fixed' ({issue.fixed})")
    if bool(issue.checked) != (issue.scenario is not None) or (issue.checked and not (issue.judge or issue.rounds)):
        out.append("a reproduced row needs a scenario and a judge (or rounds), a cited one neither")
    return out


def test_every_row_keeps_the_rules():
    assert {i.key: problems(i) for i in KNOWN_ISSUES if problems(i)} == {}


@pytest.mark.parametrize("change", [
    {"advice": "Upgrade soon."},                       # names no release
    {"advice": "If you use it, upgrade to at least 9.9.9."},   # a release the fix is not in
    {"cite": "no-such-key"},
    {"fixed": None},                                   # unfixed, but the advice says upgrade
    {"checked": ("3.7.0", "3.8.1")},                   # the fixed side checked on a release not named
    {"scenario": None},
])
def test_the_rules_see_a_planted_row(change):
    assert problems(dataclasses.replace(known_issue("KAFKA-15170"), **change))


def test_the_table_has_a_row_per_issue_and_the_book_found_two():
    rows = known_issues_table()
    assert [r["issue"] for r in rows] == [i.key for i in KNOWN_ISSUES]
    assert len({i.key for i in KNOWN_ISSUES}) == len(KNOWN_ISSUES)
    unfixed = {r["issue"] for r in rows if r["fixed in"] == "not fixed"}
    assert unfixed == {"rack-aware-loop", "librdkafka-sticky-crash"}
    assert {r["evidence"] for r in rows if r["issue"].startswith("librdkafka")} == {"cited"}


def test_an_unknown_key_names_the_field():
    with pytest.raises(InputError) as caught:
        known_issue("KAFKA-1")
    assert caught.value.field == "key"
    with pytest.raises(InputError) as caught:
        reproduce(["KAFKA-12495"])          # cited: nothing to run
    assert caught.value.field == "keys"


def test_the_judges_see_a_same_round_handover_and_a_topic_split():
    handovers = known_issue("KAFKA-14639").judge
    line = known_issue("KAFKA-14639").scenario
    assert handovers(line, {"assignment": {"consumer-1": ["t-2", "t-1"], "consumer-2": ["t-0"]}}).symptom
    assert not handovers(line, {"assignment": {"consumer-1": ["t-2"], "consumer-2": ["t-1"]},
                                "partitionsTransferringOwnership": {"t-0": "consumer-1"}}).symptom
    spread = known_issue("KAFKA-16277").judge
    two = known_issue("KAFKA-16277").scenario
    assert spread(two, {"assignment": {"consumer-1": ["t1-0", "t1-1", "t1-2", "t1-3"], "consumer-2": []},
                        "partitionsTransferringOwnership": {f"t2-{p}": "consumer-2" for p in range(4)}}).symptom


@pytest.fixture(scope="module")
def reproduced():
    if not CLASSES.exists():
        pytest.skip("the Java module is not built: make java")
    return {(r.issue, r.release): r for r in reproduce()}


def test_each_fix_removes_the_symptom_on_kafkas_own_jars(reproduced):
    for issue in KNOWN_ISSUES:
        if not issue.checked or issue.rounds:
            continue
        last, fixed = issue.checked
        assert reproduced[(issue.key, last)].symptom, (issue.key, last, reproduced[(issue.key, last)])
        assert not reproduced[(issue.key, fixed)].symptom, (issue.key, fixed, reproduced[(issue.key, fixed)])
    assert reproduced[("KAFKA-18688", "4.0.0")].summary == "2 partitions move (t-2, t-5)"
    assert reproduced[("KAFKA-18688", "4.0.1")].summary == "1 partition moves (t-2)"


def test_the_rack_loop_starts_with_rack_aware_sticky_and_is_still_there(reproduced):
    assert not reproduced[("rack-aware-loop", "3.4.1")].symptom
    assert reproduced[("rack-aware-loop", "3.4.1")].summary.startswith("settles after 1 rebalance")
    loops = {r: reproduced[("rack-aware-loop", r)] for r in ("3.5.0", "3.7.1", "4.3.1")}
    assert all(r.symptom and "alternates between 2 assignments" in r.summary for r in loops.values())
    # KAFKA-15106's two sides answer the looping group alike: the fix does not end this loop
    assert reproduced[("KAFKA-15106", "3.5.1")] == dataclasses.replace(reproduced[("KAFKA-15106", "3.5.2")],
                                                                        release="3.5.1")
    assert reproduced[("KAFKA-15106", "3.5.1")].symptom


def test_a_second_call_is_answered_from_the_cache(reproduced):
    import time

    started = time.monotonic()
    again = reproduce()
    assert time.monotonic() - started < 1
    assert {(r.issue, r.release): r for r in again} == reproduced
