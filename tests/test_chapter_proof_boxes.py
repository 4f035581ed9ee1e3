"""Every chapter opens with "In short" and keeps its proof in "How we know" boxes (CONTRIBUTING.md, "Chapters").

The main flow of a chapter teaches Kafka to the engineer who runs it; how the book knows that what it says is
Kafka's behaviour (Kafka source line numbers, runs on a real cluster set next to the simulator, conformance
vectors, forensics of another client's source) is one look away, in a collapsed box.  The convention:

* **In short.**  Right after the ``# Title`` line, before the ``Learning objectives``, an
  ``:::{admonition} In short`` with ``:class: important`` and three to six bullets, each a practitioner's answer
  (what to set, what happens, when it matters).  No proof in it: no source line number, no conformance vector,
  no agreement verdict.
* **How we know.**  A box is ``:::{admonition} How we know: <what>`` with ``:class: dropdown`` (any number of
  colons, for nesting) in a Markdown cell, holding the proof's prose, followed by zero or more code cells tagged
  ``how-we-know`` and ``hide-cell`` whose metadata also carries ``jupyter: {source_hidden: true,
  outputs_hidden: true}`` (JupyterLab folds them).  The tagged code cells right after a Markdown cell that
  *ends* with a box belong to it; the box ends at the next Markdown cell or untagged code cell.  A code cell
  tagged ``how-we-know`` anywhere else is an error.
* **The rule.**  Outside the boxes (the main flow: Markdown outside a box, exercises and solutions included, and
  untagged code cells) there is no source line number (:data:`LINE_NUMBER`) and no code cell that checks the
  book against Kafka (:data:`AGREEMENT`: a real cluster started, its run set next to the simulator, a
  FindCoordinator check, a Connect cluster's rounds, a controller's placements, a share or streams group's run,
  the conformance vectors, a table of checks, an agreement verdict, librdkafka's peer runs and its model).

A chapter listed in :data:`PENDING` is expected to fail (``xfail(strict=True)``: the day it passes, it must leave
the list); none is listed now.  The tests at the end plant a line
number, an untagged agreement cell, a misplaced In short and a box cell outside its box into copies of a
chapter and require the check to fail on each.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]-*.md"))
PENDING: set[str] = set()
PENDING_REASON = "In short/How we know: this chapter is not revised yet"
TAG = "how-we-know"
FOLDED = {"source_hidden": True, "outputs_hidden": True}

IN_SHORT = re.compile(r"\A\s*:::\{admonition\} In short\n:class: important\n(.*?)^:::\s*$", re.M | re.S)
BOX = re.compile(r"^(:{3,})\{admonition\} How we know: ?([^\n]*)\n(.*?)^\1[ \t]*$", re.M | re.S)
BULLET = re.compile(r"^[-*] ", re.M)
#: a Kafka (or librdkafka) source line number: "line 427", "lines 153 to 168", "lines 1604-1793",
#: "Foo.java:123", "rdkafka_cgrp.c:1272", a GitHub anchor "#L427"
LINE_NUMBER = re.compile(r"\blines?\s+\d+|[\w/.-]+\.(?:java|scala|c|h|py|kt):\d+|#L\d+\b")
#: what a code cell that checks the book against Kafka contains: a pattern, or patterns that must all occur
AGREEMENT: dict[str, tuple[str, ...]] = {
    "a real run set next to the book's (side_by_side)": (r"\bside_by_side\(",),
    "Kafka's consumers on a real broker (run_scenario, on_both)": (r"\b(?:run_scenario|on_both)\(",),
    "a prediction set against a real run": (r"\bpredicted\b|\breal_summary\b",),
    "FindCoordinator on a real cluster": (r"\bcompare_coordinators\b",),
    "a real Connect cluster's rounds": (r"\bcompare_rounds\b|\bConnectDistributedCluster\(|\brun_connect_scenario\(",),
    "a real Kafka cluster": (r"\bKafkaCluster\(",),
    "a real controller's placements": (r"\bcontroller_placements\(|\bgoodness_of_fit\(|\boutcome_distribution\(",),
    "a real share or streams group": (
        r"\b(?:run_share_group|scale_out_and_in|predict_rebalance|run_share_scenario|run_streams_scenario)\(",),
    "the conformance vectors": (r"\bconform\b|\bVECTOR_CASES\b",),
    "a table of checks (holds)": (r"[\"']holds[\"']",),
    "an agreement verdict": (r"\[[\"']agree[\"']\]|\.agree\b|\bagree\s*=(?!=)|\[[\"']replayed[\"']\]|\.replayed\b"
                             r"|==\s*book\b|\bbook\s*==",),
    "librdkafka's peer runs or its model": (
        r"\b(?:run_peer|observed_disagreements|observed_same_subscription_rounds|librdkafka_general_assign"
        r"|librdkafka_range_assign)\(",),
    "a live run set next to the simulator": (r"\bstep_rows\(", r"\bsimulated_rows\("),
}
#: words that mark proof, which the In short box must not contain
PROOF_WORDS = re.compile(r"\b(?:conformance|vectors?|test suite|agrees?|agreement|replayed)\b", re.I)


def _params():
    return [pytest.param(md, id=md.stem, marks=pytest.mark.xfail(strict=True, reason=PENDING_REASON))
            if md.name[:2] in PENDING else pytest.param(md, id=md.stem) for md in CHAPTERS]


# ---- reading a chapter -------------------------------------------------------------------------------------
def boxes(markdown: str) -> list[re.Match]:
    return list(BOX.finditer(markdown))


def main_flow(markdown: str) -> str:
    """A Markdown cell's text outside its How we know boxes."""
    return BOX.sub("", markdown)


