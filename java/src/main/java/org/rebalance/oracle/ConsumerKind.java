package org.rebalance.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupAssignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor;
import org.apache.kafka.clients.consumer.internals.Utils.TopicPartitionComparator;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * {@code consumer}: the classic consumer group's client-side assignors, run by Kafka's own classes
 * ({@link RangeAssignor}, {@link RoundRobinAssignor}, {@link StickyAssignor}, {@link CooperativeStickyAssignor},
 * all on {@link AbstractPartitionAssignor}, the sticky ones on {@link AbstractStickyAssignor}) of the kafka-clients
 * jar on the classpath: the book pins Kafka 4.3.1. The schema is kafka-vectors/README.md, "kind consumer"; the
 * committed vectors (recorded at trunk 1eb7644, October 2024) are answered identically by 4.3.1 and 3.9.2.
 *
 * <p>Every scenario gets a fresh assignor. {@code entry: "cluster"} (default) calls the leader's
 * {@code assign(Cluster, GroupSubscription)}; {@code entry: "assignPartitions"} calls
 * {@code assignPartitions(Map<String, List<PartitionInfo>>, subscriptions)} with a {@link HashMap} of the topics
 * filled in input order, as Kafka's unit tests do. The subscriptions map is a {@link HashMap} filled in member
 * order, as in {@code ConsumerCoordinator.onLeaderElected}, unless {@code subscriptionMapType} names the map a
 * unit test used. Two test-only members are set by reflection: {@code AbstractPartitionAssignor.preferRackAwareLogic}
 * and {@code AbstractStickyAssignor.maxGeneration} ({@code initialMaxGeneration}). User data is built by
 * {@link ConsumerUserData}.
 *
 * <p>Output: {@code assignment} (member -> partitions in the order of Kafka's list, members in input order),
 * {@code sortedAssignment} (the same lists sorted with Kafka's {@link TopicPartitionComparator}) and, for the sticky
 * assignors, {@code stickyPath}, {@code partitionsTransferringOwnership} and {@code maxGeneration}.
 */
public final class ConsumerKind implements Kind {
    private static final Comparator<TopicPartition> TOPIC_PARTITION_ORDER = topicPartitionOrder();

    /**
     * Kafka's {@link TopicPartitionComparator} (topic, then partition number). Up to 3.4 that class was
     * package-private; on those releases the same order is spelled here, so that {@code known_issues} can run the
     * assignors of the releases on each side of a fix.
     */
    private static Comparator<TopicPartition> topicPartitionOrder() {
        try {
            return new TopicPartitionComparator();
        } catch (IllegalAccessError packagePrivate) {
            return Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);
        }
    }

    @Override
    public JsonNode run(JsonNode input) {
        Call call = prepare(input);
        return output(call.assignor, call.memberIds, call.assignment(call.invoke()));
    }

    /**
     * One scenario's call into Kafka, built from the input line: a fresh assignor (test-only fields set) and the
     * arguments of the entry's call. {@link #run} makes one per line; {@link AssignorBench} makes one per timed
     * run (a {@link Subscription}'s user data buffer is consumed by the sticky assignor, so none is reused).
     */
    static final class Call {
        final AbstractPartitionAssignor assignor;
        final String entry;
        final List<String> memberIds;
        final Map<String, List<PartitionInfo>> topics;
        final Map<String, Subscription> subscriptions;
        /** entry {@code "cluster"} only, else null */
        final Cluster cluster;
        final GroupSubscription groupSubscription;

        private Call(AbstractPartitionAssignor assignor, String entry, List<String> memberIds,
                     Map<String, List<PartitionInfo>> topics, Map<String, Subscription> subscriptions, Cluster cluster) {
            this.assignor = assignor;
            this.entry = entry;
            this.memberIds = memberIds;
            this.topics = topics;
            this.subscriptions = subscriptions;
            this.cluster = cluster;
            this.groupSubscription = cluster == null ? null : new GroupSubscription(subscriptions);
        }

        /** Kafka's call and nothing else: {@code assign(Cluster, GroupSubscription)} or {@code assignPartitions}. */
        Object invoke() {
            return cluster != null ? assignor.assign(cluster, groupSubscription)
                : assignor.assignPartitions(topics, subscriptions);
        }

        /** member -> partitions of {@link #invoke}'s result. */
        @SuppressWarnings("unchecked")
        Map<String, List<TopicPartition>> assignment(Object result) {
            if (cluster == null) {
                return (Map<String, List<TopicPartition>>) result;
            }
            Map<String, List<TopicPartition>> assignment = new HashMap<>();
            ((GroupAssignment) result).groupAssignment().forEach((member, a) -> assignment.put(member, a.partitions()));
            return assignment;
        }
    }

    /** The {@link Call} of one input line; bad input is reported in the order {@link #run} always checked it. */
    static Call prepare(JsonNode input) {
        String assignorName = Json.reqString(input, "assignor");
        AbstractPartitionAssignor assignor = newAssignor(assignorName);
        if (Json.optBool(input, "preferRackAwareLogic", false)) {
            setField(AbstractPartitionAssignor.class, "preferRackAwareLogic", assignor, true);
        }
        if (Json.opt(input, "initialMaxGeneration") != null) {
            if (!(assignor instanceof AbstractStickyAssignor)) {
                throw new InputException("initialMaxGeneration", "only the sticky assignors have a maxGeneration");
            }
            setField(AbstractStickyAssignor.class, "maxGeneration", assignor, Json.reqInt(input, "initialMaxGeneration"));
        }

        Map<Integer, Node> brokers = brokers(input);
        Map<String, List<PartitionInfo>> topics = topics(input, brokers);
        List<String> memberIds = new ArrayList<>();
        Map<String, Subscription> subscriptions = subscriptions(input, assignorName, memberIds);

        String entry = Json.optString(input, "entry", "cluster");
        switch (entry) {
            case "cluster":
                return new Call(assignor, entry, memberIds, topics, subscriptions, cluster(brokers, topics));
            case "assignPartitions":
                return new Call(assignor, entry, memberIds, topics, subscriptions, null);
            default:
                throw new InputException("entry", "entry must be \"cluster\" or \"assignPartitions\", got " + entry);
        }
    }

    private static AbstractPartitionAssignor newAssignor(String name) {
        switch (name) {
            case "range":
                return new RangeAssignor();
            case "roundrobin":
                return new RoundRobinAssignor();
            case "sticky":
                return new StickyAssignor();
            case "cooperative-sticky":
                return new CooperativeStickyAssignor();
            default:
                throw new InputException("assignor",
                    "assignor must be range, roundrobin, sticky or cooperative-sticky, got " + name);
        }
    }

    /** {@code brokers}: id -> {@link Node} (rack may be null), in input order. */
    private static Map<Integer, Node> brokers(JsonNode input) {
        Map<Integer, Node> brokers = new LinkedHashMap<>();
        int i = 0;
        for (JsonNode broker : Json.optArray(input, "brokers")) {
            String where = "brokers[" + i++ + "]";
            int id = within(where, () -> Json.reqInt(broker, "id"));
            String rack = within(where, () -> Json.optString(broker, "rack", null));
            if (brokers.put(id, new Node(id, "broker" + id, 9092, rack)) != null) {
                throw new InputException(where + ".id", "broker id " + id + " is given twice");
            }
        }
        return brokers;
    }

    /**
     * {@code topics}: each topic's partitions in a {@link HashMap} filled in input order. A count gives partitions
     * without replicas (no leader, no racks); replica lists give the leader (first replica), replicas and ISR.
     */
    private static Map<String, List<PartitionInfo>> topics(JsonNode input, Map<Integer, Node> brokers) {
        Map<String, List<PartitionInfo>> topics = new HashMap<>();
        for (Map.Entry<String, JsonNode> topic : Json.reqObject(input, "topics").properties()) {
            String name = topic.getKey();
            String where = "topics." + name;
            JsonNode value = topic.getValue();
            List<PartitionInfo> partitions = new ArrayList<>();
            if (value.isIntegralNumber() && value.canConvertToInt() && value.intValue() >= 0) {
                for (int p = 0; p < value.intValue(); p++) {
                    partitions.add(new PartitionInfo(name, p, null, new Node[0], new Node[0]));
                }
            } else if (value.isArray()) {
                int p = 0;
                for (JsonNode replicaList : value) {
                    Node[] replicas = replicas(where + "[" + p + "]", replicaList, brokers);
                    partitions.add(new PartitionInfo(name, p, replicas.length == 0 ? null : replicas[0], replicas, replicas));
                    p++;
                }
            } else {
                throw new InputException(where, "a topic is a partition count (0 or more) or a list of replica lists, got " + value);
            }
            topics.put(name, partitions);
        }
        return topics;
    }

    private static Node[] replicas(String where, JsonNode replicaList, Map<Integer, Node> brokers) {
        if (!replicaList.isArray()) {
            throw new InputException(where, "a partition's replicas are a list of broker ids, got " + replicaList);
        }
        Node[] replicas = new Node[replicaList.size()];
        for (int r = 0; r < replicas.length; r++) {
            JsonNode id = replicaList.get(r);
            replicas[r] = id.isIntegralNumber() && id.canConvertToInt() ? brokers.get(id.intValue()) : null;
            if (replicas[r] == null) {
                throw new InputException(where + "[" + r + "]", "not the id of a broker in brokers: " + id);
            }
        }
        return replicas;
    }

    /** The client's view of the topics: a {@link Cluster} of the brokers and every partition. */
    private static Cluster cluster(Map<Integer, Node> brokers, Map<String, List<PartitionInfo>> topics) {
        List<PartitionInfo> partitions = new ArrayList<>();
        topics.values().forEach(partitions::addAll);
        return new Cluster("cluster", brokers.values(), partitions, Collections.emptySet(), Collections.emptySet());
    }

    /** The subscriptions map of {@code subscriptionMapType}, filled in member order; member ids in input order. */
    private static Map<String, Subscription> subscriptions(JsonNode input, String assignorName, List<String> memberIds) {
        Map<String, Subscription> filled = new LinkedHashMap<>();
        int i = 0;
        for (JsonNode member : Json.reqArray(input, "members")) {
            String where = "members[" + i++ + "]";
            String memberId = within(where, () -> Json.reqString(member, "memberId"));
            if (filled.put(memberId, within(where, () -> subscription(member, assignorName))) != null) {
                throw new InputException(where + ".memberId", "member id " + memberId + " is given twice");
            }
            memberIds.add(memberId);
        }
        String mapType = Json.optString(input, "subscriptionMapType", "java.util.HashMap");
        switch (mapType) {
            case "java.util.HashMap":
                return new HashMap<>(filled);
            case "java.util.LinkedHashMap":
                return filled;
            case "java.util.Collections$SingletonMap":
                if (filled.size() != 1) {
                    throw new InputException("subscriptionMapType", "a singleton map needs exactly one member, got " + filled.size());
                }
                Map.Entry<String, Subscription> only = filled.entrySet().iterator().next();
                return Collections.singletonMap(only.getKey(), only.getValue());
            default:
                throw new InputException("subscriptionMapType", "subscriptionMapType must be java.util.HashMap, "
                    + "java.util.LinkedHashMap or java.util.Collections$SingletonMap, got " + mapType);
        }
    }

    /** One member's {@link Subscription}: ConsumerProtocol v3 fields, group instance id and user data. */
    private static Subscription subscription(JsonNode member, String assignorName) {
        List<String> topics = Json.stringList(member, "topics");
        List<TopicPartition> owned = topicPartitions(member, "ownedPartitions");
        int generationId = Json.optInt(member, "generationId", AbstractStickyAssignor.DEFAULT_GENERATION);
        Optional<String> rackId = Optional.ofNullable(Json.optString(member, "rackId", null));
        Subscription subscription = new Subscription(topics,
            ConsumerUserData.of(member, assignorName, owned, generationId, topics), owned, generationId, rackId);
        subscription.setGroupInstanceId(Optional.ofNullable(Json.optString(member, "groupInstanceId", null)));
        return subscription;
    }

    /** A list of {@code "topic-partition"} strings, split at the last {@code -}. */
    static List<TopicPartition> topicPartitions(JsonNode node, String field) {
        List<TopicPartition> out = new ArrayList<>();
        List<String> names = Json.stringList(node, field);
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            int dash = name.lastIndexOf('-');
            int partition = dash > 0 ? partitionNumber(name.substring(dash + 1)) : -1;
            if (partition < 0) {
                throw new InputException(field + "[" + i + "]", "must be \"topic-partition\", got " + name);
            }
            out.add(new TopicPartition(name.substring(0, dash), partition));
        }
        return out;
    }

    /** A partition number, or -1 when {@code text} is not one. */
    private static int partitionNumber(String text) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static ObjectNode output(AbstractPartitionAssignor assignor, List<String> memberIds,
                                     Map<String, List<TopicPartition>> assignment) {
        ObjectNode lists = Json.object();
        ObjectNode sorted = Json.object();
        for (String member : memberIds) {
            List<TopicPartition> partitions = assignment.get(member);
            if (partitions != null) {
                lists.set(member, names(partitions));
                List<TopicPartition> copy = new ArrayList<>(partitions);
                copy.sort(TOPIC_PARTITION_ORDER);
                sorted.set(member, names(copy));
            }
        }
        ObjectNode out = Json.object();
        out.set("assignment", lists);
        out.set("sortedAssignment", sorted);
        if (assignor instanceof AbstractStickyAssignor) {
            AbstractStickyAssignor sticky = (AbstractStickyAssignor) assignor;
            Map<TopicPartition, String> transferring = transferring(sticky);
            out.put("stickyPath", transferring == null ? "general" : "constrained");
            if (transferring == null) {
                out.putNull("partitionsTransferringOwnership");
            } else {
                ObjectNode moves = out.putObject("partitionsTransferringOwnership");
                transferring.forEach((tp, owner) -> moves.put(tp.toString(), owner));
            }
            out.put("maxGeneration", maxGeneration(sticky));
        }
        return out;
    }

    /**
     * {@code partitionsTransferringOwnership()}; before 3.7.1 (where the method arrived) the protected field of the
     * same name, read by reflection.
     */
    @SuppressWarnings("unchecked")
    private static Map<TopicPartition, String> transferring(AbstractStickyAssignor sticky) {
        try {
            return sticky.partitionsTransferringOwnership();
        } catch (NoSuchMethodError olderRelease) {
            return (Map<TopicPartition, String>) getField(AbstractStickyAssignor.class, "partitionsTransferringOwnership", sticky);
        }
    }

    /** {@code maxGeneration()}; up to 3.6 the public field of the same name. */
    private static int maxGeneration(AbstractStickyAssignor sticky) {
        try {
            return sticky.maxGeneration();
        } catch (NoSuchMethodError olderRelease) {
            return (Integer) getField(AbstractStickyAssignor.class, "maxGeneration", sticky);
        }
    }

    private static Object getField(Class<?> owner, String name, Object target) {
        try {
            Field field = owner.getDeclaredField(name);
            field.setAccessible(true);
            return field.get(target);
        } catch (ReflectiveOperationException e) {
            throw (NoSuchFieldError) new NoSuchFieldError(owner.getName() + "." + name).initCause(e);
        }
    }

    private static ArrayNode names(List<TopicPartition> partitions) {
        ArrayNode out = Json.array();
        partitions.forEach(tp -> out.add(tp.toString()));
        return out;
    }

    /** Sets a field Kafka keeps for its tests; a release without it cannot run the line (a {@link LinkageError}). */
    private static void setField(Class<?> owner, String name, Object target, Object value) {
        try {
            Field field = owner.getDeclaredField(name);
            field.setAccessible(true);
            field.set(target, value);
        } catch (ReflectiveOperationException e) {
            throw (NoSuchFieldError) new NoSuchFieldError(owner.getName() + "." + name).initCause(e);
        }
    }

    /** Runs {@code read}, naming a bad field below {@code where} (e.g. {@code members[2].topics}). */
    static <T> T within(String where, Supplier<T> read) {
        try {
            return read.get();
        } catch (InputException e) {
            throw new InputException(where + "." + e.field(), e.getMessage());
        }
    }
}
