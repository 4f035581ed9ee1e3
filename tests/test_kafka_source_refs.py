"""Every line of Kafka's source that a chapter cites contains what the sentence says it contains.

The chapters point readers at Kafka's code by line: "`onJoinPrepare` (line 752)", "`assignRanges`, lines 153
to 168, and `maxAssignable`, lines 275 to 278, {cite}`kafka-range`".  A line number is only worth printing if it
is right for the release the book names, so this test reads each reference, finds the file and the release it
points at through ``references.bib``, opens that file in the release's ``-sources`` jar from the local Maven
repository (``~/.m2``, filled by the Java module's build; the jars are those of Maven Central) and requires the
identifier the sentence names to be on the cited lines.  There is no tolerance: the identifier must be inside
the cited range, every cited range when the sentence lists several.

The reference grammar
=====================

*Reference.*  Any ``line N``, ``lines N to M``, ``lines N-M`` (or ``N–M``), ``lines N and M``, ``lines N, M
and K`` or ``lines N to M and K to L`` in a chapter's prose.  Fenced code, math, directive options and the
YAML headers of code cells are not prose.  A paragraph is a block between blank lines; each list item and
each table row is a paragraph of its own.  A sentence ends at ``.``, ``!`` or ``?`` followed by a space, and
at a table cell's ``|``.

*Key.*  The first ``{cite}`` key after the reference in the same sentence whose ``references.bib`` entry is a
source file (its ``url`` is ``https://github.com/<owner>/<repo>/blob/<ref>/<path>``); failing that, the nearest
such key before the reference in the same paragraph.  Keys of other entries (KIPs, JIRA issues, articles) are
passed over.  A reference that resolves to no source key fails the test.

*Subject.*  The last inline code span or double-quoted phrase between the previous reference of the
paragraph (or the paragraph's start) and this reference, passing over a code span that only names the cited
file (``AbstractStickyAssignor``, ``AdminUtils.java``, ``src/rdkafka_mock_cgrp.c``).  The subject must occur
in every cited range of the file: verbatim (whitespace-normalised, so a quoted log message may wrap), or, for
a dotted name such as ``WorkerCoordinator.onJoinPrepare`` or ``RangeAssignor.TopicAssignmentState.racksMatch``,
by its last part as a whole word.  A reference to a Kafka file that names no subject fails the test.

*Release.*  A Kafka source entry of ``references.bib`` names its file and release twice, and both must agree:
``howpublished = {Java source, <path> at Kafka <release>}`` and ``url = {.../apache/kafka/blob/<release>/<path>}``.
The release is :data:`rebalance.versions.KAFKA_VERSION` unless the entry is one of :data:`HISTORY`, the
sources of behaviour that 4.3.1 no longer has, which cite :data:`rebalance.versions.KAFKA_3_RELEASE`
(3.9.2, the last release with ZooKeeper mode, whose replica placer is ``AdminUtils``, and the last whose
brokers ran the Scala group coordinator by default).

What is not machine-checked
===========================

* librdkafka's source (the ``librdkafka-*`` keys, chapter 10 only, 45 references to
  ``src/rdkafka_*.c`` of librdkafka 2.15.0).  No jar or wheel carries librdkafka's C source, so CI cannot
  read it; the references are still parsed, must resolve to a librdkafka key and may only be in chapter 10.
  They were checked by hand against the v2.15.0 tag.

Nothing else: every reference to Kafka's source in the book is checked.  A ``-sources`` jar missing from
``~/.m2`` skips that reference with the Maven command that fetches it.  ``make java`` (java/build.sh) resolves
the ``-sources`` jars of the Kafka modules the Java module depends on; the broker's Scala sources
(``KafkaConfig.scala``, the Scala ``GroupCoordinator``, ``AdminZkClient``: seven references of chapters 8, 9
and 12) are not among them and come with
``mvn dependency:get -Dtransitive=false -Dartifact=org.apache.kafka:kafka_2.13:<release>:jar:sources``.

The tests at the end plant wrong line numbers in copies of the book's own references and require the check
to fail on every one of them.
"""
from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional

import pytest

