"""Tables and the widget of the replica-placement chapter.

Everything here calls the package's placers (``AdminUtils.assignReplicasToBrokers`` of Kafka 3.9.2/4.0 and
``StripedReplicaPlacer`` of Kafka 4.3.1, see :mod:`rebalance.replicas`) and formats the results.
"""
from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import pandas as pd

if TYPE_CHECKING:
    from ipywidgets import Widget

from ..common import JsonRecord
from ..errors import InputError, KafkaError
from ..replicas.adminutils import PartitionTrace, add_partitions, assign_replicas_to_brokers
from ..replicas.brokers import Broker, parse_brokers
from ..replicas.coordinators import coordinator_load, coordinators
from ..replicas.java_random import JavaRandom
from ..replicas.measures import Assignment, as_mapping, balance, leaders_per_broker, replicas_per_broker
from ..replicas.placement import PlacementSpec
from ..replicas.placer import PLACERS, placer_for


def _rack(r: Optional[str]) -> str:
    return "-" if r is None else str(r)


def cluster(num_brokers: int, num_racks: int = 0, *, first_id: int = 0) -> List[Broker]:
    """``num_brokers`` brokers with ids from ``first_id``; broker ``i`` sits in ``rack{i % num_racks + 1}``
    (no racks when ``num_racks`` is 0)."""
    if num_racks < 0 or num_brokers < 0:
        raise InputError("num_racks" if num_racks < 0 else "num_brokers", "must not be negative")
    return [Broker(first_id + i, f"rack{i % num_racks + 1}" if num_racks else None) for i in range(num_brokers)]


def cluster_from_rack_sizes(rack_sizes: Sequence[int]) -> List[Broker]:
    """Consecutive broker ids per rack: ``(3, 2, 1)`` gives rack1: 0, 1, 2; rack2: 3, 4; rack3: 5."""
    out, next_id = [], 0
    for r, size in enumerate(rack_sizes):
        for _ in range(size):
            out.append(Broker(next_id, f"rack{r + 1}"))
            next_id += 1
    return out


def place(brokers: Iterable[Any], partitions: int, replication_factor: int, placer: str = "AdminUtils", *,
          seed: int = 0, fixed_start_index: int = 0) -> Dict[int, List[int]]:
    """``{partition: replicas}`` from a placer of :data:`~rebalance.replicas.placer.PLACERS` (AdminUtils with
    ``fixed_start_index``; a negative one draws the start from ``JavaRandom(seed)``; StripedReplicaPlacer with
    ``java.util.Random(seed)``)."""
    return placer_for(placer, JavaRandom(seed), fixed_start_index=fixed_start_index).place(
        PlacementSpec(0, partitions, replication_factor), list(brokers)).as_mapping()


def rack_table(brokers: Iterable[Any]) -> pd.DataFrame:
    """Which brokers each rack holds (racks in name order)."""
    parsed = parse_brokers(brokers, with_fenced=True)
    racks: Dict[Optional[str], List[int]] = {}
    for b in parsed:
        racks.setdefault(b.rack, []).append(b.id)
    rows = [{"rack": _rack(r), "brokers": ", ".join(map(str, sorted(ids)))}
            for r, ids in sorted(racks.items(), key=lambda kv: (kv[0] is not None, kv[0] or ""))]
    return pd.DataFrame(rows)


def placement_table(assignment: Assignment, brokers: Iterable[Any]) -> pd.DataFrame:
    """One row per partition: leader, replica list (leader first) and the racks it spans."""
    parsed = parse_brokers(brokers, with_fenced=True)
    rack_of = {b.id: b.rack for b in parsed}
    rows = []
    for p, replicas in sorted(as_mapping(assignment).items()):
        rows.append({"partition": p, "leader": replicas[0], "replicas": ", ".join(map(str, replicas)),
                     "racks": ", ".join(_rack(rack_of[b]) for b in replicas),
                     "distinct racks": len({rack_of[b] for b in replicas})})
    return pd.DataFrame(rows).set_index("partition")


def broker_table(assignment: Assignment, brokers: Iterable[Any]) -> pd.DataFrame:
    """One row per broker: its rack, how many partitions it leads and how many replicas it holds."""
    parsed = parse_brokers(brokers, with_fenced=True)
    lead = leaders_per_broker(assignment, parsed)
    reps = replicas_per_broker(assignment, parsed)
    rows = [{"broker": b.id, "rack": _rack(b.rack), "fenced": b.fenced, "leaders": lead[b.id],
             "replicas": reps[b.id]} for b in sorted(parsed, key=lambda b: b.id)]
    df = pd.DataFrame(rows).set_index("broker")
    if not df["fenced"].any():
        df = df.drop(columns="fenced")
    return df


