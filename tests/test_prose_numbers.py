"""Every number a reader sees in a chapter's prose is backed by the chapter's own computation.

The book promises that its numbers are computed.  This test reads each executed chapter notebook and
looks at every number written in the prose of its Markdown cells (exercises and solutions included).  A
number passes when the same value, at the precision the prose states it, appears in one of the chapter's
code cells or their stored outputs: an input the chapter sets, or a result it printed.  Everything
else fails the test, so a number typed into a sentence that nothing computes, or a stale number whose
computation has since changed, is caught.

What is not checked, by an explicit and short allow-list:

* numbers inside code (fenced blocks, inline code, math), links, labels and directive options;
* identifiers (``p1``, ``c3``, ``t-0``), where the digits are part of a name;
* years (1990-2039), KIP and JIRA numbers (``KIP-848``, ``KAFKA-15354``), pull-request numbers;
* release versions (``3.9``, ``2.6.0``, ``3.8/3.9``, ``0.11``) where the text marks them as versions;
* references to the book's own structure: "chapter 7", "exercise 2", "step 3", source "line 120";
* bit widths ("a 32-bit integer").

Seconds in prose match milliseconds in code (``45 s`` and ``45_000``), and percentages match fractions.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

CHAPTERS = Path(__file__).resolve().parents[1] / "chapters"
NOTEBOOKS = sorted(CHAPTERS.glob("*.ipynb"))

#: a number as prose writes it: 7, 40,050, 0.227, 15%, 15.1 %; not part of a word or identifier
PROSE_NUMBER = re.compile(r"(?<![\w.\-/$#])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(\s?%)?(?![\w]|\.\d|-bit|/\d)")
#: a number as code or output writes it: 40_050, 40,050, 0.227, 1e6, -3
CODE_NUMBER = re.compile(r"\d[\d_,]*(?:\.\d+)?(?:[eE][+-]?\d+)?")
YEAR = re.compile(r"^(199\d|20[0-3]\d)$")
#: words after which a number names a part of the book, a source line or a release, not a quantity
REFERENCE_BEFORE = re.compile(
    r"(?:\b(?:[Cc]hapters?|[Pp]arts?|[Ss]ections?|[Ee]xercises?|[Ss]teps?|[Ll]ines?|[Ff]igures?|[Tt]ables?"
    r"|[Pp]ull requests?|PRs?|[Vv]ersions?|[Rr]eleases?|Kafka|librdkafka|Java|JDK|Python|PySpark|Spark)"
    r"(?:\s+\d+(?:\.\d+)*(?:,|\s+and|\s+or|\s+to|–|-|/))*\s+)$")
#: a release version written as such: 3.9, 2.6.0, 0.11 -- after a version word or "since/in/before ..."
VERSION = re.compile(r"^\d{1,2}\.\d{1,2}(?:\.\d{1,2})?$")
VERSION_BEFORE = re.compile(
    r"(?:\b(?:[Ss]ince|in|from|before|after|until|up to|and|or|to|by|fixed|shipped|released|clients?|brokers?"
    r"|KIP-\d+|KAFKA-\d+|Kafka)|[(,/|–]|\bKafka\s+\d+\.\d+(?:\.\d+)?\s*(?:and|or|to|/))\s*$")
VERSION_AFTER = re.compile(r"^(?:/\d|\.x|\s*\((?:KIP|KAFKA)-|\s+(?:and later|and earlier|or later|or newer|onwards"
                           r"|and before|release|branch|clients?|brokers?|releases|\)|,\s*\d))|^\)")
QUANTITY_AFTER = re.compile(r"^\s*(?:%|s\b|ms\b|seconds?|partitions?|members?|times|×|x\b|per\b|against\b)")


def _strip_non_prose(md: str) -> str:
    """Markdown without the places where digits are not prose."""
    md = re.sub(r"^(```|~~~).*?^\1", " ", md, flags=re.S | re.M)       # fenced code and directives' bodies
    md = re.sub(r"`[^`]*`", " ", md)                                    # inline code and roles' targets
    md = re.sub(r"\$\$.*?\$\$|\$[^$\n]*\$", " ", md, flags=re.S)        # math
    md = re.sub(r"\]\([^)\s]*\)", "]", md)                             # link targets
    md = re.sub(r"<[^>\n]+>", " ", md)                                  # HTML tags and autolinks
    md = re.sub(r"https?://\S+", " ", md)
    md = re.sub(r"^\s*:[\w-]+:.*$", " ", md, flags=re.M)                # directive options (:label: ...)
    md = re.sub(r"^\s*:{3,}\s*\{[\w-]+\}.*$", " ", md, flags=re.M)      # directive lines and their arguments
    md = re.sub(r"^\s*\([\w-]+\)=\s*$", " ", md, flags=re.M)            # targets (label)=
    return md


def _outputs_text(cell: dict) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if "text" in out:
            parts.append("".join(out["text"]))
        for mime, value in out.get("data", {}).items():
            if mime.startswith("text/"):
                parts.append("".join(value) if isinstance(value, list) else value)
    return "\n".join(parts)


def computed_numbers(notebook: dict) -> set[float]:
    """Every number in the chapter's code cells and their stored outputs."""
    values: set[float] = set()
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        text = "".join(cell["source"]) + "\n" + _outputs_text(cell)
        for match in CODE_NUMBER.finditer(text):
            token = match.group(0).replace("_", "").replace(",", "")
            try:
                values.add(float(token))
            except ValueError:
                continue
    return values


