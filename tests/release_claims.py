"""The release claims of the book and the checks that hold them to Kafka's released jars.

A *release claim* is a sentence of a chapter that places a feature, class, default or behaviour in a Kafka
release: "the default since Kafka 3.0", "rewritten in 3.9 by KAFKA-16944", "Kafka 4.0.1 softened this", "up to
3.9 a broker ran ...", "KIP-708 (Kafka 3.2)".  ``tests/release_claims.yml`` lists every one of them (the chapter,
a phrase of the sentence) with the checks that prove it: a text (a class, member, constant, config default) that
the ``-sources`` jars of the release(s) named have and those of the release before lack, or where the release
before has another text (``was``).  ``tests/test_release_claims.py`` runs the checks and scans the chapters for
release sentences that have no entry.

What counts as a release sentence (:func:`claim_units`)
=======================================================

The chapters' prose, as :func:`test_kafka_source_refs.prose_paragraphs` reads it (fenced code, math, directive
options and cell headers are not prose), cut into sentences; a table row is one unit, since a cell ("0.9",
"KRaft (3.0 and later)") only makes a claim with its row.  Code spans, ``{cite}`` roles and quoted text are
blanked first, so a quoted log line ("will be removed in Kafka 5.0") or a key is not read as a claim.

A unit *mentions a release* when it has ``X.Y`` or ``X.Y.Z`` of a Kafka release line (0.8 to 0.11, 1.0 and 1.1,
2.0 to 2.8, 3.0 to 3.9, 4.0 to 4.9) written as a release: after "Kafka", "since", "in", "from", "before",
"after", "until", "up to", "to", "and", "or", "by", "for", "than", "release(s)", "broker(s)", "client(s)", an
opening parenthesis, a table bar or the unit's start, or before "and later", "and earlier", "or later",
"onwards" or a closing parenthesis; never after "librdkafka", and never before a unit ("4.5 s", "2.7
partitions").

A unit is a release claim when it mentions a release other than the pinned one
(:data:`rebalance.versions.KAFKA_VERSION`), or the pinned one next to a word of change ("deprecated",
"still", "unchanged", "keeps", "no longer", "by default", "changed", "added", "removed", "new"): a sentence
that only says what Kafka 4.3.1 computes describes the release the book models, not a change.

The units the scan finds that are not claims (a sentence that names a release for another reason) are listed in
the table's ``not_claims`` with the reason, and are as much a part of the table as the claims.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from test_kafka_source_refs import CITE, CODE, QUOTE, prose_paragraphs  # noqa: E402

from rebalance.versions import KAFKA_VERSION  # noqa: E402

CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]-*.md"))
TABLE = ROOT / "tests" / "release_claims.yml"

#: a Kafka release line: 0.8-0.11, 1.0-1.1, 2.0-2.8, 3.0-3.9, 4.0-4.9
_LINE = r"(?:0\.(?:8|9|10|11)|1\.[01]|2\.[0-8]|3\.[0-9]|4\.[0-9])(?:\.\d{1,2})?"
_BEFORE = (r"(?:(?<![\w-])(?:Kafka|[Ss]ince|[Ii]n|[Ff]rom|[Bb]efore|[Aa]fter|[Uu]ntil|[Uu]p to|to|and|or|by|for|than"
           r"|[Rr]eleases?|brokers?|clients?)\s+|[(|]\s*|^\s*)")
_AFTER = r"(?=\s+(?:and later|and earlier|or later|onwards)|\s*\))"
_QUANTITY = r"(?!\s?(?:s|ms|%|x|×|partitions?|members?|times|rebalances?|seconds?|on average|per|against)\b)"
RELEASE = re.compile(r"(?<!librdkafka )(?:" + _BEFORE + r"(" + _LINE + r")|(?<![\w.])(" + _LINE + r")" + _AFTER +
                     r")(?![\w.]?\d)" + _QUANTITY)
#: words that make a sentence about the pinned release a claim of change
CHANGE = re.compile(r"\b(?:deprecated|still|unchanged|keeps|no longer|by default|changed|added|removed|new)\b")
_SENTENCE_END = re.compile(r"[.!?](?=\s)")


def _mask(text: str) -> str:
    """``text`` with cite roles, code spans and quotes blanked out (same length)."""
    for pattern in (CITE, CODE, QUOTE):
        text = pattern.sub(lambda m: "\0" * len(m.group(0)), text)
    return text


@dataclass(frozen=True)
class Unit:
    chapter: str      # "04", the chapter's number
    text: str         # the sentence (or table row) as written
    releases: tuple[str, ...]   # the releases it mentions, in order

    def __str__(self) -> str:
        return f"chapter {self.chapter}: {self.text}"


def units_of(chapter: str, markdown: str) -> list[Unit]:
    """Every sentence and table row of a chapter's prose, with the releases it mentions."""
    units = []
    for paragraph in prose_paragraphs(markdown):
        masked = _mask(paragraph)
        if paragraph.startswith("|"):
            pieces = [(0, len(paragraph))]
        else:
            ends = [m.end() for m in _SENTENCE_END.finditer(masked)] + [len(paragraph)]
            pieces, start = [], 0
            for end in ends:
                if end > start:
                    pieces.append((start, end))
                start = end
        for start, end in pieces:
            releases = tuple(m.group(1) or m.group(2) for m in RELEASE.finditer(masked[start:end].strip("\0 ")))
            units.append(Unit(chapter, paragraph[start:end].strip(), releases))
    return units


def is_claim(unit: Unit) -> bool:
    """Whether a unit places something in a release (see the module's docstring)."""
    if not unit.releases:
        return False
    if any(r != KAFKA_VERSION for r in unit.releases):
        return True
    return CHANGE.search(_mask(unit.text)) is not None


def claim_units(chapters: list[Path] = CHAPTERS) -> list[Unit]:
    """The release claims of the given chapters (all of them by default)."""
    return [u for path in chapters for u in units_of(path.name[:2], path.read_text(encoding="utf-8")) if is_claim(u)]


# ---- the -sources jars ----------------------------------------------------------------------------------------
M2 = Path.home() / ".m2" / "repository" / "org" / "apache" / "kafka"


def jar_path(artifact: str, release: str) -> Path:
    """Where Maven keeps a Kafka artifact's ``-sources`` jar."""
    return M2 / artifact / release / f"{artifact}-{release}-sources.jar"


_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.rebalance</groupId><artifactId>release-claims</artifactId><version>1</version><packaging>pom</packaging>
  <build><plugins><plugin>
    <groupId>org.apache.maven.plugins</groupId><artifactId>maven-dependency-plugin</artifactId><version>3.6.1</version>
    <configuration><outputDirectory>${{project.build.directory}}/jars</outputDirectory><artifactItems>
{items}
    </artifactItems></configuration>
  </plugin></plugins></build>
</project>
"""
_ITEM = ("      <artifactItem><groupId>org.apache.kafka</groupId><artifactId>{0}</artifactId><version>{1}</version>"
         "<classifier>sources</classifier><type>jar</type></artifactItem>")


def fetch_command(missing: list[tuple[str, str]], folder: Path) -> list[str]:
    """One Maven run that resolves every missing ``-sources`` jar into ``~/.m2`` (a pom of artifactItems for
    ``dependency:copy``: one JVM for all of them, not one per jar)."""
    (folder / "pom.xml").write_text(_POM.format(items="\n".join(_ITEM.format(a, r) for a, r in missing)),
                                    encoding="utf-8")
    return ["mvn", "-B", "-q", "--no-transfer-progress", "-f", str(folder / "pom.xml"), "dependency:copy"]
