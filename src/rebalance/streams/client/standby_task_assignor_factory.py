"""``org.apache.kafka.streams.processor.internals.assignment.StandbyTaskAssignorFactory`` (Kafka 4.3.1): which standby
assignor the high-availability assignor uses (``create``, lines 31-45).  It calls ``create(configs, null)``
(``HighAvailabilityTaskAssignor``, line 153), so the rack-aware branch (a ``ClientTagAwareStandbyTaskAssignor`` on
the clients' racks) never applies here: configured ``rack.aware.assignment.tags`` select
:class:`~rebalance.streams.client.client_tag_aware_standby_task_assignor.ClientTagAwareStandbyTaskAssignor`, no tags the
:class:`~rebalance.streams.client.default_standby_task_assignor.DefaultStandbyTaskAssignor`.
"""
from __future__ import annotations

from .assignment_configs import AssignmentConfigs
from .client_tag_aware_standby_task_assignor import ClientTagAwareStandbyTaskAssignor
from .default_standby_task_assignor import DefaultStandbyTaskAssignor
from .standby_task_assignor import StandbyTaskAssignor

__all__ = ["create_standby_task_assignor"]


def create_standby_task_assignor(configs: AssignmentConfigs) -> StandbyTaskAssignor:
    """``StandbyTaskAssignorFactory.create(configs, null)``."""
    if configs.rack_aware_assignment_tags:
        return ClientTagAwareStandbyTaskAssignor()
    return DefaultStandbyTaskAssignor()
