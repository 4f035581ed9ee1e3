"""The oracle's ``streams_group`` kind (``java/.../StreamsGroupKind.java``) and the Python adapter refuse the same
bad inputs naming the same field, and Kafka 3.9.2 (before the streams group assignors) cannot run the kind.
Needs ``make java``; skipped without it."""
from __future__ import annotations

import pytest

from rebalance.errors import InputError
from rebalance.vectors import run_input
from vector_files import oracle_or_skip

from .test_vectors_streams_group import BAD, _base, _with

pytestmark = pytest.mark.kafka


def test_java_and_python_name_the_same_field():
    scenarios = [_with(path, value) for path, value, _ in BAD]
    with oracle_or_skip() as kafka:
        answers = list(kafka.answers(scenarios))
    for (path, value, field), scenario, answer in zip(BAD, scenarios, answers):
        with pytest.raises(InputError) as info:
            run_input(scenario)
        assert info.value.field == field
        assert answer.fault is not None, (field, answer.output)
        assert (answer.fault["type"], answer.fault["field"]) == ("InputError", field)


def test_a_good_line_gets_the_same_answer():
    with oracle_or_skip() as kafka:
        answer = kafka.answer(_base())
    assert answer.fault is None
    assert answer.output == run_input(_base())


def test_kafka_3_9_lacks_the_streams_group_assignor():
    from rebalance.kafka.releases import OLD_RELEASE

    with oracle_or_skip(OLD_RELEASE) as kafka:
        answer = kafka.answer(_base())
    assert answer.fault is not None and "TaskAssignor" in answer.fault["message"]
