package org.rebalance.streams;

import static org.rebalance.clients.JsonLines.emit;
import static org.rebalance.clients.JsonLines.record;
import static org.rebalance.clients.JsonLines.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.clients.admin.StreamsGroupMemberAssignment;
import org.apache.kafka.clients.admin.StreamsGroupMemberDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.rebalance.clients.JsonLines;

/**
 * Kafka Streams instances of one stateful application, in one JVM, one {@code member} each, driven through
 * {@link JsonLines} (the protocol and its table of commands and records are there): {@code create_topics},
 * {@code produce}, {@code start}, {@code stop}, {@code count}, {@code describe}.
 *
 * <p>The topology: {@code stream(input).groupByKey().count(Materialized.as("counts"))} -- one subtopology whose
 * tasks {@code 0_p} (one per input partition) each own a partition of the changelog-backed store {@code counts}.
 * Every instance is a {@link KafkaStreams} client of its own: its own {@code client.id} (the member's name),
 * {@code state.dir} (so its own process id, which Kafka Streams keeps in that folder) and stream threads.
 *
 * <ul>
 *   <li>{@code create_topics} -- creates the input topic(s);</li>
 *   <li>{@code produce} -- {@code count} records, keys {@code k0..k(keys-1)} in turn (the default partitioner
 *   spreads them), values "v"; answers {@code produced};</li>
 *   <li>{@code start} -- a new {@code KafkaStreams} started with the settings {@code props} (application id,
 *   bootstrap, state dir, KIP-441 settings, ... all given by the caller; {@code rebalance.input.topic} names the
 *   input topic); answers {@code started};</li>
 *   <li>{@code stop} -- {@code close} with {@code LEAVE_GROUP} and 30 s (a clean leave); answers {@code stopped};</li>
 *   <li>{@code count} -- answers the sum of the counts in {@code counts} over every running instance's local active
 *   store partitions (interactive queries), as {@code {"event":"count","total":N}};</li>
 *   <li>{@code describe} -- a streams group as the coordinator describes it ({@code Admin.describeStreamsGroups},
 *   KIP-1071): its epochs and, in the order of the description, each member's id, process id, client id, epoch and
 *   current and target active, standby and warm-up tasks ({@code "subtopology_partition"}), as {@code
 *   {"event":"group",...}}.</li>
 * </ul>
 * Member records: {@code state} (a {@link KafkaStreams.StateListener} transition: previous, state), {@code tasks} (each
 * change of the instance's {@link KafkaStreams#metadataForLocalThreads()}: active and standby task ids, the
 * standbys including warm-up replicas, and the state).
 */
public final class StreamsInstances {
    private static final Map<String, KafkaStreams> INSTANCES = new ConcurrentHashMap<>();
    private static final Map<String, String> LAST_TASKS = new ConcurrentHashMap<>();
    private static final String STORE = "counts";

    private StreamsInstances() {
    }

    public static void main(final String[] args) {
        final Thread monitor = new Thread(StreamsInstances::monitor, "tasks-monitor");
        monitor.setDaemon(true);
        monitor.start();
        final Map<String, JsonLines.Command> commands = JsonLines.commands();
        commands.put("create_topics", StreamsInstances::createTopics);
        commands.put("produce", StreamsInstances::produce);
        commands.put("start", StreamsInstances::start);
        commands.put("stop", StreamsInstances::stop);
        commands.put("count", cmd -> count());
        commands.put("describe", StreamsInstances::describe);
        JsonLines.serve("StreamsInstances", commands);
    }

    private static Properties adminProps(final String bootstrap) {
        final Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        return p;
    }

    private static void createTopics(final JsonNode cmd) throws Exception {
        try (Admin admin = Admin.create(adminProps(text(cmd, "bootstrap")))) {
            emit(JsonLines.createTopics(admin, cmd));
        }
    }

