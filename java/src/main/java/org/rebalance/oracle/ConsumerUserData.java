package org.rebalance.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.utils.CollectionUtils;

import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A member's {@code userData} (kafka-vectors/README.md, "kind consumer"), as the bytes Kafka's own classes write:
 *
 * <ul>
 *   <li>{@code "auto"} (default): what a client sends. {@code sticky}: {@link StickyAssignor#subscriptionUserData}
 *       after {@code onAssignment(ownedPartitions, generationId or -1)} when the member has a generation or owned
 *       partitions, else none; {@code cooperative-sticky}: {@link CooperativeStickyAssignor#subscriptionUserData}
 *       after {@code onAssignment} with the generation (none called when it is absent); range, roundrobin: none.</li>
 *   <li>{@code null}: no user data.</li>
 *   <li>{@code {"stickyV1": {"partitions", "generation"}}} and {@code {"cooperativeV0": {"generation"}}}: the same
 *       client paths with the given values; {@code {"stickyV0": {"partitions"}}}: the pre-KIP-341 schema
 *       {@code StickyAssignor.STICKY_ASSIGNOR_USER_DATA_V0}, written as StickyAssignorTest's
 *       {@code buildSubscriptionWithOldSchema} does.</li>
 *   <li>{@code {"base64", "position"}}: raw bytes, the buffer's position set to {@code position} (default 0) to
 *       replay a unit test whose buffer had already been read.</li>
 * </ul>
 */
final class ConsumerUserData {
    private static final String GROUP_ID = "group";

    private ConsumerUserData() {
    }

    static ByteBuffer of(JsonNode member, String assignorName, List<TopicPartition> owned, int generationId,
                         List<String> topics) {
        if (member.has("userData") && member.get("userData").isNull()) {
            return null;
        }
        JsonNode spec = Json.opt(member, "userData");
        if (spec == null || (spec.isTextual() && spec.textValue().equals("auto"))) {
            return auto(member, assignorName, owned, generationId, topics);
        }
        if (!spec.isObject()) {
            throw new InputException("userData", "userData must be \"auto\", null or an encoding object, got " + spec);
        }
        if (spec.has("base64")) {
            return ConsumerKind.within("userData", () -> raw(spec));
        }
        if (spec.size() != 1) {
            throw new InputException("userData", "userData names one encoding, got " + spec);
        }
        String encoding = spec.fieldNames().next();
        JsonNode value = spec.get(encoding);
        String where = "userData." + encoding;
        switch (encoding) {
            case "stickyV1":
                return ConsumerKind.within(where, () -> afterAssignment(new StickyAssignor(),
                    ConsumerKind.topicPartitions(value, "partitions"), Json.reqInt(value, "generation"), topics));
            case "stickyV0":
                return ConsumerKind.within(where, () -> stickyV0(ConsumerKind.topicPartitions(value, "partitions")));
            case "cooperativeV0":
                return ConsumerKind.within(where, () -> afterAssignment(new CooperativeStickyAssignor(),
                    List.of(), Json.reqInt(value, "generation"), topics));
            default:
                throw new InputException("userData", "unknown userData encoding " + encoding
                    + "; known: stickyV1, stickyV0, cooperativeV0, base64");
        }
    }

    private static ByteBuffer auto(JsonNode member, String assignorName, List<TopicPartition> owned, int generationId,
                                   List<String> topics) {
        boolean hasGeneration = Json.opt(member, "generationId") != null;
        switch (assignorName) {
            case "sticky":
                return hasGeneration || !owned.isEmpty()
                    ? afterAssignment(new StickyAssignor(), owned, generationId, topics) : null;
            case "cooperative-sticky":
                CooperativeStickyAssignor assignor = new CooperativeStickyAssignor();
                return hasGeneration ? afterAssignment(assignor, owned, generationId, topics)
                    : assignor.subscriptionUserData(new HashSet<>(topics));
            default:
                return null;
        }
    }

    /** The user data a client-side assignor sends after {@code onAssignment(partitions, generation)}. */
    @SuppressWarnings("removal") // ConsumerGroupMetadata's constructor: what the consumer passes to onAssignment
    private static ByteBuffer afterAssignment(ConsumerPartitionAssignor assignor, List<TopicPartition> partitions,
                                              int generation, List<String> topics) {
        assignor.onAssignment(new Assignment(partitions),
            new ConsumerGroupMetadata(GROUP_ID, generation, "member", Optional.empty()));
        return assignor.subscriptionUserData(new HashSet<>(topics));
    }

    /** StickyAssignor's user data schema V0 (partitions only), with Kafka's package-private schemas. */
    private static ByteBuffer stickyV0(List<TopicPartition> partitions) {
        Schema userDataV0 = stickySchema("STICKY_ASSIGNOR_USER_DATA_V0");
        Schema topicAssignment = stickySchema("TOPIC_ASSIGNMENT");
        List<Struct> topicAssignments = new ArrayList<>();
        for (Map.Entry<String, List<Integer>> topic : CollectionUtils.groupPartitionsByTopic(partitions).entrySet()) {
            Struct struct = new Struct(topicAssignment);
            struct.set("topic", topic.getKey());
            struct.set("partitions", topic.getValue().toArray());
            topicAssignments.add(struct);
        }
        Struct struct = new Struct(userDataV0);
        struct.set("previous_assignment", topicAssignments.toArray());
        ByteBuffer buffer = ByteBuffer.allocate(userDataV0.sizeOf(struct));
        userDataV0.write(buffer, struct);
        buffer.flip();
        return buffer;
    }

    private static Schema stickySchema(String name) {
        try {
            Field field = StickyAssignor.class.getDeclaredField(name);
            field.setAccessible(true);
            return (Schema) field.get(null);
        } catch (ReflectiveOperationException e) {
            throw (NoSuchFieldError) new NoSuchFieldError(StickyAssignor.class.getName() + "." + name).initCause(e);
        }
    }

    private static ByteBuffer raw(JsonNode spec) {
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(Json.reqString(spec, "base64"));
        } catch (IllegalArgumentException e) {
            throw new InputException("base64", "not base64: " + e.getMessage());
        }
        int position = Json.optInt(spec, "position", 0);
        if (position < 0 || position > bytes.length) {
            throw new InputException("position", "position must be in 0.." + bytes.length + ", got " + position);
        }
        return ByteBuffer.wrap(bytes).position(position);
    }
}
