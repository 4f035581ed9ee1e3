"""The README's figures on the peer runs (the simulators against real Kafka 4.3.1) are what the recorded runs in
``benchmarks/`` give with the simulators as they are now (issue 35, item 3)."""
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
README = (ROOT / "README.md").read_text()


def _bench(name):
    sys.path.insert(0, str(BENCH))
    try:
        return __import__(name)
    finally:
        sys.path.remove(str(BENCH))


def _one_line(text):
    return " ".join(text.split())


def test_the_consumer_peer_figures_in_the_readme():
    b = _bench("bench_kafka_peer")
    rows = [json.loads(x) for x in (BENCH / "kafka_peer_runs.jsonl").read_text().splitlines()]
    hints = json.loads((BENCH / "kafka_peer_draws.json").read_text())  # the draw to try first (found by the bench)
    classic = {"n": 0, "same": 0, "drawn": 0}
    kip848 = {"n": 0, "counts": 0, "own": 0, "other": 0}
    for r in rows:
        sim = b.simulated(r["scenario"])
        c = b.compare(r["scenario"], sim, r["kafka"], hints.get(r["id"]))
        assert c["alternative"] == hints[r["id"]]
        if r["scenario"]["protocol"] == "consumer":
            kip848["n"] += 1
            kip848["counts"] += bool(c["same_counts_848"])
            kip848["own"] += c["alternative"] == 0
            kip848["other"] += (c["alternative"] or 0) > 0
        else:
            classic["n"] += 1
            classic["same"] += c["same_sequence"] is True and c["same_moved"]
            classic["drawn"] += c["alternative"] is not None
    text = _one_line(README)
    assert classic["drawn"] == classic["n"]  # "each of the 4 is one of the simulator's --alternatives draws"
    assert f"the same assignment in every rebalance in {classic['same']} of {classic['n']} scenarios" in text
    assert f"the {classic['n'] - classic['same']} others are ties" in text
    assert f"the same partition counts in every rebalance in {kip848['counts']} of {kip848['n']}" in text
    assert (f"the real run is the simulator's own in {kip848['own']} and another of its {b.ALTERNATIVE_DRAWS} "
            f"`--alternatives` draws in the other {kip848['other']}") in text
    assert kip848["own"] + kip848["other"] == kip848["n"]