def trace_table(trace: Sequence[PartitionTrace], partition: int) -> pd.DataFrame:
    """The follower candidates AdminUtils examined for one partition, and why each was taken or skipped."""
    t = next((t for t in trace if t.partition == partition), None)
    if t is None:
        raise InputError("partition", f"partition {partition} is not in the trace")
    rows = [{"k": c.k, "index in list": c.index, "broker": c.broker, "rack": _rack(c.rack),
             "taken": "yes" if c.accepted else "no", "why not": c.reason} for c in t.candidates]
    return pd.DataFrame(rows)


def add_partitions_table(brokers: Iterable[Any], replication_factor: int, cases: Iterable[Tuple[int, Union[int, Tuple[str, int]]]]) -> pd.DataFrame:
    """Created at once or grown later: for each ``(partitions, start)`` case (``start`` a fixed start index,
    or ``("random", seed)`` for Kafka's random start from ``JavaRandom(seed)``), the replicas of partition
    ``partitions`` when the topic is created with ``partitions + 1`` partitions, and when it is created with
    ``partitions`` and one is added later by ``AdminZkClient.createNewPartitionsAssignment`` (``add_partitions``)."""
    brokers = list(brokers)
    ids = sorted(b.id for b in parse_brokers(brokers))
    rows = []
    for partitions, start in cases:
        if isinstance(start, tuple):
            draws = JavaRandom(start[1])
            start_index, shift = draws.next_int(len(ids)), draws.next_int(len(ids))
            kwargs = {"random_seed": start[1]}
            created = f"random, JavaRandom({start[1]})"
        else:
            start_index = shift = start
            kwargs = {"fixed_start_index": start}
            created = f"fixed start index {start}"

        def create(n: int) -> Dict[int, List[int]]:
            if "random_seed" in kwargs:
                return assign_replicas_to_brokers(brokers, n, replication_factor, random=JavaRandom(kwargs["random_seed"]))
            return assign_replicas_to_brokers(brokers, n, replication_factor, fixed_start_index=kwargs["fixed_start_index"])

        existing = create(partitions)
        at_once = create(partitions + 1)[partitions]
        leader0 = existing[0][0]
        added_start = next((i for i, b in enumerate(ids) if b >= leader0), 0)
        added = add_partitions(brokers, existing, partitions + 1)[partitions]
        rows.append({"topic created with": f"{partitions} partitions, {created}",
                     "start index, shift": f"{start_index}, {shift}",
                     "partition 0 leader": leader0, "addPartitions start index and shift": added_start,
                     "new partition": partitions, "created at once": ", ".join(map(str, at_once)),
                     "added later": ", ".join(map(str, added)), "same": "yes" if at_once == added else "no"})
    return pd.DataFrame(rows).set_index("topic created with")


def balance_row(name: str, assignment: Assignment, brokers: Iterable[Any]) -> JsonRecord:
    """One placement's balance measures as a table row named ``name``."""
    b = balance(assignment, brokers)
    reps = replicas_per_broker(assignment, brokers)
    return {"placement": name, "replicas/broker min": min(reps.values()), "replicas/broker max": max(reps.values()),
            "replica skew": b.replica_skew, "leader skew": b.leader_skew,
            "fewest racks in a partition": b.min_racks_per_partition}


def uneven_racks_table(layouts: Sequence[Sequence[int]], partitions: int = 60, replication_factor: int = 3,
                       seed: int = 0) -> pd.DataFrame:
    """How balance degrades as racks become uneven: for each layout (brokers per rack), both placers'
    replica counts per broker and rack coverage."""
    rows = []
    for layout in layouts:
        brokers = cluster_from_rack_sizes(layout)
        for placer in PLACERS:
            a = place(brokers, partitions, replication_factor, placer, seed=seed)
            row = balance_row(placer, a, brokers)
            row = {"racks (brokers each)": " / ".join(map(str, layout)), **row}
            rows.append(row)
    return pd.DataFrame(rows).set_index(["racks (brokers each)", "placement"])


def compare_placers_table(brokers: Iterable[Any], partitions: int, replication_factor: int, seed: int = 0) -> pd.DataFrame:
    """Balance of AdminUtils (start index 0) and StripedReplicaPlacer (``Random(seed)``) on one cluster."""
    brokers = list(brokers)
    rows = [balance_row(p, place(brokers, partitions, replication_factor, p, seed=seed), brokers)
            for p in PLACERS]
    return pd.DataFrame(rows).set_index("placement")


