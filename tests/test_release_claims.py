"""Every sentence of the book that places something in a Kafka release is checked against that release's jars.

``tests/release_claims.yml`` is the table: for each release claim of a chapter (found by
:func:`release_claims.claim_units`, whose docstring says what counts), a phrase of the sentence and the named
checks that hold it, each a text that the ``-sources`` jars of the release(s) it names have and those of the
release before lack (or where they have another text, ``was``), or a file that two releases have identically.
The tests:

* every release sentence of every chapter has exactly one entry (a claim, or a ``not_claims`` item with the
  reason it is not one), and every entry names exactly one release sentence;
* every release an entry's sentence mentions is one its checks read (the pinned release, which the book
  describes throughout, excepted): a sentence that says "in 3.6.0 and 3.5.2" needs checks on both;
* every check holds on the jars.  The jars are resolved from Maven Central into ``~/.m2`` by one Maven run
  (``dependency:copy`` of a generated pom) for all that are missing; without ``mvn`` the checks are skipped,
  saying so.  The jars of the pinned release, of 4.0.2 and of 3.9.2 come with ``make java``; the others are
  small (the largest, ``kafka-clients``, about 3 MB).

The tests at the end plant a wrong check, a release sentence without an entry and an entry for a sentence that
is gone, and require each to fail.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import zipfile
from functools import lru_cache
from pathlib import Path

import pytest
import yaml

from release_claims import (KAFKA_VERSION, TABLE, Unit, claim_units, fetch_command, is_claim, jar_path,
                            units_of)


@lru_cache(maxsize=None)
def table() -> dict:
    return yaml.safe_load(TABLE.read_text(encoding="utf-8"))


def _norm(text: str) -> str:
    return " ".join(text.split())


# ---- the checks ---------------------------------------------------------------------------------------------
def _releases(check: dict) -> list[str]:
    return [*check.get("has", []), *check.get("lacks", []), *check.get("identical", [])]


def needed_jars(checks: dict) -> list[tuple[str, str]]:
    return sorted({(c["artifact"], r) for c in checks.values() for r in _releases(c)})


@pytest.fixture(scope="session")
def jars() -> None:
    """Every ``-sources`` jar the table reads is in ``~/.m2`` (one Maven run fetches the missing ones)."""
    missing = [(a, r) for a, r in needed_jars(table()["checks"]) if not jar_path(a, r).exists()]
    if not missing:
        return
    if shutil.which("mvn") is None:
        pytest.skip(f"Maven (mvn) is not installed, and {len(missing)} -sources jars of the release claims are not "
                    f"in ~/.m2 (first: {missing[0][0]} {missing[0][1]}); apt-get install maven")
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(fetch_command(missing, Path(folder)), capture_output=True, text=True, timeout=1200)
    still = [(a, r) for a, r in missing if not jar_path(a, r).exists()]
    assert done.returncode == 0 and not still, (f"Maven could not resolve {still or missing}:\n"
                                                f"{(done.stdout + done.stderr)[-3000:]}")


@lru_cache(maxsize=None)
def source(artifact: str, release: str, member: str) -> str | None:
    """The text of a file in a release's ``-sources`` jar, or None when the jar has no such file."""
    with zipfile.ZipFile(jar_path(artifact, release)) as z:
        try:
            return z.read(member).decode("utf-8")
        except KeyError:
            return None


