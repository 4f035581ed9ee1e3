package org.rebalance.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.DirectoryId;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.metadata.placement.ClusterDescriber;
import org.apache.kafka.metadata.placement.PartitionAssignment;
import org.apache.kafka.metadata.placement.PlacementSpec;
import org.apache.kafka.metadata.placement.StripedReplicaPlacer;
import org.apache.kafka.metadata.placement.UsableBroker;
import org.apache.kafka.server.util.MockRandom;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * {@code striped}: the KRaft controller's replica placement, {@link StripedReplicaPlacer} of kafka-metadata 4.3.1
 * (the release the book pins; the class is source-identical to 3.9.2's apart from two error messages, and this
 * kind runs on either release's jars).
 *
 * <p>Input {@code {"random", "seed", "brokers": [{"id", "rack", "fenced"}], "placements": [{"startPartition",
 * "numPartitions", "numReplicas"}]}}; output {@code {"placements": [{"partitions": [[replica ids, leader first],
 * ...]} | {"error": {"type", "message"}}]}}, one entry per placement.
 *
 * <ul>
 *   <li>{@code random}: {@code "java.util.Random"} (the default) seeded with {@code seed}, which is then required,
 *       or {@code "MockRandom"}, Kafka's test random source {@link MockRandom} with initial state {@code seed}
 *       (Kafka's default, 17, without one).</li>
 *   <li>One placer over that one random source places every placement, in order, as the controller's does: the
 *       random stream carries over, and each {@code place()} call draws afresh for its new {@code RackList}
 *       (before it validates the placement, so a refused placement still consumes random numbers).</li>
 *   <li>The cluster is a {@link ClusterDescriber} whose {@code usableBrokers()} yields the brokers in input order
 *       (that order fixes the racks' {@code HashMap} insertion order, hence the order of the random draws);
 *       {@code defaultDir} is {@link DirectoryId#UNASSIGNED}, which does not affect replicas.</li>
 *   <li>A placement Kafka refuses ({@link ApiException}: {@code InvalidReplicationFactorException}) is recorded as
 *       that placement's {@code error}; the following placements still run.</li>
 * </ul>
 *
 * <p>Bad input, reported with {@link InputException} naming the field (as the Python port,
 * {@code rebalance.replicas.vectors}, does): broker ids must be distinct non-negative ints (a cluster registers
 * each id once), racks strings or null, {@code fenced} a boolean; {@code numPartitions} must not be negative (the
 * controller's callers never pass one), {@code numReplicas} must fit a Java {@code short}; unknown fields of a
 * broker or a placement are refused. Every placement is validated before the first one runs.
 */
public final class StripedKind implements Kind {
    private static final List<String> BROKER_FIELDS = List.of("id", "rack", "fenced");
    private static final List<String> PLACEMENT_FIELDS = List.of("startPartition", "numPartitions", "numReplicas");

    @Override
    public JsonNode run(JsonNode input) {
        Random random = random(input);
        Cluster cluster = new Cluster(brokers(Json.reqArray(input, "brokers")));
        List<PlacementSpec> specs = placements(Json.reqArray(input, "placements"));
        StripedReplicaPlacer placer = new StripedReplicaPlacer(random);
        ArrayNode results = Json.array();
        for (PlacementSpec spec : specs) {
            ObjectNode result = Json.object();
            try {
                ArrayNode partitions = Json.array();
                for (PartitionAssignment assignment : placer.place(spec, cluster).assignments()) {
                    partitions.add(Json.ints(assignment.replicas()));
                }
                result.set("partitions", partitions);
            } catch (ApiException e) {
                result.set("error", Json.error(e));
            }
            results.add(result);
        }
        ObjectNode out = Json.object();
        out.set("placements", results);
        return out;
    }

    private static Random random(JsonNode input) {
        String name = Json.optString(input, "random", "java.util.Random");
        switch (name) {
            case "java.util.Random":
                if (Json.opt(input, "seed") == null) {
                    throw new InputException("seed", "a java.util.Random scenario needs a seed to be reproducible");
                }
                return new Random(Json.reqLong(input, "seed"));
            case "MockRandom":
                return Json.opt(input, "seed") == null ? new MockRandom() : new MockRandom(Json.reqLong(input, "seed"));
            default:
                throw new InputException("random", "random must be \"java.util.Random\" or \"MockRandom\", got \"" + name + "\"");
        }
    }

    private static List<UsableBroker> brokers(ArrayNode items) {
        List<UsableBroker> brokers = new ArrayList<>();
        Map<Integer, Integer> seen = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            String where = "brokers[" + i + "]";
            JsonNode item = items.get(i);
            requireObject(item, where, BROKER_FIELDS);
            UsableBroker broker;
            try {
                broker = new UsableBroker(Json.reqInt(item, "id"),
                    Optional.ofNullable(Json.optString(item, "rack", null)), Json.optBool(item, "fenced", false));
            } catch (InputException e) {
                throw new InputException(where + "." + e.field(), e.getMessage());
            }
            if (broker.id() < 0) {
                throw new InputException(where + ".id", "a broker id must not be negative, got " + broker.id());
            }
            Integer other = seen.putIfAbsent(broker.id(), i);
            if (other != null) {
                throw new InputException(where + ".id", "duplicate broker id " + broker.id() + " (also brokers[" + other + "])");
            }
            brokers.add(broker);
        }
        return brokers;
    }

    private static List<PlacementSpec> placements(ArrayNode items) {
        List<PlacementSpec> specs = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            String where = "placements[" + i + "]";
            JsonNode item = items.get(i);
            requireObject(item, where, PLACEMENT_FIELDS);
            int start;
            int numPartitions;
            int numReplicas;
            try {
                start = Json.optInt(item, "startPartition", 0);
                numPartitions = Json.reqInt(item, "numPartitions");
                numReplicas = Json.reqInt(item, "numReplicas");
            } catch (InputException e) {
                throw new InputException(where + "." + e.field(), e.getMessage());
            }
            if (numPartitions < 0) {
                throw new InputException(where + ".numPartitions", "numPartitions must not be negative, got " + numPartitions);
            }
            if (numReplicas != (short) numReplicas) {
                throw new InputException(where + ".numReplicas", "numReplicas must fit a Java short, got " + numReplicas);
            }
            specs.add(new PlacementSpec(start, numPartitions, (short) numReplicas));
        }
        return specs;
    }

    /** {@code item} must be a JSON object whose fields are among {@code fields}. */
    private static void requireObject(JsonNode item, String where, List<String> fields) {
        if (!item.isObject()) {
            throw new InputException(where, "must be an object with fields " + fields + ", got " + item);
        }
        for (Iterator<String> names = item.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!fields.contains(name)) {
                throw new InputException(where + "." + name, "unknown field; allowed: " + fields);
            }
        }
    }

    /** The controller's view of the cluster: the usable brokers in input order, no log directories. */
    private static final class Cluster implements ClusterDescriber {
        private final List<UsableBroker> brokers;

        Cluster(List<UsableBroker> brokers) {
            this.brokers = brokers;
        }

        @Override
        public Iterator<UsableBroker> usableBrokers() {
            return brokers.iterator();
        }

        @Override
        public Uuid defaultDir(int brokerId) {
            return DirectoryId.UNASSIGNED;
        }
    }
}
