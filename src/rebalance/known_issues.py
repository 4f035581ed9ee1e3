"""Known problems of Kafka's (and librdkafka's) group assignment, by release, and how the book checks them.

Each :class:`KnownIssue` is a bug the book found or cites as advice: its symptom in an operator's words, what it
affects (assignor, protocol, client), the releases it was found in and fixed in, the workaround, and the advice
("if you use Y, upgrade to at least X").  Where the book can reproduce a bug, the releases are not typed but
checked: :func:`reproduce` runs Kafka's own assignor classes from the jars of the last affected release and of
the first fixed one (one JVM per release, through :class:`rebalance.kafka.Oracle`) on the input that shows the
bug, and says on which side the symptom appears.  A bug the book cannot run (a librdkafka release, a release whose
classes the oracle cannot drive) is *cited*: its source is the fix's JIRA, pull request or CHANGELOG entry.

The jars: the releases ``make java`` resolves (``java/target/lib-RELEASE``: 4.3.1, 4.0.2, 3.9.2) run on that
classpath; any other release runs on the Java module's classes, that release's Kafka artifacts the kind needs
(``kafka-clients``, and for the broker's KIP-848 assignor the group coordinator's jars) and the pinned release's
other jars (Jackson, SLF4J), resolved from Maven Central into the local Maven repository by one Maven run
(:func:`resolve_jars`).  Kafka's classes themselves are never rebuilt.

Defined in chapter 19, *Known problems by version*; the table mirrors the releases up to Kafka 4.3.1
(:data:`rebalance.versions.KAFKA_VERSION`) and librdkafka 2.16.0.
"""
from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from .common import JsonRecord
from .errors import JavaUnavailableError, LiveClientError
from .validation import require
from .versions import ADMINUTILS_RELEASE, KAFKA_3_RELEASE, KAFKA_VERSION

__all__ = ["KNOWN_ISSUES", "KnownIssue", "Reproduction", "classpath_for", "known_issue", "known_issues_table",
           "reproduce", "reproduction_table", "resolve_jars"]

#: releases whose jars ``make java`` resolves into ``java/target/lib-RELEASE``
BUILT_RELEASES = (KAFKA_VERSION, ADMINUTILS_RELEASE, KAFKA_3_RELEASE)
#: the Kafka artifacts a kind of scenario needs besides the pinned release's other jars
ARTIFACTS: Dict[str, Tuple[str, ...]] = {
    "consumer": ("kafka-clients",),
    "group": ("kafka-clients", "kafka-group-coordinator", "kafka-group-coordinator-api",
              "kafka-coordinator-common", "kafka-server-common", "kafka-metadata"),
}
#: the most rebalances a reproduction replays before it calls a group unsettled
MAX_ROUNDS = 12


# ---- the scenarios ------------------------------------------------------------------------------------------
def _consumer(topics: JsonRecord, members: List[JsonRecord], brokers: Optional[List[JsonRecord]] = None) -> JsonRecord:
    line: JsonRecord = {"kind": "consumer", "assignor": "cooperative-sticky", "topics": topics, "members": members}
    if brokers is not None:
        line["brokers"] = brokers
    return line


def _member(member: str, topics: List[str], owned: Sequence[str] = (), generation: int = -1,
            rack: Optional[str] = None) -> JsonRecord:
    out: JsonRecord = {"memberId": member, "topics": topics, "ownedPartitions": list(owned), "generationId": generation}
    if rack is not None:
        out["rackId"] = rack
    return out


#: KAFKA-14639: consumer-2 missed a rebalance (generation 2) and still owns t-1; consumer-1 is at generation 3
STALE_OWNER = _consumer({"t": 3}, [_member("consumer-1", ["t"], ["t-2"], 3), _member("consumer-2", ["t"], ["t-1"], 2)])
#: KAFKA-15170: consumer-1 (rack a) owns t-3, whose only replica is on rack b; consumer-2 (rack a) joins
RACK_MISMATCH = _consumer({"t": [[0], [0], [1], [1], [1]]},
                          [_member("consumer-1", ["t"], ["t-3"], 1, "a"), _member("consumer-2", ["t"], [], -1, "a")],
                          [{"id": 0, "rack": "a"}, {"id": 1, "rack": "b"}])
