"""``org.apache.kafka.streams.processor.internals.assignment.ClientTagAwareStandbyTaskAssignor`` (Kafka 4.3.1): KIP-708
rack-aware standby placement by client tags (``rack.aware.assignment.tags``; each client's ``client.tag.*``).

* ``assign`` (lines 75-128): for each stateful task (``TaskId`` order) and the client holding it active, place its
  standbys on the least loaded clients whose values differ, on every configured tag, from the clients already
  used for the task (``assignStandbyTasksToClientsWithDifferentTags``, lines 223-291); a tag whose distinct values
  are all used up (``allTagValues.size() <= countOfUsedClients``, line 366) stops constraining;
* the standbys that could not be placed that way go to the least loaded clients
  (``assignPendingStandbyTasksToLeastLoadedClients``, lines 130-149), in the iteration order of the
  ``HashMap<TaskId, Integer>`` that ``Collectors.toMap`` built (bucket of ``TaskId.hashCode``, then insertion;
  Kafka removes the tasks fully placed by tags from it);
* ``isAllowedTaskMovement(source, destination)`` (lines 151-163): a standby may move only between clients whose
  tags agree on every tag of the source (all of its tags, configured or not).

The four-argument ``isAllowedTaskMovement`` (lines 175-205) serves only ``RackAwareTaskAssignor``, which is not
ported; a client tag outside the configured keys is ignored, as Kafka does (it logs a warning).  The
``HashMap`` is modelled without treeified bins (Java treeifies a bucket of 8+ keys in a table of 64+, i.e. past
48 stateful tasks).
"""
from __future__ import annotations

from typing import AbstractSet, Dict, List, Mapping, Set, Tuple

from ...java import JavaHashOrder
from .assignment_configs import AssignmentConfigs
from .client_state import ClientState
from .constrained_priority_set import ConstrainedPrioritySet
from .process_id import ProcessId
from .standby_task_assignment_utils import (create_least_loaded_priority_set_constrained_by_assigned_task,
                                            poll_client_and_maybe_assign_and_update_remaining_standby_tasks)
from .task_id import TaskId

__all__ = ["ClientTagAwareStandbyTaskAssignor"]

TagEntry = Tuple[str, str]


def _task_hash(task: object) -> int:
    assert isinstance(task, TaskId)
    return task.java_hash_code()


class _RemainingStandbys(Dict[TaskId, int]):
    """``HashMap<TaskId, Integer>`` of ``computeTasksToRemainingStandbys``: a dict whose iteration is Java's."""

    def __init__(self, num_standby_replicas: int, stateful_task_ids: List[TaskId]):
        super().__init__()
        self.order = JavaHashOrder(_task_hash)
        for task in stateful_task_ids:
            self[task] = num_standby_replicas
            self.order.put(task)

    def remove(self, task: TaskId) -> None:
        del self[task]
        self.order.remove(task)

    def java_keys(self) -> List[TaskId]:
        keys: List[TaskId] = self.order.keys()
        return keys


