"""Small seeded data sets used by the chapters' examples (deterministic for a given seed)."""
from __future__ import annotations

import random
from typing import List

SERVICES = ["orders", "payments", "billing", "search", "checkout", "inventory", "shipping", "fraud",
            "recommendations", "notifications", "analytics", "audit", "users", "catalog", "pricing"]
ENVIRONMENTS = ["prod", "staging", "dev", "qa"]
PURPOSES = ["consumer", "indexer", "etl", "sink", "stream", "replicator", "archiver", "enricher"]


def sample_group_ids(n: int, seed: int = 0) -> List[str]:
    """``n`` distinct, realistic consumer group ids such as ``payments-prod-indexer-7``."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: List[str] = []
    while len(out) < n:
        gid = f"{rng.choice(SERVICES)}-{rng.choice(ENVIRONMENTS)}-{rng.choice(PURPOSES)}-{rng.randrange(1000)}"
        if gid not in seen:
            seen.add(gid)
            out.append(gid)
    return out