#: KAFKA-16277: consumer-1 owns all eight partitions of t1 and t2; consumer-2 joins
TWO_TOPICS = _consumer({"t1": 4, "t2": 4}, [_member("consumer-1", ["t1", "t2"], [f"t{t}-{p}" for t in (1, 2)
                                                                                 for p in range(4)], 1),
                                            _member("consumer-2", ["t1", "t2"])])

# the rack-aware loop (chapter 13's lab at scale, seed 2026, scenario 9303): nine members on three racks, five
# topics with two replicas per partition (rack pairs rotating), consumer-8 has left and the survivors rejoin
_PAIRS = [(0, 1), (1, 2), (0, 2)]
_LOOP_TOPICS = {"topic-a": (20, 0), "topic-b": (2, 2), "topic-c": (11, 1), "topic-d": (9, 2), "topic-e": (7, 0)}
_LOOP_MEMBERS = [  # member, rack, topics, what it owns when consumer-8 has left
    ("consumer-1", "r0", ["topic-a", "topic-b", "topic-d"], "d-0 d-4 d-7 a-11 a-17"),
    ("consumer-2", "r1", ["topic-a"], "a-0 a-1 a-4 a-10 a-18"),
    ("consumer-3", "r0", ["topic-a", "topic-b", "topic-c"], "c-1 c-2 c-4 c-5 c-7 c-8 c-10 c-0 c-3 c-6 c-9"),
    ("consumer-4", "r2", ["topic-a", "topic-b"], "b-0 a-2 a-5 a-13 a-19"),
    ("consumer-5", "r2", ["topic-a", "topic-b", "topic-e"], "e-1 e-2 e-4 e-5 e-0 e-3 e-6"),
    ("consumer-6", "r0", ["topic-a", "topic-d"], "d-1 d-6 a-6 a-12"),
    ("consumer-7", "r1", ["topic-a", "topic-b"], "b-1 a-3 a-7 a-15"),
    ("consumer-9", "r2", ["topic-a", "topic-d"], "d-3 d-8 a-8 a-14"),
]
RACK_LOOP = _consumer({t: [list(_PAIRS[(offset + p) % 3]) for p in range(n)] for t, (n, offset) in _LOOP_TOPICS.items()},
                      [_member(m, topics, [f"topic-{x}" for x in owned.split()], 1, rack)
                       for m, rack, topics, owned in _LOOP_MEMBERS],
                      [{"id": i, "rack": f"r{i}"} for i in range(3)])
#: KAFKA-18688 (KIP-848's uniform assignor, homogeneous): seven partitions held 3 / 3 / 1
UNEVEN_SHARES: JsonRecord = {"kind": "group", "assignor": "uniform", "topics": [{"name": "t", "partitions": 7}],
                             "members": [{"id": m, "subscriptions": ["t"], "assignment": {"t": p}}
                                         for m, p in (("consumer-1", [0, 1, 2]), ("consumer-2", [3, 4, 5]),
                                                      ("consumer-3", [6]))]}


# ---- what a symptom looks like in Kafka's answer ------------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    """What one release's classes did with a reproduction's input: ``symptom`` (whether the bug showed) and a
    one-line ``summary`` in an operator's words."""

    symptom: bool
    summary: str


def _owners(line: JsonRecord) -> Dict[str, str]:
    return {p: m["memberId"] for m in line["members"] for p in m.get("ownedPartitions", [])}


def _handovers(line: JsonRecord, output: JsonRecord) -> Outcome:
    """A partition that changes owner within one rebalance, given to its new owner while the old one still has it
    (the cooperative protocol hands it over only after the old owner revoked it: ``partitionsTransferringOwnership``)."""
    owners = _owners(line)
    unsafe = sorted((p, owners[p], m) for m, ps in output["assignment"].items() for p in ps if owners.get(p, m) != m)
    if unsafe:
        return Outcome(True, "; ".join(f"{p} goes from {old} to {new} in the same rebalance" for p, old, new in unsafe))
    withheld = sorted((output.get("partitionsTransferringOwnership") or {}).items())
    moves = ", ".join(f"{p} to {m}" for p, m in withheld)
    return Outcome(False, f"the old owner revokes first, then {moves} in the next rebalance" if withheld
                   else "no partition changes owner")


