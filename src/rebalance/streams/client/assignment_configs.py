"""``org.apache.kafka.streams.processor.assignment.AssignmentConfigs`` (Kafka 4.3.1): the configs the task assignor
reads, validated by ``StreamsConfig``'s own validators when constructed (``validated``, line 169).

* ``acceptable.recovery.lag`` (default 10,000, ``atLeast(0)``): a client whose lag for a task is at most this is
  *caught up* on it (``HighAvailabilityTaskAssignor.tasksToCaughtUpClients``, lines 256-274);
* ``max.warmup.replicas`` (default 2, ``atLeast(1)``): how many warm-up replicas one assignment may hand out in total
  (``HighAvailabilityTaskAssignor.assign``, line 71: one counter for the active and the standby movements);
* ``num.standby.replicas`` (default 0, no validator): standby replicas per stateful task;
* ``probing.rebalance.interval.ms`` (default 600,000, ``atLeast(60000)``): when the assignor returns true, the
  leader schedules a probing rebalance after this long (``StreamsPartitionAssignor``; the assignor itself does not
  read it);
* ``rack.aware.assignment.tags`` (default empty, ``atMostOfSize(5)``): KIP-708 client tags for standby placement.

``rack.aware.assignment.strategy`` is always ``none`` here and the traffic / non-overlap costs are unset: KIP-925
rack-aware task assignment (``RackAwareTaskAssignor``) is not ported.  An invalid value raises Kafka's
``ConfigException`` (as :class:`~rebalance.errors.KafkaError`), with Kafka's message.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Sequence

from ...errors import KafkaError

__all__ = ["AssignmentConfigs", "CONFIG_EXCEPTION", "MAX_RACK_AWARE_ASSIGNMENT_TAG_LIST_SIZE"]

CONFIG_EXCEPTION = "org.apache.kafka.common.config.ConfigException"
#: ``StreamsConfig.MAX_RACK_AWARE_ASSIGNMENT_TAG_LIST_SIZE`` (line 180)
MAX_RACK_AWARE_ASSIGNMENT_TAG_LIST_SIZE = 5


def _invalid(name: str, value: object, message: str) -> KafkaError:
    """``new ConfigException(name, value, message)``."""
    return KafkaError(CONFIG_EXCEPTION, f"Invalid value {value} for configuration {name}: {message}")


def _at_least(name: str, value: int, minimum: int) -> None:
    """``ConfigDef.Range.atLeast(min).ensureValid``: compares as doubles."""
    if float(value) < float(minimum):
        raise _invalid(name, value, f"Value must be at least {minimum}")


@dataclass(frozen=True)
class AssignmentConfigs:
    """``AssignmentConfigs(acceptableRecoveryLag, maxWarmupReplicas, numStandbyReplicas,
    probingRebalanceIntervalMs, rackAwareAssignmentTags, OptionalInt.empty(), OptionalInt.empty(), "none")``."""

    acceptable_recovery_lag: int = 10_000
    max_warmup_replicas: int = 2
    num_standby_replicas: int = 0
    probing_rebalance_interval_ms: int = 600_000
    rack_aware_assignment_tags: Sequence[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        # the order of the constructor's validated(...) calls, lines 68-79
        _at_least("acceptable.recovery.lag", self.acceptable_recovery_lag, 0)
        _at_least("max.warmup.replicas", self.max_warmup_replicas, 1)
        _at_least("probing.rebalance.interval.ms", self.probing_rebalance_interval_ms, 60_000)
        tags: List[str] = list(self.rack_aware_assignment_tags)
        if len(tags) > MAX_RACK_AWARE_ASSIGNMENT_TAG_LIST_SIZE:
            raise _invalid("rack.aware.assignment.tags", "[" + ", ".join(tags) + "]",
                           f"exceeds maximum list size of [{MAX_RACK_AWARE_ASSIGNMENT_TAG_LIST_SIZE}].")
        object.__setattr__(self, "rack_aware_assignment_tags", tuple(tags))
