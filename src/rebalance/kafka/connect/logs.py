"""The rounds of a real Connect group, read from its workers' logs (Kafka 4.3.1).

Every worker logs each rebalance it completes: ``AbstractCoordinator``'s "Successfully joined group with
generation" (``AbstractCoordinator.java`` line 672 at 4.3.1) gives its member id, and
``DistributedHerder.RebalanceListener.onAssigned`` writes its assignment ("Joined group at generation {} with
protocol version {} and got assignment: {} with rebalance delay: {}", ``DistributedHerder.java`` line 2627, the
assignment as ``ExtendedAssignment.toString``).  :func:`parse_rounds` turns the logs of all workers into one
:class:`RealRound` per generation, each worker's share a :class:`WorkerAssignment`.
"""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Tuple

__all__ = ["RealRound", "WorkerAssignment", "assignment_lines", "parse_rounds", "task_key"]


@dataclass
class WorkerAssignment:
    """One worker's share of one round, as ``ExtendedAssignment.toString`` logged it: what it was assigned
    (under eager: everything it runs; incremental: what to start) and told to revoke, and the delay."""

    member_id: Optional[str]
    leader_id: str
    assigned_connectors: List[str]
    assigned_tasks: List[str]
    revoked_connectors: List[str]
    revoked_tasks: List[str]
    delay: int
    protocol_version: int
    leader_url: str
    offset: int
    error: int


@dataclass
class RealRound:
    """One generation of the real group: ``workers`` maps the name of each member that completed it (its
    SyncGroup answered) to its :class:`WorkerAssignment`; ``joined`` maps every member of its JoinGroup to its
    member id -- a member can join and still miss the assignment, when the group starts another rebalance
    before its SyncGroup is answered ("SyncGroup failed: The group began another rebalance").  ``time`` is
    when the last member logged its assignment (seconds since the epoch, for ordering only)."""

    generation: int
    workers: Dict[str, WorkerAssignment]
    time: float
    #: when the first member logged its assignment or join (seconds since the epoch): the model's clock
    first_time: float = 0.0
    joined: Dict[str, str] = field(default_factory=dict)

    @property
    def missed(self) -> List[str]:
        """Members that joined but did not receive this generation's assignment."""
        return sorted(set(self.joined) - set(self.workers))

    @property
    def leader(self) -> Optional[str]:
        """The leader's worker name (from ``leaderUrl``)."""
        return next(iter({w.leader_url for w in self.workers.values()}), None)

    @property
    def leader_id(self) -> Optional[str]:
        """The leader's member id."""
        return next(iter({w.leader_id for w in self.workers.values()}), None)

    @property
    def delay(self) -> int:
        return max((w.delay for w in self.workers.values()), default=0)


_JOINED = re.compile(r"^\[(?P<ts>[^\]]+)\] INFO .*Joined group at generation (?P<gen>-?\d+) with protocol version "
                     r"(?P<ver>\d+) and got assignment: Assignment\{error=(?P<err>-?\d+), leader='(?P<leader>[^']*)', "
                     r"leaderUrl='(?P<url>[^']*)', offset=(?P<off>-?\d+), connectorIds=\[(?P<c>[^\]]*)\], "
                     r"taskIds=\[(?P<t>[^\]]*)\], revokedConnectorIds=\[(?P<rc>[^\]]*)\], "
                     r"revokedTaskIds=\[(?P<rt>[^\]]*)\], delay=(?P<delay>-?\d+)\}", re.M)
_MEMBER = re.compile(r"Successfully joined group with generation Generation\{generationId=(?P<gen>-?\d+), "
                     r"memberId='(?P<member>[^']*)'")


def _items(text: str) -> List[str]:
    return [x.strip() for x in text.split(",") if x.strip()]


def task_key(task: str) -> Tuple[str, int]:
    """A task ``connector-N`` as ``(connector, N)``: the order of ``ConnectorTaskId``'s ``compareTo``."""
    conn, _, num = task.rpartition("-")
    return conn, int(num)