def run_check(check: dict) -> list[str]:
    """The problems of one check; empty when the jars bear it out."""
    artifact, member = check["artifact"], check["file"]
    problems = []
    if "identical" in check:
        texts = {r: source(artifact, r, member) for r in check["identical"]}
        if None in texts.values():
            return [f"{member} is missing from {artifact} " + " or ".join(r for r, x in texts.items() if x is None)]
        first, *later = check["identical"]
        for old, new in check.get("rewrites", []):          # equivalent Java the later release spells anew
            if old not in texts[first]:
                problems.append(f"{member} of {artifact} {first} has no {old!r} to rewrite")
            texts[first] = texts[first].replace(old, new)
        if len(set(texts.values())) != 1:
            problems.append(f"{member} is not the same file in {artifact} " + " and ".join(check["identical"]))
        return problems
    text = check.get("text")
    for release in check["has"]:
        body = source(artifact, release, member)
        if body is None:
            problems.append(f"{artifact} {release} has no {member}")
        elif text is not None and _norm(text) not in _norm(body):
            problems.append(f"{member} of {artifact} {release} does not contain {text!r}")
    for release in check["lacks"]:
        body = source(artifact, release, member)
        if body is None:
            if "was" in check:
                problems.append(f"{artifact} {release} has no {member}, which should contain {check['was']!r}")
            continue
        if text is None:
            problems.append(f"{artifact} {release} has {member}, which it should lack")
        elif _norm(text) in _norm(body):
            problems.append(f"{member} of {artifact} {release} contains {text!r}, which it should lack")
        elif "was" in check and _norm(check["was"]) not in _norm(body):
            problems.append(f"{member} of {artifact} {release} does not contain {check['was']!r}")
    return problems


CHECKS = sorted(table()["checks"])
FIELDS = {"artifact", "file", "text", "has", "lacks", "was", "note"}


@pytest.mark.parametrize("name", CHECKS)
def test_release_claim_holds(name, jars):
    problems = run_check(table()["checks"][name])
    users = [c["phrase"] for c in table()["claims"] if name in c["checks"]]
    assert not problems, f"{name} (for: {users}):\n  " + "\n  ".join(problems)


def test_the_checks_are_well_formed():
    wrong = []
    for name, check in table()["checks"].items():
        if not {"artifact", "file"} <= set(check):
            wrong.append(f"{name}: needs artifact and file")
        elif "identical" in check:
            if len(check["identical"]) < 2 or set(check) - {"artifact", "file", "identical", "rewrites", "note"}:
                wrong.append(f"{name}: identical takes two releases or more (and rewrites, note)")
        elif not check.get("has") or not check.get("lacks"):
            wrong.append(f"{name}: needs the releases that have it (has) and those that do not (lacks)")
        elif set(check) - FIELDS:
            wrong.append(f"{name}: unknown fields {sorted(set(check) - FIELDS)}")
        for release in _releases(check):
            if not re.fullmatch(r"\d+\.\d+\.\d+(?:\.\d+)?", str(release)):
                wrong.append(f"{name}: {release!r} is not a release (write it in full, as Maven Central does)")
    used = {n for c in table()["claims"] for n in c["checks"]}
    wrong += [f"{name} is used by no claim" for name in set(table()["checks"]) - used]
    wrong += [f"{c['phrase']!r} uses unknown check {n}" for c in table()["claims"] for n in c["checks"]
              if n not in table()["checks"]]
    assert not wrong, "\n".join(wrong)


# ---- the table covers the book ----------------------------------------------------------------------------
def _entries() -> list[dict]:
    return [*table()["claims"], *table()["not_claims"]]


def entries_for(unit: Unit, entries: list[dict]) -> list[dict]:
    return [e for e in entries if str(e["chapter"]) == unit.chapter and _norm(e["phrase"]) in _norm(unit.text)]


def uncovered(units: list[Unit], entries: list[dict]) -> list[str]:
    """Release sentences with no entry, or with more than one."""
    problems = []
    for unit in units:
        found = entries_for(unit, entries)
        if len(found) != 1:
            problems.append(f"{unit} -- {len(found)} entries" + (f": {[e['phrase'] for e in found]}" if found else ""))
    return problems


def unmatched(units: list[Unit], entries: list[dict]) -> list[str]:
    """Entries that name no release sentence of their chapter, or several."""
    problems = []
    for entry in entries:
        hits = [u for u in units if str(entry["chapter"]) == u.chapter and _norm(entry["phrase"]) in _norm(u.text)]
        if len(hits) != 1:
            problems.append(f"chapter {entry['chapter']}: {entry['phrase']!r} is in {len(hits)} release sentences")
    return problems