def _is_allowed(line: str, match: re.Match) -> bool:
    token = match.group(0).strip()
    before, after = line[: match.start()], line[match.end():]
    if YEAR.match(token):
        return True
    if REFERENCE_BEFORE.search(before):
        return True
    if VERSION.match(token) and not QUANTITY_AFTER.match(after) and (
            VERSION_BEFORE.search(before) or VERSION_AFTER.match(after)):
        return True
    return False


def _backed(value: float, decimals: int, percent: bool, computed: set[float]) -> bool:
    for x in computed:
        if round(x, decimals) == value:
            return True
        if percent and round(x * 100, decimals) == value:
            return True
        if value and x in (round(value * 1000, 6), round(value * 60_000, 6)):   # 45 s <-> 45_000 ms; minutes
            return True
    return False


def unbacked_numbers(notebook: dict) -> list[tuple[str, str]]:
    """``(number, line)`` for each number in the prose that no code cell or output of the chapter has."""
    computed = computed_numbers(notebook)
    found = []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        text = _strip_non_prose("".join(cell["source"]))
        # a paragraph is read as one line, so that a number's context survives the line breaks
        for line in (" ".join(p.split("\n")) for p in re.split(r"\n\s*\n", text)):
            for match in PROSE_NUMBER.finditer(line):
                if _is_allowed(line, match):
                    continue
                whole, frac, percent = match.groups()
                value = float(whole.replace(",", "") + (frac or ""))
                decimals = len(frac) - 1 if frac else 0
                if not _backed(value, decimals, bool(percent), computed):
                    found.append((match.group(0).strip(), line.strip()))
    return found


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_number_in_the_prose_is_computed(notebook):
    found = unbacked_numbers(json.loads(notebook.read_text(encoding="utf-8")))
    listing = "\n".join(f"  {number!r} in: {line[:160]}" for number, line in found)
    assert not found, (f"{notebook.name}: {len(found)} number(s) in the prose that no code cell or output of the "
                       f"chapter computes (print them from a cell, or compute them in an executed solution):\n"
                       f"{listing}")


# -- the scanner itself ---------------------------------------------------------------------------------

def _notebook(markdown: str, code: str = "", output: str = "") -> dict:
    return {"cells": [
        {"cell_type": "code", "source": [code], "outputs": [{"output_type": "stream", "text": [output]}]},
        {"cell_type": "markdown", "source": [markdown]},
    ]}


def test_scanner_flags_a_typed_number_and_accepts_a_computed_one():
    assert unbacked_numbers(_notebook("Eager moves 262 partitions.", output="moved 261.7")) == []
    assert [n for n, _ in unbacked_numbers(_notebook("Eager moves 263 partitions.", output="moved 261.7"))] == ["263"]
    assert [n for n, _ in unbacked_numbers(_notebook("A share of 0.227 per group.", output="0.2273"))] == []
    assert [n for n, _ in unbacked_numbers(_notebook("A share of 0.23 per group.", output="0.2203"))] == ["0.23"]


def test_scanner_units_percentages_and_separators():
    assert unbacked_numbers(_notebook("The session lasts 45 s.", code="session_timeout_ms=45_000")) == []
    assert unbacked_numbers(_notebook("Balanced in 15.1% of groups.", output="0.151")) == []
    assert unbacked_numbers(_notebook("It stops 40,050 tasks.", output="40050")) == []
    assert [n for n, _ in unbacked_numbers(_notebook("It stops 40,051 tasks.", output="40050"))] == ["40,051"]


def test_scanner_allow_list_is_narrow():
    allowed = ("KIP-848 shipped in Kafka 3.7 and 4.0; see chapter 7, line 120 and KAFKA-15354 (2023). "
               "Since 2.4 (KIP-429) members keep p1 and c3 on t-0; 3.8/3.9 logic; a 32-bit integer; "
               "`x = 17`; $n = 99$; fixed in 3.0.0 and 2.8.1.")
    assert unbacked_numbers(_notebook(allowed)) == []
    # a decimal that is a quantity is not a version, even after "in"
    assert [n for n, _ in unbacked_numbers(_notebook("It settles in 1.8 s, against 4.3 s."))] == ["1.8", "4.3"]
    # code blocks in solutions are code, but the prose around them is prose
    assert [n for n, _ in unbacked_numbers(_notebook("```python\nrun(5_000)\n```\nAbout 86 moves."))] == ["86"]
