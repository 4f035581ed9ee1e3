"""What the real-cluster tests need built (``make java``), as skip markers."""
import os
from pathlib import Path

import pytest

from rebalance import KAFKA_VERSION

REPO = Path(__file__).resolve().parents[2]
TARGET = REPO / "java" / "target"


def _broker_resolved() -> bool:
    return any((TARGET / f"broker-{KAFKA_VERSION}").glob("kafka_2.13-*.jar"))


#: skip unless the pinned broker's jars are resolved (or ``KAFKA_HOME`` names a Kafka installation)
needs_broker = pytest.mark.skipif(not _broker_resolved() and not os.environ.get("KAFKA_HOME"),
                                  reason="the broker jars are not resolved: make java")


def needs_class(name: str):
    """Skip unless the broker's jars are resolved and the book's Java module has class ``name`` (a path under
    ``org/rebalance``, e.g. ``"share/ShareMembers"``) compiled."""
    compiled = (TARGET / "classes" / "org" / "rebalance" / f"{name}.class").exists()
    return pytest.mark.skipif(not (_broker_resolved() and compiled),
                              reason=f"the broker jars or the Java module ({name}) are not built: make java")
