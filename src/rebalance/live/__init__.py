"""live area: real Kafka clients (librdkafka, through ``confluent-kafka``) rebalancing against librdkafka's
in-process mock cluster, recorded as a trace in the simulator's shape.

* :mod:`.mock`     -- :class:`~.mock.MockCluster`, librdkafka's ``rd_kafka_mock_cluster_t``
  (``src/rdkafka_mock.h``) driven through ``ctypes``: brokers, racks, topics with exact partition counts;
* :mod:`.config`   -- :class:`~.config.MemberConfig`, the consumer properties a member runs with
  (``partition.assignment.strategy``, ``group.instance.id``, ``session.timeout.ms``, ``group.protocol``...),
  checked before any client starts;
* :mod:`.member`   -- :class:`~.member.LiveMember`, one ``confluent_kafka.Consumer`` and the application's poll
  loop with its rebalance callbacks (``on_assign``, ``on_revoke``, ``on_lost``);
* :mod:`.group`    -- :class:`~.group.LiveGroup`, members joining, leaving, crashing and restarting, waited on
  by condition; the trace of :class:`~rebalance.protocol.trace.TraceEvent` and each leader's assignor run;
* :mod:`.scenarios` -- the chapter's live schedules (a join and a leave, a static restart) and the simulator's
  prediction for each;
* :mod:`.peer`     -- peer conformance: real groups against :func:`rebalance.consumer.assign`, and the
  replay of every cooperative-sticky round through the book's assignor.

Everything listens on 127.0.0.1 only and is torn down by context managers, also on errors.  The package
needs the ``live`` extra (``pip install rebalance[live]``); nothing else in :mod:`rebalance` imports it.
"""
from .config import GROUP_PROTOCOLS, STRATEGIES, MemberConfig
from .group import LiveGroup, RoundRecord
from .mock import MockCluster

from .._lazy import lazy_exports  # noqa: E402

# More public names, loaded on first use (the chapters' helpers and the classes they show).
_EXPORTS = {
    "JOIN_AND_LEAVE": ".scenarios", "STATIC_RESTART": ".scenarios", "book_answer": ".peer",
    "cooperative_adjust": ".peer", "draw_groups": ".peer", "failed_generations": ".scenarios",
    "join_and_leave": ".scenarios", "librdkafka_general_assign": ".librdkafka_model",
    "librdkafka_range_assign": ".librdkafka_model", "observed_same_subscription_rounds": ".librdkafka_model",
    "run_peer": ".peer", "simulate_steps": ".scenarios", "simulated_rows": ".scenarios",
    "static_restart": ".scenarios", "step_rows": ".scenarios", "observed_disagreements": ".librdkafka_model",
}

__all__ = ["MockCluster", "MemberConfig", "LiveGroup", "RoundRecord", "STRATEGIES", "GROUP_PROTOCOLS"]
__all__ += [
    "JOIN_AND_LEAVE", "STATIC_RESTART", "book_answer", "cooperative_adjust", "draw_groups", "failed_generations",
    "join_and_leave", "librdkafka_general_assign", "librdkafka_range_assign", "observed_disagreements",
    "observed_same_subscription_rounds", "run_peer", "simulate_steps", "simulated_rows", "static_restart",
    "step_rows",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
