"""Tiny stand-in assignors for the protocol tests (used only where ``rebalance.consumer`` is missing or
to keep thousands of random schedules fast).  They follow the same contract as the simulator's
assignors: ``assign(partitions, members) -> {member_id: [(topic, partition), ...]}``."""


def _all_partitions(members, partitions):
    topics = sorted({t for m in members.values() for t in m["topics"]})
    return [(t, p) for t in topics for p in range(partitions.get(t, 0))]


def range_standin(partitions, members):
    """RangeAssignor for one subscription set: per topic, members sorted by id get contiguous ranges."""
    out = {m: [] for m in members}
    for topic in sorted({t for m in members.values() for t in m["topics"]}):
        subs = sorted(m for m, meta in members.items() if topic in meta["topics"])
        n = partitions.get(topic, 0)
        per, extra = divmod(n, len(subs))
        start = 0
        for i, m in enumerate(subs):
            k = per + (1 if i < extra else 0)
            out[m].extend((topic, p) for p in range(start, start + k))
            start += k
    return out


range_standin.rebalance_protocols = ("eager",)


def cooperative_standin(partitions, members):
    """A sticky assignor obeying KIP-429: members keep owned partitions up to their quota; a partition
    still owned by another member is never handed over in the same round (it is only revoked)."""
    all_tps = _all_partitions(members, partitions)
    ids = sorted(members)
    n = len(ids)
    quota_min, extra = divmod(len(all_tps), n)
    valid = set(all_tps)
    gens = {m: members[m].get("generation", -1) for m in ids}
    # highest generation wins a double claim
    claimed = {}
    for m in sorted(ids, key=lambda x: -gens[x]):
        for tp in members[m]["owned"]:
            tp = tuple(tp)
            if tp in valid and tp not in claimed:
                claimed[tp] = m
    keep = {m: [] for m in ids}
    for m in ids:
        for tp in members[m]["owned"]:
            tp = tuple(tp)
            if claimed.get(tp) == m:
                keep[m].append(tp)
    quotas = {}
    extras_left = extra
    for m in sorted(ids, key=lambda x: -len(keep[x])):
        q = quota_min + (1 if extras_left > 0 and len(keep[m]) > quota_min else 0)
        if q > quota_min:
            extras_left -= 1
        quotas[m] = q
    for m in ids:
        if extras_left > 0 and quotas[m] == quota_min:
            quotas[m] += 1
            extras_left -= 1
    revoked = set()
    for m in ids:
        if len(keep[m]) > quotas[m]:
            revoked.update(keep[m][quotas[m]:])
            keep[m] = keep[m][:quotas[m]]
    owned_elsewhere = set(claimed) - {tp for m in ids for tp in keep[m]}
    free = [tp for tp in all_tps if tp not in claimed and tp not in revoked]
    out = {m: list(keep[m]) for m in ids}
    for tp in free:
        m = min(ids, key=lambda x: (len(out[x]) - quotas[x], x))
        out[m].append(tp)
    return out


cooperative_standin.rebalance_protocols = ("eager", "cooperative")
