"""The network of the classic group protocol simulator: requests, responses, latency, message accounting.

The client side is modelled on ``ConsumerNetworkClient`` (Kafka's source at commit 1eb7644, trunk before
4.0): a request to the coordinator arrives
``network_ms`` after it is sent, is handled by the coordinator (``KafkaApis.handleJoinGroupRequest``,
``handleSyncGroupRequest``, ``handleHeartbeatRequest``, ``handleLeaveGroupRequest`` calling
``GroupCoordinator``), and its response travels back ``network_ms`` later.  A response for a process that
has since died or restarted, or that reset its membership or closed since it sent the request, is
dropped (the client no longer waits for it).  ``FindCoordinator`` is answered by any broker from the
``__consumer_offsets`` leadership.

:class:`NetworkMixin` is mixed into :class:`rebalance.protocol.simulation.GroupSimulation`; it records
every message (:class:`~.trace.Message`, heartbeats only if ``record_heartbeats``) and counts them by API.
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Callable, List, Optional

from ..common import JsonRecord
from .clock import HEARTBEAT
from .group import COORDINATOR_NOT_AVAILABLE, NONE, NOT_COORDINATOR
from .trace import Message

if TYPE_CHECKING:
    from .clock import VirtualClock
    from .config import ProtocolConfig
    from .group import ClassicGroupCoordinator
    from .member import ConsumerMember

__all__ = ["NetworkMixin"]


class NetworkMixin:
    """Requests and responses between members and the coordinator (see the module docstring)."""

    clock: "VirtualClock"
    config: "ProtocolConfig"
    coordinator: "ClassicGroupCoordinator"
    coordinator_available: bool
    coordinator_name: str
    group_id: str
    offsets_partition: int
    record_heartbeats: bool
    summary_from: Optional[int]
    messages: List[Message]
    message_counts: Counter[str]
    _msg_ids: int

    def _recording(self, api: str) -> bool:
        """Whether messages of ``api`` go into the message trace (all but Heartbeat unless
        ``record_heartbeats``; none in a run for its summary only)."""
        return self.summary_from is None and (self.record_heartbeats or api != "Heartbeat")

    def _record(self, api: str, kind: str, src: str, dst: str, fields: JsonRecord) -> Optional[Message]:
        self.message_counts[api] += 1
        if not self._recording(api):
            return None
        self._msg_ids += 1
        now = self.clock.now_ms
        m = Message(self._msg_ids, api, kind, src, dst, now, now + self.config.network_ms, fields)
        self.messages.append(m)
        return m

    def request(self, member: ConsumerMember, api: str, req: JsonRecord, on_response: Callable[[JsonRecord], None],
                summary: Optional[JsonRecord] = None) -> None:
        """Send ``req`` from ``member`` to the coordinator; deliver the response back after the latency."""
        if self._recording(api):
            self._record(api, "request", member.name, self.coordinator_name, dict(summary or {}))
        else:
            self.message_counts[api] += 1
        self.arrive_at(self.clock.now_ms + self.config.network_ms, member, api, req, on_response)

    def arrive_at(self, time_ms: int, member: ConsumerMember, api: str, req: JsonRecord,
                  on_response: Callable[[JsonRecord], None]) -> None:
        """The request ``req`` from ``member`` reaches the coordinator at ``time_ms`` (``KafkaApis`` hands it
        to the group coordinator), which answers through :meth:`deliver_at`."""
        recording = self._recording(api)
        epoch, incarnation = member.epoch, member.incarnation

        def respond(resp: JsonRecord) -> None:
            if recording:
                fields = {k: v for k, v in resp.items() if k != "members"}
                if api == "JoinGroup" and resp.get("members"):
                    fields["members"] = [m["memberId"] for m in resp["members"]]
                self._record(api, "response", self.coordinator_name, member.name, fields)
            else:
                self.message_counts[api] += 1
            self.deliver_at(self.clock.now_ms + self.config.network_ms, member, api, resp, on_response,
                            epoch, incarnation)

        def arrive() -> None:
            coordinator = self.coordinator
            if not self.coordinator_available or not coordinator.active:
                respond({"error": NOT_COORDINATOR, "memberId": req.get("memberId", "")})
                return
            if api == "Heartbeat":
                coordinator.heartbeat(req, respond)
            elif api == "JoinGroup":
                coordinator.join_group(req, respond)
            elif api == "SyncGroup":
                coordinator.sync_group(req, respond)
            else:
                coordinator.leave_group(req, respond)
        if api == "Heartbeat":
            member.hb_response = None
            member.hb_arrival = self.clock.schedule_at(time_ms, arrive, api, HEARTBEAT, member.heartbeat_key(1))
        else:
            self.clock.schedule_at(time_ms, arrive, api)

    def deliver_at(self, time_ms: int, member: ConsumerMember, api: str, resp: JsonRecord,
                   on_response: Callable[[JsonRecord], None], epoch: int, incarnation: int) -> None:
        """The response ``resp`` reaches ``member`` at ``time_ms``, unless the process died, restarted or
        reset its membership (``epoch``) since it sent the request."""
        def deliver() -> None:
            if member.alive and member.incarnation == incarnation and member.epoch == epoch:
                on_response(resp)
        if api == "Heartbeat":
            member.hb_response = resp
            member.hb_delivery = self.clock.schedule_at(time_ms, deliver, api, HEARTBEAT, member.heartbeat_key(0))
        else:
            self.clock.schedule_at(time_ms, deliver, api)

    def find_coordinator(self, member: ConsumerMember, on_response: Callable[[JsonRecord], None]) -> None:
        """FindCoordinator, answered by any broker from the ``__consumer_offsets`` leadership."""
        self._record("FindCoordinator", "request", member.name, "broker", {"key": self.group_id})
        lat = self.config.network_ms
        incarnation = member.incarnation

        def arrive() -> None:
            if self.coordinator_available:
                resp = {"error": NONE, "nodeId": self.coordinator.broker, "partition": self.offsets_partition}
            else:
                resp = {"error": COORDINATOR_NOT_AVAILABLE}
            self._record("FindCoordinator", "response", "broker", member.name, dict(resp))

            def deliver() -> None:
                if member.alive and member.incarnation == incarnation:
                    on_response(resp)
            self.clock.schedule(lat, deliver)
        self.clock.schedule(lat, arrive)