"""Every chapter cites its sources by title, and none speaks of the source articles as "seeds".

Readers do not know the project's word for the five articles the book grew from: a chapter cites each by its
title through ``references.bib`` ({cite} roles), and every citation key it uses exists there.
"""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]-*.md"))
BIB_KEYS = set(re.findall(r"^@\w+\{([^,]+),", (ROOT / "references.bib").read_text(encoding="utf-8"), flags=re.M))
#: "seed" meaning a source article (a random-number seed, ``seed=0``, is fine)
SEED_AS_SOURCE = re.compile(r"\bseed\s+(?:article|example|group|cluster|sweeps?|0\d\d)\b|\bseed_0\d\d|the seed's\b|"
                            r"\bseed article's\b", re.I)
CITE = re.compile(r"\{cite(?::[tp])?\}`([^`]+)`")


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_cites_sources_that_exist(chapter):
    text = chapter.read_text(encoding="utf-8")
    keys = [k.strip() for group in CITE.findall(text) for k in group.split(",")]
    assert keys, f"{chapter.name} cites no source with {{cite}}"
    unknown = sorted(set(keys) - BIB_KEYS)
    assert not unknown, f"{chapter.name} cites keys missing from references.bib: {unknown}"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_never_calls_a_source_a_seed(chapter):
    hits = [line.strip() for line in chapter.read_text(encoding="utf-8").splitlines() if SEED_AS_SOURCE.search(line)]
    assert not hits, f"{chapter.name} speaks of a source article as a seed: {hits[:3]}"


def test_the_five_source_articles_are_in_the_bibliography():
    for key in ("article-eager-vs-incremental", "article-consumer-assignors", "article-cooperative-static",
                "article-coordinator", "article-replica-assignment", "confluent-incremental"):
        assert key in BIB_KEYS
