package org.rebalance.streams;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
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
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Kafka Streams instances of one stateful application, in one JVM, driven by JSON lines on stdin and recording
 * JSON lines on stdout (one writer, one whole line per record).
 *
 * <p>The topology: {@code stream(input).groupByKey().count(Materialized.as("counts"))} -- one subtopology whose
 * tasks {@code 0_p} (one per input partition) each own a partition of the changelog-backed store {@code counts}.
 * Every instance is a {@link KafkaStreams} client of its own: its own {@code client.id} (the instance name),
 * {@code state.dir} (so its own process id, which Kafka Streams keeps in that folder) and stream threads.
 *
 * <p>Commands:
 * <ul>
 *   <li>{@code {"op":"topic","bootstrap":...,"topic":...,"partitions":N}} -- creates the input topic;</li>
 *   <li>{@code {"op":"produce","topic":...,"records":N,"keys":K}} -- N records, keys {@code k0..k(K-1)} in turn;</li>
 *   <li>{@code {"op":"start","instance":"i1","props":{...}}} -- a new {@code KafkaStreams} started with these
 *   settings (application id, bootstrap, state dir, KIP-441 settings, ... all given by the caller);</li>
 *   <li>{@code {"op":"stop","instance":"i1"}} -- {@code close} with {@code LEAVE_GROUP} and 30 s (a clean leave);</li>
 *   <li>{@code {"op":"count","instance":"i1"}} -- answers the sum of the counts in {@code counts} over every running
 *   instance's local active store partitions (interactive queries), as {@code {"event":"count","total":N}};</li>
 *   <li>{@code {"op":"describe","bootstrap":...,"group":...}} -- a streams group as the coordinator describes it
 *   ({@code Admin.describeStreamsGroups}, KIP-1071): its epochs and, in the order of the description, each
 *   member's id, process id, client id, epoch and current and target active, standby and warm-up tasks
 *   ({@code "subtopology_partition"}), as {@code {"event":"group",...}}.</li>
 * </ul>
 * Records: {@code state} (a {@link KafkaStreams.StateListener} transition), {@code tasks} (each change of the
 * instance's {@link KafkaStreams#metadataForLocalThreads()}: active and standby task ids, the standbys including
 * warm-up replicas), {@code started}, {@code stopped}, {@code produced}, {@code count}, {@code error}; each with
 * {@code t} (ms since this JVM started).  End of stdin closes nothing: the JVM halts.
 */
public final class StreamsInstances {
    static final ObjectMapper JSON = new ObjectMapper();
    private static final PrintStream OUT =
        new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
    private static final long T0 = System.currentTimeMillis();
    private static final Map<String, KafkaStreams> INSTANCES = new ConcurrentHashMap<>();
    private static final Map<String, String> LAST_TASKS = new ConcurrentHashMap<>();
    private static final String STORE = "counts";

    private StreamsInstances() {
    }

    static synchronized void emit(final ObjectNode record) {
        record.put("t", System.currentTimeMillis() - T0);
        OUT.println(record.toString());
        OUT.flush();
    }

    static ObjectNode record(final String event, final String instance) {
        final ObjectNode r = JSON.createObjectNode();
        r.put("event", event);
        if (instance != null) {
            r.put("instance", instance);
        }
        return r;
    }

