"""What the group leader's ``StreamsPartitionAssignor`` logs of every rebalance (``StreamsPartitionAssignor.java``
at 4.3.1), read into :class:`StreamsRebalance`\\ s by :func:`parse_rebalances`:

* ``DEBUG`` "Assigning tasks and {} standby replicas to client nodes {}" (line 790) -- every client's
  ``ClientState`` *before* the assignor runs: process id, previous active and standby tasks, the offset sums its
  subscription reported, the lags computed from them (``taskLagTotals``), client tags and capacity;
* "Assigning stateful tasks: {} and stateless tasks: {}" (line 786) and "{} client nodes and {} consumers
  participating in this rebalance" (line 775: which consumers, so which instance, each process id is);
* "Assignment of tasks to nodes: {}" (line 851) -- every client's active and standby tasks *after* it;
* "Requesting followup rebalance be scheduled by {} for {} to probe for caught-up replica tasks." (line 1170) --
  the probing rebalance, and "... scheduled immediately by {} due to tasks changing ownership." (line 1163).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple, TypedDict

from ...streams import ProcessId, TaskId

__all__ = ["StreamsRebalance", "LoggedClient", "parse_rebalances", "probing_lines"]

_ENTRY = re.compile(r"^\[(\d{4}-\d\d-\d\d [\d:,]+)\] (\w+) ", re.M)
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_STATE = re.compile(rf"({_UUID})=\[activeTasks: \(\[(.*?)\]\) standbyTasks: \(\[(.*?)\]\) prevActiveTasks: "
                    r"\(\[(.*?)\]\) prevStandbyTasks: \(\[(.*?)\]\) changelogOffsetTotalsByTask: \(\[(.*?)\]\) "
                    r"taskLagTotals: \(\[(.*?)\]\) clientTags: \(\[(.*?)\]\) capacity: (\d+) assigned: (\d+)\]")
_ASSIGNED = re.compile(rf"({_UUID})=\[activeTasks: \(\[(.*?)\]\) standbyTasks: \(\[(.*?)\]\)\]")
_CONSUMERS = re.compile(rf"^({_UUID}): \[(.*?)\]", re.M)
_PREFIX = re.compile(r"stream-thread \[(.+?)-StreamThread-\d+")


def _tasks(text: str) -> List[TaskId]:
    return sorted(TaskId.parse(t.strip(), "task") for t in text.split(",") if t.strip())


def _pairs(text: str) -> Dict[TaskId, int]:
    out: Dict[TaskId, int] = {}
    for item in text.split(","):
        if "=" in item:
            k, v = item.strip().split("=")
            out[TaskId.parse(k, "task")] = int(v)
    return out


class LoggedClient(TypedDict):
    """A client's ``ClientState`` before the assignor ran, as the leader logged it."""

    prev_active: List[TaskId]
    prev_standby: List[TaskId]
    offset_sums: Dict[TaskId, int]
    lags: Dict[TaskId, int]
    tags: Dict[str, str]
    capacity: int


@dataclass
class StreamsRebalance:
    """One assignment the group leader computed: its inputs and its result, as the leader logged them."""

    leader: str                                   #: the instance whose StreamsPartitionAssignor ran it
    instances: Dict[ProcessId, str]               #: process id -> instance name
    clients: Dict[ProcessId, LoggedClient]        #: the ClientState before
    stateful: List[TaskId]
    stateless: List[TaskId]
    assignment: Dict[ProcessId, Tuple[List[TaskId], List[TaskId]]]  #: after: (active, standby incl. warm-ups)
    probing_scheduled: bool                       #: "Requesting followup rebalance ... to probe"
    immediate_followup: bool                      #: "... scheduled immediately ... tasks changing ownership"
    logged_at: str = ""                           #: the log4j timestamp of its last line ("yyyy-MM-dd HH:mm:ss,SSS")

    def followup_as_predicted(self, probing_predicted: bool) -> bool:
        """Whether the follow-up the leader asked for is the one the assignor's answer implies: a probing
        rebalance when it returned true -- unless the leader's own client had active tasks revoked, when Kafka
        asks for an immediate follow-up rebalance instead ("Don't bother to schedule a probing rebalance if an
        immediate one is already scheduled", ``StreamsPartitionAssignor``, lines 1162-1168 at 4.3.1)."""
        if self.probing_scheduled:
            return probing_predicted
        return not probing_predicted or self.immediate_followup

    def by_instance(self) -> Dict[str, Tuple[List[str], List[str]]]:
        """Each instance's (active, standby) task ids after the assignment, instances in name order."""
        return {self.instances[p]: ([str(t) for t in a], [str(t) for t in s]) for p, (a, s) in
                sorted(self.assignment.items(), key=lambda kv: self.instances[kv[0]])}