    private static void produce(final JsonNode cmd) throws Exception {
        final Properties p = adminProps(text(cmd, "bootstrap"));
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        p.put("linger.ms", "20");
        final String topic = text(cmd, "topic");
        final int count = JsonLines.integer(cmd, "count", 1);
        final int keys = JsonLines.integer(cmd, "keys", 1);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + (i % keys), "v"));
            }
            producer.flush();
        }
        final ObjectNode r = record(null, "produced");
        r.put("count", count);
        emit(r);
    }

    private static void start(final JsonNode cmd) {
        final String member = JsonLines.member(cmd);
        if (INSTANCES.containsKey(member)) {
            throw new JsonLines.BadField("member", member + " is running already");
        }
        final Properties p = JsonLines.settings(cmd, "props");
        p.put(StreamsConfig.CLIENT_ID_CONFIG, member);
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
        final Object topic = p.remove("rebalance.input.topic");
        if (topic == null) {
            throw new JsonLines.BadField("props.rebalance.input.topic", "missing: the application's input topic");
        }
        final StreamsBuilder builder = new StreamsBuilder();
        builder.stream(topic.toString(), Consumed.with(Serdes.String(), Serdes.String()))
            .groupByKey()
            .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as(STORE));
        final KafkaStreams streams = new KafkaStreams(builder.build(), p);
        streams.setStateListener((newState, oldState) -> {
            final ObjectNode r = record(member, "state");
            r.put("previous", oldState.name());
            r.put("state", newState.name());
            emit(r);
        });
        INSTANCES.put(member, streams);
        streams.start();
        emit(record(member, "started"));
    }

    private static void stop(final JsonNode cmd) {
        final String member = JsonLines.member(cmd);
        final KafkaStreams streams = INSTANCES.remove(member);
        if (streams == null) {
            throw new JsonLines.BadField("member", "no running instance " + member);
        }
        // a clean leave: LeaveGroup at once (by default a Streams client stays in the group until its session ends)
        final boolean closed = streams.close(org.apache.kafka.streams.CloseOptions
            .groupMembershipOperation(org.apache.kafka.streams.CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
            .withTimeout(Duration.ofSeconds(30)));
        LAST_TASKS.remove(member);
        final ObjectNode r = record(member, "stopped");
        r.put("closed", closed);
        emit(r);
    }

    private static void count() {
        long total = 0;
        for (final KafkaStreams streams : INSTANCES.values()) {
            if (streams.state() != KafkaStreams.State.RUNNING) {
                continue;
            }
            try {
                final ReadOnlyKeyValueStore<String, Long> store = streams.store(
                    StoreQueryParameters.fromNameAndType(STORE, QueryableStoreTypes.<String, Long>keyValueStore()));
                try (KeyValueIterator<String, Long> it = store.all()) {
                    while (it.hasNext()) {
                        final KeyValue<String, Long> kv = it.next();
                        total += kv.value;
                    }
                }
            } catch (final RuntimeException e) {
                // a store migrating during a rebalance: counted on a later request
            }
        }
        final ObjectNode r = record(null, "count");
        r.put("total", total);
        emit(r);
    }

    private static void describe(final JsonNode cmd) throws Exception {
        final String group = text(cmd, "group");
        final StreamsGroupDescription d;
        try (Admin admin = Admin.create(adminProps(text(cmd, "bootstrap")))) {
            d = admin.describeStreamsGroups(List.of(group)).describedGroups().get(group).get();
        }
        final ObjectNode r = record(null, "group");
        r.put("group", d.groupId());
        r.put("state", d.groupState().toString());
        r.put("group_epoch", d.groupEpoch());
        r.put("target_epoch", d.targetAssignmentEpoch());
        final ArrayNode members = r.putArray("members");
        for (final StreamsGroupMemberDescription m : d.members()) {
            final ObjectNode o = members.addObject();
            o.put("member_id", m.memberId());
            o.put("process_id", m.processId());
            o.put("client_id", m.clientId());
            o.put("member_epoch", m.memberEpoch());
            o.set("assignment", tasksJson(m.assignment()));
            o.set("target_assignment", tasksJson(m.targetAssignment()));
        }
        emit(r);
    }

    private static ObjectNode tasksJson(final StreamsGroupMemberAssignment a) {
        final ObjectNode o = JsonLines.JSON.createObjectNode();
        o.set("active", taskIds(a.activeTasks()));
        o.set("standby", taskIds(a.standbyTasks()));
        o.set("warmup", taskIds(a.warmupTasks()));
        return o;
    }

    private static ArrayNode taskIds(final List<StreamsGroupMemberAssignment.TaskIds> tasks) {
        final TreeSet<String> ids = new TreeSet<>();
        for (final StreamsGroupMemberAssignment.TaskIds t : tasks) {
            for (final int p : t.partitions()) {
                ids.add(t.subtopologyId() + "_" + p);
            }
        }
        final ArrayNode a = JsonLines.JSON.createArrayNode();
        ids.forEach(a::add);
        return a;
    }

    /** Every 100 ms: each instance's tasks (active and standby, over its stream threads), recorded when changed. */
    private static void monitor() {
        while (true) {
            for (final Map.Entry<String, KafkaStreams> e : new TreeMap<>(INSTANCES).entrySet()) {
                try {
                    final TreeSet<String> active = new TreeSet<>();
                    final TreeSet<String> standby = new TreeSet<>();
                    for (final ThreadMetadata thread : e.getValue().metadataForLocalThreads()) {
                        for (final TaskMetadata task : thread.activeTasks()) {
                            active.add(task.taskId().toString());
                        }
                        for (final TaskMetadata task : thread.standbyTasks()) {
                            standby.add(task.taskId().toString());
                        }
                    }
                    final String key = active + "|" + standby + "|" + e.getValue().state();
                    if (!key.equals(LAST_TASKS.get(e.getKey()))) {
                        LAST_TASKS.put(e.getKey(), key);
                        final ObjectNode r = record(e.getKey(), "tasks");
                        r.put("state", e.getValue().state().name());
                        final ArrayNode a = r.putArray("active");
                        active.forEach(a::add);
                        final ArrayNode s = r.putArray("standby");
                        standby.forEach(s::add);
                        emit(r);
                    }
                } catch (final RuntimeException ex) {
                    // an instance closing while read
                }
            }
            try {
                Thread.sleep(100);
            } catch (final InterruptedException ex) {
                return;
            }
        }
    }
}
