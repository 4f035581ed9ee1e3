"""``diagnose`` on the logs a real broker writes under each injected cause: 34 scenarios (``real_logs.CASES``: joins,
leaves, crashes past the session timeout, poll timeouts, rolling restarts, static members restarting within and
beyond the session timeout, join storms, subscription changes, a leave and a crash at once, revocations longer than the rebalance timeout;
eager, cooperative and consumer protocol) run through ``run_scenario`` on one ``KafkaCluster``, five at a time, and
its ``server.log`` read back (about 4 minutes on 2 busy cores).

Every rebalance of every scenario's group must name a kind ``diagnose`` knows and a member of the scenario (the
member's name from its classic member id, or, for a consumer-protocol member id, from the members' records).  The
injected causes must be found, in order, for at least :data:`AT_LEAST` of the scenarios: the scenarios run on the
wall clock with 4 s session timeouts, and on a loaded machine a starved member sometimes loses its session before
the injected event shows (a real session timeout, which ``diagnose`` then names as such); the scenarios that miss
are listed.  ``python tests/diagnose/real_logs.py`` prints the whole table.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from rebalance import KAFKA_VERSION
from rebalance.diagnose import diagnose

from . import real_logs

TARGET = Path(__file__).resolve().parents[2] / "java" / "target"
#: as tests/kafka/built.py's needs_class: the broker's jars and the Java module's ScenarioMembers
needs_java = pytest.mark.skipif(
    not (any((TARGET / f"broker-{KAFKA_VERSION}").glob("kafka_2.13-*.jar"))
         and (TARGET / "classes" / "org" / "rebalance" / "consumers" / "ScenarioMembers.class").exists()),
    reason="the broker jars or the Java module (consumers/ScenarioMembers) are not built: make java")

#: scenarios whose injected causes must all be found (of 34)
AT_LEAST = 30


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("diagnose-real")
    result = real_logs.run_all(real_logs.CASES, folder)
    return result, [dict(line) for line in diagnose([str(result.log)]).lines()]


@pytest.mark.kafka
@pytest.mark.slow
@needs_java
def test_diagnose_names_every_rebalance_of_34_real_scenarios(run):
    result, lines = run
    assert len(real_logs.CASES) >= 30
    assert result.errors == {}
    naming, expectations = [], []
    for case in real_logs.CASES:
        problems, said = real_logs.check(case, result, lines)
        assert said, f"{case.id}: no rebalance found"
        naming += [f"{case.id}: {p}" for p in problems if "names no member" in p or "kind unknown" in p
                   or "kind other" in p or "no group" in p]
        if problems:
            expectations.append(f"{case.id}: {problems}")
    assert naming == [], "\n".join(naming)
    assert len(real_logs.CASES) - len(expectations) >= AT_LEAST, "\n".join(expectations)
    log = next(line["log"] for line in lines if "log" in line)
    assert log["not_recognised"] == 0, [line for line in lines if "not_recognised" in line][:5]