@dataclass
class _Pending:
    """A rebalance being read: what its lines have said so far."""

    leader: str
    instances: Dict[ProcessId, str]
    stateful: Optional[List[TaskId]] = None
    stateless: Optional[List[TaskId]] = None
    clients: Optional[Dict[ProcessId, LoggedClient]] = None
    assignment: Optional[Dict[ProcessId, Tuple[List[TaskId], List[TaskId]]]] = None
    probing: bool = False
    immediate: bool = False


def _clients(entry: str) -> Dict[ProcessId, LoggedClient]:
    return {ProcessId.parse(g[0], "process_id"): {
        "prev_active": _tasks(g[3]), "prev_standby": _tasks(g[4]), "offset_sums": _pairs(g[5]),
        "lags": _pairs(g[6]), "tags": dict(kv.split("=", 1) for kv in g[7].split(", ") if "=" in kv),
        "capacity": int(g[8])} for g in _STATE.findall(entry)}


def parse_rebalances(log: str) -> List[StreamsRebalance]:
    """The leader's computed assignments in a Streams JVM's log (the lines listed in the module's docstring)."""
    starts = [m.start() for m in _ENTRY.finditer(log)] + [len(log)]
    entries = [log[a:b] for a, b in zip(starts, starts[1:])]
    out: List[StreamsRebalance] = []
    current: Optional[_Pending] = None
    for entry in entries:
        if "StreamsPartitionAssignor" not in entry:
            continue
        if "participating in this rebalance" in entry:
            m = _PREFIX.search(entry)
            current = _Pending(m.group(1) if m else "?", {
                ProcessId.parse(pid, "process_id"): consumers.split(",")[0].split("-StreamThread")[0].strip()
                for pid, consumers in _CONSUMERS.findall(entry)})
        elif current is None:
            continue
        elif "Assigning stateful tasks:" in entry:
            found = re.search(r"Assigning stateful tasks: \[(.*?)\]\s*and stateless tasks: \[(.*?)\]", entry, re.S)
            if found is not None:
                current.stateful, current.stateless = _tasks(found.group(1)), _tasks(found.group(2))
        elif "standby replicas to client nodes" in entry:
            current.clients = _clients(entry)
        elif "Assignment of tasks to nodes:" in entry:
            current.assignment = {ProcessId.parse(pid, "process_id"): (_tasks(a), _tasks(s))
                                  for pid, a, s in _ASSIGNED.findall(entry)}
            current.probing = current.immediate = False
        elif "to probe for caught-up replica tasks" in entry and current.assignment is not None:
            current.probing = True
        elif "scheduled immediately by" in entry and current.assignment is not None:
            current.immediate = True
        elif "assignment of tasks, " in entry and current.assignment is not None:
            stamp = _ENTRY.match(entry)
            if current.clients is not None and current.stateful is not None and current.stateless is not None:
                out.append(StreamsRebalance(current.leader, current.instances, current.clients,
                                            current.stateful, current.stateless, current.assignment,
                                            current.probing, current.immediate, stamp.group(1) if stamp else ""))
            current = None
    return out


_PROBING = ("to probe for caught-up replica tasks", "Requested to schedule next probing rebalance")
_INSTANCE = re.compile(r"\b(?:i\d+|[\w.-]+?)-StreamThread-(\d+)-consumer(?:-" + _UUID + r")?")
_WHEN = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} Z")
_LOGGER = re.compile(r"\((?:[a-z]\w*\.)+(\w+)\)$")


def probing_lines(log: str) -> List[str]:
    """The group leader's lines about a probing rebalance in a Streams JVM's log ("Requesting followup rebalance
    be scheduled by {} for {} to probe for caught-up replica tasks.", "Requested to schedule next probing
    rebalance at {} to try for a more balanced assignment."; ``StreamsPartitionAssignor`` 4.3.1), made printable
    the same on every run: without the entry's time, the leader's consumer client id as
    ``<leader>-StreamThread-N-consumer``, the time the probe is due as ``<time>``, the logger as its class name."""
    out = []
    for m in _ENTRY.finditer(log):
        end = log.find("\n", m.end())
        line = log[m.end():end if end >= 0 else len(log)]
        if not any(p in line for p in _PROBING):
            continue
        line = _INSTANCE.sub(lambda n: f"<leader>-StreamThread-{n.group(1)}-consumer", line)
        out.append(f"{m.group(2)} " + _LOGGER.sub(lambda n: f"({n.group(1)})", _WHEN.sub("<time>", line)))
    return out