from rebalance.versions import KAFKA_3_RELEASE, KAFKA_VERSION

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]-*.md"))
BIB = ROOT / "references.bib"
M2 = Path.home() / ".m2" / "repository" / "org" / "apache" / "kafka"

#: Kafka source entries that cite an older release on purpose: behaviour Kafka 4.3.1 no longer has
HISTORY = {
    "kafka-adminutils": "ZooKeeper mode's replica placement; ZooKeeper mode left in 4.0, the class in 4.1",
    "kafka-adminzkclient": "ZooKeeper-era AdminZkClient, removed with ZooKeeper in 4.0",
    "kafka-groupcoordinator-scala": "the Scala classic group coordinator, default up to 3.9, removed in 4.1",
    "kafka-groupcoordinatorconfig-3.9": "the 3.9 defaults of the consumer protocol, changed in 4.0",
    "kafka-kafkaconfig-3.9": "the 3.9 KRaft check and preview warning of KIP-848, gone in 4.0",
    "kafka-uniformhomogeneous-3.9": "the homogeneous quota rule up to 4.0.0, changed by KAFKA-18688 in 4.0.1",
}

#: module folder of Kafka's repository -> artifact whose -sources jar holds its files
ARTIFACTS = {
    "clients/src/main/java/": "kafka-clients",
    "group-coordinator/group-coordinator-api/src/main/java/": "kafka-group-coordinator-api",
    "group-coordinator/src/main/java/": "kafka-group-coordinator",
    "connect/runtime/src/main/java/": "connect-runtime",
    "metadata/src/main/java/": "kafka-metadata",
    "server-common/src/main/java/": "kafka-server-common",
    "tools/src/main/java/": "kafka-tools",
    "streams/src/main/java/": "kafka-streams",
    "core/src/main/scala/": "kafka_2.13",
    "core/src/main/java/": "kafka_2.13",
}


# ---- references.bib ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Source:
    key: str
    repo: str        # "apache/kafka", "confluentinc/librdkafka"
    ref: str         # release tag or commit
    path: str        # file path in the repository
    howpublished: str

    @property
    def is_kafka(self) -> bool:
        return self.repo == "apache/kafka"

    def names_file(self, span: str) -> bool:
        """Whether a code span only names this file (its class, its file name or its path)."""
        name = self.path.rsplit("/", 1)[-1]
        stem = name.rsplit(".", 1)[0]
        return span in (stem, name) or span.endswith("/" + name)


def _field(entry: str, name: str) -> str:
    m = re.search(name + r"\s*=\s*\{((?:[^{}]|\{[^{}]*\})*)\}", entry)
    return m.group(1).strip() if m else ""


@lru_cache(maxsize=None)
def bibliography() -> dict[str, Optional[Source]]:
    """Every entry of references.bib: its :class:`Source` if it cites a file of a repository, else None."""
    text = BIB.read_text(encoding="utf-8")
    entries: dict[str, Optional[Source]] = {}
    for m in re.finditer(r"^@\w+\{([^,\s]+),(.*?)^\}", text, flags=re.M | re.S):
        key, body = m.group(1), m.group(2)
        url = _field(body, "url")
        blob = re.match(r"https://github\.com/([^/]+/[^/]+)/blob/([^/]+)/(.+)$", url)
        entries[key] = Source(key, blob.group(1), blob.group(2), blob.group(3),
                              _field(body, "howpublished")) if blob else None
    return entries


# ---- Kafka's -sources jars ------------------------------------------------------------------------------
def jar_location(source: Source) -> tuple[Path, str]:
    """The ``-sources`` jar that holds a Kafka source file, and the file's name inside it."""
    for prefix, artifact in ARTIFACTS.items():
        if source.path.startswith(prefix):
            jar = M2 / artifact / source.ref / f"{artifact}-{source.ref}-sources.jar"
            return jar, source.path[len(prefix):]
    raise AssertionError(f"{source.key}: no artifact known for {source.path} (add its module to ARTIFACTS)")