    public static void main(final String[] args) throws Exception {
        final Thread monitor = new Thread(StreamsInstances::monitor, "tasks-monitor");
        monitor.setDaemon(true);
        monitor.start();
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        emit(record("ready", null));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            final JsonNode cmd = JSON.readTree(line);
            final String op = cmd.path("op").asText();
            final String instance = cmd.path("instance").asText(null);
            try {
                switch (op) {
                    case "topic": createTopic(cmd); break;
                    case "produce": produce(cmd); break;
                    case "start": start(instance, cmd.path("props")); break;
                    case "stop": stop(instance); break;
                    case "count": count(); break;
                    case "describe": describe(cmd); break;
                    default: throw new IllegalArgumentException("unknown op " + op);
                }
            } catch (final Exception e) {
                final ObjectNode r = record("error", instance);
                r.put("op", op);
                r.put("message", String.valueOf(e));
                emit(r);
            }
        }
        Runtime.getRuntime().halt(0);
    }

    private static Properties adminProps(final String bootstrap) {
        final Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        return p;
    }

    private static void createTopic(final JsonNode cmd) throws Exception {
        try (Admin admin = Admin.create(adminProps(cmd.path("bootstrap").asText()))) {
            admin.createTopics(List.of(new NewTopic(cmd.path("topic").asText(), cmd.path("partitions").asInt(),
                (short) 1))).all().get();
        }
        emit(record("topic", null));
    }

    private static void produce(final JsonNode cmd) throws Exception {
        final Properties p = adminProps(cmd.path("bootstrap").asText());
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        p.put("linger.ms", "20");
        final int records = cmd.path("records").asInt();
        final int keys = cmd.path("keys").asInt();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(cmd.path("topic").asText(), "k" + (i % keys), "v"));
            }
            producer.flush();
        }
        final ObjectNode r = record("produced", null);
        r.put("records", records);
        emit(r);
    }

    private static void start(final String instance, final JsonNode settings) {
        final Properties p = new Properties();
        for (final Iterator<Map.Entry<String, JsonNode>> it = settings.fields(); it.hasNext(); ) {
            final Map.Entry<String, JsonNode> e = it.next();
            p.put(e.getKey(), e.getValue().asText());
        }
        p.put(StreamsConfig.CLIENT_ID_CONFIG, instance);
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
        final String topic = settings.path("rebalance.input.topic").asText();
        p.remove("rebalance.input.topic");
        final StreamsBuilder builder = new StreamsBuilder();
        builder.stream(topic, Consumed.with(Serdes.String(), Serdes.String()))
            .groupByKey()
            .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as(STORE));
        final KafkaStreams streams = new KafkaStreams(builder.build(), p);
        streams.setStateListener((newState, oldState) -> {
            final ObjectNode r = record("state", instance);
            r.put("from", oldState.name());
            r.put("to", newState.name());
            emit(r);
        });
        INSTANCES.put(instance, streams);
        streams.start();
        emit(record("started", instance));
    }

    private static void stop(final String instance) {
        final KafkaStreams streams = INSTANCES.remove(instance);
        if (streams == null) {
            throw new IllegalArgumentException("no running instance " + instance);
        }
        // a clean leave: LeaveGroup at once (by default a Streams client stays in the group until its session ends)
        final boolean closed = streams.close(org.apache.kafka.streams.CloseOptions
            .groupMembershipOperation(org.apache.kafka.streams.CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
            .withTimeout(Duration.ofSeconds(30)));
        LAST_TASKS.remove(instance);
        final ObjectNode r = record("stopped", instance);
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
        final ObjectNode r = record("count", null);
        r.put("total", total);
        emit(r);
    }

    private static void describe(final JsonNode cmd) throws Exception {
        final String group = cmd.path("group").asText();
        final StreamsGroupDescription d;
        try (Admin admin = Admin.create(adminProps(cmd.path("bootstrap").asText()))) {
            d = admin.describeStreamsGroups(List.of(group)).describedGroups().get(group).get();
        }
        final ObjectNode r = record("group", null);
        r.put("group", d.groupId());
        r.put("state", d.groupState().toString());
        r.put("group_epoch", d.groupEpoch());
        r.put("target_assignment_epoch", d.targetAssignmentEpoch());
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
        final ObjectNode o = JSON.createObjectNode();
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
        final ArrayNode a = JSON.createArrayNode();
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
                        final ObjectNode r = record("tasks", e.getKey());
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

    static List<String> names() {
        return new ArrayList<>(INSTANCES.keySet());
    }
}