def _topic_spread(line: JsonRecord, output: JsonRecord) -> Outcome:
    """Each member's partitions per topic once the handovers are done (this round's assignment plus the
    partitions withheld for it)."""
    final = {m: list(ps) for m, ps in output["assignment"].items()}
    for p, m in (output.get("partitionsTransferringOwnership") or {}).items():
        final[m].append(p)
    topics = sorted(line["topics"])
    counts = {m: {t: sum(1 for p in ps if p.rsplit("-", 1)[0] == t) for t in topics} for m, ps in final.items()}
    uneven = any(max(c[t] for c in counts.values()) - min(c[t] for c in counts.values()) > 1 for t in topics)
    text = "; ".join(f"{m}: " + ", ".join(f"{c[t]} of {t}" for t in topics) for m, c in sorted(counts.items()))
    return Outcome(uneven, text)


def _moved(line: JsonRecord, output: JsonRecord) -> Outcome:
    """KIP-848: how many partitions the target assignment takes from a member that holds them."""
    before = {(t, p): m["id"] for m in line["members"] for t, ps in m["assignment"].items() for p in ps}
    after = {(t, p): m for m, a in output["steps"][0]["assignment"].items() for t, ps in a.items() for p in ps}
    moved = sorted(f"{t}-{p}" for (t, p), m in after.items() if before.get((t, p), m) != m)
    verb = "moves" if len(moved) == 1 else "move"
    return Outcome(len(moved) > 1, f"{len(moved)} partition{'s' if len(moved) != 1 else ''} {verb} ({', '.join(moved)})")


# ---- the table ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class KnownIssue:
    """One known problem: ``key`` (the JIRA or issue id, or the book's name for a bug it found), its symptom, what
    it affects, the releases (``affected``, ``fixed``: ``None`` when no release fixes it), the workaround and the
    advice.  ``checked`` holds the releases :func:`reproduce` runs (the last affected release and the first fixed
    one, or the releases around the bug's start), empty for a cited bug; ``cite`` is the bibliography key."""

    key: str
    title: str
    symptom: str
    affects: str
    affected: str
    fixed: Optional[str]
    workaround: str
    advice: str
    cite: str
    chapter: int
    checked: Tuple[str, ...] = ()
    scenario: Optional[JsonRecord] = None
    judge: Optional[Callable[[JsonRecord, JsonRecord], Outcome]] = field(default=None, repr=False, compare=False)
    rounds: bool = False   #: replay rebalances until the group settles (or :data:`MAX_ROUNDS`)

    @property
    def evidence(self) -> str:
        """``"reproduced"`` (on the jars of :attr:`checked`) or ``"cited"``."""
        return "reproduced" if self.checked else "cited"