@lru_cache(maxsize=None)
def source_lines(source: Source) -> list[str]:
    """The lines of the cited file (index 0 is line 1); skips the test if its jar is not in ~/.m2."""
    jar, member = jar_location(source)
    if not jar.exists():
        artifact = jar.parent.parent.name
        pytest.skip(f"{jar.name} is not in ~/.m2; fetch it with: mvn -q dependency:get -Dtransitive=false "
                    f"-Dartifact=org.apache.kafka:{artifact}:{source.ref}:jar:sources")
    with zipfile.ZipFile(jar) as z:
        try:
            return z.read(member).decode("utf-8").splitlines()
        except KeyError:
            raise AssertionError(f"{source.key}: {member} is not in {jar.name}") from None


# ---- the chapters' references ---------------------------------------------------------------------------
_SPAN = r"\d+(?:\s*(?:-|–|to)\s*\d+)?"                       # 153, 153 to 168, 1604-1793
LINES = re.compile(r"\blines?\s+(" + _SPAN + r"(?:\s*(?:,\s*and|,|and)\s*" + _SPAN + r")*)")
RANGE = re.compile(r"(\d+)(?:\s*(?:-|–|to)\s*(\d+))?")
CITE = re.compile(r"\{cite(?::[tp])?\}`([^`]+)`")
CODE = re.compile(r"`([^`\n]+)`")
QUOTE = re.compile(r"\"([^\"\n]+)\"|“([^”\n]+)”")
SENTENCE_END = re.compile(r"[.!?](?=\s)|\|")


@dataclass(frozen=True)
class Reference:
    chapter: str
    text: str                        # the reference as written, "lines 153 to 168"
    ranges: tuple[tuple[int, int], ...]
    key: Optional[str]
    subject: Optional[str]
    context: str                     # the sentence around it, for messages

    def __str__(self) -> str:
        return f"{self.chapter}: {self.subject!r}, {self.text} {{cite}}`{self.key}`"


def prose_paragraphs(markdown: str) -> list[str]:
    """The chapter's prose, one string per paragraph, list item or table row, lines joined by spaces."""
    text = re.sub(r"\A---\n.*?\n---\n", "\n", markdown, flags=re.S)                  # front matter
    text = re.sub(r"^(```|~~~).*?^\1[ \t]*$", "\n", text, flags=re.S | re.M)           # code and cell headers
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = re.sub(r"(?<![\\`])\$[^$\n]+\$", " ", text)                                 # inline math
    text = re.sub(r"^\s*(:{3,}.*|:[\w-]+:.*|\([\w-]+\)=)\s*$", "\n", text, flags=re.M)  # directives, labels
    text = re.sub(r"^(\s*(?:[*-]|\d+\.)\s)", r"\n\1", text, flags=re.M)               # list items apart
    text = re.sub(r"^(\|.*)$", r"\n\1\n", text, flags=re.M)                             # table rows apart
    return [" ".join(block.split()) for block in re.split(r"\n\s*\n", text) if block.strip()]


def _mask(paragraph: str) -> str:
    """The paragraph with cite roles, code spans and quotes blanked out (same length), for sentence ends."""
    masked = paragraph
    for pattern in (CITE, CODE, QUOTE):
        masked = pattern.sub(lambda m: "\0" * len(m.group(0)), masked)
    return masked


def parse_ranges(spec: str) -> tuple[tuple[int, int], ...]:
    ranges = []
    for m in RANGE.finditer(spec):
        first = int(m.group(1))
        last = int(m.group(2)) if m.group(2) else first
        ranges.append((first, last))
    return tuple(ranges)


def paragraph_references(chapter: str, paragraph: str) -> list[Reference]:
    """The source line references of one paragraph, resolved to a key and a subject by the grammar above."""
    bib = bibliography()
    masked = _mask(paragraph)
    ends = [m.start() for m in SENTENCE_END.finditer(masked)] + [len(paragraph)]
    cites = [(m.start(), k.strip()) for m in CITE.finditer(paragraph) for k in m.group(1).split(",")
             if bib.get(k.strip()) is not None]
    no_cites = CITE.sub(lambda m: "\0" * len(m.group(0)), paragraph)
    no_code = CODE.sub(lambda m: "\0" * len(m.group(0)), no_cites)
    subjects = [(m.start(), m.group(1), True) for m in CODE.finditer(no_cites)]       # (position, text, is code)
    subjects += [(m.start(), m.group(1) or m.group(2), False) for m in QUOTE.finditer(no_code)]
    subjects.sort()

    references = []
    previous_end = 0
    for m in LINES.finditer(masked):
        start, end = m.start(), m.end()
        sentence_end = next(e for e in ends if e >= end)
        sentence_start = max([e for e in ends if e < start], default=-1) + 1
        after = [k for pos, k in cites if end <= pos < sentence_end]
        before = [k for pos, k in cites if pos < start]
        key = after[0] if after else (before[-1] if before else None)
        source = bib.get(key) if key else None
        candidates = [text for pos, text, is_code in subjects if previous_end <= pos < start
                      and not (is_code and source is not None and source.names_file(text))]
        references.append(Reference(chapter, paragraph[start:end], parse_ranges(m.group(1)), key,
                                    candidates[-1] if candidates else None,
                                    paragraph[sentence_start:sentence_end + 1].strip()))
        previous_end = end
    return references


