"""Switches that replay how Kafka's *test harness* called an assignor, for the conformance vectors only.

A consumer group leader always calls ``ConsumerPartitionAssignor.assign(Cluster, GroupSubscription)`` with
its subscriptions in a ``java.util.HashMap``; Kafka's unit tests also call ``assignPartitions`` directly, fill
``LinkedHashMap``s, preset ``maxGeneration`` or hand in user data as hand-written byte buffers.  Those
details change list orders and a few outcomes, so the vectors record them; the domain model
(:class:`~rebalance.consumer.model.ConsumerScenario`) does not carry them.  Only the vectors adapters build a
:class:`ReplayOptions`; every other caller gets the leader's behaviour, :data:`LEADER`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional

#: the subscription map classes Kafka's callers use: the leader's HashMap (iteration by hash) and the unit
#: tests' LinkedHashMap (``Utils.mkMap``) and ``Collections.singletonMap`` (both: input order)
SUBSCRIPTION_MAP_TYPES = ("java.util.HashMap", "java.util.LinkedHashMap", "java.util.Collections$SingletonMap")
ENTRIES = ("cluster", "assignPartitions")


@dataclass(frozen=True)
class ReplayOptions:
    """How the harness called the assignor (Kafka's test code at commit 1eb7644, trunk before 4.0).

    * ``entry``: ``"cluster"`` is ``AbstractPartitionAssignor.assign(Cluster, GroupSubscription)`` (drops
      topics without partitions or metadata); ``"assignPartitions"`` the direct call the unit tests make;
    * ``subscription_map_type``: the map class holding the subscriptions (see :data:`SUBSCRIPTION_MAP_TYPES`);
    * ``prefer_rack_aware_logic``: the sticky tests' switch that runs the rack-aware path without racks;
    * ``initial_max_generation``: ``AbstractStickyAssignor.maxGeneration`` set before the call;
    * ``user_data_specs``: each member's user data as the vectors give it (``"auto"`` builds it from the
      member's owned partitions and generation, as the member's own assignor would);
    * ``topic_order``: the topics in input order, for ``assignPartitions``' ``HashMap``.
    """

    entry: str = "cluster"
    subscription_map_type: str = "java.util.HashMap"
    prefer_rack_aware_logic: bool = False
    initial_max_generation: Optional[int] = None
    user_data_specs: Dict[str, object] = field(default_factory=dict)
    topic_order: List[str] = field(default_factory=list)


#: what a real group leader does
LEADER = ReplayOptions()