def ends_with_box(markdown: str) -> bool:
    found = boxes(markdown)
    return bool(found) and not markdown[found[-1].end():].strip()


def agreement(source: str) -> list[str]:
    """What in a code cell's source checks the book against Kafka."""
    return [what for what, patterns in AGREEMENT.items() if all(re.search(p, source) for p in patterns)]


def in_short_problems(text_nb) -> list[str]:
    markdown = [c.source for c in text_nb.cells if c.cell_type == "markdown"]
    prose = "\n\n".join(markdown)
    title = re.search(r"^# .+$", prose, flags=re.M)
    if not title:
        return ["no '# Title'"]
    after = prose[title.end():]
    found = IN_SHORT.match(after)
    if not found:
        return ["the title is not followed at once by ':::{admonition} In short' with ':class: important'"]
    problems = []
    objectives = after.find(":::{admonition} Learning objectives")
    if objectives != -1 and objectives < found.end():
        problems.append("In short should come before the Learning objectives")
    body = found.group(1)
    bullets = len(BULLET.findall(body))
    if not 3 <= bullets <= 6:
        problems.append(f"In short has {bullets} bullets (3 to 6)")
    if LINE_NUMBER.search(body) or PROOF_WORDS.search(body) or "How we know" in body:
        problems.append(f"In short holds proof: {(LINE_NUMBER.search(body) or PROOF_WORDS.search(body))}")
    return problems


def box_problems(text_nb, stored: dict | None) -> list[str]:
    """The boxes' form: a dropdown class, and code cells that belong to a box carry the tags and fold."""
    problems = []
    count = 0
    stored_code = [c for c in stored["cells"] if c["cell_type"] == "code"] if stored else None
    code_index = -1
    in_box = False
    for index, cell in enumerate(text_nb.cells):
        if cell.cell_type == "markdown":
            for box in boxes(cell.source):
                count += 1
                if not re.match(r":class: dropdown\s*$", box.group(3).split("\n", 1)[0]):
                    problems.append(f"cell {index}: the box 'How we know: {box.group(2)}' lacks ':class: dropdown' "
                                    "as its first option")
                if not box.group(2).strip():
                    problems.append(f"cell {index}: a How we know box says nothing after 'How we know:'")
            in_box = ends_with_box(cell.source)
            continue
        if cell.cell_type != "code":
            continue
        code_index += 1
        tags = set(cell.metadata.get("tags", []))
        first = cell.source.strip().splitlines()[0][:60] if cell.source.strip() else ""
        if TAG in tags and not in_box:
            problems.append(f"cell {index} ({first!r}) is tagged {TAG} but follows no How we know box")
        if TAG not in tags:
            in_box = False
        if TAG in tags:
            if "hide-cell" not in tags:
                problems.append(f"cell {index} ({first!r}): a {TAG} cell must also be tagged hide-cell")
            if cell.metadata.get("jupyter") != FOLDED:
                problems.append(f"cell {index} ({first!r}): a {TAG} cell needs jupyter: {FOLDED} (Markdown)")
            if stored_code is not None and stored_code[code_index]["metadata"].get("jupyter") != FOLDED:
                problems.append(f"cell {index} ({first!r}): a {TAG} cell needs jupyter: {FOLDED} (notebook)")
    if not count:
        problems.append("no How we know box")
    return problems


def line_number_problems(text_nb) -> list[str]:
    problems = []
    for index, cell in enumerate(text_nb.cells):
        if cell.cell_type == "markdown":
            for m in LINE_NUMBER.finditer(main_flow(cell.source)):
                flow = main_flow(cell.source)
                problems.append(f"cell {index}: {m.group(0)!r} outside a How we know box: "
                                f"...{' '.join(flow[max(0, m.start() - 80):m.end() + 20].split())}...")
    return problems


def agreement_problems(text_nb) -> list[str]:
    problems = []
    for index, cell in enumerate(text_nb.cells):
        if cell.cell_type == "code" and TAG not in cell.metadata.get("tags", []):
            found = agreement(cell.source)
            if found:
                first = cell.source.strip().splitlines()[0][:60]
                problems.append(f"cell {index} ({first!r}) checks the book against Kafka ({'; '.join(found)}) "
                                "outside a How we know box")
    return problems


