package org.rebalance.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.modern.SubscribedTopicDescriberImpl;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The topics of one {@code group} step (what the coordinator's metadata image holds), by name in input order,
 * with their Kafka topic ids. {@link #describer()} turns them into Kafka's own metadata image: a
 * {@link MetadataDelta} replaying one {@link TopicRecord} and one {@link PartitionRecord} per partition (no
 * replicas, so no racks), applied, and hands it to {@link SubscribedTopicDescriberImpl} in the form of the release
 * on the classpath ({@link GroupCompat#describer}): wrapped in {@code KRaftCoordinatorMetadataImage} as
 * {@code GroupCoordinatorService.onMetadataUpdate} and {@code TargetAssignmentBuilder.build} do in Kafka 4.3.1, the
 * image itself in 4.1.x, or the {@code TopicMetadata} map that 3.9.x and 4.0.x made from it.
 */
final class GroupTopics {
    /** A topic: name, id and partition count. */
    record Topic(String name, Uuid id, int partitions) {
        ObjectNode toJson() {
            ObjectNode out = Json.object();
            out.put("name", name);
            out.put("id", id.toString());
            out.put("partitions", partitions);
            return out;
        }
    }

    /** The fields of a topic in the list form. */
    private static final List<String> TOPIC_KEYS = List.of("name", "id", "partitions");

    private final Map<String, Topic> byName = new LinkedHashMap<>();

    /** A catalog from {@code [{name, id?, partitions}]} or {@code {name: partitions}} (absent: empty). */
    static GroupTopics parse(JsonNode value, String field) {
        GroupTopics topics = new GroupTopics();
        parseList(value, field).forEach(topics::put);
        return topics;
    }

    /**
     * {@code [{name, id?, partitions}]} or {@code {name: partitions}}; a missing id is {@link #defaultId}. An error
     * names the field as the input spells it: {@code topics[1].partitions}, or {@code topics.t1} in the second form.
     */
    static List<Topic> parseList(JsonNode value, String field) {
        List<Topic> out = new ArrayList<>();
        if (value == null) {
            return out;
        }
        if (value.isObject()) {
            value.properties().forEach(e -> {
                String f = field + "." + e.getKey();
                out.add(topic(e.getKey(), null, e.getValue(), f, f, f));
            });
            return out;
        }
        if (!value.isArray()) {
            throw new InputException(field,
                field + " must be a list of {name, id, partitions} objects or a {name: partitions} object");
        }
        for (int i = 0; i < value.size(); i++) {
            String f = field + "[" + i + "]";
            JsonNode t = value.get(i);
            if (!t.isObject()) {
                throw new InputException(f, f + " must be an object {name, id, partitions}");
            }
            t.fieldNames().forEachRemaining(key -> {
                if (!TOPIC_KEYS.contains(key)) {
                    throw new InputException(f + "." + key,
                        "unknown field; a topic has " + String.join(", ", TOPIC_KEYS));
                }
            });
            JsonNode name = Json.opt(t, "name");
            if (name == null || !name.isTextual() || name.textValue().isEmpty()) {
                throw new InputException(f + ".name", f + ".name must be a non-empty string");
            }
            out.add(topic(name.textValue(), Json.opt(t, "id"), Json.opt(t, "partitions"),
                f + ".partitions", f + ".id", f));
        }
        return out;
    }

    private static Topic topic(String name, JsonNode id, JsonNode partitions, String partitionsField, String idField,
                               String field) {
        if (partitions == null || !partitions.isIntegralNumber() || !partitions.canConvertToInt()
            || partitions.intValue() < 0) {
            throw new InputException(partitionsField,
                field + ": a partition count must be a Java int >= 0, got " + partitions);
        }
        Uuid topicId;
        if (id == null) {
            topicId = defaultId(name);
        } else if (!id.isTextual()) {
            throw new InputException(idField, "a topic id must be a base64url string, got " + id);
        } else {
            topicId = parseId(id.textValue(), idField);
        }
        return new Topic(name, topicId, partitions.intValue());
    }

    /**
     * The id of a topic given without one. Kafka draws topic ids at random; the book needs a stable id, so it
     * takes the JDK's name-based UUID, {@code UUID.nameUUIDFromBytes(name in UTF-8)} (MD5, version 3), as the
     * Python package does ({@code rebalance.kip848.uuid.topic_id_for_name}). Every committed vector gives ids.
     */
    static Uuid defaultId(String name) {
        UUID uuid = UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8));
        return new Uuid(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits());
    }

    private static Uuid parseId(String text, String field) {
        try {
            return Uuid.fromString(text);
        } catch (IllegalArgumentException e) {
            throw new InputException(field, "'" + text + "' is not a Kafka Uuid: " + e.getMessage());
        }
    }

    GroupTopics copy() {
        GroupTopics copy = new GroupTopics();
        copy.byName.putAll(byName);
        return copy;
    }

    /** Adds a topic, or replaces the topic of the same name (keeping its position). */
    void put(Topic topic) {
        byName.put(topic.name(), topic);
    }

    void remove(String name) {
        byName.remove(name);
    }

    Collection<Topic> topics() {
        return byName.values();
    }

    /** A topic reference: a known name, else a topic id (possibly of a topic that does not exist). */
    Uuid resolve(String ref, String field) {
        Topic topic = byName.get(ref);
        if (topic != null) {
            return topic.id();
        }
        try {
            return Uuid.fromString(ref);
        } catch (IllegalArgumentException e) {
            throw new InputException(field, "'" + ref + "' is neither a known topic name nor a topic id");
        }
    }

    /** The name of the first topic with this id, else the id itself. */
    String nameOf(Uuid id) {
        for (Topic t : byName.values()) {
            if (t.id().equals(id)) {
                return t.name();
            }
        }
        return id.toString();
    }

    /**
     * Kafka's {@link SubscribedTopicDescriberImpl} over a metadata image of these topics, built as the release on
     * the classpath builds it ({@link GroupCompat#describer}).
     */
    SubscribedTopicDescriber describer() {
        return GroupCompat.describer(metadataImage(), byName.values().stream().map(Topic::id).toList());
    }

    /** The metadata image of these topics: one {@link TopicRecord} and one {@link PartitionRecord} per partition. */
    MetadataImage metadataImage() {
        MetadataDelta delta = new MetadataDelta.Builder().build();
        for (Topic t : byName.values()) {
            delta.replay(new TopicRecord().setName(t.name()).setTopicId(t.id()));
            for (int p = 0; p < t.partitions(); p++) {
                delta.replay(new PartitionRecord().setTopicId(t.id()).setPartitionId(p));
            }
        }
        return delta.apply(MetadataProvenance.EMPTY);
    }
}
