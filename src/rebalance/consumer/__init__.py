"""Client-side consumer partition assignors, exactly as Kafka's ``org.apache.kafka.clients.consumer``
classes compute them (Kafka 4.3.1, unchanged since 3.9): Range, RoundRobin, Sticky and CooperativeSticky.

The common entry point is :func:`assign`::

    from rebalance.consumer import assign
    assign("range", {"t0": 7}, {"C0": {"topics": ["t0"]}, "C1": {"topics": ["t0"]}, "C2": {"topics": ["t0"]}})

The interface every assignor implements is :class:`ConsumerPartitionAssignor` (Kafka's interface of that
name); :data:`ASSIGNORS` is the one registry of the built-in ones, and every assignor returns an
:class:`AssignorResult`.
"""
from .api import assign, build_scenario, run_assignor
from .assignor import ASSIGNORS, COOPERATIVE, EAGER, ConsumerPartitionAssignor, assignor_for, assignor_name
from .model import AssignorResult, ConsumerScenario, Subscription, TopicPartition, parse_consumer_input, tp_str

from .._lazy import lazy_exports  # noqa: E402

# More public names, loaded on first use (the chapters' helpers and the classes they show).
_EXPORTS = {
    "CooperativeStickyAssignor": ".cooperative_sticky", "PartitionMovements": ".sticky_general",
    "StickyAssignor": ".sticky", "balance_score": ".abstract_sticky", "decode_sticky": ".sticky_userdata",
    "encode_sticky_v1": ".sticky_userdata", "rebalance_rounds": ".rounds",
}

__all__ = [
    "assign", "assignor_for", "assignor_name", "build_scenario", "run_assignor",
    "ASSIGNORS", "EAGER", "COOPERATIVE", "ConsumerPartitionAssignor", "AssignorResult",
    "ConsumerScenario", "Subscription", "TopicPartition", "parse_consumer_input", "tp_str",
]
__all__ += [
    "CooperativeStickyAssignor", "PartitionMovements", "StickyAssignor", "balance_score", "decode_sticky",
    "encode_sticky_v1", "rebalance_rounds",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
