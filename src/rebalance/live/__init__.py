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
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

#: every public name and the module that defines it, imported on first use (:mod:`rebalance._lazy`)
_EXPORTS = {
    "GROUP_PROTOCOLS": ".config", "STRATEGIES": ".config", "MemberConfig": ".config",
    "LiveGroup": ".group", "RoundRecord": ".group",
    "librdkafka_general_assign": ".librdkafka_model", "librdkafka_range_assign": ".librdkafka_model",
    "observed_disagreements": ".librdkafka_model", "observed_same_subscription_rounds": ".librdkafka_model",
    "MockCluster": ".mock",
    "book_answer": ".peer", "cooperative_adjust": ".peer", "draw_groups": ".peer", "run_peer": ".peer",
    "JOIN_AND_LEAVE": ".scenarios", "STATIC_RESTART": ".scenarios", "failed_generations": ".scenarios",
    "join_and_leave": ".scenarios", "simulate_steps": ".scenarios", "simulated_rows": ".scenarios",
    "static_restart": ".scenarios", "step_rows": ".scenarios",
}
__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # what type checkers and IDEs see: the same names, from the same modules
    from .config import GROUP_PROTOCOLS as GROUP_PROTOCOLS, STRATEGIES as STRATEGIES, MemberConfig as MemberConfig
    from .group import LiveGroup as LiveGroup, RoundRecord as RoundRecord
    from .librdkafka_model import (librdkafka_general_assign as librdkafka_general_assign,
                                   librdkafka_range_assign as librdkafka_range_assign,
                                   observed_disagreements as observed_disagreements,
                                   observed_same_subscription_rounds as observed_same_subscription_rounds)
    from .mock import MockCluster as MockCluster
    from .peer import (book_answer as book_answer, cooperative_adjust as cooperative_adjust,
                       draw_groups as draw_groups, run_peer as run_peer)
    from .scenarios import (JOIN_AND_LEAVE as JOIN_AND_LEAVE, STATIC_RESTART as STATIC_RESTART,
                            failed_generations as failed_generations, join_and_leave as join_and_leave,
                            simulate_steps as simulate_steps, simulated_rows as simulated_rows,
                            static_restart as static_restart, step_rows as step_rows)
else:
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
