package org.rebalance.clients;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

/**
 * The one JSON-lines protocol of the book's client drivers: {@link org.rebalance.consumers.ScenarioMembers}
 * ({@code KafkaConsumer}s), {@link org.rebalance.share.ShareMembers} ({@code KafkaShareConsumer}s) and
 * {@link org.rebalance.streams.StreamsInstances} ({@code KafkaStreams} clients).  Its Python side is
 * {@code rebalance.kafka.jsonlines} (the same table, as TypedDicts).
 *
 * <p>Commands are JSON objects, one a line, on stdin ({@link #serve}); records are JSON objects, one a line, on
 * stdout (one writer: each record one whole line, written under one lock).  One driver runs in a JVM.
 * <ul>
 *   <li><b>handshake</b>: the JVM writes {@code {"event":"ready","t":...,"driver":NAME}} unprompted, once, when it
 *   reads commands; nothing else is a handshake.</li>
 *   <li><b>a command</b>: {@code {"op":OP, "member"?:NAME, "t0"?:EPOCH_MS, ...}}; {@code member} names the client
 *   (a consumer, a share consumer, a Streams instance: one key for all three).</li>
 *   <li><b>a record</b>: {@code {"event":EVENT, "t":MS, "member"?:NAME, ...}}; {@code member} is the client it is
 *   about.</li>
 *   <li><b>time</b>: {@code t} is milliseconds since {@code t0}: the epoch milliseconds of the last command that
 *   carried a {@code t0}, and before any did, the moment this class was loaded (the JVM's start).</li>
 *   <li><b>errors</b>: {@code {"event":"error","t","op"?,"member"?,"field"?,"message"}}.  With {@code op}: that
 *   command failed or was refused ({@code field} names a missing or ill-typed field, {@code "op"} an unknown
 *   command); without: a line that was not a JSON object, or a client's own thread failed ({@code member}).  The
 *   JVM goes on serving after every error.</li>
 *   <li><b>end</b>: end of stdin halts the JVM at once (nothing is closed).</li>
 * </ul>
 *
 * <table>
 *   <caption>Commands (C: ScenarioMembers, S: ShareMembers, K: StreamsInstances) and their answers</caption>
 *   <tr><th>op</th><th>by</th><th>fields</th><th>answer records</th></tr>
 *   <tr><td>warm</td><td>C S</td><td>bootstrap?</td><td>{@code warmed} (a consumer with no group fetched metadata
 *   once and closed: the client's classes are loaded)</td></tr>
 *   <tr><td>create_topics</td><td>C S K</td><td>bootstrap, topics {name: partitions}, group?, group_config?</td>
 *   <td>{@code topics_created} (topic_ids {name: id}) once every partition has a leader; C with {@code group}:
 *   also once the group's coordinator answers; S: {@code group_config} set on the group</td></tr>
 *   <tr><td>start</td><td>C</td><td>member, topics [..], props {..}, revoke_ms?, batch_ms?</td><td>{@code started},
 *   {@code member_id} (member_id, generation) once {@code groupMetadata().memberId()} is set and at every change,
 *   {@code assigned}/{@code revoked}/{@code lost} (partitions, generation, member_id), {@code assignor} (the
 *   leader's RecordingAssignor)</td></tr>
 *   <tr><td>subscribe</td><td>C</td><td>member, topics [..]</td><td>{@code subscribed} (topics), once the member's
 *   thread called {@code subscribe(topics, listener)} again (before its next poll)</td></tr>
 *   <tr><td>leave</td><td>C S</td><td>member</td><td>{@code closing}, {@code closed}</td></tr>
 *   <tr><td>observe</td><td>C</td><td>bootstrap, group, topics [..], interval_ms?</td><td>{@code topic_ids}
 *   (ids), then {@code group} (state, type, group_epoch, target_epoch, members) at every change</td></tr>
 *   <tr><td>metrics</td><td>C</td><td>member</td><td>{@code metrics} (values {name: value}, groups {name: metric
 *   group}: the consumer's rebalance and poll metrics from {@code KafkaConsumer.metrics()})</td></tr>
 *   <tr><td>start</td><td>S</td><td>member, topics [..], props {..}, release?, reject?, slow? [offsets],
 *   slow_ms?, processing_ms?</td><td>{@code started}, then {@code delivered} (topic, partition, offset, delivery_count, ack) and
 *   {@code acked} (topic, partition, offsets, ok, error?)</td></tr>
 *   <tr><td>stop</td><td>S</td><td></td><td>{@code closing}/{@code closed} per member, then {@code stopped}</td></tr>
 *   <tr><td>produce</td><td>S K</td><td>bootstrap, topic, count, partition? (S), keys? (K)</td>
 *   <td>{@code produced} (count; S: offsets)</td></tr>
 *   <tr><td>describe</td><td>S K</td><td>bootstrap, group</td><td>{@code group} (state, group_epoch, target_epoch,
 *   members)</td></tr>
 *   <tr><td>offsets</td><td>S</td><td>bootstrap, group</td><td>{@code offsets} (start_offsets, lags)</td></tr>
 *   <tr><td>start</td><td>K</td><td>member, props {..}</td><td>{@code started}, then {@code state} (previous, state)
 *   and {@code tasks} (active, standby, state) at every change</td></tr>
 *   <tr><td>stop</td><td>K</td><td>member</td><td>{@code stopped} (closed)</td></tr>
 *   <tr><td>count</td><td>K</td><td></td><td>{@code count} (total)</td></tr>
 * </table>
 */