def _covers(mentioned: str, checked: str) -> bool:
    want, have = mentioned.split("."), checked.split(".")
    return have[:len(want)] == want


def unread_releases(units: list[Unit], entries: list[dict], checks: dict) -> list[str]:
    """Releases a claim's sentence mentions that none of its checks reads (the pinned release excepted)."""
    problems = []
    for unit in units:
        for entry in entries_for(unit, entries):
            if "checks" not in entry:
                continue
            read = [r for name in entry["checks"] for r in _releases(checks[name])]
            missing = sorted({m for m in unit.releases if m != KAFKA_VERSION
                              and not any(_covers(m, r) for r in read)})
            if missing:
                problems.append(f"{unit}\n    mentions {missing}, which no check of {entry['checks']} reads")
    return problems


def test_the_book_makes_release_claims():
    units = claim_units()
    assert len(units) >= 80, f"only {len(units)} release sentences found: has the scan broken?"
    assert len({u.chapter for u in units}) >= 14


def test_every_release_sentence_has_an_entry():
    problems = uncovered(claim_units(), _entries())
    assert not problems, ("release sentences without exactly one entry in tests/release_claims.yml (add the claim "
                          "and a check on the jars, or a not_claims item saying why it is none):\n"
                          + "\n".join(problems))


def test_every_entry_names_one_release_sentence():
    problems = unmatched(claim_units(), _entries())
    assert not problems, "entries of tests/release_claims.yml whose phrase is stale:\n" + "\n".join(problems)


def test_every_release_a_claim_mentions_is_checked():
    problems = unread_releases(claim_units(), table()["claims"], table()["checks"])
    assert not problems, "\n".join(problems)


def test_not_claims_say_why():
    assert all(len(e.get("why", "")) > 20 and "checks" not in e for e in table()["not_claims"])


# ---- the tests can fail -------------------------------------------------------------------------------------
def test_a_planted_sentence_without_entry_fails():
    planted = units_of("04", "The sticky assignor arrived in Kafka 0.10.1 and changed its default in 2.7.\n")
    assert planted and all(is_claim(u) for u in planted)
    assert uncovered(planted, _entries()), "a release sentence without an entry was accepted"
    quantity = units_of("11", "It prints 4.5 s instead of 5.0 s and 2.7 partitions on average.\n")
    assert not any(is_claim(u) for u in quantity), "numbers that are no release were read as releases"
    librdkafka = units_of("13", "The wheel bundles librdkafka 2.6.1.\n")
    assert not any(is_claim(u) for u in librdkafka)


def test_a_stale_entry_fails():
    stale = [{"chapter": "04", "phrase": "It shipped in Kafka 0.10.0", "checks": []}]
    assert unmatched(claim_units(), stale)


def test_an_unread_release_fails():
    unit = units_of("04", "Since 3.0.0 (backported to 2.8.1), two claims are invalidated.\n")
    entry = {"chapter": "04", "phrase": "two claims are invalidated", "checks": ["only-3.0"]}
    checks = {"only-3.0": {"has": ["3.0.0"], "lacks": ["2.8.0"]}}
    assert unread_releases(unit, [entry], checks), "a backport the checks never read was accepted"


def test_a_wrong_check_fails(jars):
    """Every check, with its releases swapped (the release before as the one that has it), fails."""
    for name, check in table()["checks"].items():
        if "identical" in check:
            others = [r for a, r in needed_jars(table()["checks"]) if a == check["artifact"]
                      and r not in check["identical"]]
            assert others, f"{name}: no other release of {check['artifact']} to plant"
            rejected = [o for o in others if run_check({**check, "identical": [check["identical"][0], o]})]
            assert rejected, f"{name}: {check['file']} of every other release ({others}) was accepted as identical"
            continue
        swapped = {k: v for k, v in check.items() if k != "was"}
        swapped["has"], swapped["lacks"] = check["lacks"], check["has"]
        assert run_check(swapped), f"{name}: the check holds with its releases swapped, so it proves nothing"