KNOWN_ISSUES: Tuple[KnownIssue, ...] = (
    KnownIssue(
        "KAFKA-14639", "A partition is revoked and assigned in the same rebalance",
        "a consumer that missed a rebalance (one generation behind) loses a partition it still reads, and another "
        "consumer starts reading it in the same rebalance: both process the same records for a while",
        "sticky and cooperative-sticky, classic protocol, Java client (the group leader's)",
        "up to 3.4.0", "3.4.1 and 3.5.0",
        "none on the affected clients; the duplicates are what an at-least-once consumer tolerates anyway",
        "If your consumers use cooperative-sticky, upgrade every consumer (any of them can be the leader) to at "
        "least 3.4.1.", "kafka-14639", 4, ("3.4.0", "3.4.1"), STALE_OWNER, _handovers),
    KnownIssue(
        "KAFKA-15106", "The balancing loop's stopping test (isBalanced)",
        "reported as rack-aware cooperative-sticky groups rebalancing hundreds of times on 3.5 clients; the fix "
        "changes when the leader's balancing loop stops, and the book's inputs get the same assignment either side",
        "sticky and cooperative-sticky (general path: members subscribe differently), Java client",
        "3.5.0 and 3.5.1", "3.5.2 and 3.6.0",
        "leave client.rack unset on these consumers",
        "If your consumers use cooperative-sticky with client.rack on 3.5, upgrade them to at least 3.5.2.",
        "kafka-15106", 4, ("3.5.1", "3.5.2"), RACK_LOOP, None, rounds=True),
    KnownIssue(
        "KAFKA-15170", "Rack-aware revocations skip the cooperative handover",
        "with client.rack set, a consumer loses a partition whose replicas are not on its rack and another consumer "
        "starts reading it in the same rebalance: both process the same records for a while",
        "sticky and cooperative-sticky with client.rack (KIP-881), Java client",
        "3.5.0 to 3.7.0", "3.7.1 and 3.8.0",
        "leave client.rack unset on these consumers",
        "If your consumers use cooperative-sticky with client.rack, upgrade them to at least 3.7.1.",
        "kafka-15170", 4, ("3.7.0", "3.7.1"), RACK_MISMATCH, _handovers),
    KnownIssue(
        "KAFKA-16277", "Kept partitions are taken topic by topic",
        "when a consumer joins, the old member keeps whole topics and the newcomer gets all its partitions from "
        "the other topic: per topic the load is as uneven as it can be",
        "sticky and cooperative-sticky (members subscribe alike), Java client",
        "up to 3.7.0", "3.7.1 and 3.8.0",
        "none short of upgrading; with one topic per group the order does not matter",
        "If your consumers use sticky or cooperative-sticky over several topics, upgrade them to at least 3.7.1.",
        "kafka-16277", 4, ("3.7.0", "3.7.1"), TWO_TOPICS, _topic_spread),
    KnownIssue(
        "rack-aware-loop", "Rack-aware cooperative-sticky can rebalance forever (found by this book)",
        "your group keeps rebalancing: every rebalance revokes one partition and the next gives it back, so one "
        "partition is never consumed",
        "cooperative-sticky with client.rack (KIP-881) and members that subscribe to different topics, Java client",
        "3.5.0 to 4.3.1", None,
        "leave client.rack unset, give every member the same subscription, or use group.protocol=consumer",
        "If your consumers use cooperative-sticky with client.rack and different subscriptions, no release fixes "
        "this: unset client.rack or move the group to group.protocol=consumer.",
        "kip881", 13, ("3.4.1", "3.5.0", "3.7.1", KAFKA_VERSION), RACK_LOOP, None, rounds=True),
    KnownIssue(
        "KAFKA-18688", "KIP-848's uniform assignor moves more partitions than it needs",
        "with group.protocol=consumer, a rebalance takes a partition from a member whose share is already at the "
        "cap, so more partitions change owner (and pause) than balance needs",
        "the broker's uniform assignor (group.remote.assignor=uniform, the default), members subscribing alike",
        "4.0.0", "4.0.1 and 4.1.0",
        "none on the broker; the extra moves are one partition per member at most",
        "If your groups use group.protocol=consumer, run brokers of at least 4.0.1.",
        "kafka-18688", 9, ("4.0.0", "4.0.1"), UNEVEN_SHARES, _moved),
    KnownIssue(
        "KAFKA-12984", "Two members claim the same partition in the same generation",
        "the group leader's cooperative-sticky assignor fails or gives a partition to two consumers when two "
        "members report owning it in the same generation, and the group cannot settle",
        "sticky and cooperative-sticky, Java client", "up to 2.8.0", "2.8.1 and 3.0.0",
        "restart the members that claim the partition",
        "If your consumers use cooperative-sticky, upgrade them to at least 2.8.1.", "kafka-12984", 4),
    KnownIssue(
        "KAFKA-12495", "Kafka Connect rebalance storms",
        "your Connect cluster keeps rebalancing when a worker joins right after a revoking rebalance",
        "Kafka Connect's incremental cooperative assignor (connect.protocol=sessioned or compatible)",
        "2.3.0 to 3.3.2", "3.4.0",
        "keep scheduled.rebalance.max.delay.ms at its default and add workers one at a time",
        "If you run Kafka Connect in distributed mode, upgrade the workers to at least 3.4.0.", "kafka-12495", 11),
    KnownIssue(
        "librdkafka-4783", "librdkafka's cooperative-sticky loops forever",
        "the group leader (a librdkafka consumer) spins at full CPU in its assignor and the rebalance never "
        "completes, with some orders of members and partitions",
        "librdkafka's cooperative-sticky (confluent-kafka and other librdkafka clients)",
        "librdkafka 1.6.0 to 2.6.0", "librdkafka 2.6.1",
        "use range or roundrobin in librdkafka clients",
        "If your librdkafka consumers use cooperative-sticky, upgrade librdkafka to at least 2.6.1.",
        "librdkafka-issue-4783", 10),
    KnownIssue(
        "librdkafka-sticky-crash", "librdkafka's cooperative-sticky leader crashes (found by this book)",
        "the group leader's process aborts (an assertion) or dies of a segmentation fault in the middle of a "
        "rebalance, in groups whose members subscribe differently",
        "librdkafka's cooperative-sticky (confluent-kafka and other librdkafka clients)",
        "librdkafka 1.6.0 to 2.16.0", None,
        "use range or roundrobin in librdkafka clients whose subscriptions differ, or group.protocol=consumer "
        "(librdkafka 2.12.0 or later)",
        "If your librdkafka consumers subscribe differently, do not use cooperative-sticky: no release fixes this.",
        "librdkafka-sticky", 10),
)