def chapter_references(path: Path) -> list[Reference]:
    refs = []
    for paragraph in prose_paragraphs(path.read_text(encoding="utf-8")):
        refs.extend(paragraph_references(path.stem, paragraph))
    return refs


@lru_cache(maxsize=None)
def all_references() -> tuple[Reference, ...]:
    return tuple(r for chapter in CHAPTERS for r in chapter_references(chapter))


def kafka_references() -> list[Reference]:
    bib = bibliography()
    return [r for r in all_references() if r.key and bib[r.key].is_kafka]


# ---- the check ----------------------------------------------------------------------------------------------
def _normalise(text: str) -> str:
    return " ".join(text.split())


def subject_in(subject: str, lines: list[str]) -> bool:
    """Whether the subject (code span or quoted phrase) occurs in the given source lines."""
    text = _normalise("\n".join(lines))
    probe = _normalise(subject)
    if probe.endswith("()"):
        probe = probe[:-2]
    if probe in text:
        return True
    if re.fullmatch(r"[\w$]+(?:\.[\w$]+)+", probe):              # Class.member: the member, as a word
        return re.search(r"(?<![\w$])" + re.escape(probe.rsplit(".", 1)[1]) + r"(?![\w$])", text) is not None
    return False


def check(reference: Reference) -> list[str]:
    """The problems of one reference to Kafka's source; empty when the cited lines hold its subject."""
    bib = bibliography()
    if reference.key is None:
        return [f"{reference.text!r} has no {{cite}} key of a source file in its sentence or paragraph"]
    source = bib[reference.key]
    if reference.subject is None:
        return [f"{reference.text!r} names no identifier (a code span or a quoted phrase) before it"]
    lines = source_lines(source)
    problems = []
    for first, last in reference.ranges:
        if not 1 <= first <= last <= len(lines):
            problems.append(f"lines {first}-{last} are not in {source.path} at {source.ref} ({len(lines)} lines)")
        elif not subject_in(reference.subject, lines[first - 1:last]):
            shown = "\n".join(f"    {n:5d} {lines[n - 1]}" for n in range(first, min(last, first + 4) + 1))
            problems.append(f"{reference.subject!r} is not on lines {first}-{last} of {source.path} at "
                            f"{source.ref}:\n{shown}")
    return problems


# ---- tests ----------------------------------------------------------------------------------------------------
def test_the_book_cites_kafka_source_lines():
    refs = kafka_references()
    assert len(refs) >= 40, f"only {len(refs)} references to Kafka's source found: has the grammar broken?"
    assert {r.chapter for r in refs} >= {"02-range-assignor", "07-eager-and-cooperative", "09-kip848"}


def test_every_reference_resolves_to_a_source_key():
    unresolved = [f"{r.chapter}: {r.text!r} in: {r.context[:160]}" for r in all_references() if r.key is None]
    assert not unresolved, ("line references without a {cite} key of a source file in their sentence or "
                            "paragraph:\n" + "\n".join(unresolved))


def test_unchecked_references_are_librdkafkas():
    """The references this test cannot read are librdkafka's C source, all in chapter 10."""
    bib = bibliography()
    unchecked = [r for r in all_references() if r.key and not bib[r.key].is_kafka]
    assert all(bib[r.key].repo == "confluentinc/librdkafka" for r in unchecked)
    assert {r.chapter for r in unchecked} <= {"10-real-clients"}, sorted({r.chapter for r in unchecked})