public final class JsonLines {
    public static final ObjectMapper JSON = new ObjectMapper();
    /** Partitions by topic, then partition number. */
    public static final Comparator<TopicPartition> BY_TOPIC_PARTITION =
        Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);
    private static final PrintStream OUT = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
    private static volatile long t0 = System.currentTimeMillis();

    private JsonLines() {}

    /** One command of a driver: carries it out (its answer is a record it emits, now or later). */
    public interface Command {
        void run(JsonNode cmd) throws Exception;
    }

    /** A field of a command that is missing or of the wrong type: the command's error record names it. */
    public static final class BadField extends RuntimeException {
        public final String field;

        public BadField(String field, String message) {
            super(message);
            this.field = field;
        }
    }

    /** A record {@code {"event", "t", "member"?}}. */
    public static ObjectNode record(String member, String event) {
        ObjectNode o = JSON.createObjectNode();
        o.put("event", event);
        o.put("t", System.currentTimeMillis() - t0);
        if (member != null) o.put("member", member);
        return o;
    }

    public static synchronized void emit(ObjectNode record) {
        OUT.print(record.toString());
        OUT.print('\n');
        OUT.flush();
    }

    /** An {@code error} record: a command ({@code op}) that failed, naming the {@code field} when one is bad, or
     *  (no op) a client's thread that failed. */
    public static void error(String op, String member, String field, String message) {
        ObjectNode r = record(member, "error");
        if (op != null) r.put("op", op);
        if (field != null) r.put("field", field);
        r.put("message", message);
        emit(r);
    }

    /** An {@code error} record of a client's own thread ({@code member}; no op): {@code "where: exception"}, then
     *  {@code "; caused by cause"} for each cause under it (a client's constructor wraps what it refused in a
     *  {@code KafkaException} "Failed to construct kafka consumer"). */
    public static void clientError(String member, String where, Throwable e) {
        StringBuilder text = new StringBuilder(where).append(": ").append(e);
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        seen.add(e);
        for (Throwable c = e.getCause(); c != null && seen.add(c); c = c.getCause()) text.append("; caused by ").append(c);
        error(null, member, null, text.toString());
    }

    /** The partitions as {@code "topic-partition"} strings, sorted by {@link #BY_TOPIC_PARTITION}. */
    public static ArrayNode partitions(Collection<TopicPartition> tps) {
        ArrayNode a = JSON.createArrayNode();
        List<TopicPartition> sorted = new ArrayList<>(tps);
        sorted.sort(BY_TOPIC_PARTITION);
        for (TopicPartition tp : sorted) a.add(tp.toString());
        return a;
    }

    public static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ------------------------------------------------------------------------------------ a command's fields
    /** A required text field. */
    public static String text(JsonNode cmd, String field) {
        JsonNode v = cmd.get(field);
        if (v == null || v.isNull()) throw new BadField(field, "missing");
        if (!v.isTextual() || v.asText().isEmpty()) throw new BadField(field, "must be a non-empty string, got " + v);
        return v.asText();
    }

    /** The {@code member} the command is about. */
    public static String member(JsonNode cmd) {
        return text(cmd, "member");
    }

    /** A required whole number (at least {@code min}). */
    public static int integer(JsonNode cmd, String field, int min) {
        JsonNode v = cmd.get(field);
        if (v == null || v.isNull()) throw new BadField(field, "missing");
        if (!v.isIntegralNumber() || !v.canConvertToInt() || v.asInt() < min) {
            throw new BadField(field, "must be a whole number of at least " + min + ", got " + v);
        }
        return v.asInt();
    }

    /** An optional whole number of at least 0, {@code dflt} when absent. */
    public static long optionalLong(JsonNode cmd, String field, long dflt) {
        JsonNode v = cmd.get(field);
        if (v == null || v.isNull()) return dflt;
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < 0) {
            throw new BadField(field, "must be a whole number of at least 0, got " + v);
        }
        return v.asLong();
    }

    /** A required list of strings (a command's {@code topics}). */
    public static List<String> texts(JsonNode cmd, String field) {
        JsonNode v = cmd.get(field);
        if (v == null || v.isNull()) throw new BadField(field, "missing");
        if (!v.isArray()) throw new BadField(field, "must be a list of strings, got " + v);
        List<String> out = new ArrayList<>();
        for (JsonNode t : v) {
            if (!t.isTextual()) throw new BadField(field, "must be a list of strings, got " + v);
            out.add(t.asText());
        }
        return out;
    }

    /** An optional list of offsets (whole numbers), empty when absent. */
    public static Set<Long> offsetSet(JsonNode cmd, String field) {
        Set<Long> out = new HashSet<>();
        JsonNode v = cmd.get(field);
        if (v == null || v.isNull()) return out;
        if (!v.isArray()) throw new BadField(field, "must be a list of offsets, got " + v);
        for (JsonNode o : v) {
            if (!o.isIntegralNumber()) throw new BadField(field, "must be a list of offsets, got " + v);
            out.add(o.asLong());
        }
        return out;
    }

    /** A required object of settings {@code {name: value}} (values as text; a nested value is refused). */
    public static Properties settings(JsonNode cmd, String field) {
        JsonNode v = cmd.get(field);
        if (v == null || v.isNull()) throw new BadField(field, "missing");
        if (!v.isObject()) throw new BadField(field, "must be an object of settings, got " + v);
        Properties props = new Properties();
        for (Map.Entry<String, JsonNode> e : v.properties()) {
            if (e.getValue().isContainerNode()) throw new BadField(field + "." + e.getKey(), "must be a string, a number or a boolean");
            props.put(e.getKey(), e.getValue().asText());
        }
        return props;
    }

    /** A required object {@code {topic: partitions}}, each at least 1. */
    public static Map<String, Integer> topicCounts(JsonNode cmd, String field) {
        JsonNode v = cmd.get(field);
        if (v == null || v.isNull()) throw new BadField(field, "missing");
        if (!v.isObject() || v.isEmpty()) throw new BadField(field, "must be an object {topic: partitions}, got " + v);
        Map<String, Integer> out = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : v.properties()) {
            if (!e.getValue().isIntegralNumber() || e.getValue().asInt() < 1) {
                throw new BadField(field + "." + e.getKey(), "must be a whole number of partitions, at least 1");
            }
            out.put(e.getKey(), e.getValue().asInt());
        }
        return out;
    }

    // ------------------------------------------------------------------------------------ clients
    /** A client's properties: {@code bootstrap.servers} and {@code client.id}. */
    public static Properties clientProps(String bootstrap, String clientId) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("client.id", clientId);
        return p;
    }

    /** A member's client properties: the command's {@code props}, client.id = the member. */
    public static Properties memberProps(JsonNode cmd, String member) {
        Properties props = settings(cmd, "props");
        props.put("client.id", member);
        return props;
    }

    /**
     * The {@code create_topics} command's topics ({@code topics}: {name: partitions}, replication factor 1)
     * created, and their ids once every partition has a leader (within 30 s), as the {@code topic_ids} of a
     * {@code topics_created} record (not yet emitted: a driver may add to it).
     */
    public static ObjectNode createTopics(Admin admin, JsonNode cmd) throws Exception {
        Map<String, Integer> counts = topicCounts(cmd, "topics");
        List<NewTopic> topics = new ArrayList<>();
        counts.forEach((name, n) -> topics.add(new NewTopic(name, n, (short) 1)));
        admin.createTopics(topics).all().get();
        ObjectNode r = record(null, "topics_created");
        ObjectNode ids = r.putObject("topic_ids");
        long deadline = System.currentTimeMillis() + 30_000;
        while (true) {  // the topics' leaders known before anyone produces or subscribes
            try {
                Map<String, TopicDescription> td = admin.describeTopics(counts.keySet()).allTopicNames().get();
                boolean led = td.values().stream().allMatch(d -> d.partitions().stream().allMatch(p -> p.leader() != null));
                if (led) {
                    for (String name : counts.keySet()) ids.put(name, td.get(name).topicId().toString());
                    return r;
                }
            } catch (Exception e) {
                if (System.currentTimeMillis() > deadline) throw e;
            }
            if (System.currentTimeMillis() > deadline) throw new IllegalStateException("no leaders for " + counts.keySet());
            sleep(100);
        }
    }

    // ------------------------------------------------------------------------------------ the loop
    /**
     * Writes {@code ready}, then reads commands from stdin until its end and runs each by {@code commands} (op ->
     * command); every line that is not a JSON object, an unknown or missing op, an ill-typed {@code member} or
     * {@code t0} and every exception of a command becomes an {@code error} record, and the loop goes on.  End of
     * stdin halts the JVM at once (no close()).  {@code driver} names the main class (in {@code ready} and on
     * stderr, whose tail the Python side reports when the JVM dies).
     */
    public static void serve(String driver, Map<String, Command> commands) {
        System.err.println(driver + ": serving JSON-lines commands on stdin (pid " + ProcessHandle.current().pid() + ")");
        System.err.flush();
        ObjectNode ready = record(null, "ready");
        ready.put("driver", driver);
        emit(ready);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        try {
            while ((line = in.readLine()) != null) {
                if (!line.isBlank()) serveLine(driver, commands, line);
            }
        } catch (java.io.IOException e) {
            System.err.println(driver + ": stdin failed: " + e);
        }
        OUT.flush();
        Runtime.getRuntime().halt(0);
    }

    private static void serveLine(String driver, Map<String, Command> commands, String line) {
        JsonNode cmd;
        try {
            cmd = JSON.readTree(line);
        } catch (Exception e) {
            error(null, null, null, "not JSON: " + e.getMessage().split("\n")[0] + " (line: " + clip(line) + ")");
            return;
        }
        if (cmd == null || !cmd.isObject()) {
            error(null, null, null, "not a JSON object (line: " + clip(line) + ")");
            return;
        }
        JsonNode opNode = cmd.get("op");
        if (opNode == null || !opNode.isTextual()) {
            error(null, null, "op", "every command names its op as a string; " + driver + " runs " + commands.keySet());
            return;
        }
        String op = opNode.asText();
        JsonNode memberNode = cmd.get("member");
        String member = memberNode != null && memberNode.isTextual() ? memberNode.asText() : null;
        Command command = commands.get(op);
        if (command == null) {
            error(op, member, "op", "unknown command '" + op + "'; " + driver + " runs " + commands.keySet());
            return;
        }
        if (memberNode != null && !memberNode.isTextual()) {
            error(op, null, "member", "must be a name (a string), got " + memberNode);
            return;
        }
        JsonNode t0Node = cmd.get("t0");
        if (t0Node != null) {
            if (!t0Node.isIntegralNumber()) {
                error(op, member, "t0", "must be epoch milliseconds (a whole number), got " + t0Node);
                return;
            }
            t0 = t0Node.asLong();
        }
        try {
            command.run(cmd);
        } catch (BadField e) {
            error(op, member, e.field, e.getMessage());
        } catch (Exception e) {
            error(op, member, null, String.valueOf(e));
        }
    }

    private static String clip(String line) {
        return line.length() > 200 ? line.substring(0, 200) + "..." : line;
    }

    /** The commands of a driver, by op, in the order given (a driver's {@code main} builds it). */
    public static Map<String, Command> commands() {
        return new LinkedHashMap<>();
    }
}
