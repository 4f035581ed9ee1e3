package org.rebalance.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;

/**
 * {@code adminutils}: the ZooKeeper-era replica assignment at topic creation,
 * {@code org.apache.kafka.admin.AdminUtils.assignReplicasToBrokers} and {@code getRackAlternatedBrokerList} of
 * kafka-server-common 3.9.2. AdminUtils was removed with ZooKeeper in Kafka 4.0, so {@code rebalance.kafka.oracle}
 * answers this kind with 3.9.2's jars.
 *
 * <p>This module compiles against 4.3.1, which lacks {@code AdminUtils} and {@code org.apache.kafka.admin.BrokerMetadata}:
 * both are reached through reflection, looked up on the first line. On a release without them the kind's lines
 * fail with a {@link LinkageError} ({@link NoClassDefFoundError}, {@link NoSuchMethodError}), which the oracle
 * reports as a fault saying the release lacks what the kind needs.
 *
 * <p>Input {@code {"brokers": [{"id", "rack"}], "partitions", "replicationFactor", "fixedStartIndex",
 * "startPartitionId", "seed"}}; output {@code {"assignment": {"<partition id>": [replica ids, leader first]},
 * "rackAlternatedBrokerList"}}, partition ids ascending, the list only when every broker has a rack. Where Kafka
 * throws ({@code InvalidPartitionsException}, {@code InvalidReplicationFactorException},
 * {@code AdminOperationException}), the exception leaves {@link #run} and the oracle writes it as the
 * scenario's {@code error}.
 *
 * <ul>
 *   <li>{@code brokers} become a {@code List<BrokerMetadata>} in input order (the rack-unaware path's broker
 *       order; Kafka's callers sort by id). A broker without {@code rack} (or with null) has
 *       {@code Optional.empty()}.</li>
 *   <li>{@code fixedStartIndex} and {@code startPartitionId} default to -1, as in Kafka's three-argument overload.
 *       A negative {@code fixedStartIndex} makes Kafka draw the start index and the first shift from its static
 *       {@code AdminUtils.RAND}; {@code seed} (optional, as in the Python port) reseeds that {@code Random} with
 *       {@link Random#setSeed} before the call, so that the draws are those of {@code new Random(seed)}.</li>
 * </ul>
 *
 * <p>Bad input, reported with {@link InputException} naming the field (as the Python port,
 * {@code rebalance.replicas.vectors}, does): broker ids must be distinct non-negative ints, racks strings or null;
 * a broker may say {@code "fenced": false} but not {@code true} (AdminUtils has no notion of fenced brokers);
 * {@code partitions} must not be negative (Kafka's callers never pass one; zero is Kafka's own
 * {@code InvalidPartitionsException}).
 */
public final class AdminUtilsKind implements Kind {
    private static final String ADMIN_UTILS = "org.apache.kafka.admin.AdminUtils";
    private static final String BROKER_METADATA = "org.apache.kafka.admin.BrokerMetadata";
    private static final List<String> BROKER_FIELDS = List.of("id", "rack", "fenced");

    /** AdminUtils' entry points in the release on the classpath, looked up on first use. */
    private Api api;

    @Override
    public JsonNode run(JsonNode input) throws Exception {
        if (api == null) {
            api = new Api();
        }
        Map<Integer, Optional<String>> racks = brokers(Json.reqArray(input, "brokers"));
        int partitions = Json.reqInt(input, "partitions");
        if (partitions < 0) {
            throw new InputException("partitions", "partitions must not be negative, got " + partitions);
        }
        int replicationFactor = Json.reqInt(input, "replicationFactor");
        int fixedStartIndex = Json.optInt(input, "fixedStartIndex", -1);
        int startPartitionId = Json.optInt(input, "startPartitionId", -1);
        if (Json.opt(input, "seed") != null) {
            api.random().setSeed(Json.reqLong(input, "seed"));
        }

        List<Object> brokerMetadatas = new ArrayList<>();
        for (Map.Entry<Integer, Optional<String>> broker : racks.entrySet()) {
            brokerMetadatas.add(api.brokerMetadata.newInstance(broker.getKey(), broker.getValue()));
        }
        Map<?, ?> assignment = (Map<?, ?>) call(api.assignReplicasToBrokers, brokerMetadatas, partitions,
            replicationFactor, fixedStartIndex, startPartitionId);

        ObjectNode byPartition = Json.object();
        new TreeMap<>(assignment).forEach((partition, replicas) ->
            byPartition.set(partition.toString(), Json.MAPPER.valueToTree(replicas)));
        ObjectNode out = Json.object();
        out.set("assignment", byPartition);
        if (racks.values().stream().allMatch(Optional::isPresent)) {
            Map<Integer, String> brokerRackMap = new LinkedHashMap<>();
            racks.forEach((id, rack) -> brokerRackMap.put(id, rack.get()));
            out.set("rackAlternatedBrokerList",
                Json.MAPPER.valueToTree(call(api.getRackAlternatedBrokerList, brokerRackMap)));
        }
        return out;
    }

