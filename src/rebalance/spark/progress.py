"""A tqdm progress bar over Spark's stages and tasks, for the command line (never used in notebooks).

``with stage_progress(spark, "sweep"):`` polls ``SparkContext.statusTracker()`` from a background thread
and advances one bar by the tasks completed in every stage seen so far.  With ``enabled=False`` it does
nothing, which is what ``rebalance.spark.exercise`` and the chapters use (deterministic outputs).
"""
from __future__ import annotations

import contextlib
import sys
import threading
from typing import TYPE_CHECKING, Dict, Iterator, Tuple

if TYPE_CHECKING:  # pyspark is the Spark extra; imported where a session is used
    from pyspark.sql import SparkSession


@contextlib.contextmanager
def stage_progress(spark: SparkSession, desc: str, enabled: bool = True, interval_s: float = 0.5) -> Iterator[None]:
    if not enabled:
        yield
        return
    from tqdm import tqdm

    tracker = spark.sparkContext.statusTracker()
    stop = threading.Event()
    bar = tqdm(total=0, desc=desc, unit="task", file=sys.stderr, dynamic_ncols=True)
    seen: Dict[int, Tuple[int, int]] = {}

    def poll() -> None:
        for stage_id in tracker.getActiveStageIds():
            info = tracker.getStageInfo(stage_id)
            if info is not None:
                seen[stage_id] = (info.numTasks, info.numCompletedTasks)
        total = sum(t for t, _ in seen.values())
        done = sum(c for _, c in seen.values())
        if total != bar.total:
            bar.total = total
        bar.n = done
        bar.refresh()

    def loop() -> None:
        while not stop.wait(interval_s):
            try:
                poll()
            except Exception:  # the tracker can race with a finishing job; the next poll catches up
                pass

    thread = threading.Thread(target=loop, name="spark-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        for stage_id in list(seen):
            total, _ = seen[stage_id]
            seen[stage_id] = (total, total)
        bar.total = sum(t for t, _ in seen.values())
        bar.n = bar.total
        bar.refresh()
        bar.close()