class ClientTagAwareStandbyTaskAssignor:
    """Standbys on clients with other tag values than the active's and the other standbys'."""

    def assign(self, clients: Mapping[ProcessId, ClientState], all_task_ids: AbstractSet[TaskId],
               stateful_task_ids: List[TaskId], configs: AssignmentConfigs) -> bool:
        """``assign(clients, allTaskIds, statefulTaskIds, configs)``; never asks for a probing rebalance."""
        num_standby_replicas = configs.num_standby_replicas
        rack_aware_assignment_tags = set(configs.rack_aware_assignment_tags)
        tasks_to_remaining_standbys = _RemainingStandbys(num_standby_replicas, stateful_task_ids)
        tag_key_to_values: Dict[str, Set[str]] = {}
        tag_entry_to_clients: Dict[TagEntry, Set[ProcessId]] = {}
        self.fill_clients_tag_statistics(clients, tag_entry_to_clients, tag_key_to_values)
        standby_task_clients_by_task_load = create_least_loaded_priority_set_constrained_by_assigned_task(clients)
        pending_standby_tasks_to_client_id: Dict[TaskId, ProcessId] = {}

        for stateful_task_id in stateful_task_ids:
            for client_id, client_state in clients.items():
                if client_state.has_active_task(stateful_task_id):
                    self.assign_standby_tasks_to_clients_with_different_tags(
                        num_standby_replicas, standby_task_clients_by_task_load, stateful_task_id, client_id,
                        rack_aware_assignment_tags, clients, tasks_to_remaining_standbys, tag_key_to_values,
                        tag_entry_to_clients, pending_standby_tasks_to_client_id)

        if tasks_to_remaining_standbys:
            # assignPendingStandbyTasksToLeastLoadedClients: every client offered again, then the HashMap's order
            standby_task_clients_by_task_load.offer_all(clients)
            for task in tasks_to_remaining_standbys.java_keys():
                poll_client_and_maybe_assign_and_update_remaining_standby_tasks(
                    clients, tasks_to_remaining_standbys, standby_task_clients_by_task_load, task)
        return False

    def is_allowed_task_movement(self, source: ClientState, destination: ClientState) -> bool:
        """``isAllowedTaskMovement(source, destination)``: the destination has each of the source's tags."""
        destination_tags = destination.client_tags
        return all(value == destination_tags.get(key) for key, value in source.client_tags.items())

    @staticmethod
    def fill_clients_tag_statistics(clients: Mapping[ProcessId, ClientState],
                                    tag_entry_to_clients: Dict[TagEntry, Set[ProcessId]],
                                    tag_key_to_values: Dict[str, Set[str]]) -> None:
        """``fillClientsTagStatistics``: tag key -> its values; (key, value) -> the clients with it."""
        for client_id, client_state in clients.items():
            for tag_key, tag_value in client_state.client_tags.items():
                tag_key_to_values.setdefault(tag_key, set()).add(tag_value)
                tag_entry_to_clients.setdefault((tag_key, tag_value), set()).add(client_id)

    def assign_standby_tasks_to_clients_with_different_tags(
            self, number_of_standby_clients: int, standby_task_clients_by_task_load: ConstrainedPrioritySet,
            active_task_id: TaskId, active_task_client: ProcessId, rack_aware_assignment_tags: Set[str],
            client_states: Mapping[ProcessId, ClientState], tasks_to_remaining_standbys: _RemainingStandbys,
            tag_key_to_values: Dict[str, Set[str]], tag_entry_to_clients: Dict[TagEntry, Set[ProcessId]],
            pending_standby_tasks_to_client_id: Dict[TaskId, ProcessId]) -> None:
        """``assignStandbyTasksToClientsWithDifferentTags`` (lines 223-291)."""
        standby_task_clients_by_task_load.offer_all(client_states)
        count_of_used_clients = 1  # the active task's client counts as used
        num_remaining_standbys = tasks_to_remaining_standbys[active_task_id]
        tag_entry_to_used_clients: Dict[TagEntry, Set[ProcessId]] = {}
        last_used_client = active_task_client
        while True:  # do { ... } while (numRemainingStandbys > 0)
            self._update_clients_on_already_used_tag_entries(
                last_used_client, count_of_used_clients, rack_aware_assignment_tags, client_states,
                tag_entry_to_clients, tag_key_to_values, tag_entry_to_used_clients)
            used = [clients for clients in tag_entry_to_used_clients.values()]
            client_on_unused_tag_dimensions = standby_task_clients_by_task_load.poll(
                active_task_id, lambda pid: not any(pid in clients for clients in used))
            if client_on_unused_tag_dimensions is None:
                break
            count_of_used_clients += 1
            num_remaining_standbys -= 1
            client_states[client_on_unused_tag_dimensions].assign_standby(active_task_id)
            last_used_client = client_on_unused_tag_dimensions
            if not num_remaining_standbys > 0:
                break
        if num_remaining_standbys > 0:
            pending_standby_tasks_to_client_id[active_task_id] = active_task_client
            tasks_to_remaining_standbys[active_task_id] = num_remaining_standbys
        else:
            tasks_to_remaining_standbys.remove(active_task_id)

    @staticmethod
    def _update_clients_on_already_used_tag_entries(
            used_client: ProcessId, count_of_used_clients: int, rack_aware_assignment_tags: Set[str],
            client_states: Mapping[ProcessId, ClientState], tag_entry_to_clients: Dict[TagEntry, Set[ProcessId]],
            tag_key_to_values: Dict[str, Set[str]], tag_entry_to_used_clients: Dict[TagEntry, Set[ProcessId]]) -> None:
        """``updateClientsOnAlreadyUsedTagEntries`` (lines 298-375)."""
        for tag_key, tag_value in client_states[used_client].client_tags.items():
            if tag_key not in rack_aware_assignment_tags:
                continue  # Kafka warns that the tag is ignored
            all_tag_values = tag_key_to_values[tag_key]
            if len(all_tag_values) <= count_of_used_clients:
                for value in all_tag_values:
                    tag_entry_to_used_clients.pop((tag_key, value), None)
            else:
                tag_entry_to_used_clients[(tag_key, tag_value)] = tag_entry_to_clients[(tag_key, tag_value)]
