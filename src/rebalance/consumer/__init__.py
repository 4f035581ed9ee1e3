"""Client-side consumer partition assignors, exactly as Kafka's ``org.apache.kafka.clients.consumer``
classes compute them (Kafka 4.3.1, unchanged since 3.9): Range, RoundRobin, Sticky and CooperativeSticky.

The common entry point is :func:`assign`::

    from rebalance.consumer import assign
    assign("range", {"t0": 7}, {"C0": {"topics": ["t0"]}, "C1": {"topics": ["t0"]}, "C2": {"topics": ["t0"]}})

The interface every assignor implements is :class:`ConsumerPartitionAssignor` (Kafka's interface of that
name); :data:`ASSIGNORS` is the one registry of the built-in ones, and every assignor returns an
:class:`AssignorResult`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

#: every public name and the module that defines it, imported on first use (:mod:`rebalance._lazy`)
_EXPORTS = {
    "balance_score": ".abstract_sticky",
    "assign": ".api", "build_scenario": ".api", "run_assignor": ".api",
    "ASSIGNORS": ".assignor", "COOPERATIVE": ".assignor", "EAGER": ".assignor",
    "ConsumerPartitionAssignor": ".assignor", "assignor_for": ".assignor", "assignor_name": ".assignor",
    "CooperativeStickyAssignor": ".cooperative_sticky",
    "AssignorResult": ".model", "ConsumerScenario": ".model", "Subscription": ".model", "TopicPartition": ".model",
    "parse_consumer_input": ".model", "tp_str": ".model",
    "rebalance_rounds": ".rounds",
    "StickyAssignor": ".sticky",
    "PartitionMovements": ".sticky_general",
    "decode_sticky": ".sticky_userdata", "encode_sticky_v1": ".sticky_userdata",
}
__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # what type checkers and IDEs see: the same names, from the same modules
    from .abstract_sticky import balance_score as balance_score
    from .api import assign as assign, build_scenario as build_scenario, run_assignor as run_assignor
    from .assignor import (ASSIGNORS as ASSIGNORS, COOPERATIVE as COOPERATIVE, EAGER as EAGER,
                           ConsumerPartitionAssignor as ConsumerPartitionAssignor, assignor_for as assignor_for,
                           assignor_name as assignor_name)
    from .cooperative_sticky import CooperativeStickyAssignor as CooperativeStickyAssignor
    from .model import (AssignorResult as AssignorResult, ConsumerScenario as ConsumerScenario,
                        Subscription as Subscription, TopicPartition as TopicPartition,
                        parse_consumer_input as parse_consumer_input, tp_str as tp_str)
    from .rounds import rebalance_rounds as rebalance_rounds
    from .sticky import StickyAssignor as StickyAssignor
    from .sticky_general import PartitionMovements as PartitionMovements
    from .sticky_userdata import decode_sticky as decode_sticky, encode_sticky_v1 as encode_sticky_v1
else:
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