def coordinator_rows(group_ids: Iterable[str], assignment: Assignment) -> pd.DataFrame:
    """Which broker coordinates each group: hash, offsets partition, replicas, leader."""
    rows = coordinators(group_ids, assignment)
    for r in rows:
        r["replicas"] = ", ".join(map(str, r["replicas"]))
    return pd.DataFrame(rows).set_index("groupId")


def coordinator_load_table(group_ids: Sequence[str], assignments: Mapping[str, Assignment], brokers: Iterable[Any]
                           ) -> pd.DataFrame:
    """Groups coordinated per broker, one column per placement of ``__consumer_offsets``."""
    ids = sorted(b.id for b in parse_brokers(brokers, with_fenced=True))
    data = {name: coordinator_load(group_ids, a, ids) for name, a in assignments.items()}
    df = pd.DataFrame(data)
    df.index.name = "broker"
    return df


def placement_widget(brokers: int = 6, racks: int = 3, partitions: int = 6, replication_factor: int = 3,
                     placer: str = "AdminUtils", seed: int = 0) -> "Widget":
    """Choose brokers, racks, partitions, replication factor and placer; see the broker x partition grid
    (leaders marked) and the per-broker counts.  Brokers sit round-robin in ``rack1..rackN``."""
    import ipywidgets as w
    import matplotlib.pyplot as plt

    from ..viz.replicas import placement_grid_figure

    nb = w.IntSlider(value=brokers, min=1, max=16, description="brokers")
    nr = w.IntSlider(value=racks, min=0, max=6, description="racks")
    np_ = w.IntSlider(value=partitions, min=1, max=40, description="partitions")
    rf = w.IntSlider(value=replication_factor, min=1, max=6, description="RF")
    pl = w.Dropdown(options=list(PLACERS), value=placer, description="placer")
    image = w.Image(format="png")
    table = w.HTML()

    def update(*_: object) -> None:
        bs = cluster(nb.value, min(nr.value, nb.value))
        try:
            a = place(bs, np_.value, rf.value, pl.value, seed=seed)
        except KafkaError as exc:
            image.value = b""
            table.value = f"<b>Kafka throws</b> {exc.type.rsplit('.', 1)[-1]}: {exc.message}"
            return
        fig = placement_grid_figure(a, bs, f"{pl.value}: {np_.value} partitions, RF {rf.value}")
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
        plt.close(fig)
        image.value = buf.getvalue()
        table.value = broker_table(a, bs).T.to_html()

    for control in (nb, nr, np_, rf, pl):
        control.observe(update, "value")
    update()
    return w.VBox([w.HBox([nb, nr]), w.HBox([np_, rf]), pl, image, table])


def seed_sweep_table(brokers: Iterable[Any], partitions: int, replication_factor: int, seeds: Iterable[int]) -> pd.DataFrame:
    """Leader and replica skew over many random seeds: AdminUtils with a random start
    (``fixedStartIndex = -1``, ``JavaRandom(seed)``) against StripedReplicaPlacer (``Random(seed)``)."""
    brokers = list(brokers)
    rows = []
    for placer in PLACERS:
        leader, replica = [], []
        for s in seeds:
            a = place(brokers, partitions, replication_factor, placer, seed=s, fixed_start_index=-1)
            b = balance(a, brokers)
            leader.append(b.leader_skew)
            replica.append(b.replica_skew)
        rows.append({"placement": placer, "seeds": len(leader),
                     "leader skew: mean": round(sum(leader) / len(leader), 2), "leader skew: max": max(leader),
                     "replica skew: mean": round(sum(replica) / len(replica), 2),
                     "replica skew: max": max(replica)})
    return pd.DataFrame(rows).set_index("placement")


def leader_pattern_table(brokers: Iterable[Any], partitions: int, replication_factor: int, seeds: Iterable[int],
                         placer: str = "StripedReplicaPlacer") -> pd.DataFrame:
    """How often each leader-count pattern (leaders per broker, sorted) occurs over random seeds."""
    from collections import Counter

    brokers = list(brokers)
    patterns: Counter[str] = Counter()
    for s in seeds:
        a = place(brokers, partitions, replication_factor, placer, seed=s, fixed_start_index=-1)
        patterns[", ".join(map(str, sorted(leaders_per_broker(a, brokers).values())))] += 1
    rows = [{"leaders per broker (sorted)": k, "seeds": n} for k, n in patterns.most_common()]
    return pd.DataFrame(rows).set_index("leaders per broker (sorted)")