@pytest.mark.parametrize("reference", kafka_references(), ids=lambda r: f"{r.chapter}:{r.key}:{r.text}")
def test_cited_lines_hold_the_named_identifier(reference):
    problems = check(reference)
    assert not problems, f"{reference}\n  in: {reference.context}\n  " + "\n  ".join(problems)


KAFKA_SOURCES = sorted(k for k, s in bibliography().items() if s is not None and s.is_kafka)


@pytest.mark.parametrize("key", KAFKA_SOURCES)
def test_bib_entry_names_one_release_and_file(key):
    source = bibliography()[key]
    assert re.fullmatch(r"\d+\.\d+\.\d+", source.ref), f"{key} points at {source.ref}, not at a release"
    language = "Scala" if source.path.endswith(".scala") else "Java"
    assert source.howpublished == f"{language} source, {source.path} at Kafka {source.ref}", (
        f"{key}: howpublished {source.howpublished!r} does not name the url's file and release")
    expected = KAFKA_3_RELEASE if key in HISTORY else KAFKA_VERSION
    assert source.ref == expected, f"{key} cites Kafka {source.ref}; the book models {KAFKA_VERSION}" + (
        "" if key in HISTORY else " (an older release needs an entry in HISTORY, with the reason)")


@pytest.mark.parametrize("key", KAFKA_SOURCES)
def test_bib_entry_file_is_in_its_release(key):
    assert source_lines(bibliography()[key]), f"{key}: empty file"


# ---- the check can fail -----------------------------------------------------------------------------------
def _planted(reference: Reference) -> Optional[Reference]:
    """A copy of the reference moved to nearby lines that do not hold its subject, or None if there are none."""
    lines = source_lines(bibliography()[reference.key])
    for offset in range(1, 400):
        for shift in (offset, -offset):
            moved = tuple((a + shift, b + shift) for a, b in reference.ranges)
            if all(1 <= a <= b <= len(lines) for a, b in moved) and any(
                    not subject_in(reference.subject, lines[a - 1:b]) for a, b in moved):
                spec = " and ".join(f"{a} to {b}" if a != b else str(a) for a, b in moved)
                return Reference(reference.chapter, f"lines {spec}", moved, reference.key, reference.subject,
                                 reference.context)
    return None


@pytest.mark.parametrize("reference", kafka_references(), ids=lambda r: f"{r.chapter}:{r.key}:{r.text}")
def test_a_wrong_line_number_fails(reference):
    planted = _planted(reference)
    if planted is None:
        pytest.skip(f"{reference.subject!r} is on every line near {reference.text}")
    assert check(planted), f"the check accepted {planted.text} for {reference.subject!r} in {reference.key}"


def test_a_planted_reference_in_prose_fails():
    """Through the whole pipeline: a copy of chapter 7's sentence with one line number changed is caught."""
    chapter = ROOT / "chapters" / "07-eager-and-cooperative.md"
    paragraph = next(p for p in prose_paragraphs(chapter.read_text(encoding="utf-8")) if "`onJoinPrepare` (line" in p)
    good = {r.subject: r for r in paragraph_references("planted", paragraph)}
    assert not check(good["onJoinPrepare"])
    number = good["onJoinPrepare"].ranges[0][0]
    wrong = paragraph.replace(f"`onJoinPrepare` (line {number})", f"`onJoinPrepare` (line {number - 41})")
    planted = {r.subject: r for r in paragraph_references("planted", wrong)}
    assert planted["onJoinPrepare"].ranges == ((number - 41, number - 41),)
    assert check(planted["onJoinPrepare"]), "a line number 41 lines off was accepted"


def test_a_reference_without_identifier_or_key_fails():
    sentence = "It revokes everything under the eager protocol (line 830) {cite}`kafka-consumercoordinator`."
    (reference,) = paragraph_references("planted", sentence)
    assert reference.key == "kafka-consumercoordinator" and reference.subject is None
    assert check(reference) == [f"{reference.text!r} names no identifier (a code span or a quoted phrase) before it"]
    (orphan,) = paragraph_references("planted", "`onJoinPrepare` (line 752) revokes everything.")
    assert orphan.key is None and check(orphan)
