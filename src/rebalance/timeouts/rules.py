"""The rules a group's timeouts must satisfy, one function each: what breaks, and why, naming the setting.

Each rule takes the settings it relates (milliseconds, Kafka's names in the docstring) and returns ``None``
when they satisfy it, or a :class:`Broken` naming the setting to change, the rule with the values put in, and
what breaking it does.  ``refused`` tells the two kinds apart: Kafka refuses the configuration outright (an
exception when the consumer or the broker starts, a fatal error at the first JoinGroup), or it runs and the
group pays (a member removed, a rebalance per batch, every member held at the barrier).  The refusals are
Kafka 4.3.1's: ``org.apache.kafka.clients.consumer.internals.Heartbeat`` (classic heartbeat against session),
``ConsumerConfig.checkUnsupportedConfigsPostProcess`` (classic-only settings under ``group.protocol=consumer``),
the JoinGroup bounds check of ``GroupCoordinatorService.joinGroup`` (``INVALID_SESSION_TIMEOUT``) and the
``require`` checks of ``GroupCoordinatorConfig`` (the consumer protocol's broker-side timings).  What the
others cost is computed by :mod:`rebalance.timeouts.runs`, one simulated run per rule.

Defined in chapter 17, *Setting the timeouts*.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Collection, Dict, Optional

from ..validation import require

__all__ = ["Broken", "heartbeat_interval", "session_bounds", "poll_interval_covers_batch", "rebalance_timeout_stall",
           "pause_within_session", "initial_delay_covers_starts", "static_session_covers_restart",
           "grace_covers_close", "consumer_protocol_client", "consumer_group_timings", "RULES",
           "CONSUMER_PROTOCOL_UNSUPPORTED"]


@dataclass(frozen=True)
class Broken:
    """A rule the settings break: ``rule`` (its name in :data:`RULES`), ``setting`` (the one to change),
    ``condition`` (the rule with the values put in), ``effect`` (what happens) and whether Kafka ``refused`` the
    configuration (rather than running with it).

    Defined in chapter 17, *Setting the timeouts*."""

    rule: str
    setting: str
    condition: str
    effect: str
    refused: bool = False


def _ms(field: str, value: object, low: int = 0) -> int:
    require(isinstance(value, int) and not isinstance(value, bool) and value >= low, field,
            f"must be a whole number of milliseconds >= {low}, got {value!r}")
    return value  # type: ignore[return-value]


def _s(ms: int) -> str:
    return f"{ms / 1000:g} s"


def heartbeat_interval(session_timeout_ms: int, heartbeat_interval_ms: int) -> Optional[Broken]:
    """Classic protocol: ``heartbeat.interval.ms`` below ``session.timeout.ms`` (else the consumer does not start:
    ``Heartbeat`` throws ``IllegalArgumentException``), and at most a third of it (Kafka's own advice: then a
    member survives two lost or late heartbeats, and a pause of up to two thirds of the session)."""
    s, h = _ms("session_timeout_ms", session_timeout_ms, 1), _ms("heartbeat_interval_ms", heartbeat_interval_ms, 1)
    if h >= s:
        return Broken("heartbeat_interval", "heartbeat.interval.ms", f"{h} >= session.timeout.ms {s}",
                      "the consumer does not start: IllegalArgumentException \"Heartbeat must be set lower than "
                      "the session timeout\"", refused=True)
    if 3 * h > s:
        return Broken("heartbeat_interval", "heartbeat.interval.ms", f"{h} > session.timeout.ms / 3 = {s // 3}",
                      f"a pause of {_s(s - h)} (session minus one interval) already removes the member")
    return None


def session_bounds(session_timeout_ms: int, group_min_session_timeout_ms: int,
                   group_max_session_timeout_ms: int) -> Optional[Broken]:
    """Classic protocol: ``session.timeout.ms`` within the broker's ``group.min.session.timeout.ms`` and
    ``group.max.session.timeout.ms``; outside them every JoinGroup is answered ``INVALID_SESSION_TIMEOUT``, a
    fatal error for the consumer."""
    s = _ms("session_timeout_ms", session_timeout_ms, 1)
    low = _ms("group_min_session_timeout_ms", group_min_session_timeout_ms)
    high = _ms("group_max_session_timeout_ms", group_max_session_timeout_ms)
    if low <= s <= high:
        return None
    bound = f"< group.min.session.timeout.ms {low}" if s < low else f"> group.max.session.timeout.ms {high}"
    return Broken("session_bounds", "session.timeout.ms", f"{s} {bound}",
                  "JoinGroup fails with INVALID_SESSION_TIMEOUT, fatal: the consumer never joins", refused=True)


def poll_interval_covers_batch(max_poll_interval_ms: int, batch_ms: int) -> Optional[Broken]:
    """``max.poll.interval.ms`` above the time one ``poll()``'s records take (``max.poll.records`` times the
    processing time per record); a batch that takes longer makes the consumer leave the group while it processes
    (KIP-62), lose its partitions and rejoin at its next ``poll()``: a rebalance every batch."""
    m, b = _ms("max_poll_interval_ms", max_poll_interval_ms, 1), _ms("batch_ms", batch_ms)
    if b < m:
        return None
    return Broken("poll_interval_covers_batch", "max.poll.interval.ms",
                  f"{m} <= max.poll.records x processing time = {b}",
                  "the consumer leaves the group during every batch and rejoins after it: a rebalance per batch, "
                  "and the batch's offsets cannot be committed")


def rebalance_timeout_stall(max_poll_interval_ms: int, accepted_stall_ms: int,
                            group_protocol: str = "classic") -> Optional[Broken]:
    """Classic protocol: ``max.poll.interval.ms`` is also the *rebalance timeout* the consumer sends in JoinGroup,
    how long the coordinator waits for every member to rejoin.  A member stuck in a batch holds every other
    member at the barrier that long (eager: with nothing to process), so it must not exceed the stall the
    application accepts (``accepted_stall_ms``).  Under ``group.protocol=consumer`` (KIP-848) nobody waits for
    a slow member, so the rule does not apply (``None``)."""
    m, a = _ms("max_poll_interval_ms", max_poll_interval_ms, 1), _ms("accepted_stall_ms", accepted_stall_ms)
    require(group_protocol in ("classic", "consumer"), "group_protocol",
            f"must be 'classic' or 'consumer', got {group_protocol!r}")
    if group_protocol == "consumer" or m <= a:
        return None
    return Broken("rebalance_timeout_stall", "max.poll.interval.ms", f"{m} > accepted stall {a}",
                  f"one stuck member holds every other member at the rebalance barrier for up to {_s(m)}")


def pause_within_session(session_timeout_ms: int, heartbeat_interval_ms: int, longest_pause_ms: int) -> Optional[Broken]:
    """A whole-process pause (a stop-the-world garbage collection, a frozen VM) shorter than the session minus one
    heartbeat interval (the longest the last heartbeat can lie before the pause); a longer one removes the member
    from the group (its partitions go to others, and it rejoins when it wakes)."""
    s, h = _ms("session_timeout_ms", session_timeout_ms, 1), _ms("heartbeat_interval_ms", heartbeat_interval_ms, 1)
    p = _ms("longest_pause_ms", longest_pause_ms)
    if p < s - h:
        return None
    return Broken("pause_within_session", "session.timeout.ms", f"pause {p} >= {s} - heartbeat.interval.ms {h}",
                  "the coordinator removes the paused member: a rebalance to take its partitions, another when it "
                  "wakes and rejoins")


def initial_delay_covers_starts(initial_rebalance_delay_ms: int, longest_start_gap_ms: int) -> Optional[Broken]:
    """Broker, classic protocol: ``group.initial.rebalance.delay.ms`` at least the longest gap between two
    consecutive consumers' starts when an empty group forms (each join during the delay extends it by the delay,
    up to the rebalance timeout); a longer gap forms the first generation without the late ones, and each of
    them is one more rebalance.  The consumer protocol has no such delay."""
    d = _ms("initial_rebalance_delay_ms", initial_rebalance_delay_ms)
    g = _ms("longest_start_gap_ms", longest_start_gap_ms)
    if g <= d:
        return None
    return Broken("initial_delay_covers_starts", "group.initial.rebalance.delay.ms",
                  f"{d} < longest gap between starts {g}",
                  "the group starts without the late consumers: one more rebalance for each late start")


def static_session_covers_restart(session_timeout_ms: int, heartbeat_interval_ms: int,
                                  restart_ms: int) -> Optional[Broken]:
    """Static membership (``group.instance.id``): a restart (from the last heartbeat of the old process to the first
    JoinGroup of the new one) shorter than ``session.timeout.ms``, counting one heartbeat interval for the last
    heartbeat; a longer one expires the member: a rebalance without it, one more when it is back."""
    s, h = _ms("session_timeout_ms", session_timeout_ms, 1), _ms("heartbeat_interval_ms", heartbeat_interval_ms, 1)
    r = _ms("restart_ms", restart_ms)
    if r + h < s:
        return None
    return Broken("static_session_covers_restart", "session.timeout.ms",
                  f"restart {r} + heartbeat.interval.ms {h} >= {s}",
                  "the static member's session expires during its restart: two rebalances instead of none, and its "
                  "partitions wait the whole session first")


def grace_covers_close(termination_grace_period_ms: int, close_ms: int) -> Optional[Broken]:
    """Kubernetes: ``terminationGracePeriodSeconds`` above the time ``KafkaConsumer.close()`` takes after SIGTERM
    (the batch in progress, ``onPartitionsRevoked``'s commit, the LeaveGroup); past it the kubelet kills the
    process: no commit and no LeaveGroup, so a dynamic member's partitions wait out its session."""
    g = _ms("termination_grace_period_ms", termination_grace_period_ms)
    c = _ms("close_ms", close_ms)
    if c < g:
        return None
    return Broken("grace_covers_close", "terminationGracePeriodSeconds", f"{g / 1000:g} s <= close {c} ms",
                  "SIGKILL before the close ends: no final commit (records processed twice) and no LeaveGroup "
                  "(partitions unowned until the session expires)")


#: the consumer settings ``ConsumerConfig`` refuses under ``group.protocol=consumer`` (the broker sets the
#: session and heartbeat; ``group.remote.assignor`` replaces the client-side assignors)
CONSUMER_PROTOCOL_UNSUPPORTED = ("partition.assignment.strategy", "heartbeat.interval.ms", "session.timeout.ms")


def consumer_protocol_client(group_protocol: str, settings: Collection[str]) -> Optional[Broken]:
    """``group.protocol=consumer`` (KIP-848): the consumer must not set ``session.timeout.ms``,
    ``heartbeat.interval.ms`` or ``partition.assignment.strategy`` (``settings``: the names it sets); the broker's
    ``group.consumer.*`` settings replace them, and ``ConsumerConfig`` throws ``ConfigException``."""
    require(group_protocol in ("classic", "consumer"), "group_protocol",
            f"must be 'classic' or 'consumer', got {group_protocol!r}")
    bad = [n for n in CONSUMER_PROTOCOL_UNSUPPORTED if n in settings]
    if group_protocol == "classic" or not bad:
        return None
    return Broken("consumer_protocol_client", bad[0], f"{', '.join(bad)} set with group.protocol=consumer",
                  f"the consumer does not start: ConfigException \"{', '.join(bad)} cannot be set when "
                  f"group.protocol=CONSUMER\"", refused=True)


def consumer_group_timings(session_ms: int, heartbeat_ms: int, min_session_ms: int, max_session_ms: int,
                           min_heartbeat_ms: int, max_heartbeat_ms: int) -> Optional[Broken]:
    """Broker, consumer protocol: ``group.consumer.heartbeat.interval.ms`` and ``group.consumer.session.timeout.ms``
    within their ``min``/``max`` and the heartbeat below the session (``GroupCoordinatorConfig``'s checks, in
    its order): otherwise the broker does not start (``IllegalArgumentException``)."""
    s, h = _ms("session_ms", session_ms, 1), _ms("heartbeat_ms", heartbeat_ms, 1)
    smin, smax = _ms("min_session_ms", min_session_ms, 1), _ms("max_session_ms", max_session_ms, 1)
    hmin, hmax = _ms("min_heartbeat_ms", min_heartbeat_ms, 1), _ms("max_heartbeat_ms", max_heartbeat_ms, 1)
    hb, ss = "group.consumer.heartbeat.interval.ms", "group.consumer.session.timeout.ms"
    checks = [(hmax >= hmin, "group.consumer.max.heartbeat.interval.ms", "must be greater than or equal to",
               "group.consumer.min.heartbeat.interval.ms"),
              (h >= hmin, hb, "must be greater than or equal to", "group.consumer.min.heartbeat.interval.ms"),
              (h <= hmax, hb, "must be less than or equal to", "group.consumer.max.heartbeat.interval.ms"),
              (smax >= smin, "group.consumer.max.session.timeout.ms", "must be greater than or equal to",
               "group.consumer.min.session.timeout.ms"),
              (s >= smin, ss, "must be greater than or equal to", "group.consumer.min.session.timeout.ms"),
              (s <= smax, ss, "must be less than or equal to", "group.consumer.max.session.timeout.ms"),
              (h < s, hb, "must be less than", ss)]
    for ok, setting, relation, other in checks:
        if not ok:
            return Broken("consumer_group_timings", setting, f"{setting} {relation} {other}",
                          f"the broker does not start: IllegalArgumentException \"{setting} {relation} {other}\"",
                          refused=True)
    return None


#: every rule by name
RULES: Dict[str, Callable[..., Optional[Broken]]] = {
    f.__name__: f for f in (heartbeat_interval, session_bounds, poll_interval_covers_batch, rebalance_timeout_stall,
                            pause_within_session, initial_delay_covers_starts, static_session_covers_restart,
                            grace_covers_close, consumer_protocol_client, consumer_group_timings)}