def known_issue(key: str) -> KnownIssue:
    """The issue of ``key`` (``InputError`` naming ``key`` for an unknown one)."""
    found = [i for i in KNOWN_ISSUES if i.key == key]
    require(bool(found), "key", f"no known issue {key!r}; known: {', '.join(i.key for i in KNOWN_ISSUES)}")
    return found[0]


def known_issues_table() -> List[JsonRecord]:
    """The table for operators: one row per issue, in the order of :data:`KNOWN_ISSUES`."""
    return [{"issue": i.key, "symptom": i.symptom, "affects": i.affects, "affected": i.affected,
             "fixed in": i.fixed or "not fixed", "workaround": i.workaround, "advice": i.advice,
             "evidence": i.evidence} for i in KNOWN_ISSUES]


# ---- the jars -----------------------------------------------------------------------------------------------
def _m2() -> Path:
    return Path(os.environ.get("REBALANCE_M2_REPOSITORY") or Path.home() / ".m2" / "repository")


def _jar(artifact: str, release: str) -> Path:
    return _m2() / "org" / "apache" / "kafka" / artifact / release / f"{artifact}-{release}.jar"


_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>
  <groupId>org.rebalance</groupId><artifactId>known-issues</artifactId><version>1</version><packaging>pom</packaging>
  <build><plugins><plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-dependency-plugin</artifactId>
    <version>3.6.1</version><configuration><outputDirectory>${{project.build.directory}}/jars</outputDirectory>
    <artifactItems>
{items}
    </artifactItems></configuration></plugin></plugins></build>
</project>
"""
_ITEM = ("      <artifactItem><groupId>org.apache.kafka</groupId><artifactId>{0}</artifactId><version>{1}</version>"
         "<type>jar</type></artifactItem>")


def resolve_jars(pairs: Iterable[Tuple[str, str]]) -> List[Tuple[str, str]]:
    """Bring the class jars of ``(artifact, release)`` pairs missing from the local Maven repository, all in one
    Maven run (``dependency:copy``); returns the pairs it fetched.  :class:`~rebalance.errors.JavaUnavailableError`
    when Maven is missing or fails (no network)."""
    missing = sorted({(a, r) for a, r in pairs if not _jar(a, r).exists()})
    if not missing:
        return []
    with tempfile.TemporaryDirectory(prefix="rebalance-known-issues-") as folder:
        pom = Path(folder) / "pom.xml"
        pom.write_text(_POM.format(items="\n".join(_ITEM.format(a, r) for a, r in missing)), encoding="utf-8")
        try:
            done = subprocess.run(["mvn", "-B", "-q", "--no-transfer-progress", "-f", str(pom), "dependency:copy"],
                                  capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise JavaUnavailableError(f"Maven could not fetch Kafka's jars {missing}: {exc}") from exc
    if done.returncode != 0 or any(not _jar(a, r).exists() for a, r in missing):
        raise JavaUnavailableError(f"Maven could not fetch Kafka's jars {missing}: {done.stdout[-400:]}")
    return missing


def classpath_for(release: str, kinds: Sequence[str]) -> List[str]:
    """The oracle's classpath that runs the ``kinds`` of scenario (``consumer``, ``group``) on Kafka ``release``:
    the module's own for a release ``make java`` resolves, else the module's classes, ``release``'s artifacts of
    :data:`ARTIFACTS` and the pinned release's jars that are not Kafka's (fetched first if missing)."""
    from .kafka.jvm import module_classpath

    for i, kind in enumerate(kinds):
        require(kind in ARTIFACTS, f"kinds[{i}]", f"must be one of {sorted(ARTIFACTS)}, got {kind!r}")
    if release in BUILT_RELEASES:
        return module_classpath(release)
    *classes, pinned = module_classpath(KAFKA_VERSION)   # [$REBALANCE_ORACLE_EXTRA_CP,] the module, lib/*
    artifacts = sorted({a for kind in kinds for a in ARTIFACTS[kind]})
    resolve_jars((a, release) for a in artifacts)
    others = sorted(str(j) for j in Path(pinned).parent.glob("*.jar")
                    if not j.name.startswith(("kafka-", "connect-", "trogdor-")))
    return [*classes, *(str(_jar(a, release)) for a in artifacts), *others]


# ---- the reproductions --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Reproduction:
    """One issue run on one release's classes: ``symptom`` (the bug showed), ``summary`` (what happened)."""

    issue: str
    release: str
    symptom: bool
    summary: str


