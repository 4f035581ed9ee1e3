"""How much of each chapter's main flow is the book checking itself, before and after the fourth edition's
"teaching first, proof on demand" (issue 33): one measure applied alike to both versions.

The main flow is a chapter's Markdown prose outside code cells, outside the collapsed "How we know" boxes (any
``:::{admonition}`` whose title starts "How we know", and the ``{dropdown}`` blocks) and outside exercises'
solutions.  It is split into sentences; a sentence counts as *proof* when it names how the book checks itself
rather than what Kafka does: Kafka source line numbers, the conformance vectors, the oracle, agreement or replay
against the real cluster, Kafka's own classes computing the same, the jars checked.  A keyword count, so a rough
measure; the same regular expression judges both versions.

Usage: python benchmarks/proof_share.py [BEFORE_COMMIT]   (default 85ec537^, the commit before the first
"In short"); prints a Markdown table by chapter slug (chapters are matched by the name after their number, which
the renumbering of chapter 9-13 kept).
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, Tuple

REPO = Path(__file__).resolve().parents[1]
PROOF = re.compile(
    r"\blines? \d+|\.java\b|:\d+-\d+\b|conformance|\bvectors?\b|\boracle\b|"
    r"\bagree(s|d|ment)? (with|on) (the real|real|Kafka|the jars|the broker|the oracle)|\breplayed\b|"
    r"Kafka's own (classes|code)|same answers? as Kafka|\bjars?\b|\bholds: |\bnbval\b|\bcompared equal\b|"
    r"\bwe checked\b|\bchecked (on|against|by)\b|\bverified\b|\btest(s|ed)? (that|it)\b",
    re.IGNORECASE)
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\[(])")


def main_flow(text: str) -> str:
    """The chapter's prose outside code cells, How we know boxes, dropdowns and solutions."""
    out, skip_fence, code = [], 0, False
    lines = text.splitlines()
    if lines and lines[0].strip() == "---":  # front matter
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), 0)
        lines = lines[end + 1:]
    for line in lines:
        s = line.strip()
        if code:
            code = not s.startswith("```")
            continue
        if s.startswith("```"):
            code = True
            continue
        if skip_fence:
            if re.fullmatch(r":{3,}", s):
                skip_fence -= 1
            elif re.match(r":{3,}\{", s):
                skip_fence += 1
            continue
        if re.match(r":{3,}\{(admonition|dropdown|solution)", s) and (
                "How we know" in s or "dropdown" in s or "solution" in s):
            skip_fence = 1
            continue
        if s.startswith(":::") or s.startswith("+++") or s.startswith("(") and s.endswith(")="):
            continue
        out.append(line)
    return "\n".join(out)


def share(text: str) -> Tuple[int, int]:
    prose = re.sub(r"\s+", " ", main_flow(text)).strip()
    sentences = [x for x in SENTENCE.split(prose) if len(x) > 20]
    return sum(bool(PROOF.search(x)) for x in sentences), len(sentences)


def chapters_at(commit: str) -> Dict[str, str]:
    names = subprocess.run(["git", "ls-tree", "--name-only", f"{commit}:chapters"], cwd=REPO, check=True,
                           capture_output=True, text=True).stdout.split()
    return {n[:-3].split("-", 1)[1]: subprocess.run(["git", "show", f"{commit}:chapters/{n}"], cwd=REPO, check=True,
                                                     capture_output=True, text=True).stdout
            for n in names if n.endswith(".md") and n[:2].isdigit()}


def main(argv: list) -> int:
    before_commit = argv[1] if len(argv) > 1 else "85ec537^"
    before = chapters_at(before_commit)
    after = {p.stem.split("-", 1)[1]: (p.stem[:2], p.read_text(encoding="utf-8"))
             for p in sorted((REPO / "chapters").glob("[0-9][0-9]-*.md"))}
    print(f"| chapter | proof sentences before ({before_commit}) | after (working tree) |")
    print("|---|---|---|")
    for slug, (number, text) in after.items():
        a, n = share(text)
        if slug in before:
            b, m = share(before[slug])
            was = f"{b} of {m} ({100 * b / max(m, 1):.0f} %)"
        else:
            was = "(new chapter)"
        print(f"| {number} {slug} | {was} | {a} of {n} ({100 * a / max(n, 1):.0f} %) |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
