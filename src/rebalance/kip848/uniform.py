"""``UniformAssignor`` (Kafka 4.3.1 group coordinator, ``group.remote.assignor=uniform``, the default).

It picks one of two builders from the group's subscription type: when every member subscribes to the same
topics (``HOMOGENEOUS``) the quota-based :mod:`~rebalance.kip848.uniform_homogeneous` builder, otherwise the
balancing :mod:`~rebalance.kip848.uniform_heterogeneous` builder.  Both are sticky: a member keeps what it has
unless it must give it up for balance or because it unsubscribed.
"""
from __future__ import annotations

from .spec import HOMOGENEOUS, GroupAssignment, GroupSpec, SubscribedTopicDescriber
from .uniform_heterogeneous import assign_heterogeneous
from .uniform_homogeneous import assign_homogeneous

NAME = "uniform"


def assign_uniform(group: GroupSpec, describer: SubscribedTopicDescriber) -> GroupAssignment:
    """``UniformAssignor.assign``: empty group -> empty assignment; else the builder for the subscription
    type."""
    if not group.member_ids():
        return GroupAssignment({}, "")
    if group.subscription_type == HOMOGENEOUS:
        return assign_homogeneous(group, describer)
    return assign_heterogeneous(group, describer)
