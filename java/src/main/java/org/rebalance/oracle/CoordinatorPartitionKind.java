package org.rebalance.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.utils.Utils;

/**
 * {@code coordinator_partition}: the {@code __consumer_offsets} partition of a group id, by the expression of
 * {@code GroupCoordinatorService.partitionFor}: {@code Utils.abs(groupId.hashCode()) % numPartitions}, with
 * Kafka's own {@link Utils#abs} (which maps {@code Integer.MIN_VALUE} to 0).
 */
public final class CoordinatorPartitionKind implements Kind {
    @Override
    public JsonNode run(JsonNode input) {
        int numPartitions = Json.reqInt(input, "numPartitions");
        if (numPartitions <= 0) {
            throw new InputException("numPartitions", "numPartitions must be at least 1, got " + numPartitions);
        }
        ArrayNode partitions = Json.array();
        ArrayNode hashes = Json.array();
        for (String groupId : Json.stringList(input, "groupIds")) {
            partitions.add(Utils.abs(groupId.hashCode()) % numPartitions);
            hashes.add(groupId.hashCode());
        }
        ObjectNode out = Json.object();
        out.set("partitions", partitions);
        out.set("javaHashCodes", hashes);
        return out;
    }
}
