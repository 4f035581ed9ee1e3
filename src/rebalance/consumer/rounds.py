"""Rebalance until the group settles: the cooperative protocol's follow-up rebalances (KIP-429).

Under the eager protocol one rebalance finishes the job.  Under the cooperative one
(``ConsumerCoordinator.onJoinComplete``, Kafka 4.3.1) a member that had partitions revoked rejoins at
once, and the leader's ``CooperativeStickyAssignor`` hands the revoked partitions out only in that
follow-up rebalance.  :func:`rebalance_rounds` replays this for any built-in assignor: after each round every
member owns exactly what it was given, in the next generation, and the same assignor object (the leader's,
so ``maxGeneration`` carries over) runs again, until a round withholds nothing.
"""
from __future__ import annotations

from dataclasses import replace
from typing import List, Optional

from .assignor import ConsumerPartitionAssignor, assignor_for
from .model import AssignorResult, ConsumerScenario
from .sticky_userdata import auto_user_data


def rebalance_rounds(scenario: ConsumerScenario, max_rounds: int = 10,
                     assignor: Optional[ConsumerPartitionAssignor] = None) -> List[AssignorResult]:
    """One result per rebalance, starting with ``scenario`` as given and stopping after the first round
    that withholds nothing (or after ``max_rounds``).  ``assignor`` defaults to a fresh instance of
    ``scenario.assignor``.  Between rounds each member rejoins owning its new assignment, with the next
    generation and the user data its own assignor would send.

    Defined in chapter 5, *The cooperative sticky assignor*."""
    assignor = assignor or assignor_for(scenario.assignor)
    rounds: List[AssignorResult] = []
    generation = max([s.generation_id for s in scenario.members.values() if s.generation_id is not None],
                     default=0)
    current = scenario
    for _ in range(max_rounds):
        result = assignor.assign(current)
        rounds.append(result)
        if not result.withheld:
            break
        generation += 1
        members = {}
        for m, sub in current.members.items():
            owned = list(result.assignment.get(m, []))
            members[m] = replace(sub, owned_partitions=owned, generation_id=generation,
                                 user_data=auto_user_data(assignor.name(), owned, generation))
        current = replace(current, members=members)
    return rounds