_CACHE: Dict[Tuple[str, str], Reproduction] = {}


def _replay(answer: Callable[[JsonRecord], JsonRecord], line: JsonRecord) -> Outcome:
    """Rebalance after rebalance as the cooperative protocol runs them: every member rejoins owning what the last
    one gave it, one generation on, until no member has to revoke anything (or :data:`MAX_ROUNDS`)."""
    seen: List[Mapping[str, Sequence[str]]] = []
    members = [dict(m) for m in line["members"]]
    for n in range(1, MAX_ROUNDS + 1):
        output = answer({**line, "members": members})
        assignment = output["assignment"]
        handed = sum(map(len, assignment.values()))
        total = sum(len(v) if isinstance(v, list) else v for v in line["topics"].values())
        revoked = any(set(m["ownedPartitions"]) - set(assignment[m["memberId"]]) for m in members)
        if not revoked:
            return Outcome(False, f"settles after {n} rebalance{'s' if n > 1 else ''}, all {handed} partitions "
                                  f"assigned")
        if assignment in seen:
            cycle = len(seen) - seen.index(assignment)
            return Outcome(True, f"never settles: it alternates between {cycle} assignments, each leaving "
                                 f"{total - handed} of {total} partitions unassigned")
        seen.append(assignment)
        members = [{**m, "ownedPartitions": assignment[m["memberId"]], "generationId": n + 1} for m in members]
    return Outcome(True, f"still rebalancing after {MAX_ROUNDS} rebalances")


def _run_release(release: str, issues: Sequence[KnownIssue]) -> None:
    from .kafka import Oracle

    kinds = sorted({str(i.scenario["kind"]) for i in issues if i.scenario is not None})
    classpath = classpath_for(release, kinds)
    with Oracle(release, heap="256m", classpath=classpath, short=True) as oracle:
        def answer(line: JsonRecord) -> JsonRecord:
            got = oracle.answer(line)
            if got.output is None:
                raise LiveClientError(f"Kafka {release} could not run the reproduction: {got.fault}")
            return got.output

        for issue in issues:
            assert issue.scenario is not None
            if issue.rounds:
                outcome = _replay(answer, issue.scenario)
            else:
                assert issue.judge is not None
                outcome = issue.judge(issue.scenario, answer(issue.scenario))
            _CACHE[(issue.key, release)] = Reproduction(issue.key, release, outcome.symptom, outcome.summary)


def reproduce(keys: Optional[Sequence[str]] = None) -> List[Reproduction]:
    """Run the reproductions of ``keys`` (default: every issue with one) on the jars of their :attr:`checked`
    releases, one JVM per release, each result kept for later calls; in the order of the table, then release."""
    issues = [known_issue(k) for k in keys] if keys is not None else [i for i in KNOWN_ISSUES if i.checked]
    for issue in issues:
        require(bool(issue.checked), "keys", f"{issue.key} is cited, not reproduced")
    todo: Dict[str, List[KnownIssue]] = {}
    for issue in issues:
        for release in issue.checked:
            if (issue.key, release) not in _CACHE:
                todo.setdefault(release, []).append(issue)
    for release, batch in sorted(todo.items()):
        _run_release(release, batch)
    return [_CACHE[(i.key, r)] for i in issues for r in i.checked]


def reproduction_table(keys: Optional[Sequence[str]] = None) -> List[JsonRecord]:
    """:func:`reproduce` as rows: issue, release, whether the symptom shows, what happened."""
    return [{"issue": r.issue, "Kafka release": r.release, "symptom": "yes" if r.symptom else "no",
             "what Kafka's classes do": r.summary} for r in reproduce(keys)]
