package org.rebalance.consumers;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.TopicPartition;
import org.rebalance.clients.JsonLines;

/**
 * A {@code partition.assignment.strategy} that is Kafka's built-in assignor of the same name, and records what
 * the leader gives it and what it returns: every member's {@code Subscription} (member id, topics, owned
 * partitions, generation, group.instance.id, rack, user data) in the order of the group subscription's map,
 * the partition count of each subscribed topic ({@code partitions_per_topic}), and the {@code GroupAssignment}.  Everything else (name,
 * supported protocols, user data, onAssignment, version) is the built-in assignor's.  One nested class per name,
 * since the consumer instantiates the strategy by class name.
 */
public abstract class RecordingAssignor implements ConsumerPartitionAssignor, Configurable {
    private final ConsumerPartitionAssignor delegate;
    private String member = "?";

    protected RecordingAssignor(ConsumerPartitionAssignor delegate) {
        this.delegate = delegate;
    }

    public static final class Range extends RecordingAssignor {
        public Range() { super(new RangeAssignor()); }
    }

    public static final class RoundRobin extends RecordingAssignor {
        public RoundRobin() { super(new RoundRobinAssignor()); }
    }

    public static final class Sticky extends RecordingAssignor {
        public Sticky() { super(new StickyAssignor()); }
    }

    public static final class CooperativeSticky extends RecordingAssignor {
        public CooperativeSticky() { super(new CooperativeStickyAssignor()); }
    }

    @Override
    public void configure(Map<String, ?> configs) {
        Object id = configs.get("client.id");
        if (id != null) member = id.toString();
        if (delegate instanceof Configurable c) c.configure(configs);
    }

    @Override
    public ByteBuffer subscriptionUserData(java.util.Set<String> topics) {
        return delegate.subscriptionUserData(topics);
    }

    @Override
    public GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription) {
        // the inputs are recorded before Kafka's assignor runs: StickyAssignor reads (consumes) each member's
        // user-data buffer, so a record taken afterwards would hold empty user data
        ObjectNode rec = JsonLines.record(member, "assignor");
        rec.put("name", delegate.name());
        ArrayNode subs = rec.putArray("subscriptions");
        TreeSet<String> topics = new TreeSet<>();
        for (Map.Entry<String, Subscription> e : groupSubscription.groupSubscription().entrySet()) {
            Subscription s = e.getValue();
            ObjectNode o = subs.addObject();
            o.put("member_id", e.getKey());
            ArrayNode ts = o.putArray("topics");
            s.topics().forEach(ts::add);
            topics.addAll(s.topics());
            o.set("owned", JsonLines.partitions(s.ownedPartitions()));
            if (s.generationId().isPresent()) o.put("generation", s.generationId().get()); else o.putNull("generation");
            o.put("instance_id", s.groupInstanceId().orElse(null));
            o.put("rack", s.rackId().orElse(null));
            ByteBuffer ud = s.userData();
            if (ud == null) {
                o.putNull("user_data");
            } else {
                ByteBuffer copy = ud.duplicate();
                byte[] bytes = new byte[copy.remaining()];
                copy.get(bytes);
                o.put("user_data", Base64.getEncoder().encodeToString(bytes));
            }
        }
        GroupAssignment out = delegate.assign(metadata, groupSubscription);
        ObjectNode counts = rec.putObject("partitions_per_topic");
        for (String t : topics) {
            Integer n = metadata.partitionCountForTopic(t);
            if (n != null) counts.put(t, n);
        }
        ObjectNode assignment = rec.putObject("assignment");
        for (Map.Entry<String, Assignment> e : out.groupAssignment().entrySet()) {
            assignment.set(e.getKey(), JsonLines.partitions(e.getValue().partitions()));
        }
        JsonLines.emit(rec);
        return out;
    }

    @Override
    public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
        delegate.onAssignment(assignment, metadata);
    }

    @Override
    public List<RebalanceProtocol> supportedProtocols() {
        return delegate.supportedProtocols();
    }

    @Override
    public short version() {
        return delegate.version();
    }

    @Override
    public String name() {
        return delegate.name();
    }
}
