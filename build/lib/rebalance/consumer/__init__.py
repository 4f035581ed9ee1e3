"""Client-side consumer partition assignors, exactly as Kafka's ``org.apache.kafka.clients.consumer``
classes compute them (Kafka 3.8/3.9): Range, RoundRobin, Sticky and CooperativeSticky.

The common entry point is :func:`assign`::

    from rebalance.consumer import assign
    assign("range", {"t0": 7}, {"C0": {"topics": ["t0"]}, "C1": {"topics": ["t0"]}, "C2": {"topics": ["t0"]}})
"""
from .api import assign, assignor_for, build_scenario, run_assignor
from .model import ConsumerScenario, Subscription, TopicPartition, parse_consumer_input, tp_str

__all__ = [
    "assign", "assignor_for", "build_scenario", "run_assignor",
    "ConsumerScenario", "Subscription", "TopicPartition", "parse_consumer_input", "tp_str",
]
