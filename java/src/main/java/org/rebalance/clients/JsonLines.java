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
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/**
 * The JSON-lines plumbing of the book's client drivers, {@link org.rebalance.consumers.ScenarioMembers}
 * ({@code KafkaConsumer}s) and {@link org.rebalance.share.ShareMembers} ({@code KafkaShareConsumer}s): commands
 * read as JSON lines on stdin ({@link #serve}), records written as JSON lines on stdout (one writer: every record
 * is one whole line, written under one lock), each {@code {"member"?, "event", "t", ...}} with {@code t} in ms since
 * the {@code t0} the last command gave. One driver runs in a JVM.
 */
public final class JsonLines {
    public static final ObjectMapper JSON = new ObjectMapper();
    /** Partitions by topic, then partition number. */
    public static final Comparator<TopicPartition> BY_TOPIC_PARTITION =
        Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);
    private static final PrintStream OUT = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
    private static volatile long t0 = System.currentTimeMillis();

    private JsonLines() {}

    /** A driver's commands: carries out one, false when {@code op} is none of them. */
    public interface Commands {
        boolean run(String op, String member, JsonNode cmd) throws Exception;
    }

    public static ObjectNode record(String member, String event) {
        ObjectNode o = JSON.createObjectNode();
        if (member != null) o.put("member", member);
        o.put("event", event);
        o.put("t", System.currentTimeMillis() - t0);
        return o;
    }

    public static synchronized void emit(ObjectNode record) {
        OUT.print(record.toString());
        OUT.print('\n');
        OUT.flush();
    }

    /** An {@code error} record with {@code message}. */
    public static void error(String member, String message) {
        ObjectNode r = record(member, "error");
        r.put("message", message);
        emit(r);
    }

    /** An {@code error} record, its message {@code "where: exception"}. */
    public static void error(String member, String where, Throwable e) {
        error(member, where + ": " + e);
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

    /** A JSON list's items as text (a command's {@code topics}). */
    public static List<String> texts(JsonNode list) {
        List<String> out = new ArrayList<>();
        list.forEach(t -> out.add(t.asText()));
        return out;
    }

    /** A client's properties: {@code bootstrap.servers} and {@code client.id}. */
    public static Properties clientProps(String bootstrap, String clientId) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("client.id", clientId);
        return p;
    }

    /** A member's consumer properties: the {@code start} command's {@code props} (as text), client.id = the member. */
    public static Properties memberProps(JsonNode cmd, String member) {
        Properties props = new Properties();
        for (Iterator<Map.Entry<String, JsonNode>> it = cmd.get("props").fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            props.put(e.getKey(), e.getValue().asText());
        }
        props.put("client.id", member);
        return props;
    }

    /**
     * Reads commands from stdin until its end: each non-blank line a JSON object ({@code notJson} words the error
     * record of a line that is not JSON), whose {@code t0} (when given) resets the clock, run by {@code commands}
     * with its {@code op} and {@code member}; an unknown op is an error record. End of stdin halts the JVM at once
     * (no close()).
     */
    public static void serve(Commands commands, Function<Exception, String> notJson) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            JsonNode cmd;
            try {
                cmd = JSON.readTree(line);
            } catch (Exception e) {
                error(null, notJson.apply(e));
                continue;
            }
            if (cmd.has("t0")) t0 = cmd.get("t0").asLong();
            String op = cmd.path("op").asText();
            String name = cmd.path("member").asText(null);
            if (!commands.run(op, name, cmd)) {
                error(name, "unknown op " + op);
            }
        }
        OUT.flush();
        Runtime.getRuntime().halt(0);
    }
}
