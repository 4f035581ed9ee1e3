"""What a solution says about its own hidden cell is what that cell printed.

Many exercise solutions end with "the hidden cell below computes it", and their sentences state what the
reader will find there: a count ("two rebalances"), a direction ("both shrink"), a size ("about a tenth
shorter", "almost two fifths fewer").  tests/test_prose_numbers.py only checks that a number of the prose
appears somewhere in the chapter's code or output; it cannot see that "one rebalance" was written where the
cell prints 2, or "shrinks" where the value grew.  This test reads each claim from the executed notebook,
reads the value the solution's hidden cell (the first code cell after the solution) printed, and compares.

The claims are a table, :data:`CLAIMS`: the chapter, the solution's label, a regular expression whose groups
capture the claimed values in the solution's text (whitespace-normalised), and a function that extracts the
observed values from the hidden cell's printed output.  The claimed text is read with a small vocabulary,
:func:`claimed`:

* a count, in digits or words ("2", "two", "no", "none", "nothing", "one"), must equal the observed value;
* a decimal ("4.5") must equal the observed value printed at the same precision;
* a share, "about / almost / a little over" + a fraction in words ("a tenth", "two fifths", "half",
  "twice"), must hold for the observed fraction: about, within a fifth of the value; almost, below it by at
  most 15 %; a little over, above it by at most 30 %;
* "just below N" holds for an observed maximum in [N - 1, N);
* a direction ("shrink", "grow", "does not change") must match the sign of every observed change;
* a quantifier ("all", "most", "every") must hold for the observed fraction.

A claim whose pattern no longer matches its solution fails too, so rewording a solution means revisiting
its row.  The last tests plant a wrong claimed value into each row's own text and require the check to fail,
so that no row can pass whatever the notebook says.

Solutions not in the table state no count, direction or share of what their hidden cell prints (they
explain a mechanism, or name members and partitions), have no hidden cell of their own (chapter 1's second
exercise describes the event table of its code block; chapter 6's first shares the cell of its second), or
put a figure in words this vocabulary does not read: chapter 1's third ("within a millisecond"), chapter 4's
Spark-scale one ("an order of magnitude"), chapter 6's Spark-scale one (a table printed in two blocks) and
chapter 11's Spark-scale one ("in proportion").  The Spark-scale solutions in the table are checked on the
rows they name.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

import pytest

CHAPTERS = Path(__file__).resolve().parents[1] / "chapters"

# ---- reading the notebooks ----------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def _notebook(chapter: str) -> dict:
    return json.loads((CHAPTERS / f"{chapter}.ipynb").read_text(encoding="utf-8"))


def _text(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _output(cell: dict) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if "text" in out:
            parts.append(_text({"source": out["text"]}))
        elif "text/plain" in out.get("data", {}):
            parts.append(_text({"source": out["data"]["text/plain"]}))
    return "\n".join(parts)


@lru_cache(maxsize=None)
def solution(chapter: str, label: str) -> tuple[str, str]:
    """The solution's text (whitespace-normalised) and the printed output of the first code cell after it."""
    cells = _notebook(chapter)["cells"]
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        m = re.search(r":::\{solution\} " + re.escape(label) + r"\n(.*?)\n:::", _text(cell), flags=re.S)
        if m:
            body = re.sub(r"```.*?```", " ", m.group(1), flags=re.S)
            hidden = next((c for c in cells[i + 1:] if c["cell_type"] == "code"), None)
            assert hidden is not None, f"{chapter} {label}: no code cell after the solution"
            return " ".join(body.split()), _output(hidden)
    raise AssertionError(f"{chapter}: no solution {label}")