def _read(md: Path):
    return jupytext.read(md), json.loads(md.with_suffix(".ipynb").read_text(encoding="utf-8"))


# ---- the chapters ------------------------------------------------------------------------------------------
def problems(md: Path) -> list[str]:
    """Everything in a chapter that breaks the convention, under four headings."""
    text_nb, stored = _read(md)
    found = []
    for heading, listed in (("In short", in_short_problems(text_nb)), ("boxes", box_problems(text_nb, stored)),
                            ("line numbers", line_number_problems(text_nb)),
                            ("agreement checks", agreement_problems(text_nb))):
        found += [f"{heading}: {p}" for p in listed]
    return found


@pytest.mark.parametrize("md", _params())
def test_chapter_opens_with_in_short_and_keeps_its_proof_in_boxes(md):
    found = problems(md)
    assert not found, f"{md.name}:\n  " + "\n  ".join(found)


# ---- the check can fail -------------------------------------------------------------------------------------
def _done() -> list[Path]:
    return [md for md in CHAPTERS if md.name[:2] not in PENDING]


def _with_agreement_box() -> Path:
    for md in _done():
        if any(TAG in c.metadata.get("tags", []) and agreement(c.source) for c in jupytext.read(md).cells):
            return md
    pytest.fail("no chapter has an agreement cell in a How we know box")


def test_a_line_number_in_the_main_flow_fails():
    md = _done()[0]
    text_nb = jupytext.read(md)
    assert not line_number_problems(text_nb)
    cell = next(c for c in text_nb.cells if c.cell_type == "markdown" and "## " in c.source)
    cell.source += "\n\nThe rule is in `assign` (lines 153 to 168 {cite}`kafka-range`).\n"
    assert line_number_problems(text_nb), "a line number put back into the main flow was accepted"
    cell.source = cell.source.replace("lines 153 to 168", "`RangeAssignor.java:153`")
    assert line_number_problems(text_nb), "a 'File.java:N' reference in the main flow was accepted"


def test_a_line_number_inside_a_box_passes():
    text_nb = jupytext.read(_done()[0])
    cell = next(c for c in text_nb.cells if c.cell_type == "markdown" and "## " in c.source)
    cell.source += ("\n\n:::{admonition} How we know: the source\n:class: dropdown\n"
                    "`assignRanges`, lines 153 to 168 {cite}`kafka-range`.\n:::\n")
    assert not line_number_problems(text_nb)


def test_an_agreement_cell_without_its_tag_fails():
    md = _with_agreement_box()
    text_nb, stored = _read(md)
    assert not agreement_problems(text_nb) and not box_problems(text_nb, stored)
    cell = next(c for c in text_nb.cells if TAG in c.metadata.get("tags", []) and agreement(c.source))
    cell.metadata["tags"] = [t for t in cell.metadata["tags"] if t != TAG]
    assert agreement_problems(text_nb), "an agreement cell without its how-we-know tag was accepted"


def test_a_box_cell_outside_its_box_fails():
    md = _with_agreement_box()
    text_nb, stored = _read(md)
    index = next(i for i, c in enumerate(text_nb.cells) if TAG in c.metadata.get("tags", []))
    text_nb.cells.insert(index, jupytext.reads("Main flow again.\n", fmt="md:myst").cells[0])
    assert box_problems(text_nb, None), "a how-we-know cell after a main-flow Markdown cell was accepted"
    text_nb, stored = _read(md)
    cell = text_nb.cells[index]
    cell.metadata.pop("jupyter")
    assert box_problems(text_nb, None), "a how-we-know cell that does not fold in JupyterLab was accepted"


def test_a_misplaced_or_long_in_short_fails():
    text_nb = jupytext.read(_done()[0])
    assert not in_short_problems(text_nb)
    title_cell = next(c for c in text_nb.cells if c.cell_type == "markdown" and c.source.startswith("# "))
    original = title_cell.source
    body = IN_SHORT.search(original[original.index("\n"):]).group(0).strip()
    long = body.replace("\n:::", "".join(f"\n- planted bullet {i}" for i in range(7)) + "\n:::")
    title_cell.source = original.replace(body, long)
    assert in_short_problems(text_nb), "an In short of more than six bullets was accepted"
    title_cell.source = original.replace(body, "").replace(
        ":::{admonition} Prerequisites", body + "\n\n:::{admonition} Prerequisites", 1)
    assert in_short_problems(text_nb), "an In short after the Learning objectives was accepted"
    title_cell.source = original.replace(body, body.replace("\n- ", "\n- lines 153 to 168 of `RangeAssignor`: ", 1))
    assert in_short_problems(text_nb), "an In short holding a source line number was accepted"
