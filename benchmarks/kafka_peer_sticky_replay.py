"""Re-replay the eager Sticky rounds of a ``bench_kafka_peer.py`` run whose ``replayed`` was false, with the user
data rebuilt.  ``RecordingAssignor.assign`` records each subscription's ``userData()`` after the delegate's
``assign`` has read it (``ud.duplicate()`` keeps the position, at the end), so StickyAssignor's V1 user data is
recorded as ``""`` and the replay sees members owning nothing.  Here each such member's user data is rebuilt
as the client would send it (``encode_sticky_v1`` of the partitions of its last ``onPartitionsAssigned`` of
that generation) and the round replayed again through :func:`rebalance.consumer.assign`.

    python benchmarks/kafka_peer_sticky_replay.py benchmarks/kafka_peer_records.jsonl.gz
"""
from __future__ import annotations

import gzip
import json
import sys
from collections import defaultdict

from rebalance.consumer import assign
from rebalance.consumer.model import Subscription
from rebalance.consumer.sticky_userdata import encode_sticky_v1


def tps(texts):
    out = []
    for text in texts:
        topic, _, p = text.rpartition("-")
        out.append((topic, int(p)))
    return out


def main(path: str) -> None:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        recs = [json.loads(line) for line in f]
    assigned = defaultdict(list)  # (scenario, member_id) -> [(generation, partitions)]
    for r in recs:
        if r.get("event") == "assigned":
            assigned[(r["scenario"], r["member_id"])].append((r["generation"], r["partitions"]))
    total = same_before = same_after = 0
    for r in recs:
        if r.get("event") != "assignor" or r["name"] != "sticky":
            continue
        subs, rebuilt = {}, False
        subs_raw = {}
        for s in r["subscriptions"]:
            ud = s.get("user_data")
            raw = None if ud is None else b""
            if ud == "" and s.get("generation") is not None:
                got = [p for g, p in assigned[(r["scenario"], s["member_id"])] if g == s["generation"]]
                if got:
                    raw = encode_sticky_v1(sorted(tps(got[-1])), s["generation"])
                    rebuilt = True
            subs[s["member_id"]] = Subscription(list(s["topics"]), tps(s["owned"]), s.get("generation"),
                                                s.get("instance_id"), s.get("rack"), raw)
            subs_raw[s["member_id"]] = Subscription(list(s["topics"]), tps(s["owned"]), s.get("generation"),
                                                    s.get("instance_id"), s.get("rack"), None if ud is None else b"")
        want = {m: sorted(tps(p)) for m, p in r["assignment"].items()}
        before = {m: sorted(p) for m, p in assign("sticky", r["partitions"], subs_raw).items()} == want
        after = {m: sorted(p) for m, p in assign("sticky", r["partitions"], subs).items()} == want
        total += 1
        same_before += before
        same_after += after
        if not after:
            print("still different:", r["scenario"], r["t"])
    print(f"eager sticky rounds: {total}; replayed as recorded: {same_before}; with the user data rebuilt: {same_after}")


if __name__ == "__main__":
    main(sys.argv[1])
