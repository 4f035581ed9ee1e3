"""What started each rebalance: Kafka's own logs read back (``python -m rebalance diagnose LOG...``).

A broker's ``server.log`` (and, when given, its consumers' logs) becomes one line per rebalance of each group --
the generation (classic) or group epoch (KIP-848), the trigger (its kind and member, the coordinator's and the
client's reason texts), the members before and after -- and a summary per group with the likely cause and the
setting that would have prevented it.  The log lines are those of Kafka 4.3.1 and, where they differ, of 3.9.2
(the Scala ``GroupCoordinator``):

* :mod:`~rebalance.diagnose.layout` -- a line of Kafka's log4j layout (``[%d] %p %m (%c)%n``);
* :mod:`~rebalance.diagnose.patterns` -- every group line the broker and the consumer write, per release and class;
* :mod:`~rebalance.diagnose.reasons` -- the coordinator's and the client's reason texts, read as trigger kinds;
* :mod:`~rebalance.diagnose.groups` -- per group, the lines turned into rebalances (``ClassicGroup`` generations,
  consumer group epochs);
* :mod:`~rebalance.diagnose.clients` -- what consumers' logs add (member names, reasons, unowned partitions);
* :mod:`~rebalance.diagnose.causes` -- each kind's meaning and the setting that prevents it;
* :mod:`~rebalance.diagnose.summary` -- a group's likely cause; :mod:`~rebalance.diagnose.output` -- the lines' shapes;
* :mod:`~rebalance.diagnose.report` -- :func:`diagnose`, the files read and the lines written;
* :mod:`~rebalance.diagnose.injected` -- causes injected into real groups on one real broker
  (:func:`run_injected`), what ``diagnose`` must read back (:func:`check_injected`), the group's log lines made
  printable (:func:`group_log_lines`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

_EXPORTS = {
    "diagnose": ".report", "diagnose_text": ".report", "Diagnosis": ".report",
    "CAUSES": ".causes", "SERIES_CAUSES": ".causes", "Cause": ".causes", "cause_for": ".causes",
    "LINE_PATTERNS": ".patterns", "LinePattern": ".patterns", "LineEvent": ".patterns", "match_record": ".patterns",
    "LogRecord": ".layout", "split_record": ".layout",
    "classify_coordinator_reason": ".reasons", "classify_client_reason": ".reasons",
    "RebalanceLine": ".output", "GroupSummary": ".output", "TriggerLine": ".output", "CauseLine": ".output",
    "LogLine": ".output",
    "InjectedCause": ".injected", "InjectedRun": ".injected", "run_injected": ".injected",
    "run_until_seen": ".injected",
    "check_injected": ".injected", "group_log_lines": ".injected", "simulated_reasons": ".injected",
    "simulator_reason_kind": ".injected", "COORDINATOR_ACTION": ".injected", "member_of": ".injected",
}
__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:
    from .causes import CAUSES as CAUSES, SERIES_CAUSES as SERIES_CAUSES, Cause as Cause, cause_for as cause_for
    from .injected import (COORDINATOR_ACTION as COORDINATOR_ACTION, InjectedCause as InjectedCause,
                           InjectedRun as InjectedRun, check_injected as check_injected,
                           group_log_lines as group_log_lines, member_of as member_of, run_injected as run_injected,
                           run_until_seen as run_until_seen,
                           simulated_reasons as simulated_reasons, simulator_reason_kind as simulator_reason_kind)
    from .layout import LogRecord as LogRecord, split_record as split_record
    from .output import (CauseLine as CauseLine, GroupSummary as GroupSummary, LogLine as LogLine,
                         RebalanceLine as RebalanceLine, TriggerLine as TriggerLine)
    from .patterns import (LINE_PATTERNS as LINE_PATTERNS, LineEvent as LineEvent, LinePattern as LinePattern,
                           match_record as match_record)
    from .reasons import (classify_client_reason as classify_client_reason,
                          classify_coordinator_reason as classify_coordinator_reason)
    from .report import Diagnosis as Diagnosis, diagnose as diagnose, diagnose_text as diagnose_text
else:
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
