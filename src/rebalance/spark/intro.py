"""The first chapter's tiny Spark job: count group ids per ``__consumer_offsets`` partition.

The function called inside Spark is the package's own ``partition_for``; Spark only distributes it."""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Sequence

import pandas as pd

if TYPE_CHECKING:  # pyspark is the Spark extra; imported where a session is used
    from pyspark.sql import SparkSession

from ..protocol.coordinator import partition_for


def groups_per_partition(spark: SparkSession, group_ids: Sequence[str], num_partitions: int = 50) -> pd.DataFrame:
    """A DataFrame ``partition, groups`` (sorted by partition) computed by a ``mapInPandas`` job."""
    df = spark.createDataFrame(pd.DataFrame({"group_id": list(group_ids)}))

    def to_partition(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        for batch in batches:
            yield pd.DataFrame({"partition": [partition_for(g, num_partitions) for g in batch["group_id"]]})

    counts = df.mapInPandas(to_partition, "partition int").groupBy("partition").count()
    collected: pd.DataFrame = counts.toPandas()
    result = collected.rename(columns={"count": "groups"})
    return result.sort_values("partition").reset_index(drop=True)