# ---- what a claim says ------------------------------------------------------------------------------------
WORDS = {"no": 0, "none": 0, "nothing": 0, "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
         "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
FRACTIONS = {"a tenth": 0.1, "a fifth": 0.2, "a quarter": 0.25, "a third": 1 / 3, "two fifths": 0.4,
             "half": 0.5, "two thirds": 2 / 3, "twice": 2.0}
DIRECTIONS = {"shrink": -1, "shrinks": -1, "fall": -1, "falls": -1, "fewer": -1, "grow": 1, "grows": 1,
              "rise": 1, "rises": 1, "more": 1, "does not change": 0}
QUANTIFIERS = {"all": lambda f: f == 1, "every": lambda f: f == 1, "most": lambda f: 0.5 < f <= 1,
               "none": lambda f: f == 0}
QUALIFIED = re.compile(r"^(about|almost|a little over|just below) (.+)$")


@dataclass(frozen=True)
class Claimed:
    kind: str            # "count", "decimal", "share", "below", "direction", "quantifier"
    value: float
    qualifier: str = ""
    decimals: int = 0
    word: str = ""


def claimed(text: str) -> Claimed:
    """What a captured piece of a solution claims."""
    text = " ".join(text.lower().split())
    if text in DIRECTIONS:
        return Claimed("direction", DIRECTIONS[text], word=text)
    if text in QUANTIFIERS:
        return Claimed("quantifier", 0, word=text)
    m = QUALIFIED.match(text)
    if m:
        qualifier, rest = m.groups()
        inner = claimed(rest)
        kind = "below" if qualifier == "just below" else "share"
        return Claimed(kind, inner.value, qualifier, inner.decimals)
    if text in FRACTIONS:
        return Claimed("share", FRACTIONS[text], "exactly")
    if text in WORDS:
        return Claimed("count", WORDS[text])
    if re.fullmatch(r"\d+", text):
        return Claimed("count", int(text))
    if re.fullmatch(r"\d+\.\d+", text):
        return Claimed("decimal", float(text), decimals=len(text.split(".")[1]))
    raise ValueError(f"no reading for the claimed text {text!r}")


def holds(claim: Claimed, observed) -> bool:
    """Whether an observed value (or every one of a list of them) bears the claim out."""
    if isinstance(observed, (list, tuple)):                 # a claim about several printed values: each
        return bool(observed) and all(holds(claim, o) for o in observed)
    if claim.kind == "direction":
        return (observed > 0) - (observed < 0) == claim.value
    if claim.kind == "quantifier":
        return QUANTIFIERS[claim.word](observed)
    if claim.kind == "count":
        return observed == claim.value
    if claim.kind == "decimal":
        return round(float(observed), claim.decimals) == claim.value
    if claim.kind == "below":
        return claim.value - 1 <= observed < claim.value
    if claim.kind == "share":
        v = claim.value
        return {"about": abs(observed - v) <= 0.2 * v, "almost": 0.85 * v <= observed < v,
                "a little over": v < observed <= 1.3 * v, "exactly": observed == v}[claim.qualifier]
    raise AssertionError(claim)


# ---- what the hidden cells printed ---------------------------------------------------------------------------
def _find(pattern: str, output: str, convert=float) -> tuple:
    m = re.search(pattern, output, flags=re.M)
    assert m, f"the hidden cell printed nothing matching {pattern!r}:\n{output[:600]}"
    return tuple(convert(g) for g in m.groups())


def _all(pattern: str, output: str, convert=float) -> list:
    found = [convert(g) for g in re.findall(pattern, output, flags=re.M)]
    assert found, f"the hidden cell printed nothing matching {pattern!r}:\n{output[:600]}"
    return found


def _row(output: str, label: str) -> list[float]:
    """The numbers of a printed table's row, by the row's leading label."""
    for line in output.splitlines():
        if line.strip().startswith(label + " ") or line.strip() == label:
            return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", line[line.index(label) + len(label):])]
    raise AssertionError(f"no row {label!r} in:\n{output[:600]}")


def _kip848_join(output: str) -> dict[int, list[float]]:
    return {int(k): [float(x) for x in rest.split()] for k, rest in
            re.findall(r"^(\d{4})\s+(\d+\s+[\d.]+\s+\d+)\s*$", output, flags=re.M)}


def _relative_drop(output: str, column: int) -> float:
    runs = _kip848_join(output)
    slow, fast = runs[5000][column], runs[2000][column]
    return 1 - fast / slow


@dataclass(frozen=True)
class Claim:
    chapter: str
    solution: str
    pattern: str                                     # groups: the claimed values
    observe: Callable[[str], tuple]                   # the printed output -> one observed value per group

    @property
    def id(self) -> str:
        return f"{self.chapter[:2]}-{self.solution}-{self.pattern[:40]}"


CLAIMS = [
    # chapter 15, exercise 1 and the Spark-scale exercise: a scale-out under HighAvailabilityTaskAssignor
    Claim("15-kafka-streams", "ex-streams-1", r"(No) active task moves",
          lambda o: _find(r"first rebalance: (\d+) actives moved", o, int)),
    Claim("15-kafka-streams", "ex-streams-1", r"(Two) warm-ups are handed out",
          lambda o: _find(r"actives moved, (\d+) warm-ups", o, int)),
    Claim("15-kafka-streams", "ex-streams-spark", r"The probing rebalances (shrink) with the larger budget",
          lambda o: ([b - a for a, b in [_find(r"probing rebalances: (\S+) -> (\S+);", o)]],)),
    Claim("15-kafka-streams", "ex-streams-spark", r"The active tasks moved (shrink) too",
          lambda o: ([b - a for a, b in [_find(r"active tasks moved: (\S+) -> (\S+)$", o)]],)),
    # chapter 9, exercise 2: a 2.5x shorter heartbeat, from the table and the printed summary line
    Claim("09-kip848", "ex-kip848-2", r"Both (shrink), but far less than the interval",
          lambda o: ([x - y for x, y in zip(_kip848_join(o)[2000][:2], _kip848_join(o)[5000][:2])],)),
    Claim("09-kip848", "ex-kip848-2", r"time to stable of (\d+\.\d) s instead of (\d+\.\d) s",
          lambda o: _find(r"time to stable (\S+) s -> (\S+) s", o)[::-1]),
    Claim("09-kip848", "ex-kip848-2", r"(about a tenth) shorter", lambda o: (_relative_drop(o, 0),)),
    Claim("09-kip848", "ex-kip848-2", r"(\d+\.\d) unowned partition-seconds instead of (\d+\.\d)",
          lambda o: _find(r"unowned (\S+) -> (\S+) partition-seconds", o)[::-1]),
    Claim("09-kip848", "ex-kip848-2", r"(almost two fifths) fewer", lambda o: (_relative_drop(o, 1),)),
    Claim("09-kip848", "ex-kip848-2", r"with (\d+) heartbeats instead of (\d+) during the join",
          lambda o: (int(_kip848_join(o)[2000][2]), int(_kip848_join(o)[5000][2]))),
    Claim("09-kip848", "ex-kip848-2", r"every member heartbeats (\d+\.\d) times as often",
          lambda o: _find(r"\((\S+) times as many\)", o)),
    # chapter 9, exercises 1 and 3
    Claim("09-kip848", "ex-kip848-1", r"(One) partition moves in either order",
          lambda o: (set(_all(r"(\d+) partition\(s\) move", o, int)).pop() if len(set(_all(
              r"(\d+) partition\(s\) move", o, int))) == 1 else -1,)),
    Claim("09-kip848", "ex-kip848-3", r"lasts between (one) session timeout and one session timeout plus one",
          lambda o: (min(t // s for s, t in _sessions(o)),)),
    Claim("09-kip848", "ex-kip848-3", r"plus (one) heartbeat interval",
          lambda o: (max(-(-(t - s) // _heartbeat_ms()) for s, t in _sessions(o)),)),
    # chapter 10, exercise 2: the late and the timely static member on a Kafka broker
    Claim("10-real-clients", "ex-real-2", r"a member back in time causes (no) rebalance",
          lambda o: _find(r"away 5 s .*?: (\d+) rebalance", o, int)),
    Claim("10-real-clients", "ex-real-2", r"after its session expired causes (two):",
          lambda o: _find(r"away 60 s .*?: (\d+) rebalance", o, int)),
    Claim("10-real-clients", "ex-real-2", r"prints (\d+) and (\d+) rebalances",
          lambda o: tuple(_all(r": (\d+) rebalance\(s\)", o, int))),
    Claim("10-real-clients", "ex-real-3", r"So the crash costs (one) rebalance on the broker and in the simulator",
          lambda o: (list(_find(r"after the crash: broker (\d+), simulator (\d+)", o, int)),)),
    Claim("10-real-clients", "ex-real-1", r"(Nothing) changes in the counts",
          lambda o: (0 if _find(r"counts equal range's: (\w+)", o, str) == ("True",) else 1,)),
    # chapter 8
    Claim("08-static-membership", "ex-static-2", r"the same (two) rebalances as a dynamic member",
          lambda o: _find(r"; (\d+) rebalances", o, int)),
    Claim("08-static-membership", "ex-static-spark", r"(one) second later every run does",
          lambda o: (_find(r"all runs pay two rebalances from (\d+) s", o, int)[0]
                     - _find(r"no run rebalances up to (\d+) s", o, int)[0] - 1,)),
    Claim("08-static-membership", "ex-static-spark", r"(most) of them paying the two rebalances",
          lambda o: (_find(r"(\d+) of (\d+) runs with two", o)[0] / _find(r"(\d+) of (\d+) runs with two", o)[1],)),
    Claim("08-static-membership", "ex-static-spark", r"a second after that (all) of them pay both",
          lambda o: (1.0 if "all runs pay two rebalances" in o else 0.0,)),
    # chapter 13, exercise 3; chapter 5, exercises 1 and 2
    Claim("13-lab-at-scale", "ex-lab-3", r"Every static crash now costs (two) rebalances",
          lambda o: (_row(o, "static")[0] if _row(o, "static")[0] == _row(o, "static")[2] else -1,)),
    Claim("13-lab-at-scale", "ex-lab-3", r"(two) rebalances, exactly like the eager set-up",
          lambda o: (_row(o, "eager")[0] if _row(o, "eager")[0] == _row(o, "eager")[2] else -1,)),
    Claim("05-cooperative-sticky-assignor", "ex-coop-1", r"and (one) round suffices",
          lambda o: _find(r"(\d+) rebalance\(s\)", o, int)),
    Claim("05-cooperative-sticky-assignor", "ex-coop-2", r"which stays (just below 10)",
          lambda o: (max(_table_column(o, 1)),)),
    # chapters 2, 3, 6, 11, 12, 13: counts of small examples
    Claim("02-range-assignor", "ex-range-3", r"only (one) more partition crosses a boundary",
          lambda o: (_find(r"'m1': (\d+)", o.split("change owner")[1], int)[0] - 3,)),
    Claim("03-roundrobin-assignor", "ex-roundrobin-1", r"`m2` `a-2, b-1` \((\d), (\d), (\d)\)",
          lambda o: _find(r"^roundrobin .*\((\d), (\d), (\d)\)", o, int)),
    Claim("03-roundrobin-assignor", "ex-roundrobin-1", r"`m2` `a-3, b-3` \((\d), (\d), (\d)\)",
          lambda o: _find(r"^range .*\((\d), (\d), (\d)\)", o, int)),
    Claim("03-roundrobin-assignor", "ex-roundrobin-spark", r"mean spread stays (about twice) Sticky's",
          lambda o: (_all(r"ratio (\d+\.\d+)", o),)),
    Claim("06-choosing-an-assignor", "ex-choosing-2", r"leaves: (\d) partitions change owner, as with the sticky",
          lambda o: (int(_row(o, "range")[0]),)),
    Claim("06-choosing-an-assignor", "ex-choosing-2", r"to `A`: (\d) change owner where (\d) would do",
          lambda o: (int(_row(o, "range")[1]), int(_row(o, "sticky")[1]))),
    Claim("11-kafka-connect", "ex-connect-2", r"Kafka 3\.3 revoked (nothing)",
          lambda o: (int(sum(_table_column(o, 6))),)),
    Claim("11-kafka-connect", "ex-connect-3", r"least-loaded survivors, (one) connector",
          lambda o: (_find(r"the (\d+) survivors take (\d+) connectors", o, int)[1]
                     // _find(r"the (\d+) survivors take (\d+) connectors", o, int)[0],)),
    Claim("12-placing-replicas", "ex-replicas-2", r"it leads (one) partition in six",
          lambda o: (_find(r"broker 5 leads (\d+) partitions .* of (\d+) partitions", o)[0] * 6
                     / _find(r"broker 5 leads (\d+) partitions .* of (\d+) partitions", o)[1],)),
    Claim("13-lab-at-scale", "ex-lab-2", r"well above zero for Range and (zero) for the other (three) assignors",
          lambda o: (int(max(_row(o, a)[-1] for a in ("1", "2", "3"))),
                     sum(1 for a in ("1", "2", "3") if _row(o, a)[-1] == 0))),
    # the Spark-scale solutions, on the rows they name
    Claim("02-range-assignor", "ex-range-spark", r"`p_idle_despite_enough` is (0), every group is balanced",
          lambda o: ([_row(a, r)[1] for a in [o.split("(b)")[0]] for r in ("range", "roundrobin")],)),
    Claim("02-range-assignor", "ex-range-spark", r"`p_idle_despite_enough` rises to (about half)",
          lambda o: (_row(o.split("(b)")[1], "range")[1],)),
    Claim("02-range-assignor", "ex-range-spark", r"whose `p_idle_despite_enough` stays (0)",
          lambda o: (_row(o.split("(b)")[1], "roundrobin")[1],)),
    Claim("05-cooperative-sticky-assignor", "ex-coop-spark",
          r"`identical` rows show exactly (one) rebalance, (no) extra moves and (nothing) unowned in between",
          lambda o: tuple([row[i] for row in _identical_rows(o)] for i in (3, 2, 4))),
    Claim("07-eager-and-cooperative", "ex-eager-coop-spark", r"stops several times as many partitions as a "
          r"cooperative one, in (fewer) rebalances",
          lambda o: (_find(r"^eager: stops \d+ partitions in (\S+) rebalances", o)[0]
                     - _find(r"^cooperative: stops \d+ partitions in (\S+) rebalances", o)[0],)),
    Claim("07-eager-and-cooperative", "ex-eager-coop-spark", r"With free revocations an eager rolling restart "
          r"leaves (fewer) partition-seconds unprocessed",
          lambda o: (_row(o, "0")[1] - _row(o, "0")[0],)),
    Claim("11-kafka-connect", "ex-connect-4", r"(nothing) is stopped while connectors are added",
          lambda o: (int(sum(_row(o, "0")[2:4])),)),
    Claim("11-kafka-connect", "ex-connect-spark", r"Far (fewer) workers now come back in time",
          lambda o: (_all(r"(\d+)% of bounces back in time", o)[1] - _all(r"(\d+)% of bounces back in time", o)[0],)),
    Claim("11-kafka-connect", "ex-connect-spark", r"incremental's stops (grow) a little",
          lambda o: (_all(r"late returns: incremental (\S+),", o)[1]
                     - _all(r"late returns: incremental (\S+),", o)[0],)),
    # chapter 4 and chapter 7: directions and shares
    Claim("04-sticky-assignor", "ex-sticky-spark", r"only (a little over half) of the groups move nothing",
          lambda o: (_find(r"^skewed sticky .*no extra moves in (\d+)%", o)[0] / 100,)),
    Claim("07-eager-and-cooperative", "ex-eager-coop-1", r"Eager's cost (grows) many times over",
          lambda o: (_find(r"^eager: (\S+) -> (\S+)", o)[1] - _find(r"^eager: (\S+) -> (\S+)", o)[0],)),
    Claim("07-eager-and-cooperative", "ex-eager-coop-1", r"Cooperative's cost (does not change) at all",
          lambda o: (_find(r"^cooperative: (\S+) -> (\S+)", o)[1] - _find(r"^cooperative: (\S+) -> (\S+)", o)[0],)),
    # chapter 14, exercises 1 and 2: seven members on two partitions; a record released / held at every delivery
    Claim("14-share-groups", "ex-share-1", r"each partition should go to (four) members",
          lambda o: (_uniform(_all(r"\d+: (\d+)", o, int)),)),
    Claim("14-share-groups", "ex-share-1", r"so (one) member gets both partitions",
          lambda o: (_find(r"partitions per member: \[([\d, ]+)\]", o, str)[0].split(", ").count("2"),)),
    Claim("14-share-groups", "ex-share-2", r"Both are delivered (five) times",
          lambda o: (_uniform(_all(r": (\d+) deliveries", o, int)),)),
    # chapters 11 and 14, the exercises on simulate: a restart past the delay; a crash under the default lock
    Claim("11-kafka-connect", "ex-connect-6", r"so the leader revokes (two) tasks from it",
          lambda o: (_find(r"'revoked': (\d+)", o, int)[0],)),
    Claim("14-share-groups", "ex-share-3", r"Still (\d+) records are delivered once and (\d+) twice",
          lambda o: (int(_row(o, "delivered once")[0]), int(_row(o, "delivered twice")[0]))),
]


def _uniform(values: list) -> int:
    """The one value all of ``values`` share, or -1 (no single count to claim)."""
    return values[0] if len(set(values)) == 1 else -1


def _sessions(output: str) -> list[tuple[int, int]]:
    """(session timeout, time to stable) in ms from chapter 9's crash table."""
    return [(int(s), int(t)) for s, t in re.findall(r"^(\d{5})\s+(\d+)\s+[\d.]+\s*$", output, flags=re.M)]


def _identical_rows(output: str) -> list[list[float]]:
    """The numbers of chapter 5's sweep rows whose `identical` column is True (mean_moved onwards)."""
    rows = [[float(x) for x in line.split("True", 1)[1].split()] for line in output.splitlines()
            if re.match(r"^\d+\s+\S+\s+True\s", line)]
    assert rows, f"no identical rows in:\n{output[:600]}"
    return rows


def _heartbeat_ms() -> int:
    from rebalance.kip848 import KIP848Config
    return KIP848Config().heartbeat_interval_ms


def _table_column(output: str, column: int) -> list[float]:
    """The given column (0 = first after the index) of every data row of a printed table."""
    values = []
    for line in output.splitlines():
        cells = line.split()
        if len(cells) > column + 1 and re.fullmatch(r"\d+", cells[0]) and all(
                re.fullmatch(r"-?\d+(?:\.\d+)?", c) for c in cells[column + 1:column + 2]):
            values.append(float(cells[column + 1]))
    assert values, f"no table rows in:\n{output[:600]}"
    return values


# ---- the check -----------------------------------------------------------------------------------------------
def check(claim: Claim, text: str, output: str) -> list[str]:
    """The problems of one claim against a solution's text and its hidden cell's output; empty if it holds."""
    m = re.search(claim.pattern, text)
    if not m:
        return [f"the solution no longer says /{claim.pattern}/"]
    observed = claim.observe(output)
    assert len(observed) == len(m.groups()), f"{claim.id}: {len(m.groups())} claimed values, {len(observed)} observed"
    problems = []
    for said, seen in zip(m.groups(), observed):
        if not holds(claimed(said), seen):
            problems.append(f"the solution says {said!r}, the hidden cell printed {seen!r}")
    return problems


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_solution_claim_matches_its_hidden_cell(claim):
    text, output = solution(claim.chapter, claim.solution)
    problems = check(claim, text, output)
    assert not problems, f"{claim.chapter} {claim.solution}: " + "; ".join(problems)


def test_every_solution_in_the_table_exists():
    labels = {(c.chapter, c.solution) for c in CLAIMS}
    for chapter, label in labels:
        assert solution(chapter, label)[0]


# ---- the checker can fail --------------------------------------------------------------------------------------
PLANT_WORDS = {v: k for k, v in WORDS.items() if k not in ("no", "none", "nothing", "zero")}
OPPOSITE = {"shrink": "grow", "shrinks": "grows", "grows": "shrinks", "grow": "shrink", "fall": "rise",
            "falls": "rises", "rise": "fall", "rises": "falls", "fewer": "more", "more": "fewer",
            "does not change": "grows"}


def plant(text: str) -> str:
    """A wrong value written the way the solution writes the right one."""
    lowered = text.lower()
    if lowered in OPPOSITE:
        return OPPOSITE[lowered]
    if lowered in ("all", "every"):
        return "none"
    if lowered == "most":
        return "none"
    m = QUALIFIED.match(lowered)
    if m:
        qualifier, rest = m.groups()
        if rest in FRACTIONS:
            return f"{qualifier} {'a tenth' if FRACTIONS[rest] > 0.3 else 'half'}"
        return f"{qualifier} {plant(rest)}"
    if lowered in WORDS:
        wrong = PLANT_WORDS[WORDS[lowered] + 1]
        return wrong.capitalize() if text[0].isupper() else wrong
    if re.fullmatch(r"\d+", text):
        return str(int(text) + 1)
    if re.fullmatch(r"\d+\.\d+", text):
        decimals = len(text.split(".")[1])
        return f"{float(text) + 1:.{decimals}f}"
    raise ValueError(f"cannot plant a wrong value for {text!r}")


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_a_planted_wrong_claim_fails(claim):
    text, output = solution(claim.chapter, claim.solution)
    m = re.search(claim.pattern, text)
    assert m, f"the solution no longer says /{claim.pattern}/"
    start, end = m.span(1)
    wrong = text[:start] + plant(m.group(1)) + text[end:]
    assert check(claim, wrong, output), f"the checker accepted {wrong[start - 30:end + 30]!r}"


def test_the_fixed_solutions_reject_their_old_claims():
    """The two solutions rewritten from their cells: their former claims, put in the table's terms, fail.

    Chapter 9's said that both figures shrink "in proportion to the interval" (2.5 times: 5.0 s would become
    2.0 s); chapter 10's said that a member back after its session expired causes one rebalance."""
    old_11 = ("Both shrink roughly in proportion to the interval, because every hand-over waits for a heartbeat: "
              "a time to stable of 2.0 s instead of 5.0 s")
    _, output = solution("09-kip848", "ex-kip848-2")
    assert check(CLAIMS[1], old_11, output)
    old_13 = "so it joins as a new static member and causes one rebalance; back in time, none"
    _, output = solution("10-real-clients", "ex-real-2")
    late = next(c for c in CLAIMS if c.pattern.startswith("after its session expired"))
    assert check(late, old_13.replace("causes one rebalance", "after its session expired causes one:"), output)
