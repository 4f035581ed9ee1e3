"""timeouts area: the settings that time a group's membership and rebalances, their rules and what breaking them does.

* :mod:`.rules` -- one function per rule (``heartbeat.interval.ms`` against ``session.timeout.ms``, the broker's
  session bounds, ``max.poll.interval.ms`` against a batch and as the classic rebalance timeout, a pause
  against the session, ``group.initial.rebalance.delay.ms``, a static member's restart, Kubernetes'
  ``terminationGracePeriodSeconds``, the consumer protocol's client and broker settings), each returning a
  :class:`~.rules.Broken` that names the setting, or ``None``;
* :mod:`.runs` -- one simulated run per rule showing what breaking it does;
* :mod:`.deployments` -- values for named deployments, chosen by simulating each candidate.

The defaults come from the pinned jars (:mod:`rebalance.kafka.config_defs`).  Chapter 17, *Setting the timeouts*.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

#: every public name and the module that defines it, imported on first use (:mod:`rebalance._lazy`)
_EXPORTS = {
    "Deployment": ".deployments", "DEPLOYMENTS": ".deployments", "MARGIN": ".deployments",
    "POLL_INTERVAL_CANDIDATES_MS": ".deployments", "Recommendation": ".deployments", "recommend": ".deployments",
    "Broken": ".rules", "RULES": ".rules", "consumer_group_timings": ".rules", "consumer_protocol_client": ".rules",
    "grace_covers_close": ".rules", "heartbeat_interval": ".rules", "initial_delay_covers_starts": ".rules",
    "pause_within_session": ".rules", "poll_interval_covers_batch": ".rules", "rebalance_timeout_stall": ".rules",
    "session_bounds": ".rules", "static_session_covers_restart": ".rules",
    "grace_run": ".runs", "initial_delay_run": ".runs", "pause_run": ".runs", "poll_timeout_run": ".runs",
    "session_bounds_run": ".runs", "stall_run": ".runs", "static_restart_run": ".runs",
}
__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # what type checkers and IDEs see: the same names, from the same modules
    from .deployments import (DEPLOYMENTS as DEPLOYMENTS, MARGIN as MARGIN,
                              POLL_INTERVAL_CANDIDATES_MS as POLL_INTERVAL_CANDIDATES_MS, Deployment as Deployment,
                              Recommendation as Recommendation, recommend as recommend)
    from .rules import (RULES as RULES, Broken as Broken, consumer_group_timings as consumer_group_timings,
                        consumer_protocol_client as consumer_protocol_client, grace_covers_close as grace_covers_close,
                        heartbeat_interval as heartbeat_interval,
                        initial_delay_covers_starts as initial_delay_covers_starts,
                        pause_within_session as pause_within_session,
                        poll_interval_covers_batch as poll_interval_covers_batch,
                        rebalance_timeout_stall as rebalance_timeout_stall, session_bounds as session_bounds,
                        static_session_covers_restart as static_session_covers_restart)
    from .runs import (grace_run as grace_run, initial_delay_run as initial_delay_run, pause_run as pause_run,
                       poll_timeout_run as poll_timeout_run, session_bounds_run as session_bounds_run,
                       stall_run as stall_run, static_restart_run as static_restart_run)
else:
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