    /** broker id -> rack, in input order. */
    private static Map<Integer, Optional<String>> brokers(ArrayNode items) {
        Map<Integer, Optional<String>> racks = new LinkedHashMap<>();
        Map<Integer, Integer> seen = new HashMap<>();
        for (int i = 0; i < items.size(); i++) {
            String where = "brokers[" + i + "]";
            JsonNode item = items.get(i);
            if (!item.isObject()) {
                throw new InputException(where, "must be an object {\"id\", \"rack\"}, got " + item);
            }
            for (Iterator<String> names = item.fieldNames(); names.hasNext(); ) {
                String name = names.next();
                if (!BROKER_FIELDS.contains(name)) {
                    throw new InputException(where + "." + name, "unknown field; allowed: " + BROKER_FIELDS);
                }
            }
            int id;
            Optional<String> rack;
            try {
                id = Json.reqInt(item, "id");
                rack = Optional.ofNullable(Json.optString(item, "rack", null));
                if (Json.optBool(item, "fenced", false)) {
                    throw new InputException("fenced", "AdminUtils has no notion of fenced brokers");
                }
            } catch (InputException e) {
                throw new InputException(where + "." + e.field(), e.getMessage());
            }
            if (id < 0) {
                throw new InputException(where + ".id", "a broker id must not be negative, got " + id);
            }
            Integer other = seen.putIfAbsent(id, i);
            if (other != null) {
                throw new InputException(where + ".id", "duplicate broker id " + id + " (also brokers[" + other + "])");
            }
            racks.put(id, rack);
        }
        return racks;
    }

    /** A static AdminUtils method, with the exception Kafka throws let out unwrapped. */
    private static Object call(Method method, Object... args) throws Exception {
        try {
            return method.invoke(null, args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception) {
                throw (Exception) cause;
            }
            throw (Error) cause;
        }
    }

    /** The reflective handles on AdminUtils and BrokerMetadata; a release lacking them raises a LinkageError. */
    private static final class Api {
        final Constructor<?> brokerMetadata;
        final Method assignReplicasToBrokers;
        final Method getRackAlternatedBrokerList;
        private final Class<?> adminUtils;

        Api() {
            adminUtils = kafkaClass(ADMIN_UTILS);
            Class<?> brokerMetadataClass = kafkaClass(BROKER_METADATA);
            try {
                brokerMetadata = brokerMetadataClass.getConstructor(int.class, Optional.class);
                assignReplicasToBrokers = adminUtils.getMethod("assignReplicasToBrokers",
                    Collection.class, int.class, int.class, int.class, int.class);
                getRackAlternatedBrokerList = adminUtils.getMethod("getRackAlternatedBrokerList", Map.class);
            } catch (NoSuchMethodException e) {
                throw new NoSuchMethodError("Kafka " + Oracle.kafkaVersion() + " lacks " + e.getMessage());
            }
        }

        /** {@code AdminUtils.RAND}, the static random source of a negative {@code fixedStartIndex}. */
        Random random() {
            try {
                Field rand = adminUtils.getDeclaredField("RAND");
                rand.setAccessible(true);
                return (Random) rand.get(null);
            } catch (NoSuchFieldException e) {
                throw new NoSuchFieldError("Kafka " + Oracle.kafkaVersion() + "'s " + ADMIN_UTILS + " has no field RAND");
            } catch (IllegalAccessException e) {
                throw new IllegalAccessError("cannot read " + ADMIN_UTILS + ".RAND: " + e.getMessage());
            }
        }

        private static Class<?> kafkaClass(String name) {
            try {
                return Class.forName(name);
            } catch (ClassNotFoundException e) {
                throw new NoClassDefFoundError(name + " is not in Kafka " + Oracle.kafkaVersion()
                    + " (it was removed in 4.0; 3.9.x is the last release with it)");
            }
        }
    }
}