def _stamp(ts: str) -> float:
    try:
        return time.mktime(time.strptime(ts[:19], "%Y-%m-%d %H:%M:%S")) + float("0." + ts[20:23])
    except ValueError:
        return 0.0


def parse_rounds(logs: Mapping[str, str], names_by_url: Optional[Mapping[str, str]] = None) -> List[RealRound]:
    """The rounds in Connect workers' logs, ``{worker name: log text}``: one :class:`RealRound` per generation,
    from ``DistributedHerder``'s "Joined group at generation" lines (4.3.1, line 2627) and the member ids of
    ``AbstractCoordinator``'s "Successfully joined group with generation" lines.  ``names_by_url`` turns the
    leader's URL's ``host:port`` into a worker name."""
    rounds: Dict[int, RealRound] = {}
    for name, text in logs.items():
        members: Dict[int, str] = {}
        for m in _MEMBER.finditer(text):
            gen = int(m.group("gen"))
            members[gen] = m.group("member")
            line_start = text.rfind("\n", 0, m.start()) + 1
            stamp = _stamp(text[line_start + 1:line_start + 24])
            r = rounds.setdefault(gen, RealRound(gen, {}, 0.0, stamp))
            r.joined[name] = m.group("member")
            r.first_time = min(r.first_time, stamp) if r.first_time else stamp
        for m in _JOINED.finditer(text):
            gen = int(m.group("gen"))
            url = m.group("url")
            if names_by_url:
                hostport = re.sub(r"^https?://|/$", "", url)
                url = names_by_url.get(hostport, url)
            wa = WorkerAssignment(members.get(gen), m.group("leader"), _items(m.group("c")), sorted(_items(m.group("t")), key=task_key),
                                  _items(m.group("rc")), sorted(_items(m.group("rt")), key=task_key),
                                  int(m.group("delay")), int(m.group("ver")), url, int(m.group("off")),
                                  int(m.group("err")))
            stamp = _stamp(m.group("ts"))
            r = rounds.setdefault(gen, RealRound(gen, {}, stamp, stamp))
            r.workers[name] = wa
            r.joined.setdefault(name, wa.member_id or f"{name}@{gen}")
            r.time = max(r.time, stamp)
            r.first_time = min(r.first_time, stamp) if r.first_time else stamp
    return [rounds[g] for g in sorted(rounds)]


_WORKER_ID = re.compile(r"connect-127\.0\.0\.1:\d+(?:-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})?")
_GROUP_ID = re.compile(r"groupId=[^\],\s]+")
_URL = re.compile(r"http://127\.0\.0\.1:\d+/")
_NUMBERS = re.compile(r"\b(generation |offset=|delay=|rebalance delay: )(-?\d+)")
_LOGGER = re.compile(r"\((?:[a-z]\w*\.)+(\w+)(?::\d+)?\)$")


def assignment_lines(text: str, leader: str = "w1", delayed_only: bool = False) -> List[str]:
    """A worker's log's "Joined group at generation" lines (``DistributedHerder`` 4.3.1), made printable the same
    on every run: without the time, the worker's client id and member ids as ``<worker>`` (its own) or
    ``<leader>`` (the leader's, named ``leader``), the group id as ``<group>``, the leader's URL as ``<url>``, and
    the generation, offset and delays as ``N`` (a delay that is not 0: ``D``), the logger as its class name.
    ``delayed_only``: only the lines whose assignment carries a delay."""
    out = []
    for line in text.splitlines():
        m = _JOINED.match(line)
        if m is None or (delayed_only and int(m.group("delay")) == 0):
            continue
        message = line[line.index("INFO ") + len("INFO "):]
        leader_id = m.group("leader")
        message = message.replace(leader_id, "<leader>")
        message = _WORKER_ID.sub("<worker>", _GROUP_ID.sub("groupId=<group>", message))
        message = _URL.sub(f"<url of {leader}>", message)
        message = _NUMBERS.sub(lambda n: n.group(1) + ("D" if "delay" in n.group(1) and n.group(2) != "0" else
                                                      "0" if "delay" in n.group(1) else "N"), message)
        out.append(_LOGGER.sub(lambda n: f"({n.group(1)})", message))
    return out
