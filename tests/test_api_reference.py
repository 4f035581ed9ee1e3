"""The API reference page (site/api_reference.py) is generated from the package's docstrings."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _generator():
    spec = importlib.util.spec_from_file_location("api_reference", ROOT / "site" / "api_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_reference_documents_every_area_from_its_docstrings():
    text = _generator().render()
    for area in ("consumer", "protocol", "connect", "replicas", "kip848", "live", "kafka", "spark", "vectors",
                 "errors", "common"):
        assert f"## `rebalance.{area}`" in text
    for name in ("### `assign`", "### `IncrementalCooperativeAssignor`", "### `assign_replicas_to_brokers`",
                 "### `assign_group`", "### `InputError`", "### `GroupSimulation`", "### `KafkaCluster`",
                 "### `LiveGroup`", "### `TopicPartition`", "### `MonteCarloParams`"):
        assert name in text
    import rebalance.consumer

    first_line = rebalance.consumer.assign.__doc__.strip().splitlines()[0].strip()
    assert first_line in text
    assert ":class:`" not in text and ":func:`" not in text


def test_the_reference_is_in_the_table_of_contents():
    assert "- file: api.md" in (ROOT / "myst.yml").read_text()
